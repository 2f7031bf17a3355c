//! Homing invariants (issue 17): every NIC port lands where its homing says (same leaf, two leaves of one
//! plane, two leaves in two planes; rail or rack leaves), no link joins two leaf planes, every leaf's
//! uplinks are whole and spread evenly over the spines of its zone and plane. Checked on every example
//! intent and on variants of the HPN and Meta examples; plus the ratio Meta's paper writes (7:1).

use crate::common;

use aifab::compile::compile;
use aifab::diag::Finding;
use aifab::intent::{Attachment, Homing, Intent, Prefix, ServerMode, SuperSpineTier};
use aifab::model::{Device, FabricModel, LinkTier};
use aifab::platform::Catalog;
use aifab::shape::pattern;
use aifab::units::{AsnRange, Length, Ratio};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const HPN: &str = "intents/hpn-dual-plane.yaml";
const META: &str = "intents/meta-rack-three-tier.yaml";

fn build(intent: &Intent) -> FabricModel {
    compile(intent, Catalog::builtin()).unwrap_or_else(|e| panic!("compile failed: {e:#?}"))
}

fn refused(intent: &Intent) -> Vec<Finding> {
    match compile(intent, Catalog::builtin()) {
        Ok(_) => panic!("compiled; expected a refusal"),
        Err(e) => e,
    }
}

/// Leaf planes of the intent: 2 with `homing: two-planes`.
fn leaf_planes(i: &Intent) -> u32 {
    if i.fabric.topology.homing == Some(Homing::TwoPlanes) {
        2
    } else {
        1
    }
}

/// The leaf plane a device belongs to (1 without planes): leaves carry it, spines and super-spines carry
/// their spine plane, which lies in leaf plane ((p-1) mod leaf planes)+1.
fn plane_of(d: &Device, planes: u32) -> u32 {
    d.plane.map_or(1, |p| (p - 1) % planes + 1)
}

/// Every NIC port name of the intent, with its rail and port (1-based).
fn nic_ports(i: &Intent) -> HashMap<String, (u32, u32)> {
    let t = &i.fabric.topology;
    let mut out = HashMap::new();
    for rail in 1..=t.rails {
        for port in 1..=t.nic_ports {
            let v = [("rail", rail), ("nic", rail - 1), ("port", port)];
            let name = pattern::expand(&t.server_nic, &v).expect("nic name");
            assert!(
                out.insert(name, (rail, port)).is_none(),
                "NIC names collide"
            );
        }
    }
    out
}

/// Where one server's NIC ports landed: (rail, port) -> (leaf, leaf port).
type Homes<'m> = BTreeMap<(u32, u32), (&'m Device, &'m str)>;

/// Every NIC port lands where the homing says, once.
fn nic_ports_land_home(i: &Intent, m: &FabricModel) {
    let t = &i.fabric.topology;
    let by_name: HashMap<&str, &Device> =
        m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect();
    let names = nic_ports(i);
    // server -> (rail, port) -> (leaf, leaf port)
    let mut seen: BTreeMap<&str, Homes> = BTreeMap::new();
    for l in m.links.iter().filter(|l| l.tier == LinkTier::ServerLeaf) {
        let leaf = by_name[&*l.b];
        let rp = *names
            .get(&*l.a_port)
            .unwrap_or_else(|| panic!("unknown NIC {}", l.a_port));
        let prev = seen.entry(&l.a).or_default().insert(rp, (leaf, &l.b_port));
        assert!(prev.is_none(), "{}:{} cabled twice", l.a, l.a_port);
        match t.leaf.attachment {
            Attachment::Rail => {
                assert_eq!(leaf.rail, Some(rp.0), "{}:{} on {}", l.a, l.a_port, l.b)
            }
            Attachment::Rack => assert_eq!(leaf.rail, None, "rack leaf {} has a rail", l.b),
        }
    }
    assert_eq!(seen.len() as u32, t.servers, "every server cabled");
    for (server, ports) in &seen {
        assert_eq!(
            ports.len() as u32,
            t.rails * t.nic_ports,
            "{server}: every NIC port cabled"
        );
        let groups: BTreeSet<Option<u32>> = ports.values().map(|(d, _)| d.group).collect();
        assert_eq!(groups.len(), 1, "{server}: one group (rack)");
        for rail in 1..=t.rails {
            if t.nic_ports == 1 {
                continue;
            }
            let (a, pa) = ports[&(rail, 1)];
            let (b, pb) = ports[&(rail, 2)];
            match t.homing {
                Some(Homing::SameLeaf) => {
                    assert_eq!(a.hostname, b.hostname, "{server} NIC {rail}: one leaf");
                    assert_ne!(pa, pb);
                }
                Some(Homing::TwoLeaves) => {
                    assert_ne!(a.hostname, b.hostname, "{server} NIC {rail}: two leaves");
                    assert_eq!((a.plane, b.plane), (None, None), "one plane");
                }
                Some(Homing::TwoPlanes) => {
                    assert_ne!(a.hostname, b.hostname, "{server} NIC {rail}: two leaves");
                    assert_eq!(
                        (a.plane, b.plane),
                        (Some(1), Some(2)),
                        "{server} NIC {rail}"
                    );
                }
                None => panic!("two ports without homing"),
            }
        }
    }
}

/// No switch link joins two leaf planes; every leaf reaches every spine of its zone and plane, the same
/// number of times (whole, even uplinks).
fn planes_disjoint_and_whole(i: &Intent, m: &FabricModel) {
    let planes = leaf_planes(i);
    let by_name: HashMap<&str, &Device> =
        m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect();
    let mut per_leaf: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
    for l in m.links.iter().filter(|l| l.tier != LinkTier::ServerLeaf) {
        let (a, b) = (by_name[&*l.a], by_name[&*l.b]);
        assert_eq!(
            plane_of(a, planes),
            plane_of(b, planes),
            "{} - {} joins two planes",
            l.a,
            l.b
        );
        if l.tier == LinkTier::LeafSpine {
            *per_leaf.entry(&l.a).or_default().entry(&l.b).or_default() += 1;
        }
    }
    let spines: Vec<&Device> = m
        .devices
        .iter()
        .filter(|d| d.role == aifab::intent::Role::Spine)
        .collect();
    for (leaf, ups) in &per_leaf {
        let d = by_name[leaf];
        let want: BTreeSet<&str> = spines
            .iter()
            .filter(|s| s.zone == d.zone && plane_of(s, planes) == plane_of(d, planes))
            .map(|s| s.hostname.as_str())
            .collect();
        assert_eq!(
            ups.keys().copied().collect::<BTreeSet<_>>(),
            want,
            "{leaf}'s spines"
        );
        let counts: BTreeSet<u32> = ups.values().copied().collect();
        assert_eq!(counts.len(), 1, "{leaf}: uneven uplinks {ups:?}");
        assert_eq!(
            ups.values().sum::<u32>(),
            m.summary.leaf_ecmp_width,
            "{leaf}"
        );
    }
    let leaves = m
        .devices
        .iter()
        .filter(|d| d.role == aifab::intent::Role::Leaf)
        .count();
    assert_eq!(per_leaf.len(), leaves, "every leaf has uplinks");
}

fn all_invariants(i: &Intent) -> FabricModel {
    let m = build(i);
    nic_ports_land_home(i, &m);
    planes_disjoint_and_whole(i, &m);
    m
}

#[test]
fn every_example_keeps_its_homing_and_planes() {
    for path in common::example_intents() {
        all_invariants(&common::intent(&path));
    }
}

#[test]
fn hpn_example_is_two_planes_of_eight_leaves_each_nic_port_its_own_31() {
    let i = common::intent(HPN);
    let m = all_invariants(&i);
    let s = &m.summary;
    assert_eq!((s.leaves, s.spines, s.server_links, s.gpus), (8, 4, 32, 16));
    assert_eq!(s.leaf_oversubscription, "1:1");
    let subnets: BTreeSet<&str> = m
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::ServerLeaf)
        .map(|l| l.subnet.as_deref().expect("addressed"))
        .collect();
    assert_eq!(subnets.len(), 32, "a /31 per NIC port");
    assert!(subnets.iter().all(|s| s.ends_with("/31")));
}

#[test]
fn homing_variants_keep_their_invariants() {
    for h in [Homing::SameLeaf, Homing::TwoLeaves] {
        let mut i = common::intent(HPN);
        i.fabric.topology.homing = Some(h);
        i.fabric.topology.leaf.hostname = "s{group}-r{rail}-l{side}".into();
        i.overrides.retain(|_| false);
        i.load_balancing.dlb.roles.clear();
        i.load_balancing.hash.roce_dest_qp = false;
        let m = all_invariants(&i);
        let leaves = if h == Homing::SameLeaf { 4 } else { 8 };
        assert_eq!(m.summary.leaves, leaves, "{h:?}");
    }
    // Rack leaves taking both ports of every NIC on two planes.
    let mut i = common::intent(HPN);
    i.fabric.topology.leaf.attachment = Attachment::Rack;
    i.fabric.topology.leaf.hostname = "rack{rack}-p{plane}".into();
    i.overrides[1].matches = "rack*-p2".into();
    i.overrides[0].matches = "rack*-p1".into();
    let m = all_invariants(&i);
    assert_eq!((m.summary.leaves, m.summary.leaf_ecmp_width), (4, 8));
}

#[test]
fn three_tier_planes_stay_apart_up_to_the_super_spines() {
    for spine_planes in [2, 4] {
        let mut i = common::intent(HPN);
        let t = &mut i.fabric.topology;
        t.kind = aifab::intent::TopologyKind::ThreeTier;
        t.zones = Some(2);
        t.spine.oversubscription = Ratio { down: 2, up: 1 };
        t.spine.hostname = "z{zone}-p{plane}-spine{index}".into();
        t.cable_length.spine_super_spine = Some(Length(100));
        t.super_spine = Some(SuperSpineTier {
            platform: "nxos/n9k-c9364d-gx2a".into(),
            hostname: "ss{index}".into(),
            count: 4,
            planes: spine_planes,
            os_version: None,
            breakout: None,
        });
        i.fabric.bgp.spine_asn = AsnRange::parse("65030-65031").expect("asn");
        i.fabric.bgp.super_spine_asn = Some(AsnRange::parse("65001").expect("asn"));
        i.fabric.management = None;
        let m = all_invariants(&i);
        assert_eq!(m.summary.super_spines, 4);
        assert!(m.links.iter().any(|l| l.tier == LinkTier::SpineSuperSpine));
        inventory_planes_are_whole(&m, 2);
    }
    // Three super-spine planes cannot sit inside two leaf planes.
    let mut i = common::intent(HPN);
    let t = &mut i.fabric.topology;
    t.kind = aifab::intent::TopologyKind::ThreeTier;
    t.zones = Some(2);
    t.spine.count = 6;
    t.super_spine = Some(SuperSpineTier {
        platform: "nxos/n9k-c9364d-gx2a".into(),
        hostname: "ss{index}".into(),
        count: 3,
        planes: 3,
        os_version: None,
        breakout: None,
    });
    let e = refused(&i);
    assert_eq!(e[0].code.id(), "AIF-FAB-008", "{e:#?}");
}

/// The inventory's plane groups have one meaning: `<fabric>_plane<N>` is exactly one connected part
/// of the switch graph, every switch of leaf plane N (its leaves, spines and super-spines), so
/// `--limit <fabric>_plane1` reaches all of plane 1 and nothing else; `<fabric>_spine_plane<N>` (three
/// tiers) is spine plane N's spines and super-spines.
fn inventory_planes_are_whole(m: &FabricModel, leaf_planes: u32) {
    let inv = aifab::render::inventory::inventory(m, Catalog::builtin());
    let doc: serde_json::Value = serde_norway::from_str(&inv.content).expect("inventory YAML");
    let prefix = aifab::render::inventory::group_prefix(&m.name);
    let groups = &doc["all"]["children"][&prefix]["children"];
    let hosts = |g: &str| -> BTreeSet<String> {
        groups[g]["hosts"]
            .as_object()
            .map(|h| h.keys().cloned().collect())
            .unwrap_or_default()
    };
    // Connected parts of the switch graph, each named by its leaves' plane.
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in m.links.iter().filter(|l| l.tier != LinkTier::ServerLeaf) {
        next.entry(&l.a).or_default().push(&l.b);
        next.entry(&l.b).or_default().push(&l.a);
    }
    for p in 1..=leaf_planes {
        let start = m
            .devices
            .iter()
            .find(|d| d.role == aifab::intent::Role::Leaf && d.plane == Some(p))
            .expect("a leaf of the plane");
        let mut part = BTreeSet::new();
        let mut stack = vec![start.hostname.as_str()];
        while let Some(h) = stack.pop() {
            if part.insert(h.to_string()) {
                stack.extend(next.get(h).into_iter().flatten().copied());
            }
        }
        assert_eq!(hosts(&format!("{prefix}_plane{p}")), part, "plane {p}");
    }
    assert!(groups[format!("{prefix}_plane{}", leaf_planes + 1)].is_null());
    // Spine planes are the super-spines' (three tiers); in two tiers a spine's plane is its leaf plane.
    let three_tier = m
        .devices
        .iter()
        .any(|d| d.role == aifab::intent::Role::SuperSpine);
    let spine_planes: BTreeSet<u32> = m
        .devices
        .iter()
        .filter(|d| three_tier && d.role != aifab::intent::Role::Leaf)
        .filter_map(|d| d.plane)
        .collect();
    if !three_tier {
        assert!(groups[format!("{prefix}_spine_plane1")].is_null());
    }
    for p in spine_planes {
        let want: BTreeSet<String> = m
            .devices
            .iter()
            .filter(|d| d.role != aifab::intent::Role::Leaf && d.plane == Some(p))
            .map(|d| d.hostname.clone())
            .collect();
        assert_eq!(
            hosts(&format!("{prefix}_spine_plane{p}")),
            want,
            "spine plane {p}"
        );
    }
}

#[test]
fn hpn_inventory_planes_are_whole() {
    inventory_planes_are_whole(&build(&common::intent(HPN)), 2);
}

#[test]
fn rail_subnet_gives_each_port_an_address_in_its_own_leafs_subnet() {
    let mut i = common::intent(HPN);
    i.fabric.addressing.server_mode = ServerMode::RailSubnet;
    let m = all_invariants(&i);
    let by_name: HashMap<&str, &Device> =
        m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect();
    let mut per_nic: BTreeMap<(&str, String), BTreeSet<&str>> = BTreeMap::new();
    for l in m.links.iter().filter(|l| l.tier == LinkTier::ServerLeaf) {
        let leaf = by_name[&*l.b];
        let sub = leaf.server_subnet.as_ref().expect("leaf subnet");
        assert_eq!(
            l.subnet.as_deref(),
            Some(sub.prefix.as_ref()),
            "{}:{}",
            l.a,
            l.a_port
        );
        let nic = l.a_port.trim_end_matches(['1', '2']).to_string();
        per_nic
            .entry((&l.a, nic))
            .or_default()
            .insert(sub.prefix.as_ref());
    }
    assert!(
        per_nic.values().all(|s| s.len() == 2),
        "two subnets per dual-homed NIC"
    );
}

#[test]
fn meta_example_has_rack_leaves_and_the_papers_7_to_1() {
    let i = common::intent(META);
    let m = all_invariants(&i);
    let s = &m.summary;
    assert_eq!((s.leaves, s.spines, s.super_spines), (14, 8, 4));
    assert_eq!(s.spine_oversubscription.as_deref(), Some("7:1"));
    assert_eq!(s.leaf_oversubscription, "1:1");
    let leaf = m
        .devices
        .iter()
        .find(|d| d.hostname == "z1-rtsw01")
        .expect("rack leaf");
    let servers: BTreeSet<&str> = leaf
        .interfaces
        .iter()
        .filter(|f| f.kind == aifab::model::PortKind::Server)
        .map(|f| &*f.peer)
        .collect();
    assert_eq!(servers, BTreeSet::from(["rack01-gpu1", "rack01-gpu2"]));
}

#[test]
fn a_7_to_1_that_gives_no_whole_uplinks_suggests_the_nearest_ratios() {
    let mut i = common::intent(META);
    i.fabric.topology.servers = 24; // 6 racks per zone: 6 x 400G down at 7:1 is 342.86G up
    let e = refused(&i);
    assert_eq!(e[0].code.id(), "AIF-FAB-003", "{e:#?}");
    assert!(e[0].message.contains("342.86G up"), "{}", e[0].message);
    let hint = e[0].hint.as_deref().unwrap_or_default();
    assert!(hint.contains("6:1 (1 x 400G up)"), "{hint}");
}

#[test]
fn impossible_homing_is_refused_with_its_rule() {
    let mut i = common::intent(HPN);
    i.fabric.topology.homing = None;
    assert_eq!(refused(&i)[0].code.id(), "AIF-FAB-007");
    let mut i = common::intent(META);
    i.fabric.topology.homing = Some(Homing::TwoLeaves);
    assert_eq!(refused(&i)[0].code.id(), "AIF-FAB-007");
    let mut i = common::intent(HPN);
    i.fabric.topology.server_nic = "eth{nic}".into();
    assert_eq!(refused(&i)[0].code.id(), "AIF-NAME-004");
    let mut i = common::intent(META);
    i.fabric.topology.leaf.hostname = "z{zone}-r{rail}".into();
    let e = refused(&i);
    assert_eq!(
        e[0].code.id(),
        "AIF-NAME-001",
        "rack leaves have no rail: {e:#?}"
    );
    // Six spines make three per plane, which four uplinks cannot spread over: counts of both planes.
    let mut i = common::intent(HPN);
    i.fabric.topology.spine.count = 6;
    let e = refused(&i);
    assert_eq!(e[0].code.id(), "AIF-FAB-004");
    assert!(
        e[0].message.contains("3 spines of its plane"),
        "{}",
        e[0].message
    );
    assert!(
        e[0].hint
            .as_deref()
            .unwrap_or_default()
            .contains("(e.g. 2, 4, 8)"),
        "{e:#?}"
    );
    // A server pool too small for two /31s per NIC.
    let mut i = common::intent(HPN);
    i.fabric.addressing.server_links = Prefix::parse("10.32.0.0/27").expect("prefix");
    assert_eq!(refused(&i)[0].code.id(), "AIF-ADDR-002");
}

/// Every homing on rail and rack leaves, two and three tiers, with a partial last group: the invariants
/// hold and the counts follow the homing.
#[test]
fn every_homing_and_attachment_keeps_the_invariants() {
    let homings = [
        None,
        Some(Homing::SameLeaf),
        Some(Homing::TwoLeaves),
        Some(Homing::TwoPlanes),
    ];
    for homing in homings {
        for attachment in [Attachment::Rail, Attachment::Rack] {
            for three_tier in [false, true] {
                let i = sweep_intent(homing, attachment, three_tier);
                let m = all_invariants(&i);
                let sides = match homing {
                    Some(Homing::TwoLeaves | Homing::TwoPlanes) => 2,
                    _ => 1,
                };
                let per_group = sides * if attachment == Attachment::Rack { 1 } else { 2 };
                let what = format!("{homing:?} {attachment:?} three-tier {three_tier}");
                assert_eq!(m.summary.leaves, 2 * per_group, "{what}");
                assert_eq!(
                    m.summary.server_links,
                    7 * 2 * i.fabric.topology.nic_ports,
                    "{what}"
                );
            }
        }
    }
}

/// 7 servers × 2 NICs in groups of 4 (the last group partial), 4 spines per zone, EOS everywhere.
fn sweep_intent(homing: Option<Homing>, attachment: Attachment, three_tier: bool) -> Intent {
    let mut i = common::intent(HPN);
    i.overrides.clear();
    i.load_balancing.dlb.roles.clear();
    i.load_balancing.hash.roce_dest_qp = false;
    i.fabric.management = None;
    let t = &mut i.fabric.topology;
    t.servers = 7;
    t.homing = homing;
    t.nic_ports = if homing.is_some() { 2 } else { 1 };
    t.leaf.attachment = attachment;
    t.leaf.platform = "eos/7060x5-64".into();
    t.leaf.hostname = "leaf{index}".into();
    t.spine.platform = "eos/7060x5-64".into();
    t.spine.hostname = "z{zone}-spine{index}".into();
    if three_tier {
        t.kind = aifab::intent::TopologyKind::ThreeTier;
        t.zones = Some(2);
        t.cable_length.spine_super_spine = Some(Length(100));
        t.super_spine = Some(SuperSpineTier {
            platform: "eos/7060x5-64".into(),
            hostname: "ss{index}".into(),
            count: 2,
            planes: 2,
            os_version: None,
            breakout: None,
        });
        i.fabric.bgp.spine_asn = AsnRange::parse("65030-65031").expect("asn");
        i.fabric.bgp.super_spine_asn = Some(AsnRange::parse("65001").expect("asn"));
    }
    i
}
