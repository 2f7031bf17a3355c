//! Fabric arithmetic: how many devices of each role, how many ports each uses, and whether the chosen
//! platforms can carry it. Everything later (ports, links, addresses) follows from the [`Shape`].

use crate::diag::Finding;
use crate::intent::{Intent, TopologyKind};
use crate::rules::Rule;
use crate::units::{Ratio, Speed};

/// The counts that define a fabric.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Three-tier or not.
    pub three_tier: bool,
    /// Server groups (scalable units).
    pub groups: u32,
    /// Zones (1 for a 2-tier fabric).
    pub zones: u32,
    /// Groups per zone.
    pub groups_per_zone: u32,
    /// NICs per server.
    pub rails: u32,
    /// Servers per group (server ports per leaf).
    pub servers_per_group: u32,
    /// Total servers.
    pub servers: u32,
    /// Leaf uplinks.
    pub leaf_up: u32,
    /// Links from one leaf to one spine.
    pub links_per_spine: u32,
    /// Spines per zone.
    pub spines_per_zone: u32,
    /// Spine leaf-facing ports.
    pub spine_down: u32,
    /// Spine super-spine-facing ports (three-tier).
    pub spine_up: u32,
    /// Super-spines in all.
    pub super_spines: u32,
    /// Spine planes.
    pub planes: u32,
    /// Super-spines per plane.
    pub supers_per_plane: u32,
    /// Links from one spine to one super-spine of its plane.
    pub links_per_super: u32,
    /// Super-spine ports used.
    pub super_down: u32,
    /// NIC speed.
    pub nic_speed: Speed,
    /// Leaf uplink speed.
    pub leaf_uplink_speed: Speed,
    /// Spine uplink speed.
    pub spine_uplink_speed: Speed,
}

impl Shape {
    /// Leaves per zone.
    pub fn leaves_per_zone(&self) -> u32 {
        self.groups_per_zone * self.rails
    }
    /// All leaves.
    pub fn leaves(&self) -> u32 {
        self.groups * self.rails
    }
    /// All spines.
    pub fn spines(&self) -> u32 {
        self.zones * self.spines_per_zone
    }
}

/// Uplinks needed for `down` ports at `down_speed` under `ratio`, at `up_speed`: exact or an error text.
fn uplinks(down: u32, down_speed: Speed, ratio: Ratio, up_speed: Speed) -> Result<u32, String> {
    let down_bw = down as u128 * down_speed.gbps() as u128;
    let num = down_bw * ratio.up as u128;
    let den = ratio.down as u128 * up_speed.gbps() as u128;
    if num / den > MAX_COUNT as u128 {
        return Err(format!(
            "{down} x {down_speed} at {ratio} needs more than {MAX_COUNT} {up_speed} uplinks"
        ));
    }
    if !num.is_multiple_of(den) {
        return Err(format!(
            "{down} x {down_speed} = {down_bw}G down at {ratio} needs {}G up, which is not a whole number of {up_speed} links",
            num as f64 / ratio.down as f64
        ));
    }
    Ok((num / den) as u32)
}

/// Largest fabric aifab builds, in GPUs (server NICs): ten times the largest published AI fabric.
pub const MAX_GPUS: u64 = 1_048_576;
/// Largest number of switches per tier count (spines per zone, zones, super-spines, ports per group).
pub const MAX_COUNT: u64 = 65_536;

/// Computes the shape of the fabric or explains in numbers why it does not add up.
pub fn shape(intent: &Intent) -> Result<Shape, Vec<Finding>> {
    let t = &intent.fabric.topology;
    // Bounds first, in u64, so nothing below can overflow or build a fabric that exhausts memory.
    let gpus = t.servers as u64 * t.rails as u64;
    if gpus > MAX_GPUS {
        return Err(vec![
            Finding::new(
                Rule::FabricTooLarge,
                format!(
                    "{} servers × {} rails = {gpus} GPUs; aifab builds fabrics of up to {MAX_GPUS}",
                    t.servers, t.rails
                ),
            )
            .at("/fabric/topology/servers")
            .hint("split the fabric into several intents"),
        ]);
    }
    let counts = [
        (
            "servers_per_group",
            t.servers_per_group as u64,
            "/fabric/topology/servers_per_group",
        ),
        (
            "spine.count",
            t.spine.count as u64,
            "/fabric/topology/spine/count",
        ),
        (
            "zones",
            t.zones.unwrap_or(1) as u64,
            "/fabric/topology/zones",
        ),
        (
            "super_spine.count",
            t.super_spine.as_ref().map_or(1, |s| s.count as u64),
            "/fabric/topology/super_spine/count",
        ),
        (
            "spines in all",
            t.spine.count as u64 * t.zones.unwrap_or(1) as u64,
            "/fabric/topology/spine/count",
        ),
    ];
    for (what, n, ptr) in counts {
        if n > MAX_COUNT {
            return Err(vec![
                Finding::new(
                    Rule::FabricTooLarge,
                    format!("{what} is {n}; aifab builds at most {MAX_COUNT}"),
                )
                .at(ptr)
                .hint("no switch has that many ports: check the number"),
            ]);
        }
    }
    let mut errs = Vec::new();
    let three_tier = t.kind == TopologyKind::ThreeTier;
    let groups = t.servers.div_ceil(t.servers_per_group.max(1));
    let zones = if three_tier { t.zones.unwrap_or(0) } else { 1 };
    if three_tier {
        if t.zones.is_none() {
            errs.push(
                Finding::new(Rule::TierShape, "a three-tier fabric needs `zones`")
                    .at("/fabric/topology")
                    .hint("add `zones: <n>` under fabric.topology"),
            );
        }
        if t.super_spine.is_none() {
            errs.push(
                Finding::new(
                    Rule::TierShape,
                    "a three-tier fabric needs a `super_spine` tier",
                )
                .at("/fabric/topology")
                .hint("add `super_spine: {platform, hostname, count}` under fabric.topology"),
            );
        }
    } else {
        if t.zones.is_some() {
            errs.push(
                Finding::new(
                    Rule::TierShape,
                    "`zones` applies to three-tier fabrics only",
                )
                .at("/fabric/topology/zones")
                .hint("remove `zones`, or set `kind: three-tier`"),
            );
        }
        if t.super_spine.is_some() {
            errs.push(
                Finding::new(
                    Rule::TierShape,
                    "`super_spine` applies to three-tier fabrics only",
                )
                .at("/fabric/topology/super_spine")
                .hint("remove `super_spine`, or set `kind: three-tier`"),
            );
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if zones == 0 || !groups.is_multiple_of(zones) {
        return Err(vec![
            Finding::new(
                Rule::GroupsSplitZones,
                format!(
                    "{} servers in groups of {} make {groups} groups, which do not split evenly into {zones} zones",
                    t.servers, t.servers_per_group
                ),
            )
            .at("/fabric/topology/zones")
            .hint("choose a zone count that divides the number of groups"),
        ]);
    }
    let groups_per_zone = groups / zones;
    let leaf_up = match uplinks(
        t.servers_per_group,
        t.nic_speed,
        t.leaf.oversubscription,
        t.leaf.uplink_speed,
    ) {
        Ok(u) => u,
        Err(e) => {
            return Err(vec![
                Finding::new(Rule::OversubscriptionUplinks, format!("leaf: {e}"))
                    .at("/fabric/topology/leaf/oversubscription")
                    .hint("change the oversubscription or servers_per_group so the uplinks come out whole"),
            ]);
        }
    };
    let spines_per_zone = t.spine.count;
    if leaf_up == 0 || leaf_up % spines_per_zone != 0 {
        return Err(vec![
            Finding::new(
                Rule::UplinksUneven,
                format!(
                    "each leaf has {leaf_up} uplinks, which do not spread evenly over {spines_per_zone} spines"
                ),
            )
            .at("/fabric/topology/spine/count")
            .hint(format!(
                "use a spine count that divides {leaf_up} (e.g. {})",
                divisors(leaf_up).iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            )),
        ]);
    }
    let links_per_spine = leaf_up / spines_per_zone;
    let spine_down64 = groups_per_zone as u64 * t.rails as u64 * links_per_spine as u64;
    if spine_down64 > MAX_COUNT {
        return Err(vec![
            Finding::new(
                Rule::FabricTooLarge,
                format!("each spine would need {spine_down64} leaf-facing ports; aifab builds at most {MAX_COUNT}"),
            )
            .at("/fabric/topology/spine/count")
            .hint("use more zones (three-tier) or fewer servers per spine layer"),
        ]);
    }
    let spine_down = spine_down64 as u32;
    let spine_uplink_speed = t.spine.uplink_speed.unwrap_or(t.leaf.uplink_speed);
    let mut s = Shape {
        three_tier,
        groups,
        zones,
        groups_per_zone,
        rails: t.rails,
        servers_per_group: t.servers_per_group,
        servers: t.servers,
        leaf_up,
        links_per_spine,
        spines_per_zone,
        spine_down,
        spine_up: 0,
        super_spines: 0,
        planes: 1,
        supers_per_plane: 0,
        links_per_super: 0,
        super_down: 0,
        nic_speed: t.nic_speed,
        leaf_uplink_speed: t.leaf.uplink_speed,
        spine_uplink_speed,
    };
    if let (true, Some(ss)) = (three_tier, &t.super_spine) {
        let spine_up = match uplinks(
            spine_down,
            t.leaf.uplink_speed,
            t.spine.oversubscription,
            spine_uplink_speed,
        ) {
            Ok(u) => u,
            Err(e) => {
                return Err(vec![
                    Finding::new(Rule::OversubscriptionUplinks, format!("spine: {e}"))
                        .at("/fabric/topology/spine/oversubscription")
                        .hint("change the spine oversubscription so the uplinks come out whole"),
                ]);
            }
        };
        if ss.planes == 0 || !spines_per_zone.is_multiple_of(ss.planes) || ss.count % ss.planes != 0
        {
            return Err(vec![
                Finding::new(
                    Rule::PlanesDivide,
                    format!(
                        "{} planes must divide both the spines per zone ({spines_per_zone}) and the super-spines ({})",
                        ss.planes, ss.count
                    ),
                )
                .at("/fabric/topology/super_spine/planes")
                .hint("use a plane count that divides both"),
            ]);
        }
        let per_plane = ss.count / ss.planes;
        if spine_up == 0 || spine_up % per_plane != 0 {
            return Err(vec![
                Finding::new(
                    Rule::UplinksUneven,
                    format!(
                        "each spine has {spine_up} uplinks, which do not spread evenly over the {per_plane} super-spines of its plane"
                    ),
                )
                .at("/fabric/topology/super_spine/count")
                .hint(format!(
                    "use {} super-spines per plane, with a number that divides {spine_up}",
                    if ss.planes == 1 { "a count of" } else { "a number of" }
                )),
            ]);
        }
        s.spine_up = spine_up;
        s.super_spines = ss.count;
        s.planes = ss.planes;
        s.supers_per_plane = per_plane;
        s.links_per_super = spine_up / per_plane;
        let super_down =
            zones as u64 * (spines_per_zone / ss.planes) as u64 * s.links_per_super as u64;
        if super_down > MAX_COUNT {
            return Err(vec![
                Finding::new(
                    Rule::FabricTooLarge,
                    format!("each super-spine would need {super_down} ports; aifab builds at most {MAX_COUNT}"),
                )
                .at("/fabric/topology/super_spine/count")
                .hint("use more super-spines or planes"),
            ]);
        }
        s.super_down = super_down as u32;
    }
    let switches = s.leaves() as u64 + s.spines() as u64 + s.super_spines as u64;
    if switches > MAX_COUNT {
        return Err(vec![
            Finding::new(
                Rule::FabricTooLarge,
                format!(
                    "the fabric would have {switches} switches; aifab builds at most {MAX_COUNT}"
                ),
            )
            .at("/fabric/topology")
            .hint("split the fabric into several intents, or use more servers per group"),
        ]);
    }
    Ok(s)
}

/// Up to 12 divisors of `n`, ascending, found in O(√n).
fn divisors(n: u32) -> Vec<u32> {
    let mut low = Vec::new();
    let mut high = Vec::new();
    let mut d: u64 = 1;
    while d * d <= n as u64 {
        if (n as u64).is_multiple_of(d) {
            low.push(d as u32);
            if d * d != n as u64 {
                high.push((n as u64 / d) as u32);
            }
        }
        d += 1;
    }
    low.extend(high.into_iter().rev());
    low.truncate(12);
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_are_fast_and_ordered() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(
            divisors(u32::MAX - 1),
            vec![1, 2, 2_147_483_647, 4_294_967_294]
        );
        assert_eq!(divisors(720_720).len(), 12);
    }

    #[test]
    fn uplink_arithmetic_is_exact() {
        let r = |d, u| Ratio { down: d, up: u };
        assert_eq!(uplinks(32, Speed(400), r(1, 1), Speed(400)), Ok(32));
        assert_eq!(uplinks(32, Speed(400), r(4, 1), Speed(400)), Ok(8));
        assert_eq!(uplinks(32, Speed(400), r(1, 1), Speed(800)), Ok(16));
        assert!(uplinks(30, Speed(400), r(4, 1), Speed(400)).is_err());
    }
}
