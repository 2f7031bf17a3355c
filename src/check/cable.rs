//! Cable rules (`AIF-CAB-*`): cable lengths each platform has PFC headroom numbers for.

use super::platforms;
use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::platform::Catalog;
use crate::rules::Rule;

/// Adds the findings of the cable-length rules, per cable tier and platform.
pub(super) fn rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
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
        for (pname, _, p, proles, _) in platforms(intent, catalog) {
            let touches = proles.is_empty() || proles.iter().any(|r| roles.contains(r));
            if !touches {
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
                    out.push(
                        Finding::new(Rule::CableBeyondHeadroomTable, format!("{name} cables of {len} are longer than the {max} m row of {pname}'s PG headroom table"))
                            .at(format!("/fabric/topology/cable_length/{name}"))
                            .hint("buffermgrd would find no lossless profile: shorten the cable or extend the SKU's pg_profile_lookup.ini"),
                    );
                }
            }
        }
    }
}
