//! The deadlock analysis (`src/check/deadlock.rs`, `src/check/paths.rs`): the proof holds on every
//! example and on random small fabrics, and the exhaustive computation of the paths BGP selects (every
//! leaf, every single link failure) agrees with it; ASN plans that break it (pinned in the lock) are
//! refused with the failure and the path, or warned about. `tests/it/twin.rs` checks the same paths
//! against the FIBs FRR installs.

use crate::common;
use aifab::check::deadlock::{Verdict, analyse};
use aifab::check::paths::{Fabric, LinkId, Node};

/// Every (leaf, failure) case of `fabric` (no failure, then each link): the first valley found.
fn exhaustive_valley(fabric: &Fabric) -> Option<(Option<LinkId>, Node, Vec<Node>)> {
    let failures = std::iter::once(None).chain((0..fabric.links.len() as LinkId).map(Some));
    for f in failures {
        for o in (0..fabric.len() as Node).filter(|&o| fabric.tier[o as usize] == 0) {
            let down = |l| Some(l) == f;
            if let Some(v) = fabric.compute(o, f, &down, None).valley_any(fabric) {
                return Some((f, o, v.path));
            }
        }
    }
    None
}

/// A path goes down and then up when some switch on it has both neighbors on the path above it.
fn goes_down_and_up(fabric: &Fabric, path: &[Node]) -> bool {
    path.windows(3).any(|w| {
        let t = |n: Node| fabric.tier[n as usize];
        t(w[0]) > t(w[1]) && t(w[2]) > t(w[1])
    })
}

#[test]
fn every_example_is_proven_and_no_single_failure_opens_a_valley() {
    for path in common::example_intents() {
        let model = common::model(&path);
        let fabric = Fabric::new(&model);
        assert!(fabric.layered(), "{path}");
        assert_eq!(analyse(&fabric).verdict, Verdict::Proven, "{path}");
        // Every fabric link is a session at both ends.
        let fabric_links = model
            .links
            .iter()
            .filter(|l| l.tier != aifab::model::LinkTier::ServerLeaf)
            .count();
        assert_eq!(fabric.links.len(), fabric_links, "{path}");
        if fabric.links.len() <= 600 {
            assert_eq!(exhaustive_valley(&fabric), None, "{path}");
        }
        // Every leaf reaches every other leaf of its plane, over all its uplinks.
        for o in (0..fabric.len() as Node).filter(|&o| fabric.tier[o as usize] == 0) {
            let r = fabric.select(o, None);
            for (s, d) in model.devices.iter().enumerate() {
                if s == o as usize
                    || fabric.tier[s] != 0
                    || d.plane != model.devices[o as usize].plane
                {
                    continue;
                }
                let up = fabric
                    .links_of(s as Node)
                    .iter()
                    .filter(|&&(_, l)| fabric.is_up(s as Node, l))
                    .count();
                assert_eq!(
                    r.via[s].len(),
                    up,
                    "{path}: {} to {}",
                    d.hostname,
                    fabric.names[o as usize]
                );
            }
        }
    }
}

/// A small generated intent: two-tier or three-tier, a few leaves, spines and super-spines.
pub fn random_intent(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut pick = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let three_tier = pick(2) == 1;
    let rails = 1 + pick(2);
    let spg = [2, 4][pick(2) as usize];
    let groups = if three_tier {
        2 * (1 + pick(2))
    } else {
        1 + pick(3)
    };
    let spines = [1, 2, 4][pick(3) as usize].min(spg);
    let mut text = BASE
        .replace("@NAME@", &format!("rnd{seed}"))
        .replace("@SERVERS@", &(spg * groups).to_string())
        .replace("@RAILS@", &rails.to_string())
        .replace("@SPG@", &spg.to_string())
        .replace("@SPINES@", &spines.to_string());
    if three_tier {
        let zones = 2;
        text = text
            .replace("kind: rail-optimized", "kind: three-tier")
            .replace("    servers_per_group:", &format!("    zones: {zones}\n    servers_per_group:"))
            .replace("hostname: \"g{group}", "hostname: \"z{zone}-g{group}")
            .replace("hostname: \"s{index}\"", "hostname: \"z{zone}-s{index}\"")
            .replace(
                "    cable_length:",
                &format!(
                    "    super_spine:\n      platform: nxos/n9k-c9332d-gx2b\n      hostname: \"ss{{index}}\"\n      count: {}\n    cable_length:",
                    [1, 2][pick(2) as usize]
                ),
            )
            .replace("leaf_spine: 30m }", "leaf_spine: 30m, spine_super_spine: 100m }")
            .replace("spine_asn: 65030", "spine_asn: 65020-65029\n    super_spine_asn: 65001");
    }
    text
}

const BASE: &str = r#"version: 1
fabric:
  name: @NAME@
  topology:
    kind: rail-optimized
    servers: @SERVERS@
    rails: @RAILS@
    nic_speed: 400G
    servers_per_group: @SPG@
    leaf:
      platform: sonic/dell-z9664f-o64
      hostname: "g{group}-r{rail}"
      uplink_speed: 400G
    spine:
      platform: eos/7060x5-64
      hostname: "s{index}"
      count: @SPINES@
    cable_length: { server: 3m, leaf_spine: 30m }
  addressing:
    loopbacks: 10.50.0.0/24
    fabric_links: 10.51.0.0/24
    server_links: 10.52.0.0/24
  bgp:
    spine_asn: 65030
    leaf_asn: 65400-65999
  mtu: 9214
qos:
  classes:
    roce: { dscp: [26], priority: 3, lossless: true, ecn: { min: 150KB, max: 1500KB, probability: 10% }, bandwidth: 90% }
    cnp: { dscp: [48], priority: 6, strict: true, max_rate: 5% }
    default: { bandwidth: 10% }
  pfc_watchdog: { detect: 200ms, restore: 1s, action: drop }
"#;

/// The models of the random intents of `seeds` that compile (the generator can ask for a shape the
/// compiler refuses, such as spines that do not divide the uplinks).
pub fn random_models(seeds: std::ops::Range<u64>) -> Vec<(String, aifab::model::FabricModel)> {
    let cat = aifab::platform::Catalog::builtin();
    seeds
        .filter_map(|s| {
            let text = random_intent(s);
            let intent: aifab::intent::Intent =
                serde_norway::from_str(&text).unwrap_or_else(|e| panic!("seed {s}: {e}\n{text}"));
            aifab::compile::compile(&intent, cat)
                .ok()
                .map(|m| (text, m))
        })
        .collect()
}

#[test]
fn random_fabrics_are_proven_and_the_exhaustive_search_agrees() {
    let models = random_models(0..40);
    assert!(
        models.len() >= 20,
        "only {} random intents compiled",
        models.len()
    );
    let three_tier = models
        .iter()
        .filter(|(_, m)| m.summary.super_spines > 0)
        .count();
    assert!(three_tier >= 5, "only {three_tier} three-tier fabrics");
    for (text, m) in &models {
        let fabric = Fabric::new(m);
        assert_eq!(analyse(&fabric).verdict, Verdict::Proven, "{text}");
        assert_eq!(exhaustive_valley(&fabric), None, "{text}");
    }
}

/// On symmetric plans the loopback cut read from the fabric's structure is the computed one: the
/// random fabrics, the examples, and each with one spine's cables to the leaves cut down to half (so
/// some leaves lose a spine's loopback).
#[test]
fn the_loopback_cut_of_a_symmetric_plan_is_the_computed_one() {
    use aifab::check::reach::{loopbacks_computed, loopbacks_symmetric};
    let mut models: Vec<(String, aifab::model::FabricModel)> = random_models(0..40);
    for f in [
        "intents/pod1-1024.yaml",
        "intents/three-tier-small.yaml",
        "intents/hpn-dual-plane.yaml",
    ] {
        models.push((f.to_string(), common::model(f)));
    }
    let mut cut_somewhere = 0;
    for (text, m) in &models {
        for thin in [false, true] {
            let mut fabric = Fabric::new(m);
            if thin {
                // Leaves cabled to only some of the spines: every other leaf loses its links to the
                // first spine.
                let first = (0..fabric.len() as u32).find(|&n| fabric.tier[n as usize] == 1);
                let Some(spine) = first else { continue };
                fabric = fabric
                    .without_links(|k| (k.a == spine || k.b == spine) && k.other(spine) % 2 == 0);
            }
            if !aifab::check::deadlock::symmetric(&fabric) {
                continue;
            }
            let comp = fabric.components(None);
            let by_structure = loopbacks_symmetric(&fabric, &comp);
            let computed = loopbacks_computed(&fabric);
            assert_eq!(
                (by_structure.pairs, by_structure.joined, &by_structure.first),
                (computed.pairs, computed.joined, &computed.first),
                "{text} (thinned: {thin})"
            );
            cut_somewhere += usize::from(computed.pairs > 0);
        }
    }
    assert!(
        cut_somewhere > 0,
        "no fabric where a leaf misses a loopback"
    );
}

/// The proof's converse, on the same fabrics with one switch's ASN changed at random: wherever the
/// exhaustive search finds a valley the analysis reports one (a real one: down, then up), and where it
/// finds none the analysis does not claim one.
#[test]
fn mixed_asn_plans_are_found_where_they_open_a_valley() {
    let mut valleys = 0;
    for (k, (text, m)) in random_models(0..40).into_iter().enumerate() {
        let mut m = m;
        // Give one spine (or super-spine) its own ASN, as a lock pin would.
        let Some(i) = m
            .devices
            .iter()
            .enumerate()
            .filter(|(_, d)| d.role != aifab::kinds::Role::Leaf)
            .map(|(i, _)| i)
            .nth(k % 2)
        else {
            continue;
        };
        let (name, asn) = (m.devices[i].hostname.clone(), 64_999);
        m.devices[i].bgp.asn = asn;
        for d in &mut m.devices {
            for n in &mut d.bgp.neighbors {
                if *n.peer == *name {
                    n.remote_as = asn;
                }
            }
        }
        let fabric = Fabric::new(&m);
        let verdict = analyse(&fabric).verdict;
        let search = exhaustive_valley(&fabric);
        match (&verdict, &search) {
            // The analysis also fails groups of parallel links and switches, which the single-link
            // search does not.
            (
                Verdict::Valley {
                    valley, failure, ..
                },
                search,
            ) if search.is_some() || failure.is_some_and(|f| f.link().is_none()) => {
                assert!(
                    goes_down_and_up(&fabric, &valley.path),
                    "{text}: {valley:?}"
                );
                valleys += 1;
            }
            (Verdict::Unproven { .. }, None) | (Verdict::Proven, None) => {}
            _ => panic!("{text}\n{name} as {asn}: analysis {verdict:?}, exhaustive {search:?}"),
        }
        if verdict == Verdict::Proven {
            assert!(fabric.mixed_upper_asns().is_none(), "{text}");
        }
    }
    assert!(valleys > 0, "no random fabric opened a valley");
}

#[test]
fn a_lock_that_pins_one_asn_per_spine_is_refused_with_the_path() {
    let intent = "tests/twin/per-spine-asn.yaml";
    // The intent alone numbers one spine ASN; validate reads the lock beside it, where spine2 holds
    // 65031, and refuses the plan with the failure and the path.
    let v = common::aifab(&["validate", "--format", "json", intent]);
    let report = String::from_utf8_lossy(&v.stdout);
    assert_eq!(v.status.code(), Some(1), "{report}");
    assert!(
        report.contains("AIF-ROUTE-001") && report.contains("spine1 → leaf2 → spine2 → leaf1"),
        "{report}"
    );
    // So does compile.
    let out = common::aifab(&["compile", intent]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("AIF-ROUTE-001"), "{err}");
    assert!(
        err.contains("after link spine1:Ethernet1/1—leaf1:Ethernet248 fails")
            && err.contains("spine1 → leaf2 → spine2 → leaf1"),
        "{err}"
    );
}

/// A copy of `intents/three-tier-small.yaml` in a scratch folder with its lock, one lock line changed
/// from `from` to `to`: the intent path.
fn pinned_copy(tag: &str, edits: &[(&str, &str)]) -> (common::Scratch, String) {
    let dir = common::Scratch::new(tag);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("intents");
    std::fs::copy(src.join("three-tier-small.yaml"), dir.join("x.yaml")).expect("copy");
    let lock = std::fs::read_to_string(src.join("three-tier-small.lock.yaml")).expect("lock");
    let mut pinned = lock.replace("lock for three-tier-small.yaml", "lock for x.yaml");
    for (from, to) in edits {
        let next = pinned.replace(from, to);
        assert_ne!(next, pinned, "the lock line moved: {from}");
        pinned = next;
    }
    std::fs::write(dir.join("x.lock.yaml"), pinned).expect("write");
    let x = dir.join("x.yaml").to_string_lossy().into_owned();
    (dir, x)
}

#[test]
fn a_lock_that_mixes_zone_asns_is_refused_with_the_leaf_pairs() {
    // z1-spine2 pinned to zone 2's ASN has the lower router-id of zone 1's spines: the super-spines'
    // best path to zone 1 runs through it, and zone 2's spines (AS 65021) reject it.
    let (_dir, x) = pinned_copy(
        "deadlock-zone-asn",
        &[(
            "name: z1-spine2, loopback: 10.20.0.251, router_id: 10.20.0.251, asn: 65020",
            "name: z1-spine2, loopback: 10.20.0.251, router_id: 10.20.0.251, asn: 65021",
        )],
    );
    for (cmd, code) in [("validate", 1), ("compile", 2)] {
        let out = common::aifab(&[cmd, &x]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{cmd}: {err}");
        assert!(
            err.contains("AIF-ROUTE-003")
                && err.contains("with every link up, 64 of 240 leaf pairs")
                && err.contains("z2-g3-r1 → z1-g1-r1")
                && err.contains("stop at z2-spine1 (AS 65021)")
                && err.contains("(AS-path loop)"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn a_lock_that_puts_two_tiers_on_one_asn_is_refused_as_ibgp() {
    // Both super-spines on zone 1's spine ASN: their sessions to zone 1 are iBGP. The intent written
    // so is refused by AIF-BGP-005; the lock is by AIF-ROUTE-003, every pair across the zones.
    let (_dir, x) = pinned_copy(
        "deadlock-ibgp",
        &[
            (
                "name: ss1, loopback: 10.20.0.254, router_id: 10.20.0.254, asn: 65001",
                "name: ss1, loopback: 10.20.0.254, router_id: 10.20.0.254, asn: 65020",
            ),
            (
                "name: ss2, loopback: 10.20.0.253, router_id: 10.20.0.253, asn: 65001",
                "name: ss2, loopback: 10.20.0.253, router_id: 10.20.0.253, asn: 65020",
            ),
        ],
    );
    let out = common::aifab(&["validate", &x]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("AIF-ROUTE-003")
            && err.contains("128 of 240 leaf pairs")
            && err.contains("(iBGP next hop unresolved)"),
        "{err}"
    );
}

/// The 100K benchmark intent with two spines of different zones pinned to other zones' ASNs (as the
/// lock `tests/bench-two-pins.sh` writes would): z1-s01 to zone 2's, z3-s05 to zone 4's.
fn two_pins_100k() -> aifab::model::FabricModel {
    let out = common::aifab(&["bench", "--print-intent", "100k"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("parse");
    let mut m =
        aifab::compile::compile(&intent, aifab::platform::Catalog::builtin()).expect("compile");
    for (name, asn) in [("z1-s01", 65001), ("z3-s05", 65003)] {
        pin_asn(&mut m, name, asn);
    }
    m
}

/// Gives switch `name` ASN `asn`, as a lock pin does (its peers' `remote-as` follow).
fn pin_asn(m: &mut aifab::model::FabricModel, name: &str, asn: u32) {
    for d in &mut m.devices {
        if *d.hostname == *name {
            d.bgp.asn = asn;
        }
        for n in &mut d.bgp.neighbors {
            if *n.peer == *name {
                n.remote_as = asn;
            }
        }
    }
}

#[test]
#[ignore = "timing: cargo test --test it two_pin_100k_timing -- --ignored --nocapture"]
fn two_pin_100k_timing() {
    let m = two_pins_100k();
    let fabric = Fabric::new(&m);
    let t = std::time::Instant::now();
    let c = fabric.compute(
        fabric.leaves().next().expect("a leaf"),
        None,
        &|_| false,
        None,
    );
    eprintln!(
        "one compute (leaf): {:?} ties {}",
        t.elapsed(),
        c.ties.is_some()
    );
    let s = (0..fabric.len() as Node)
        .find(|&n| fabric.tier[n as usize] == 1)
        .expect("spine");
    let t = std::time::Instant::now();
    let c = fabric.compute(s, None, &|_| false, None);
    eprintln!(
        "one compute (spine): {:?} ties {}",
        t.elapsed(),
        c.ties.is_some()
    );
    // The cost of computing every case: per destination kind, the failures the lemma leaves.
    let failures = fabric.failure_sets();
    // The first leaf of zones 1 (z1-s01's), 2 and 3 (z3-s05's), a spine and a super-spine.
    for prefix in ["z1-g", "z2-g", "z3-g", "z1-s02", "ss001"] {
        let Some(o) = fabric.names.iter().position(|n| n.starts_with(prefix)) else {
            continue;
        };
        let name = &fabric.names[o];
        let t = std::time::Instant::now();
        let c = fabric.compute(o as Node, None, &|_| false, None);
        let took = t.elapsed();
        let r = aifab::check::lemma::relevant(&fabric, &c, &failures);
        eprintln!(
            "{name}: compute {took:?}, ties {}, {} of {} failures left by the lemma",
            c.ties.is_some(),
            r.len(),
            failures.len()
        );
    }
    // The case the analysis names first: z1-g001-r1 with its link to z1-s01 down. z1-s01's equal
    // paths then run through the other zone-1 leaves, each with its own ASN.
    let at = |name: &str| {
        fabric
            .names
            .iter()
            .position(|n| &**n == name)
            .expect("a switch of the benchmark") as Node
    };
    let (o, s) = (at("z1-g001-r1"), at("z1-s01"));
    let l = fabric
        .links_of(o)
        .iter()
        .find(|&&(x, _)| x == s)
        .map(|&(_, l)| l)
        .expect("the link");
    let c = fabric.compute(o, Some(l), &|x| x == l, None);
    eprintln!(
        "z1-g001-r1 without its link to z1-s01: z1-s01 at length {}, {} next hops (maximum-paths {}), ties past the bound at {:?}",
        c.routes.dist[s as usize],
        c.routes.via[s as usize].len(),
        fabric.max_paths[s as usize],
        c.ties
            .as_ref()
            .and_then(|t| t.over)
            .map(|n| fabric.names[n as usize].clone())
    );
    let t = std::time::Instant::now();
    let findings = aifab::check::deadlock_rules(&m);
    eprintln!("routing proof: {:?}", t.elapsed());
    for f in findings {
        eprintln!("{}: {}", f.code.id(), f.message);
    }
}

/// The pruned analysis (the failure lemma) against computing every case, on the random intents'
/// fabrics with one or two switches given another switch's ASN or a new one, as lock pins would: the
/// same verdict, leaf pairs and loopback losses.
#[test]
fn pinned_random_fabrics_are_analysed_as_computing_every_case_does() {
    use aifab::check::deadlock::exhaustive;
    let (mut off_proof, mut found) = (0, 0);
    for (k, (text, mut m)) in random_models(0..40).into_iter().enumerate() {
        let mut x = (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut pick = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        for _ in 0..1 + pick(2) {
            let at = pick(m.devices.len());
            let asn = if pick(3) == 0 {
                64_900
            } else {
                m.devices[pick(m.devices.len())].bgp.asn
            };
            let name = m.devices[at].hostname.to_string();
            pin_asn(&mut m, &name, asn);
        }
        let fabric = Fabric::new(&m);
        if aifab::check::deadlock::symmetric(&fabric) {
            continue;
        }
        off_proof += 1;
        let (fast, plain) = (analyse(&fabric), exhaustive(&fabric));
        assert_eq!(fast.verdict, plain.verdict, "{text}");
        assert_eq!(fast.cuts, plain.cuts, "{text}");
        assert_eq!(fast.loopbacks, plain.loopbacks, "{text}");
        assert_eq!(fast.over, plain.over, "{text}");
        assert!(!fast.loopbacks_left, "{text}");
        found += usize::from(
            matches!(plain.verdict, Verdict::Valley { .. }) || plain.cuts.steady.is_some(),
        );
    }
    assert!(
        off_proof >= 10,
        "only {off_proof} pinned plans off the proof"
    );
    assert!(found > 0, "no pinned plan opened a valley or cut a pair");
}
