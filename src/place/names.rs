//! Device names: each role's hostname pattern expanded for every device (`AIF-NAME-001`), and no name
//! twice (`AIF-NAME-002`).

use super::Slot;
use crate::diag::Finding;
use crate::intent::{Role, Topology};
use crate::rules::Rule;
use crate::shape::pattern;
use std::collections::HashMap;

/// The hostname pattern of a role.
fn pattern_of(t: &Topology, role: Role) -> &str {
    match role {
        Role::Leaf => &t.leaf.hostname,
        Role::Spine => &t.spine.hostname,
        Role::SuperSpine => t.super_spine.as_ref().map_or("", |s| s.hostname.as_str()),
    }
}

/// The pointer of a role's hostname pattern.
fn pattern_ptr(role: Role) -> &'static str {
    match role {
        Role::Leaf => "/fabric/topology/leaf/hostname",
        Role::Spine => "/fabric/topology/spine/hostname",
        Role::SuperSpine => "/fabric/topology/super_spine/hostname",
    }
}

/// The placeholder values of one device's hostname pattern.
fn values(slot: &Slot, supers_per_plane: u32) -> Vec<(&'static str, u32)> {
    match slot.role {
        Role::Leaf => {
            let mut v = vec![
                ("group", slot.group.unwrap_or(0)),
                ("rack", slot.group.unwrap_or(0)),
                ("zone", slot.zone.unwrap_or(1)),
                ("index", slot.index),
                ("side", slot.side.unwrap_or(1)),
                ("plane", slot.plane.unwrap_or(1)),
            ];
            // Rack leaves take every rail: `{rail}` is unknown in their pattern.
            if let Some(r) = slot.rail {
                v.insert(1, ("rail", r));
            }
            v
        }
        Role::Spine => vec![
            ("index", slot.index),
            ("zone", slot.zone.unwrap_or(1)),
            ("plane", slot.plane.unwrap_or(1)),
        ],
        Role::SuperSpine => vec![
            ("index", slot.index),
            ("plane", (slot.index - 1) / supers_per_plane.max(1) + 1),
        ],
    }
}

/// Every device's hostname, in slot order; an empty name where the pattern fails, with one finding per
/// role.
pub(super) fn hostnames(
    t: &Topology,
    slots: &[Slot],
    supers_per_plane: u32,
    errs: &mut Vec<Finding>,
) -> Vec<String> {
    let mut failed = [false; 3];
    slots
        .iter()
        .map(|slot| {
            let name = pattern::expand(pattern_of(t, slot.role), &values(slot, supers_per_plane)).and_then(|h| {
                pattern::check_hostname(&h)?;
                Ok(h)
            });
            name.unwrap_or_else(|e| {
                if !std::mem::replace(&mut failed[slot.role as usize], true) {
                    errs.push(
                        Finding::new(Rule::HostnameNotLabel, e.to_string())
                            .at(pattern_ptr(slot.role))
                            .hint("hostnames are RFC 1123 labels: letters, digits and `-`, at most 63 characters"),
                    );
                }
                String::new()
            })
        })
        .collect()
}

/// The first hostname generated twice (case-insensitive: DNS names and file names on some file systems
/// ignore case), as a finding.
pub(super) fn duplicates(devices: &[(&str, Role)]) -> Option<Finding> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, (name, role)) in devices.iter().enumerate() {
        let Some(first) = seen.insert(name.to_ascii_lowercase(), i) else {
            continue;
        };
        return Some(
            Finding::new(
                Rule::HostnameDuplicate,
                format!(
                    "hostname `{name}` is generated twice ({} and {role})",
                    devices[first].1
                ),
            )
            .at(pattern_ptr(*role))
            .hint(match role {
                Role::Leaf => "include {group} and {rail} (or {index}) in the leaf pattern; {side} or {plane} when a NIC's two ports land on two leaves; {rack} for rack leaves",
                Role::Spine => "include {index}, and {zone} in a three-tier fabric",
                Role::SuperSpine => "include {index} in the super-spine pattern",
            }),
        );
    }
    None
}
