//! Placement: every device of the fabric, what it is called, where it sits and what it runs.
//!
//! Placement runs after the rules that read only the intent and before the rules that need each
//! device's platform ([`crate::check`]) and the compiler ([`crate::compile`]), which both read it. From
//! the intent and its device [`Counts`] it gives every device its hostname, role, zone, group, rail and
//! index, the overrides that select it (in order), and its platform and OS after those overrides. Every
//! overridable field (platform, DLB mode, QP hashing, management address) is resolved by one rule,
//! [`resolved`]: the last matching override that sets the field wins.

pub mod ack;
mod names;
mod overrides;
mod resolve;

pub use resolve::{
    Origin, Overridable, acknowledgement, dlb_mode, management_override, os_version, platform,
    resolved, roce_dest_qp, site_lines, tier_platform,
};

use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::platform::{Catalog, Os, Platform};
use crate::rules::Rule;
use crate::shape::{self, Counts, Shape};
use std::collections::BTreeMap;

/// One device as placement gives it.
#[derive(Clone, Debug)]
pub struct Placed {
    /// Hostname; empty when the role's pattern gives no valid name (the placement then has an
    /// `AIF-NAME-001` error, and no override selects the device).
    pub hostname: String,
    /// Role.
    pub role: Role,
    /// Zone (three-tier), 1-based.
    pub zone: Option<u32>,
    /// Server group (leaves), 1-based.
    pub group: Option<u32>,
    /// Rail (rail leaves), 1-based; `None` for rack leaves.
    pub rail: Option<u32>,
    /// Plane, 1-based: a leaf's leaf plane (`homing: two-planes`), a spine's or super-spine's spine plane.
    pub plane: Option<u32>,
    /// Index within the role (and zone), 1-based.
    pub index: u32,
    /// 0-based position among all devices of the role: the allocation key of addresses and ASNs.
    pub seq: u32,
    /// Platform as `<os>/<model>`, after overrides.
    pub platform: String,
    /// The setting that chose the platform: the tier's or an override's.
    pub platform_origin: Origin,
    /// The platform's OS (`None` when the platform is not in the catalog: an `AIF-PLAT-001` error).
    pub os: Option<Os>,
    /// Indices into `/overrides` of the overrides that select this device, in order.
    pub overrides: Vec<usize>,
}

impl Overridable for Placed {
    fn role(&self) -> Role {
        self.role
    }
    fn matched(&self) -> &[usize] {
        &self.overrides
    }
}

/// Every device of the fabric in output order (super-spines, spines, leaves; each by zone, group, rail,
/// index), and what is wrong with their names, overrides and platforms.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The devices.
    pub devices: Vec<Placed>,
    /// `AIF-OVR-001`, `AIF-NAME-001`, `-002`, `AIF-OVR-002`, `AIF-PLAT-001`, in that order; the compiler
    /// refuses a placement with errors.
    pub errors: Vec<Finding>,
    /// True for a [`stand_in`]: the fabric could not be counted, so this is one device per tier, for the
    /// platform rules only.
    pub stand_in: bool,
}

/// A device's position before it has a name.
#[derive(Clone, Copy, Debug)]
struct Slot {
    role: Role,
    zone: Option<u32>,
    group: Option<u32>,
    rail: Option<u32>,
    /// The NIC port a leaf takes when a NIC's ports land on two leaves.
    side: Option<u32>,
    plane: Option<u32>,
    index: u32,
    seq: u32,
}

/// Every device position in output order: super-spines, spines by zone, leaves by group and rail.
fn slots(c: &Counts) -> Vec<Slot> {
    let mut out = Vec::with_capacity((c.super_spines + c.spines() + c.leaves()) as usize);
    let zone = |z: u32| c.three_tier.then_some(z);
    // Super-spine k is in plane k / supers_per_plane; spine n of every zone in plane n mod planes.
    out.extend((0..c.super_spines).map(|i| Slot {
        role: Role::SuperSpine,
        zone: None,
        group: None,
        rail: None,
        side: None,
        plane: Some(i / c.supers_per_plane.max(1) + 1),
        index: i + 1,
        seq: i,
    }));
    // Spine n is in spine plane n mod planes; with leaf planes (a multiple of them in three tiers) in
    // leaf plane n mod leaf planes.
    let leaf_planes = c.homes.leaf_planes();
    let spine_planes = c.planes.max(leaf_planes);
    for z in 0..c.zones {
        out.extend((0..c.spines_per_zone).map(|i| Slot {
            role: Role::Spine,
            zone: zone(z + 1),
            group: None,
            rail: None,
            side: None,
            plane: (c.three_tier || leaf_planes > 1).then_some(i % spine_planes + 1),
            index: i + 1,
            seq: z * c.spines_per_zone + i,
        }));
    }
    let per_group = c.homes.leaves_per_group();
    for g in 0..c.groups {
        out.extend((0..per_group).map(|j| {
            let (rail, side) = c.homes.leaf_at(j);
            Slot {
                role: Role::Leaf,
                zone: zone(g / c.groups_per_zone + 1),
                group: Some(g + 1),
                rail,
                side,
                plane: c.homes.plane_of_leaf(j),
                index: g * per_group + j + 1,
                seq: g * per_group + j,
            }
        }));
    }
    out
}

/// A device at `slot` named `hostname`, selected by the overrides `matched`: its platform and OS
/// resolved (`None` for a super-spine of an intent without a super-spine tier).
fn placed(
    intent: &Intent,
    catalog: &Catalog,
    slot: Slot,
    hostname: String,
    matched: Vec<usize>,
) -> Option<Placed> {
    let mut d = Placed {
        hostname,
        role: slot.role,
        zone: slot.zone,
        group: slot.group,
        rail: slot.rail,
        plane: slot.plane,
        index: slot.index,
        seq: slot.seq,
        platform: String::new(),
        platform_origin: Origin::Base(""),
        os: None,
        overrides: matched,
    };
    let (name, origin) = platform(intent, &d)?;
    d.platform = name.to_string();
    d.platform_origin = origin;
    d.os = catalog.get(name).map(|(os, _)| *os);
    Some(d)
}

/// Places every device of a fabric with these counts.
pub fn place(intent: &Intent, catalog: &Catalog, counts: &Counts) -> Placement {
    let t = &intent.fabric.topology;
    let mut errors = Vec::new();
    let globs = overrides::globs(&intent.overrides, &mut errors);
    let slots = slots(counts);
    let names = names::hostnames(t, &slots, counts.supers_per_plane, &mut errors);
    let devices: Vec<Placed> = slots
        .into_iter()
        .zip(names)
        .filter_map(|(slot, hostname)| {
            let matched = overrides::matching(&globs, &hostname);
            placed(intent, catalog, slot, hostname, matched)
        })
        .collect();
    let named: Vec<(&str, Role)> = devices
        .iter()
        .filter(|d| !d.hostname.is_empty())
        .map(|d| (d.hostname.as_str(), d.role))
        .collect();
    errors.extend(names::duplicates(&named));
    let mut used = vec![false; intent.overrides.len()];
    for &i in devices.iter().flat_map(|d| &d.overrides) {
        used[i] = true;
    }
    let hostnames: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
    overrides::unused(&intent.overrides, &globs, &used, &hostnames, &mut errors);
    unknown_platforms(catalog, &devices, &mut errors);
    Placement {
        devices,
        errors,
        stand_in: false,
    }
}

/// One `AIF-PLAT-001` per platform the catalog lacks, at the setting that chose it for its first device.
fn unknown_platforms(catalog: &Catalog, devices: &[Placed], errors: &mut Vec<Finding>) {
    let mut unknown: Vec<(&str, Origin)> = Vec::new();
    for d in devices {
        if d.os.is_none() && !unknown.iter().any(|(p, _)| *p == d.platform) {
            unknown.push((&d.platform, d.platform_origin));
        }
    }
    for (p, origin) in unknown {
        errors.push(
            Finding::new(
                Rule::UnknownPlatform,
                format!("platform `{p}` is not in vendors/"),
            )
            .at(origin.pointer())
            .hint(crate::platform::hint_for(catalog, p)),
        );
    }
}

/// One unnamed device per tier the intent writes, on the tier's own platform, no override applied: what
/// the platform rules read when the fabric cannot be counted (its shape errors are reported instead of
/// anything compiled from it).
pub fn stand_in(intent: &Intent, catalog: &Catalog) -> Placement {
    let slot = |role, first: Option<u32>| Slot {
        role,
        zone: None,
        group: first,
        rail: first,
        side: None,
        plane: None,
        index: 1,
        seq: 0,
    };
    let slots = [
        slot(Role::SuperSpine, None),
        slot(Role::Spine, None),
        slot(Role::Leaf, Some(1)),
    ];
    Placement {
        devices: slots
            .into_iter()
            .filter_map(|s| placed(intent, catalog, s, String::new(), Vec::new()))
            .collect(),
        errors: Vec::new(),
        stand_in: true,
    }
}

/// The placement the platform rules read: [`place`] with the counts of `shape` (or, when the shape
/// failed, of [`shape::counts`]), or a [`stand_in`] when the fabric cannot be counted at all.
pub fn for_rules(intent: &Intent, catalog: &Catalog, shape: Option<&Shape>) -> Placement {
    let counts = match shape {
        Some(s) => Ok(s.counts()),
        None => shape::counts(intent),
    };
    match counts {
        Ok(c) => place(intent, catalog, &c),
        Err(_) => stand_in(intent, catalog),
    }
}

/// A platform the placement uses, with what the platform rules need to know about its devices.
#[derive(Clone, Debug)]
pub struct PlatformUse<'a> {
    /// Platform name, `<os>/<model>`.
    pub name: &'a str,
    /// Its OS.
    pub os: Os,
    /// Its profile.
    pub profile: &'a Platform,
    /// The roles of its devices.
    pub roles: Vec<Role>,
    /// The setting that chose it, the first in the intent's order among its devices' (leaf, spine,
    /// super-spine tier, then overrides in order).
    pub origin: Origin,
    /// Its devices, in output order.
    pub devices: Vec<&'a Placed>,
}

impl Placement {
    /// Every platform in the catalog that a device is placed on, in the intent's order of the settings
    /// that chose them (leaf, spine, super-spine tier, then overrides in order).
    pub fn platforms<'a>(&'a self, catalog: &'a Catalog) -> Vec<PlatformUse<'a>> {
        let mut by_name: BTreeMap<&str, ((u8, usize), PlatformUse<'a>)> = BTreeMap::new();
        for d in &self.devices {
            let Some((os, profile)) = catalog.get(&d.platform) else {
                continue;
            };
            let rank = match d.platform_origin {
                Origin::Base(_) => (0, d.role as usize),
                Origin::Override { index, .. } => (1, index),
            };
            let (best, u) = by_name.entry(&d.platform).or_insert_with(|| {
                let u = PlatformUse {
                    name: &d.platform,
                    os: *os,
                    profile,
                    roles: Vec::new(),
                    origin: d.platform_origin,
                    devices: Vec::new(),
                };
                (rank, u)
            });
            if rank < *best {
                *best = rank;
                u.origin = d.platform_origin;
            }
            if !u.roles.contains(&d.role) {
                u.roles.push(d.role);
            }
            u.devices.push(d);
        }
        let mut out: Vec<_> = by_name.into_values().collect();
        out.sort_by_key(|(rank, _)| *rank);
        out.into_iter().map(|(_, u)| u).collect()
    }
}

#[cfg(test)]
mod tests;
