//! `aifab plan --format ecmp|buffers|buffers-json` (src/check/ecmp.rs, src/check/buffers.rs): the
//! widths BGP installs per leaf pair, and the lossless buffer-dependency graph, acyclic on a
//! symmetric plan whatever fails, with a down-up turn where a pinned plan opens a valley.

use crate::common::{Scratch, aifab, model};
use aifab::check::buffers::{Buffers, parse_failure};
use aifab::check::paths::Fabric;

#[test]
fn the_pinned_plan_turns_down_and_up_after_the_failure_and_the_intents_plan_never_does() {
    // tests/twin/per-spine-asn.lock.yaml pins spine2 to AS 65031 (spine1 holds 65030).
    let pinned = Fabric::new(&crate::twin::locked_model("tests/twin/per-spine-asn.yaml"));
    let steady = Buffers::build(&pinned, &[]);
    assert!(steady.down_up.is_empty() && steady.acyclic());
    let cut = parse_failure(&pinned, "spine1:Ethernet1/1").expect("the link");
    let after = Buffers::build(&pinned, &[cut]);
    // spine1 reaches leaf1 down through leaf2 (and leaf3) and up spine2.
    let name = |n: u32| &*pinned.names[n as usize];
    let turns: Vec<(&str, &str, &str)> = after
        .down_up
        .iter()
        .map(|t| {
            let end = |l: u32| name(pinned.links[l as usize].other(t.at));
            (name(t.at), end(t.from), end(t.to))
        })
        .collect();
    assert_eq!(
        turns,
        [("leaf2", "spine1", "spine2"), ("leaf3", "spine1", "spine2")]
    );
    assert!(after.acyclic(), "one valley closes no cycle");
    // A second failure under the other spine opens a valley the other way, at leaf3 (the one leaf
    // left with both links); still no cycle: with three leaves, a cycle would need two leaves that
    // turn, each towards a leaf the other spine lost, and that is one leaf cut off from both spines.
    // src/check/ecmp_tests.rs closes one with four leaves.
    let other = parse_failure(&pinned, "spine2+leaf2").expect("the link");
    let both = Buffers::build(&pinned, &[cut, other]);
    let at: Vec<&str> = both.down_up.iter().map(|t| name(t.at)).collect();
    assert_eq!(at, ["leaf3", "leaf3"], "{:?}", both.down_up);
    assert!(both.acyclic());
    let all = pinned.failure_sets();
    for a in &all {
        for b in &all {
            assert!(Buffers::build(&pinned, &[*a, *b]).acyclic(), "{a:?} {b:?}");
        }
    }
    // The intent's own plan (one spine ASN): no down-up turn under any one or two failures.
    let plain = Fabric::new(&model("tests/twin/per-spine-asn.yaml"));
    assert!(aifab::check::deadlock::symmetric(&plain));
    let all = plain.failure_sets();
    for a in &all {
        for b in &all {
            let g = Buffers::build(&plain, &[*a, *b]);
            assert!(g.down_up.is_empty() && g.acyclic(), "{a:?} {b:?}");
        }
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = aifab(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_prints_the_ecmp_width_of_every_leaf_pair() {
    const INTENT: &str = "intents/three-tier-small.yaml";
    let m = model(INTENT);
    let (code, out, err) = run(&["plan", INTENT, "--format", "ecmp"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("leaf,destination,prefix,prefixes,width,next_hops")
    );
    let leaves: Vec<&aifab::model::Device> = m
        .devices
        .iter()
        .filter(|d| d.role == aifab::kinds::Role::Leaf)
        .collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let pairs = leaves.len() * (leaves.len() - 1);
    assert_eq!(rows.len(), pairs);
    // Every leaf has two links to each spine of its zone: the planned width, through those spines;
    // the prefix is the destination's loopback, and it announces its server subnets too.
    let width = m.summary.leaf_ecmp_width.to_string();
    for r in &rows {
        let to = leaves
            .iter()
            .find(|d| d.hostname == r[1])
            .expect("destination leaf");
        assert_eq!(r[2], format!("{}/32", to.loopback), "{r:?}");
        let lo = format!("{}/32", to.loopback);
        let subnets = to.bgp.networks.iter().filter(|n| ***n != *lo).count();
        assert_eq!(r[3], (1 + subnets).to_string(), "{r:?}");
        assert_eq!(r[4], width, "{r:?}");
        let zone = |h: &str| h.split('-').next().map(str::to_string);
        let hops: Vec<&str> = r[5].split(' ').collect();
        assert_eq!(hops.len(), 2, "{r:?}");
        assert!(
            hops.iter()
                .all(|s| zone(s) == zone(r[0]) && s.contains("spine")),
            "{r:?}"
        );
    }
    assert!(
        err.contains(&format!("planned {width}:"))
            && err.contains(&format!("{pairs} pairs"))
            && err.contains("every pair has the planned width"),
        "{err}"
    );
    // --only keeps the rows of the leaves it matches.
    let (code, out, err) = run(&[
        "plan", INTENT, "--format", "ecmp", "-q", "--only", "z2-g3-*",
    ]);
    assert_eq!(code, 0, "{err}");
    let picked: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or(""))
        .collect();
    assert!(
        !picked.is_empty() && picked.iter().all(|l| l.starts_with("z2-g3-")),
        "{out}"
    );
    assert_eq!(picked.len() % (leaves.len() - 1), 0, "{out}");
}

#[test]
fn plan_draws_the_buffer_graph_with_its_verdict_and_refuses_an_unknown_failure() {
    let dir = Scratch::new("plan-buffers");
    // The intent alone (no lock beside it): one spine ASN.
    let x = dir.path().join("x.yaml");
    std::fs::copy(
        crate::common::root().join("tests/twin/per-spine-asn.yaml"),
        &x,
    )
    .expect("copy");
    let x = x.to_str().expect("utf-8");
    let (code, out, err) = run(&["plan", x, "--format", "buffers", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("digraph \"perspine buffers\" {"), "{out}");
    assert!(
        out.contains("acyclic: no PFC deadlock") && out.contains("0 down-up turns"),
        "{out}"
    );
    // Queue by queue: spine1's queue from leaf1 feeds leaf2's and leaf3's queues from spine1.
    assert!(out.contains("spine1:Ethernet1/1 ← leaf1"), "{out}");
    assert!(!out.contains("#d62728"), "{out}");
    let (code, out, err) = run(&[
        "plan",
        x,
        "--format",
        "buffers-json",
        "-q",
        "--fail",
        "spine1",
        "--fail",
        "spine2:Ethernet2/1",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["acyclic"], true, "{out}");
    assert_eq!(v["down_up"].as_array().map(Vec::len), Some(0), "{out}");
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(2), "{out}");
    assert_eq!(v["graph"]["level"], "queue", "{out}");
    let (code, _, err) = run(&["plan", x, "--format", "buffers", "-q", "--fail", "spine9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no switch `spine9`"), "{err}");
}

#[test]
fn a_large_fabric_collapses_the_buffer_graph() {
    let (code, out, err) = run(&[
        "plan",
        "intents/pod1-1024.yaml",
        "--format",
        "buffers",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("acyclic: no PFC deadlock"), "{out}");
    let nodes = out
        .lines()
        .filter(|l| l.contains("[label=") && !l.contains("->"))
        .count();
    assert!(nodes <= aifab::picture::MAX_NODES, "{nodes} nodes");
}
