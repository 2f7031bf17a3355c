//! Address and ASN allocation, arithmetic on the allocation keys the topology assigned:
//!
//! - loopbacks: leaves count up from the pool's first host address, spines and super-spines count down
//!   from its last (super-spines first), so adding a group or a zone moves nothing;
//! - fabric /31s: leaf-spine link n is the n-th /31 from the bottom, spine-super-spine link n the n-th
//!   from the top; the upper-tier switch takes the even address;
//! - server links: one /31 per NIC port at (group, leaf, server port) order, the leaf takes the even
//!   address; or in `rail-subnet` mode one subnet per leaf, the leaf's gateway is the first host address.
//!   A dual-homed NIC's two ports are two server links: two /31s, or one address in each port's leaf
//!   subnet (each port's leaf its gateway); a rack leaf's subnet holds every NIC of its rack;
//! - ASNs: leaves take the leaf range in leaf order; spines share the spine ASN (zone n takes the n-th
//!   in a three-tier fabric); super-spines share theirs.
//!
//! [`assign`] runs one pass per concern: pool and ASN capacity checks first (every problem at once),
//! then loopbacks, ASNs, server addressing, fabric /31s with their BGP neighbors, management, and the
//! pool accounting `aifab plan` prints.

use super::draft::{Draft, DraftDevice, DraftLink, End};
use super::stable::{Blocks, Index, take_free, v4};
use crate::diag::Finding;
use crate::intent::{Addressing, Bgp, Intent, Management, Role, ServerMode};
use crate::model::{
    AddressPool, LinkTier, ManagementAddr, Name, Neighbor, Peer, PoolUse, ServerSubnet,
};
use crate::rules::Rule;
use crate::shape::{Counts, Shape};
use crate::spell;
use foldhash::{HashSet, HashSetExt as _};
use rayon::prelude::*;
use std::net::{IpAddr, Ipv4Addr};

/// An IPv4 pool as integers.
struct Pool {
    name: AddressPool,
    text: String,
    base: u32,
    size: u64,
}

impl Pool {
    fn new(name: AddressPool, p: &crate::intent::Prefix) -> Result<Pool, Finding> {
        match p.0 {
            ipnetwork::IpNetwork::V4(n) => Ok(Pool {
                name,
                text: n.to_string(),
                base: u32::from(n.network()),
                size: 1u64 << (32 - n.prefix() as u32),
            }),
            ipnetwork::IpNetwork::V6(_) => Err(Finding::new(
                Rule::PoolNotIpv4,
                format!("pool `{name}` is IPv6; this version of aifab allocates IPv4 only"),
            )
            .at(name.pointer())
            .hint("use an IPv4 prefix; IPv6 underlays are planned")),
        }
    }
    fn addr(&self, offset: u64) -> Ipv4Addr {
        Ipv4Addr::from(self.base.wrapping_add(offset as u32))
    }
    fn too_small(&self, need: u64, what: &str) -> Finding {
        let bits = 64 - need.saturating_sub(1).leading_zeros();
        Finding::new(
            Rule::PoolTooSmall,
            format!(
                "pool `{}` ({}) holds {} addresses; the fabric needs {need} for {what}",
                self.name, self.text, self.size
            ),
        )
        .at(self.name.pointer())
        .hint(format!(
            "use at least a /{} for `{}`",
            32 - bits.min(32),
            self.name
        ))
    }
    /// Whether the two pools share an address.
    fn overlaps(&self, other: &Pool) -> bool {
        let (p0, p1) = (self.base as u64, self.base as u64 + self.size);
        let (q0, q1) = (other.base as u64, other.base as u64 + other.size);
        p0 < q1 && q0 < p1
    }
}

/// The intent's three pools.
struct Pools {
    lo: Pool,
    fl: Pool,
    sl: Pool,
}

impl Pools {
    /// Reads the pools; every IPv6 pool is a finding.
    fn new(a: &Addressing) -> Result<Pools, Vec<Finding>> {
        let lo = Pool::new(AddressPool::Loopbacks, &a.loopbacks);
        let fl = Pool::new(AddressPool::FabricLinks, &a.fabric_links);
        let sl = Pool::new(AddressPool::ServerLinks, &a.server_links);
        match (lo, fl, sl) {
            (Ok(lo), Ok(fl), Ok(sl)) => Ok(Pools { lo, fl, sl }),
            (lo, fl, sl) => Err([lo.err(), fl.err(), sl.err()]
                .into_iter()
                .flatten()
                .collect()),
        }
    }
}

/// What the fabric takes from each pool.
struct Needs {
    /// Switches.
    switches: u64,
    /// Switch links: leaf-spine plus spine-super-spine.
    switch_links: u64,
    /// Server /31s (`routed` mode) or rail-leaf subnets (`rail-subnet` mode).
    server_blocks: u64,
    /// Host bits of one rail-leaf subnet: network, gateway, servers and broadcast fit.
    server_subnet_bits: u32,
    /// Addresses of the server pool.
    server_addresses: u64,
}

/// The fabric's sizes the pool and ASN checks compare with: from the [`Shape`], or from the
/// [`Counts`] alone when the port arithmetic failed (then the switch links are unknown and their pool
/// is not checked), so a wrong spine count does not hide a pool or an ASN range that is too small.
pub struct Sizes {
    three_tier: bool,
    zones: u32,
    leaves: u64,
    spines: u64,
    super_spines: u64,
    switches: u64,
    ports_per_leaf: u64,
    /// Leaf-spine plus spine-super-spine links, when the port arithmetic gave them.
    switch_links: Option<u64>,
}

impl Sizes {
    /// The sizes of a whole shape with `switches` placed switches.
    fn of_shape(s: &Shape, switches: usize) -> Sizes {
        Sizes {
            three_tier: s.three_tier,
            zones: s.zones,
            leaves: s.leaves() as u64,
            spines: s.spines() as u64,
            super_spines: s.super_spines as u64,
            switches: switches as u64,
            ports_per_leaf: s.ports_per_leaf() as u64,
            switch_links: Some(
                s.leaves() as u64 * s.leaf_up as u64 + s.spines() as u64 * s.spine_up as u64,
            ),
        }
    }

    /// The sizes the device counts give.
    pub fn of_counts(c: &Counts) -> Sizes {
        Sizes {
            three_tier: c.three_tier,
            zones: c.zones,
            leaves: c.leaves() as u64,
            spines: c.spines() as u64,
            super_spines: c.super_spines as u64,
            switches: c.leaves() as u64 + c.spines() as u64 + c.super_spines as u64,
            ports_per_leaf: c.homes.ports_per_leaf() as u64,
            switch_links: None,
        }
    }
}

/// The pool and ASN range findings an intent whose port arithmetic failed can still be given (its
/// device counts are known): pools too small for the switches and the servers, overlapping pools,
/// ASN ranges too small.
pub fn without_shape(intent: &Intent, sizes: &Sizes) -> Vec<Finding> {
    let a = &intent.fabric.addressing;
    let mut errs = match Pools::new(a) {
        Ok(pools) => {
            let needs = Needs::of(a, sizes);
            let mut e = capacity(&pools, &needs, a.server_mode, sizes);
            e.extend(overlaps(&pools));
            e
        }
        Err(e) => e,
    };
    errs.extend(asn_ranges(&intent.fabric.bgp, sizes));
    if let Some(m) = &intent.fabric.management {
        errs.extend(management_span(m, sizes));
    }
    errs
}

/// `AIF-ADDR-004` from the device counts alone: each role's management addresses run from its first
/// address for as many switches as the role has, and the last must stay inside the subnet.
fn management_span(m: &Management, s: &Sizes) -> Option<Finding> {
    let roles = [
        ("leaves", Some(m.first.leaf), s.leaves),
        ("spines", Some(m.first.spine), s.spines),
        ("super-spines", m.first.super_spine, s.super_spines),
    ];
    roles.into_iter().find_map(|(what, first, n)| {
        let IpAddr::V4(first) = first? else {
            return None;
        };
        let last = u32::from(first).checked_add(u32::try_from(n.checked_sub(1)?).ok()?);
        let outside = last.is_none_or(|l| !m.subnet.0.contains(IpAddr::V4(Ipv4Addr::from(l))));
        outside.then(|| {
            Finding::new(
                Rule::ManagementOutsideSubnet,
                format!(
                    "the management addresses of the {n} {what} run from {first} past {}",
                    m.subnet
                ),
            )
            .at("/fabric/management/first")
            .hint("move the role's first address down or widen the subnet")
        })
    })
}

impl Needs {
    fn of(a: &Addressing, s: &Sizes) -> Needs {
        let mode = a.server_mode;
        // network + gateway + servers (and their pods' addresses) + broadcast
        let per_port = 1 + u64::from(a.pod_addresses_per_port);
        let hosts = s.ports_per_leaf * per_port + 3;
        let server_subnet_bits = 64 - (hosts - 1).leading_zeros();
        let (server_blocks, server_addresses) = match mode {
            ServerMode::Routed => {
                let nics = s.leaves * s.ports_per_leaf;
                (nics, 2 * nics)
            }
            ServerMode::RailSubnet => (s.leaves, s.leaves * (1u64 << server_subnet_bits)),
        };
        Needs {
            switches: s.switches,
            switch_links: s.switch_links.unwrap_or(0),
            server_blocks,
            server_subnet_bits,
            server_addresses,
        }
    }
    /// Loopback addresses: one per switch plus network and broadcast.
    fn loopbacks(&self) -> u64 {
        self.switches + 2
    }
    /// Fabric-link addresses: one /31 per switch link.
    fn fabric_links(&self) -> u64 {
        2 * self.switch_links
    }
}

/// Fills in loopbacks, link addresses, server addressing, ASNs, BGP neighbors and networks, management.
/// The lock's held subnets move out of `lock` into the allocators (its other entries stay).
pub fn assign(
    intent: &Intent,
    s: &Shape,
    f: &mut Draft,
    mut lock: Option<&mut Index>,
) -> Result<(), Vec<Finding>> {
    let held = Held::of(lock.as_deref_mut());
    let lock = lock.as_deref();
    let a = &intent.fabric.addressing;
    let bgp = &intent.fabric.bgp;
    let pools = Pools::new(a)?;
    let sizes = Sizes::of_shape(s, f.devices.len());
    let needs = Needs::of(a, &sizes);
    let mut errs = capacity(&pools, &needs, a.server_mode, &sizes);
    errs.extend(overlaps(&pools));
    errs.extend(asn_ranges(bgp, &sizes));
    if !errs.is_empty() {
        // The management addresses need no pool: a pool too small hides none of their problems.
        errs.extend(management(intent, f, lock));
        return Err(errs);
    }
    loopbacks(&pools.lo, s, f);
    asns(bgp, f);
    if let Some(ix) = lock {
        keep_devices(ix, &pools.lo, bgp, f)?;
    }
    loopback_networks(f);
    let mut held = held;
    match a.server_mode {
        ServerMode::Routed => server_31s(&pools.sl, f, lock, &mut held.server)?,
        ServerMode::RailSubnet => {
            let bits = needs.server_subnet_bits;
            rail_subnets(a.server_vlan, &pools.sl, bits, f, lock, &mut held.server)?
        }
    }
    fabric_31s(&pools.fl, f, &mut held.fabric)?;
    neighbors_in_port_order(f);
    // The held blocks (one tree node per lock entry) are freed beside the rest of the compile.
    rayon::spawn(move || drop(held));
    let errs = management(intent, f, lock);
    if !errs.is_empty() {
        return Err(errs);
    }
    f.summary.pools = pool_use(&pools, &needs);
    Ok(())
}

/// Pools too small for the fabric.
fn capacity(p: &Pools, need: &Needs, mode: ServerMode, s: &Sizes) -> Vec<Finding> {
    let mut errs = Vec::new();
    if p.lo.size < need.loopbacks() {
        errs.push(p.lo.too_small(
            need.loopbacks(),
            &format!("{} switches (plus network and broadcast)", need.switches),
        ));
    }
    if s.switch_links.is_some() && p.fl.size < need.fabric_links() {
        errs.push(p.fl.too_small(
            need.fabric_links(),
            &format!("{} switch links", need.switch_links),
        ));
    }
    if p.sl.size < need.server_addresses {
        let what = match mode {
            ServerMode::Routed => format!("{} server /31s", need.server_blocks),
            ServerMode::RailSubnet => format!(
                "{} rail-leaf subnets of /{}",
                s.leaves,
                32 - need.server_subnet_bits
            ),
        };
        errs.push(p.sl.too_small(need.server_addresses, &what));
    }
    errs
}

/// Pools that share addresses (each pair once, pointing at the later pool).
fn overlaps(p: &Pools) -> Vec<Finding> {
    let all = [&p.lo, &p.fl, &p.sl];
    let mut errs = Vec::new();
    for (i, p) in all.iter().enumerate() {
        for q in all.iter().skip(i + 1).filter(|q| p.overlaps(q)) {
            errs.push(
                Finding::new(
                    Rule::PoolsOverlap,
                    format!(
                        "pools `{}` ({}) and `{}` ({}) overlap",
                        p.name, p.text, q.name, q.text
                    ),
                )
                .at(q.name.pointer())
                .hint("give each pool its own prefix"),
            );
        }
    }
    errs
}

/// ASN ranges too small for the fabric, and a missing super-spine ASN.
fn asn_ranges(bgp: &Bgp, s: &Sizes) -> Vec<Finding> {
    let mut errs = Vec::new();
    if bgp.leaf_asn.len() < s.leaves {
        errs.push(
            Finding::new(
                Rule::LeafAsnsTooFew,
                format!(
                    "leaf ASN range {} holds {} ASNs; the fabric has {} leaves",
                    bgp.leaf_asn,
                    bgp.leaf_asn.len(),
                    s.leaves
                ),
            )
            .at("/fabric/bgp/leaf_asn")
            .hint("widen the range, e.g. a 4-byte private range 4200000000-4200099999"),
        );
    }
    if s.three_tier && bgp.spine_asn.len() < s.zones as u64 {
        errs.push(
            Finding::new(
                Rule::SpineAsnsTooFew,
                format!(
                    "a three-tier fabric needs one spine ASN per zone: {} holds {}, there are {} zones",
                    bgp.spine_asn,
                    bgp.spine_asn.len(),
                    s.zones
                ),
            )
            .at("/fabric/bgp/spine_asn")
            .hint(format!("give a range such as {}-{}", bgp.spine_asn.first, bgp.spine_asn.first as u64 + s.zones as u64 - 1)),
        );
    }
    if s.three_tier && bgp.super_spine_asn.is_none() {
        errs.push(
            Finding::new(
                Rule::SuperSpineAsnMissing,
                "a three-tier fabric needs `super_spine_asn`",
            )
            .at("/fabric/bgp")
            .hint("add `super_spine_asn: <asn>` under fabric.bgp"),
        );
    }
    errs
}

/// Loopback0 (= router-id, advertised as a /32): leaves from the bottom of the pool, super-spines then
/// spines from the top.
fn loopbacks(lo: &Pool, s: &Shape, f: &mut Draft) {
    let top = lo.size - 2; // last host offset
    for d in f.devices.iter_mut() {
        let off = match d.role {
            Role::Leaf => 1 + d.seq as u64,
            Role::SuperSpine => top - d.seq as u64,
            Role::Spine => top - s.super_spines as u64 - d.seq as u64,
        };
        d.loopback = lo.addr(off);
        d.bgp.router_id = d.loopback;
    }
}

/// Every switch advertises its loopback as a /32, first among its networks.
fn loopback_networks(f: &mut Draft) {
    for d in f.devices.iter_mut() {
        let lo_net = spell::prefix(d.loopback, 32);
        d.bgp.networks.push(lo_net.into());
    }
}

/// Subnets the lock holds, which new cables and servers step over.
#[derive(Default)]
struct Held {
    fabric: Blocks,
    server: Blocks,
}

impl Held {
    /// Takes the lock's held subnets (none without a lock).
    fn of(lock: Option<&mut Index>) -> Held {
        lock.map_or_else(Held::default, |ix| Held {
            fabric: std::mem::take(&mut ix.fabric),
            server: std::mem::take(&mut ix.server),
        })
    }
}

/// Devices the lock holds take its loopback, router-id and ASN; new devices step from their arithmetic
/// values to the next free ones (leaves up the pool and the leaf ASN range, spines and super-spines down
/// the pool; spines of a zone and the super-spines share their ASN).
fn keep_devices(ix: &Index, lo: &Pool, bgp: &Bgp, f: &mut Draft) -> Result<(), Vec<Finding>> {
    let mut used = ix.loopbacks.clone();
    let mut asns = ix.asns.clone();
    let (first, last) = (v4(lo.addr(1)), v4(lo.addr(lo.size - 2)));
    let leaf = bgp.leaf_asn;
    for d in f.devices.iter_mut() {
        if let Some(e) = ix.device(&d.hostname) {
            d.loopback = e.loopback;
            d.bgp.router_id = e.router_id;
            d.bgp.asn = e.asn;
            continue;
        }
        let step = if d.role == Role::Leaf { 1 } else { -1 };
        let Some(ip) = take_free(v4(d.loopback), step, first, last, &mut used) else {
            return Err(vec![lo.too_small(
                lo.size + 1,
                "the switches and the lock's reserved loopbacks",
            )]);
        };
        d.loopback = Ipv4Addr::from(ip as u32);
        d.bgp.router_id = d.loopback;
        if d.role == Role::Leaf {
            let range = (leaf.first as u64, leaf.last as u64);
            let Some(asn) = take_free(d.bgp.asn as u64, 1, range.0, range.1, &mut asns) else {
                return Err(vec![Finding::new(
                    Rule::LeafAsnsTooFew,
                    format!("leaf ASN range {leaf} has no ASN left for {} besides those the lock holds", d.hostname),
                )
                .at("/fabric/bgp/leaf_asn")
                .hint("widen the range, or release retired leaves (render --release)")]);
            };
            d.bgp.asn = asn as u32;
        }
    }
    Ok(())
}

/// The first free block at or after (`step` > 0) or before the arithmetic one, or a pool-too-small finding.
fn block(
    pool: &Pool,
    start: u64,
    step: i64,
    size: u64,
    held: &mut Blocks,
) -> Result<u64, Vec<Finding>> {
    let (lo, hi) = (pool.base as u64, pool.base as u64 + pool.size - size);
    held.take(pool.base as u64 + start * size, step, (lo, hi), size)
        .map(|v| (v - pool.base as u64) / size)
        .ok_or_else(|| {
            vec![pool.too_small(
                pool.size + size,
                "the links and the lock's reserved subnets",
            )]
        })
}

/// Local ASNs: one per leaf in leaf order, the spine ASN of the spine's zone, the super-spine ASN.
fn asns(bgp: &Bgp, f: &mut Draft) {
    for d in f.devices.iter_mut() {
        d.bgp.asn = match d.role {
            Role::Leaf => bgp.leaf_asn.nth(d.seq as u64).unwrap_or(0),
            Role::Spine => bgp
                .spine_asn
                .nth(d.zone.map(|z| z as u64 - 1).unwrap_or(0))
                .unwrap_or(bgp.spine_asn.first),
            Role::SuperSpine => bgp.super_spine_asn.map(|r| r.first).unwrap_or(0),
        };
    }
}

/// `routed` server mode: one /31 per server link, the leaf takes the even address and advertises the
/// /31 (in link order, which is each leaf's port order).
fn server_31s(
    sl: &Pool,
    f: &mut Draft,
    lock: Option<&Index>,
    held: &mut Blocks,
) -> Result<(), Vec<Finding>> {
    let blocks = server_blocks(sl, f, lock, held)?;
    let Draft { devices, links, .. } = f;
    let mut per_dev: Vec<Vec<(usize, usize, u64)>> = devices.iter().map(|_| Vec::new()).collect();
    let mut per_link: Vec<Option<u64>> = vec![None; links.len()];
    let server = links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.tier == LinkTier::ServerLeaf);
    for ((li, l), &b) in server.zip(&blocks) {
        per_dev[l.upper.dev].push((li, l.upper.iface, b));
        per_link[li] = Some(b);
    }
    links.par_iter_mut().zip(per_link).for_each(|(l, b)| {
        if let Some(b) = b {
            l.subnet = Some(spell::prefix(sl.addr(2 * b), 31).into());
        }
    });
    let links = &*links;
    devices.par_iter_mut().zip(per_dev).for_each(|(d, ports)| {
        d.bgp.networks.reserve(ports.len());
        for (li, iface, b) in ports {
            let text = links[li].subnet.clone().unwrap_or_default();
            let ifc = &mut d.interfaces[iface];
            ifc.ip = Some(sl.addr(2 * b));
            ifc.peer_ip = Some(sl.addr(2 * b + 1));
            ifc.address = Some(text.clone());
            d.bgp.networks.push(text);
        }
    });
    Ok(())
}

/// Each server link's /31 (block index in the pool, link order): its arithmetic block, or with a lock
/// the one the lock keeps for the leaf port (looked up in parallel), else the next free one.
fn server_blocks(
    sl: &Pool,
    f: &Draft,
    lock: Option<&Index>,
    held: &mut Blocks,
) -> Result<Vec<u64>, Vec<Finding>> {
    let server = |l: &&DraftLink| l.tier == LinkTier::ServerLeaf;
    let Some(ix) = lock else {
        return Ok(f.links.iter().filter(server).map(|l| l.seq).collect());
    };
    let kept: Vec<Option<u32>> = f
        .links
        .par_iter()
        .filter(server)
        .map(|l| {
            let d = &f.devices[l.upper.dev];
            ix.server(&d.hostname, d.interfaces[l.upper.iface].port)
        })
        .collect();
    let links = f.links.iter().filter(server);
    kept.into_iter()
        .zip(links)
        .map(|(kept, l)| match kept {
            Some(first) => Ok((first as u64).wrapping_sub(sl.base as u64) / 2),
            None => block(sl, l.seq, 1, 2, held),
        })
        .collect()
}

/// `rail-subnet` server mode: server ports join the server VLAN; each leaf takes the next subnet of
/// `2^bits` addresses, is its gateway (first host address) and advertises it.
fn rail_subnets(
    vlan: u16,
    sl: &Pool,
    bits: u32,
    f: &mut Draft,
    lock: Option<&Index>,
    held: &mut Blocks,
) -> Result<(), Vec<Finding>> {
    let size = 1u64 << bits;
    let plen = 32 - bits as u8;
    for d in f.devices.iter_mut().filter(|d| d.role == Role::Leaf) {
        let b = match lock {
            None => d.seq as u64,
            Some(ix) => match kept_subnet(ix, &d.hostname, plen) {
                Some(first) => (first as u64).wrapping_sub(sl.base as u64) / size,
                None => block(sl, d.seq as u64, 1, size, held)?,
            },
        };
        let net = sl.addr(b * size);
        let gw = sl.addr(b * size + 1);
        let prefix = Name::from(spell::prefix(net, plen));
        d.bgp.networks.push(prefix.clone());
        d.server_subnet = Some(ServerSubnet {
            vlan,
            prefix,
            gateway: format!("{gw}/{plen}"),
            gateway_ip: gw,
            prefix_len: plen,
        });
    }
    for l in f
        .links
        .iter_mut()
        .filter(|l| l.tier == LinkTier::ServerLeaf)
    {
        let d = &mut f.devices[l.upper.dev];
        d.interfaces[l.upper.iface].vlan = Some(vlan);
        // Every server link of the leaf names the leaf's one subnet.
        l.subnet = d.server_subnet.as_ref().map(|s| s.prefix.clone());
    }
    Ok(())
}

/// The rail subnet's first address the lock keeps for a leaf, if it still has the prefix length the
/// servers per group need (else the leaf gets a new one: a renumbering the render reports).
fn kept_subnet(ix: &Index, leaf: &str, plen: u8) -> Option<u32> {
    let s = ix.device(leaf)?.server_subnet.as_deref()?;
    crate::lock::prefix::subnet(s, true)
        .ok()
        .filter(|n| n.prefix() == plen)
        .map(|n| u32::from(n.network()))
}

/// Switch links: leaf-spine link n takes the n-th /31 from the bottom of the pool, spine-super-spine
/// link n the n-th from the top; both ends become each other's BGP neighbor.
fn fabric_31s(fl: &Pool, f: &mut Draft, held: &mut Blocks) -> Result<(), Vec<Finding>> {
    let blocks = fabric_blocks(fl, f, held)?;
    let Draft { devices, links, .. } = f;
    links.par_iter_mut().zip(&blocks).for_each(|(l, b)| {
        if let (Some(b), Some(_)) = (b, l.lower) {
            l.subnet = Some(spell::prefix(fl.addr(2 * b), 31).into());
        }
    });
    let mut ends: Vec<Vec<LinkEnd>> = devices.iter().map(|_| Vec::new()).collect();
    for (l, block) in links.iter().zip(blocks) {
        let (Some(block), Some(lower)) = (block, l.lower) else {
            continue;
        };
        let even = fl.addr(2 * block);
        let odd = fl.addr(2 * block + 1);
        ends[l.upper.dev].push(LinkEnd::new(l.upper, even, lower, odd));
        ends[lower.dev].push(LinkEnd::new(lower, odd, l.upper, even));
    }
    let peers: Vec<(u32, Role)> = devices.iter().map(|d| (d.bgp.asn, d.role)).collect();
    devices.par_iter_mut().zip(ends).for_each(|(d, ends)| {
        d.bgp.neighbors.reserve(ends.len());
        for e in ends {
            e.connect(d, peers[e.peer.dev]);
        }
    });
    Ok(())
}

/// Each link's /31 (block index in the pool, link order; `None` for server links): pinned by the lock,
/// else arithmetic (with a lock: the next block no entry holds).
fn fabric_blocks(
    fl: &Pool,
    f: &Draft,
    held: &mut Blocks,
) -> Result<Vec<Option<u64>>, Vec<Finding>> {
    // Only reached with spine-super-spine links, when the capacity check guarantees a /31 or more.
    let top_block = (fl.size / 2).saturating_sub(1);
    let lock = !held.is_empty();
    f.links
        .iter()
        .map(|l| {
            let (arith, step) = match l.tier {
                LinkTier::ServerLeaf => return Ok(None),
                LinkTier::LeafSpine => (l.seq, 1),
                LinkTier::SpineSuperSpine => (top_block - l.seq, -1),
            };
            let block = match l.pinned {
                Some(first) => (first as u64).wrapping_sub(fl.base as u64) / 2,
                None if lock => block(fl, arith, step, 2, held)?,
                None => arith,
            };
            Ok(Some(block))
        })
        .collect()
}

/// One end of a switch link: its interface and address, and the peer's end and address.
struct LinkEnd {
    end: End,
    ip: Ipv4Addr,
    peer: End,
    peer_ip: Ipv4Addr,
}

impl LinkEnd {
    fn new(end: End, ip: Ipv4Addr, peer: End, peer_ip: Ipv4Addr) -> LinkEnd {
        LinkEnd {
            end,
            ip,
            peer,
            peer_ip,
        }
    }

    /// Gives this end (on device `d`) its address on the /31 and the peer (`asn`, `role`) as a BGP
    /// neighbor; the peer's name and port come from the interface, which faces it.
    fn connect(&self, d: &mut DraftDevice, (asn, role): (u32, Role)) {
        let ifc = &mut d.dev.interfaces[self.end.iface];
        ifc.address = Some(spell::prefix(self.ip, 31).into());
        ifc.ip = Some(self.ip);
        ifc.peer_ip = Some(self.peer_ip);
        let neighbor = Neighbor {
            port: ifc.port,
            ip: self.peer_ip,
            local_ip: self.ip,
            remote_as: asn,
            description: [ifc.peer.as_ref(), ":", &ifc.peer_port].concat(),
            peer: ifc.peer.clone(),
            peer_port: ifc.peer_port.clone(),
            interface: ifc.name.clone(),
            peer_role: role,
        };
        d.dev.bgp.neighbors.push(neighbor);
    }
}

/// Neighbors in port order, so configs read top to bottom like the port list; each neighbor switch once
/// in `peers`.
fn neighbors_in_port_order(f: &mut Draft) {
    f.devices.par_iter_mut().for_each(|d| {
        if !d.bgp.neighbors.is_sorted_by_key(|n| n.port) {
            d.bgp.neighbors.sort_by_key(|n| n.port);
        }
        let mut seen = HashSet::with_capacity(d.bgp.neighbors.len());
        d.bgp.peers = d
            .bgp
            .neighbors
            .iter()
            .filter(|n| seen.insert(n.peer.as_ref()))
            .map(|n| Peer {
                name: n.peer.clone(),
                role: n.peer_role,
            })
            .collect();
    });
}

/// Management addresses: each role counts up from its first address in `fabric.management`; an
/// override's address wins.
fn management(intent: &Intent, f: &mut Draft, lock: Option<&Index>) -> Vec<Finding> {
    let mut errs = Vec::new();
    if let Some(m) = &intent.fabric.management {
        errs.extend(role_management(m, f).err());
        if let Some(ix) = lock
            && errs.is_empty()
        {
            // The intent's own blocks first: a lock that moves new devices past held addresses must
            // not hide role blocks that run into each other (AIF-ADDR-006).
            errs.extend(arithmetic_collisions(intent, f));
            if errs.is_empty() {
                errs.extend(keep_management(ix, m, f).err());
            }
        }
    }
    for (i, o) in intent.overrides.iter().enumerate() {
        let Some(ip) = o.management else { continue };
        let Some(m) = &intent.fabric.management else {
            errs.push(
                Finding::new(Rule::ManagementOverrideNeedsSubnet, "a management override needs `fabric.management` for its prefix length and gateway")
                    .at(format!("/overrides/{i}/management"))
                    .hint("add fabric.management"),
            );
            continue;
        };
        for d in f.devices.iter_mut().filter(|d| d.overrides.contains(&i)) {
            d.management = Some(ManagementAddr {
                ip,
                prefix_len: m.subnet.0.prefix(),
                gateway: m.gateway,
            });
        }
    }
    errs
}

/// AIF-ADDR-006 on the management addresses the intent's arithmetic gives (overrides included), as a
/// render without a lock would check them.
fn arithmetic_collisions(intent: &Intent, f: &Draft) -> Vec<Finding> {
    let given: Vec<(&str, Role, ManagementAddr)> = f
        .devices
        .iter()
        .filter_map(|d| {
            let mut m = d.management.clone()?;
            let over = d
                .overrides
                .iter()
                .filter_map(|&i| intent.overrides.get(i)?.management)
                .next_back();
            if let Some(ip) = over {
                m.ip = ip;
            }
            Some((d.hostname.as_str(), d.role, m))
        })
        .collect();
    crate::check::management_collisions(intent, given.iter().map(|(h, r, m)| (*h, *r, m)))
}

/// The role's first management address plus the device's allocation key; the first address outside
/// the subnet is a finding.
fn role_management(m: &Management, f: &mut Draft) -> Result<(), Finding> {
    let next = |first: IpAddr, seq: u32| -> Option<IpAddr> {
        match first {
            IpAddr::V4(v) => Some(IpAddr::V4(Ipv4Addr::from(u32::from(v).checked_add(seq)?))),
            IpAddr::V6(_) => None,
        }
    };
    for d in f.devices.iter_mut() {
        let first = match d.role {
            Role::Leaf => Some(m.first.leaf),
            Role::Spine => Some(m.first.spine),
            Role::SuperSpine => m.first.super_spine,
        };
        let Some(ip) = first.and_then(|fst| next(fst, d.seq)) else {
            continue;
        };
        if !m.subnet.0.contains(ip) {
            return Err(Finding::new(
                Rule::ManagementOutsideSubnet,
                format!(
                    "management address {ip} of {} is outside {}",
                    d.hostname, m.subnet
                ),
            )
            .at("/fabric/management/first")
            .hint("move the role's first address down or widen the subnet"));
        }
        d.management = Some(ManagementAddr {
            ip,
            prefix_len: m.subnet.0.prefix(),
            gateway: m.gateway,
        });
    }
    Ok(())
}

/// Devices the lock holds keep its management address; new ones step up from their arithmetic address
/// past every address the lock holds, staying inside the subnet.
fn keep_management(ix: &Index, m: &Management, f: &mut Draft) -> Result<(), Finding> {
    let mut used = ix.management.clone();
    for d in f.devices.iter_mut() {
        if let Some(ip) = ix.device(&d.hostname).and_then(|e| e.management) {
            if let Some(a) = d.management.as_mut() {
                a.ip = ip;
            }
            continue;
        }
        let Some(a) = d.management.as_mut() else {
            continue;
        };
        while used.contains(&a.ip) {
            let next = match a.ip {
                IpAddr::V4(v) => u32::from(v)
                    .checked_add(1)
                    .map(|n| IpAddr::V4(Ipv4Addr::from(n))),
                IpAddr::V6(_) => None,
            };
            match next.filter(|n| m.subnet.0.contains(*n)) {
                Some(n) => a.ip = n,
                None => {
                    return Err(Finding::new(
                        Rule::ManagementOutsideSubnet,
                        format!(
                            "no free management address left for {} besides those the lock holds",
                            d.hostname
                        ),
                    )
                    .at("/fabric/management/first")
                    .hint("widen the subnet, or release retired devices (render --release)"));
                }
            }
        }
        used.insert(a.ip);
    }
    Ok(())
}

/// Addresses used per pool, for `aifab plan`.
fn pool_use(p: &Pools, need: &Needs) -> Vec<PoolUse> {
    [
        (&p.lo, need.switches),
        (&p.fl, need.fabric_links()),
        (&p.sl, need.server_addresses),
    ]
    .into_iter()
    .map(|(pool, used)| PoolUse {
        pool: pool.name,
        prefix: pool.text.clone(),
        used,
        capacity: pool.size,
    })
    .collect()
}
