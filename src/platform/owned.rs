//! The top-level sections of a running-config that aifab owns on one OS (`owned_sections:` in
//! `vendors/<os>.yaml`, docs/push.md#what-aifab-owns). A push replaces what aifab owns and keeps
//! everything else from the switch's running-config (boot variable, CoPP profile, VDC, console and VTY
//! lines, CloudVision agents, ...): `aifab drift` assembles the replace file from both.
//!
//! A pattern is matched against a section's first line (its whitespace collapsed): one ending in `*`
//! by the text before the star (`interface Ethernet*` matches `interface Ethernet1/1`), any other by
//! whole words (`feature` matches `feature bgp`, not `features`; `snmp-server user` matches
//! `snmp-server user monitor ...` only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The sections aifab owns on one OS.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnedSections {
    /// Sections aifab owns whether it renders them or not: a running section that matches and that
    /// the rendered config lacks is removed by the push (`username`, `router bgp`, ...).
    #[serde(default)]
    pub always: Vec<String>,
    /// Sections aifab owns only when the rendered config has one that matches the same pattern (the
    /// management port and VRF when the intent has `fabric.management`, VLANs on a rail-subnet
    /// leaf): otherwise the switch's own are kept.
    #[serde(default)]
    pub when_rendered: Vec<String>,
    /// Sections aifab owns one by one: a running section that matches is aifab's only when the
    /// rendered config has a section with the same first line, or, for a front-panel port, one of
    /// another name of the same port (a breakout parent or child). A physical port aifab does not
    /// render, a chassis supervisor's `Management1/1`, stays as the switch has it.
    #[serde(default)]
    pub each_rendered: Vec<String>,
    /// Owned patterns whose sections are entries of a list (`feature`, `ntp server`, `username`): a
    /// site line may add one more (AIF-SITE-001 refuses a site line under any other owned pattern).
    #[serde(default)]
    pub site_may_add: Vec<String>,
    /// Owned sections a kept section may need, by first line, each with the patterns of the lines
    /// (first lines or lines inside) that need it: NX-OS removes a feature's whole configuration with
    /// `no feature X`, so `feature interface-vlan` stays while a kept `interface Vlan10` is there.
    #[serde(default)]
    pub needed_by: BTreeMap<String, Vec<String>>,
    /// Patterns of sections no pattern of this OS may own, in a built-in file or a site's: what a
    /// replace without them breaks (the boot variable, CoPP, the VDC, the console and VTY lines, TCAM
    /// carving, the CloudVision agent, ...; docs/push.md#what-aifab-owns).
    #[serde(default)]
    pub never: Vec<String>,
}

impl OwnedSections {
    /// True when no pattern is given (an OS `aifab drift` does not assemble).
    pub fn is_empty(&self) -> bool {
        self.always.is_empty() && self.when_rendered.is_empty() && self.each_rendered.is_empty()
    }

    /// The patterns of the three owning lists.
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.always
            .iter()
            .chain(&self.when_rendered)
            .chain(&self.each_rendered)
            .map(String::as_str)
    }

    /// Adds a site's patterns (a site's policy can own more, never less; it can add to `never`).
    pub fn extend(&mut self, other: OwnedSections) {
        self.always.extend(other.always);
        self.when_rendered.extend(other.when_rendered);
        self.each_rendered.extend(other.each_rendered);
        self.site_may_add.extend(other.site_may_add);
        for (section, needs) in other.needed_by {
            self.needed_by.entry(section).or_default().extend(needs);
        }
        self.never.extend(other.never);
    }

    /// What is wrong with the patterns: empty or non-printable ones (in every list), and each owning
    /// pattern that could own a section of `never` (this file's and the given `more`, the built-in
    /// file's for a site file), as (pattern, problem).
    pub fn problems(&self, more: &[String]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let needs = self
            .needed_by
            .iter()
            .flat_map(|(k, v)| std::iter::once(k).chain(v));
        let every = self
            .patterns()
            .chain(self.site_may_add.iter().map(String::as_str))
            .chain(self.never.iter().map(String::as_str))
            .chain(needs.map(String::as_str));
        for p in every {
            if p.trim().is_empty() || p != p.trim() || !p.chars().all(|c| (' '..='~').contains(&c))
            {
                out.push((
                    p.to_string(),
                    format!("owned_sections: {p:?}: printable ASCII words without leading or trailing spaces"),
                ));
            }
        }
        let never: Vec<&String> = self.never.iter().chain(more).collect();
        for p in self.patterns() {
            if let Some(n) = never.iter().find(|n| overlap(p, n)) {
                out.push((
                    p.to_string(),
                    format!("owned_sections: {p:?} could own `{n}`, which `never` lists: a push keeps what the switch needs to boot, stay reachable and keep its hardware setup"),
                ));
            }
        }
        out
    }
}

/// The CONFIG_DB tables aifab owns on SONiC (`config_db:` in `vendors/sonic.yaml`): what `aifab drift`
/// compares of a running config_db (`show runningconfiguration all`); every other table is left
/// alone and named.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigDbOwnership {
    /// The tables the render writes (`PORT`, `BUFFER_PG`, ...), compared row by row and field by
    /// field.
    #[serde(default)]
    pub tables: Vec<String>,
    /// Per owned table, fields the switch fills into a row the render writes without them
    /// (`DEVICE_METADATA`: `mac`): not drift.
    #[serde(default)]
    pub switch_fields: BTreeMap<String, Vec<String>>,
}

impl ConfigDbOwnership {
    /// True when no table is owned (an OS without a config_db).
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Adds a site's tables and fields.
    pub fn extend(&mut self, other: ConfigDbOwnership) {
        self.tables.extend(other.tables);
        for (t, f) in other.switch_fields {
            self.switch_fields.entry(t).or_default().extend(f);
        }
    }
}

/// Whether some first line matches both patterns `a` and `b` (see [`matches`]).
pub fn overlap(a: &str, b: &str) -> bool {
    let word_under =
        |w: &str, of: &str| w == of || w.strip_prefix(of).is_some_and(|r| r.starts_with(' '));
    match (a.strip_suffix('*'), b.strip_suffix('*')) {
        (Some(x), Some(y)) => x.starts_with(y) || y.starts_with(x),
        (Some(x), None) => b.starts_with(x) || word_under(x, b),
        (None, Some(y)) => a.starts_with(y) || word_under(y, a),
        (None, None) => word_under(a, b) || word_under(b, a),
    }
}

/// Whether pattern `p` matches the first line `top` of a section (see the module doc).
pub fn matches(p: &str, top: &str) -> bool {
    match p.strip_suffix('*') {
        Some(prefix) => top.starts_with(prefix),
        None => top == p || top.strip_prefix(p).is_some_and(|r| r.starts_with(' ')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_words_or_prefixes() {
        assert!(matches("feature", "feature bgp"));
        assert!(!matches("feature", "features"));
        assert!(matches("snmp-server user", "snmp-server user monitor x"));
        assert!(!matches("snmp-server user", "snmp-server community x"));
        assert!(matches("interface Ethernet*", "interface Ethernet1/1"));
        assert!(!matches("interface Ethernet*", "interface mgmt0"));
        assert!(matches("hostname", "hostname"));
    }

    #[test]
    fn patterns_overlap_when_one_line_could_match_both() {
        for (a, b) in [
            ("boot", "boot"),
            ("boot nxos", "boot"),
            ("boot*", "boot nxos"),
            ("b*", "boot"),
            ("hardware access-list tcam", "hardware*"),
            ("interface Ethernet*", "interface Eth*"),
            ("line", "line vty"),
        ] {
            assert!(overlap(a, b) && overlap(b, a), "{a} / {b}");
        }
        for (a, b) in [
            ("hardware profile dlb", "hardware access-list"),
            ("bootx", "boot"),
            ("interface Ethernet*", "interface Management1/1"),
            ("system qos", "system control-plane"),
            ("line*", "lin"),
        ] {
            assert!(!overlap(a, b) && !overlap(b, a), "{a} / {b}");
        }
    }

    #[test]
    fn a_pattern_that_could_own_a_never_section_is_a_problem() {
        let bad = OwnedSections {
            always: vec!["boot*".into(), "copp".into(), "hostname".into()],
            when_rendered: vec!["vdc".into(), " x".into()],
            each_rendered: vec!["line vty".into()],
            never: vec!["boot".into(), "copp profile".into(), "vdc".into()],
            ..OwnedSections::default()
        };
        let p: Vec<String> = bad
            .problems(&["line".to_string()])
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(p, [" x", "boot*", "copp", "vdc", "line vty"], "{p:?}");
        let ok = OwnedSections {
            always: vec!["hardware profile dlb".into()],
            never: vec!["hardware access-list".into()],
            ..OwnedSections::default()
        };
        assert!(ok.problems(&[]).is_empty());
    }
}
