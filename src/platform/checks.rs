//! A profile's problems: a fact without a source ([`super::sourcing`]), and values no config can carry
//! (port counts, naming patterns, breakout modes, keywords printed into configs, inconsistent DLB and
//! QP-hash facts). The catalog refuses a profile with any.

use super::release::{Feature, Release};
use super::types::Platform;
use crate::kinds::{Os, QpHashMethod, Support};
use std::collections::BTreeMap;

impl Platform {
    /// Consistency problems of this profile (missing sources, impossible values).
    pub fn problems(&self, references: &BTreeMap<String, String>) -> Vec<String> {
        let mut out = self.source_problems(references);
        out.extend(self.port_problems());
        out.extend(self.breakout_problems());
        out.extend(self.value_problems());
        out
    }

    /// The minimum release of each feature this profile states: `dlb.min_os`, `qp_hash.min_os`,
    /// `min_os`.
    pub fn release_minimums(&self) -> Vec<(Feature, &str)> {
        let mut out = Vec::new();
        if let Some(v) = &self.dlb.min_os {
            out.push((Feature::Dlb, v.as_str()));
        }
        if let Some(v) = &self.qp_hash.min_os {
            out.push((Feature::QpHash, v.as_str()));
        }
        out.extend(self.min_os.iter().map(|(f, v)| (*f, v.as_str())));
        out
    }

    /// A minimum release that is not a release of `os`.
    pub fn release_problems(&self, os: Os) -> Vec<String> {
        self.release_minimums()
            .into_iter()
            .filter_map(|(f, v)| {
                Release::parse(os, v)
                    .err()
                    .map(|e| format!("{} min_os: {e}", f.label()))
            })
            .collect()
    }

    /// Port count, speeds and interface naming (SONiC's names come from its port table instead).
    fn port_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.ports.count == 0 || self.ports.speeds.is_empty() {
            out.push("ports need a count and at least one speed".into());
        }
        if let Some(c) = self
            .ports
            .naming
            .chars()
            .chain(self.ports.child_naming.chars())
            .find(|c| !(c.is_ascii_alphanumeric() || "/{}_-".contains(*c)))
        {
            // Interface names go into configs unescaped: letters, digits and `/_-` only.
            out.push(format!(
                "naming contains {c:?}: only letters, digits, `/`, `_`, `-` and placeholders"
            ));
        }
        if let Some(s) = &self.sonic {
            if !self.ports.naming.is_empty() {
                out.push("SONiC names come from sonic.port_table: drop `ports.naming`".into());
            }
            out.extend(s.problems(self.ports.count, &self.ports.speeds));
        } else if self.ports.naming.is_empty() {
            out.push("ports need a `naming` pattern".into());
        }
        if self.ports.naming.contains("{card}") && self.ports.ports_per_card.is_none() {
            out.push("naming uses {card} but ports_per_card is missing".into());
        }
        out
    }

    /// Keywords printed into configs, the ECN unit, and the DLB and QP-hash facts' consistency.
    fn value_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        // Keywords printed into configs: lowercase words and `-` only (no separator or line break).
        let keywords = [
            ("ecn_unit.keyword", Some(&self.ecn_unit.keyword)),
            ("queue_keyword", self.queue_keyword.as_ref()),
        ];
        for (fact, k) in keywords.into_iter().filter_map(|(f, k)| k.map(|k| (f, k))) {
            if k.is_empty() || !k.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                out.push(format!("{fact} {k:?}: only lowercase letters and `-`"));
            }
        }
        let m = &self.management_interface;
        if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphanumeric() || c == '/') {
            out.push(format!(
                "management_interface {m:?}: an interface name, letters, digits and `/` only"
            ));
        }
        if self.ecn_unit.bytes == 0 {
            out.push("ecn_unit.bytes must be at least 1".into());
        }
        if self.dlb.support == Support::No && !self.dlb.modes.is_empty() {
            out.push("dlb lists modes but support is `no`".into());
        }
        if (self.qp_hash.method == QpHashMethod::None) != (self.qp_hash.support == Support::No) {
            out.push("qp_hash: method `none` goes with support `no`, and only with it".into());
        }
        out
    }

    /// Problems of the breakout facts: modes that do not divide the lanes or the native speed, keywords
    /// that could break a config line, a missing child naming pattern.
    fn breakout_problems(&self) -> Vec<String> {
        let p = &self.ports;
        let mut out = Vec::new();
        if p.breakout.is_empty() {
            return out;
        }
        let native = p.speeds.first().map_or(0, |s| s.gbps());
        let lanes = p.lanes.unwrap_or(0);
        if lanes == 0 {
            out.push("breakout needs `ports.lanes`".into());
        }
        if self.sonic.is_none()
            && !p.child_naming.contains("{child}")
            && !p.child_naming.contains("{lane}")
        {
            out.push("breakout needs a `child_naming` pattern with {child} or {lane}".into());
        }
        if let Some(sku) = &self.sonic {
            if sku
                .default_brkout_mode
                .as_deref()
                .is_none_or(|m| !keyword_ok(m))
            {
                out.push("breakout needs `sonic.default_brkout_mode` (hwsku.json), letters, digits, `-[],`".into());
            }
            let alias_ok = |c: char| c.is_ascii_alphanumeric() || "{}/_-".contains(c);
            if sku.child_alias.is_empty() || !sku.child_alias.chars().all(alias_ok) {
                out.push(
                    "breakout needs `sonic.child_alias`: letters, digits, `/_-` and placeholders"
                        .into(),
                );
            }
            for b in &p.breakout {
                let bad = (1..=p.count).find(|&port| {
                    (1..=b.mode.children).any(|c| sku.child(port, c, b.mode.children).is_none())
                });
                if let Some(port) = bad {
                    out.push(format!(
                        "breakout {}: port {port}'s row does not split into its ports",
                        b.mode
                    ));
                }
            }
        }
        for b in &p.breakout {
            let m = b.mode;
            if m.children < 2
                || m.children * m.speed.gbps() > native
                || (lanes > 0 && !lanes.is_multiple_of(m.children))
            {
                out.push(format!(
                    "breakout {m}: needs 2+ ports that divide the {lanes} lanes and fit the native {native}G"
                ));
            }
            if !keyword_ok(&b.keyword) {
                out.push(format!(
                    "breakout {m}: keyword {:?}: only letters, digits and `-[],`",
                    b.keyword
                ));
            }
        }
        out
    }
}

/// Whether a breakout keyword is safe in a config line: letters, digits and `-[],` (SONiC modes such
/// as `2x200G[100G,40G]`), at most 64 characters (sonic-breakout_cfg.yang).
fn keyword_ok(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 64
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-[],".contains(c))
}
