//! The rollout plan keeps the fabric serving: checked against the links of every example fabric, not
//! against a stored plan.

use crate::common;

use aifab::compile::compile;
use aifab::delivery::rollout::{self, Rollout};
use aifab::kinds::Role;
use aifab::model::{FabricModel, LinkTier};
use aifab::platform::Catalog;
use std::collections::{BTreeMap, BTreeSet};

fn model(path: &str) -> FabricModel {
    compile(&common::intent(path), Catalog::builtin()).expect("compiles")
}

fn full_plan(m: &FabricModel, percent: u32) -> Rollout {
    let devices: Vec<_> = m.devices.iter().collect();
    let reload = rollout::needing_reload(None, m, Catalog::builtin());
    rollout::plan(m, &devices, &reload, percent)
}

/// Upper ends of every lower end, per tier.
fn uplinks(m: &FabricModel) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut up: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for l in &m.links {
        up.entry(&l.a).or_default().insert(&l.b);
    }
    up
}

#[test]
fn every_switch_once_and_every_batch_keeps_the_fabric_serving() {
    // Every example, the dual-homed HPN one included: a NIC's two leaves never share a batch.
    for path in common::example_intents() {
        let path = path.as_str();
        let m = model(path);
        for percent in [25, 50] {
            let plan = full_plan(&m, percent);
            let planned: Vec<&str> = plan
                .batches
                .iter()
                .flat_map(|b| b.hosts.iter().map(String::as_str))
                .collect();
            let unique: BTreeSet<&str> = planned.iter().copied().collect();
            assert_eq!(
                planned.len(),
                m.devices.len(),
                "{path}: every switch planned"
            );
            assert_eq!(unique.len(), planned.len(), "{path}: no switch twice");
            let role: BTreeMap<&str, Role> = m
                .devices
                .iter()
                .map(|d| (d.hostname.as_str(), d.role))
                .collect();
            let up = uplinks(&m);
            for b in &plan.batches {
                let hosts: BTreeSet<&str> = b.hosts.iter().map(String::as_str).collect();
                assert!(
                    hosts.iter().all(|h| role[h] == b.role),
                    "{path}: batch {} mixes roles",
                    b.number
                );
                // Every lower end (server, leaf, spine) keeps enough uplinks.
                for (lower, ups) in &up {
                    let lost = ups.intersection(&hosts).count();
                    let allowed = match b.role {
                        Role::Leaf => 1,
                        _ => (ups.len() * percent as usize / 100).max(1),
                    };
                    assert!(
                        lost <= allowed,
                        "{path} {percent}%: batch {} takes {lost} of {}'s {} uplinks",
                        b.number,
                        lower,
                        ups.len()
                    );
                }
                // No two spines of one plane (sharing a super-spine) together.
                if b.role == Role::Spine {
                    for h in &hosts {
                        for other in hosts.iter().filter(|o| *o != h) {
                            let shared = m
                                .links
                                .iter()
                                .filter(|l| l.tier == LinkTier::SpineSuperSpine);
                            let a: BTreeSet<&str> = shared
                                .clone()
                                .filter(|l| *l.a == **h)
                                .map(|l| &*l.b)
                                .collect();
                            let c: BTreeSet<&str> =
                                shared.filter(|l| *l.a == **other).map(|l| &*l.b).collect();
                            assert!(
                                a.is_disjoint(&c),
                                "{path}: {h} and {other} share a plane in batch {}",
                                b.number
                            );
                        }
                    }
                }
            }
            assert_eq!(plan.batches[0].hosts.len(), 1, "{path}: a canary first");
        }
    }
}

#[test]
fn reload_batches_come_last_and_hold_exactly_the_switches_that_reload() {
    let m = model("intents/pod1-1024.yaml");
    let reload = rollout::needing_reload(None, &m, Catalog::builtin());
    // pod1: DLB on the NX-OS leaves, a hardware profile that needs a reload; one leaf has DLB off.
    assert_eq!(reload.len(), 31);
    let plan = full_plan(&m, 25);
    let reloading: BTreeSet<&str> = plan
        .batches
        .iter()
        .filter(|b| b.reload)
        .flat_map(|b| b.hosts.iter().map(String::as_str))
        .collect();
    assert_eq!(reloading, reload.iter().map(String::as_str).collect());
    let first_reload = plan
        .batches
        .iter()
        .skip(1)
        .position(|b| b.reload)
        .expect("a window")
        + 1;
    assert!(
        plan.batches[first_reload..].iter().all(|b| b.reload),
        "the window closes the plan"
    );
    // An unchanged DLB setting needs no reload on the next change.
    let again = rollout::needing_reload(Some(&m), &m, Catalog::builtin());
    assert!(again.is_empty(), "{again:?}");
    let yaml = plan.to_yaml();
    let v: serde_norway::Value = serde_norway::from_str(&yaml).expect("the plan is YAML");
    let serial: Vec<u64> = v["aifab_rollout_serial"]
        .as_sequence()
        .expect("serial")
        .iter()
        .filter_map(serde_norway::Value::as_u64)
        .collect();
    assert_eq!(serial.iter().sum::<u64>(), m.devices.len() as u64);
    assert_eq!(
        v["aifab_rollout_hosts"].as_sequence().expect("hosts").len(),
        m.devices.len()
    );
}

#[test]
fn against_a_revision_plans_only_the_switches_that_change() {
    let dir = common::Scratch::new("rollout-git");
    let git = |args: &[&str]| common::git(&dir, args);
    git(&["init", "-q"]);
    let text = std::fs::read_to_string("intents/three-tier-small.yaml").expect("read");
    let intent = dir.join("x.yaml");
    std::fs::write(&intent, &text).expect("write");
    git(&["add", "."]);
    git(&["commit", "-qm", "one"]);
    // How many switches the plan against HEAD holds.
    let planned = || {
        let o = crate::common::aifab_command()
            .args(["plan", "--format", "rollout", "--against", "HEAD"])
            .arg(&intent)
            .output()
            .expect("run");
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_norway::Value = serde_norway::from_slice(&o.stdout).expect("yaml");
        v["aifab_rollout_hosts"].as_sequence().map(Vec::len)
    };
    assert_eq!(planned(), Some(0), "nothing changed");
    std::fs::write(&intent, text.replace("mtu: 9214", "mtu: 9100")).expect("write");
    let n = model("intents/three-tier-small.yaml").devices.len();
    assert_eq!(planned(), Some(n), "an MTU change touches every switch");
}
