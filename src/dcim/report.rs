//! What a sync changed, or a dry run or `check` would: a table of creates, updates, deletes and held
//! objects per kind, then the held objects with the reason and, up to a limit per kind, each change.

use super::Kind;
use super::diff::{Changes, KindChanges};
use std::fmt::Write as _;

/// Changes listed one by one per kind and sort of change; the rest are counted.
const LIST: usize = 20;

/// What the report is about.
#[derive(Clone, Debug)]
pub struct Header {
    /// `sync`, `sync --dry-run` or `check`.
    pub command: String,
    /// The fabric.
    pub fabric: String,
    /// The server's address.
    pub server: String,
    /// Its Nautobot version.
    pub version: String,
    /// The ownership tag.
    pub tag: String,
    /// Whether the changes were written.
    pub applied: bool,
    /// Write requests made.
    pub write_requests: usize,
    /// Read requests made.
    pub read_requests: usize,
}

fn verb(h: &Header) -> &'static str {
    if h.applied { "made" } else { "needed" }
}

fn lines(kind: Kind, c: &KindChanges) -> Vec<String> {
    let mut out = Vec::new();
    let mut some = |what: &str, items: Vec<String>| {
        for i in items.iter().take(LIST) {
            out.push(format!("{what} {kind} {i}"));
        }
        if items.len() > LIST {
            out.push(format!(
                "... and {} more {kind}s to {what}",
                items.len() - LIST
            ));
        }
    };
    some("create", c.creates.iter().map(|o| o.key.clone()).collect());
    some(
        "update",
        c.updates
            .iter()
            .map(|u| {
                let f: Vec<String> = u
                    .set
                    .iter()
                    .map(|(f, v)| {
                        format!(
                            "{f} {} -> {v}",
                            u.was.get(f).map_or("none".into(), |w| w.to_string())
                        )
                    })
                    .collect();
                let adopt = if u.adopt {
                    " (adopt: add the fabric's tag)"
                } else {
                    ""
                };
                format!("{}: {}{adopt}", u.key, f.join(", "))
            })
            .collect(),
    );
    some("delete", c.deletes.iter().map(|e| e.key.clone()).collect());
    out
}

fn held(changes: &Changes) -> Vec<String> {
    let mut out = Vec::new();
    for (kind, c) in &changes.kinds {
        for m in &c.missing {
            out.push(format!(
                "{kind} {m}: missing in the DCIM (aifab does not create it)"
            ));
        }
        for h in &c.conflicts {
            out.push(format!("{kind} {}: {}", h.key, h.why));
        }
        if let Some(first) = c.blocked.first() {
            let more = c.blocked.len() - 1;
            out.push(format!(
                "{kind} {} and {more} more not written: {}",
                first.key, first.why
            ));
        }
    }
    out
}

fn summary(h: &Header, changes: &Changes) -> String {
    format!(
        "{} objects to write, {} held; {} write requests {}, {} read requests",
        changes.writes(),
        changes.held(),
        h.write_requests,
        if h.applied {
            "made"
        } else {
            "(nothing written)"
        },
        h.read_requests
    )
}

/// Plain text: the table, the held objects, the changes.
pub fn text(h: &Header, changes: &Changes) -> String {
    let mut s = format!(
        "aifab dcim {}: fabric {} in Nautobot {} at {} (tag {})\n",
        h.command, h.fabric, h.version, h.server, h.tag
    );
    if changes.is_empty() {
        let _ = writeln!(
            s,
            "the DCIM holds the fabric as planned: 0 changes {}",
            verb(h)
        );
        let _ = writeln!(s, "{}", summary(h, changes));
        return s;
    }
    let _ = writeln!(
        s,
        "{:<14} {:>7} {:>7} {:>7} {:>5}",
        "object", "create", "update", "delete", "held"
    );
    for (kind, c) in &changes.kinds {
        let held = c.conflicts.len() + c.blocked.len() + c.missing.len();
        let _ = writeln!(
            s,
            "{:<14} {:>7} {:>7} {:>7} {:>5}",
            kind.as_str(),
            c.creates.len(),
            c.updates.len(),
            c.deletes.len(),
            held
        );
    }
    for l in held(changes) {
        let _ = writeln!(s, "held: {l}");
    }
    for (kind, c) in &changes.kinds {
        for l in lines(*kind, c) {
            let _ = writeln!(s, "  {l}");
        }
    }
    let _ = writeln!(s, "{}", summary(h, changes));
    s
}

/// Markdown for a pull request: the table, then the held objects and changes as lists.
pub fn markdown(h: &Header, changes: &Changes) -> String {
    let mut s = format!(
        "### aifab dcim {}: `{}` in Nautobot {}\n\nServer {}, ownership tag `{}`.\n\n",
        h.command, h.fabric, h.version, h.server, h.tag
    );
    if changes.is_empty() {
        let _ = writeln!(
            s,
            "The DCIM holds the fabric as planned: 0 changes {}.",
            verb(h)
        );
        return s;
    }
    s.push_str("| object | create | update | delete | held |\n|---|---:|---:|---:|---:|\n");
    for (kind, c) in &changes.kinds {
        let held = c.conflicts.len() + c.blocked.len() + c.missing.len();
        let _ = writeln!(
            s,
            "| {kind} | {} | {} | {} | {held} |",
            c.creates.len(),
            c.updates.len(),
            c.deletes.len()
        );
    }
    let held = held(changes);
    if !held.is_empty() {
        s.push_str("\n**Held** (left alone):\n\n");
        for l in held {
            let _ = writeln!(s, "- {}", l.replace('`', "'"));
        }
    }
    s.push_str("\n<details><summary>Changes</summary>\n\n");
    for (kind, c) in &changes.kinds {
        for l in lines(*kind, c) {
            let _ = writeln!(s, "- `{}`", l.replace('`', "'"));
        }
    }
    let _ = writeln!(s, "\n</details>\n\n{}", summary(h, changes));
    s
}

/// One JSON document: per kind the keys to create and delete, the updates with old and new values,
/// the held objects; the request counts.
pub fn json(h: &Header, changes: &Changes) -> String {
    let kinds: serde_json::Map<String, serde_json::Value> = changes
        .kinds
        .iter()
        .map(|(k, c)| {
            let updates: Vec<serde_json::Value> = c
                .updates
                .iter()
                .map(|u| serde_json::json!({ "key": u.key, "set": u.set, "was": u.was, "adopt": u.adopt }))
                .collect();
            let v = serde_json::json!({
                "create": c.creates.iter().map(|o| &o.key).collect::<Vec<_>>(),
                "update": updates,
                "delete": c.deletes.iter().map(|e| &e.key).collect::<Vec<_>>(),
                "conflicts": c.conflicts,
                "blocked": c.blocked,
                "missing": c.missing,
            });
            (k.as_str().to_string(), v)
        })
        .collect();
    let doc = serde_json::json!({
        "command": h.command,
        "fabric": h.fabric,
        "server": h.server,
        "nautobot_version": h.version,
        "tag": h.tag,
        "applied": h.applied,
        "writes": changes.writes(),
        "held": changes.held(),
        "write_requests": h.write_requests,
        "read_requests": h.read_requests,
        "kinds": kinds,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
