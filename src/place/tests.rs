use super::*;
use crate::intent::{DlbMode, Override};

fn intent(name: &str) -> Intent {
    let path = format!("{}/intents/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("read intent");
    serde_norway::from_str(&text).expect("parse intent")
}

fn over(matches: &str) -> Override {
    Override {
        matches: matches.into(),
        platform: None,
        dlb: None,
        roce_dest_qp: None,
        management: None,
        os_version: None,
        acknowledge: Vec::new(),
        site_lines: Vec::new(),
    }
}

fn placed(i: &Intent) -> Placement {
    let c = shape::counts(i).expect("counts");
    place(i, Catalog::builtin(), &c)
}

fn device<'p>(p: &'p Placement, host: &str) -> &'p Placed {
    p.devices
        .iter()
        .find(|d| d.hostname == host)
        .unwrap_or_else(|| panic!("no {host}"))
}

#[test]
fn the_last_matching_override_that_sets_a_field_wins() {
    let mut i = intent("pod1-1024.yaml");
    i.overrides = vec![
        Override {
            dlb: Some(DlbMode::Flowlet),
            ..over("su1-*")
        },
        Override {
            dlb: Some(DlbMode::Off),
            ..over("su1-r1-leaf")
        },
        // Matches, but does not set `dlb`: the earlier value stays.
        Override {
            roce_dest_qp: Some(true),
            ..over("su1-r1-leaf")
        },
        // Sets `dlb`, but does not match.
        Override {
            dlb: Some(DlbMode::PerPacket),
            ..over("su2-r1-leaf")
        },
    ];
    let p = placed(&i);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let r1 = device(&p, "su1-r1-leaf");
    assert_eq!(r1.overrides, vec![0, 1, 2]);
    let (mode, origin) = dlb_mode(&i, r1);
    assert_eq!(mode, DlbMode::Off);
    assert_eq!(origin.pointer(), "/overrides/1/dlb");
    let r2 = device(&p, "su1-r2-leaf");
    assert_eq!(dlb_mode(&i, r2).0, DlbMode::Flowlet);
    let other = device(&p, "su3-r1-leaf");
    assert_eq!(
        dlb_mode(&i, other),
        (DlbMode::PerPacket, Origin::Base("/load_balancing/dlb/mode"))
    );
    assert_eq!(
        roce_dest_qp(&i, r1),
        (
            true,
            Origin::Override {
                index: 2,
                key: "roce_dest_qp"
            }
        )
    );
}

#[test]
fn an_empty_roles_list_selects_no_role_and_overrides_still_apply() {
    let mut i = intent("pod1-1024.yaml");
    i.load_balancing.dlb.roles.clear();
    i.load_balancing.hash.roles.clear();
    i.overrides = vec![Override {
        dlb: Some(DlbMode::PerPacket),
        roce_dest_qp: Some(true),
        ..over("spine01")
    }];
    let p = placed(&i);
    for d in &p.devices {
        let on = d.hostname == "spine01";
        assert_eq!(dlb_mode(&i, d).0 != DlbMode::Off, on, "{}", d.hostname);
        assert_eq!(roce_dest_qp(&i, d).0, on, "{}", d.hostname);
    }
}

#[test]
fn devices_come_in_output_order_with_their_platforms() {
    let i = intent("three-tier-small.yaml");
    let c = shape::counts(&i).expect("counts");
    let p = place(&i, Catalog::builtin(), &c);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(
        p.devices.len() as u32,
        c.super_spines + c.spines() + c.leaves()
    );
    let roles: Vec<Role> = p.devices.iter().map(|d| d.role).collect();
    assert!(roles.is_sorted_by_key(|r| std::cmp::Reverse(*r)));
    for (n, d) in p.devices.iter().enumerate() {
        assert!(!d.hostname.is_empty());
        assert!(d.os.is_some(), "{}", d.hostname);
        let first = p.devices.iter().position(|x| x.role == d.role).unwrap_or(0);
        assert_eq!(d.seq as usize, n - first, "{}", d.hostname);
    }
    let compiled = crate::compile::compile(&i, Catalog::builtin()).expect("compile");
    for (d, m) in p.devices.iter().zip(&compiled.devices) {
        assert_eq!(
            (
                &d.hostname,
                d.role,
                &d.platform,
                d.zone,
                d.group,
                d.rail,
                d.index
            ),
            (
                &m.hostname,
                m.role,
                &m.platform,
                m.zone,
                m.group,
                m.rail,
                m.index
            )
        );
    }
}

#[test]
fn an_override_platform_serves_exactly_the_roles_it_selects() {
    // intents/mixed-sonic-nxos.yaml moves one leaf to another SONiC SKU.
    let i = intent("mixed-sonic-nxos.yaml");
    let p = placed(&i);
    let uses = p.platforms(Catalog::builtin());
    let spare = uses
        .iter()
        .find(|u| {
            u.origin
                == Origin::Override {
                    index: 0,
                    key: "platform",
                }
        })
        .expect("the override's platform is in use");
    assert_eq!(spare.roles, vec![Role::Leaf]);
    assert_eq!(spare.devices.len(), 1);
    // Tier settings come first, in the intent's order (leaf, spine, super-spine), then overrides.
    let pointers: Vec<String> = uses.iter().map(|u| u.origin.pointer()).collect();
    assert_eq!(
        pointers.last().map(String::as_str),
        Some("/overrides/0/platform")
    );
    assert_eq!(pointers[0], "/fabric/topology/leaf/platform");
}

#[test]
fn a_tier_every_device_of_which_is_overridden_is_not_in_use() {
    let mut i = intent("pod1-1024.yaml");
    i.overrides = vec![Override {
        platform: Some("eos/7060x5-64".into()),
        ..over("*-leaf")
    }];
    let p = placed(&i);
    let names: Vec<&str> = p
        .platforms(Catalog::builtin())
        .iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(names, vec!["eos/7800r3", "eos/7060x5-64"]);
}

#[test]
fn naming_and_override_errors_keep_every_device_placed() {
    let mut i = intent("pod1-1024.yaml");
    i.fabric.topology.leaf.hostname = "leaf {group}".into();
    i.overrides = vec![over("[bad"), over("nothing-*")];
    let p = placed(&i);
    let codes: Vec<&str> = p.errors.iter().map(|f| f.code.id()).collect();
    assert_eq!(codes, vec!["AIF-OVR-001", "AIF-NAME-001", "AIF-OVR-002"]);
    assert_eq!(p.devices.len(), 16 + 32);
    let leaf = p
        .devices
        .iter()
        .find(|d| d.role == Role::Leaf)
        .expect("leaf");
    assert!(leaf.hostname.is_empty() && leaf.overrides.is_empty());
    assert_eq!(leaf.platform, "nxos/n9k-c9364d-gx2a");
}

#[test]
fn a_fabric_that_cannot_be_counted_gets_one_stand_in_per_tier() {
    let mut i = intent("pod1-1024.yaml");
    i.fabric.topology.zones = Some(2); // AIF-FAB-001 on a 2-tier fabric
    assert!(shape::counts(&i).is_err());
    let p = for_rules(&i, Catalog::builtin(), None);
    assert!(p.stand_in && p.errors.is_empty());
    let roles: Vec<Role> = p.devices.iter().map(|d| d.role).collect();
    assert_eq!(roles, vec![Role::Spine, Role::Leaf]);
}

#[test]
fn counts_fail_only_where_the_shape_fails_and_agree_with_it() {
    for name in [
        "pod1-1024.yaml",
        "three-tier-small.yaml",
        "mixed-sonic-nxos.yaml",
    ] {
        let i = intent(name);
        let s = shape::shape(&i).expect("shape");
        assert_eq!(shape::counts(&i).expect("counts"), s.counts(), "{name}");
    }
    // A port problem (uplinks that do not divide) leaves the counts, so placement is exact.
    let mut i = intent("pod1-1024.yaml");
    i.fabric.topology.spine.count = 5;
    assert!(shape::shape(&i).is_err());
    assert!(!for_rules(&i, Catalog::builtin(), None).stand_in);
}
