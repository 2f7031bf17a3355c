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
        site_lines: Vec::new(),
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

fn ack(rule: &str, reason: &str) -> crate::intent::Acknowledgement {
    crate::intent::Acknowledgement {
        rule: rule.into(),
        reason: reason.into(),
    }
}

fn findings(i: &Intent, code: &str) -> Vec<crate::diag::Finding> {
    run_unlocated(i, Catalog::builtin())
        .into_iter()
        .filter(|f| f.code.id() == code)
        .collect()
}

#[test]
fn an_acknowledgement_covers_exactly_the_devices_it_applies_to() {
    // pod1 acknowledges AIF-LB-005 fabric-wide: no error.
    let mut i = intent("pod1-1024.yaml");
    assert!(findings(&i, "AIF-LB-005").is_empty());
    // Without it, the 31 NX-OS DLB leaves are an error (su4-r8-leaf has DLB off).
    i.acknowledge.clear();
    let f = findings(&i, "AIF-LB-005");
    assert_eq!(f.len(), 1);
    assert!(
        f[0].is_error() && f[0].message.contains("31 devices"),
        "{f:?}"
    );
    // Acknowledged only for su1-*: the other 23 stay an error.
    i.overrides.push(Override {
        acknowledge: vec![ack("AIF-LB-005", "su1 tested")],
        ..platform_override("su1-*", "nxos/n9k-c9364d-gx2a")
    });
    let f = findings(&i, "AIF-LB-005");
    assert!(f[0].message.contains("23 devices"), "{f:?}");
}

#[test]
fn only_acknowledgeable_rules_may_be_acknowledged_once_per_list() {
    let mut i = intent("pod1-1024.yaml");
    let n = i.acknowledge.len();
    i.acknowledge.push(ack("AIF-QOS-013", "no"));
    i.acknowledge.push(ack("AIF-XYZ-999", "no"));
    i.acknowledge.push(ack("AIF-LB-005", "again"));
    let unknown = findings(&i, "AIF-ACK-001");
    assert_eq!(unknown.len(), 2, "{unknown:?}");
    let at = |k: usize| format!("/acknowledge/{}/rule", n + k);
    assert_eq!(unknown[0].pointer.as_deref(), Some(at(0).as_str()));
    let dup = findings(&i, "AIF-ACK-002");
    assert_eq!(dup.len(), 1);
    assert_eq!(dup[0].pointer.as_deref(), Some(at(2).as_str()));
}

#[test]
fn releases_are_checked_only_where_os_version_is_given() {
    let mut i = intent("mixed-sonic-nxos.yaml");
    assert!(findings(&i, "AIF-OS-002").is_empty());
    // SONiC leaves on 202311: the BGP underlay as rendered needs 202405 (one finding per platform:
    // the spare leaf is on another SKU).
    i.fabric.topology.leaf.os_version = Some("202311".into());
    let f = findings(&i, "AIF-OS-002");
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(
        f[0].message.contains("15 devices") && f[1].message.contains("1 device"),
        "{f:?}"
    );
    assert!(
        f[0].message.contains("BGP") && f[0].message.contains("202405"),
        "{f:?}"
    );
    assert_eq!(
        f[0].pointer.as_deref(),
        Some("/fabric/topology/leaf/os_version")
    );
    i.fabric.topology.leaf.os_version = Some("202405".into());
    assert!(findings(&i, "AIF-OS-002").is_empty());
}

#[test]
fn an_ecn_max_beyond_one_jericho2_is_refused_on_the_7800r3_spines() {
    // pod1's spines are 7800R3 (Jericho2, 8 GiB HBM + 16 MiB per chip); its leaves are NX-OS GX2,
    // whose buffer no public source gives, so only the spines bound the threshold.
    let mut i = intent("pod1-1024.yaml");
    let set_max = |i: &mut Intent, bytes: u64| {
        for c in i.qos.classes.values_mut() {
            if let Some(e) = c.ecn.as_mut() {
                e.max = crate::units::Size(bytes);
            }
        }
    };
    set_max(&mut i, 8208 * 1024 * 1024);
    assert!(!codes(&i).contains(&"AIF-QOS-002"));
    set_max(&mut i, 8208 * 1024 * 1024 + 1);
    let f = findings(&i, "AIF-QOS-002");
    assert!(!f.is_empty());
    assert!(f.iter().all(|f| f.message.contains("7800r3")), "{f:?}");
}
