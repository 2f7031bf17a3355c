//! AIF-BGP-008: on SONiC, BGP `maximum-paths` is not the intent's: SONiC's own bgpd template writes the
//! release's `constants.yml` value (64 on 202405, 514 from 202411), and config_db cannot change it in
//! the routing mode aifab renders (docs/platforms/sonic.md#bgp). A SONiC switch whose ECMP width is above
//! it installs only that many paths, and the other links carry no traffic while BGP shows them up.
//!
//! The ECMP width of a role is the most equal-cost next hops one destination has from it: a leaf's
//! uplinks (every remote prefix is behind all of them), a spine's uplinks (three-tier) or its parallel
//! links to one leaf, a super-spine's links into one zone (every spine of its plane there, each with
//! its links). A device without `os_version` is checked against the oldest release the SKU's facts
//! give (202405): the release aifab assumes wherever it must pick one.

use super::Uses;
use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::place;
use crate::platform::Os;
use crate::rules::Rule;
use crate::shape::Shape;
use std::collections::BTreeMap;

/// The ECMP width of each role in `s`: (role, width, what the paths are).
fn widths(s: &Shape) -> Vec<(Role, u32, &'static str)> {
    let mut out = vec![(Role::Leaf, s.leaf_up, "uplinks of each leaf")];
    if s.three_tier {
        out.push((Role::Spine, s.spine_up, "uplinks of each spine"));
        let per_zone = s.super_down / s.zones.max(1);
        out.push((
            Role::SuperSpine,
            per_zone,
            "links of each super-spine into one zone",
        ));
    }
    if s.links_per_spine > 0 {
        out.push((
            Role::Spine,
            s.links_per_spine,
            "parallel links of each spine to one leaf",
        ));
    }
    out
}

/// One group of devices that share a finding: where the release is set (or the platform chosen), the
/// platform, the role's width, the release and its paths.
type Key = (String, String, u32, &'static str, Option<String>, u32);

/// AIF-BGP-008 for every SONiC platform in use.
pub(super) fn rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    let Ok(shape) = crate::shape::shape(intent) else {
        return;
    };
    let widths = widths(&shape);
    let mut over: BTreeMap<Key, (usize, Option<(String, u32)>)> = BTreeMap::new();
    for u in uses.iter().filter(|u| u.os == Os::Sonic) {
        let Some(sku) = u.profile.sonic.as_ref() else {
            continue;
        };
        let Some(oldest) = sku.bgp_max_paths.first() else {
            continue;
        };
        for d in &u.devices {
            let (text, origin) = place::os_version(intent, *d);
            let release = text.unwrap_or(&oldest.release);
            let Some(paths) = sku.max_paths(release) else {
                continue; // not a release: AIF-OS-001 says so
            };
            for &(_, width, what) in widths.iter().filter(|w| w.0 == d.role) {
                if width <= paths {
                    continue;
                }
                let at = match text {
                    Some(_) => origin.pointer(),
                    None => u.origin.pointer(),
                };
                // The first later release whose paths cover the width, for the hint.
                let later = sku
                    .bgp_max_paths
                    .iter()
                    .find(|m| m.paths >= width)
                    .map(|m| (m.release.clone(), m.paths));
                let key = (
                    at,
                    u.name.to_string(),
                    width,
                    what,
                    text.map(str::to_string),
                    paths,
                );
                over.entry(key).or_insert((0, later)).0 += 1;
            }
        }
    }
    for ((at, platform, width, what, text, paths), (n, later)) in over {
        let (release, assumed) = match &text {
            Some(t) => (t.clone(), ""),
            None => (
                oldest_release(uses, &platform),
                " (no `os_version` is set, so aifab assumes the oldest release it supports)",
            ),
        };
        let fix = match later {
            Some((r, p)) => format!(
                "set `os_version` to {r} or later if these switches run it (maximum-paths {p}), or give the role at most {paths} equal-cost links"
            ),
            None => format!("give the role at most {paths} equal-cost links"),
        };
        out.push(
            Finding::new(
                Rule::SonicMaxPathsBelowEcmp,
                format!(
                    "the {width} {what} on {platform} ({}) exceed the BGP maximum-paths of SONiC {release}, {paths}{assumed}: BGP installs {paths} paths and {} links carry no traffic",
                    devices(n),
                    width - paths
                ),
            )
            .at(at)
            .hint(format!(
                "{fix}; SONiC takes maximum-paths from its constants.yml, not from config_db (docs/platforms/sonic.md#bgp)"
            )),
        );
    }
}

/// The oldest release of a platform's `bgp_max_paths`, for messages.
fn oldest_release(uses: &Uses, platform: &str) -> String {
    uses.iter()
        .find(|u| u.name == platform)
        .and_then(|u| u.profile.sonic.as_ref())
        .and_then(|s| s.bgp_max_paths.first())
        .map_or_else(String::new, |m| m.release.clone())
}

/// `1 device`, `4 devices`.
fn devices(n: usize) -> String {
    if n == 1 {
        "1 device".into()
    } else {
        format!("{n} devices")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Override;
    use crate::platform::Catalog;

    fn intent(path: &str) -> Intent {
        let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).expect("read intent");
        serde_norway::from_str(&text).expect("parse intent")
    }

    fn findings(i: &Intent) -> Vec<Finding> {
        super::super::run_unlocated(i, Catalog::builtin())
            .into_iter()
            .filter(|f| f.code == Rule::SonicMaxPathsBelowEcmp)
            .collect()
    }

    #[test]
    fn every_role_of_a_three_tier_fabric_has_its_width() {
        let s = crate::shape::shape(&intent("intents/three-tier-small.yaml")).expect("shape");
        let w = widths(&s);
        let of =
            |role: Role| -> Vec<u32> { w.iter().filter(|x| x.0 == role).map(|x| x.1).collect() };
        assert_eq!(of(Role::Leaf), [s.leaf_up]);
        assert_eq!(of(Role::Spine), [s.spine_up, s.links_per_spine]);
        let into_zone = (s.spines_per_zone / s.planes) * s.links_per_super;
        assert_eq!(of(Role::SuperSpine), [into_zone]);
        assert!(into_zone > 0);
    }

    #[test]
    fn the_release_of_each_device_sets_its_limit() {
        // 96 uplinks per SONiC leaf: above 202405's 64, within 514 from 202411.
        let mut i = intent("tests/bad_checks/aif-bgp-008.yaml");
        let f = findings(&i);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("(4 devices)"), "{}", f[0].message);
        i.fabric.topology.leaf.os_version = Some("202411".into());
        assert!(findings(&i).is_empty());
        // One leaf moved to 202405 by an override: only it is refused, at the override.
        i.overrides = vec![Override {
            matches: "g1-r1-leaf".into(),
            platform: None,
            dlb: None,
            roce_dest_qp: None,
            management: None,
            os_version: Some("202405".into()),
            acknowledge: Vec::new(),
            site_lines: Vec::new(),
        }];
        let f = findings(&i);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("(1 device)"), "{}", f[0].message);
        assert_eq!(f[0].pointer.as_deref(), Some("/overrides/0/os_version"));
        // Without any os_version the oldest release is assumed, reported at the platform setting.
        i.overrides.clear();
        i.fabric.topology.leaf.os_version = None;
        let f = findings(&i);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains("assumes the oldest"),
            "{}",
            f[0].message
        );
        assert_eq!(
            f[0].pointer.as_deref(),
            Some("/fabric/topology/leaf/platform")
        );
    }
}
