//! Stable allocation: the compiler's arithmetic, bent to keep what the lock ([`crate::lock`]) already
//! gave out. Without a lock nothing here runs and allocation is exactly the arithmetic.
//!
//! - devices in the lock keep loopback, router-id, ASN and management address; new devices start at
//!   their arithmetic value and step to the next value no lock entry (live or retired) holds;
//! - a cable between two devices keeps its ports and /31 while the pair still needs that many cables;
//!   new cables take their arithmetic ports if free, else the nearest free port (uplinks from the top,
//!   downlinks from the bottom), and the next /31 no entry holds;
//! - server /31s (routed) and rail subnets are kept per leaf port and per leaf.

use crate::lock::{Lock, LockDevice, LockLink};
use crate::model::LinkTier;
use foldhash::{HashMap, HashMapExt as _, HashSet};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

/// A lock indexed for the compiler.
#[derive(Debug, Default)]
pub struct Index<'a> {
    devices: HashMap<&'a str, &'a LockDevice>,
    pairs: HashMap<(&'a str, &'a str), Vec<&'a LockLink>>,
    servers: HashMap<(&'a str, u32), u32>,
    /// Every loopback and router-id held.
    pub loopbacks: HashSet<u64>,
    /// Every ASN held.
    pub asns: HashSet<u64>,
    /// Every management address held.
    pub management: HashSet<IpAddr>,
    /// Every switch /31 held.
    pub fabric: Blocks,
    /// Every server /31 and rail subnet held.
    pub server: Blocks,
}

/// Address blocks held: first address → size.
#[derive(Clone, Debug, Default)]
pub struct Blocks(BTreeMap<u64, u64>);

impl Blocks {
    /// Holds the block of `size` addresses from `first`.
    pub fn hold(&mut self, first: u64, size: u64) {
        self.0.insert(first, size);
    }

    /// Whether any held block shares an address with `size` addresses from `first`.
    pub fn overlaps(&self, first: u64, size: u64) -> bool {
        self.0
            .range(..first + size)
            .next_back()
            .is_some_and(|(s, n)| s + n > first)
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first block of `size` from `start`, stepping a block at a time in `dir` (+1 up, -1 down) and
    /// staying within `lo..=hi` (first addresses), that overlaps no held block; it is held.
    pub fn take(&mut self, start: u64, dir: i64, (lo, hi): (u64, u64), size: u64) -> Option<u64> {
        let mut v = start;
        loop {
            if v < lo || v > hi {
                return None;
            }
            if !self.overlaps(v, size) {
                self.hold(v, size);
                return Some(v);
            }
            v = v.checked_add_signed(dir * size as i64)?;
        }
    }
}

/// A subnet's first address and size.
fn block_of(subnet: &str) -> Option<(u32, u64)> {
    crate::lock::read::subnet(subnet, true)
        .ok()
        .map(|n| (u32::from(n.network()), 1u64 << (32 - n.prefix() as u32)))
}

fn even(subnet: &str) -> Option<u32> {
    block_of(subnet).map(|(first, _)| first)
}

impl<'a> Index<'a> {
    /// Indexes a (checked) lock.
    pub fn new(lock: &'a Lock) -> Index<'a> {
        let mut ix = Index::default();
        for d in &lock.devices {
            ix.devices.insert(d.name.as_str(), d);
            ix.loopbacks.insert(u32::from(d.loopback) as u64);
            ix.loopbacks.insert(u32::from(d.router_id) as u64);
            ix.asns.insert(d.asn as u64);
            ix.management.extend(d.management);
            if let Some((first, size)) = d.server_subnet.as_deref().and_then(block_of) {
                ix.server.hold(first as u64, size);
            }
        }
        for k in &lock.links {
            ix.pairs
                .entry((k.lower.as_str(), k.upper.as_str()))
                .or_default()
                .push(k);
            if let Some((first, size)) = block_of(&k.subnet) {
                ix.fabric.hold(first as u64, size);
            }
        }
        for v in &lock.servers {
            if let Some(e) = even(&v.subnet) {
                ix.server.hold(e as u64, 2);
                if !v.retired {
                    ix.servers.insert((v.leaf.as_str(), v.port), e);
                }
            }
        }
        ix
    }

    /// The lock entry of a device.
    pub fn device(&self, name: &str) -> Option<&'a LockDevice> {
        self.devices.get(name).copied()
    }

    /// The server /31 (first address) the lock gives a leaf port.
    pub fn server(&self, leaf: &str, port: u32) -> Option<u32> {
        self.servers.get(&(leaf, port)).copied()
    }
}

/// The first value from `start` (stepping by `step`, staying within `lo..=hi`) that `used` does not hold;
/// it is added to `used`.
pub fn take_free(start: u64, step: i64, lo: u64, hi: u64, used: &mut HashSet<u64>) -> Option<u64> {
    let mut v = start;
    loop {
        if v < lo || v > hi {
            return None;
        }
        if used.insert(v) {
            return Some(v);
        }
        v = v.checked_add_signed(step)?;
    }
}

/// A planned switch-to-switch cable: device indices, port numbers, the arithmetic allocation key, and
/// the /31 (first address) the lock pins.
#[derive(Clone, Debug)]
pub struct Cable {
    /// Tier.
    pub tier: LinkTier,
    /// Lower device index and port.
    pub lower: (usize, u32),
    /// Upper device index and port.
    pub upper: (usize, u32),
    /// Arithmetic allocation index within the tier's pool.
    pub seq: u64,
    /// The /31 the lock keeps for this cable.
    pub pinned: Option<u32>,
}

/// What a device offers the cable planner: its name, port count and the ports already used.
pub struct Ports<'n> {
    /// Hostnames by device index.
    pub names: Vec<&'n str>,
    /// Port counts by device index.
    pub counts: Vec<u32>,
    /// Ports in use by device index.
    pub taken: Vec<HashSet<u32>>,
}

impl Ports<'_> {
    fn free(&self, dev: usize, port: u32) -> bool {
        port >= 1 && port <= self.counts[dev] && !self.taken[dev].contains(&port)
    }

    /// `want` if free, else the nearest free port scanning from the top (`up`) or from the bottom.
    fn claim(&mut self, dev: usize, want: u32, up: bool) -> u32 {
        let n = self.counts[dev];
        let port = if self.free(dev, want) {
            want
        } else if up {
            (1..=n).rev().find(|p| self.free(dev, *p)).unwrap_or(want)
        } else {
            (1..=n).find(|p| self.free(dev, *p)).unwrap_or(want)
        };
        self.taken[dev].insert(port);
        port
    }
}

/// Keeps every locked cable the plan still needs (same pair of devices, as many as the plan has), then
/// gives the rest ports. Returns how many cables are new (not held by the lock).
pub fn cables(plan: &mut [Cable], ix: &Index, ports: &mut Ports) -> usize {
    let mut by_pair: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (i, c) in plan.iter().enumerate() {
        let key = (c.lower.0, c.upper.0);
        by_pair
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(i);
    }
    let mut pending = Vec::new();
    for key in order {
        let idx = &by_pair[&key];
        let locked = ix
            .pairs
            .get(&(ports.names[key.0], ports.names[key.1]))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        pending.extend(keep_pair(plan, idx, locked, ports));
    }
    let new = pending.len();
    for i in pending {
        let c = &mut plan[i];
        c.lower.1 = ports.claim(c.lower.0, c.lower.1, true);
        c.upper.1 = ports.claim(c.upper.0, c.upper.1, false);
    }
    new
}

/// Gives the plan's cables `idx` of one device pair the locked cables of that pair: exact port matches
/// first, then the others in port order, each only where both ports are still free. Returns the plan
/// cables left without a locked cable.
fn keep_pair(
    plan: &mut [Cable],
    idx: &[usize],
    locked: &[&LockLink],
    ports: &mut Ports,
) -> Vec<usize> {
    let mut left: Vec<usize> = idx.to_vec();
    let mut rest: Vec<&LockLink> = Vec::new();
    for l in locked {
        let exact = left
            .iter()
            .position(|&i| plan[i].lower.1 == l.lower_port && plan[i].upper.1 == l.upper_port);
        match exact {
            Some(p) => {
                let i = left.remove(p);
                if !pin(&mut plan[i], l, ports) {
                    left.insert(p, i);
                }
            }
            None => rest.push(l),
        }
    }
    rest.sort_by_key(|l| (l.lower_port, l.upper_port));
    let mut unpinned = Vec::new();
    let mut rest = rest.into_iter();
    for i in left {
        let mut done = false;
        for l in rest.by_ref() {
            if pin(&mut plan[i], l, ports) {
                done = true;
                break;
            }
        }
        if !done {
            unpinned.push(i);
        }
    }
    unpinned
}

/// Puts cable `c` on the locked cable's ports and /31 when both ports are free; claims them.
fn pin(c: &mut Cable, l: &LockLink, ports: &mut Ports) -> bool {
    let subnet = even(&l.subnet);
    if subnet.is_none()
        || !ports.free(c.lower.0, l.lower_port)
        || !ports.free(c.upper.0, l.upper_port)
    {
        return false;
    }
    c.lower.1 = l.lower_port;
    c.upper.1 = l.upper_port;
    c.pinned = subnet;
    ports.taken[c.lower.0].insert(l.lower_port);
    ports.taken[c.upper.0].insert(l.upper_port);
    true
}

/// A v4 address as the integer the allocators count with.
pub fn v4(ip: Ipv4Addr) -> u64 {
    u32::from(ip) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_step_over_any_overlap() {
        let mut b = Blocks::default();
        b.hold(32, 32); // a held /27 at .32
        assert!(
            b.overlaps(0, 64) && b.overlaps(40, 2) && !b.overlaps(64, 64) && !b.overlaps(0, 32)
        );
        assert_eq!(b.take(0, 1, (0, 1000), 64), Some(64));
        assert_eq!(b.take(0, 1, (0, 1000), 32), Some(0));
        assert_eq!(b.take(0, 1, (0, 60), 32), None);
    }

    #[test]
    fn take_free_steps_over_held_values_and_stops_at_the_bounds() {
        let mut used: HashSet<u64> = [5, 6].into_iter().collect();
        assert_eq!(take_free(5, 1, 1, 10, &mut used), Some(7));
        assert_eq!(take_free(6, -1, 1, 10, &mut used), Some(4));
        assert_eq!(take_free(10, 1, 1, 10, &mut used), Some(10));
        assert_eq!(take_free(10, 1, 1, 10, &mut used), None);
    }
}
