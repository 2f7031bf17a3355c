//! Which config sections each change-report rule explains on one OS (`change_sections:` in
//! `vendors/<os>.yaml`, docs/change-report.md#chg-config): `CHG-ECN` explains `policy-map type
//! queuing` on NX-OS, `qos profile` on EOS, `WRED_PROFILE` on SONiC. `CHG-CONFIG` names, per switch,
//! every changed section no rule that fired on that switch explains.
//!
//! A pattern is matched as an owned-section pattern is ([`super::owned::matches`]) against a CLI
//! section's first line (`policy-map type queuing` matches `policy-map type queuing AIFAB-OUT`), a
//! config_db table's name (`WRED_PROFILE`), or a pseudo-section: `(comments)` (comment lines, and a
//! SONiC switch's GENERATED.txt) and `(top of the file)`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The sections each change rule explains on one OS, by rule id (`CHG-ECN`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ChangeSections(pub BTreeMap<String, Vec<String>>);

impl ChangeSections {
    /// True when no rule explains anything here (an extension file without the key).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether rule `rule` (an id) explains the section whose first line or table is `key`.
    pub fn explains(&self, rule: &str, key: &str) -> bool {
        self.0
            .get(rule)
            .is_some_and(|ps| ps.iter().any(|p| super::owned::matches(p, key)))
    }

    /// Adds a site's patterns.
    pub fn extend(&mut self, other: ChangeSections) {
        for (rule, patterns) in other.0 {
            self.0.entry(rule).or_default().extend(patterns);
        }
    }

    /// What is wrong: a rule id that is not `CHG-` and upper-case words, or an empty or non-printable
    /// pattern.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (rule, patterns) in &self.0 {
            let id_ok = rule.strip_prefix("CHG-").is_some_and(|r| {
                !r.is_empty() && r.chars().all(|c| c.is_ascii_uppercase() || c == '-')
            });
            if !id_ok {
                out.push(format!(
                    "change_sections: {rule:?} is not a change rule id (CHG-...)"
                ));
            }
            for p in patterns {
                if p.trim().is_empty()
                    || p != p.trim()
                    || !p.chars().all(|c| (' '..='~').contains(&c))
                {
                    out.push(format!(
                        "change_sections: {rule}: {p:?}: printable ASCII words without leading or trailing spaces"
                    ));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::ChangeSections;

    #[test]
    fn a_rule_explains_the_sections_its_patterns_match() {
        let map = ChangeSections(
            [
                (
                    "CHG-ECN".to_string(),
                    vec!["policy-map type queuing".to_string()],
                ),
                ("CHG-LOSSLESS".to_string(), vec!["BUFFER_*".to_string()]),
            ]
            .into(),
        );
        assert!(map.explains("CHG-ECN", "policy-map type queuing AIFAB-OUT"));
        assert!(!map.explains("CHG-ECN", "policy-map type network-qos AIFAB"));
        assert!(!map.explains("CHG-DSCP", "policy-map type queuing AIFAB-OUT"));
        assert!(map.explains("CHG-LOSSLESS", "BUFFER_PG"));
        assert!(!map.explains("CHG-LOSSLESS", "PORT_QOS_MAP"));
        assert!(map.problems().is_empty());
        let bad = ChangeSections([("ECN".to_string(), vec![" x".to_string()])].into());
        assert_eq!(bad.problems().len(), 2);
    }
}
