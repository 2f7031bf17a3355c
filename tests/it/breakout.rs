//! Breakout and per-port speed (docs/platforms/<os>.md#breakout): a tier's link speed below the
//! platform's native port speed runs the ports broken out, named per OS, with the lines each OS needs;
//! a speed no mode gives, or a `breakout:` the platform lacks, is AIF-FAB-011 at its field.

use crate::common;

use aifab::compile::compile;
use aifab::model::{Device, FabricModel};
use aifab::platform::Catalog;
use aifab::units::{PortMode, Speed};
use std::collections::BTreeSet;

/// pod1-1024 with 64 x 800G EOS 7060X6 leaves carrying 64 servers' 400G NICs and 32 x 800G uplinks.
fn eos_800g_leaves() -> aifab::intent::Intent {
    let mut i = common::intent("intents/pod1-1024.yaml");
    let t = &mut i.fabric.topology;
    t.servers_per_group = 64;
    t.leaf.platform = "eos/7060x6".into();
    t.leaf.uplink_speed = Speed(800);
    t.spine.platform = "eos/7060x6".into();
    t.spine.count = 32;
    i.load_balancing.dlb.mode = aifab::intent::DlbMode::Off;
    i.acknowledge.clear();
    i.overrides.clear();
    i
}

fn leaf(m: &FabricModel) -> &Device {
    m.devices
        .iter()
        .find(|d| d.role == aifab::intent::Role::Leaf)
        .expect("a leaf")
}

#[test]
fn a_64x800g_leaf_with_400g_nics_gives_server_ports_as_2x400g() {
    let m = compile(&eos_800g_leaves(), Catalog::builtin()).expect("compiles");
    let d = leaf(&m);
    // 32 front-panel ports as 2x400G for the 64 servers, the other 32 native for the uplinks.
    let groups: Vec<(u32, u32, u32, u32)> = d
        .port_groups
        .iter()
        .map(|g| (g.first_panel, g.panels, g.children, g.speed_gbps))
        .collect();
    assert_eq!(groups, [(1, 32, 2, 400), (33, 32, 1, 800)]);
    let servers: Vec<_> = d
        .interfaces
        .iter()
        .filter(|i| i.speed_gbps == 400)
        .collect();
    assert_eq!(servers.len(), 64);
    assert_eq!(&*servers[1].name, "Ethernet1/5");
    let ups = d.interfaces.iter().filter(|i| i.speed_gbps == 800).count();
    assert_eq!(ups, 32);
    // Every port in the chosen modes is used or shut, each name once.
    let names: BTreeSet<&str> = d
        .interfaces
        .iter()
        .map(|i| &*i.name)
        .chain(d.unused_ports.iter().map(|u| &*u.name))
        .collect();
    assert_eq!(names.len(), 32 * 2 + 32);
    assert_eq!(d.interfaces.len() + d.unused_ports.len(), names.len());
}

#[test]
fn all_400g_on_800g_spines_gives_128_ports() {
    let mut i = eos_800g_leaves();
    i.fabric.topology.leaf.uplink_speed = Speed(400);
    i.fabric.topology.spine.count = 64;
    let m = compile(&i, Catalog::builtin()).expect("compiles");
    let spine = m
        .devices
        .iter()
        .find(|d| d.role == aifab::intent::Role::Spine)
        .expect("spine");
    assert_eq!(spine.port_groups.len(), 1);
    assert_eq!(spine.interfaces.len() + spine.unused_ports.len(), 128);
    let leaf = leaf(&m);
    assert_eq!(leaf.interfaces.len() + leaf.unused_ports.len(), 128);
}

#[test]
fn an_explicit_breakout_is_used_or_refused_at_its_field() {
    let mut i = eos_800g_leaves();
    i.fabric.topology.leaf.breakout = Some(PortMode::parse("2x400G").expect("mode"));
    compile(&i, Catalog::builtin()).expect("the platform's own mode compiles");

    i.fabric.topology.leaf.breakout = Some(PortMode::parse("4x200G").expect("mode"));
    let e = compile(&i, Catalog::builtin()).expect_err("no 200G link on the leaves");
    assert_eq!(e[0].code.id(), "AIF-FAB-011");
    assert_eq!(
        e[0].pointer.as_deref(),
        Some("/fabric/topology/leaf/breakout")
    );
    let hint = e[0].hint.as_deref().unwrap_or("");
    assert!(hint.contains("1x800G, 2x400G, 4x200G, 8x100G"), "{hint}");

    let mut i = eos_800g_leaves();
    i.fabric.topology.nic_speed = Speed(1600);
    i.fabric.topology.leaf.oversubscription = aifab::units::Ratio::parse("2:1").expect("ratio");
    let e = compile(&i, Catalog::builtin()).expect_err("no 1600G mode");
    assert_eq!(e[0].code.id(), "AIF-FAB-011");
    assert_eq!(e[0].pointer.as_deref(), Some("/fabric/topology/nic_speed"));
}

#[test]
fn each_os_prints_its_breakout_lines() {
    // NX-OS leaves with 200G NICs (2x200G) and EOS 7060X6 spines with 400G links (2x400G).
    let (_, files) = common::render("intents/breakout-small.yaml");
    let text = |name: &str| {
        files
            .iter()
            .find(|f| f.path == name)
            .unwrap_or_else(|| panic!("{name}"))
            .content
            .clone()
    };
    let leaf_cfg = text("g1-r1-leaf.cfg");
    assert!(leaf_cfg.contains("\ninterface breakout module 1 port 1-16 map 200g-2x\n"));
    assert!(leaf_cfg.contains("\ninterface Ethernet1/16/2\n  description server0032:nic1\n"));
    // Spare front-panel ports stay whole (the up mode), uplinks are the highest.
    assert!(leaf_cfg.contains("\ninterface Ethernet1/17\n  description aifab: unused\n"));
    assert!(leaf_cfg.contains("\ninterface Ethernet1/49\n  description spine1:Ethernet1/1\n"));
    let spine = text("spine1.cfg");
    // Every child, used or shut, carries the speed of its mode.
    let children = spine.matches("\ninterface Ethernet").count();
    assert_eq!(children, 128);
    assert_eq!(spine.matches("\n   speed 400g-4\n").count(), 128);
    assert!(spine.contains("\ninterface Ethernet64/5\n"));

    let (m, files) = common::render("tests/sonic/breakout-lossy.yaml");
    let db = files
        .iter()
        .find(|f| f.path == "g1-r1-leaf/config_db.json")
        .expect("config_db");
    let v: serde_json::Value = serde_json::from_str(&db.content).expect("json");
    assert_eq!(
        v["BREAKOUT_CFG"]["Ethernet0"]["brkout_mode"],
        "2x200G[100G,50G,40G,25G,10G]"
    );
    assert_eq!(
        v["BREAKOUT_CFG"]["Ethernet504"]["brkout_mode"],
        "1x400G[200G,100G,50G,40G,25G,10G]"
    );
    let child = &v["PORT"]["Ethernet4"];
    assert_eq!(
        (&child["lanes"], &child["alias"], &child["speed"]),
        (
            &serde_json::json!("21,22,23,24"),
            &serde_json::json!("Ethernet1/5"),
            &serde_json::json!("200000")
        )
    );
    // The leaf: 8 front-panel ports as 2x200G for 16 servers, 56 whole.
    let d = leaf(&m);
    assert_eq!(d.interfaces.len() + d.unused_ports.len(), 16 + 56);
    assert_eq!(v["BREAKOUT_CFG"].as_object().expect("table").len(), 64);
}
