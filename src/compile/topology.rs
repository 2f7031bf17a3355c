//! Topology expansion: every device, its platform (after overrides), its ports and every cable.
//!
//! Port assignment is readable and stable: server ports are the lowest ports in slot order, uplinks the
//! highest ports, spread round-robin over the spines (uplink k goes to spine k mod count); a spine's
//! leaf-facing ports follow the leaf order, so a new group takes new ports and moves none.

use super::pattern;
use super::shape::Shape;
use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::model::{
    BgpPlan, Device, Direction, FabricModel, Interface, Link, LinkTier, PortKind, QosPlan, Summary,
};
use crate::platform::{Catalog, Os, Platform};
use crate::rules::Rule;
use globset::Glob;
use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;
use std::sync::Arc;

/// A device while the compiler fills it in: the model's [`Device`] plus the compiler's bookkeeping.
/// It derefs to the `Device`, so passes read and write `d.hostname`, `d.interfaces`, ... directly.
#[derive(Clone, Debug)]
pub struct DraftDevice {
    /// The device being built (its `qos` is a shared placeholder until the QoS pass).
    pub dev: Device,
    /// 0-based position among all devices of the role: the allocation key.
    pub seq: u32,
    /// Override indices that matched this device, in order.
    pub overrides: Vec<usize>,
}

impl std::ops::Deref for DraftDevice {
    type Target = Device;
    fn deref(&self) -> &Device {
        &self.dev
    }
}

impl std::ops::DerefMut for DraftDevice {
    fn deref_mut(&mut self) -> &mut Device {
        &mut self.dev
    }
}

/// One end of a cable as the compiler tracks it.
#[derive(Clone, Copy, Debug)]
pub struct End {
    /// Device index.
    pub dev: usize,
    /// Interface index within the device.
    pub iface: usize,
}

/// A cable while the compiler fills it in.
#[derive(Clone, Debug)]
pub struct DraftLink {
    /// Tier name.
    pub tier: LinkTier,
    /// Lower end (None for a server).
    pub lower: Option<End>,
    /// Server name and NIC, for server links.
    pub server: Option<(String, String)>,
    /// Upper end.
    pub upper: End,
    /// Allocation index within the tier's pool.
    pub seq: u64,
    /// Speed.
    pub speed_gbps: u32,
    /// Cable metres.
    pub cable_m: u32,
    /// Subnet text, once addressed.
    pub subnet: Option<String>,
}

/// The fabric under construction.
#[derive(Clone, Debug)]
pub struct Draft {
    /// Fabric name.
    pub name: String,
    /// Devices in output order.
    pub devices: Vec<DraftDevice>,
    /// Cables.
    pub links: Vec<DraftLink>,
    /// Counts.
    pub summary: Summary,
}

impl Draft {
    /// Freezes the draft into the public model.
    pub fn finish(self) -> FabricModel {
        let devices_ref = &self.devices;
        let name_of = |e: &End| -> (String, String) {
            let d = &devices_ref[e.dev];
            (d.hostname.clone(), d.interfaces[e.iface].name.clone())
        };
        let links = self
            .links
            .iter()
            .map(|l| {
                let (a, a_port) = match (&l.lower, &l.server) {
                    (Some(e), _) => name_of(e),
                    (None, Some((s, n))) => (s.clone(), n.clone()),
                    (None, None) => (String::new(), String::new()),
                };
                let (b, b_port) = name_of(&l.upper);
                Link {
                    tier: l.tier,
                    a,
                    a_port,
                    b,
                    b_port,
                    speed_gbps: l.speed_gbps,
                    cable_m: l.cable_m,
                    subnet: l.subnet.clone(),
                }
            })
            .collect();
        let devices = self.devices.into_iter().map(|d| d.dev).collect();
        FabricModel {
            name: self.name,
            devices,
            links,
            summary: self.summary,
        }
    }
}

struct Planned {
    role: Role,
    zone: Option<u32>,
    group: Option<u32>,
    rail: Option<u32>,
    index: u32,
    seq: u32,
}

/// Expands the shape into devices (with overrides applied), ports and cables, checking every platform's
/// port budget. With `only`, every device exists (names, addresses and ASNs stay the same), but ports
/// and cables are built only where at least one end matches: `render --only` on a 100K-GPU fabric does
/// not expand the other two thousand switches.
pub fn build(
    intent: &Intent,
    catalog: &Catalog,
    s: &Shape,
    only: Option<&globset::GlobMatcher>,
) -> Result<Draft, Vec<Finding>> {
    let t = &intent.fabric.topology;
    let mut errs: Vec<Finding> = Vec::new();

    // 1. Devices in output order.
    let mut planned: Vec<Planned> = Vec::new();
    for i in 0..s.super_spines {
        planned.push(Planned {
            role: Role::SuperSpine,
            zone: None,
            group: None,
            rail: None,
            index: i + 1,
            seq: i,
        });
    }
    for z in 0..s.zones {
        for i in 0..s.spines_per_zone {
            planned.push(Planned {
                role: Role::Spine,
                zone: s.three_tier.then_some(z + 1),
                group: None,
                rail: None,
                index: i + 1,
                seq: z * s.spines_per_zone + i,
            });
        }
    }
    for g in 0..s.groups {
        for r in 0..s.rails {
            planned.push(Planned {
                role: Role::Leaf,
                zone: s.three_tier.then_some(g / s.groups_per_zone + 1),
                group: Some(g + 1),
                rail: Some(r + 1),
                index: g * s.rails + r + 1,
                seq: g * s.rails + r,
            });
        }
    }

    let globs: Vec<Option<globset::GlobMatcher>> = intent
        .overrides
        .iter()
        .enumerate()
        .map(|(i, o)| match Glob::new(&o.matches) {
            Ok(g) => Some(g.compile_matcher()),
            Err(e) => {
                errs.push(
                    Finding::new(
                        Rule::OverrideBadGlob,
                        format!("`{}` is not a valid glob: {e}", o.matches),
                    )
                    .at(format!("/overrides/{i}/match"))
                    .hint("use a hostname or a glob such as `su3-r*-leaf`"),
                );
                None
            }
        })
        .collect();

    let mut devices: Vec<DraftDevice> = Vec::with_capacity(planned.len());
    let placeholder_qos = Arc::new(QosPlan::empty());
    let mut pattern_failed = [false; 3];
    for p in &planned {
        let (pat, ptr, vals): (&str, &str, Vec<(&str, u32)>) = match p.role {
            Role::Leaf => (
                &t.leaf.hostname,
                "/fabric/topology/leaf/hostname",
                vec![
                    ("group", p.group.unwrap_or(0)),
                    ("rail", p.rail.unwrap_or(0)),
                    ("zone", p.zone.unwrap_or(1)),
                    ("index", p.index),
                ],
            ),
            Role::Spine => (
                &t.spine.hostname,
                "/fabric/topology/spine/hostname",
                vec![("index", p.index), ("zone", p.zone.unwrap_or(1))],
            ),
            Role::SuperSpine => (
                t.super_spine
                    .as_ref()
                    .map(|x| x.hostname.as_str())
                    .unwrap_or(""),
                "/fabric/topology/super_spine/hostname",
                vec![
                    ("index", p.index),
                    ("plane", (p.index - 1) / s.supers_per_plane.max(1) + 1),
                ],
            ),
        };
        let role_slot = p.role as usize;
        let hostname = match pattern::expand(pat, &vals).and_then(|h| {
            pattern::check_hostname(&h)?;
            Ok(h)
        }) {
            Ok(h) => h,
            Err(e) => {
                if !pattern_failed[role_slot] {
                    pattern_failed[role_slot] = true;
                    errs.push(
                        Finding::new(Rule::HostnameNotLabel, e)
                            .at(ptr)
                            .hint("hostnames are RFC 1123 labels: letters, digits and `-`, at most 63 characters"),
                    );
                }
                continue;
            }
        };
        let base_platform = match p.role {
            Role::Leaf => &t.leaf.platform,
            Role::Spine => &t.spine.platform,
            Role::SuperSpine => match &t.super_spine {
                Some(ss) => &ss.platform,
                None => continue,
            },
        };
        let mut platform = base_platform.clone();
        let mut matched = Vec::new();
        for (i, g) in globs.iter().enumerate() {
            if g.as_ref().is_some_and(|g| g.is_match(&hostname)) {
                matched.push(i);
                if let Some(pl) = &intent.overrides[i].platform {
                    platform = pl.clone();
                }
            }
        }
        let os = catalog
            .get(&platform)
            .map(|(os, _)| *os)
            .unwrap_or(Os::Nxos);
        devices.push(DraftDevice {
            dev: Device {
                hostname,
                role: p.role,
                os,
                platform,
                zone: p.zone,
                group: p.group,
                rail: p.rail,
                index: p.index,
                loopback: Ipv4Addr::UNSPECIFIED,
                management: None,
                interfaces: Vec::new(),
                server_subnet: None,
                bgp: BgpPlan {
                    asn: 0,
                    router_id: Ipv4Addr::UNSPECIFIED,
                    maximum_paths: intent.fabric.bgp.maximum_paths,
                    neighbors: Vec::new(),
                    peers: Vec::new(),
                    networks: Vec::new(),
                },
                qos: placeholder_qos.clone(),
                dlb: None,
                qp_hash: None,
                notes: Vec::new(),
            },
            seq: p.seq,
            overrides: matched,
        });
    }

    // Unique hostnames.
    // Case-insensitive: DNS names and file names on some file systems ignore case.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, d) in devices.iter().enumerate() {
        if let Some(first) = seen.insert(d.hostname.to_ascii_lowercase(), i) {
            let ptr = match d.role {
                Role::Leaf => "/fabric/topology/leaf/hostname",
                Role::Spine => "/fabric/topology/spine/hostname",
                Role::SuperSpine => "/fabric/topology/super_spine/hostname",
            };
            errs.push(
                Finding::new(
                    Rule::HostnameDuplicate,
                    format!(
                        "hostname `{}` is generated twice ({} and {})",
                        d.hostname, devices[first].role, d.role
                    ),
                )
                .at(ptr)
                .hint(match d.role {
                    Role::Leaf => "include {group} and {rail} (or {index}) in the leaf pattern",
                    Role::Spine => "include {index}, and {zone} in a three-tier fabric",
                    Role::SuperSpine => "include {index} in the super-spine pattern",
                }),
            );
            break;
        }
    }
    // Overrides must match something.
    for (i, o) in intent.overrides.iter().enumerate() {
        if globs[i].is_some() && !devices.iter().any(|d| d.overrides.contains(&i)) {
            errs.push(
                Finding::new(
                    Rule::OverrideMatchesNothing,
                    format!("override `{}` matches no device", o.matches),
                )
                .at(format!("/overrides/{i}/match"))
                .hint(format!(
                    "device names look like `{}`",
                    devices
                        .iter()
                        .rev()
                        .take(1)
                        .chain(devices.first())
                        .map(|d| d.hostname.as_str())
                        .collect::<Vec<_>>()
                        .join("`, `")
                )),
            );
        }
    }
    // Platforms must exist.
    let mut unknown: Vec<(&str, String)> = Vec::new();
    for d in &devices {
        if catalog.get(&d.platform).is_none() && !unknown.iter().any(|(p, _)| *p == d.platform) {
            let ptr = platform_pointer(intent, d);
            unknown.push((&d.platform, ptr));
        }
    }
    for (p, ptr) in unknown {
        let close = crate::platform::hint_for(catalog, p);
        errs.push(
            Finding::new(
                Rule::UnknownPlatform,
                format!("platform `{p}` is not in vendors/"),
            )
            .at(ptr)
            .hint(close),
        );
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    // 2. Port budgets per device (each device's own platform, overrides included).
    let server_cable = t.cable_length.server.metres();
    let ls_cable = t.cable_length.leaf_spine.metres();
    let ss_cable = t
        .cable_length
        .spine_super_spine
        .map(|l| l.metres())
        .unwrap_or(ls_cable);
    let mut budget_reported: Vec<String> = Vec::new();
    for d in &devices {
        let Some((_, pf)) = catalog.get(&d.platform) else {
            continue;
        };
        let (down, down_speed, up, up_speed) = match d.role {
            Role::Leaf => (
                s.servers_per_group,
                s.nic_speed,
                s.leaf_up,
                s.leaf_uplink_speed,
            ),
            Role::Spine => (
                s.spine_down,
                s.leaf_uplink_speed,
                s.spine_up,
                s.spine_uplink_speed,
            ),
            Role::SuperSpine => (s.super_down, s.spine_uplink_speed, 0, s.spine_uplink_speed),
        };
        let key = format!("{}|{}", d.role, d.platform);
        if budget_reported.contains(&key) {
            continue;
        }
        let mut problems = Vec::new();
        if down + up > pf.ports.count {
            problems.push(format!(
                "{} needs {down} down + {up} up = {} ports; {} has {}",
                d.role,
                down + up,
                d.platform,
                pf.ports.count
            ));
        }
        for (what, sp, n) in [("down", down_speed, down), ("up", up_speed, up)] {
            if n > 0 && !pf.ports.speeds.contains(&sp) {
                problems.push(format!(
                    "{} {what}links run at {sp}; {} ports run at {}",
                    d.role,
                    d.platform,
                    pf.ports
                        .speeds
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        if !problems.is_empty() {
            budget_reported.push(key);
            for p in problems {
                errs.push(
                    Finding::new(Rule::PlatformPorts, format!("{p} (first device: {})", d.hostname))
                        .at(platform_pointer(intent, d))
                        .hint("choose a platform with more ports or the right speed, fewer servers per group, more oversubscription, or more spines"),
                );
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    // 3. Interfaces and cables.
    let index_of = |role: Role, seq: u32| -> usize {
        match role {
            Role::SuperSpine => seq as usize,
            Role::Spine => (s.super_spines + seq) as usize,
            Role::Leaf => (s.super_spines + s.spines() + seq) as usize,
        }
    };
    let mut links: Vec<DraftLink> = Vec::new();
    let mtu = intent.fabric.mtu;
    let pf_of =
        |d: &DraftDevice| -> &Platform { &catalog.get(&d.platform).expect("checked above").1 };
    // Interface names of every port, once per platform (not once per port).
    let mut port_cache: BTreeMap<String, PortCache> = BTreeMap::new();
    for d in &devices {
        if !port_cache.contains_key(&d.platform) {
            port_cache.insert(d.platform.clone(), PortCache::new(pf_of(d)));
        }
    }
    let port_cache = &port_cache;
    let ports_of = |d: &DraftDevice| -> &PortCache { &port_cache[d.platform.as_str()] };
    let selected: Vec<bool> = devices
        .iter()
        .map(|d| only.is_none_or(|g| g.is_match(&d.hostname)))
        .collect();

    // Server ports on leaves.
    for li in 0..s.leaves() as usize {
        let di = index_of(Role::Leaf, li as u32);
        if !selected[di] {
            continue;
        }
        let (group, rail) = (
            devices[di].group.unwrap_or(1),
            devices[di].rail.unwrap_or(1),
        );
        for slot in 1..=s.servers_per_group {
            let server_no = (group - 1) * s.servers_per_group + slot;
            if server_no > s.servers {
                break;
            }
            let sname = pattern::expand(
                &t.server_hostname,
                &[("index", server_no), ("group", group), ("slot", slot)],
            )
            .and_then(|n| pattern::check_token(&n).map(|_| n));
            let nic = pattern::expand(&t.server_nic, &[("rail", rail), ("nic", rail - 1)])
                .and_then(|n| pattern::check_token(&n).map(|_| n));
            let (sname, nic) = match (sname, nic) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) => {
                    return Err(vec![
                        Finding::new(Rule::ServerNameUnsafe, e)
                            .at("/fabric/topology/server_hostname")
                            .hint("server names reach port descriptions: use letters, digits and - _ . : /, e.g. `gpu{index:04}`"),
                    ]);
                }
                (_, Err(e)) => {
                    return Err(vec![
                        Finding::new(Rule::ServerNameUnsafe, e)
                            .at("/fabric/topology/server_nic")
                            .hint("NIC names reach port descriptions: use letters, digits and - _ . : /, e.g. `eth{nic}`"),
                    ]);
                }
            };
            let iface = interface(
                ports_of(&devices[di]),
                slot,
                PortKind::Server,
                Direction::Down,
                s.nic_speed.gbps(),
                &sname,
                &nic,
                mtu,
                server_cable,
            );
            devices[di].interfaces.push(iface);
            let seq = ((group - 1) * s.rails * s.servers_per_group
                + (rail - 1) * s.servers_per_group
                + (slot - 1)) as u64;
            links.push(DraftLink {
                tier: LinkTier::ServerLeaf,
                lower: None,
                server: Some((sname, nic)),
                upper: End {
                    dev: di,
                    iface: devices[di].interfaces.len() - 1,
                },
                seq,
                speed_gbps: s.nic_speed.gbps(),
                cable_m: server_cable,
                subnet: None,
            });
        }
    }

    // Leaf uplinks to spines of the leaf's zone. Spine ports: local leaf ordinal × links + link.
    for li in 0..s.leaves() {
        let di = index_of(Role::Leaf, li);
        let zone0 = li / s.leaves_per_zone();
        let local = li % s.leaves_per_zone();
        let leaf_ports = pf_of(&devices[di]).ports.count;
        for k in 0..s.leaf_up {
            let spine_local = k % s.spines_per_zone;
            let link_no = k / s.spines_per_zone;
            let si = index_of(Role::Spine, zone0 * s.spines_per_zone + spine_local);
            if !selected[di] && !selected[si] {
                continue;
            }
            let leaf_port = leaf_ports - s.leaf_up + 1 + k;
            let spine_port = local * s.links_per_spine + link_no + 1;
            links.push(connect(
                &mut devices,
                port_cache,
                LinkTier::LeafSpine,
                (di, leaf_port),
                (si, spine_port),
                s.leaf_uplink_speed.gbps(),
                mtu,
                ls_cable,
                li as u64 * s.leaf_up as u64 + k as u64,
            ));
        }
    }

    // Spine uplinks to the super-spines of the spine's plane.
    if s.three_tier {
        let spines_per_plane_per_zone = s.spines_per_zone / s.planes;
        for gi in 0..s.spines() {
            let si = index_of(Role::Spine, gi);
            let zone0 = gi / s.spines_per_zone;
            let local = gi % s.spines_per_zone;
            let plane = local % s.planes;
            let ordinal = zone0 * spines_per_plane_per_zone + local / s.planes;
            let spine_ports = pf_of(&devices[si]).ports.count;
            for k in 0..s.spine_up {
                let ss_local = k % s.supers_per_plane;
                let link_no = k / s.supers_per_plane;
                let ssi = index_of(Role::SuperSpine, plane * s.supers_per_plane + ss_local);
                if !selected[si] && !selected[ssi] {
                    continue;
                }
                let spine_port = spine_ports - s.spine_up + 1 + k;
                let ss_port = ordinal * s.links_per_super + link_no + 1;
                links.push(connect(
                    &mut devices,
                    port_cache,
                    LinkTier::SpineSuperSpine,
                    (si, spine_port),
                    (ssi, ss_port),
                    s.spine_uplink_speed.gbps(),
                    mtu,
                    ss_cable,
                    gi as u64 * s.spine_up as u64 + k as u64,
                ));
            }
        }
    }

    // Keep every device's interfaces in port order; remap link ends accordingly.
    let mut remap: Vec<Vec<usize>> = Vec::with_capacity(devices.len());
    for d in devices.iter_mut() {
        if d.interfaces.is_sorted_by_key(|i| i.port) {
            remap.push((0..d.interfaces.len()).collect());
            continue;
        }
        let mut order: Vec<usize> = (0..d.interfaces.len()).collect();
        order.sort_by_key(|&i| d.interfaces[i].port);
        let mut pos = vec![0usize; order.len()];
        for (new, &old) in order.iter().enumerate() {
            pos[old] = new;
        }
        let mut sorted: Vec<Interface> = Vec::with_capacity(d.interfaces.len());
        let mut old = std::mem::take(&mut d.interfaces);
        for &i in &order {
            sorted.push(std::mem::replace(&mut old[i], placeholder_interface()));
        }
        d.interfaces = sorted;
        remap.push(pos);
    }
    for l in links.iter_mut() {
        if let Some(e) = l.lower.as_mut() {
            e.iface = remap[e.dev][e.iface];
        }
        l.upper.iface = remap[l.upper.dev][l.upper.iface];
    }

    let summary = Summary {
        leaves: s.leaves(),
        spines: s.spines(),
        super_spines: s.super_spines,
        servers: s.servers,
        gpus: s.servers * s.rails,
        // Counted from the shape, so a filtered build (`--only`) still reports the whole fabric.
        server_links: s.servers * s.rails,
        leaf_spine_links: s.leaves() * s.leaf_up,
        spine_super_spine_links: s.spines() * s.spine_up,
        leaf_oversubscription: ratio_text(
            s.servers_per_group as u64 * s.nic_speed.gbps() as u64,
            s.leaf_up as u64 * s.leaf_uplink_speed.gbps() as u64,
        ),
        spine_oversubscription: s.three_tier.then(|| {
            ratio_text(
                s.spine_down as u64 * s.leaf_uplink_speed.gbps() as u64,
                s.spine_up as u64 * s.spine_uplink_speed.gbps() as u64,
            )
        }),
        leaf_ecmp_width: s.leaf_up,
        pools: Vec::new(),
    };
    Ok(Draft {
        name: intent.fabric.name.clone(),
        devices,
        links,
        summary,
    })
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `down:up` reduced (`1:1`, `4:1`, `3:2`).
fn ratio_text(down: u64, up: u64) -> String {
    let g = gcd(down, up).max(1);
    format!("{}:{}", down / g, up / g)
}

fn placeholder_interface() -> Interface {
    Interface {
        name: String::new(),
        port: 0,
        kind: PortKind::Fabric,
        direction: Direction::Down,
        speed_gbps: 0,
        peer: String::new(),
        peer_port: String::new(),
        description: String::new(),
        address: None,
        ip: None,
        peer_ip: None,
        vlan: None,
        mtu: 0,
        cable_m: 0,
        dlb: false,
    }
}

/// Cables `lower` (device index, port) to `upper`: adds both interfaces and returns the link.
#[allow(clippy::too_many_arguments)]
fn connect(
    devices: &mut [DraftDevice],
    cache: &BTreeMap<String, PortCache>,
    tier: LinkTier,
    (lo, lo_port): (usize, u32),
    (up, up_port): (usize, u32),
    speed_gbps: u32,
    mtu: u32,
    cable_m: u32,
    seq: u64,
) -> DraftLink {
    let (lo_cache, up_cache) = (&cache[&devices[lo].platform], &cache[&devices[up].platform]);
    let lower = interface(
        lo_cache,
        lo_port,
        PortKind::Fabric,
        Direction::Up,
        speed_gbps,
        &devices[up].hostname,
        up_cache.name(up_port),
        mtu,
        cable_m,
    );
    let upper = interface(
        up_cache,
        up_port,
        PortKind::Fabric,
        Direction::Down,
        speed_gbps,
        &devices[lo].hostname,
        lo_cache.name(lo_port),
        mtu,
        cable_m,
    );
    devices[lo].interfaces.push(lower);
    devices[up].interfaces.push(upper);
    DraftLink {
        tier,
        lower: Some(End {
            dev: lo,
            iface: devices[lo].interfaces.len() - 1,
        }),
        server: None,
        upper: End {
            dev: up,
            iface: devices[up].interfaces.len() - 1,
        },
        seq,
        speed_gbps,
        cable_m,
        subnet: None,
    }
}

/// Interface names of every front-panel port of one platform.
struct PortCache {
    names: Vec<String>,
}

impl PortCache {
    fn new(pf: &Platform) -> PortCache {
        PortCache {
            names: (1..=pf.ports.count).map(|p| pf.interface_name(p)).collect(),
        }
    }
    fn name(&self, port: u32) -> &str {
        &self.names[port as usize - 1]
    }
}

#[allow(clippy::too_many_arguments)]
fn interface(
    cache: &PortCache,
    port: u32,
    kind: PortKind,
    direction: Direction,
    speed_gbps: u32,
    peer: &str,
    peer_port: &str,
    mtu: u32,
    cable_m: u32,
) -> Interface {
    Interface {
        name: cache.name(port).to_string(),
        port,
        kind,
        direction,
        speed_gbps,
        peer: peer.to_string(),
        peer_port: peer_port.to_string(),
        description: format!("{peer}:{peer_port}"),
        address: None,
        ip: None,
        peer_ip: None,
        vlan: None,
        mtu,
        cable_m,
        dlb: false,
    }
}

/// The intent pointer that chose a device's platform (an override's, or its tier's).
pub fn platform_pointer(intent: &Intent, d: &DraftDevice) -> String {
    for &i in d.overrides.iter().rev() {
        if intent.overrides[i].platform.is_some() {
            return format!("/overrides/{i}/platform");
        }
    }
    match d.role {
        Role::Leaf => "/fabric/topology/leaf/platform".into(),
        Role::Spine => "/fabric/topology/spine/platform".into(),
        Role::SuperSpine => "/fabric/topology/super_spine/platform".into(),
    }
}
