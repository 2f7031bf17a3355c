//! A lock's history, as Terraform's state keeps one: its `lineage:` (which fabric's lock this is, kept
//! forever), its `serial:` (one more every time aifab writes a lock whose entries changed) and its
//! `digest:` (the hash of what aifab wrote at that serial, so an edit by hand is known without git).
//! An older lock put back, a lock shortened with its `total:` line adjusted, or another fabric's lock
//! is then known by comparing with the output folder's record or the lock's committed history
//! (docs/lock.md, "A lock knows its history").
//!
//! Everything here is deterministic: the lineage of a fabric's first lock is the hash of the intent's
//! file name and the first body aifab writes, so the same render writes the same lock on every machine.

use xxhash_rust::xxh3::Xxh3;

/// Hex digits of a lineage and of a digest (128 bits).
pub const HEX_LEN: usize = 32;

/// What a lock's history lines say, as read. A lock written before lineages (version 1 or 2) has
/// none: lineage unknown, serial 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// The `lineage:` line.
    pub lineage: Option<String>,
    /// The `serial:` line (0 without one).
    pub serial: u64,
    /// The `digest:` line: the hash of the body aifab wrote at this serial.
    pub digest: Option<String>,
    /// The hash of the body the file holds now (what [`History::digest`] would be had aifab written
    /// it), when it has the line the body follows.
    pub actual: Option<String>,
}

impl History {
    /// The history lines of lock text `text` (lineage, serial and digest as its parsed fields say),
    /// and the digest of the body it holds.
    pub fn of(
        text: &str,
        lineage: Option<&str>,
        serial: Option<u64>,
        digest: Option<&str>,
    ) -> History {
        let serial = serial.unwrap_or(0);
        // A lock without a lineage (before lineages) has no digest line to look for.
        let actual = lineage.and_then(|l| Some(digest_of(l, serial, body(text)?)));
        History {
            lineage: lineage.map(str::to_string),
            serial,
            digest: digest.map(str::to_string),
            actual,
        }
    }

    /// Whether the body was changed since aifab wrote it (its digest does not match), or has no
    /// history lines to tell.
    pub fn edited(&self) -> bool {
        self.lineage.is_some() && (self.digest.is_none() || self.digest != self.actual)
    }

    /// `serial N of lineage L`, or `without a lineage (written before lineages)`, for messages.
    pub fn describe(&self) -> String {
        match &self.lineage {
            Some(l) => format!("serial {} of lineage {l}", self.serial),
            None => "without a lineage (serial 0: an aifab before lineages wrote it)".into(),
        }
    }
}

/// Where a lock's history stands: a lineage and a serial (what an output folder records, the newest
/// committed lock, what a lock is written with).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The lineage.
    pub lineage: String,
    /// The serial.
    pub serial: u64,
}

/// The body of lock text: everything after its `digest:` line, which the digest covers (the entries
/// and the `total:` line); `None` without that line.
pub fn body(text: &str) -> Option<&str> {
    let at = if text.starts_with("digest: ") {
        0
    } else {
        text.find("\ndigest: ")? + 1
    };
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
    Some(&text[end..])
}

/// The digest of `body` written as serial `serial` of lineage `lineage`: xxh3-128 of the three, hex.
pub fn digest_of(lineage: &str, serial: u64, body: &str) -> String {
    let mut h = Xxh3::new();
    h.update(format!("aifab lock\0{lineage}\0{serial}\0").as_bytes());
    h.update(body.as_bytes());
    format!("{:032x}", h.digest128())
}

/// The lineage of a fabric's first lock: xxh3-128 of the intent's file name and the lock's first body,
/// hex. The same intent rendered anywhere has the same lineage; it is kept by every later lock.
pub fn lineage_of(intent_name: &str, body: &str) -> String {
    let mut h = Xxh3::new();
    h.update(format!("aifab lineage\0{intent_name}\0").as_bytes());
    h.update(body.as_bytes());
    format!("{:032x}", h.digest128())
}

/// The lineage and serial a lock with body `body` is written with: the lineage of `floor` (the newest
/// history known: the output folder's record or git's, when the lock is allowed past it), else of the
/// previous lock `prev`, else a new one ([`lineage_of`]); the serial of the previous lock or the floor,
/// whichever is higher, and one more when the body is not the one aifab wrote at that serial.
pub fn next(prev: Option<&History>, floor: Option<&Stamp>, intent_name: &str, body: &str) -> Stamp {
    let lineage = floor
        .map(|f| f.lineage.clone())
        .or_else(|| prev.and_then(|p| p.lineage.clone()))
        .unwrap_or_else(|| lineage_of(intent_name, body));
    let prev_serial = prev
        .filter(|p| p.lineage.as_deref() == Some(lineage.as_str()))
        .map_or(0, |p| p.serial);
    let floor_serial = floor.map_or(0, |f| f.serial);
    let base = prev_serial.max(floor_serial);
    let unchanged = base > 0
        && prev.is_some_and(|p| {
            p.lineage.as_deref() == Some(lineage.as_str())
                && p.serial == base
                && p.digest.as_deref() == Some(digest_of(&lineage, base, body).as_str())
        });
    let serial = if unchanged {
        base
    } else {
        base.saturating_add(1)
    };
    Stamp { lineage, serial }
}

/// The history lines of the first `head` bytes of lock text (a committed version read in part): the
/// top-level `lineage:`, `serial:` and `digest:` lines before the first list, as aifab writes them.
pub fn of_head(head: &[u8]) -> History {
    let text = String::from_utf8_lossy(head);
    let mut h = History::default();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Some((key, v)) = line.split_once(": ") else {
            break;
        };
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(v);
        match (key, v) {
            ("lineage", v) if is_hex(v) => h.lineage = Some(v.to_string()),
            ("serial", v) => h.serial = v.parse().unwrap_or(0),
            ("digest", v) if is_hex(v) => h.digest = Some(v.to_string()),
            ("version", _) => {}
            _ => break,
        }
    }
    h
}

/// Whether `v` is a lineage or digest as aifab writes them: [`HEX_LEN`] lowercase hex digits.
pub fn is_hex(v: &str) -> bool {
    v.len() == HEX_LEN && v.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str =
        "devices: []\nlinks: []\nservers: []\ntotal: {devices: 0, links: 0, servers: 0}\n";

    fn written(lineage: &str, serial: u64, body: &str) -> History {
        let text = format!(
            "version: 3\nlineage: \"{lineage}\"\nserial: {serial}\ndigest: \"{}\"\n{body}",
            digest_of(lineage, serial, body)
        );
        let d = digest_of(lineage, serial, body);
        History::of(&text, Some(lineage), Some(serial), Some(&d))
    }

    #[test]
    fn a_first_lock_starts_a_lineage_and_a_change_adds_one_to_the_serial() {
        let first = next(None, None, "x.yaml", BODY);
        assert_eq!(first.serial, 1);
        assert_eq!(first.lineage, lineage_of("x.yaml", BODY));
        assert_ne!(first.lineage, lineage_of("y.yaml", BODY), "another intent");
        let h = written(&first.lineage, 1, BODY);
        assert!(!h.edited());
        assert_eq!(next(Some(&h), None, "x.yaml", BODY), first, "unchanged");
        let grown = BODY.replace("servers: 0}", "servers: 1}");
        assert_eq!(next(Some(&h), None, "x.yaml", &grown).serial, 2);
        // A lock before lineages (serial 0) is upgraded as a first lock is written.
        let old = History::default();
        assert_eq!(next(Some(&old), None, "x.yaml", BODY), first);
        // Allowed past a newer history: its lineage, one past its serial.
        let floor = Stamp {
            lineage: "ab".repeat(16),
            serial: 7,
        };
        let s = next(Some(&h), Some(&floor), "x.yaml", BODY);
        assert_eq!((s.lineage.as_str(), s.serial), (floor.lineage.as_str(), 8));
    }

    #[test]
    fn an_edit_by_hand_is_known_by_its_digest() {
        let l = "0f".repeat(16);
        let h = written(&l, 3, BODY);
        let text = format!(
            "version: 3\nlineage: \"{l}\"\nserial: 3\ndigest: \"{}\"\n{}",
            h.digest.as_deref().unwrap_or_default(),
            BODY.replace("links: []", "links: []\n# edited")
        );
        let e = History::of(&text, Some(&l), Some(3), h.digest.as_deref());
        assert!(e.edited());
        assert_eq!(
            next(Some(&e), None, "x.yaml", BODY).serial,
            3,
            "written back as it was"
        );
        let head = of_head(text.as_bytes());
        assert_eq!(
            (head.lineage, head.serial, head.digest),
            (Some(l), 3, h.digest)
        );
    }
}
