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

/// Sections (first lines as `show running-config` prints them) a push must never remove, whatever a platform file says: the boot
/// variable, the control-plane policing profile and the VDC (issue: a replace without them leaves a
/// switch that rolls back, or boots to the loader prompt). A pattern that would own one is refused.
pub const NEVER_OWNED: [&str; 9] = [
    "boot nxos bootflash:/nxos64-cs.10.4.3.F.bin",
    "boot system flash:/EOS.swi",
    "copp profile strict",
    "class-map type control-plane match-any copp-system-p-class-critical",
    "policy-map type control-plane copp-system-p-policy-strict",
    "control-plane",
    "vdc switch id 1",
    "system control-plane",
    "policy-map type copp copp-system-policy",
];

/// The sections aifab owns on one OS.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnedSections {
    /// Sections aifab owns whether it renders them or not: a running section that matches and that
    /// the rendered config lacks is removed by the push (`username`, `interface Ethernet*`, ...).
    #[serde(default)]
    pub always: Vec<String>,
    /// Sections aifab owns only when the rendered config has one that matches the same pattern (the
    /// management port and VRF when the intent has `fabric.management`, VLANs on a rail-subnet
    /// leaf): otherwise the switch's own are kept.
    #[serde(default)]
    pub when_rendered: Vec<String>,
    /// Owned patterns whose sections are entries of a list (`feature`, `ntp server`, `username`): a
    /// site line may add one more (AIF-SITE-001 refuses a site line under any other owned pattern).
    #[serde(default)]
    pub site_may_add: Vec<String>,
}

impl OwnedSections {
    /// True when no pattern is given (an OS `aifab drift` does not assemble).
    pub fn is_empty(&self) -> bool {
        self.always.is_empty() && self.when_rendered.is_empty()
    }

    /// The patterns of both lists.
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.always
            .iter()
            .chain(&self.when_rendered)
            .map(String::as_str)
    }

    /// Adds a site's patterns (a site's policy can own more, never less).
    pub fn extend(&mut self, other: OwnedSections) {
        self.always.extend(other.always);
        self.when_rendered.extend(other.when_rendered);
        self.site_may_add.extend(other.site_may_add);
    }

    /// What is wrong with the patterns: empty or non-printable ones, and any that would own a section
    /// of [`NEVER_OWNED`].
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for p in self.patterns() {
            if p.trim().is_empty() || p != p.trim() || !p.chars().all(|c| (' '..='~').contains(&c))
            {
                out.push(format!(
                    "owned_sections: {p:?}: printable ASCII words without leading or trailing spaces"
                ));
                continue;
            }
            if let Some(line) = NEVER_OWNED.iter().find(|l| matches(p, l)) {
                out.push(format!(
                    "owned_sections: {p:?} would own `{line}`: a push never removes the boot variable, the CoPP profile or the VDC"
                ));
            }
        }
        out
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
    fn boot_copp_and_vdc_are_never_owned() {
        let bad = OwnedSections {
            always: vec!["boot".into(), "copp*".into(), "ok".into()],
            when_rendered: vec!["vdc".into(), " x".into()],
            site_may_add: Vec::new(),
        };
        let p = bad.problems();
        assert_eq!(p.len(), 4, "{p:?}");
    }
}
