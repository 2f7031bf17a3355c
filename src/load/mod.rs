//! Loading an intent: strict YAML 1.2 parsing with source spans for every node.
//!
//! The YAML text is read event by event with `saphyr-parser` and built into a [`serde_json::Value`]
//! together with a [`SpanMap`] that records, for every node, the byte span of its value and (for
//! mapping entries) of its key, keyed by RFC 6901 JSON pointer.
//!
//! Plain scalars are resolved with the YAML 1.2 core schema (`null`/`~`, `true`/`false`, decimal, `0x` and
//! `0o` integers, floats); quoted and block scalars are always strings, so `"26"` stays a string and
//! `yes`/`off` are never booleans.
//!
//! The loader is defensive: it refuses files over [`MAX_FILE_BYTES`], nesting deeper than [`MAX_DEPTH`],
//! aliases that expand to more than [`MAX_ALIAS_NODES`] nodes ("billion laughs"), several documents,
//! explicit tags, non-string keys and duplicate keys. Problems the loader can step over (a duplicate key,
//! a tag, a non-string key, a second document) are collected and loading goes on, so one run reports as
//! much as possible; a syntax error or a resource limit stops it.

use crate::diag::{Finding, Source, Span};
use crate::rules::Rule;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

/// Largest intent file accepted, in bytes (4 MiB). Checked before parsing.
pub(crate) const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;
/// Most nodes that aliases (`*name`) may add to a document, counted after expansion.
pub(crate) const MAX_ALIAS_NODES: usize = 10_000;
/// Deepest nesting of mappings and sequences accepted.
pub(crate) const MAX_DEPTH: usize = 64;

/// Most loader findings reported for one file; more are counted and summed up in one last finding.
pub(crate) const MAX_FINDINGS: usize = 100;

/// Source spans of every node of a loaded document, by JSON pointer (`/qos/classes/roce/ecn/min`).
///
/// Pointers follow RFC 6901: `~` is written `~0` and `/` is written `~1` inside a segment; the root is
/// the empty pointer `""`. Nodes that come from an alias (`*name`) have no entry of their own: they are
/// located at the alias through [`SpanMap::locate`].
#[derive(Clone, Debug, Default)]
pub struct SpanMap {
    /// Value span per pointer.
    pub values: HashMap<String, Span>,
    /// Key span per pointer (mapping entries only).
    pub keys: HashMap<String, Span>,
}

impl SpanMap {
    /// The span of the value at `pointer`; for a pointer that does not exist (a missing key), the span of
    /// its closest existing ancestor.
    pub fn locate(&self, pointer: &str) -> Option<Span> {
        let mut p = pointer;
        loop {
            if let Some(s) = self.values.get(p) {
                return Some(*s);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.values.get("").copied(),
            }
        }
    }

    /// The span of the key of the mapping entry at `pointer`, if that entry exists and is not inside an
    /// alias.
    pub fn key(&self, pointer: &str) -> Option<Span> {
        self.keys.get(pointer).copied()
    }

    /// The span of the value at exactly `pointer`, without falling back to an ancestor.
    pub fn value(&self, pointer: &str) -> Option<Span> {
        self.values.get(pointer).copied()
    }

    /// The key span of the entry at `pointer` when it has one, else [`SpanMap::locate`]: where to point
    /// when the whole entry is meant (an unknown key, a mapping missing a key).
    pub fn locate_key(&self, pointer: &str) -> Option<Span> {
        self.key(pointer).or_else(|| self.locate(pointer))
    }
}

/// Escapes one JSON pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`.
pub(crate) fn escape_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Undoes [`escape_segment`].
pub(crate) fn unescape_segment(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// `pointer` extended by one (unescaped) segment.
pub(crate) fn child_pointer(pointer: &str, segment: &str) -> String {
    format!("{pointer}/{}", escape_segment(segment))
}

/// The pointer as a dotted path for messages: `/qos/classes/roce/dscp/1` → `qos.classes.roce.dscp[1]`; the
/// root is `(top level)`.
pub(crate) fn display_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(top level)".into();
    }
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = unescape_segment(seg);
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) && !out.is_empty() {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

/// A loaded YAML document: its value, the span of every node, and the problems the loader stepped over.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    /// The document as JSON (a duplicate key keeps its first value).
    pub value: Value,
    /// Spans of every node.
    pub spans: SpanMap,
    /// Problems found while loading that did not stop it (duplicate keys, tags, ...). All are errors.
    pub findings: Vec<Finding>,
}

/// Loads one intent file.
///
/// Returns the document, with any problems the loader could step over in [`Document::findings`]; or, when
/// loading had to stop (syntax error, size, depth or alias limit), every finding collected so far.
pub(crate) fn load(source: &Source) -> Result<Document, Vec<Finding>> {
    if source.text.len() > MAX_FILE_BYTES {
        return Err(vec![file_too_large(source, source.text.len())]);
    }
    load_unbounded(source)
}

/// [`load`] without the file-size check, for files whose size the caller bounds itself (an allocation
/// lock grows with the fabric: [`crate::lock::read::MAX_LOCK_BYTES`]).
pub(crate) fn load_unbounded(source: &Source) -> Result<Document, Vec<Finding>> {
    let mut b = Builder::new(source);
    let mut parser = Parser::new_from_str(&source.text);
    let fatal = loop {
        match parser.next_event() {
            None => break false,
            Some(Err(e)) => {
                b.syntax_error(&e);
                break true;
            }
            Some(Ok((event, span))) => {
                let span = b.span(span);
                match b.event(event, span) {
                    Flow::Continue => {}
                    Flow::Done => break false,
                    Flow::Fatal => break true,
                }
            }
        }
    };
    if b.suppressed > 0 {
        let n = b.suppressed;
        let mut f = Finding::new(
            Rule::YamlTooMany,
            format!("{n} more YAML problems of the kinds above are not shown"),
        )
        .hint("fix the problems above and run again");
        f.file = source.name.clone();
        b.findings.push(f);
    }
    if fatal {
        return Err(b.findings);
    }
    Ok(Document {
        value: b.root.take().unwrap_or(Value::Null),
        spans: b.spans,
        findings: b.findings,
    })
}

/// The finding for a file over [`MAX_FILE_BYTES`] (`len` bytes), located at its start.
pub(crate) fn file_too_large(source: &Source, len: usize) -> Finding {
    Finding::new(
        Rule::YamlFileTooLarge,
        format!(
            "file is {len} bytes, more than the {MAX_FILE_BYTES} bytes (4 MiB) an intent may have"
        ),
    )
    .hint(
        "an intent describes one fabric in a few hundred lines; check that this is the right file",
    )
    .at("")
    .with_span(source, Span { offset: 0, len: 0 })
}

/// The finding for a file that is not UTF-8; `valid_up_to` is the byte offset of the first bad byte in the
/// original file and `source` should hold the lossily decoded text.
pub(crate) fn not_utf8(source: &Source, valid_up_to: usize) -> Finding {
    Finding::new(Rule::YamlNotUtf8, "the file is not valid UTF-8 text")
        .hint("save the intent as UTF-8")
        .with_span(
            source,
            Span {
                offset: valid_up_to,
                len: 0,
            },
        )
}

enum Flow {
    Continue,
    Done,
    Fatal,
}

/// Maps saphyr's character indices to byte offsets.
struct CharIndex {
    /// (character index just after a non-ASCII character, byte offset of that position).
    checkpoints: Vec<(usize, usize)>,
    len_bytes: usize,
}

impl CharIndex {
    fn new(text: &str) -> CharIndex {
        let mut checkpoints = Vec::new();
        if !text.is_ascii() {
            for (ci, (bi, ch)) in text.char_indices().enumerate() {
                if !ch.is_ascii() {
                    checkpoints.push((ci + 1, bi + ch.len_utf8()));
                }
            }
        }
        CharIndex {
            checkpoints,
            len_bytes: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        let i = self.checkpoints.partition_point(|&(c, _)| c <= char_index);
        let b = if i == 0 {
            char_index
        } else {
            let (c, b) = self.checkpoints[i - 1];
            b + (char_index - c)
        };
        b.min(self.len_bytes)
    }
}

/// Where a node being built goes: at this pointer, or nowhere (a key, a duplicate, a second document).
type Slot = Option<String>;

enum Frame {
    Map {
        slot: Slot,
        start: usize,
        end: usize,
        anchor: usize,
        count: usize,
        map: Map<String, Value>,
        /// The key whose value comes next; `None` while waiting for a key.
        key: Option<PendingKey>,
        /// First occurrence of every key: its span.
        seen: HashMap<String, Span>,
    },
    Seq {
        slot: Slot,
        start: usize,
        end: usize,
        anchor: usize,
        count: usize,
        items: Vec<Value>,
    },
}

struct PendingKey {
    /// Where the value's spans go: `None` when they are not recorded.
    slot: Slot,
    /// The key's name.
    name: String,
    /// False to drop the value (duplicate or non-string key).
    keep: bool,
}

struct Anchored {
    value: Value,
    count: usize,
}

struct Builder<'s> {
    source: &'s Source,
    chars: CharIndex,
    frames: Vec<Frame>,
    root: Option<Value>,
    spans: SpanMap,
    findings: Vec<Finding>,
    anchors: HashMap<usize, Anchored>,
    alias_nodes: usize,
    documents: usize,
    /// Findings past [`MAX_FINDINGS`], counted but not kept.
    suppressed: usize,
    /// Skipping a second (or later) document.
    skipping: bool,
}

/// One finished node.
struct Node {
    value: Value,
    span: Span,
    count: usize,
    anchor: usize,
    /// What a plain scalar resolved to when not a string (for the non-string key message).
    key_kind: Option<PlainKind>,
    is_collection: bool,
}

impl<'s> Builder<'s> {
    fn new(source: &'s Source) -> Builder<'s> {
        Builder {
            source,
            chars: CharIndex::new(&source.text),
            frames: Vec::new(),
            root: None,
            spans: SpanMap::default(),
            findings: Vec::new(),
            anchors: HashMap::new(),
            alias_nodes: 0,
            documents: 0,
            suppressed: 0,
            skipping: false,
        }
    }

    fn span(&self, s: saphyr_parser::Span) -> Span {
        let a = self.chars.byte(s.start.index());
        let b = self.chars.byte(s.end.index()).max(a);
        Span {
            offset: a,
            len: b - a,
        }
    }

    fn finding(&mut self, f: Finding, span: Span) {
        if self.findings.len() >= MAX_FINDINGS && !is_fatal(f.code) {
            self.suppressed += 1;
            return;
        }
        self.findings.push(f.with_span(self.source, span));
    }

    fn syntax_error(&mut self, e: &ScanError) {
        let offset = self.chars.byte(e.marker().index());
        let len = self.source.text[offset..]
            .chars()
            .next()
            .filter(|c| *c != '\n')
            .map_or(0, char::len_utf8);
        let info = e.info();
        if info.contains("recursion limit") {
            self.finding(
                Finding::new(
                    Rule::YamlTooDeep,
                    "flow collections (`[`, `{`) are nested too deeply",
                )
                .hint("an intent is a few levels deep; check for runaway `[` or `{`"),
                Span { offset, len },
            );
            return;
        }
        let mut f = Finding::new(Rule::YamlSyntax, format!("YAML syntax error: {info}"));
        if let Some(h) = syntax_hint(info) {
            f = f.hint(h);
        }
        self.finding(f, Span { offset, len });
    }

    /// The slot of the next node, from the innermost open collection.
    fn next_slot(&self) -> Slot {
        if self.skipping {
            return None;
        }
        match self.frames.last() {
            None => Some(String::new()),
            Some(Frame::Map { key: None, .. }) => None,
            Some(Frame::Map { key: Some(k), .. }) => k.slot.clone(),
            Some(Frame::Seq { slot, items, .. }) => slot
                .as_ref()
                .map(|p| child_pointer(p, &items.len().to_string())),
        }
    }

    fn check_tag(&mut self, tag: Option<&Tag>, span: Span) {
        if let Some(t) = tag {
            let name = if t.handle == "tag:yaml.org,2002:" {
                format!("!!{}", t.suffix)
            } else {
                format!("{}{}", t.handle, t.suffix)
            };
            self.finding(
                Finding::new(
                    Rule::YamlTag,
                    format!("YAML tag `{name}` is not allowed in an intent"),
                )
                .hint(
                    "remove the tag; write the value as plain text (quote it to make it a string)",
                ),
                span,
            );
        }
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Flow {
        match event {
            Event::StreamStart | Event::Nothing => Flow::Continue,
            Event::StreamEnd => Flow::Done,
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents == 2 {
                    self.finding(
                        Finding::new(
                            Rule::YamlMultipleDocuments,
                            "a second YAML document starts here; an intent file holds exactly one",
                        )
                        .hint("put each intent in its own file, or remove the `---` line"),
                        span,
                    );
                }
                self.skipping = self.documents > 1;
                Flow::Continue
            }
            Event::DocumentEnd => Flow::Continue,
            Event::Scalar(text, style, anchor, tag) => {
                self.check_tag(tag.as_deref(), span);
                let (value, key_kind) = if style == ScalarStyle::Plain {
                    resolve_plain(&text)
                } else {
                    (Value::String(text.into_owned()), None)
                };
                let slot = self.next_slot();
                self.finish(
                    slot,
                    Node {
                        value,
                        span,
                        count: 1,
                        anchor,
                        key_kind,
                        is_collection: false,
                    },
                )
            }
            Event::Alias(id) => self.alias(id, span),
            Event::MappingStart(anchor, tag) => {
                self.check_tag(tag.as_deref(), span);
                self.start(true, anchor, span)
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_tag(tag.as_deref(), span);
                self.start(false, anchor, span)
            }
            Event::MappingEnd | Event::SequenceEnd => self.end(span),
        }
    }

    fn start(&mut self, is_map: bool, anchor: usize, span: Span) -> Flow {
        if self.frames.len() >= MAX_DEPTH {
            self.finding(
                Finding::new(
                    Rule::YamlTooDeep,
                    format!("nesting is deeper than {MAX_DEPTH} levels"),
                )
                .hint("an intent is a few levels deep; check for runaway `[` or `{`"),
                span,
            );
            return Flow::Fatal;
        }
        let slot = self.next_slot();
        let start = span.offset;
        let end = span.offset + span.len;
        self.frames.push(if is_map {
            Frame::Map {
                slot,
                start,
                end,
                anchor,
                count: 1,
                map: Map::new(),
                key: None,
                seen: HashMap::new(),
            }
        } else {
            Frame::Seq {
                slot,
                start,
                end,
                anchor,
                count: 1,
                items: Vec::new(),
            }
        });
        Flow::Continue
    }

    fn end(&mut self, span: Span) -> Flow {
        let Some(frame) = self.frames.pop() else {
            return Flow::Continue;
        };
        let (slot, start, end, anchor, count, value) = match frame {
            Frame::Map {
                slot,
                start,
                end,
                anchor,
                count,
                map,
                ..
            } => (slot, start, end, anchor, count, Value::Object(map)),
            Frame::Seq {
                slot,
                start,
                end,
                anchor,
                count,
                items,
            } => (slot, start, end, anchor, count, Value::Array(items)),
        };
        // A flow collection ends at its `}`/`]`; a block collection at the end of its last entry (its end
        // event sits on the next token, possibly lines further down).
        let end = if span.len > 0 {
            span.offset + span.len
        } else {
            end
        };
        self.finish(
            slot,
            Node {
                value,
                span: Span {
                    offset: start,
                    len: end.saturating_sub(start),
                },
                count,
                anchor,
                key_kind: None,
                is_collection: true,
            },
        )
    }

    fn alias(&mut self, id: usize, span: Span) -> Flow {
        let Some(anchored) = self.anchors.get(&id) else {
            self.finding(
                Finding::new(
                    Rule::YamlAliasLimit,
                    "this alias refers to the node that contains it (a recursive alias)",
                )
                .hint("aliases may only refer to a complete node defined earlier"),
                span,
            );
            return Flow::Fatal;
        };
        let count = anchored.count;
        self.alias_nodes = self.alias_nodes.saturating_add(count);
        if self.alias_nodes > MAX_ALIAS_NODES {
            self.finding(
                Finding::new(
                    Rule::YamlAliasLimit,
                    format!(
                        "aliases expand to more than {MAX_ALIAS_NODES} nodes (this alias alone adds {count})"
                    ),
                )
                .hint("write the values out, or use fewer nested aliases: expansions are limited to stop \"billion laughs\" files"),
                span,
            );
            return Flow::Fatal;
        }
        let value = anchored.value.clone();
        let slot = self.next_slot();
        self.finish(
            slot,
            Node {
                is_collection: value.is_object() || value.is_array(),
                value,
                span,
                count,
                anchor: 0,
                key_kind: None,
            },
        )
    }

    /// Delivers a finished node to its parent (or makes it the document root).
    fn finish(&mut self, slot: Slot, node: Node) -> Flow {
        if node.anchor != 0 {
            self.anchors.insert(
                node.anchor,
                Anchored {
                    value: node.value.clone(),
                    count: node.count,
                },
            );
        }
        if let Some(p) = &slot {
            self.spans.values.insert(p.clone(), node.span);
        }
        let source = self.source;
        let Some(parent) = self.frames.last_mut() else {
            if !self.skipping && self.root.is_none() {
                self.root = Some(node.value);
            }
            return Flow::Continue;
        };
        let new_finding = match parent {
            Frame::Seq {
                end, count, items, ..
            } => {
                *end = (*end).max(node.span.offset + node.span.len);
                *count = count.saturating_add(node.count);
                items.push(node.value);
                None
            }
            Frame::Map {
                slot: map_slot,
                end,
                count,
                map,
                key,
                seen,
                ..
            } => {
                *end = (*end).max(node.span.offset + node.span.len);
                match key.take() {
                    Some(k) => {
                        *count = count.saturating_add(node.count);
                        if k.keep {
                            map.insert(k.name, node.value);
                        }
                        None
                    }
                    None => {
                        let (pending, finding) =
                            read_key(source, &mut self.spans, map_slot.as_deref(), seen, &node);
                        *key = Some(pending);
                        finding
                    }
                }
            }
        };
        if let Some((f, span)) = new_finding {
            self.finding(f, span);
        }
        Flow::Continue
    }
}

/// A node that is a mapping key: the pending key its value goes under, and the finding when the key is
/// not a string or repeats an earlier one (the value is then dropped).
fn read_key(
    source: &Source,
    spans: &mut SpanMap,
    map_slot: Option<&str>,
    seen: &mut HashMap<String, Span>,
    node: &Node,
) -> (PendingKey, Option<(Finding, Span)>) {
    let name = match (&node.value, node.key_kind) {
        (Value::String(s), None) => s.clone(),
        _ => return non_string_key(source, node),
    };
    let pointer = map_slot.map(|p| child_pointer(p, &name));
    if let Some(first) = seen.get(&name) {
        let finding = duplicate_key(source, &name, *first, pointer.as_deref());
        let pending = PendingKey {
            slot: None,
            name,
            keep: false,
        };
        return (pending, Some((finding, node.span)));
    }
    seen.insert(name.clone(), node.span);
    if let Some(p) = &pointer {
        spans.keys.insert(p.clone(), node.span);
    }
    let pending = PendingKey {
        slot: pointer,
        name,
        keep: true,
    };
    (pending, None)
}

/// A key that is a number, a boolean, null or a collection: reported, its value dropped.
fn non_string_key(source: &Source, node: &Node) -> (PendingKey, Option<(Finding, Span)>) {
    let what = match (&node.value, node.key_kind) {
        (_, Some(kind)) => kind.phrase(),
        (Value::Array(_), _) => "a list",
        (Value::Object(_), _) => "a mapping",
        _ => "not a string",
    };
    let text = snippet(&source.text, node.span);
    let hint = if node.is_collection {
        "keys must be plain names".to_string()
    } else {
        format!("quote the key if it is meant as text: `\"{text}\":`")
    };
    let finding = Finding::new(
        Rule::YamlNonStringKey,
        if text.is_empty() {
            format!("an empty key is {what}; keys must be strings")
        } else {
            format!("key `{text}` is {what}; keys must be strings")
        },
    )
    .hint(hint);
    let pending = PendingKey {
        slot: None,
        name: String::new(),
        keep: false,
    };
    (pending, Some((finding, node.span)))
}

/// A key repeated in one mapping; `first` is the span of its first occurrence, whose value is kept.
fn duplicate_key(source: &Source, name: &str, first: Span, pointer: Option<&str>) -> Finding {
    let (line, _) = source.line_col(first.offset);
    let at = pointer
        .map(display_path)
        .unwrap_or_else(|| name.to_string());
    let f = Finding::new(
        Rule::YamlDuplicateKey,
        format!("duplicate key `{name}`: it is already set on line {line}"),
    )
    .hint(format!(
        "remove one of the two; the value on line {line} is the one checked for `{at}`"
    ));
    match pointer {
        Some(p) => f.at(p.to_string()),
        None => f,
    }
}

/// Problems that stop loading: always reported, even past [`MAX_FINDINGS`].
fn is_fatal(code: Rule) -> bool {
    matches!(
        code,
        Rule::YamlSyntax | Rule::YamlAliasLimit | Rule::YamlTooDeep | Rule::YamlFileTooLarge
    )
}

/// The source text of a span, shortened for a message.
fn snippet(text: &str, span: Span) -> String {
    let s = text
        .get(span.offset..span.offset + span.len)
        .unwrap_or_default();
    let one_line = s.lines().next().unwrap_or_default();
    if one_line.chars().count() > 40 {
        let cut: String = one_line.chars().take(40).collect();
        format!("{cut}…")
    } else {
        one_line.to_string()
    }
}

/// A fix hint for common saphyr scanner messages.
fn syntax_hint(info: &str) -> Option<&'static str> {
    if info.contains("mapping values are not allowed") {
        Some("check this line's indentation, or quote a value that contains `: `")
    } else if info.contains("did not find expected ',' or ']'")
        || info.contains("did not find expected ',' or '}'")
    {
        Some("a `[` or `{` is not closed, or items are missing a `,`")
    } else if info.contains("illegal placement of ':'") {
        Some("a `[` or `{` above may not be closed, or a value containing `:` needs quotes")
    } else if info.contains("quoted scalar") {
        Some("a quoted string is not closed")
    } else if info.contains("tab") || info.contains("valid YAML whitespace") {
        Some("indent with spaces, not tabs, and put a space after `:`")
    } else if info.contains("unknown anchor") {
        Some("define the anchor (`&name`) before using the alias (`*name`)")
    } else if info.contains("block mapping")
        || info.contains("block sequence")
        || info.contains("indentation")
    {
        Some("check the indentation of this line against the lines above")
    } else {
        None
    }
}

/// True when `text`, written unquoted in flow context (`[a, b]`, `{k: v}`), reads back as this same string:
/// it resolves to no other type (`true`, `26`, `~`) and holds no YAML indicator.
pub(crate) fn plain_is_string(text: &str) -> bool {
    !text.is_empty()
        && text.trim() == text
        && resolve_plain(text).1.is_none()
        && !text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        && !text.contains(|c: char| ",[]{}#\n\t".contains(c))
        && !text.contains(": ")
        && !text.ends_with(':')
        // YAML 1.1 readers take `1:1` for a base-60 number.
        && !(text.starts_with(|c: char| c.is_ascii_digit()) && text.contains(':'))
}

/// What a plain scalar that is not a string resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlainKind {
    Null,
    Boolean,
    Integer,
    Float,
}

impl PlainKind {
    /// The kind as a message names it (`key `1` is an integer`).
    fn phrase(self) -> &'static str {
        match self {
            PlainKind::Null => "null",
            PlainKind::Boolean => "a boolean",
            PlainKind::Integer => "an integer",
            PlainKind::Float => "a float",
        }
    }
}

/// YAML 1.2 core-schema resolution of a plain scalar. Returns the value and, when it is not a string, the
/// kind of node it is (for messages about keys).
fn resolve_plain(text: &str) -> (Value, Option<PlainKind>) {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return (Value::Null, Some(PlainKind::Null)),
        "true" | "True" | "TRUE" => return (Value::Bool(true), Some(PlainKind::Boolean)),
        "false" | "False" | "FALSE" => return (Value::Bool(false), Some(PlainKind::Boolean)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            // Not representable in JSON: keep the text, so the schema reports it as a string.
            return (Value::String(text.to_string()), Some(PlainKind::Float));
        }
        _ => {}
    }
    if let Some(v) = resolve_int(text) {
        return (v, Some(PlainKind::Integer));
    }
    if is_core_float(text)
        && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return (Value::Number(n), Some(PlainKind::Float));
    }
    (Value::String(text.to_string()), None)
}

fn resolve_int(text: &str) -> Option<Value> {
    let (digits, radix) = if let Some(h) = text.strip_prefix("0x") {
        (h, 16)
    } else if let Some(o) = text.strip_prefix("0o") {
        (o, 8)
    } else {
        let body = text.strip_prefix(['-', '+']).unwrap_or(text);
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if let Ok(v) = text.parse::<u64>() {
            return Some(Value::from(v));
        }
        if let Ok(v) = text.parse::<i64>() {
            return Some(Value::from(v));
        }
        // Too large for 64 bits: keep it as a float so range checks still see a number.
        return text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number);
    };
    let ok = match radix {
        16 => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()),
        _ => !digits.is_empty() && digits.bytes().all(|b| (b'0'..=b'7').contains(&b)),
    };
    if !ok {
        return None;
    }
    match u64::from_str_radix(digits, radix) {
        Ok(v) => Some(Value::from(v)),
        Err(_) => None,
    }
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_core_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - f;
        if int_digits == 0 && frac_digits == 0 {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    let _ = frac_digits;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str) -> Result<Document, Vec<Finding>> {
        load(&Source::new("t.yaml", text))
    }

    #[test]
    fn core_schema_scalars() {
        let d = load_str(
            "a: 26\nb: \"26\"\nc: yes\nd: off\ne: ~\nf: 0x1A\ng: 0o17\nh: 1.5\ni: true\nj: 00:cc:cc:cc:cc:cc\nk: -3\nl: 1e3\n",
        )
        .unwrap();
        let v = &d.value;
        assert_eq!(v["a"], 26);
        assert_eq!(v["b"], "26");
        assert_eq!(v["c"], "yes");
        assert_eq!(v["d"], "off");
        assert!(v["e"].is_null());
        assert_eq!(v["f"], 26);
        assert_eq!(v["g"], 15);
        assert_eq!(v["h"], 1.5);
        assert_eq!(v["i"], true);
        assert_eq!(v["j"], "00:cc:cc:cc:cc:cc");
        assert_eq!(v["k"], -3);
        assert_eq!(v["l"], 1000.0);
        assert!(d.findings.is_empty());
    }

    #[test]
    fn spans_and_pointers() {
        let text = "a:\n  b/c: [1, {x~y: é}]\n  d: é2\n";
        let d = load_str(text).unwrap();
        let s = d.spans.value("/a/b~1c/1/x~0y").unwrap();
        assert_eq!(&text[s.offset..s.offset + s.len], "é");
        let s = d.spans.key("/a/d").unwrap();
        assert_eq!(&text[s.offset..s.offset + s.len], "d");
        let s = d.spans.value("/a/d").unwrap();
        assert_eq!(&text[s.offset..s.offset + s.len], "é2");
        let s = d.spans.value("/a/b~1c").unwrap();
        assert_eq!(&text[s.offset..s.offset + s.len], "[1, {x~y: é}]");
        assert_eq!(display_path("/a/b~1c/1/x~0y"), "a.b/c[1].x~y");
    }

    #[test]
    fn duplicate_keys_keep_the_first() {
        let d = load_str("a: 1\nb: 2\na: 3\n").unwrap();
        assert_eq!(d.value["a"], 1);
        assert_eq!(d.findings.len(), 1);
        assert_eq!(d.findings[0].code, Rule::YamlDuplicateKey);
        assert_eq!(d.findings[0].line, Some(3));
        assert!(d.findings[0].message.contains("line 1"));
    }

    #[test]
    fn problems_are_collected() {
        let d = load_str("1: a\n? [x]\n: b\nc: !!binary aGk=\n---\nd: 1\n").unwrap();
        let codes: Vec<Rule> = d.findings.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [
                Rule::YamlNonStringKey,
                Rule::YamlNonStringKey,
                Rule::YamlTag,
                Rule::YamlMultipleDocuments
            ]
        );
        assert_eq!(d.value, serde_json::json!({"c": "aGk="}));
    }

    #[test]
    fn limits() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..9u8 {
            let (p, n) = ((b'a' + i) as char, (b'b' + i) as char);
            bomb.push_str(&format!(
                "{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            ));
        }
        let e = load_str(&bomb).unwrap_err();
        assert_eq!(e.last().unwrap().code, Rule::YamlAliasLimit);
        let deep = "[".repeat(100_000);
        let e = load_str(&deep).unwrap_err();
        assert_eq!(e[0].code, Rule::YamlTooDeep);
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let e = load_str(&deep).unwrap_err();
        assert_eq!(e[0].code, Rule::YamlTooDeep);
        let mut block = String::new();
        for i in 0..100 {
            block.push_str(&" ".repeat(i));
            block.push_str("k:\n");
        }
        let e = load_str(&block).unwrap_err();
        assert_eq!(e[0].code, Rule::YamlTooDeep);
        let e = load_str("a: [1, 2\nb: 3\n").unwrap_err();
        assert_eq!(e[0].code, Rule::YamlSyntax);
        let ok = load_str("a: &x {b: 1}\nc: *x\n").unwrap();
        assert_eq!(ok.value["c"]["b"], 1);
    }
}
