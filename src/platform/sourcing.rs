//! Every fact a profile states has a public source: the facts are read off the [`Platform`] type (each
//! field it serializes), so a new fact cannot be added without a `sources` entry, and each entry cites
//! a key of the file's `references`.

use super::types::Platform;
use std::collections::BTreeMap;

/// Fields of a platform that describe it rather than state a fact a source must back: its name and
/// ASIC, the sources themselves, and the SONiC SKU's identity and naming, which come with the port table
/// (`sonic.port_table`'s source covers them). Every other field needs a `sources` entry when present.
const NOT_FACTS: [&str; 6] = [
    "description",
    "asic",
    "sources",
    "sonic.platform",
    "sonic.default_brkout_mode",
    "sonic.child_alias",
];
impl Platform {
    /// The facts this platform states, each of which needs a source: every field it serializes (a field
    /// left at its default is not stated), read off the type itself so that a new fact cannot be added
    /// without a source. `ports.breakout` is the fact `breakout`, and each `sonic.<field>` is its own fact;
    /// [`NOT_FACTS`] lists the few fields that describe rather than claim.
    fn sourced_facts(&self) -> Vec<String> {
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self) else {
            return Vec::new();
        };
        let mut need = Vec::new();
        for (name, value) in &fields {
            match (name.as_str(), value) {
                ("sonic", serde_json::Value::Object(sonic)) => need.extend(
                    sonic
                        .keys()
                        .map(|k| format!("sonic.{k}"))
                        .filter(|f| !NOT_FACTS.contains(&f.as_str())),
                ),
                ("ports", serde_json::Value::Object(ports)) => {
                    need.push("ports".to_string());
                    if ports.contains_key("breakout") {
                        need.push("breakout".to_string());
                    }
                }
                (name, _) if !NOT_FACTS.contains(&name) => need.push(name.to_string()),
                _ => {}
            }
        }
        need
    }

    /// A stated fact without a `sources` entry, or whose source cites a reference the file lacks.
    pub(super) fn source_problems(&self, references: &BTreeMap<String, String>) -> Vec<String> {
        let mut out = Vec::new();
        for fact in self.sourced_facts() {
            match self.sources.get(&fact) {
                None => out.push(format!("fact `{fact}` has no entry in `sources`")),
                Some(src) => {
                    let cited = src.split_whitespace().next().unwrap_or("");
                    if !references.contains_key(cited) {
                        out.push(format!(
                            "source of `{fact}` cites `{cited}`, which is not in `references`"
                        ));
                    }
                }
            }
        }
        out
    }
}
