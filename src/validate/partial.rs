//! The schema-valid parts of an intent that failed the schema, so the semantic rules can still run on
//! them ("every problem at once").
//!
//! The intent is cut into [`SECTIONS`]. A section is *dirty* when a load or schema finding points at it
//! or inside it; every dirty section is replaced by the same section of a small built-in intent that is
//! valid ([`STUB`]), only so the whole deserializes. A rule family then runs only when every section it
//! reads is clean ([`Partial::clean`]), so no rule ever reads a stub or data that failed the schema. When
//! a finding points outside every section (a missing top-level key, an unknown key under `fabric`, a
//! finding without a pointer) nothing is sound to run, and there is no partial intent.

use crate::diag::{Finding, Source};
use crate::intent::Intent;
use crate::load;
use serde_json::Value;

/// The sections a finding can make dirty: JSON pointers, none inside another.
pub const SECTIONS: &[&str] = &[
    "/version",
    "/fabric/name",
    "/fabric/topology",
    "/fabric/addressing",
    "/fabric/bgp",
    "/fabric/mtu",
    "/fabric/management",
    "/qos",
    "/load_balancing",
    "/overrides",
    "/baseline",
    "/hosts",
    "/acknowledge",
];

/// The sections whose stand-in asks for nothing the other sections depend on (no device, port,
/// address, ASN or platform; the stub's QoS has one lossy class): with only these dirty, placement and
/// the compiler can run on the partial intent, and what they find outside the dirty sections holds for
/// the intent as written. `topology`, `addressing`, `bgp`, `mtu` and `overrides` shape the devices and
/// their numbers, so a stand-in for them would make findings elsewhere up; so does `acknowledge`, whose
/// stand-in (none) would turn every acknowledged rule into an error.
pub const NEUTRAL: &[&str] = &[
    "/version",
    "/fabric/name",
    "/fabric/management",
    "/qos",
    "/load_balancing",
    "/baseline",
    "/hosts",
];

/// A valid intent whose sections stand in for dirty ones (never read by a rule).
const STUB: &str = r#"
version: 1
fabric:
  name: stub
  topology:
    kind: rail-optimized
    servers: 8
    rails: 8
    nic_speed: 400G
    servers_per_group: 8
    leaf: { platform: nxos/n9k-c9364d-gx2a, hostname: "l{group}-{rail}", uplink_speed: 400G }
    spine: { platform: nxos/n9k-c9364d-gx2a, hostname: "s{index}", count: 8 }
    cable_length: { server: 3m, leaf_spine: 50m }
  addressing: { loopbacks: 10.0.0.0/24, fabric_links: 10.1.0.0/24, server_links: 10.2.0.0/24 }
  bgp: { spine_asn: 65000, leaf_asn: 65100-65199 }
  mtu: 9214
qos:
  classes:
    default: { bandwidth: 100% }
  pfc_watchdog: { detect: 200ms, restore: 1s, action: drop }
"#;

/// An intent whose dirty sections are stand-ins, and which sections are clean.
pub struct Partial {
    /// The intent: clean sections as written, dirty ones from [`STUB`].
    pub intent: Intent,
    dirty: Vec<&'static str>,
}

impl Partial {
    /// Whether the section at `pointer` (one of [`SECTIONS`]) passed the schema.
    pub fn clean(&self, pointer: &str) -> bool {
        !self.dirty.contains(&pointer)
    }

    /// The sections that failed the schema (stand-ins in [`Partial::intent`]).
    pub fn dirty(&self) -> &[&'static str] {
        &self.dirty
    }

    /// Whether every dirty section is [`NEUTRAL`]: placement and the compiler can run.
    pub fn compilable(&self) -> bool {
        self.dirty.iter().all(|d| NEUTRAL.contains(d))
    }
}

/// The section of [`SECTIONS`] that `pointer` lies in.
pub fn section_of(pointer: &str) -> Option<&'static str> {
    SECTIONS.iter().copied().find(|s| within(pointer, s))
}

/// Whether `pointer` is `section` or inside it.
fn within(pointer: &str, section: &str) -> bool {
    pointer == section
        || pointer
            .strip_prefix(section)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The partial intent of a loaded `value` that has these load and schema `findings`, when one is sound.
pub(super) fn partial(value: &Value, findings: &[Finding]) -> Option<Partial> {
    let mut dirty: Vec<&'static str> = Vec::new();
    for f in findings {
        let p = f.pointer.as_deref()?;
        let section = section_of(p)?;
        if !dirty.contains(&section) {
            dirty.push(section);
        }
    }
    let stub = load::load(&Source::new("stub.yaml", STUB)).ok()?.value;
    let mut value = value.clone();
    for section in &dirty {
        replace(&mut value, section, stub.pointer(section).cloned())?;
    }
    let intent = serde_json::from_value(value).ok()?;
    Some(Partial { intent, dirty })
}

/// Replaces `section` of `value` by the stub's (removes it where the stub has none); None when the
/// section's parent is not an object.
pub(super) fn stand_in(value: &mut Value, section: &str) -> Option<()> {
    let stub = load::load(&Source::new("stub.yaml", STUB)).ok()?.value;
    replace(value, section, stub.pointer(section).cloned())
}

/// Sets (or removes, for `None`) the member at `pointer` of an object.
fn replace(value: &mut Value, pointer: &str, with: Option<Value>) -> Option<()> {
    let (parent, key) = pointer.rsplit_once('/')?;
    let obj = value.pointer_mut(parent)?.as_object_mut()?;
    match with {
        Some(v) => obj.insert(key.to_string(), v),
        None => obj.remove(key),
    };
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stub_is_a_valid_intent() {
        let doc = load::load(&Source::new("stub.yaml", STUB)).expect("stub loads");
        let spans = doc.spans;
        assert!(
            super::super::validate_value(&doc.value, &spans, &Source::new("s", STUB)).is_empty()
        );
        assert!(serde_json::from_value::<Intent>(doc.value).is_ok());
    }

    #[test]
    fn a_finding_outside_every_section_gives_nothing() {
        let doc = load::load(&Source::new("stub.yaml", STUB)).expect("stub loads");
        let f = Finding::new(crate::rules::Rule::SchemaMissingKey, "x").at("/fabric");
        assert!(partial(&doc.value, &[f]).is_none());
        let f = Finding::new(crate::rules::Rule::SchemaWrongType, "x").at("/qos/classes/default");
        let p = partial(&doc.value, &[f]).expect("qos is a section");
        assert!(!p.clean("/qos") && p.clean("/fabric/bgp"));
    }
}
