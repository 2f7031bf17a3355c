//! The failure lemma ([`super::lemma`]) against the plain computation: on random small and medium
//! fabrics (two and three tiers, one and two planes, one to three parallel links, random ASN pins and
//! router-ids), the analysis that computes only the failures the lemma leaves reports exactly what
//! computing every failure with every destination reports.

use super::deadlock::{Analysis, Verdict, analyse, exhaustive, symmetric};
use super::lemma;
use super::paths::{Fabric, Node};

/// A xorshift generator (the seed is printed on failure).
struct Rng(u64);

impl Rng {
    fn pick(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A random fabric: per plane and zone 1-3 spines, 2-4 leaves per zone cabled to every spine of
/// their zone in every plane with 1-3 parallel links; with three tiers 1-2 super-spines per plane,
/// each spine cabled to every super-spine of its plane with 1-2 links. The intent's ASN plan (a leaf
/// ASN each, one per zone and plane for the spines, one per plane for the super-spines), then 0-2 pins:
/// a switch given another switch's ASN or a new one.
pub(super) fn random_fabric(seed: u64) -> Fabric {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let three = r.pick(2) == 1;
    let planes = 1 + r.pick(2);
    let zones = if three { 1 + r.pick(2) } else { 1 };
    let spines = 1 + r.pick(3);
    let leaves = 2 + r.pick(3);
    let par = 1 + r.pick(3);
    let mut sw: Vec<(String, u8, u32)> = Vec::new();
    let mut links: Vec<(Node, Node)> = Vec::new();
    let mut leaf_ids = Vec::new();
    for z in 0..zones {
        for g in 0..leaves {
            leaf_ids.push(sw.len() as Node);
            sw.push((format!("z{z}-l{g}"), 0, 65200 + sw.len() as u32));
        }
    }
    for p in 0..planes {
        let mut plane_spines = Vec::new();
        for z in 0..zones {
            for s in 0..spines {
                let id = sw.len() as Node;
                sw.push((format!("p{p}-z{z}-s{s}"), 1, 65020 + (p * zones + z) as u32));
                plane_spines.push(id);
                for g in 0..leaves {
                    let leaf = leaf_ids[(z * leaves + g) as usize];
                    for _ in 0..(if r.pick(4) == 0 { 1 } else { par }) {
                        links.push((leaf, id));
                    }
                }
            }
        }
        if three {
            let supers = 1 + r.pick(2);
            let up = 1 + r.pick(2);
            for x in 0..supers {
                let id = sw.len() as Node;
                sw.push((format!("p{p}-ss{x}"), 2, 65001 + p as u32));
                for &s in &plane_spines {
                    for _ in 0..up {
                        links.push((s, id));
                    }
                }
            }
        }
    }
    for _ in 0..r.pick(3) {
        let at = r.pick(sw.len() as u64) as usize;
        let asn = if r.pick(3) == 0 {
            64_900 + r.pick(5) as u32
        } else {
            sw[r.pick(sw.len() as u64) as usize].2
        };
        sw[at].2 = asn;
    }
    let mut octets: Vec<u8> = (1..=250).collect();
    for i in (1..octets.len()).rev() {
        octets.swap(i, r.pick(i as u64 + 1) as usize);
    }
    let named: Vec<(&str, u8, u32, u8)> = sw
        .iter()
        .zip(&octets)
        .map(|(s, &o)| (s.0.as_str(), s.1, s.2, o))
        .collect();
    Fabric::hand(&named, &links)
}

/// What the two analyses must agree on: the verdict (where the proof does not cover the plan), every
/// count and named pair of the cuts, the loopback cut, the first case past the bound.
fn assert_same(f: &Fabric, fast: &Analysis, plain: &Analysis, seed: u64) {
    if !symmetric(f) {
        assert_eq!(fast.verdict, plain.verdict, "seed {seed}");
        assert_eq!(fast.over, plain.over, "seed {seed}");
    }
    assert_eq!(fast.cuts, plain.cuts, "seed {seed}");
    let lo = |a: &Analysis| {
        a.loopbacks
            .steady
            .as_ref()
            .map(|c| (c.pairs, c.joined, c.first.clone()))
    };
    assert_eq!(lo(fast), lo(plain), "seed {seed}: loopbacks");
    assert!(!fast.loopbacks_left, "seed {seed}");
}

#[test]
fn the_pruned_search_is_the_exhaustive_one() {
    let (mut valleys, mut cuts, mut failed, mut ties, mut plans) = (0, 0, 0, 0, 0);
    let (mut cases, mut computed) = (0u64, 0u64);
    for seed in 0..160 {
        let f = random_fabric(seed);
        let fast = analyse(&f);
        let plain = exhaustive(&f);
        assert_same(&f, &fast, &plain, seed);
        if symmetric(&f) {
            continue;
        }
        plans += 1;
        valleys += usize::from(matches!(
            plain.verdict,
            Verdict::Valley {
                failure: Some(_),
                ..
            }
        ));
        cuts += usize::from(plain.cuts.steady.is_some());
        failed += usize::from(plain.cuts.failed.is_some());
        let failures = f.failure_sets();
        for o in f.leaves() {
            let c = f.compute(o, None, &|_| false, None);
            ties += usize::from(c.ties.is_some());
            cases += failures.len() as u64;
            computed += lemma::relevant(&f, &c, &failures).len() as u64;
        }
    }
    eprintln!(
        "{plans} plans off the proof: {valleys} valleys after a failure, {cuts} cut with every link up, {failed} cut after a failure, {ties} destinations with ties; the lemma left {computed} of {cases} failure cases"
    );
    assert!(plans >= 40, "{plans}");
    assert!(valleys > 0 && cuts > 0 && failed > 0 && ties > 0);
    assert!(computed * 2 < cases, "{computed} of {cases}");
}

/// The leaves that have no route to the destination of `c`, or may lose it under some choice of
/// equal eBGP paths.
fn lost(f: &Fabric, c: &super::pathvector::Computed) -> Vec<Node> {
    f.leaves()
        .filter(|&s| {
            c.routes.dist[s as usize] == super::paths::UNREACHABLE
                || c.ties.as_ref().is_some_and(|t| t.may_lose[s as usize])
        })
        .collect()
}

/// The lemma itself, case by case: every (leaf, failure) case it covers opens no valley the steady
/// state has not, loses no route the steady state keeps under every choice, and passes no bound.
#[test]
fn every_case_the_lemma_covers_adds_nothing_to_the_steady_state() {
    let mut covered = 0u64;
    for seed in 0..160 {
        let f = random_fabric(seed);
        let failures = f.failure_sets();
        for o in f.leaves() {
            let c = f.compute(o, None, &|_| false, None);
            let relevant = lemma::relevant(&f, &c, &failures);
            let steady_valley = c.valley_any(&f).is_some();
            let steady_lost = lost(&f, &c);
            for (i, &x) in failures.iter().enumerate() {
                if relevant.contains(&(i as u32)) || x.switch() == Some(o) {
                    continue;
                }
                covered += 1;
                let down = |l| x.takes(&f, l);
                let after = f.compute(o, x.link(), &down, x.switch());
                let what = format!(
                    "seed {seed}: {} towards {}",
                    x.text(&f),
                    f.names[o as usize]
                );
                if !steady_valley {
                    assert_eq!(after.valley_any(&f), None, "{what}");
                }
                let gone: Vec<Node> = lost(&f, &after)
                    .into_iter()
                    .filter(|&s| Some(s) != x.switch() && !steady_lost.contains(&s))
                    .collect();
                assert!(gone.is_empty(), "{what}: {gone:?}");
                assert_eq!(after.ties.and_then(|t| t.over), None, "{what}");
            }
        }
    }
    assert!(covered > 10_000, "{covered}");
}

/// Condition (2) of the lemma on its own: spine x (AS 200) hears the destination o from leaf u1 (only
/// through S1, AS 100) and leaf u2 (through S1 or S2, AS 200: equal paths of different ASN sets, the
/// router-id choice S1's). With u1's link to x down, x keeps a next hop of the router-id outcome
/// (u2), so condition (1) holds; but when u2 advertises its path through S2, x rejects it, and leaf y
/// behind x may lose o: the failure is computed, and it loses a route the steady state keeps.
#[test]
fn a_next_hop_kept_whose_paths_may_be_rejected_is_no_cover() {
    let f = Fabric::hand(
        &[
            ("o", 0, 65201, 1),
            ("u1", 0, 65202, 2),
            ("u2", 0, 65203, 3),
            ("y", 0, 65204, 4),
            ("S1", 1, 100, 10),
            ("S2", 1, 200, 20),
            ("x", 1, 200, 30),
        ],
        &[
            (0, 4),
            (0, 5),
            (1, 4),
            (2, 4),
            (2, 5),
            (1, 6),
            (2, 6),
            (3, 6),
        ],
    );
    let (o, y) = (0, 3);
    let c = f.compute(o, None, &|_| false, None);
    assert!(c.ties.is_some());
    assert!(!lost(&f, &c).contains(&y));
    let cut = super::failures::Failure::Link(5);
    let after = f.compute(o, None, &|l| l == 5, None);
    assert_eq!(after.routes.via[6], vec![6], "x keeps u2");
    assert!(lost(&f, &after).contains(&y), "y may lose o");
    assert!(lemma::matters(&f, &c, cut));
    assert_same(&f, &analyse(&f), &exhaustive(&f), 0);
}

/// The components as a partition: per switch, the lowest switch of its component.
fn partition(comp: &[u32]) -> Vec<usize> {
    (0..comp.len())
        .map(|v| (0..comp.len()).find(|&u| comp[u] == comp[v]).unwrap_or(v))
        .collect()
}

#[test]
fn the_components_from_the_splits_are_the_walked_ones_for_every_failure() {
    let mut split = 0;
    for seed in 0..120u64 {
        let full = random_fabric(seed);
        // Thinned at random so that some links and switches do separate the fabric.
        let r = std::cell::RefCell::new(Rng(seed | 1));
        let f = full.without_links(|_| r.borrow_mut().pick(3) == 0);
        let splits = f.splits();
        for failure in std::iter::once(None).chain(f.failure_sets().into_iter().map(Some)) {
            let walked = partition(&f.components(failure));
            split += usize::from(walked != partition(&f.components(None)));
            let read = partition(&splits.components(&f, failure));
            assert_eq!(read, walked, "seed {seed}, {failure:?}");
        }
    }
    // The thinned fabrics had failures that split them, so both answers were exercised.
    assert!(split > 100, "{split} splitting failures");
}
