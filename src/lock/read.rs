//! Reading a lock file: the lock schema, well-formed values and collisions, every problem at once and
//! located `file:line:col` in the lock by the project's YAML loader (spans for every node).
//!
//! A lock grows with the fabric (tens of MB at 100K GPUs), so a lock in the form aifab writes is read
//! line by line ([`super::fast`]), any other clean YAML is deserialized straight into its types, and
//! the loader, which records a span for every node, runs only when there is a problem to locate.

use super::history::{self, History};
use super::prefix::subnet;
use super::{Lock, VERSION};
use crate::diag::{Finding, Source, Span};
use crate::load::{self, SpanMap};
use crate::rules::Rule;

/// A lock read from its file, with what locates its entries.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The lock.
    pub lock: Lock,
    /// Its file.
    pub source: Source,
    /// Spans of every node, by JSON pointer: loaded on the first finding.
    spans: std::sync::OnceLock<SpanMap>,
    /// Why the lock is not whole (`AIF-LOCK-006`: lost entries, cut short), when it was read
    /// accepting that ([`read_file_as`] with `whole` false): the caller says so.
    pub not_whole: Vec<Finding>,
    /// The intent its first line names, when it has that line.
    pub header_intent: Option<String>,
    /// Its history lines, and whether its body is still the one aifab wrote ([`History::edited`]).
    pub history: History,
}

impl Loaded {
    /// The lock read from `source`, its spans not loaded yet.
    fn new(lock: Lock, source: Source) -> Loaded {
        let history = History::of(
            &source.text,
            lock.lineage.as_deref(),
            lock.serial,
            lock.digest.as_deref(),
        );
        Loaded {
            lock,
            history,
            header_intent: Lock::header_intent(&source.text).map(str::to_string),
            source,
            spans: std::sync::OnceLock::new(),
            not_whole: Vec::new(),
        }
    }

    /// Spans of every node (the loader runs once, on first use).
    pub fn spans(&self) -> &SpanMap {
        self.spans.get_or_init(|| {
            load::load_unbounded(&self.source)
                .map(|d| d.spans)
                .unwrap_or_default()
        })
    }

    /// Frees the file's text and spans once nothing more is to be located in it (a render's guard
    /// names only the file): 18 MB for the bench's 100K fabric, that would otherwise stay through the render. A
    /// finding made after this points at the file's start.
    pub fn forget_text(&mut self) {
        self.source.text = std::sync::Arc::from("");
        self.spans = std::sync::OnceLock::new();
    }

    /// A finding of `rule` at `pointer` in the lock file (`/links/3/...` of a lock read for some
    /// devices only names its fourth cable held, located at that cable's place in the file).
    pub fn finding(&self, rule: Rule, pointer: &str, message: String, hint: &str) -> Finding {
        let in_file = self.in_file(pointer);
        located(&self.source, self.spans(), rule, &in_file, message, hint)
    }

    /// `pointer` into the lock as read, as a pointer into the file.
    fn in_file(&self, pointer: &str) -> String {
        let Some(n) = &self.lock.narrowed else {
            return pointer.to_string();
        };
        for (list, at) in [("/links/", &n.links_at), ("/servers/", &n.servers_at)] {
            let Some(rest) = pointer.strip_prefix(list) else {
                continue;
            };
            let (i, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            if let Some(file) = i.parse::<usize>().ok().and_then(|i| at.get(i)) {
                return format!("{list}{file}{tail}");
            }
        }
        pointer.to_string()
    }
}

fn located(
    source: &Source,
    spans: &SpanMap,
    rule: Rule,
    pointer: &str,
    message: String,
    hint: &str,
) -> Finding {
    let span = spans.locate(pointer).unwrap_or(Span { offset: 0, len: 0 });
    Finding::new(rule, message)
        .at(pointer)
        .hint(hint)
        .with_span(source, span)
}

/// Largest lock file read, in bytes (256 MiB): a 100K-GPU fabric's lock is about 30 MB.
pub const MAX_LOCK_BYTES: u64 = 256 * 1024 * 1024;

/// Reads the lock at `path`: `Ok(None)` when there is none, `Err` with every problem when it is unusable
/// (the [`Source`] the findings locate in, or an I/O error text). A lock that is not whole
/// (`AIF-LOCK-006`) is unusable. A link out of the repository, anything but a regular file and a file
/// over [`MAX_LOCK_BYTES`] are refused unread.
pub fn read_file(path: &std::path::Path) -> Result<Option<Loaded>, LockError> {
    read_file_as(path, true)
}

/// [`read_file`]; with `whole` false, a lock that lost entries or was cut short is read all the same,
/// its `AIF-LOCK-006` findings in [`Loaded::not_whole`] (`render --allow-renumber` re-allocates what
/// it lost).
pub fn read_file_as(path: &std::path::Path, whole: bool) -> Result<Option<Loaded>, LockError> {
    read_file_for(path, whole, None)
}

/// [`read_file_as`]; with `selected`, for a render of the devices it accepts only (`render --only`):
/// a lock in the form aifab writes is read narrowed to what those devices use ([`Narrowed`]:
/// every device, their cables and server entries), and only that is checked (values, collisions,
/// whole counts); a full render or `aifab validate` checks the rest. A problem found in it, or a lock
/// in another form, reads the whole lock, so every finding is the one a full read gives.
///
/// [`Narrowed`]: super::Narrowed
pub fn read_file_for(
    path: &std::path::Path,
    whole: bool,
    selected: Option<&(dyn Fn(&str) -> bool + Sync)>,
) -> Result<Option<Loaded>, LockError> {
    let text = match crate::files::read_shared_text(path, MAX_LOCK_BYTES) {
        Ok(t) => t,
        Err(crate::files::ReadError::Missing) => return Ok(None),
        Err(e) => return Err(LockError::Io(e.describe(path, MAX_LOCK_BYTES))),
    };
    let source = Source::new(path.display().to_string(), text);
    if let Some(lock) = selected.and_then(|s| super::fast::parse_narrowed(&source.text, s))
        && let Ok(loaded) = checked(Loaded::new(lock, source.clone()), whole)
    {
        return Ok(Some(loaded));
    }
    parse_as(source, whole).map(Some)
}

/// Why a lock cannot be used.
#[derive(Debug)]
pub enum LockError {
    /// The file could not be read.
    Io(String),
    /// The lock is invalid: every finding, located in the lock file.
    Invalid(Box<Source>, Vec<Finding>),
}

/// Parses and checks lock text (schema, values, collisions, whole).
pub fn parse(source: Source) -> Result<Loaded, LockError> {
    parse_as(source, true)
}

/// [`parse`]; with `whole` false, see [`read_file_as`].
pub fn parse_as(source: Source, whole: bool) -> Result<Loaded, LockError> {
    // The form aifab writes is read directly; any other YAML goes through the YAML reader.
    let lock = match super::fast::parse(&source.text) {
        Some(l) => l,
        None => match serde_norway::from_str::<Lock>(&source.text) {
            Ok(l) => l,
            // Located by the loader; a lock only the loader reads is read from it.
            Err(_) => located_parse(&source)?,
        },
    };
    checked(Loaded::new(lock, source), whole)
}

/// The lock read, checked: its values, collisions, and whether it is whole (see [`parse_as`]).
fn checked(mut loaded: Loaded, whole: bool) -> Result<Loaded, LockError> {
    let mut errs = values(&loaded);
    errs.extend(collisions(&loaded));
    let lost = lost(&loaded);
    if whole {
        errs.extend(lost);
    } else {
        loaded.not_whole = lost;
    }
    loaded.lock.total = None;
    if errs.is_empty() {
        Ok(loaded)
    } else {
        crate::validate::sort_findings(&mut errs);
        Err(LockError::Invalid(Box::new(loaded.source), errs))
    }
}

/// AIF-LOCK-006: a version 2 lock ends with `total:`, and holds as many entries as it counts (a lock
/// cut short at a line break has no `total:`, a deleted line leaves its list short); a version 1 lock
/// (an earlier aifab's, which wrote every list, empty ones as `[]`) names all three lists.
fn lost(l: &Loaded) -> Vec<Finding> {
    const HINT: &str = "restore the lock from git (`git checkout -- <lock>`); if you deleted entries on purpose, to allocate them afresh, render with --allow-renumber (it writes the lock whole again)";
    let text = &l.source.text;
    let end = Span {
        offset: text.trim_end().rfind('\n').map_or(0, |i| i + 1),
        len: 0,
    };
    let at_end = |message: String| {
        Finding::new(Rule::LockNotWhole, message)
            .hint(HINT)
            .with_span(&l.source, end)
    };
    if l.lock.version == 1 {
        let missing: Vec<&str> = ["devices", "links", "servers"]
            .into_iter()
            .filter(|k| !text.lines().any(|line| line.starts_with(&format!("{k}:"))))
            .collect();
        return match missing.is_empty() {
            true => Vec::new(),
            false => vec![at_end(format!(
                "the lock has no `{}:` list: it was cut short or emptied (a lock aifab writes names every list)",
                missing.join(":`, `")
            ))],
        };
    }
    let missing: Vec<&str> = [
        ("lineage", l.lock.lineage.is_none()),
        ("serial", l.lock.serial.is_none()),
        ("digest", l.lock.digest.is_none()),
    ]
    .into_iter()
    .filter(|(_, gone)| l.lock.version >= 3 && *gone)
    .map(|(k, _)| k)
    .collect();
    if !missing.is_empty() {
        return vec![l.finding(
            Rule::LockNotWhole,
            "/version",
            format!(
                "the lock has no `{}:` line: a version 3 lock names its lineage, serial and digest after its version (lines removed by hand, or the lock cut short)",
                missing.join(":`, `")
            ),
            HINT,
        )];
    }
    let Some(total) = l.lock.total else {
        return vec![at_end(
            "the lock does not end with its `total:` line: it was cut short (truncated) or emptied"
                .into(),
        )];
    };
    let now = super::Total::of(&l.lock);
    [
        ("devices", now.devices, total.devices),
        ("links", now.links, total.links),
        ("servers", now.servers, total.servers),
    ]
    .into_iter()
    // More entries than counted is a line added by hand (a device pinned before it exists): fine.
    .filter(|(_, have, want)| have < want)
    .map(|(list, have, want)| {
        l.finding(
            Rule::LockNotWhole,
            &format!("/total/{list}"),
            format!(
                "`{list}` holds {have} entries, but the lock's `total:` line counts {want}: {} deleted or lost",
                want - have
            ),
            HINT,
        )
    })
    .collect()
}

/// The lock through the project's loader, its first problem located.
fn located_parse(source: &Source) -> Result<Lock, LockError> {
    let invalid = |f| LockError::Invalid(Box::new(source.clone()), f);
    let doc = match load::load_unbounded(source) {
        Ok(d) => d,
        Err(f) => return Err(invalid(f)),
    };
    if !doc.findings.is_empty() {
        return Err(invalid(doc.findings));
    }
    serde_path_to_error::deserialize::<_, Lock>(doc.value).map_err(|e| {
        let pointer = pointer_of(e.path());
        invalid(vec![located(
            source,
            &doc.spans,
            Rule::LockSchema,
            &pointer,
            format!("lock `{}`: {}", load::display_path(&pointer), e.inner()),
            "see `aifab schema --lock`; or delete the lock and render again (that renumbers nothing only if the intent did not change)",
        )])
    })
}

/// A serde path as a JSON pointer (`devices[3].asn` → `/devices/3/asn`).
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut p = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => p.push_str(&format!("/{index}")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                p = load::child_pointer(&p, key)
            }
            Segment::Unknown => {}
        }
    }
    p
}

/// Version, well-formed subnets, port numbers and names: entries are checked in parallel, and a finding
/// is made (located) only for a problem found.
fn values(l: &Loaded) -> Vec<Finding> {
    let lock = &l.lock;
    let mut problems: Vec<(String, String)> = Vec::new();
    if !(1..=VERSION).contains(&lock.version) {
        problems.push((
            "/version".into(),
            format!(
                "lock version {} (this aifab reads 1 to {VERSION})",
                lock.version
            ),
        ));
    }
    problems.extend(history_problems(lock));
    let each = |section: &'static str, problems: Vec<(usize, &'static str, String)>| {
        problems
            .into_iter()
            .map(move |(i, field, msg)| (format!("/{section}/{i}/{field}"), msg))
    };
    let (devices, (links, servers)) = rayon::join(
        || in_parallel(&lock.devices, device_problems),
        || {
            rayon::join(
                || in_parallel(&lock.links, link_problems),
                || in_parallel(&lock.servers, server_problems),
            )
        },
    );
    problems.extend(each("devices", devices));
    problems.extend(each("links", links));
    problems.extend(each("servers", servers));
    problems
        .into_iter()
        .map(|(ptr, msg)| {
            l.finding(
                Rule::LockBadValue,
                &ptr,
                msg,
                "fix the entry by hand, or delete it and render again to re-allocate it",
            )
        })
        .collect()
}

/// The history lines' bad values: a lineage or digest that is not 32 hex digits, or history lines in
/// a lock of a version before them.
fn history_problems(lock: &Lock) -> Vec<(String, String)> {
    let mut p = Vec::new();
    for (key, v) in [("lineage", &lock.lineage), ("digest", &lock.digest)] {
        if let Some(v) = v.as_deref().filter(|v| !history::is_hex(v)) {
            p.push((
                format!("/{key}"),
                format!(
                    "`{v}` is not a {key} ({} lowercase hex digits)",
                    history::HEX_LEN
                ),
            ));
        }
    }
    let any = lock.lineage.is_some() || lock.serial.is_some() || lock.digest.is_some();
    if any && lock.version < 3 {
        p.push((
            "/version".into(),
            format!(
                "a version {} lock has no history lines (`lineage:`, `serial:`, `digest:` are version 3's)",
                lock.version
            ),
        ));
    }
    p
}

/// Every problem `check` finds in `entries`, with the entry's index, in order.
fn in_parallel<T: Sync>(
    entries: &[T],
    check: fn(&T) -> Vec<(&'static str, String)>,
) -> Vec<(usize, &'static str, String)> {
    use rayon::prelude::*;
    entries
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, e)| check(e).into_iter().map(move |(f, m)| (i, f, m)))
        .collect()
}

/// A device's bad values: field and message.
fn device_problems(d: &super::LockDevice) -> Vec<(&'static str, String)> {
    let mut p = Vec::new();
    if !safe_name(&d.name) {
        p.push(("name", format!("`{}` is not a switch name", d.name)));
    }
    if let Some(Err(e)) = d.server_subnet.as_deref().map(|s| subnet(s, true)) {
        p.push(("server_subnet", e.to_string()));
    }
    p
}

/// A link's bad values: field and message.
fn link_problems(k: &super::LockLink) -> Vec<(&'static str, String)> {
    let mut p = Vec::new();
    for (field, name) in [("lower", &k.lower), ("upper", &k.upper)] {
        if !safe_name(name) {
            p.push((field, format!("`{name}` is not a switch name")));
        }
    }
    for (field, port) in [("lower_port", k.lower_port), ("upper_port", k.upper_port)] {
        if port == 0 {
            p.push((field, "ports count from 1".into()));
        }
    }
    if let Err(e) = subnet(&k.subnet, false) {
        p.push(("subnet", e.to_string()));
    }
    p
}

/// A server port's bad values: field and message.
fn server_problems(v: &super::LockServer) -> Vec<(&'static str, String)> {
    let mut p = Vec::new();
    if v.port == 0 {
        p.push(("port", "ports count from 1".into()));
    }
    if let Err(e) = subnet(&v.subnet, false) {
        p.push(("subnet", e.to_string()));
    }
    p
}

/// A switch name as the lock may hold it: letters, digits, `-`, `_`, `.`.
fn safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Every value held twice: device names, loopbacks and router-ids (a device's router-id may equal its
/// own loopback), management addresses, server subnets, link and server /31s, and a switch port used by
/// two live entries.
fn collisions(l: &Loaded) -> Vec<Finding> {
    if !any_twice(&l.lock) {
        return Vec::new();
    }
    let mut seen = Seen::new(l);
    for (i, d) in l.lock.devices.iter().enumerate() {
        seen.once(Held::Name(&d.name), At("devices", i, "name"));
        seen.once(Held::Address(d.loopback), At("devices", i, "loopback"));
        if d.router_id != d.loopback {
            seen.once(Held::Address(d.router_id), At("devices", i, "router_id"));
        }
        if let Some(m) = d.management {
            seen.once(Held::Management(m), At("devices", i, "management"));
        }
        if let Some(s) = &d.server_subnet {
            seen.once(Held::Subnet(s), At("devices", i, "server_subnet"));
        }
    }
    for (i, k) in l.lock.links.iter().enumerate() {
        seen.once(Held::Subnet(&k.subnet), At("links", i, "subnet"));
        if !k.retired {
            seen.once(
                Held::Port(&k.lower, k.lower_port),
                At("links", i, "lower_port"),
            );
            seen.once(
                Held::Port(&k.upper, k.upper_port),
                At("links", i, "upper_port"),
            );
        }
    }
    for (i, v) in l.lock.servers.iter().enumerate() {
        seen.once(Held::Subnet(&v.subnet), At("servers", i, "subnet"));
        if !v.retired {
            seen.once(Held::Port(&v.leaf, v.port), At("servers", i, "port"));
        }
    }
    seen.errs
}

/// Whether any value [`collisions`] checks is held twice: the same values, each kind of value in a set
/// of its own and the kinds on their own threads. Nearly every lock has none, and only a lock that has
/// one is walked again in order to locate them.
fn any_twice(lock: &super::Lock) -> bool {
    let (d, k, v) = (&lock.devices, &lock.links, &lock.servers);
    let devices = || {
        let addresses = d.iter().flat_map(|d| {
            let rid = (d.router_id != d.loopback).then_some(d.router_id);
            [Some(d.loopback), rid]
                .into_iter()
                .flatten()
                .map(Held::Address)
        });
        twice(d.len(), d.iter().map(|d| Held::Name(&d.name)))
            || twice(2 * d.len(), addresses)
            || twice(
                d.len(),
                d.iter().filter_map(|d| d.management.map(Held::Management)),
            )
    };
    let subnets = || {
        twice(
            d.len() + k.len() + v.len(),
            (d.iter().filter_map(|d| d.server_subnet.as_deref()))
                .chain(k.iter().map(|k| k.subnet.as_ref()))
                .chain(v.iter().map(|v| v.subnet.as_ref()))
                .map(Held::Subnet),
        )
    };
    let ports = || {
        let live = k.iter().filter(|k| !k.retired);
        twice(
            2 * k.len() + v.len(),
            (live.flat_map(|k| [(&k.lower, k.lower_port), (&k.upper, k.upper_port)]))
                .chain(v.iter().filter(|v| !v.retired).map(|v| (&v.leaf, v.port)))
                .map(|(name, port)| Held::Port(name, port)),
        )
    };
    let ((a, b), c) = rayon::join(|| rayon::join(devices, subnets), ports);
    a || b || c
}

/// Whether an iterator of about `size` values yields a value twice.
fn twice<'a>(size: usize, mut values: impl Iterator<Item = Held<'a>>) -> bool {
    let mut set = foldhash::HashSet::with_capacity_and_hasher(size, Default::default());
    values.any(|h| !set.insert(h))
}

/// A value only one lock entry may hold, borrowed from the lock (nothing is formatted unless it is
/// held twice).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Held<'a> {
    /// A device name.
    Name(&'a str),
    /// A loopback or router-id.
    Address(std::net::Ipv4Addr),
    /// A management address.
    Management(std::net::IpAddr),
    /// A server subnet or a link or server /31, as written.
    Subnet(&'a str),
    /// A switch port: device and port number.
    Port(&'a str, u32),
}

impl Held<'_> {
    /// What the finding calls it, and its value as the lock writes it.
    fn describe(self) -> (&'static str, String) {
        match self {
            Held::Name(n) => ("name", n.to_string()),
            Held::Address(a) => ("address", a.to_string()),
            Held::Management(m) => ("management address", m.to_string()),
            Held::Subnet(s) => ("subnet", s.to_string()),
            Held::Port(d, p) => ("port", format!("{d}:{p}")),
        }
    }
}

/// Where an entry's field is: section, index, field (formatted as a JSON pointer only for a finding).
#[derive(Clone, Copy)]
struct At(&'static str, usize, &'static str);

impl At {
    fn pointer(self) -> String {
        format!("/{}/{}/{}", self.0, self.1, self.2)
    }
}

/// First holders of each value, and the findings for second ones.
struct Seen<'a> {
    l: &'a Loaded,
    first: foldhash::HashMap<Held<'a>, At>,
    errs: Vec<Finding>,
}

impl<'a> Seen<'a> {
    fn new(l: &'a Loaded) -> Seen<'a> {
        let entries = l.lock.devices.len() * 3 + l.lock.links.len() * 3 + l.lock.servers.len() * 2;
        Seen {
            l,
            first: foldhash::HashMap::with_capacity_and_hasher(entries, Default::default()),
            errs: Vec::new(),
        }
    }

    /// Records `value` at `at`, or reports it as held twice.
    fn once(&mut self, value: Held<'a>, at: At) {
        use std::collections::hash_map::Entry;
        let first = match self.first.entry(value) {
            Entry::Vacant(v) => {
                v.insert(at);
                return;
            }
            Entry::Occupied(o) => *o.get(),
        };
        let (kind, value) = value.describe();
        let (line, _) = self
            .l
            .spans()
            .locate(&first.pointer())
            .map(|s| self.l.source.line_col(s.offset))
            .unwrap_or((0, 0));
        let msg = format!("{kind} {value} is held twice (first on line {line})");
        self.errs.push(self.l.finding(
            Rule::LockCollision,
            &at.pointer(),
            msg,
            "give one of the two entries another value, or delete one and render again",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::prefix::prefix_as_written;
    use ipnetwork::Ipv4Network;

    /// The short path reads what `Ipv4Network`'s parser reads, and leaves every other form to it.
    #[test]
    fn a_prefix_as_written_reads_as_the_parser_reads_it() {
        for text in [
            "10.0.0.0/31",
            "10.0.0.1/31",
            "0.0.0.0/0",
            "10.255.255.255/32",
            "10.0.0.0/33",
            "10.0.0.0/031",
            "10.0.0.0/3a",
            "10.0.0.0/",
            "10.0.0.0/255.255.255.254",
            "10.0.0/31",
            "010.0.0.0/31",
            "10.0.0.0/ 31",
            "10.0.0.0",
        ] {
            if let Some(n) = prefix_as_written(text) {
                assert_eq!(Some(n), text.parse::<Ipv4Network>().ok(), "{text}");
            }
        }
        for written in ["10.1.2.0/31", "0.0.0.0/0", "10.2.0.0/27"] {
            assert!(prefix_as_written(written).is_some(), "{written}");
        }
        for other in [
            "10.0.0.0/031",
            "10.0.0.0/33",
            "10.0.0.0/255.255.255.254",
            "10.0.0.0",
        ] {
            assert!(prefix_as_written(other).is_none(), "{other}");
        }
    }
}
