//! The change report's last rule, which keeps it from ever being silent (with `CHG-BASELINE` in
//! [`super::change`], which names the baseline fields that changed):
//! - `CHG-CONFIG`: a switch whose rendered files changed although no other rule names it, with the
//!   config sections (CLI) or tables (SONiC config_db) that changed. So `changes: 0` means the configs
//!   are equal.
//!
//! Sections are found in the rendered text itself ([`sections_changed`]): a CLI line at the left margin
//! opens a section, named by its first word (and its second when that is no number or port name:
//! `logging server`, `interface`, `router bgp`); a config_db.json line with two spaces of indent opens a
//! table.

use super::FileChange;
use super::change::{Change, ChangeRule, Impact};
use similar::{ChangeTag, TextDiff};
use std::collections::{BTreeMap, BTreeSet};

/// The section a line opens, if it opens one: `logging server`, `interface`, `PORT_QOS_MAP`. `json`
/// is the indent of a top-level key in a JSON file (a table of config_db.json), `None` for CLI text.
fn opens(json: Option<usize>, line: &str) -> Option<String> {
    if let Some(indent) = json {
        let rest = line.get(indent..)?.strip_prefix('"')?;
        let top = line[..indent].bytes().all(|b| b == b' ');
        return top.then(|| rest.split('"').next().unwrap_or_default().to_string());
    }
    if line.is_empty() || line.starts_with([' ', '\t', '!', '#']) || line == "end" {
        return None;
    }
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let first = if first == "no" {
        words.next().unwrap_or(first)
    } else {
        first
    };
    match words.next() {
        Some(w) if !w.contains(|c: char| c.is_ascii_digit() || c == '/' || c == '.') => {
            Some(format!("{first} {w}"))
        }
        _ => Some(first.to_string()),
    }
}

/// The sections of one file whose lines differ between `old` and `new` (in order of first change).
pub fn sections_changed(path: &str, old: &str, new: &str) -> Vec<String> {
    // A JSON file's top-level keys sit at the indent of its first indented line (2 or 4 spaces).
    let indent = |t: &str| {
        t.lines()
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .find(|n| *n > 0)
    };
    let json = path
        .ends_with(".json")
        .then(|| indent(new).or(indent(old)).unwrap_or(2));
    let (mut in_old, mut in_new) = (String::new(), String::new());
    let mut out: Vec<String> = Vec::new();
    for c in TextDiff::from_lines(old, new).iter_all_changes() {
        let line = c.value().trim_end_matches(['\n', '\r']);
        let opened = opens(json, line);
        let current = match c.tag() {
            ChangeTag::Equal => {
                if let Some(s) = opened {
                    in_old = s.clone();
                    in_new = s;
                }
                continue;
            }
            ChangeTag::Delete => {
                if let Some(s) = opened {
                    in_old = s;
                }
                &in_old
            }
            ChangeTag::Insert => {
                if let Some(s) = opened {
                    in_new = s;
                }
                &in_new
            }
        };
        let name = if current.is_empty() {
            "(top of the file)"
        } else {
            current.as_str()
        };
        if !out.iter().any(|s| s == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// `CHG-CONFIG`: the switches whose files changed that no change of `changes` names, per set of
/// changed sections.
pub fn uncovered(changes: &[Change], files: &[FileChange]) -> Vec<Change> {
    let named: BTreeSet<&str> = changes
        .iter()
        .flat_map(|c| c.devices.iter().map(String::as_str))
        .collect();
    let mut per_device: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in files {
        if f.device.is_empty()
            || named.contains(f.device.as_str())
            || crate::hosts::is_host_path(&f.path)
        {
            continue;
        }
        per_device
            .entry(f.device.as_str())
            .or_default()
            .extend(f.sections.iter().map(String::as_str));
    }
    let mut by_sections: BTreeMap<Vec<&str>, Vec<&str>> = BTreeMap::new();
    for (device, sections) in per_device {
        by_sections
            .entry(sections.into_iter().collect())
            .or_default()
            .push(device);
    }
    by_sections
        .into_iter()
        .map(|(sections, names)| {
            let shown: Vec<String> = sections.iter().map(|s| format!("`{s}`")).collect();
            let summary = format!(
                "config changed where no rule above explains it, in {} on {}: read these switches' diffs",
                shown.join(", "),
                super::change::named(&names)
            );
            Change::per_switch(ChangeRule::Config, Impact::Unclassified, summary, &names)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sections_changed;

    #[test]
    fn changed_lines_are_named_by_their_section() {
        let old = "hostname a\nlogging server 192.0.2.1 5\ninterface Ethernet1/1\n  mtu 9216\n  no shutdown\nend\n";
        let new = "hostname a\nlogging server 192.0.2.9 5\ninterface Ethernet1/1\n  mtu 9000\n  no shutdown\nend\n";
        assert_eq!(
            sections_changed("a.cfg", old, new),
            ["logging server", "interface"]
        );
        let old = "{\n  \"NTP_SERVER\": {\n    \"192.0.2.1\": {}\n  },\n  \"PORT\": {}\n}\n";
        let new = "{\n  \"NTP_SERVER\": {\n    \"192.0.2.2\": {}\n  },\n  \"PORT\": {}\n}\n";
        assert_eq!(sections_changed("config_db.json", old, new), ["NTP_SERVER"]);
        // config_db.json as aifab renders it: four spaces.
        let old4 = old.replace("  ", "    ");
        let new4 = new.replace("  ", "    ");
        assert_eq!(
            sections_changed("config_db.json", &old4, &new4),
            ["NTP_SERVER"]
        );
        assert!(sections_changed("a.cfg", old, old).is_empty());
    }
}
