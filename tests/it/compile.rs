//! Compiler invariants: counts of the example fabrics, and properties that must hold for any valid size
//! (every link has two ends on existing ports of the right speed, no port used twice, every /31 used once
//! with its two addresses on its two ends, loopbacks and ASNs unique, adding a group moves nothing).

use crate::common;
use crate::fabrics;

use aifab::compile::compile;
use aifab::intent::{Intent, TopologyKind};
use aifab::model::FabricModel;
use aifab::platform::Catalog;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

fn build(intent: &Intent) -> FabricModel {
    match compile(intent, Catalog::builtin()) {
        Ok(m) => m,
        Err(e) => panic!("compile failed: {e:#?}"),
    }
}

#[test]
fn example_1024_counts() {
    let m = common::model("intents/pod1-1024.yaml");
    let s = &m.summary;
    assert_eq!((s.leaves, s.spines, s.super_spines), (32, 16, 0));
    assert_eq!(s.server_links, 1024);
    assert_eq!(s.leaf_spine_links, 1024);
    assert_eq!(s.leaf_oversubscription, "1:1");
    assert_eq!(s.gpus, 1024);
    assert_eq!(s.leaf_ecmp_width, 32);
    assert_eq!(m.devices.len(), 48);
    invariants(&m);
}

/// The three-tier example: 4 zones × 16 leaves × 8 spines + 8 super-spines at 4:1 above the spines.
#[test]
fn three_tier_4_zones_counts() {
    let mut i = common::intent("intents/three-tier-small.yaml");
    let t = &mut i.fabric.topology;
    t.kind = TopologyKind::ThreeTier;
    t.zones = Some(4);
    t.rails = 8;
    t.servers_per_group = 16;
    t.servers = 4 * 2 * 16; // 2 groups of 16 servers × 8 rails = 16 leaves per zone
    t.spine.count = 8;
    t.spine.platform = "eos/7060x5-64".into();
    if let Some(ss) = t.super_spine.as_mut() {
        ss.count = 8;
        ss.platform = "eos/7800r3".into();
    }
    t.cable_length.spine_super_spine = Some(aifab::units::Length(50));
    i.fabric.bgp.spine_asn = aifab::units::AsnRange::parse("65020-65023").expect("range");
    i.fabric.addressing.server_links =
        aifab::intent::Prefix::parse("10.22.0.0/20").expect("prefix");
    i.fabric.addressing.fabric_links =
        aifab::intent::Prefix::parse("10.21.0.0/20").expect("prefix");
    i.load_balancing.hash.roce_dest_qp = false;
    let m = build(&i);
    let s = &m.summary;
    assert_eq!((s.leaves, s.spines, s.super_spines), (64, 32, 8));
    // leaf: 16 × 400G down, 1:1 → 16 up, 2 to each of 8 spines
    assert_eq!(s.leaf_spine_links, 64 * 16);
    // spine: 16 leaves × 2 = 32 down, 4:1 → 8 up, 1 to each of 8 super-spines
    assert_eq!(s.spine_super_spine_links, 32 * 8);
    assert_eq!(s.spine_oversubscription.as_deref(), Some("4:1"));
    assert_eq!(s.server_links, 1024);
    // each super-spine: 4 zones × 8 spines × 1 link
    for d in m
        .devices
        .iter()
        .filter(|d| d.role == aifab::intent::Role::SuperSpine)
    {
        assert_eq!(d.interfaces.len(), 32, "{}", d.hostname);
    }
    invariants(&m);
}

/// The benchmark's Meta-style 24K-GPU fabric, generated at 1/8 size (one AI zone: 192 rack switches, 16
/// spines, 48 aggregation switches in 16 planes), keeps the same invariants as the examples.
#[test]
fn generated_24k_fabric_at_reduced_size_keeps_the_invariants() {
    let yaml = fabrics::intent_yaml("24k", 8).expect("24k");
    let intent: Intent = serde_norway::from_str(&yaml).expect("intent");
    let m = build(&intent);
    assert_eq!(
        (m.summary.leaves, m.summary.spines, m.summary.super_spines),
        (192, 16, 48)
    );
    assert_eq!(m.summary.gpus, 3072);
    assert_eq!(m.summary.spine_oversubscription.as_deref(), Some("4:1"));
    invariants(&m);
}

#[test]
fn every_example_keeps_the_invariants() {
    for p in common::example_and_extra_intents() {
        invariants(&common::model(&p));
    }
}

#[test]
fn pools_too_small_say_the_numbers() {
    let mut i = common::intent("intents/pod1-1024.yaml");
    i.fabric.addressing.server_links = aifab::intent::Prefix::parse("10.2.0.0/22").expect("prefix");
    let e = compile(&i, Catalog::builtin()).expect_err("pool too small");
    let msg = &e[0].message;
    assert!(
        msg.contains("server_links") && msg.contains("1024") && msg.contains("2048"),
        "{msg}"
    );
    assert_eq!(
        e[0].pointer.as_deref(),
        Some("/fabric/addressing/server_links")
    );

    let mut i = common::intent("intents/pod1-1024.yaml");
    i.fabric.topology.leaf.platform = "nxos/n9k-c9332d-gx2b".into();
    let e = compile(&i, Catalog::builtin()).expect_err("ports too few");
    let msg = &e[0].message;
    assert!(
        msg.contains("32 down + 32 up = 64 ports") && msg.contains("has 32"),
        "{msg}"
    );

    let mut i = common::intent("intents/pod1-1024.yaml");
    i.fabric.bgp.leaf_asn = aifab::units::AsnRange::parse("65100-65110").expect("range");
    let e = compile(&i, Catalog::builtin()).expect_err("asns too few");
    assert!(
        e[0].message.contains("holds 11 ASNs") && e[0].message.contains("32 leaves"),
        "{}",
        e[0].message
    );
}

/// Ports of a device in its layout: children x front-panel ports of every group (the front-panel
/// count when nothing is broken out). The groups cover every front-panel port exactly once.
fn port_total(d: &aifab::model::Device, panels: u32) -> u32 {
    if d.port_groups.is_empty() {
        return panels;
    }
    let mut next = 1;
    for g in &d.port_groups {
        assert_eq!(g.first_panel, next, "{}: groups in panel order", d.hostname);
        next += g.panels;
    }
    assert_eq!(
        next,
        panels + 1,
        "{}: groups cover every front-panel port",
        d.hostname
    );
    d.port_groups.iter().map(|g| g.panels * g.children).sum()
}

/// Checks the structural invariants of a compiled fabric.
fn invariants(m: &FabricModel) {
    let cat = Catalog::builtin();
    // Devices and ports.
    let mut ports: HashMap<(&str, &str), (u32, u32)> = HashMap::new();
    for d in &m.devices {
        let (_, pf) = cat.get(&d.platform).expect("platform");
        let total = port_total(d, pf.ports.count);
        let mut seen = BTreeSet::new();
        for i in &d.interfaces {
            assert!(
                i.port >= 1 && i.port <= total,
                "{} port {} out of range",
                d.hostname,
                i.port
            );
            assert!(
                seen.insert(i.port),
                "{} port {} used twice",
                d.hostname,
                i.port
            );
            assert!(
                pf.port_speeds().iter().any(|s| s.gbps() == i.speed_gbps),
                "{} {} runs at {}G, not a speed of {}",
                d.hostname,
                i.name,
                i.speed_gbps,
                d.platform
            );
            let at = d.locate(i.port).expect("port in a group");
            assert_eq!(*i.name, pf.child_name(at.panel, at.child, at.children));
            if at.children > 1 {
                // A broken-out port runs at its mode's speed, one of the platform's breakouts.
                assert_eq!(at.speed_gbps, i.speed_gbps, "{} {}", d.hostname, i.name);
            }
            ports.insert(
                (d.hostname.as_str(), i.name.as_ref()),
                (i.port, i.speed_gbps),
            );
        }
    }
    // Links: both switch ends exist with the link's speed; every /31 once, addresses on both ends.
    let by_host: HashMap<&str, &aifab::model::Device> =
        m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect();
    let mut subnets = BTreeSet::new();
    for l in &m.links {
        let b = ports
            .get(&(l.b.as_ref(), l.b_port.as_ref()))
            .expect("upper end exists");
        assert_eq!(b.1, l.speed_gbps);
        if l.tier != "server-leaf" {
            let a = ports
                .get(&(l.a.as_ref(), l.a_port.as_ref()))
                .expect("lower end exists");
            assert_eq!(a.1, l.speed_gbps);
            let subnet = l.subnet.clone().expect("fabric link has a /31");
            assert!(subnets.insert(subnet.clone()), "{subnet} used twice");
            let upper = by_host[l.b.as_ref()]
                .interfaces
                .iter()
                .find(|i| i.name == l.b_port)
                .expect("iface");
            let lower = by_host[l.a.as_ref()]
                .interfaces
                .iter()
                .find(|i| i.name == l.a_port)
                .expect("iface");
            let (ui, li) = (upper.ip.expect("ip"), lower.ip.expect("ip"));
            assert_eq!(
                u32::from(ui) & !1,
                u32::from(li) & !1,
                "{subnet}: ends on different /31s"
            );
            assert_eq!(
                u32::from(ui) % 2,
                0,
                "{subnet}: upper tier takes the even address"
            );
            assert_eq!(upper.peer_ip, Some(li));
            assert_eq!(lower.peer_ip, Some(ui));
            assert_eq!(
                format!("{}/31", std::net::Ipv4Addr::from(u32::from(ui))),
                &*subnet
            );
        } else if let Some(s) = &l.subnet
            && s.ends_with("/31")
        {
            assert!(subnets.insert(s.clone()), "{s} used twice");
            let leaf = by_host[l.b.as_ref()]
                .interfaces
                .iter()
                .find(|i| i.name == l.b_port)
                .expect("iface");
            assert_eq!(
                u32::from(leaf.ip.expect("ip")) % 2,
                0,
                "switch takes the even server address"
            );
        }
    }
    // Loopbacks and ASNs.
    let mut lo = BTreeSet::new();
    for d in &m.devices {
        assert!(lo.insert(d.loopback), "loopback {} twice", d.loopback);
    }
    let mut leaf_asns = BTreeSet::new();
    for d in m
        .devices
        .iter()
        .filter(|d| d.role == aifab::intent::Role::Leaf)
    {
        assert!(leaf_asns.insert(d.bgp.asn), "leaf ASN {} twice", d.bgp.asn);
    }
    // Every neighbor is the other end of a link, with the peer's ASN.
    let asn: HashMap<&str, u32> = m
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d.bgp.asn))
        .collect();
    for d in &m.devices {
        for n in &d.bgp.neighbors {
            assert_eq!(asn[n.peer.as_ref()], n.remote_as);
            assert_ne!(
                n.remote_as, d.bgp.asn,
                "{} peers with its own ASN",
                d.hostname
            );
        }
    }
}

/// Everything an allocation decided, by device and port, for the stability property.
fn allocations(m: &FabricModel) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for d in &m.devices {
        out.insert(format!("{} lo", d.hostname), d.loopback.to_string());
        out.insert(format!("{} asn", d.hostname), d.bgp.asn.to_string());
        for i in &d.interfaces {
            out.insert(
                format!("{} {}", d.hostname, i.name),
                format!("{:?} {} {}", i.address, i.peer, i.peer_port),
            );
        }
    }
    out
}

fn sized(groups: u32, spg: u32, rails: u32, spines: u32, ratio_up: u32) -> Intent {
    let mut i = common::intent("intents/pod1-1024.yaml");
    let t = &mut i.fabric.topology;
    t.servers_per_group = spg;
    t.servers = groups * spg;
    t.rails = rails;
    t.spine.count = spines;
    t.spine.platform = "eos/7800r3".into();
    t.leaf.oversubscription = aifab::units::Ratio {
        down: ratio_up,
        up: 1,
    };
    i.overrides.clear();
    i
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Random valid 2-tier sizes keep the invariants, and one more group at the end moves nothing.
    #[test]
    fn random_sizes_keep_invariants_and_growth_is_stable(
        groups in 1u32..5,
        spg_pow in 1u32..6,      // 2..32 servers per group
        rails in 1u32..9,
        ratio in prop_oneof![Just(1u32), Just(2u32), Just(4u32)],
        spine_pow in 0u32..4,
    ) {
        let spg = 1 << spg_pow;
        let up = spg / ratio;
        prop_assume!(up >= 1 && spg % ratio == 0);
        let spines = (1u32 << spine_pow).min(up);
        prop_assume!(up % spines == 0);
        let small = sized(groups, spg, rails, spines, ratio);
        let Ok(m1) = compile(&small, Catalog::builtin()) else {
            // Only port budgets may refuse a random size (a spine with too many leaves).
            return Ok(());
        };
        invariants(&m1);
        prop_assert_eq!(m1.summary.server_links, groups * spg * rails);
        prop_assert_eq!(m1.summary.leaf_spine_links, groups * rails * up);
        let bigger = sized(groups + 1, spg, rails, spines, ratio);
        if let Ok(m2) = compile(&bigger, Catalog::builtin()) {
            invariants(&m2);
            let a1 = allocations(&m1);
            let a2 = allocations(&m2);
            for (k, v) in &a1 {
                prop_assert_eq!(a2.get(k), Some(v), "{} moved when a group was added", k);
            }
        }
    }
}

/// Every benchmark size's intent (the three-tier ones at one zone) passes every
/// check and compiles; the `100k-hosts` one also renders a netplan file for each of its servers.
#[test]
fn every_benchmark_size_passes_its_checks_and_the_hosts_size_renders_hosts() {
    for size in fabrics::SIZES {
        let yaml = fabrics::intent_yaml(size, if size == "1k" { 1 } else { 7 }).expect(size);
        let source = aifab::diag::Source::new(format!("bench-{size}.yaml"), yaml);
        let front = match aifab::pipeline::front_source(source) {
            Ok(f) => f,
            Err(
                aifab::pipeline::FrontError::Invalid(_, f)
                | aifab::pipeline::FrontError::Lock(_, f),
            ) => {
                let rules: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
                panic!("{size}: {rules:?}")
            }
            Err(aifab::pipeline::FrontError::Both { intent, lock }) => {
                panic!("{size}: {:?} {:?}", intent.1, lock.1)
            }
            Err(aifab::pipeline::FrontError::Io(e)) => panic!("{size}: {e}"),
        };
        let files = aifab::render::Renderer::new(Catalog::builtin())
            .expect("templates")
            .fabric(
                &aifab::render::Meta::new("bench.yaml", &front.model.name),
                &front.model,
                None,
            )
            .expect("render");
        let netplan = files
            .iter()
            .filter(|f| f.path.starts_with("hosts/netplan/"))
            .count();
        let servers = front.intent.fabric.topology.servers as usize;
        let want = if size.ends_with("-hosts") { servers } else { 0 };
        assert_eq!(netplan, want, "{size}: netplan files");
        assert!(
            servers > 0 && files.len() > servers / 8,
            "{size}: {} files",
            files.len()
        );
    }
}

/// The neutral model carries no OS keyword: ECN thresholds are bytes (each OS writes them in its
/// platform's unit), and no string of any example's compiled model is a unit or queue keyword of
/// the catalog (`kbytes`, `bytes`, `tx-queue`, ...); the OS layer spells those.
#[test]
fn the_neutral_model_carries_no_os_keyword() {
    fn strings<'v>(v: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match v {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let keywords: BTreeSet<String> = Catalog::builtin()
        .platforms
        .values()
        .flat_map(|e| {
            [
                Some(e.1.ecn_unit.keyword.clone()),
                e.1.queue_keyword.clone(),
            ]
        })
        .flatten()
        .collect();
    assert!(keywords.contains("kbytes"), "{keywords:?}");
    let mut ecn = 0;
    for path in common::example_intents() {
        let model = common::model(&path);
        let json = serde_json::to_value(&model).expect("the model serializes");
        let mut found = Vec::new();
        strings(&json, &mut found);
        let os_words: BTreeSet<&str> = found
            .into_iter()
            .filter(|s| keywords.contains(*s))
            .collect();
        assert!(os_words.is_empty(), "{path}: {os_words:?} in the model");
        for d in &model.devices {
            for e in d.qos.classes.iter().filter_map(|c| c.ecn.as_ref()) {
                let v = serde_json::to_value(e).expect("serializes");
                let keys: BTreeSet<&str> = v
                    .as_object()
                    .expect("object")
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(
                    keys,
                    BTreeSet::from(["max_bytes", "min_bytes", "probability"]),
                    "{path}"
                );
                ecn += 1;
            }
        }
    }
    assert!(ecn > 0, "no example has ECN");
}
