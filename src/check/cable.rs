//! Cable rules (`AIF-CAB-*`): cable lengths each platform has PFC headroom numbers for.

use super::Uses;
use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::platform::BufferModel;
use crate::rules::Rule;

/// Adds the findings of the cable-length rules, per cable tier and each platform with a device at either
/// end of that tier's cables.
pub(super) fn rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    let c = &intent.fabric.topology.cable_length;
    let tiers = [
        ("server", Some(c.server), [Role::Leaf, Role::Leaf]),
        ("leaf_spine", Some(c.leaf_spine), [Role::Leaf, Role::Spine]),
        (
            "spine_super_spine",
            c.spine_super_spine,
            [Role::Spine, Role::SuperSpine],
        ),
    ];
    for (name, len, roles) in tiers {
        let Some(len) = len else { continue };
        for u in uses {
            let (pname, p) = (u.name, u.profile);
            if !u.roles.iter().any(|r| roles.contains(r)) {
                continue;
            }
            if let Some(limit) = p.pause_buffer_above_m.filter(|l| len.metres() > *l) {
                out.push(
                    Finding::new(Rule::CableNeedsPauseBuffer, format!("{name} cables of {len} on {pname}: above {limit} m the platform needs PFC pause-buffer (headroom) settings, and no reference gives aifab the numbers"))
                        .at(format!("/fabric/topology/cable_length/{name}"))
                        .hint(format!("keep these links at {limit} m or less, or put a platform with sourced headroom numbers there")),
                );
            }
            if let Some(b) = p.sonic.as_ref().and_then(|s| s.buffers.as_ref()) {
                let max = b.pg_lookup.iter().map(|r| r.cable).max().unwrap_or(0);
                if len.metres() > max {
                    // The dynamic model computes any length, but nothing sourced says the headroom of
                    // a longer cable fits the port: the SKU's own table is the bound.
                    let hint = match b.model {
                        BufferModel::Traditional => {
                            "buffermgrd would find no lossless profile: shorten the cable or extend the SKU's pg_profile_lookup.ini"
                        }
                        BufferModel::Dynamic => {
                            "buffermgrd (dynamic buffer model) would compute a headroom no source says fits the port: shorten the cable to the SKU's table"
                        }
                    };
                    out.push(
                        Finding::new(Rule::CableBeyondHeadroomTable, format!("{name} cables of {len} are longer than the {max} m row of {pname}'s PG headroom table"))
                            .at(format!("/fabric/topology/cable_length/{name}"))
                            .hint(hint),
                    );
                }
            }
        }
    }
}
