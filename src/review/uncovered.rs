//! The change report's last rule, which keeps it from ever being silent (with `CHG-BASELINE` in
//! [`super::change`], which names the baseline fields that changed):
//! - `CHG-CONFIG`: per switch, every config section (CLI) or table (SONiC config_db) whose lines
//!   changed and that no rule that fired on that switch explains, by the per-OS map of
//!   `change_sections:` in `vendors/<os>.yaml` ([`crate::platform::ChangeSections`]). So
//!   `changes: 0` means the configs are equal, and a switch where `CHG-ECN` fired and whose banner
//!   also changed is named for its banner.
//!
//! Sections are found in the rendered text itself ([`sections_changed`]): a CLI line belongs to the
//! top-level section it sits in as [`crate::platform::sections`] splits a config (banners included);
//! a config_db.json line belongs to the table (a key at the file's top indent) it sits in; comment
//! lines, and a plain-text file beside the config (SONiC's GENERATED.txt), are `(comments)`. The
//! report names a section by the owned-section pattern of its OS that matches it (`ntp server`,
//! `policy-map type queuing`), never by its whole first line, which may hold a secret's hash.

use super::FileChange;
use super::change::{Change, ChangeRule, Impact};
use crate::kinds::Os;
use crate::model::FabricModel;
use crate::platform::Catalog;
use crate::platform::sections::{Place, Splitter};
use similar::{ChangeTag, TextDiff};
use std::collections::{BTreeMap, BTreeSet};

/// The pseudo-section of comment lines and of a plain-text file beside the config.
pub const COMMENTS: &str = "(comments)";
/// The pseudo-section of lines before the first section or table.
pub const TOP: &str = "(top of the file)";

/// The table a config_db.json line opens, if it opens one: a key at `indent`.
fn table(indent: usize, line: &str) -> Option<String> {
    let rest = line.get(indent..)?.strip_prefix('"')?;
    let top = line[..indent].bytes().all(|b| b == b' ');
    top.then(|| rest.split('"').next().unwrap_or_default().to_string())
}

/// The section each line of `text` belongs to (see the module doc), in line order, each with whether
/// it is a separator: a blank line, a lone `!`, `end`, or a config_db line of brackets only (a
/// table's closing `}` gains a comma when a table is added after it).
fn line_sections(json: Option<usize>, text: &str) -> Vec<(String, bool)> {
    let mut current = TOP.to_string();
    let mut splitter = Splitter::default();
    text.lines()
        .map(|line| match json {
            Some(indent) => {
                if let Some(t) = table(indent, line) {
                    current = t;
                }
                let punctuation = line.trim().chars().all(|c| "{}[],".contains(c));
                (current.clone(), punctuation)
            }
            None => match splitter.place(line) {
                Place::Opens(top) => {
                    current = top;
                    (current.clone(), false)
                }
                Place::Continues => (current.clone(), false),
                // A note at the left margin is a comment of its own; a note inside a section is
                // the section's.
                Place::Outside if line.starts_with('!') && line.trim_end() != "!" => {
                    (COMMENTS.to_string(), false)
                }
                Place::Outside => {
                    let t = line.trim();
                    (current.clone(), t.is_empty() || t == "!" || t == "end")
                }
            },
        })
        .collect()
}

/// The sections of one file whose lines differ between `old` and `new` (in order of first change): a
/// CLI section by its first line (whitespace collapsed), a config_db table by name, or a
/// pseudo-section ([`COMMENTS`], [`TOP`]). A changed separator counts only when nothing else
/// changed, for the section it follows.
pub fn sections_changed(path: &str, old: &str, new: &str) -> Vec<String> {
    if path.ends_with(".txt") {
        return vec![COMMENTS.to_string()];
    }
    // A JSON file's top-level keys sit at the indent of its first indented line (2 or 4 spaces).
    let indent = |t: &str| {
        t.lines()
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .find(|n| *n > 0)
    };
    let json = path
        .ends_with(".json")
        .then(|| indent(new).or(indent(old)).unwrap_or(2));
    let (in_old, in_new) = (line_sections(json, old), line_sections(json, new));
    let (mut out, mut separators): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for c in TextDiff::from_lines(old, new).iter_all_changes() {
        let at = match c.tag() {
            ChangeTag::Equal => continue,
            ChangeTag::Delete => c.old_index().and_then(|i| in_old.get(i)),
            ChangeTag::Insert => c.new_index().and_then(|i| in_new.get(i)),
        };
        let (name, separator) = at.map_or((TOP, false), |(s, sep)| (s.as_str(), *sep));
        let list = if separator { &mut separators } else { &mut out };
        if !list.iter().any(|s| s == name) {
            list.push(name.to_string());
        }
    }
    if out.is_empty() { separators } else { out }
}

/// How the report names section `key` of a switch running `os`: the longest owned-section pattern of
/// the OS that matches its first line (`ntp server`, `interface Ethernet*`), else its first word and
/// its second when that is no number, address or port (`logging server`, `interface`); a config_db
/// table and a pseudo-section by themselves.
pub fn section_name(catalog: &Catalog, os: Option<Os>, key: &str) -> String {
    if key.starts_with('(') || !key.contains(' ') {
        return key.to_string();
    }
    let owned = os.and_then(|os| catalog.owned.get(&os));
    let best = owned
        .into_iter()
        .flat_map(|o| o.patterns())
        .filter(|p| crate::platform::owned::matches(p, key))
        .max_by_key(|p| p.len());
    if let Some(p) = best {
        return p.to_string();
    }
    let mut words = key.split_whitespace();
    let first = words.next().unwrap_or_default();
    let first = if first == "no" {
        words.next().unwrap_or(first)
    } else {
        first
    };
    match words.next() {
        Some(w) if !w.contains(|c: char| c.is_ascii_digit() || c == '/' || c == '.') => {
            format!("{first} {w}")
        }
        _ => first.to_string(),
    }
}

/// The OS of every switch of the two fabrics, by hostname (the new side's where both have it).
pub fn oses<'a>(catalog: &Catalog, models: &[&'a FabricModel]) -> BTreeMap<&'a str, Os> {
    let mut out = BTreeMap::new();
    for m in models.iter().rev() {
        for d in &m.devices {
            if let Some((os, _)) = catalog.get(&d.platform) {
                out.insert(d.hostname.as_str(), *os);
            }
        }
    }
    out
}

/// Whether `rule`, fired on a switch running `os`, explains its section `key`: a switch added,
/// removed or replaced (`CHG-DEVICES`, `CHG-PLATFORM`) is explained whole; any other rule explains
/// what its `change_sections:` patterns match.
pub fn explains(catalog: &Catalog, os: Option<Os>, rule: ChangeRule, key: &str) -> bool {
    match rule {
        ChangeRule::Devices | ChangeRule::Platform => true,
        ChangeRule::Config => false,
        _ => os
            .and_then(|os| catalog.change_sections.get(&os))
            .is_some_and(|m| m.explains(rule.id(), key)),
    }
}

/// Per switch whose files changed, the names of its changed sections that no change of `changes`
/// naming it explains (switches with none left out).
pub fn unexplained<'a>(
    changes: &[Change],
    files: &'a [FileChange],
    catalog: &Catalog,
    oses: &BTreeMap<&str, Os>,
) -> BTreeMap<&'a str, BTreeSet<String>> {
    let mut fired: BTreeMap<&str, Vec<ChangeRule>> = BTreeMap::new();
    for c in changes {
        for d in &c.devices {
            fired.entry(d.as_str()).or_default().push(c.rule);
        }
    }
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        if f.device.is_empty() || crate::hosts::is_host_path(&f.path) {
            continue;
        }
        let os = oses.get(f.device.as_str()).copied();
        let rules = fired.get(f.device.as_str()).map_or(&[][..], Vec::as_slice);
        for key in &f.sections {
            if !rules.iter().any(|r| explains(catalog, os, *r, key)) {
                out.entry(f.device.as_str())
                    .or_default()
                    .insert(section_name(catalog, os, key));
            }
        }
    }
    out
}

/// `CHG-CONFIG`: per set of changed sections no rule of `changes` explains, the switches that have
/// them (see [`unexplained`]).
pub fn uncovered(
    changes: &[Change],
    files: &[FileChange],
    catalog: &Catalog,
    oses: &BTreeMap<&str, Os>,
) -> Vec<Change> {
    let mut by_sections: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
    for (device, sections) in unexplained(changes, files, catalog, oses) {
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
                "config changed where no rule that fired there explains it, in {} on {}: read these switches' diffs",
                shown.join(", "),
                super::change::named(&names)
            );
            Change::per_switch(ChangeRule::Config, Impact::Unclassified, summary, &names)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{COMMENTS, section_name, sections_changed};
    use crate::kinds::Os;
    use crate::platform::Catalog;

    #[test]
    fn changed_lines_are_named_by_their_section() {
        let old = "hostname a\nlogging server 192.0.2.1 5\ninterface Ethernet1/1\n  mtu 9216\n  no shutdown\nend\n";
        let new = "hostname a\nlogging server 192.0.2.9 5\ninterface Ethernet1/1\n  mtu 9000\n  no shutdown\nend\n";
        assert_eq!(
            sections_changed("a.cfg", old, new),
            [
                "logging server 192.0.2.1 5",
                "logging server 192.0.2.9 5",
                "interface Ethernet1/1"
            ]
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

    #[test]
    fn banners_and_comments_are_sections_of_their_own() {
        let old =
            "! fabric a\nhostname a\nbanner motd #\nHello\nrouter bgp 1\n#\nntp server 192.0.2.1\n";
        let new =
            "! fabric b\nhostname a\nbanner motd #\nHallo\nrouter bgp 1\n#\nntp server 192.0.2.1\n";
        // The banner's text is the banner's, even a line that reads like a section.
        assert_eq!(
            sections_changed("a.cfg", old, new),
            [COMMENTS, "banner motd #"]
        );
        let new = old.replace("router bgp 1", "router bgp 2");
        assert_eq!(sections_changed("a.cfg", old, &new), ["banner motd #"]);
        assert_eq!(sections_changed("x/GENERATED.txt", "a", "b"), [COMMENTS]);
    }

    #[test]
    fn sections_are_named_by_their_owned_pattern() {
        let cat = Catalog::builtin();
        let name = |os, key| section_name(cat, Some(os), key);
        assert_eq!(
            name(Os::Nxos, "policy-map type queuing AIFAB-OUT"),
            "policy-map type queuing"
        );
        assert_eq!(
            name(Os::Nxos, "ntp server 192.0.2.1 use-vrf management"),
            "ntp server"
        );
        assert_eq!(
            name(
                Os::Eos,
                "username admin role network-admin secret sha512 $6$x"
            ),
            "username"
        );
        assert_eq!(
            name(Os::Eos, "interface Ethernet1/1"),
            "interface Ethernet*"
        );
        // No owned pattern: the first words, never a value.
        assert_eq!(name(Os::Nxos, "made-up thing 10.0.0.1"), "made-up thing");
        assert_eq!(name(Os::Sonic, "WRED_PROFILE"), "WRED_PROFILE");
    }

    /// Every built-in `change_sections:` key is a change rule, and every pattern names what the OS
    /// renders: an owned section pattern, a config_db table it owns, or `(comments)`.
    #[test]
    fn change_sections_name_rules_and_rendered_sections() {
        use crate::review::change::ChangeRule;
        let cat = Catalog::builtin();
        for (os, map) in &cat.change_sections {
            assert!(!map.is_empty(), "{os}");
            for (rule, patterns) in &map.0 {
                assert!(
                    ChangeRule::ALL.iter().any(|r| r.id() == rule),
                    "{os}: {rule} is no change rule"
                );
                for p in patterns {
                    let owned = cat.owned.get(os).is_some_and(|o| {
                        o.patterns().any(|q| crate::platform::owned::overlap(p, q))
                    });
                    let table = cat
                        .owned_tables
                        .get(os)
                        .is_some_and(|t| t.tables.iter().any(|t| t == p));
                    assert!(
                        owned || table || p == COMMENTS,
                        "{os} {rule}: `{p}` is no section {os} renders"
                    );
                }
            }
        }
    }
}
