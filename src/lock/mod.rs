//! The allocation lock: what `render` allocated to whom, kept beside the intent as
//! `<intent-stem>.lock.yaml` and read on the next render, so growing a fabric never renumbers what
//! already runs (docs/lock.md).
//!
//! One module per job: the types and their text form here, [`read`] (YAML with spans, syntax and
//! collisions located `file:line:col`), [`check`] (the lock against the intent's pools and ASN ranges),
//! [`build`] (the lock a compiled model implies, and what a change renumbers). The compiler applies it
//! in [`crate::compile::stable`].

pub mod build;
pub mod check;
mod fast;
pub mod history;
pub mod prefix;
pub mod read;

use crate::model::Name;
use crate::spell::push_decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

/// The lock format version this aifab writes: 3, whose history lines (`lineage:`, `serial:`,
/// `digest:`, [`history`]) follow the version and whose last line is the [`Total`] line. It also reads
/// the versions of earlier aifabs, 1 (no `total:`) and 2 (no history: lineage unknown, serial 0), and
/// rewrites them as version 3.
pub const VERSION: u32 = 3;

/// Everything allocated to devices and links, sorted by name, one line per entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Lock format version (1, 2 or 3).
    pub version: u32,
    /// Which fabric's lock this is (version 3): set by the first lock aifab writes for the intent and
    /// kept by every later one ([`history`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<String>,
    /// How many times aifab wrote a changed lock of this lineage (version 3; 0 without the line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<u64>,
    /// The hash of the lines after this one as aifab wrote them at this serial (version 3): a lock
    /// edited by hand is known by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// One entry per switch.
    #[serde(default)]
    pub devices: Vec<LockDevice>,
    /// One entry per switch-to-switch cable.
    #[serde(default)]
    pub links: Vec<LockLink>,
    /// One entry per server NIC /31 (`server_mode: routed`).
    #[serde(default)]
    pub servers: Vec<LockServer>,
    /// How many entries each list holds (version 2, the lock's last line): a lock that lost entries or
    /// was cut short is refused (`AIF-LOCK-006`). Read, checked and dropped: a lock in memory has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Total>,
    /// Set on a lock read for some devices only (`render --only`: [`fast::parse_narrowed`]): what the
    /// entries left out count and hold. Such a lock is never written.
    #[serde(skip)]
    pub narrowed: Option<Narrowed>,
}

/// What a lock read for some devices only ([`Lock::narrowed`]) left out: it holds every device, the
/// cables with a selected device at either end and the server entries of selected leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Narrowed {
    /// The entries of each list in the file.
    pub total: Total,
    /// The place in the file's `links` of each cable held, in order.
    pub links_at: Vec<usize>,
    /// The place in the file's `servers` of each server entry held, in order.
    pub servers_at: Vec<usize>,
    /// The blocks (first address, size) of the server entries left out: still taken, so that a new
    /// server of a selected leaf steps past them as a full render's would.
    pub server_blocks: Vec<(u32, u64)>,
}

/// The number of entries of each list of a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Total {
    /// Entries of `devices`.
    pub devices: usize,
    /// Entries of `links`.
    pub links: usize,
    /// Entries of `servers`.
    pub servers: usize,
}

impl Total {
    /// The counts of `lock`'s lists (of the file's, for a lock read for some devices only).
    pub fn of(lock: &Lock) -> Total {
        if let Some(n) = &lock.narrowed {
            return n.total;
        }
        Total {
            devices: lock.devices.len(),
            links: lock.links.len(),
            servers: lock.servers.len(),
        }
    }
}

/// What one switch holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockDevice {
    /// Hostname.
    pub name: String,
    /// Loopback0 address (from the `loopbacks` pool).
    pub loopback: Ipv4Addr,
    /// BGP router-id.
    pub router_id: Ipv4Addr,
    /// Local ASN.
    pub asn: u32,
    /// Management address, when the fabric has `fabric.management`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub management: Option<IpAddr>,
    /// The leaf's server subnet (`server_mode: rail-subnet`), e.g. `10.2.0.0/27`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_subnet: Option<String>,
    /// The device left the fabric; its space stays reserved until released (`render --release`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub retired: bool,
}

/// One switch-to-switch cable: lower (leaf or spine) port to upper (spine or super-spine) port, and its /31.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockLink {
    /// The lower-tier switch.
    pub lower: Name,
    /// Its front-panel port number (1-based).
    pub lower_port: u32,
    /// The upper-tier switch.
    pub upper: Name,
    /// Its front-panel port number (1-based).
    pub upper_port: u32,
    /// The link's /31 (from `fabric_links`); the upper switch takes the even address.
    pub subnet: Name,
    /// An end left the fabric; the /31 stays reserved until released.
    #[serde(default, skip_serializing_if = "is_false")]
    pub retired: bool,
}

/// One server NIC's /31 on a leaf port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockServer {
    /// The leaf.
    pub leaf: Name,
    /// The leaf's front-panel port number (1-based).
    pub port: u32,
    /// The /31 (from `server_links`); the leaf takes the even address.
    pub subnet: Name,
    /// The leaf or the port left the fabric; the /31 stays reserved until released.
    #[serde(default, skip_serializing_if = "is_false")]
    pub retired: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The entries each list of lock text holds, counted without reading them, when the text is in the
/// form aifab writes (a committed version compared with the lock: [`history`]); `None` otherwise.
pub fn entry_counts(text: &str) -> Option<Total> {
    fast::counts(text)
}

/// The lock file of an intent: `dir/x.yaml` → `dir/x.lock.yaml`.
pub fn path_for(intent: &Path) -> PathBuf {
    let stem = intent
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    intent.with_file_name(format!("{stem}.lock.yaml"))
}

/// The lock's JSON Schema (draft 2020-12), pretty-printed, ending with a newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Lock);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}

/// Compares names as people read them: `leaf2` before `leaf10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (n, rx) = split_digits(x);
                let (m, ry) = split_digits(y);
                match n.len().cmp(&m.len()).then(n.cmp(m)) {
                    Ordering::Equal => (x, y) = (rx, ry),
                    o => return o,
                }
            }
            (Some(c), Some(d)) => match c.cmp(d) {
                Ordering::Equal => (x, y) = (&x[1..], &y[1..]),
                o => return o,
            },
        }
    }
}

/// Leading digits without leading zeros, and the rest.
fn split_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let end = s
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(s.len());
    let zeros = s[..end].iter().take_while(|c| **c == b'0').count();
    (&s[zeros.min(end.saturating_sub(1))..end], &s[end..])
}

impl Lock {
    /// Sorts every list by name (natural order), then port: the order [`Lock::to_yaml`] writes.
    pub fn sort(&mut self) {
        use rayon::prelude::*;
        let (devices, links, servers) = (&mut self.devices, &mut self.links, &mut self.servers);
        rayon::join(
            || devices.par_sort_by(|a, b| natural_cmp(&a.name, &b.name)),
            || {
                rayon::join(
                    || {
                        links.par_sort_by(|a, b| {
                            natural_cmp(&a.lower, &b.lower)
                                .then(a.lower_port.cmp(&b.lower_port))
                                .then(natural_cmp(&a.upper, &b.upper))
                                .then(a.upper_port.cmp(&b.upper_port))
                        })
                    },
                    || {
                        servers.par_sort_by(|a, b| {
                            natural_cmp(&a.leaf, &b.leaf).then(a.port.cmp(&b.port))
                        })
                    },
                )
            },
        );
    }

    /// The lock file's text as the first lock of its intent: a header naming the intent, a new
    /// lineage at serial 1, then one flow mapping per line, so a grow is a diff of added lines.
    pub fn to_yaml(&self, intent_name: &str) -> String {
        self.to_yaml_after(intent_name, None, None)
    }

    /// The lock file's text, written after the lock whose history is `prev` (the lock read, if any)
    /// and past `floor` (the newest history known elsewhere, when the render was allowed past it):
    /// its lineage kept, its serial one more when the entries changed ([`history::next`]).
    pub fn to_yaml_after(
        &self,
        intent_name: &str,
        prev: Option<&history::History>,
        floor: Option<&history::Stamp>,
    ) -> String {
        let body = self.body();
        let stamp = history::next(prev, floor, intent_name, &body);
        let digest = history::digest_of(&stamp.lineage, stamp.serial, &body);
        let mut s = String::with_capacity(body.len() + 512);
        let _ = write!(
            s,
            "# aifab allocation lock for {intent_name}: what render allocated to whom.\n\
             # Commit it with the intent; see docs/lock.md (pin by editing, release with --release).\n\
             version: {VERSION}\nlineage: \"{}\"\nserial: {}\ndigest: \"{digest}\"\n",
            stamp.lineage, stamp.serial
        );
        s.push_str(&body);
        s
    }

    /// The lines the digest covers: every list, one entry per line, and the `total:` line.
    fn body(&self) -> String {
        let mut s = String::new();
        section(&mut s, "devices", &self.devices, device_line);
        section(&mut s, "links", &self.links, link_line);
        section(&mut s, "servers", &self.servers, server_line);
        let t = Total::of(self);
        let _ = writeln!(
            s,
            "total: {{devices: {}, links: {}, servers: {}}}",
            t.devices, t.links, t.servers
        );
        s
    }

    /// The intent file the first line of lock text `text` names (`# aifab allocation lock for
    /// <name>: ...`), if it has that line.
    pub fn header_intent(text: &str) -> Option<&str> {
        let first = text.lines().next()?;
        let rest = first.strip_prefix("# aifab allocation lock for ")?;
        rest.rsplit_once(": what render allocated")
            .map(|(name, _)| name)
            .filter(|n| !n.is_empty())
    }
}

/// `name: []` or `name:` and one `  - {...}` line per entry (formatted in parallel, in order); `line`
/// appends an entry's fields.
fn section<T: Sync>(s: &mut String, name: &str, items: &[T], line: fn(&mut String, &T)) {
    use rayon::prelude::*;
    if items.is_empty() {
        let _ = writeln!(s, "{name}: []");
        return;
    }
    let _ = writeln!(s, "{name}:");
    let chunks: Vec<String> = items
        .par_chunks(2048)
        .map(|chunk| {
            let mut text = String::with_capacity(chunk.len() * 96);
            for i in chunk {
                text.push_str("  - {");
                line(&mut text, i);
                text.push_str("}\n");
            }
            text
        })
        .collect();
    s.reserve(chunks.iter().map(String::len).sum());
    chunks.iter().for_each(|c| s.push_str(c));
}

fn retired(r: bool) -> &'static str {
    if r { ", retired: true" } else { "" }
}

fn device_line(s: &mut String, d: &LockDevice) {
    let _ = write!(
        s,
        "name: {}, loopback: {}, router_id: {}, asn: {}",
        d.name, d.loopback, d.router_id, d.asn
    );
    if let Some(m) = d.management {
        let _ = write!(s, ", management: \"{m}\"");
    }
    if let Some(n) = &d.server_subnet {
        let _ = write!(s, ", server_subnet: {n}");
    }
    s.push_str(retired(d.retired));
}

/// A field value of a link or server line.
enum Field<'a> {
    Text(&'a str),
    Port(u32),
}

/// `key: value, key: value` (hundreds of thousands of lines at 100K GPUs: spelled without the
/// formatting machinery).
fn push_fields(s: &mut String, fields: &[(&str, Field)]) {
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(key);
        s.push_str(": ");
        match value {
            Field::Text(t) => s.push_str(t),
            Field::Port(p) => push_decimal(s, u64::from(*p)),
        }
    }
}

fn link_line(s: &mut String, l: &LockLink) {
    push_fields(
        s,
        &[
            ("lower", Field::Text(&l.lower)),
            ("lower_port", Field::Port(l.lower_port)),
            ("upper", Field::Text(&l.upper)),
            ("upper_port", Field::Port(l.upper_port)),
            ("subnet", Field::Text(&l.subnet)),
        ],
    );
    s.push_str(retired(l.retired));
}

fn server_line(s: &mut String, v: &LockServer) {
    push_fields(
        s,
        &[
            ("leaf", Field::Text(&v.leaf)),
            ("port", Field::Port(v.port)),
            ("subnet", Field::Text(&v.subnet)),
        ],
    );
    s.push_str(retired(v.retired));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_reads_numbers() {
        let mut v = vec!["leaf10", "leaf2", "leaf1", "spine1", "leaf02"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["leaf1", "leaf02", "leaf2", "leaf10", "spine1"]);
    }

    #[test]
    fn lock_path_sits_beside_the_intent() {
        assert_eq!(
            path_for(Path::new("intents/pod1-1024.yaml")),
            PathBuf::from("intents/pod1-1024.lock.yaml")
        );
    }
}
