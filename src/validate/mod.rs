//! Schema validation of a loaded intent.
//!
//! The JSON Schema is generated from [`crate::intent::Intent`] ([`schema`]); `aifab validate` checks the
//! loaded YAML against it with the `jsonschema` crate, turns every violation into a located [`Finding`]
//! with a plain-English message, and only then deserializes the value into an [`Intent`].

mod partial;
mod reference;
mod schema_nav;

use crate::diag::{Finding, Source, Span};
use crate::intent::Intent;
use crate::load::{self, SpanMap, child_pointer, display_path};
use crate::rules::Rule;
use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub use partial::{NEUTRAL, Partial, SECTIONS, section_of};
pub use reference::markdown_reference;

/// Most schema findings reported for one file; the rest are counted in one last finding.
pub const MAX_FINDINGS: usize = 100;
/// Most raw validator errors examined for one file.
const MAX_RAW_ERRORS: usize = 10_000;

/// The intent JSON Schema (draft 2020-12), generated from [`crate::intent::Intent`].
pub fn schema() -> Value {
    schemars::schema_for!(crate::intent::Intent).to_value()
}

/// The schema as pretty JSON with a trailing newline: the content of `schema/intent.schema.json`.
pub fn schema_json() -> String {
    let mut s = serde_json::to_string_pretty(&schema()).unwrap_or_default();
    s.push('\n');
    s
}

/// The intent schema's validator, generated when aifab is built from `schema/intent.schema.json`
/// (tests/it/schema_fresh.rs keeps that file equal to [`schema`]): no schema is compiled at start-up,
/// and a pattern's regex is compiled the first time a value reaches it. (It replaced a validator
/// compiled at every start, 2-5 ms, that the command line built on a second thread.)
#[jsonschema::validator(path = "schema/intent.schema.json")]
struct IntentSchema;

/// The schema as a value, for the messages of an invalid intent (built only when one is reported).
fn schema_value() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(schema)
}

/// Loads `source`, checks it against the schema and deserializes it.
///
/// On success returns the intent and the span of every node. Otherwise returns every problem found:
/// YAML problems the loader could step over (duplicate keys, tags, ...) together with all schema
/// violations, sorted by position; or the fatal YAML problem (syntax, size, alias bomb) on its own.
pub fn load_and_validate(source: &Source) -> Result<(Intent, SpanMap), Vec<Finding>> {
    load_and_validate_partial(source).map_err(|invalid| invalid.findings)
}

/// Why an intent failed to load or validate, with what is still sound to check.
pub struct Invalid {
    /// Every load and schema finding, located and sorted.
    pub findings: Vec<Finding>,
    /// The schema-valid sections, when the file loaded and the problems stay inside sections.
    pub partial: Option<Partial>,
    /// Spans of every node, when the file loaded.
    pub spans: Option<SpanMap>,
}

/// [`load_and_validate`], keeping on failure the [`Partial`] intent the semantic rules can still read.
pub fn load_and_validate_partial(source: &Source) -> Result<(Intent, SpanMap), Invalid> {
    let doc = load::load(source).map_err(|findings| Invalid {
        findings,
        partial: None,
        spans: None,
    })?;
    let mut findings = doc.findings;
    findings.extend(validate_value(&doc.value, &doc.spans, source));
    if !findings.is_empty() {
        // The sections that passed the schema are still read, so a value in them the schema accepts
        // but that cannot be read (an address with a byte over 255) is found in the same run.
        // What failed the schema is taken out first: its list item, or else its section.
        sort_findings(&mut findings);
        let mut value = doc.value.clone();
        let mut taken: BTreeMap<String, usize> = BTreeMap::new();
        let skipped = findings.iter().all(|f| {
            f.pointer
                .as_deref()
                .is_some_and(|p| skip_bad_value(&mut value, p, &mut taken).is_some())
        });
        if skipped {
            findings.extend(bad_values(value, &doc.spans, source, taken));
        }
        sort_findings(&mut findings);
        return Err(Invalid {
            partial: partial::partial(&doc.value, &findings),
            findings,
            spans: Some(doc.spans),
        });
    }
    let first = match serde_path_to_error::deserialize::<_, Intent>(&doc.value) {
        Ok(intent) => return Ok((intent, doc.spans)),
        Err(e) => e,
    };
    let mut findings = bad_values_from(
        &first,
        doc.value.clone(),
        &doc.spans,
        source,
        BTreeMap::new(),
    );
    sort_findings(&mut findings);
    Err(Invalid {
        partial: partial::partial(&doc.value, &findings),
        findings,
        spans: Some(doc.spans),
    })
}

/// Every value of `value` the schema accepts but that cannot be read (`AIF-SCHEMA-009`), each at its
/// place in the file: after each, its list item (or else its section) is taken out and the rest read
/// again. Empty when `value` reads.
fn bad_values(
    value: Value,
    spans: &SpanMap,
    source: &Source,
    taken: BTreeMap<String, usize>,
) -> Vec<Finding> {
    match serde_path_to_error::deserialize::<_, Intent>(&value) {
        Ok(_) => Vec::new(),
        Err(e) => bad_values_from(&e, value, spans, source, taken),
    }
}

/// [`bad_values`] after the `first` error reading `value`, whose lists lost the items `taken` counts
/// (later errors in them point at shifted indices).
fn bad_values_from(
    first: &serde_path_to_error::Error<serde_json::Error>,
    mut value: Value,
    spans: &SpanMap,
    source: &Source,
    mut taken: BTreeMap<String, usize>,
) -> Vec<Finding> {
    let mut findings = vec![bad_value(first, spans, source, &taken)];
    for _ in 0..256 {
        let Some(pointer) = findings.last().and_then(|f| f.pointer.clone()) else {
            break;
        };
        if skip_bad_value(&mut value, &pointer, &mut taken).is_none() {
            break;
        }
        match serde_path_to_error::deserialize::<_, Intent>(&value) {
            Ok(_) => break,
            Err(e) => {
                let f = bad_value(&e, spans, source, &taken);
                if findings.iter().any(|g| g.pointer == f.pointer) {
                    break;
                }
                findings.push(f);
            }
        }
    }
    findings
}

/// Takes the value at `pointer` (as written) out of `value` so the rest can be read: the list item it
/// is in (counted in `taken`), or else its whole section (stood in for). None when neither is possible.
fn skip_bad_value(
    value: &mut Value,
    pointer: &str,
    taken: &mut BTreeMap<String, usize>,
) -> Option<()> {
    let section = section_of(pointer)?;
    // The deepest list item inside the section that holds the pointer.
    let parts: Vec<&str> = pointer.split('/').collect();
    for end in (section.split('/').count() + 1..=parts.len()).rev() {
        let (list, index) = (parts[..end - 1].join("/"), parts[end - 1]);
        let Ok(i) = index.parse::<usize>() else {
            continue;
        };
        let before = taken.get(&list).copied().unwrap_or(0);
        let items = value.pointer_mut(&list).and_then(Value::as_array_mut)?;
        let at = i.checked_sub(before)?;
        if at < items.len() {
            items.remove(at);
            *taken.entry(list).or_default() += 1;
            return Some(());
        }
    }
    partial::stand_in(value, section)
}

/// `pointer` of the value read with list items taken out, as written in the file.
fn unshift(pointer: &str, taken: &BTreeMap<String, usize>) -> String {
    let parts: Vec<&str> = pointer.split('/').collect();
    let mut out: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
    for end in 1..parts.len() {
        let list = parts[..end].join("/");
        if let (Some(n), Ok(i)) = (taken.get(&list), parts[end].parse::<usize>()) {
            out[end] = (i + n).to_string();
        }
    }
    out.join("/")
}

/// The located `AIF-SCHEMA-009` finding of a value that could not be read, at its place in the file
/// (list items `taken` out before it counted back in).
fn bad_value(
    e: &serde_path_to_error::Error<serde_json::Error>,
    spans: &SpanMap,
    source: &Source,
    taken: &BTreeMap<String, usize>,
) -> Finding {
    let pointer = unshift(&path_pointer(e.path()), taken);
    let message = e.inner().to_string();
    let span = spans.locate(&pointer).unwrap_or(Span { offset: 0, len: 0 });
    Finding::new(
        Rule::SchemaBadValue,
        format!("`{}`: {message}", display_path(&pointer)),
    )
    .at(pointer)
    .with_span(source, span)
}

/// Sorts findings by position (unlocated ones last), keeping the order of equal positions.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by_key(|f| f.span.map_or(usize::MAX, |s| s.offset));
}

fn path_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut p = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => p = child_pointer(&p, &index.to_string()),
            Segment::Map { key } => p = child_pointer(&p, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    p
}

/// Checks a loaded value against the intent schema; returns one located finding per problem (empty when
/// the value is schema-valid).
pub fn validate_value(value: &Value, spans: &SpanMap, source: &Source) -> Vec<Finding> {
    let mut issues = Vec::new();
    let mut raw = 0usize;
    for e in IntentSchema::iter_errors(value) {
        raw += 1;
        if raw > MAX_RAW_ERRORS {
            break;
        }
        collect(&e, &mut issues);
    }
    if raw == 0 {
        return Vec::new();
    }
    let ctx = Ctx {
        root: schema_value(),
        value,
        spans,
        source,
    };
    // One finding per value location, merging what the branches of a oneOf/anyOf said about it.
    let mut by_pointer: BTreeMap<String, Problems> = BTreeMap::new();
    let mut out = Vec::new();
    let mut others = 0usize;
    for issue in issues {
        match issue {
            Issue::Value { pointer, problem } => {
                by_pointer.entry(pointer).or_default().add(problem);
            }
            other => {
                if out.len() >= MAX_FINDINGS {
                    others += 1;
                } else if let Some(f) = ctx.finding(other)
                    && !out.iter().any(|o: &Finding| same(o, &f))
                {
                    out.push(f);
                }
            }
        }
    }
    for (pointer, problems) in by_pointer {
        if out.len() >= MAX_FINDINGS {
            others += 1;
        } else {
            out.push(ctx.value_finding(&pointer, &problems));
        }
    }
    sort_findings(&mut out);
    if others > 0 || raw > MAX_RAW_ERRORS {
        let more = if raw > MAX_RAW_ERRORS {
            format!("at least {others}")
        } else {
            others.to_string()
        };
        let mut f = Finding::new(
            Rule::SchemaTooMany,
            format!("{more} more schema problems are not shown"),
        )
        .hint("fix the problems above and run again");
        f.file = source.name.clone();
        out.push(f);
    }
    out
}

/// How a node is named in messages: "the intent" for the root, else its path in backticks.
fn subject(pointer: &str) -> String {
    if pointer.is_empty() {
        "the intent".into()
    } else {
        format!("`{}`", display_path(pointer))
    }
}

fn same(a: &Finding, b: &Finding) -> bool {
    a.code == b.code && a.pointer == b.pointer && a.message == b.message
}

/// What is wrong with one value, from the most to the least telling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Problem {
    Type,
    NotAllowed,
    Range,
    Format,
    Other,
}

#[derive(Default)]
struct Problems {
    kinds: Vec<Problem>,
    messages: Vec<String>,
}

impl Problems {
    fn add(&mut self, p: (Problem, String)) {
        if !self.kinds.contains(&p.0) {
            self.kinds.push(p.0);
        }
        self.messages.push(p.1);
    }
    fn worst(&self) -> Problem {
        self.kinds.iter().copied().min().unwrap_or(Problem::Other)
    }
}

enum Issue {
    Unknown {
        pointer: String,
        key: String,
    },
    Required {
        pointer: String,
        key: String,
    },
    BadName {
        pointer: String,
        name: String,
        pattern: String,
    },
    Value {
        pointer: String,
        problem: (Problem, String),
    },
}

fn problem_of(kind: &Kind) -> Problem {
    match kind {
        Kind::Type { .. } => Problem::Type,
        Kind::Constant { .. } | Kind::Enum { .. } => Problem::NotAllowed,
        Kind::Minimum { .. }
        | Kind::Maximum { .. }
        | Kind::ExclusiveMinimum { .. }
        | Kind::ExclusiveMaximum { .. }
        | Kind::MultipleOf { .. } => Problem::Range,
        Kind::Pattern { .. }
        | Kind::Format { .. }
        | Kind::MinLength { .. }
        | Kind::MaxLength { .. } => Problem::Format,
        _ => Problem::Other,
    }
}

/// Flattens one jsonschema error into issues, looking inside `anyOf`/`oneOf` for the branch that was meant.
/// A mapping key that fails the mapping's `propertyNames` (the key is the error's instance).
fn bad_name(pointer: String, error: &ValidationError<'_>) -> Issue {
    let name = match error.instance().as_ref() {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let pattern = match error.kind() {
        Kind::Pattern { pattern } => pattern.clone(),
        _ => String::new(),
    };
    Issue::BadName {
        pointer,
        name,
        pattern,
    }
}

fn collect(e: &ValidationError<'_>, out: &mut Vec<Issue>) {
    let pointer = e.instance_path().as_str().to_string();
    match e.kind() {
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            for key in unexpected {
                out.push(Issue::Unknown {
                    pointer: pointer.clone(),
                    key: key.clone(),
                });
            }
        }
        Kind::Required { property } => out.push(Issue::Required {
            pointer,
            key: property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string),
        }),
        Kind::PropertyNames { error } => out.push(bad_name(pointer, error)),
        // The build-time validator reports a key that fails `propertyNames` as that keyword's own
        // error on the key, not wrapped in a PropertyNames error as the run-time one does.
        _ if e.schema_path().as_str().contains("/propertyNames/") => out.push(bad_name(pointer, e)),
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
            // Branches that accept the value's type are the ones the author meant.
            let meant: Vec<&Vec<ValidationError<'static>>> = context
                .iter()
                .filter(|branch| {
                    !branch.iter().any(|x| {
                        x.instance_path().as_str() == pointer
                            && matches!(x.kind(), Kind::Type { .. })
                    })
                })
                .collect();
            match meant.as_slice() {
                [] => out.push(Issue::Value {
                    pointer,
                    problem: (Problem::Type, e.to_string()),
                }),
                [one] => {
                    for x in one.iter() {
                        collect(x, out);
                    }
                }
                many => {
                    for branch in many {
                        for x in branch.iter() {
                            if x.instance_path().as_str() == pointer {
                                collect(x, out);
                            }
                        }
                    }
                }
            }
        }
        kind => out.push(Issue::Value {
            pointer,
            problem: (problem_of(kind), e.to_string()),
        }),
    }
}

struct Ctx<'a> {
    root: &'a Value,
    value: &'a Value,
    spans: &'a SpanMap,
    source: &'a Source,
}

impl Ctx<'_> {
    fn located(&self, f: Finding, pointer: &str, span: Option<Span>) -> Finding {
        let span = span.unwrap_or(Span { offset: 0, len: 0 });
        f.at(pointer).with_span(self.source, span)
    }

    /// Where to point for a whole node: its key for a mapping entry holding a collection (the value spans
    /// lines), else the value.
    fn node_span(&self, pointer: &str) -> Option<Span> {
        let v = self.value.pointer(pointer);
        if matches!(v, Some(Value::Object(_) | Value::Array(_))) {
            self.spans.locate_key(pointer)
        } else {
            self.spans.locate(pointer)
        }
    }

    fn finding(&self, issue: Issue) -> Option<Finding> {
        Some(match issue {
            Issue::Unknown { pointer, key } => {
                let at = child_pointer(&pointer, &key);
                let allowed = schema_nav::allowed_keys(self.root, &pointer);
                let mut hint = String::new();
                if let Some(best) = closest(&key, &allowed) {
                    hint = format!("did you mean `{best}`? ");
                }
                if !allowed.is_empty() {
                    let keys: Vec<String> = allowed.iter().map(|k| format!("`{k}`")).collect();
                    hint.push_str(&format!("Valid keys here: {}.", keys.join(", ")));
                }
                let place = if pointer.is_empty() {
                    "at the top level".to_string()
                } else {
                    format!("in `{}`", display_path(&pointer))
                };
                let f = Finding::new(
                    Rule::SchemaUnknownKey,
                    format!("unknown key `{key}` {place}"),
                );
                let f = if hint.is_empty() {
                    f
                } else {
                    f.hint(hint.trim_end())
                };
                self.located(f, &at, self.spans.locate_key(&at))
            }
            Issue::Required { pointer, key } => {
                let mut f = Finding::new(
                    Rule::SchemaMissingKey,
                    format!("{} is missing the required key `{key}`", subject(&pointer)),
                );
                if let Some(s) = schema_nav::at(self.root, &child_pointer(&pointer, &key)) {
                    let mut hint = format!("add `{key}:`");
                    let what = schema_nav::describe(self.root, s);
                    hint.push_str(&format!(" ({what})"));
                    if let Some(d) = schema_nav::description(self.root, s) {
                        hint.push_str(&format!(": {}", schema_nav::first_sentence(d)));
                    }
                    f = f.hint(hint);
                }
                self.located(f, &pointer, self.spans.locate_key(&pointer))
            }
            Issue::BadName {
                pointer,
                name,
                pattern,
            } => {
                let at = child_pointer(&pointer, &name);
                let mut f = Finding::new(
                    Rule::SchemaBadName,
                    format!(
                        "name `{name}` in `{}` is not allowed",
                        display_path(&pointer)
                    ),
                );
                if !pattern.is_empty() {
                    f = f.hint(format!(
                        "names start with a letter and use only letters, digits, `-` and `_` (pattern `{pattern}`)"
                    ));
                }
                self.located(f, &at, self.spans.locate_key(&at))
            }
            Issue::Value { .. } => return None,
        })
    }

    fn value_finding(&self, pointer: &str, problems: &Problems) -> Finding {
        let subject = subject(pointer);
        let value = self.value.pointer(pointer).unwrap_or(&Value::Null);
        let field = schema_nav::at(self.root, pointer);
        let expected = field.map(|s| schema_nav::describe(self.root, s));
        let span = self.node_span(pointer);
        let quoted = span.is_some_and(|s| self.source.text[s.offset..].starts_with(['"', '\'']));
        let worst = problems.worst();
        let found = self.found(value, span, quoted, worst == Problem::Type);
        let code = match worst {
            Problem::Type => Rule::SchemaWrongType,
            Problem::NotAllowed => Rule::SchemaNotAllowed,
            Problem::Range => Rule::SchemaOutOfRange,
            Problem::Format => Rule::SchemaBadFormat,
            Problem::Other => Rule::SchemaOther,
        };
        let message = match (&expected, worst) {
            (Some(exp), Problem::Type | Problem::NotAllowed | Problem::Range | Problem::Format) => {
                format!("{subject} must be {exp}, found {found}")
            }
            _ => {
                let detail = problems.messages.first().cloned().unwrap_or_default();
                format!("{subject} is not valid: {detail}")
            }
        };
        let message = match (worst, value, field.and_then(|f| pattern_of(self.root, f))) {
            (Problem::Format, Value::String(text), Some(pattern)) => {
                match refused_chars(pattern, text).as_deref() {
                    Some([c]) => format!("{message}: it cannot hold {}", char_name(*c)),
                    Some(cs) if !cs.is_empty() => {
                        let names: Vec<String> = cs.iter().map(|c| char_name(*c)).collect();
                        format!("{message}: it cannot hold {}", names.join(" or "))
                    }
                    _ => message,
                }
            }
            _ => message,
        };
        let mut f = Finding::new(code, message);
        if let Some(h) = field.and_then(|s| self.value_hint(s, value, quoted, worst)) {
            f = f.hint(h);
        }
        self.located(f, pointer, span)
    }

    /// How the found value reads in a message: "`true` (a boolean)", "`\"3\"` (a quoted string)".
    fn found(&self, value: &Value, span: Option<Span>, quoted: bool, with_kind: bool) -> String {
        let written = span
            .and_then(|s| self.source.text.get(s.offset..s.offset + s.len))
            .map(|t| t.lines().next().unwrap_or_default().trim_end().to_string())
            .filter(|_| !matches!(value, Value::Object(_) | Value::Array(_)))
            .filter(|t| !t.is_empty() && t.chars().count() <= 60);
        let shown = |fallback: String| format!("`{}`", written.clone().unwrap_or(fallback));
        if !with_kind {
            return match value {
                Value::Null => "nothing (an empty value)".into(),
                Value::String(s) => shown(s.clone()),
                Value::Array(_) => "a list".into(),
                Value::Object(_) => "a mapping".into(),
                other => shown(other.to_string()),
            };
        }
        match value {
            Value::Null => "nothing (an empty value)".into(),
            Value::Bool(b) => format!("{} (a boolean)", shown(b.to_string())),
            Value::Number(n) if n.is_f64() => {
                format!("{} (a decimal number)", shown(n.to_string()))
            }
            Value::Number(n) => format!("{} (an integer)", shown(n.to_string())),
            Value::String(s) if quoted => format!("{} (a quoted string)", shown(format!("{s:?}"))),
            Value::String(s) => format!("{} (a string)", shown(s.clone())),
            Value::Array(_) => "a list".into(),
            Value::Object(_) => "a mapping".into(),
        }
    }

    fn value_hint(
        &self,
        field: &Value,
        value: &Value,
        quoted: bool,
        worst: Problem,
    ) -> Option<String> {
        let root = self.root;
        let wants = |t: &str| accepts_type(root, field, t);
        // The specific complaint of the unit parser ("no space between number and unit: write `150KB`").
        let unit_def = unit_def(field);
        let mut parts: Vec<String> = Vec::new();
        match value {
            Value::String(s) => parts = self.string_hints(field, s, quoted, worst, unit_def),
            Value::Bool(_) if wants("integer") || wants("number") => {
                let ex = schema_nav::example(root, field)
                    .map(schema_nav::literal)
                    .unwrap_or_else(|| "`3`".into());
                parts.push(format!("write a number, e.g. {ex}"));
            }
            Value::Number(_) if worst == Problem::Type && wants("string") => {
                if let Some(ex) = schema_nav::example(root, field) {
                    parts.push(format!(
                        "write it with its unit, e.g. {}",
                        schema_nav::literal(ex)
                    ));
                }
            }
            _ => {}
        }
        if let Some(def) = unit_def
            && let Some(d) = root
                .pointer(&format!("/$defs/{def}/description"))
                .and_then(Value::as_str)
        {
            parts.push(format!("Accepted: {}", d.trim_end_matches('.')));
        }
        (!parts.is_empty()).then(|| sentences(&parts))
    }

    /// Hints for a string value: quotes around a number, YAML 1.1 booleans, the unit parser's complaint,
    /// and the closest allowed value.
    fn string_hints(
        &self,
        field: &Value,
        s: &str,
        quoted: bool,
        worst: Problem,
        unit_def: Option<&str>,
    ) -> Vec<String> {
        let root = self.root;
        let wants = |t: &str| accepts_type(root, field, t);
        let mut parts = Vec::new();
        if worst == Problem::Type && quoted && wants("integer") && s.trim().parse::<i64>().is_ok() {
            parts.push(format!(
                "remove the quotes: `{}` in quotes is text, not a number",
                s.trim()
            ));
        } else if worst == Problem::Type
            && wants("boolean")
            && matches!(
                s.to_ascii_lowercase().as_str(),
                "yes" | "no" | "on" | "off" | "y" | "n" | "true" | "false"
            )
        {
            parts.push("YAML 1.2 booleans are only `true` and `false` (unquoted)".into());
        } else if let Some(msg) = unit_def.and_then(|d| unit_error(d, s)) {
            parts.push(msg);
        }
        if worst == Problem::NotAllowed {
            let options: Vec<String> = schema_nav::constants(root, field)
                .iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect();
            if let Some(best) = closest(s, &options) {
                parts.push(format!("did you mean `{best}`?"));
            }
        }
        parts
    }
}

/// The `pattern` a string field must match, when it has one.
fn pattern_of<'a>(root: &'a Value, field: &'a Value) -> Option<&'a str> {
    schema_nav::resolve(root, field)
        .get("pattern")
        .and_then(Value::as_str)
}

/// The characters of `text` that keep it from matching `pattern`, in order of first appearance: each
/// one whose every occurrence, taken out, lets the rest match (alone, or together with the others so
/// found). `None` when taking characters out does not help (a length or a shape is what is wrong).
fn refused_chars(pattern: &str, text: &str) -> Option<Vec<char>> {
    let v = jsonschema::validator_for(&serde_json::json!({ "type": "string", "pattern": pattern }))
        .ok()?;
    let without = |cs: &[char]| -> Value {
        Value::String(text.chars().filter(|c| !cs.contains(c)).collect())
    };
    let mut distinct: Vec<char> = Vec::new();
    for c in text.chars() {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    // Each character alone: the usual case, one stray `;` or control character.
    if let Some(c) = distinct.iter().find(|c| v.is_valid(&without(&[**c]))) {
        return Some(vec![*c]);
    }
    // Else the characters no allowed string of one character holds, when taking them all out helps.
    let refused: Vec<char> = distinct
        .into_iter()
        .filter(|c| !v.is_valid(&without(&[*c])) && !v.is_valid(&Value::String(format!("a{c}"))))
        .collect();
    (!refused.is_empty() && v.is_valid(&without(&refused))).then_some(refused)
}

/// A character as a message names it: `` `;` ``, or its code point when it does not print.
fn char_name(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!(
            "{} (U+{:04X})",
            if c == ' ' {
                "a space"
            } else {
                "a control character"
            },
            u32::from(c)
        )
    } else {
        format!("`{c}`")
    }
}

/// The parts as sentences: each ends with a full stop unless it already ends with punctuation.
fn sentences(parts: &[String]) -> String {
    parts
        .iter()
        .map(|p| {
            if p.ends_with(['.', '?', '!']) {
                p.clone()
            } else {
                format!("{p}.")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when the schema (through refs, anyOf/oneOf) accepts JSON type `t`.
fn accepts_type(root: &Value, s: &Value, t: &str) -> bool {
    fn walk(root: &Value, s: &Value, t: &str, depth: usize) -> bool {
        if depth > 8 {
            return false;
        }
        let r = schema_nav::resolve(root, s);
        let direct = match r.get("type") {
            Some(Value::String(x)) => x == t,
            Some(Value::Array(xs)) => xs.iter().any(|x| x == t),
            _ => false,
        };
        direct
            || ["anyOf", "oneOf"].iter().any(|k| {
                r.get(*k)
                    .and_then(Value::as_array)
                    .is_some_and(|alts| alts.iter().any(|a| walk(root, a, t, depth + 1)))
            })
    }
    walk(root, s, t, 0)
}

/// The unit type (`Size`, `Duration`, ...) a field holds, if any.
fn unit_def(s: &Value) -> Option<&str> {
    if let Some(n) = schema_nav::def_name(s) {
        return schema_nav::def_noun(n).map(|_| n);
    }
    s.get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)?
        .iter()
        .find_map(unit_def)
}

/// The parser's own complaint about a unit value, e.g. "no space between number and unit: write `150KB`".
fn unit_error(def: &str, text: &str) -> Option<String> {
    use crate::units::{AsnRange, Duration, Length, Percent, Ratio, Size, Speed};
    let r = match def {
        "Size" => Size::parse(text).err().map(|e| e.to_string()),
        "Duration" => Duration::parse(text).err().map(|e| e.to_string()),
        "Speed" => Speed::parse(text).err().map(|e| e.to_string()),
        "Length" => Length::parse(text).err().map(|e| e.to_string()),
        "Ratio" => Ratio::parse(text).err().map(|e| e.to_string()),
        "AsnRange" => AsnRange::parse(text).err().map(|e| e.to_string()),
        "Percent" => serde_json::from_value::<Percent>(Value::String(text.to_string()))
            .err()
            .map(|e| e.to_string()),
        _ => None,
    };
    r.filter(|m| !m.is_empty())
}

/// The candidate closest to `word` when it is plausibly a typo of it: at most a third of its letters
/// differ (at least one may), counting a swap of two neighbours as one edit.
fn closest(word: &str, candidates: &[String]) -> Option<String> {
    let w = word.to_ascii_lowercase();
    let allowed = (w.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| {
            let c_low = c.to_ascii_lowercase();
            (
                strsim::damerau_levenshtein(&w, &c_low),
                -strsim::jaro_winkler(&w, &c_low),
                c,
            )
        })
        .filter(|(d, _, _)| *d <= allowed)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
        .map(|(_, _, c)| c.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../intents/pod1-1024.yaml");

    fn run(text: &str) -> Vec<Finding> {
        match load_and_validate(&Source::new("t.yaml", text)) {
            Ok(_) => Vec::new(),
            Err(f) => f,
        }
    }

    #[test]
    fn example_is_valid() {
        assert!(run(EXAMPLE).is_empty(), "{:#?}", run(EXAMPLE));
    }

    #[test]
    fn messages_are_plain() {
        let f = run(&EXAMPLE.replace("priority: 3", "priority: true"));
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].code, Rule::SchemaWrongType);
        assert_eq!(
            f[0].message,
            "`qos.classes.roce.priority` must be an integer 0-7, found `true` (a boolean)"
        );
        let f = run(&EXAMPLE.replace("min: 150KB", "min: 150 KB"));
        assert_eq!(f[0].code, Rule::SchemaBadFormat, "{f:#?}");
        assert!(
            f[0].hint
                .as_deref()
                .unwrap_or_default()
                .contains("no space between number and unit: write `150KB`")
        );
        let f = run(&EXAMPLE.replace("dscp: [24, 26]", "dscp: [24, 64]"));
        assert_eq!(f[0].code, Rule::SchemaOutOfRange);
        assert!(
            f[0].message.contains("an integer 0-63, found `64`"),
            "{}",
            f[0].message
        );
        let f = run(&EXAMPLE.replace("kind: rail-optimized", "kind: rail-optimised"));
        assert_eq!(f[0].code, Rule::SchemaNotAllowed);
        assert!(
            f[0].hint
                .as_deref()
                .unwrap_or_default()
                .contains("`rail-optimized`")
        );
        let f = run(&EXAMPLE.replace("bandwidth: 90%", "bandwith: 90%"));
        assert_eq!(f[0].code, Rule::SchemaUnknownKey);
        assert!(
            f[0].hint
                .as_deref()
                .unwrap_or_default()
                .starts_with("did you mean `bandwidth`?")
        );
        let f = run(&EXAMPLE.replace("loopbacks: 10.0.0.0/22", "loopbacks: 10.0.0.1/22"));
        assert_eq!(f[0].code, Rule::SchemaBadValue, "{f:#?}");
        assert_eq!(
            f[0].pointer.as_deref(),
            Some("/fabric/addressing/loopbacks")
        );
    }
}
