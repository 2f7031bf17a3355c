//! Stable allocation: the compiler's arithmetic, bent to keep what the lock ([`crate::lock`]) already
//! gave out. Without a lock nothing here runs and allocation is exactly the arithmetic.
//!
//! - devices in the lock keep loopback, router-id, ASN and management address; new devices start at
//!   their arithmetic value and step to the next value no lock entry (live or retired) holds;
//! - a cable between two devices keeps its ports and /31 while the pair still needs that many cables;
//!   new cables take their arithmetic ports if free, else the nearest free port (uplinks from the top,
//!   downlinks from the bottom), and the next /31 no entry holds;
//! - server /31s (routed) and rail subnets are kept per leaf port and per leaf, retired ones too: a
//!   leaf port that comes back gets its /31 back.

use crate::lock::{Lock, LockDevice, LockLink};
use crate::model::LinkTier;
use foldhash::{HashMap, HashMapExt as _, HashSet};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

/// A lock indexed for the compiler.
#[derive(Debug, Default)]
pub struct Index<'a> {
    devices: HashMap<&'a str, &'a LockDevice>,
    /// Each device pair's range in `kept`.
    pairs: HashMap<(&'a str, &'a str), (usize, usize)>,
    /// The locked cables grouped by device pair, in lock order within a pair.
    kept: Vec<Kept<'a>>,
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

/// A locked cable with its /31's first address (`None`: the lock's subnet does not read as one).
#[derive(Clone, Copy, Debug)]
struct Kept<'a> {
    link: &'a LockLink,
    even: Option<u32>,
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

/// A subnet's first address and size (`None`: not an IPv4 prefix without host bits).
fn block_of(subnet: &str) -> Option<(u32, u64)> {
    crate::lock::prefix::block(subnet)
}

fn even(subnet: &str) -> Option<u32> {
    block_of(subnet).map(|(first, _)| first)
}

impl<'a> Index<'a> {
    /// Indexes a (checked) lock: its devices, cables and server entries in parallel.
    pub fn new(lock: &'a Lock) -> Index<'a> {
        let (mut ix, (((pairs, kept), fabric), (servers, held))) = rayon::join(
            || Index::of_devices(&lock.devices),
            || rayon::join(|| Index::of_links(&lock.links), || Index::of_servers(lock)),
        );
        ix.pairs = pairs;
        ix.kept = kept;
        ix.fabric = fabric;
        ix.servers = servers;
        // Devices' rail subnets first, then server /31s: a later block of the same start wins.
        ix.server.0.extend(held.0);
        // A lock read for some devices only (`--only`) still takes the /31s of the server entries it
        // left out. (The cables it left out hold /31s no `--only` render allocates: a cable the lock
        // does not hold is refused there, AIF-LOCK-005.)
        if let Some(n) = &lock.narrowed {
            // Built in one pass from the sorted blocks, then merged (a later block of the same start
            // wins here too).
            let mut left_out: BTreeMap<u64, u64> = n
                .server_blocks
                .iter()
                .map(|&(f, s)| (u64::from(f), s))
                .collect();
            ix.server.0.append(&mut left_out);
        }
        ix
    }

    /// The devices' entries, held addresses and ASNs, and rail subnets.
    fn of_devices(devices: &'a [LockDevice]) -> Index<'a> {
        let mut ix = Index::default();
        ix.devices.reserve(devices.len());
        ix.loopbacks.reserve(2 * devices.len());
        for d in devices {
            ix.devices.insert(d.name.as_str(), d);
            ix.loopbacks.insert(u32::from(d.loopback) as u64);
            ix.loopbacks.insert(u32::from(d.router_id) as u64);
            ix.asns.insert(d.asn as u64);
            ix.management.extend(d.management);
        }
        ix.server = Blocks(
            devices
                .iter()
                .filter_map(|d| d.server_subnet.as_deref().and_then(block_of))
                .map(|(first, size)| (first as u64, size))
                .collect(),
        );
        ix
    }

    /// The locked cables grouped by device pair (in lock order within a pair), and their /31s.
    #[allow(clippy::type_complexity)]
    fn of_links(
        links: &'a [LockLink],
    ) -> (
        (HashMap<(&'a str, &'a str), (usize, usize)>, Vec<Kept<'a>>),
        Blocks,
    ) {
        use rayon::prelude::*;
        let blocks: Vec<Option<(u32, u64)>> =
            links.par_iter().map(|k| block_of(&k.subnet)).collect();
        let mut kept: Vec<Kept> = links
            .iter()
            .zip(&blocks)
            .map(|(link, b)| Kept {
                link,
                even: b.map(|(first, _)| first),
            })
            .collect();
        let pair = |k: &Kept<'a>| (k.link.lower.as_ref(), k.link.upper.as_ref());
        if !kept.is_sorted_by_key(pair) {
            kept.par_sort_by_key(pair);
        }
        let mut pairs = HashMap::with_capacity(kept.len());
        let mut start = 0;
        for group in kept.chunk_by(|a, b| pair(a) == pair(b)) {
            pairs.insert(pair(&group[0]), (start, start + group.len()));
            start += group.len();
        }
        let fabric = blocks
            .into_iter()
            .flatten()
            .map(|(first, size)| (first as u64, size))
            .collect();
        ((pairs, kept), Blocks(fabric))
    }

    /// The server /31s by leaf port (a live entry first; else a retired one, so a leaf port that
    /// comes back, a group grown back or a leaf that returns, gets its /31 back), and every server /31
    /// held (retired ones too).
    fn of_servers(lock: &'a Lock) -> (HashMap<(&'a str, u32), u32>, Blocks) {
        use rayon::prelude::*;
        let evens: Vec<Option<u32>> = lock.servers.par_iter().map(|v| even(&v.subnet)).collect();
        let mut servers = HashMap::with_capacity(lock.servers.len());
        for (v, e) in lock.servers.iter().zip(&evens) {
            if let Some(e) = e
                && !v.retired
            {
                servers.insert((v.leaf.as_ref(), v.port), *e);
            }
        }
        for (v, e) in lock.servers.iter().zip(&evens) {
            if let Some(e) = e
                && v.retired
            {
                servers.entry((v.leaf.as_ref(), v.port)).or_insert(*e);
            }
        }
        let held = evens.into_iter().flatten().map(|e| (e as u64, 2)).collect();
        (servers, Blocks(held))
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
    /// Ports in use by device index: `taken[dev][port]` (ports 1..=count).
    pub taken: Vec<Vec<bool>>,
}

impl Ports<'_> {
    fn free(&self, dev: usize, port: u32) -> bool {
        port >= 1 && port <= self.counts[dev] && !self.taken[dev][port as usize]
    }

    /// Marks a port used (a port outside 1..=count is never free anyway).
    fn hold(&mut self, dev: usize, port: u32) {
        if let Some(t) = self.taken[dev].get_mut(port as usize) {
            *t = true;
        }
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
        self.hold(dev, port);
        port
    }
}

/// The plan's cable indices grouped by device pair: pairs in order of first appearance, each pair's
/// cables in plan order (a flat list and each pair's range in it).
fn by_pair(plan: &[Cable]) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut ids: HashMap<(usize, usize), usize> = HashMap::with_capacity(plan.len());
    let mut order = Vec::new();
    let of: Vec<usize> = plan
        .iter()
        .map(|c| {
            let key = (c.lower.0, c.upper.0);
            *ids.entry(key).or_insert_with(|| {
                order.push(key);
                order.len() - 1
            })
        })
        .collect();
    let mut start = vec![0usize; order.len() + 1];
    for &p in &of {
        start[p + 1] += 1;
    }
    for p in 0..order.len() {
        start[p + 1] += start[p];
    }
    let mut next = start.clone();
    let mut flat = vec![0usize; plan.len()];
    for (i, &p) in of.iter().enumerate() {
        flat[next[p]] = i;
        next[p] += 1;
    }
    (order, flat, start)
}

/// Keeps every locked cable the plan still needs (same pair of devices, as many as the plan has), then
/// gives the rest ports. Returns how many cables are new (not held by the lock).
pub fn cables(plan: &mut [Cable], ix: &Index, ports: &mut Ports) -> usize {
    use rayon::prelude::*;
    let (order, flat, start) = by_pair(plan);
    let names = &ports.names;
    let locked: Vec<&[Kept]> = order
        .par_iter()
        .map(|key| {
            ix.pairs
                .get(&(names[key.0], names[key.1]))
                .map_or(&[][..], |&(from, to)| &ix.kept[from..to])
        })
        .collect();
    let mut pending = Vec::new();
    for (p, locked) in locked.into_iter().enumerate() {
        let idx = &flat[start[p]..start[p + 1]];
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
fn keep_pair(plan: &mut [Cable], idx: &[usize], locked: &[Kept], ports: &mut Ports) -> Vec<usize> {
    let same = |(&i, l): (&usize, &Kept)| {
        (plan[i].lower.1, plan[i].upper.1) == (l.link.lower_port, l.link.upper_port)
    };
    if idx.len() == locked.len() && idx.iter().zip(locked).all(same) {
        // Every cable matches its locked cable exactly, in order (the usual re-render): each is
        // pinned or left, as below, without the searches.
        return idx
            .iter()
            .zip(locked)
            .filter(|&(&i, l)| !pin(&mut plan[i], l, ports))
            .map(|(&i, _)| i)
            .collect();
    }
    let mut left: Vec<usize> = idx.to_vec();
    let mut rest: Vec<&Kept> = Vec::new();
    for l in locked {
        let exact = left.iter().position(|&i| {
            plan[i].lower.1 == l.link.lower_port && plan[i].upper.1 == l.link.upper_port
        });
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
    rest.sort_by_key(|l| (l.link.lower_port, l.link.upper_port));
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
fn pin(c: &mut Cable, l: &Kept, ports: &mut Ports) -> bool {
    let (lower_port, upper_port) = (l.link.lower_port, l.link.upper_port);
    if l.even.is_none() || !ports.free(c.lower.0, lower_port) || !ports.free(c.upper.0, upper_port)
    {
        return false;
    }
    c.lower.1 = lower_port;
    c.upper.1 = upper_port;
    c.pinned = l.even;
    ports.hold(c.lower.0, lower_port);
    ports.hold(c.upper.0, upper_port);
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
    fn plain_prefixes_read_like_the_lock_reader() {
        for t in [
            "10.64.0.0/31",
            "10.64.0.1/31",
            "0.0.0.0/0",
            "255.255.255.254/31",
            "10.0.0.0/8",
            "10.0.0.0/33",
            "010.0.0.0/31",
            "10.0.0/31",
            "10.0.0.0.0/31",
            "10.0.0.0",
            "1.2.3.4/032",
            "10.0.0.256/31",
            "a.b.c.d/1",
            "10.0.0.0/",
            "/31",
            "10..0.0/31",
            "1.2.3.4/32",
        ] {
            let slow = crate::lock::prefix::subnet(t, true)
                .ok()
                .map(|n| (u32::from(n.network()), 1u64 << (32 - n.prefix() as u32)));
            assert_eq!(block_of(t), slow, "{t}");
        }
    }

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
