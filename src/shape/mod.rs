//! The fabric's shape, from the intent alone (before placement, which names its devices): how many devices of each role, how many ports each uses, and whether the chosen
//! platforms can carry it. Everything later (ports, links, addresses) follows from the [`Shape`].
//!
//! [`counts`] is the part placement needs (how many devices of each role, zones, planes); [`shape`] adds
//! the port arithmetic. Each runs its passes in order and stops at the first that fails, so the first
//! problem is reported with its numbers and not buried under the problems it causes.

pub mod homing;
pub mod pattern;

use crate::diag::Finding;
use crate::intent::{Intent, SuperSpineTier, Topology, TopologyKind};
use crate::rules::Rule;
use crate::units::{Ratio, Speed};
use homing::Homes;

/// How many devices of each role the fabric has, and how they group: what placement needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Three-tier or not.
    pub three_tier: bool,
    /// Server groups (scalable units).
    pub groups: u32,
    /// Zones (1 for a 2-tier fabric).
    pub zones: u32,
    /// Groups per zone.
    pub groups_per_zone: u32,
    /// NICs per server (leaves per group).
    pub rails: u32,
    /// Spines per zone.
    pub spines_per_zone: u32,
    /// Super-spines in all.
    pub super_spines: u32,
    /// Spine planes.
    pub planes: u32,
    /// Super-spines per plane.
    pub supers_per_plane: u32,
    /// Where NIC ports land: leaves per group, sides, leaf planes.
    pub homes: Homes,
}

impl Counts {
    /// All leaves.
    pub fn leaves(&self) -> u32 {
        self.groups * self.homes.leaves_per_group()
    }
    /// All spines.
    pub fn spines(&self) -> u32 {
        self.zones * self.spines_per_zone
    }
}

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
    /// Where NIC ports land: leaves per group, server ports per leaf, leaf planes.
    pub homes: Homes,
    /// Spines of one leaf plane in a zone.
    pub spines_per_leaf_plane: u32,
}

impl Shape {
    /// Leaves per group.
    pub fn leaves_per_group(&self) -> u32 {
        self.homes.leaves_per_group()
    }
    /// Server ports per leaf.
    pub fn ports_per_leaf(&self) -> u32 {
        self.homes.ports_per_leaf()
    }
    /// Leaves per zone.
    pub fn leaves_per_zone(&self) -> u32 {
        self.groups_per_zone * self.leaves_per_group()
    }
    /// All leaves.
    pub fn leaves(&self) -> u32 {
        self.groups * self.leaves_per_group()
    }
    /// Server ports (NIC ports) in all.
    pub fn server_ports(&self) -> u32 {
        self.servers * self.rails * self.homes.nic_ports
    }
    /// All spines.
    pub fn spines(&self) -> u32 {
        self.zones * self.spines_per_zone
    }
    /// The device counts (what [`counts`] gives for the same intent).
    pub fn counts(&self) -> Counts {
        Counts {
            three_tier: self.three_tier,
            groups: self.groups,
            zones: self.zones,
            groups_per_zone: self.groups_per_zone,
            rails: self.rails,
            spines_per_zone: self.spines_per_zone,
            super_spines: self.super_spines,
            planes: self.planes,
            supers_per_plane: self.supers_per_plane,
            homes: self.homes,
        }
    }
}

/// Why uplinks do not come out whole, and the nearest ratios that make them whole.
#[derive(Debug, PartialEq)]
struct NotWhole {
    message: String,
    nearest: Option<String>,
}

/// Uplinks needed for `down` ports at `down_speed` under `ratio`, at `up_speed`: exact, or why not with
/// the nearest ratios that give whole uplinks.
fn uplinks(down: u32, down_speed: Speed, ratio: Ratio, up_speed: Speed) -> Result<u32, NotWhole> {
    let down_bw = down as u128 * down_speed.gbps() as u128;
    let num = down_bw * ratio.up as u128;
    let den = ratio.down as u128 * up_speed.gbps() as u128;
    if num / den > MAX_COUNT as u128 {
        return Err(NotWhole {
            message: format!(
                "{down} x {down_speed} at {ratio} needs more than {MAX_COUNT} {up_speed} uplinks"
            ),
            nearest: None,
        });
    }
    if !num.is_multiple_of(den) {
        return Err(NotWhole {
            message: format!(
                "{down} x {down_speed} = {down_bw}G down at {ratio} needs {:.2}G up, which is not a whole number of {up_speed} links",
                num as f64 / ratio.down as f64
            ),
            nearest: nearest_ratios(down_bw as u64, (num / den) as u64, up_speed),
        });
    }
    Ok((num / den) as u32)
}

/// The ratios on either side of a fractional uplink count `floor(x)` that give whole uplinks:
/// `48:7 (7 x 400G up) or 6:1 (8 x 400G up)`.
fn nearest_ratios(down_bw: u64, floor: u64, up_speed: Speed) -> Option<String> {
    let options: Vec<String> = [floor, floor + 1]
        .into_iter()
        .filter(|n| (1..=MAX_COUNT).contains(n))
        .map(|n| {
            let up_bw = n * up_speed.gbps() as u64;
            let g = crate::units::gcd(down_bw, up_bw);
            format!("{}:{} ({n} x {up_speed} up)", down_bw / g, up_bw / g)
        })
        .collect();
    (!options.is_empty()).then(|| {
        format!(
            "the nearest ratios with whole uplinks are {}",
            options.join(" or ")
        )
    })
}

/// Largest fabric aifab builds, in GPUs (server NICs): ten times the largest published AI fabric.
pub const MAX_GPUS: u64 = 1_048_576;
/// Largest number of switches per tier count (spines per zone, zones, super-spines, ports per group).
pub const MAX_COUNT: u64 = 65_536;

/// Computes the device counts, or explains in numbers why they do not add up (`AIF-FAB-001`, `-002`,
/// `-005`, `-006`). Fails only where [`shape`] fails too, and agrees with [`Shape::counts`] when both
/// succeed.
pub fn counts(intent: &Intent) -> Result<Counts, Vec<Finding>> {
    let t = &intent.fabric.topology;
    bounds(t)?;
    let homes = Homes::of(t)?;
    let three_tier = tiers(t)?;
    let z = zones(t, three_tier)?;
    homing::planes_fit(t, homes.leaf_planes())?;
    let p = match (three_tier, &t.super_spine) {
        (true, Some(ss)) => planes(ss, t.spine.count)?,
        _ => Planes::NONE,
    };
    let c = Counts {
        three_tier,
        groups: z.groups,
        zones: z.zones,
        groups_per_zone: z.groups_per_zone,
        rails: t.rails,
        spines_per_zone: t.spine.count,
        super_spines: p.super_spines,
        planes: p.planes,
        supers_per_plane: p.per_plane,
        homes,
    };
    switches(c.leaves() as u64 + c.spines() as u64 + c.super_spines as u64)?;
    Ok(c)
}

/// Computes the shape of the fabric or explains in numbers why it does not add up.
pub fn shape(intent: &Intent) -> Result<Shape, Vec<Finding>> {
    let t = &intent.fabric.topology;
    bounds(t)?;
    let homes = Homes::of(t)?;
    let three_tier = tiers(t)?;
    let z = zones(t, three_tier)?;
    homing::planes_fit(t, homes.leaf_planes())?;
    let mut s = leaf_uplinks(t, three_tier, &z, homes)?;
    if let (true, Some(ss)) = (three_tier, &t.super_spine) {
        spine_uplinks(t, ss, &mut s)?;
    }
    switches(s.leaves() as u64 + s.spines() as u64 + s.super_spines as u64)?;
    Ok(s)
}

/// AIF-FAB-009: servers that do not fill the last group still get that group's leaves whole (every
/// leaf of a group is built for `servers_per_group` servers, with its full uplinks and spine ports):
/// 40 servers in groups of 32 build 8 rail leaves for 8 servers, three quarters of their ports idle.
pub fn warnings(shape: &Shape) -> Vec<Finding> {
    let per = shape.servers_per_group.max(1);
    let last = shape.servers % per;
    if last == 0 {
        return Vec::new();
    }
    let leaves = shape.leaves_per_group();
    let ports = shape.ports_per_leaf();
    let used = ports / per * last;
    vec![
        Finding::new(
            Rule::PartialLastGroup,
            format!(
                "{} servers in groups of {per} leave {last} server{} in group {}: its {leaves} lea{} built whole for {per} servers ({used} of {ports} server ports used on each, with every uplink and spine port)",
                shape.servers,
                if last == 1 { "" } else { "s" },
                shape.groups,
                if leaves == 1 { "f is" } else { "ves are" },
            ),
        )
        .at("/fabric/topology/servers")
        .hint(format!(
            "make `servers` a multiple of {per} ({} or {}), or choose a `servers_per_group` that divides it",
            shape.servers - last,
            shape.servers - last + per
        )),
    ]
}

/// One finding as the `Err` of a pass.
fn refuse(rule: Rule, message: String, at: &str, hint: impl Into<String>) -> Vec<Finding> {
    vec![Finding::new(rule, message).at(at).hint(hint)]
}

/// Bounds first, in u64, so nothing below can overflow or build a fabric that exhausts memory
/// (`AIF-FAB-006`).
fn bounds(t: &Topology) -> Result<(), Vec<Finding>> {
    let gpus = t.servers as u64 * t.rails as u64;
    if gpus > MAX_GPUS {
        return Err(refuse(
            Rule::FabricTooLarge,
            format!(
                "{} servers × {} rails = {gpus} GPUs; aifab builds fabrics of up to {MAX_GPUS}",
                t.servers, t.rails
            ),
            "/fabric/topology/servers",
            "split the fabric into several intents",
        ));
    }
    let zones = t.zones.unwrap_or(1) as u64;
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
        ("zones", zones, "/fabric/topology/zones"),
        (
            "super_spine.count",
            t.super_spine.as_ref().map_or(1, |s| s.count as u64),
            "/fabric/topology/super_spine/count",
        ),
        (
            "spines in all",
            t.spine.count as u64 * zones,
            "/fabric/topology/spine/count",
        ),
    ];
    for (what, n, ptr) in counts {
        if n > MAX_COUNT {
            return Err(refuse(
                Rule::FabricTooLarge,
                format!("{what} is {n}; aifab builds at most {MAX_COUNT}"),
                ptr,
                "no switch has that many ports: check the number",
            ));
        }
    }
    Ok(())
}

/// Zones and super-spines belong to three-tier fabrics, which need both (`AIF-FAB-001`). Returns
/// whether the fabric is three-tier.
fn tiers(t: &Topology) -> Result<bool, Vec<Finding>> {
    let three_tier = t.kind == TopologyKind::ThreeTier;
    let mut errs = Vec::new();
    let mut problem = |message: &str, at: &str, hint: &str| {
        errs.push(Finding::new(Rule::TierShape, message).at(at).hint(hint));
    };
    if three_tier {
        if t.zones.is_none() {
            problem(
                "a three-tier fabric needs `zones`",
                "/fabric/topology",
                "add `zones: <n>` under fabric.topology",
            );
        }
        if t.super_spine.is_none() {
            problem(
                "a three-tier fabric needs a `super_spine` tier",
                "/fabric/topology",
                "add `super_spine: {platform, hostname, count}` under fabric.topology",
            );
        }
    } else {
        if t.zones.is_some() {
            problem(
                "`zones` applies to three-tier fabrics only",
                "/fabric/topology/zones",
                "remove `zones`, or set `kind: three-tier`",
            );
        }
        if t.super_spine.is_some() {
            problem(
                "`super_spine` applies to three-tier fabrics only",
                "/fabric/topology/super_spine",
                "remove `super_spine`, or set `kind: three-tier`",
            );
        }
    }
    if errs.is_empty() {
        Ok(three_tier)
    } else {
        Err(errs)
    }
}

/// Groups and how they split into zones.
struct Zones {
    groups: u32,
    zones: u32,
    groups_per_zone: u32,
}

/// Servers cut into groups, groups split evenly into zones (`AIF-FAB-002`).
fn zones(t: &Topology, three_tier: bool) -> Result<Zones, Vec<Finding>> {
    let groups = t.servers.div_ceil(t.servers_per_group.max(1));
    let zones = if three_tier { t.zones.unwrap_or(0) } else { 1 };
    if zones == 0 || !groups.is_multiple_of(zones) {
        return Err(refuse(
            Rule::GroupsSplitZones,
            format!(
                "{} servers in groups of {} make {groups} groups, which do not split evenly into {zones} zones",
                t.servers, t.servers_per_group
            ),
            "/fabric/topology/zones",
            "choose a zone count that divides the number of groups",
        ));
    }
    Ok(Zones {
        groups,
        zones,
        groups_per_zone: groups / zones,
    })
}

/// How many uplinks each leaf has: its server-facing ports at the leaf's oversubscription, in the
/// uplink speed; refused when they do not come out whole.
fn leaf_uplink_count(t: &Topology, homes: &Homes) -> Result<u32, Vec<Finding>> {
    uplinks(
        homes.ports_per_leaf(),
        t.nic_speed,
        t.leaf.oversubscription,
        t.leaf.uplink_speed,
    )
    .map_err(|e| {
        refuse(
            Rule::OversubscriptionUplinks,
            format!("leaf: {}", e.message),
            "/fabric/topology/leaf/oversubscription",
            e.nearest.map_or_else(
                || {
                    "change the oversubscription or servers_per_group so the uplinks come out whole"
                        .to_string()
                },
                |n| format!("{n}; or change servers_per_group"),
            ),
        )
    })
}

/// The refusal of a leaf's `leaf_up` uplinks that do not spread evenly over the `spp` spines of its
/// plane, with spine counts that would.
fn uneven_uplinks(leaf_up: u32, spp: u32, leaf_planes: u32) -> Vec<Finding> {
    let of_plane = if leaf_planes > 1 { " of its plane" } else { "" };
    let count = if leaf_planes > 1 {
        format!(
            " of {leaf_planes} × a number that divides {leaf_up}: each plane has its own spines"
        )
    } else {
        format!(" that divides {leaf_up}")
    };
    let examples = divisors(leaf_up)
        .iter()
        .map(|d| (d * leaf_planes).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    refuse(
        Rule::UplinksUneven,
        format!(
            "each leaf has {leaf_up} uplinks, which do not spread evenly over the {spp} spines{of_plane}"
        ),
        "/fabric/topology/spine/count",
        format!("use a spine count{count} (e.g. {examples})"),
    )
}

/// Leaf uplinks from the oversubscription, spread evenly over the spines of a zone; the shape of a
/// 2-tier fabric (`AIF-FAB-003`, `-004`, `-006`).
fn leaf_uplinks(
    t: &Topology,
    three_tier: bool,
    z: &Zones,
    homes: Homes,
) -> Result<Shape, Vec<Finding>> {
    let leaf_up = leaf_uplink_count(t, &homes)?;
    let spines_per_zone = t.spine.count;
    let leaf_planes = homes.leaf_planes();
    let spp = spines_per_zone / leaf_planes;
    if leaf_up == 0 || leaf_up % spp != 0 {
        return Err(uneven_uplinks(leaf_up, spp, leaf_planes));
    }
    let links_per_spine = leaf_up / spp;
    let leaves_per_plane_zone =
        z.groups_per_zone as u64 * homes.leaves_per_group() as u64 / leaf_planes as u64;
    let spine_down64 = leaves_per_plane_zone * links_per_spine as u64;
    if spine_down64 > MAX_COUNT {
        return Err(refuse(
            Rule::FabricTooLarge,
            format!(
                "each spine would need {spine_down64} leaf-facing ports; aifab builds at most {MAX_COUNT}"
            ),
            "/fabric/topology/spine/count",
            "use more zones (three-tier) or fewer servers per spine layer",
        ));
    }
    Ok(Shape {
        three_tier,
        groups: z.groups,
        zones: z.zones,
        groups_per_zone: z.groups_per_zone,
        rails: t.rails,
        servers_per_group: t.servers_per_group,
        servers: t.servers,
        leaf_up,
        links_per_spine,
        spines_per_zone,
        spine_down: spine_down64 as u32,
        spine_up: 0,
        super_spines: 0,
        planes: 1,
        supers_per_plane: 0,
        links_per_super: 0,
        super_down: 0,
        nic_speed: t.nic_speed,
        leaf_uplink_speed: t.leaf.uplink_speed,
        spine_uplink_speed: t.spine.uplink_speed.unwrap_or(t.leaf.uplink_speed),
        homes,
        spines_per_leaf_plane: spp,
    })
}

/// Super-spines and their planes.
struct Planes {
    super_spines: u32,
    planes: u32,
    per_plane: u32,
}

impl Planes {
    /// A fabric without super-spines.
    const NONE: Planes = Planes {
        super_spines: 0,
        planes: 1,
        per_plane: 0,
    };
}

/// Planes divide the spines per zone and the super-spines (`AIF-FAB-005`).
fn planes(ss: &SuperSpineTier, spines_per_zone: u32) -> Result<Planes, Vec<Finding>> {
    if ss.planes == 0
        || !spines_per_zone.is_multiple_of(ss.planes)
        || !ss.count.is_multiple_of(ss.planes)
    {
        return Err(refuse(
            Rule::PlanesDivide,
            format!(
                "{} planes must divide both the spines per zone ({spines_per_zone}) and the super-spines ({})",
                ss.planes, ss.count
            ),
            "/fabric/topology/super_spine/planes",
            "use a plane count that divides both",
        ));
    }
    Ok(Planes {
        super_spines: ss.count,
        planes: ss.planes,
        per_plane: ss.count / ss.planes,
    })
}

/// Spine uplinks from the spine oversubscription, spread evenly over the super-spines of the spine's
/// plane (`AIF-FAB-003`, `-005`, `-004`, `-006`).
fn spine_uplinks(t: &Topology, ss: &SuperSpineTier, s: &mut Shape) -> Result<(), Vec<Finding>> {
    let spine_up = uplinks(
        s.spine_down,
        t.leaf.uplink_speed,
        t.spine.oversubscription,
        s.spine_uplink_speed,
    )
    .map_err(|e| {
        refuse(
            Rule::OversubscriptionUplinks,
            format!("spine: {}", e.message),
            "/fabric/topology/spine/oversubscription",
            e.nearest.map_or_else(
                || "change the spine oversubscription so the uplinks come out whole".to_string(),
                |n| format!("{n} (spine oversubscription)"),
            ),
        )
    })?;
    let p = planes(ss, s.spines_per_zone)?;
    if spine_up == 0 || spine_up % p.per_plane != 0 {
        return Err(refuse(
            Rule::UplinksUneven,
            format!(
                "each spine has {spine_up} uplinks, which do not spread evenly over the {} super-spines of its plane",
                p.per_plane
            ),
            "/fabric/topology/super_spine/count",
            format!(
                "use {} super-spines per plane, with a number that divides {spine_up}",
                if ss.planes == 1 {
                    "a count of"
                } else {
                    "a number of"
                }
            ),
        ));
    }
    s.spine_up = spine_up;
    s.super_spines = p.super_spines;
    s.planes = p.planes;
    s.supers_per_plane = p.per_plane;
    s.links_per_super = spine_up / p.per_plane;
    let super_down =
        s.zones as u64 * (s.spines_per_zone / p.planes) as u64 * s.links_per_super as u64;
    if super_down > MAX_COUNT {
        return Err(refuse(
            Rule::FabricTooLarge,
            format!(
                "each super-spine would need {super_down} ports; aifab builds at most {MAX_COUNT}"
            ),
            "/fabric/topology/super_spine/count",
            "use more super-spines or planes",
        ));
    }
    s.super_down = super_down as u32;
    Ok(())
}

/// The whole fabric stays within [`MAX_COUNT`] switches (`AIF-FAB-006`).
fn switches(n: u64) -> Result<(), Vec<Finding>> {
    if n > MAX_COUNT {
        return Err(refuse(
            Rule::FabricTooLarge,
            format!("the fabric would have {n} switches; aifab builds at most {MAX_COUNT}"),
            "/fabric/topology",
            "split the fabric into several intents, or use more servers per group",
        ));
    }
    Ok(())
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
        // 16 x 400G at 7:1 is 914.29G up: 2 or 3 uplinks, i.e. 8:1 or 16:3.
        let e = uplinks(16, Speed(400), r(7, 1), Speed(400)).expect_err("not whole");
        assert!(e.message.contains("914.29G up"), "{}", e.message);
        assert_eq!(
            e.nearest.as_deref(),
            Some(
                "the nearest ratios with whole uplinks are 8:1 (2 x 400G up) or 16:3 (3 x 400G up)"
            )
        );
    }
}
