//! Stable allocation (issue 16, docs/lock.md): with the lock of the first render, growing or shrinking a
//! fabric in any dimension keeps every existing device's loopback, router-id, ASN, management address,
//! ports, peers and /31s. Where a change must move cables (more spines or super-spines share a fixed
//! number of uplinks), the identities still stay and only the cables that must move, move.

use crate::common;

use aifab::diag::Source;
use aifab::lock::build::{from_model, renumbered};
use aifab::lock::read::{Loaded, parse};
use aifab::lock::{Lock, LockLink};
use aifab::model::FabricModel;
use aifab::pipeline::{FrontError, front_source_locked};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Compiles intent text with a lock (given as a lock, written and read back as its file would be).
fn compile(text: &str, lock: Option<&Lock>) -> FabricModel {
    let loaded = lock.map(reload);
    match front_source_locked(Source::new("x.yaml", text), None, loaded.as_ref()) {
        Ok(f) => f.model,
        Err(FrontError::Invalid(_, f)) | Err(FrontError::Lock(_, f)) => {
            panic!(
                "compile failed: {:#?}",
                f.iter().map(|f| &f.message).collect::<Vec<_>>()
            )
        }
        Err(FrontError::Both { intent, lock }) => {
            panic!("compile failed: {:?} {:?}", intent.1, lock.1)
        }
        Err(FrontError::Io(e)) => panic!("{e}"),
    }
}

/// The lock's file text, read back.
fn reload(l: &Lock) -> Loaded {
    match parse(Source::new("x.lock.yaml", l.to_yaml("x.yaml"))) {
        Ok(l) => l,
        Err(e) => panic!("the written lock does not read back: {e:?}"),
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).expect("read intent")
}

/// Replaces one occurrence of `from` (after `anchor`) with `to`.
fn edit(text: &str, anchor: &str, from: &str, to: &str) -> String {
    let a = text.find(anchor).unwrap_or_else(|| panic!("no `{anchor}`"));
    let i = a + text[a..]
        .find(from)
        .unwrap_or_else(|| panic!("no `{from}` after `{anchor}`"));
    format!("{}{to}{}", &text[..i], &text[i + from.len()..])
}

/// Renders `before`, then `after` with the first render's lock: (first model, its lock, second model,
/// the lock the second render writes).
fn change(before: &str, after: &str) -> (FabricModel, Lock, FabricModel, Lock) {
    let m1 = compile(before, None);
    let l1 = from_model(&m1, None, false);
    let m2 = compile(after, Some(&l1));
    let l2 = from_model(&m2, Some(&l1), false);
    (m1, l1, m2, l2)
}

/// Every device on both sides keeps loopback, router-id, ASN, management address and server subnet.
fn identities_kept(m1: &FabricModel, m2: &FabricModel) -> usize {
    let after: HashMap<&str, _> = m2
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    let mut n = 0;
    for a in &m1.devices {
        let Some(b) = after.get(a.hostname.as_str()) else {
            continue;
        };
        assert_eq!(a.loopback, b.loopback, "{} loopback", a.hostname);
        assert_eq!(a.bgp.router_id, b.bgp.router_id, "{} router-id", a.hostname);
        assert_eq!(a.bgp.asn, b.bgp.asn, "{} ASN", a.hostname);
        assert_eq!(
            a.management.as_ref().map(|m| m.ip),
            b.management.as_ref().map(|m| m.ip),
            "{} management",
            a.hostname
        );
        assert_eq!(
            a.server_subnet.as_ref().map(|s| &s.prefix),
            b.server_subnet.as_ref().map(|s| &s.prefix),
            "{} server subnet",
            a.hostname
        );
        n += 1;
    }
    n
}

/// Every port of an existing device whose peer still exists keeps its name, peer, peer port and address.
fn ports_kept(m1: &FabricModel, m2: &FabricModel) {
    let after: HashMap<&str, _> = m2
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    let servers: std::collections::HashSet<&str> = m2.links.iter().map(|l| l.a.as_ref()).collect();
    for a in &m1.devices {
        let Some(b) = after.get(a.hostname.as_str()) else {
            continue;
        };
        for i in &a.interfaces {
            if !after.contains_key(i.peer.as_ref()) && !servers.contains(i.peer.as_ref()) {
                continue; // the peer (switch or server) left the fabric: a shrink
            }
            let j = b.interfaces.iter().find(|j| j.port == i.port);
            let j = j.unwrap_or_else(|| panic!("{} lost port {}", a.hostname, i.port));
            assert_eq!(
                (&i.name, &i.peer, &i.peer_port, &i.address),
                (&j.name, &j.peer, &j.peer_port, &j.address),
                "{} port {}",
                a.hostname,
                i.port
            );
        }
    }
}

/// Switch links per device pair.
fn pairs(l: &Lock) -> BTreeMap<(String, String), Vec<&LockLink>> {
    let mut m: BTreeMap<(String, String), Vec<&LockLink>> = BTreeMap::new();
    for k in l.links.iter().filter(|k| !k.retired) {
        m.entry((k.lower.to_string(), k.upper.to_string()))
            .or_default()
            .push(k);
    }
    m
}

/// Cables move only where the pair of devices needs fewer of them: each pair that stays keeps
/// min(before, after) of its cables exactly (ports and /31). Returns how many moved.
fn minimal_recabling(l1: &Lock, l2: &Lock) -> usize {
    let (a, b) = (pairs(l1), pairs(l2));
    let mut moved = 0;
    for (pair, before) in &a {
        let Some(after) = b.get(pair) else { continue };
        let kept = before
            .iter()
            .filter(|k| after.iter().any(|x| x == *k))
            .count();
        assert_eq!(
            kept,
            before.len().min(after.len()),
            "{pair:?}: kept {kept} of {} cables, {} needed",
            before.len(),
            after.len()
        );
        moved += before.len() - kept;
    }
    moved
}

/// A grow or shrink that moves nothing: same identities, ports, peers and addresses, no renumbering,
/// and the second render with its own lock is unchanged.
fn nothing_moves(before: &str, after: &str) -> (usize, usize) {
    let (m1, l1, m2, l2) = change(before, after);
    let kept = identities_kept(&m1, &m2);
    ports_kept(&m1, &m2);
    assert_eq!(minimal_recabling(&l1, &l2), 0);
    let r = renumbered(&l1, &l2);
    assert!(r.is_empty(), "renumbered: {r:?}");
    let again = compile(after, Some(&l2));
    assert_eq!(
        from_model(&again, Some(&l2), false),
        l2,
        "a re-render with the new lock changes it"
    );
    (kept, m2.devices.len())
}

const POD1: &str = "intents/pod1-1024.yaml";
const SMALL: &str = "intents/three-tier-small.yaml";
const MIXED: &str = "intents/mixed-sonic-nxos.yaml";

#[test]
fn every_example_renders_the_same_with_its_own_lock() {
    for path in common::example_intents() {
        let text = read(&path);
        let m1 = compile(&text, None);
        let l1 = from_model(&m1, None, false);
        let m2 = compile(&text, Some(&l1));
        assert_eq!(
            format!("{m1:?}"),
            format!("{m2:?}"),
            "{path}: the lock changes the model"
        );
    }
}

#[test]
fn adding_servers_to_a_group_and_removing_them_moves_nothing() {
    let full = read(POD1);
    let partial = edit(&full, "servers: 128", "128", "120");
    let (kept, total) = nothing_moves(&partial, &full);
    assert_eq!((kept, total), (48, 48));
    nothing_moves(&full, &partial);
}

#[test]
fn adding_groups_and_removing_them_moves_nothing() {
    let base = read(POD1);
    let grown = edit(&base, "servers: 128", "128", "192");
    let (kept, total) = nothing_moves(&base, &grown);
    assert_eq!((kept, total), (48, 64));
    nothing_moves(&grown, &base);
}

#[test]
fn adding_zones_and_removing_them_moves_nothing() {
    let base = read(SMALL);
    let wide = edit(&base, "spine_asn:", "65020-65021", "65020-65029");
    let grown = edit(
        &edit(&wide, "servers: 16", "16", "24"),
        "zones: 2",
        "2",
        "3",
    );
    let (kept, total) = nothing_moves(&wide, &grown);
    assert_eq!(kept, 22);
    assert_eq!(total, 32);
    nothing_moves(&grown, &wide);
}

#[test]
fn shrinking_then_growing_back_restores_the_retired_allocation() {
    // rail-subnet servers and management addresses: the groups that leave keep their space.
    let full = edit(&read(MIXED), "match: \"g2-rail8\"", "g2-rail8", "g1-rail8");
    let half = edit(&full, "servers: 32", "32", "16");
    let m0 = compile(&full, None);
    let l0 = from_model(&m0, None, false);
    let m1 = compile(&half, Some(&l0));
    let l1 = from_model(&m1, Some(&l0), false);
    assert!(l1.devices.iter().any(|d| d.retired && d.name == "g2-rail1"));
    let m2 = compile(&full, Some(&l1));
    assert_eq!(
        format!("{m0:?}"),
        format!("{m2:?}"),
        "growing back differs from the first render"
    );
    // Released, the space is free again: a render with --release writes no retired entries.
    assert!(
        from_model(&m1, Some(&l0), true)
            .devices
            .iter()
            .all(|d| !d.retired)
    );
}

#[test]
fn new_devices_never_take_retired_space() {
    // three-tier-small with its leaves renamed: the old leaves retire and keep their loopbacks and ASNs;
    // the new leaves step over them.
    let base = edit(
        &read(SMALL),
        "fabric_links:",
        "10.21.0.0/24",
        "10.21.0.0/23",
    );
    let m0 = compile(&base, None);
    let l0 = from_model(&m0, None, false);
    let renamed = edit(&base, "hostname: \"z{zone}-g", "z{zone}-g", "n{zone}-g");
    let m1 = compile(&renamed, Some(&l0));
    let held: Vec<_> = l0.devices.iter().map(|d| (d.loopback, d.asn)).collect();
    let new: Vec<_> = m1
        .devices
        .iter()
        .filter(|d| d.hostname.starts_with('n'))
        .collect();
    assert_eq!(new.len(), 16);
    for d in new {
        assert!(
            !held.iter().any(|(lo, _)| *lo == d.loopback),
            "{} took a held loopback",
            d.hostname
        );
        assert!(
            !held.iter().any(|(_, asn)| *asn == d.bgp.asn),
            "{} took a held ASN",
            d.hostname
        );
    }
    let l1 = from_model(&m1, Some(&l0), false);
    assert_eq!(l1.devices.iter().filter(|d| d.retired).count(), 16);
    // Released, the renamed leaves may take the old space: the arithmetic again.
    let released = from_model(&m1, Some(&l0), true);
    let m2 = compile(
        &renamed,
        Some(&Lock {
            devices: released
                .devices
                .iter()
                .filter(|d| !d.name.starts_with('n'))
                .cloned()
                .collect(),
            ..released.clone()
        }),
    );
    assert_eq!(
        m2.devices
            .iter()
            .find(|d| d.hostname == "n1-g1-r1")
            .map(|d| d.loopback.to_string()),
        Some("10.20.0.1".into())
    );
}

#[test]
fn more_spines_per_zone_keep_z2_spine1_and_move_only_the_cables_that_must_move() {
    // The case: three-tier-small from 2 to 4 spines per zone.
    let base = read(SMALL);
    let grown = edit(&base, "z{zone}-spine{index}", "count: 2", "count: 4");
    let (m1, l1, m2, l2) = change(&base, &grown);
    let z2s1 = m2
        .devices
        .iter()
        .find(|d| d.hostname == "z2-spine1")
        .expect("z2-spine1");
    assert_eq!(z2s1.loopback.to_string(), "10.20.0.250");
    assert_eq!(identities_kept(&m1, &m2), 22);
    let moved = minimal_recabling(&l1, &l2);
    // Each leaf's 4 uplinks now spread over 4 spines: 2 of 4 move; each spine's 4 uplinks halve.
    assert_eq!(moved, 16 * 2 + 4 * 2);
    let r = renumbered(&l1, &l2);
    assert!(
        r.iter()
            .all(|r| r.changes.iter().all(|c| c.starts_with("port "))),
        "{r:?}"
    );
    // Without the lock, the arithmetic renumbers z2-spine1: what the lock is for.
    let fresh = compile(&grown, None);
    let z2 = fresh
        .devices
        .iter()
        .find(|d| d.hostname == "z2-spine1")
        .expect("z2-spine1");
    assert_ne!(z2.loopback.to_string(), "10.20.0.250");
    // Back to 2: the added spines retire; the remaining cables keep their ports.
    let m3 = compile(&base, Some(&l2));
    identities_kept(&m2, &m3);
}

#[test]
fn more_super_spines_keep_every_identity_and_move_only_what_must_move() {
    let base = read(SMALL);
    let grown = edit(&base, "hostname: \"ss{index}\"", "count: 2", "count: 4");
    let (m1, l1, m2, l2) = change(&base, &grown);
    assert_eq!(identities_kept(&m1, &m2), 22);
    // Each spine's 4 uplinks spread over 4 super-spines: 2 of 4 move.
    assert_eq!(minimal_recabling(&l1, &l2), 4 * 2);
    let m3 = compile(&base, Some(&l2));
    identities_kept(&m2, &m3);
    let l4 = from_model(&m3, Some(&l2), false);
    assert!(l4.devices.iter().any(|d| d.retired && d.name == "ss4"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, .. ProptestConfig::default() })]

    /// Random grow sequences of pod1 (servers added a few at a time, filling groups and opening new
    /// ones): after every step, every device that existed keeps everything.
    #[test]
    fn random_grow_sequences_never_renumber(steps in proptest::collection::vec(1u32..40, 1..4)) {
        let base = read(POD1);
        // pod1's override names su4-r8-leaf: start with 4 groups, the last one partly filled.
        let mut servers = 100u32;
        let mut text = edit(&base, "servers: 128", "128", &servers.to_string());
        let mut model = compile(&text, None);
        let mut lock = from_model(&model, None, false);
        for s in steps {
            servers = (servers + s).min(256);
            let next = edit(&base, "servers: 128", "128", &servers.to_string());
            let m = compile(&next, Some(&lock));
            identities_kept(&model, &m);
            ports_kept(&model, &m);
            let l = from_model(&m, Some(&lock), false);
            prop_assert!(renumbered(&lock, &l).is_empty());
            (text, model, lock) = (next, m, l);
        }
        prop_assert!(!text.is_empty());
    }
}

#[test]
fn rail_subnets_of_another_size_never_overlap_the_held_ones() {
    // Fewer servers per group: the rail subnets shrink from /27 to /28, so the leaves get new ones
    // (a renumbering the render reports), and none overlaps a subnet the lock still holds.
    let full = read(MIXED);
    let smaller = edit(&full, "servers_per_group: 16", "16", "8");
    let (_, l1, m2, l2) = change(&full, &smaller);
    let r = renumbered(&l1, &l2);
    assert!(
        r.iter()
            .any(|r| r.device == "g1-rail1"
                && r.changes.iter().any(|c| c.starts_with("server subnet"))),
        "{r:?}"
    );
    let mut nets: Vec<ipnetwork::Ipv4Network> = l2
        .devices
        .iter()
        .filter_map(|d| d.server_subnet.as_deref())
        .map(|s| s.parse().expect("subnet"))
        .collect();
    nets.extend(
        l1.devices
            .iter()
            .filter_map(|d| d.server_subnet.as_deref())
            .map(|s| s.parse::<ipnetwork::Ipv4Network>().expect("subnet")),
    );
    nets.sort_by_key(|n| (u32::from(n.network()), n.prefix()));
    nets.dedup();
    for w in nets.windows(2) {
        assert!(
            u32::from(w[0].broadcast()) < u32::from(w[1].network()),
            "{} overlaps {}",
            w[0],
            w[1]
        );
    }
    assert!(m2.devices.iter().any(|d| d.hostname == "g4-rail1"));
}

#[test]
fn a_device_pinned_before_it_exists_takes_its_pinned_values() {
    let base = edit(&read(SMALL), "spine_asn:", "65020-65021", "65020-65029");
    let grown = edit(
        &edit(&base, "servers: 16", "16", "24"),
        "zones: 2",
        "2",
        "3",
    );
    let m1 = compile(&base, None);
    let mut l1 = from_model(&m1, None, false);
    let ip: std::net::Ipv4Addr = "10.20.0.200".parse().expect("ip");
    l1.devices.push(aifab::lock::LockDevice {
        name: "z3-g5-r1".into(),
        loopback: ip,
        router_id: ip,
        asn: 65290,
        management: None,
        server_subnet: None,
        retired: false,
    });
    let m2 = compile(&grown, Some(&l1));
    let d = m2
        .devices
        .iter()
        .find(|d| d.hostname == "z3-g5-r1")
        .expect("z3-g5-r1");
    assert_eq!((d.loopback, d.bgp.router_id, d.bgp.asn), (ip, ip, 65290));
    // The next leaf did not take the pinned ASN or loopback.
    assert!(
        m2.devices
            .iter()
            .filter(|x| x.hostname != "z3-g5-r1")
            .all(|x| x.loopback != ip && x.bgp.asn != 65290)
    );
}

#[test]
fn pod1_from_16_to_32_spines_keeps_every_identity() {
    let base = read(POD1);
    let grown = edit(
        &base,
        "hostname: \"spine{index:02}\"",
        "count: 16",
        "count: 32",
    );
    let (m1, l1, m2, l2) = change(&base, &grown);
    assert_eq!(identities_kept(&m1, &m2), 48);
    // 32 uplinks per leaf over 32 spines instead of 16: one of each leaf's two cables per spine moves.
    assert_eq!(minimal_recabling(&l1, &l2), 32 * 16);
    let held: Vec<_> = m1.devices.iter().map(|d| d.loopback).collect();
    for d in m2.devices.iter().filter(|d| !held.contains(&d.loopback)) {
        assert!(
            !m1.devices.iter().any(|x| x.hostname == d.hostname),
            "{} renumbered",
            d.hostname
        );
    }
    // And back to 16: the cables to the spines that stay keep their ports and /31s.
    let m3 = compile(&base, Some(&l2));
    identities_kept(&m2, &m3);
    let l3 = from_model(&m3, Some(&l2), false);
    assert_eq!(minimal_recabling(&l2, &l3), 0);
    // The leaf ports whose spine left now go to a spine that stays: those leaves are re-cabled, and
    // reported; the spines that stay only gain cables on free ports.
    let r = renumbered(&l2, &l3);
    assert_eq!(r.len(), 32);
    assert!(r.iter().all(|r| r.device.ends_with("-leaf")), "{r:?}");
}

/// Servers removed and added back (issue 34): a group that leaves, and servers that leave a group,
/// get back exactly the server /31s they had (the lock keeps them retired), not the next free ones.
#[test]
fn shrinking_servers_then_growing_back_keeps_every_server_31() {
    // The override names a leaf of the fourth group, which leaves at 96 servers.
    let full = edit(
        &read(POD1),
        "match: \"su4-r8-leaf\"",
        "su4-r8-leaf",
        "su1-r8-leaf",
    );
    let m0 = compile(&full, None);
    let l0 = from_model(&m0, None, false);
    for fewer in ["96", "120"] {
        let shrunk = edit(&full, "servers: 128", "128", fewer);
        let m1 = compile(&shrunk, Some(&l0));
        let l1 = from_model(&m1, Some(&l0), false);
        assert!(
            l1.servers.iter().any(|v| v.retired),
            "{fewer}: the servers that left are kept, retired"
        );
        let m2 = compile(&full, Some(&l1));
        let l2 = from_model(&m2, Some(&l1), false);
        let server_31s = |l: &Lock| {
            l.servers
                .iter()
                .map(|v| (v.leaf.to_string(), v.port, v.subnet.to_string(), v.retired))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            server_31s(&l2),
            server_31s(&l0),
            "{fewer} servers and back: every server /31 as the first render gave it"
        );
        assert_eq!(
            format!("{m0:?}"),
            format!("{m2:?}"),
            "{fewer} servers and back: the model of the first render"
        );
    }
}
