//! The lock against the intent it sits beside: every address inside its pool, every ASN inside one of
//! the intent's ranges, and ASNs of the leaf range held once (spines of a zone share theirs).

use super::prefix::subnet;
use super::read::Loaded;
use crate::diag::Finding;
use crate::intent::{Intent, Prefix};
use crate::rules::Rule;
use std::collections::HashMap;
use std::net::Ipv4Addr;

const HINT: &str = "a pool or range in the intent changed, or the entry was edited: fix the entry, or delete it (and render with --allow-renumber) to re-allocate it";

/// Every lock value outside the intent's pools and ranges (`AIF-LOCK-004`), and every leaf-range ASN held
/// twice (`AIF-LOCK-003`), located in the lock file.
pub fn against(l: &Loaded, intent: &Intent) -> Vec<Finding> {
    let a = &intent.fabric.addressing;
    let mut errs = Vec::new();
    let mut out = |ptr: String, what: String, pool: &str| {
        errs.push(l.finding(
            Rule::LockOutOfPool,
            &ptr,
            format!("{what} is outside {pool}"),
            HINT,
        ));
    };
    for (i, d) in l.lock.devices.iter().enumerate() {
        for (field, ip) in [("loopback", d.loopback), ("router_id", d.router_id)] {
            if !host_in(&a.loopbacks, ip) {
                out(
                    format!("/devices/{i}/{field}"),
                    format!("{field} {ip}"),
                    &format!("loopbacks {}", a.loopbacks.0),
                );
            }
        }
        if !asn_in_ranges(intent, d.asn) {
            out(
                format!("/devices/{i}/asn"),
                format!("ASN {}", d.asn),
                "the intent's ASN ranges",
            );
        }
        if let (Some(m), Some(ip)) = (&intent.fabric.management, d.management)
            && !m.subnet.0.contains(ip)
        {
            out(
                format!("/devices/{i}/management"),
                format!("management {ip}"),
                &format!("{}", m.subnet.0),
            );
        }
        if let Some(Ok(n)) = d.server_subnet.as_deref().map(|s| subnet(s, true))
            && !within(&a.server_links, n.network(), n.size() as u64)
        {
            out(
                format!("/devices/{i}/server_subnet"),
                format!("subnet {n}"),
                &format!("server_links {}", a.server_links.0),
            );
        }
    }
    let links = outside(&l.lock.links, |k| &k.subnet, &a.fabric_links);
    let servers = outside(&l.lock.servers, |v| &v.subnet, &a.server_links);
    for (list, name, pool, found) in [
        ("links", "fabric_links", &a.fabric_links, links),
        ("servers", "server_links", &a.server_links, servers),
    ] {
        for (i, n) in found {
            out(
                format!("/{list}/{i}/subnet"),
                format!("/31 {n}"),
                &format!("{name} {}", pool.0),
            );
        }
    }
    errs.extend(leaf_asns_once(l, intent));
    errs
}

/// The entries of `entries` (the lock's links or servers) whose /31 lies outside `pool`, by index, in
/// order: checked in parallel (hundreds of thousands at 100K GPUs). An entry whose text is no subnet
/// is the lock reader's finding, not this one's.
fn outside<T: Sync>(
    entries: &[T],
    subnet_of: impl Fn(&T) -> &str + Sync,
    pool: &Prefix,
) -> Vec<(usize, ipnetwork::Ipv4Network)> {
    use rayon::prelude::*;
    entries
        .par_iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let n = subnet(subnet_of(e), false).ok()?;
            (!within(pool, n.network(), 2)).then_some((i, n))
        })
        .collect()
}

/// Whether `ip` is a host address of the IPv4 pool (not its network or broadcast address).
fn host_in(pool: &Prefix, ip: Ipv4Addr) -> bool {
    match pool.0 {
        ipnetwork::IpNetwork::V4(n) => {
            n.contains(ip) && (n.prefix() >= 31 || (ip != n.network() && ip != n.broadcast()))
        }
        ipnetwork::IpNetwork::V6(_) => false,
    }
}

/// Whether `size` addresses from `first` lie inside the IPv4 pool.
fn within(pool: &Prefix, first: Ipv4Addr, size: u64) -> bool {
    match pool.0 {
        ipnetwork::IpNetwork::V4(n) => {
            let (lo, hi) = (
                u32::from(n.network()) as u64,
                u32::from(n.broadcast()) as u64,
            );
            let start = u32::from(first) as u64;
            start >= lo && start + size - 1 <= hi
        }
        ipnetwork::IpNetwork::V6(_) => false,
    }
}

fn asn_in_ranges(intent: &Intent, asn: u32) -> bool {
    let b = &intent.fabric.bgp;
    [Some(b.leaf_asn), Some(b.spine_asn), b.super_spine_asn]
        .into_iter()
        .flatten()
        .any(|r| (r.first..=r.last).contains(&asn))
}

/// Leaf ASNs are one per leaf: a leaf-range ASN held by two entries is a collision.
fn leaf_asns_once(l: &Loaded, intent: &Intent) -> Vec<Finding> {
    let r = intent.fabric.bgp.leaf_asn;
    let mut first: HashMap<u32, usize> = HashMap::new();
    let mut errs = Vec::new();
    for (i, d) in l.lock.devices.iter().enumerate() {
        if !(r.first..=r.last).contains(&d.asn) {
            continue;
        }
        if let Some(j) = first.get(&d.asn) {
            errs.push(l.finding(
                Rule::LockCollision,
                &format!("/devices/{i}/asn"),
                format!(
                    "leaf ASN {} is held by {} and {}",
                    d.asn, l.lock.devices[*j].name, d.name
                ),
                "give each leaf its own ASN from the leaf range",
            ));
        } else {
            first.insert(d.asn, i);
        }
    }
    errs
}
