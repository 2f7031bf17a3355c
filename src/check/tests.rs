//! The platform rules read the exact placement: each platform for the roles and settings of its own
//! devices.

use super::*;
use crate::intent::{DlbMode, Override};

fn intent(name: &str) -> Intent {
    let path = format!("{}/intents/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("read intent");
    serde_norway::from_str(&text).expect("parse intent")
}

fn platform_override(matches: &str, platform: &str) -> Override {
    Override {
        matches: matches.into(),
        platform: Some(platform.into()),
        dlb: None,
        roce_dest_qp: None,
        management: None,
        os_version: None,
        acknowledge: Vec::new(),
    }
}

fn codes(i: &Intent) -> Vec<&'static str> {
    run_unlocated(i, Catalog::builtin())
        .iter()
        .map(|f| f.code.id())
        .collect()
}

#[test]
fn cable_rules_follow_the_roles_a_platform_really_serves() {
    // NX-OS only on the spines (an override), 150 m server cables on EOS leaves: no NX-OS
    // pause-buffer problem on the server tier.
    let mut i = intent("pod1-1024.yaml");
    i.fabric.topology.cable_length.server = crate::units::Length(150);
    i.overrides = vec![
        platform_override("su*-leaf", "eos/7060x5-64"),
        platform_override("spine*", "nxos/n9k-c9364d-gx2a"),
    ];
    assert!(!codes(&i).contains(&"AIF-CAB-001"));
    // The same cables on the NX-OS leaves are refused.
    i.overrides.clear();
    assert!(codes(&i).contains(&"AIF-CAB-001"));
}

#[test]
fn an_override_platform_is_checked_for_the_features_of_its_devices() {
    // QP hashing on the spines; one spine moved to NX-OS, whose UDF hash replaces the L4 ports.
    let mut i = intent("pod1-1024.yaml");
    assert!(!codes(&i).contains(&"AIF-LB-007"));
    i.overrides = vec![platform_override("spine01", "nxos/n9k-c9364d-gx2a")];
    assert!(codes(&i).contains(&"AIF-LB-007"));
}

#[test]
fn dlb_costs_follow_the_resolved_mode() {
    let mut i = intent("pod1-1024.yaml");
    assert!(codes(&i).contains(&"AIF-LB-006"));
    // Every NX-OS leaf has DLB turned off by an override: no reload is needed anywhere.
    i.overrides[0].matches = "su*-leaf".into();
    assert_eq!(i.overrides[0].dlb, Some(DlbMode::Off));
    assert!(!codes(&i).contains(&"AIF-LB-006"));
}
