//! Topology expansion: the placed devices' ports and every cable, in passes: the placed devices as
//! drafts, port budgets, server ports, leaf uplinks, spine uplinks, port order, the summary. Names,
//! positions and platforms come from [`crate::place`].
//!
//! Port assignment is readable and stable: server ports are the lowest ports in slot order, uplinks the
//! highest ports, spread round-robin over the spines (uplink k goes to spine k mod count); a spine's
//! leaf-facing ports follow the leaf order, so a new group takes new ports and moves none.

use super::draft::{Draft, DraftDevice, DraftLink, End};
use super::ports::{self, PortCache};
use super::stable::{self, Cable, Index, Ports};
use crate::diag::Finding;
use crate::intent::{Intent, Role, Topology};
use crate::model::{
    BgpPlan, Device, Direction, Interface, LinkTier, Name, NicEnd, PortGroup, PortKind, QosPlan,
    Summary, UnusedPort,
};
use crate::place::{self, Placement};
use crate::platform::{Catalog, Os};
use crate::rules::Rule;
use crate::shape::Shape;
use crate::shape::homing::NicPort;
use crate::shape::pattern;
use crate::shape::pattern::PatternError;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;

/// Builds ports and cables on the placed devices, checking every platform's port budget. With `only`,
/// every device exists (names, addresses and ASNs stay the same), but ports and cables are built only
/// where at least one end matches: `render --only` on a 100K-GPU fabric does not expand the other two
/// thousand switches. The placement must have no errors (the compiler checks).
pub fn build(
    intent: &Intent,
    catalog: &Catalog,
    s: &Shape,
    placement: Placement,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&Index>,
) -> Result<Draft, Vec<Finding>> {
    let mut devices = draft_devices(intent, placement);
    let layouts = port_budgets(intent, catalog, s, &devices)?;
    for d in devices.iter_mut() {
        d.dev.port_groups = layouts[&(d.role, d.platform.clone())].clone();
        if let Some((_, pf)) = catalog.get(&d.platform) {
            d.dev
                .notes
                .extend(ports::note(pf, d.os.as_str(), &d.port_groups));
            if let Some(paths) = pf
                .sonic
                .as_ref()
                .and_then(|s| sonic_max_paths(intent, d, s))
            {
                d.dev.bgp.maximum_paths = paths;
            }
        }
    }
    let w = Wiring::new(intent, catalog, s, &devices, &layouts, only);
    let (servers, mut links) = server_ports(&w, &devices)?;
    let mut plan = Vec::new();
    leaf_uplinks(&w, &devices, &mut plan);
    if s.three_tier {
        spine_uplinks(&w, &devices, &mut plan);
    }
    if let Some(ix) = lock {
        keep_locked_cables(&w, &devices, &servers, &mut plan, ix, only.is_some())?;
    }
    let fabric = cable(&w, &servers, &plan, &mut links);
    let remap = interfaces(&w, &mut devices, servers, fabric);
    links.par_iter_mut().for_each(|l| {
        if let Some(e) = l.lower.as_mut() {
            e.iface = remap[e.dev][e.iface];
        }
        l.upper.iface = remap[l.upper.dev][l.upper.iface];
    });
    unused_ports(&w, &mut devices);
    Ok(Draft {
        name: intent.fabric.name.clone(),
        devices,
        links,
        summary: summary(s),
        hostnames: w.hostnames,
    })
}

/// Puts the planned cables on the ports and /31s the lock keeps ([`stable::cables`]). With `--only`
/// (`partial`) a cable the lock does not hold is refused: its ports depend on cables not built.
fn keep_locked_cables(
    w: &Wiring,
    devices: &[DraftDevice],
    servers: &[Vec<Interface>],
    plan: &mut [Cable],
    ix: &Index,
    partial: bool,
) -> Result<(), Vec<Finding>> {
    let mut ports = Ports {
        names: devices.iter().map(|d| d.hostname.as_str()).collect(),
        counts: devices.iter().map(|d| w.ports_of(d).count()).collect(),
        taken: devices
            .iter()
            .zip(servers)
            .map(|(d, ifaces)| {
                let mut taken = vec![false; w.ports_of(d).count() as usize + 1];
                for i in ifaces {
                    if let Some(t) = taken.get_mut(i.port as usize) {
                        *t = true;
                    }
                }
                taken
            })
            .collect(),
    };
    let new = stable::cables(plan, ix, &mut ports);
    if partial && new > 0 {
        return Err(vec![
            Finding::new(
                Rule::LockNeedsFullRender,
                format!("{new} cables of the selected devices are not in the lock yet"),
            )
            .hint("render the whole fabric once (without --only) so the lock holds them, then render with --only"),
        ]);
    }
    Ok(())
}

/// The placed devices as drafts: named and placed, without ports, addresses or features yet.
/// The `maximum-paths` a SONiC switch runs: its release's (constants.yml, not config_db), the oldest
/// release the SKU lists when the intent sets none (as AIF-BGP-008 assumes). The FRR form and the
/// routing analysis carry it; SONiC's own config does not set it.
fn sonic_max_paths(
    intent: &Intent,
    d: &DraftDevice,
    sonic: &crate::platform::SonicFacts,
) -> Option<u32> {
    let (text, _) = crate::place::os_version(intent, d);
    let release = text.or_else(|| sonic.bgp_max_paths.first().map(|m| m.release.as_str()))?;
    sonic.max_paths(release)
}

fn draft_devices(intent: &Intent, placement: Placement) -> Vec<DraftDevice> {
    let placeholder_qos = Arc::new(QosPlan::empty());
    placement
        .devices
        .into_iter()
        .map(|p| (crate::place::site_lines(intent, &p), p))
        .map(|(site, p)| DraftDevice {
            dev: Device {
                hostname: p.hostname,
                role: p.role,
                // Known: the compiler only builds on a placement without errors (no unknown platform).
                os: p.os.unwrap_or(Os::Nxos),
                platform: p.platform,
                zone: p.zone,
                group: p.group,
                rail: p.rail,
                plane: p.plane,
                index: p.index,
                loopback: Ipv4Addr::UNSPECIFIED,
                management: None,
                interfaces: Vec::new(),
                unused_ports: Vec::new(),
                port_groups: Vec::new(),
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
                acknowledged: Vec::new(),
                site_lines: site.into_iter().map(|(l, _)| l.to_string()).collect(),
                baseline: None,
            },
            seq: p.seq,
            overrides: p.overrides,
        })
        .collect()
}

/// Port layouts per role and platform (each device's own platform, overrides included): enough ports
/// at the right speeds (`AIF-FAB-010`), a port mode for every link speed (`AIF-FAB-011`), reported
/// once per role and platform at its first device.
type Layouts = BTreeMap<(Role, String), Vec<PortGroup>>;

/// Port names per role, then platform (looked up by `&str`, without allocating).
type PortCaches = BTreeMap<Role, BTreeMap<String, PortCache>>;

fn port_budgets(
    intent: &Intent,
    catalog: &Catalog,
    s: &Shape,
    devices: &[DraftDevice],
) -> Result<Layouts, Vec<Finding>> {
    let mut errs = Vec::new();
    let mut layouts = Layouts::new();
    for d in devices {
        let key = (d.role, d.platform.clone());
        if layouts.contains_key(&key) {
            continue;
        }
        let Some((_, pf)) = catalog.get(&d.platform) else {
            layouts.insert(key, Vec::new());
            continue;
        };
        let need = port_need(intent, s, d.role);
        match ports::layout(pf, &d.platform, &d.role.to_string(), need) {
            Ok(groups) => {
                layouts.insert(key, groups);
            }
            Err(problems) => {
                layouts.insert(key, Vec::new());
                let at = place::platform(intent, d).map_or_else(String::new, |(_, o)| o.pointer());
                errs.extend(ports::findings(intent, d, pf, &at, problems));
            }
        }
    }
    if errs.is_empty() {
        Ok(layouts)
    } else {
        Err(errs)
    }
}

/// The ports a role needs: down and up counts at their link speeds, and the role's `breakout`.
fn port_need(intent: &Intent, s: &Shape, role: Role) -> ports::Need {
    let t = &intent.fabric.topology;
    match role {
        Role::Leaf => ports::Need {
            down: (s.ports_per_leaf(), s.nic_speed),
            up: (s.leaf_up, s.leaf_uplink_speed),
            explicit: t.leaf.breakout,
        },
        Role::Spine => ports::Need {
            down: (s.spine_down, s.leaf_uplink_speed),
            up: (s.spine_up, s.spine_uplink_speed),
            explicit: t.spine.breakout,
        },
        Role::SuperSpine => ports::Need {
            down: (s.super_down, s.spine_uplink_speed),
            up: (0, s.spine_uplink_speed),
            explicit: t.super_spine.as_ref().and_then(|x| x.breakout),
        },
    }
}

/// What the wiring passes share: the shape, every platform's port names, which devices to expand, and
/// the per-port settings.
struct Wiring<'a> {
    s: &'a Shape,
    t: &'a Topology,
    /// Interface names of every port, once per role and platform (not once per port).
    ports: PortCaches,
    /// Whether ports and cables are built for each device (`--only`).
    selected: Vec<bool>,
    /// Every device's hostname, shared by the interfaces and cables that name it.
    hostnames: Vec<Name>,
    mtu: u32,
    server_cable: u32,
    leaf_spine_cable: u32,
    spine_super_cable: u32,
}

impl<'a> Wiring<'a> {
    fn new(
        intent: &'a Intent,
        catalog: &Catalog,
        s: &'a Shape,
        devices: &[DraftDevice],
        layouts: &Layouts,
        only: Option<&globset::GlobMatcher>,
    ) -> Wiring<'a> {
        let t = &intent.fabric.topology;
        let mut ports = PortCaches::new();
        for ((role, platform), groups) in layouts {
            if let Some((_, pf)) = catalog.get(platform) {
                let cache = PortCache::new(pf, groups);
                ports
                    .entry(*role)
                    .or_default()
                    .insert(platform.clone(), cache);
            }
        }
        let c = &t.cable_length;
        let leaf_spine_cable = c.leaf_spine.metres();
        Wiring {
            s,
            t,
            ports,
            selected: devices
                .iter()
                .map(|d| only.is_none_or(|g| g.is_match(&d.hostname)))
                .collect(),
            hostnames: devices
                .iter()
                .map(|d| Name::from(d.hostname.as_str()))
                .collect(),
            mtu: intent.fabric.mtu,
            server_cable: c.server.metres(),
            leaf_spine_cable,
            spine_super_cable: c.spine_super_spine.map_or(leaf_spine_cable, |l| l.metres()),
        }
    }

    /// The index in the device list of the `seq`-th device of a role.
    fn index_of(&self, role: Role, seq: u32) -> usize {
        let s = self.s;
        match role {
            Role::SuperSpine => seq as usize,
            Role::Spine => (s.super_spines + seq) as usize,
            Role::Leaf => (s.super_spines + s.spines() + seq) as usize,
        }
    }

    /// The port names of a device's platform.
    fn ports_of(&self, d: &DraftDevice) -> &PortCache {
        &self.ports[&d.role][d.platform.as_str()]
    }

    /// The link speed of a switch tier.
    fn speed(&self, tier: LinkTier) -> u32 {
        match tier {
            LinkTier::SpineSuperSpine => self.s.spine_uplink_speed.gbps(),
            _ => self.s.leaf_uplink_speed.gbps(),
        }
    }

    /// The cable length of a switch tier.
    fn cable(&self, tier: LinkTier) -> u32 {
        match tier {
            LinkTier::SpineSuperSpine => self.spine_super_cable,
            _ => self.leaf_spine_cable,
        }
    }
}

/// Server ports on the leaves, the lowest ports in the order [`Homes`](crate::shape::homing::Homes) gives
/// (slot, rail on rack leaves, NIC port on `same-leaf`), each with its server-leaf cable: every device's
/// server interfaces (built per leaf in parallel) and the cables in leaf order.
#[allow(clippy::type_complexity)]
fn server_ports(
    w: &Wiring,
    devices: &[DraftDevice],
) -> Result<(Vec<Vec<Interface>>, Vec<DraftLink>), Vec<Finding>> {
    let names = ServerNames::new(w);
    let per_leaf: Vec<_> = (0..w.s.leaves())
        .into_par_iter()
        .map(|li| leaf_servers(w, &names, devices, li))
        .collect();
    let mut servers: Vec<Vec<Interface>> = devices.iter().map(|_| Vec::new()).collect();
    let mut links = Vec::with_capacity(w.s.server_ports() as usize);
    for (li, leaf) in per_leaf.into_iter().enumerate() {
        let (ifaces, cables) = leaf?;
        links.extend(cables);
        servers[w.index_of(Role::Leaf, li as u32)] = ifaces;
    }
    Ok((servers, links))
}

/// The server interfaces and cables of the `li`-th leaf (none when `--only` skips it), or the first
/// unsafe server name.
#[allow(clippy::type_complexity)]
fn leaf_servers(
    w: &Wiring,
    names: &ServerNames,
    devices: &[DraftDevice],
    li: u32,
) -> Result<(Vec<Interface>, Vec<DraftLink>), Vec<Finding>> {
    let s = w.s;
    let (per_group, per_leaf) = (s.leaves_per_group(), s.ports_per_leaf());
    let di = w.index_of(Role::Leaf, li);
    if !w.selected[di] {
        return Ok((Vec::new(), Vec::new()));
    }
    // Room for the uplinks too: they join these interfaces.
    let mut ifaces = Vec::with_capacity((per_leaf + s.leaf_up) as usize);
    let mut links = Vec::with_capacity(per_leaf as usize);
    let group = devices[di].group.unwrap_or(1);
    let j = li % per_group;
    for k in 0..per_leaf {
        let n = s.homes.nic_port(j, k);
        let server_no = (group - 1) * s.servers_per_group + n.slot + 1;
        if server_no > s.servers {
            break;
        }
        let (sname, nic) = names.of(w.t, server_no, group, n)?;
        ifaces.push(interface(
            w.ports_of(&devices[di]),
            k + 1,
            PortKind::Server,
            Direction::Down,
            s.nic_speed.gbps(),
            (&sname, &nic),
            w.mtu,
            w.server_cable,
        ));
        let seq = ((group - 1) as u64 * per_group as u64 + j as u64) * per_leaf as u64 + k as u64;
        links.push(DraftLink {
            tier: LinkTier::ServerLeaf,
            lower: None,
            server: Some((sname, nic)),
            nic: Some(NicEnd {
                rail: n.rail + 1,
                port: n.port + 1,
            }),
            upper: End {
                dev: di,
                iface: ifaces.len() - 1,
            },
            seq,
            speed_gbps: s.nic_speed.gbps(),
            cable_m: w.server_cable,
            subnet: None,
            pinned: None,
        });
    }
    Ok((ifaces, links))
}

/// Server hostnames and NIC names, expanded once (not once per NIC port): every server's hostname
/// by number, and the NIC names of the first server's rails and ports.
struct ServerNames {
    servers: Vec<Result<Name, PatternError>>,
    per_group: u32,
    nics: BTreeMap<(u32, u32), Result<Name, PatternError>>,
}

impl ServerNames {
    fn new(w: &Wiring) -> ServerNames {
        let (s, t) = (w.s, w.t);
        let per_group = s.servers_per_group.max(1);
        let servers = (0..s.servers)
            .into_par_iter()
            .map(|i| server_name(t, i + 1, i / per_group + 1, i % per_group).map(Name::from))
            .collect();
        let mut nics = BTreeMap::new();
        for j in 0..s.leaves_per_group() {
            for k in 0..s.ports_per_leaf() {
                let n = s.homes.nic_port(j, k);
                nics.entry((n.rail, n.port))
                    .or_insert_with(|| nic_name(t, n).map(Name::from));
            }
        }
        ServerNames {
            servers,
            per_group,
            nics,
        }
    }

    /// Server `server_no`'s hostname and the name of its NIC port `n`, or why they are unsafe
    /// (`AIF-NAME-003`): from the expanded names when they were expanded with these values.
    fn of(
        &self,
        t: &Topology,
        server_no: u32,
        group: u32,
        n: NicPort,
    ) -> Result<(Name, Name), Vec<Finding>> {
        let i = server_no - 1;
        let expanded = (group, n.slot) == (i / self.per_group + 1, i % self.per_group);
        let sname = match self.servers.get(i as usize) {
            Some(name) if expanded => name.clone(),
            _ => server_name(t, server_no, group, n.slot).map(Name::from),
        };
        let nic = match self.nics.get(&(n.rail, n.port)) {
            Some(name) => name.clone(),
            None => nic_name(t, n).map(Name::from),
        };
        names_or_finding(sname, nic)
    }
}

/// The hostname of server `server_no` (in `group`, 0-based `slot`), checked as a config token.
fn server_name(
    t: &Topology,
    server_no: u32,
    group: u32,
    slot: u32,
) -> Result<String, PatternError> {
    pattern::expand(
        &t.server_hostname,
        &[
            ("index", server_no),
            ("group", group),
            ("rack", group),
            ("slot", slot + 1),
        ],
    )
    .and_then(|n| pattern::check_token(&n).map(|_| n))
}

/// The name of NIC port `n`, checked as a config token.
fn nic_name(t: &Topology, n: NicPort) -> Result<String, PatternError> {
    let values = [("rail", n.rail + 1), ("nic", n.rail), ("port", n.port + 1)];
    pattern::expand(&t.server_nic, &values).and_then(|n| pattern::check_token(&n).map(|_| n))
}

/// A server's hostname and NIC name, or why they are unsafe (`AIF-NAME-003`; the hostname first).
fn names_or_finding(
    sname: Result<Name, PatternError>,
    nic: Result<Name, PatternError>,
) -> Result<(Name, Name), Vec<Finding>> {
    match (sname, nic) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(e), _) => Err(vec![
            Finding::new(Rule::ServerNameUnsafe, e.to_string())
                .at("/fabric/topology/server_hostname")
                .hint("server names reach port descriptions: use letters, digits and - _ . : /, e.g. `gpu{index:04}`"),
        ]),
        (_, Err(e)) => Err(vec![
            Finding::new(Rule::ServerNameUnsafe, e.to_string())
                .at("/fabric/topology/server_nic")
                .hint("NIC names reach port descriptions: use letters, digits and - _ . : /, e.g. `eth{nic}`"),
        ]),
    }
}

/// Leaf uplinks to the spines of the leaf's zone and leaf plane: the leaf's highest ports, uplink k to
/// the plane's spine k mod its count (spine n of a zone is in plane n mod planes); a spine's port is the
/// leaf's ordinal among its plane's leaves in the zone × links per spine + link.
fn leaf_uplinks(w: &Wiring, devices: &[DraftDevice], plan: &mut Vec<Cable>) {
    let s = w.s;
    let (planes, spp) = (s.homes.leaf_planes(), s.spines_per_leaf_plane);
    for li in 0..s.leaves() {
        let di = w.index_of(Role::Leaf, li);
        let zone0 = li / s.leaves_per_zone();
        let plane = li % planes;
        let local = li % s.leaves_per_zone() / planes;
        let leaf_ports = w.ports_of(&devices[di]).count();
        for k in 0..s.leaf_up {
            let spine_local = plane + planes * (k % spp);
            let link_no = k / spp;
            let si = w.index_of(Role::Spine, zone0 * s.spines_per_zone + spine_local);
            if !w.selected[di] && !w.selected[si] {
                continue;
            }
            plan.push(Cable {
                tier: LinkTier::LeafSpine,
                lower: (di, leaf_ports - s.leaf_up + 1 + k),
                upper: (si, local * s.links_per_spine + link_no + 1),
                seq: li as u64 * s.leaf_up as u64 + k as u64,
                pinned: None,
            });
        }
    }
}

/// Spine uplinks to the super-spines of the spine's plane: the spine's highest ports, spread like the
/// leaf uplinks.
fn spine_uplinks(w: &Wiring, devices: &[DraftDevice], plan: &mut Vec<Cable>) {
    let s = w.s;
    let spines_per_plane_per_zone = s.spines_per_zone / s.planes;
    for gi in 0..s.spines() {
        let si = w.index_of(Role::Spine, gi);
        let zone0 = gi / s.spines_per_zone;
        let local = gi % s.spines_per_zone;
        let plane = local % s.planes;
        let ordinal = zone0 * spines_per_plane_per_zone + local / s.planes;
        let spine_ports = w.ports_of(&devices[si]).count();
        for k in 0..s.spine_up {
            let ss_local = k % s.supers_per_plane;
            let link_no = k / s.supers_per_plane;
            let ssi = w.index_of(Role::SuperSpine, plane * s.supers_per_plane + ss_local);
            if !w.selected[si] && !w.selected[ssi] {
                continue;
            }
            plan.push(Cable {
                tier: LinkTier::SpineSuperSpine,
                lower: (si, spine_ports - s.spine_up + 1 + k),
                upper: (ssi, ordinal * s.links_per_super + link_no + 1),
                seq: gi as u64 * s.spine_up as u64 + k as u64,
                pinned: None,
            });
        }
    }
}

/// A switch port a cable uses, before its names are spelled out.
#[derive(Clone, Copy, Debug)]
struct FabricPort {
    port: u32,
    direction: Direction,
    speed_gbps: u32,
    cable_m: u32,
    /// The device and port at the other end.
    peer: (usize, u32),
}

/// Turns the planned cables into links (each end's interface index counting on from the device's
/// server ports) and returns every device's switch ports in cable order.
fn cable(
    w: &Wiring,
    servers: &[Vec<Interface>],
    plan: &[Cable],
    links: &mut Vec<DraftLink>,
) -> Vec<Vec<FabricPort>> {
    let mut fabric: Vec<Vec<FabricPort>> = servers.iter().map(|_| Vec::new()).collect();
    links.reserve(plan.len());
    for c in plan {
        let (speed_gbps, cable_m) = (w.speed(c.tier), w.cable(c.tier));
        let mut end = |(dev, port): (usize, u32), direction, peer| {
            fabric[dev].push(FabricPort {
                port,
                direction,
                speed_gbps,
                cable_m,
                peer,
            });
            End {
                dev,
                iface: servers[dev].len() + fabric[dev].len() - 1,
            }
        };
        let lower = end(c.lower, Direction::Up, c.upper);
        let upper = end(c.upper, Direction::Down, c.lower);
        links.push(DraftLink {
            tier: c.tier,
            lower: Some(lower),
            server: None,
            nic: None,
            upper,
            seq: c.seq,
            speed_gbps,
            cable_m,
            subnet: None,
            pinned: c.pinned,
        });
    }
    fabric
}

/// Gives every device its interfaces in port order (server ports, then switch ports, built per device
/// in parallel) and returns, per device, each interface's new position by its index in cable order.
fn interfaces(
    w: &Wiring,
    devices: &mut [DraftDevice],
    servers: Vec<Vec<Interface>>,
    fabric: Vec<Vec<FabricPort>>,
) -> Vec<Vec<usize>> {
    let built: Vec<(Vec<Interface>, Vec<usize>)> = servers
        .into_par_iter()
        .zip(fabric)
        .enumerate()
        .map(|(di, (srv, fab))| device_interfaces(w, devices, di, srv, &fab))
        .collect();
    devices
        .iter_mut()
        .zip(built)
        .map(|(d, (ifaces, remap))| {
            d.dev.interfaces = ifaces;
            remap
        })
        .collect()
}

/// One device's interfaces sorted by port (stable: equal ports keep cable order), and each one's new
/// position by its old index (server ports first, then `fab`).
fn device_interfaces(
    w: &Wiring,
    devices: &[DraftDevice],
    di: usize,
    servers: Vec<Interface>,
    fab: &[FabricPort],
) -> (Vec<Interface>, Vec<usize>) {
    let n = servers.len();
    let cache = w.ports_of(&devices[di]);
    let build = |p: &FabricPort| {
        let peer_port = w.ports_of(&devices[p.peer.0]).name(p.peer.1);
        let peer = (&w.hostnames[p.peer.0], peer_port);
        let kind = PortKind::Fabric;
        interface(
            cache,
            p.port,
            kind,
            p.direction,
            p.speed_gbps,
            peer,
            w.mtu,
            p.cable_m,
        )
    };
    let port = |i: usize| {
        if i < n {
            servers[i].port
        } else {
            fab[i - n].port
        }
    };
    if (0..n + fab.len()).is_sorted_by_key(&port) {
        // Already in port order (the usual case): the server ports stay where they are.
        let mut ifaces = servers;
        ifaces.reserve_exact(fab.len());
        ifaces.extend(fab.iter().map(build));
        let pos = (0..ifaces.len()).collect();
        return (ifaces, pos);
    }
    let mut order: Vec<usize> = (0..n + fab.len()).collect();
    order.sort_by_key(|&i| port(i));
    let mut pos = vec![0usize; order.len()];
    for (new, &old) in order.iter().enumerate() {
        pos[old] = new;
    }
    let mut servers: Vec<Option<Interface>> = servers.into_iter().map(Some).collect();
    let mut ifaces = Vec::with_capacity(order.len());
    for i in order {
        let iface = if i < n {
            servers[i].take().unwrap_or_else(placeholder_interface)
        } else {
            build(&fab[i - n])
        };
        ifaces.push(iface);
    }
    (ifaces, pos)
}

/// Every front-panel port of an expanded device that no link uses (its platform's ports 1..=count
/// minus its interfaces), in port order. Devices `--only` left unexpanded get none: they are not rendered.
fn unused_ports(w: &Wiring, devices: &mut [DraftDevice]) {
    devices
        .par_iter_mut()
        .zip(&w.selected)
        .for_each(|(d, selected)| {
            if !selected {
                return;
            }
            let cache = w.ports_of(d);
            let mut used = d.interfaces.iter().map(|i| i.port).peekable();
            let mut unused =
                Vec::with_capacity((cache.count() as usize).saturating_sub(d.interfaces.len()));
            for port in 1..=cache.count() {
                if used.next_if_eq(&port).is_some() {
                    continue;
                }
                unused.push(UnusedPort {
                    name: Name::clone(cache.name(port)),
                    port,
                });
            }
            d.unused_ports = unused;
        });
}

/// The fabric's counts, from the shape, so a filtered build (`--only`) still reports the whole fabric.
fn summary(s: &Shape) -> Summary {
    Summary {
        leaves: s.leaves(),
        spines: s.spines(),
        super_spines: s.super_spines,
        servers: s.servers,
        gpus: s.servers * s.rails,
        server_links: s.server_ports(),
        leaf_spine_links: s.leaves() * s.leaf_up,
        spine_super_spine_links: s.spines() * s.spine_up,
        leaf_oversubscription: ratio_text(
            s.ports_per_leaf() as u64 * s.nic_speed.gbps() as u64,
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
    }
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
        name: Name::from(""),
        port: 0,
        kind: PortKind::Fabric,
        direction: Direction::Down,
        speed_gbps: 0,
        peer: Name::from(""),
        peer_port: Name::from(""),
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

/// The interface on `port` facing `peer` (hostname, port name): described `peer:port`.
#[allow(clippy::too_many_arguments)]
fn interface(
    cache: &PortCache,
    port: u32,
    kind: PortKind,
    direction: Direction,
    speed_gbps: u32,
    (peer, peer_port): (&Name, &Name),
    mtu: u32,
    cable_m: u32,
) -> Interface {
    Interface {
        name: Name::clone(cache.name(port)),
        port,
        kind,
        direction,
        speed_gbps,
        description: [&**peer, ":", peer_port].concat(),
        peer: Name::clone(peer),
        peer_port: Name::clone(peer_port),
        address: None,
        ip: None,
        peer_ip: None,
        vlan: None,
        mtu,
        cable_m,
        dlb: false,
    }
}
