//! The path-vector computation ([`super::pathvector`]) and the routing analysis ([`super::deadlock`],
//! [`super::reach`]) on small fabrics drawn by hand, with the exact leaf pairs BGP leaves without a route.

use super::deadlock::{Verdict, analyse, symmetric};
use super::failures::Failure;
use super::paths::{Fabric, Node, UNREACHABLE};
use super::pathvector::Refusal;
use std::collections::BTreeSet;

/// The links of two zones of two leaves (nodes 0-3) and two spines (4-7): every leaf to both spines
/// of its zone.
fn zone_links() -> Vec<(Node, Node)> {
    let mut links = Vec::new();
    for (leaf, spines) in [(0, [4, 5]), (1, [4, 5]), (2, [6, 7]), (3, [6, 7])] {
        for s in spines {
            links.push((leaf, s));
        }
    }
    links
}

/// Two zones of two leaves and two spines, two super-spines; every leaf to both spines of its zone,
/// every spine to both super-spines. `asn` gives (zone-1 spine 2's ASN, the super-spines' ASN) and
/// `rid` zone-1 spine 2's router-id octet.
fn zones(a2_asn: u32, super_asn: u32, a2_rid: u8) -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("b1", 0, 65203, 3),
        ("b2", 0, 65204, 4),
        ("A1", 1, 65020, 20),
        ("A2", 1, a2_asn, a2_rid),
        ("B1", 1, 65021, 30),
        ("B2", 1, 65021, 31),
        ("X1", 2, super_asn, 40),
        ("X2", 2, super_asn, 41),
    ];
    let mut links = zone_links();
    for s in 4..8 {
        links.extend([(s, 8), (s, 9)]);
    }
    Fabric::hand(&switches, &links)
}

/// Every (from, to) leaf pair without a route, computed with `failure`, among pairs the cabling joins.
fn cut(f: &Fabric, failure: Option<Failure>) -> BTreeSet<(String, String)> {
    let comp = f.components(failure);
    let mut out = BTreeSet::new();
    for o in f.leaves() {
        if failure.and_then(Failure::switch) == Some(o) {
            continue;
        }
        let down = |l| failure.is_some_and(|x| x.takes(f, l));
        let c = f.compute(o, None, &down, failure.and_then(Failure::switch));
        for s in f.leaves() {
            let joined = comp[s as usize] == comp[o as usize];
            let alive = failure.and_then(Failure::switch) != Some(s);
            if s != o && joined && alive && c.routes.dist[s as usize] == UNREACHABLE {
                out.insert((
                    f.names[s as usize].to_string(),
                    f.names[o as usize].to_string(),
                ));
            }
        }
    }
    out
}

fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    list.iter()
        .map(|&(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn node(f: &Fabric, name: &str) -> Node {
    f.names.iter().position(|n| &**n == name).expect("switch") as Node
}

#[test]
fn the_intents_plan_reaches_every_pair() {
    let f = zones(65020, 65001, 21);
    assert!(symmetric(&f));
    assert_eq!(cut(&f, None), BTreeSet::new());
    let a = analyse(&f);
    assert_eq!(a.verdict, Verdict::Proven);
    assert_eq!(a.cuts.steady, None);
}

#[test]
fn a_pinned_spine_with_the_lowest_router_id_makes_the_other_zone_reject() {
    // A2 pinned to zone 2's ASN, with a lower router-id than A1: the super-spines' best path to
    // zone 1's leaves runs through A2 (65021), and zone 2's spines, AS 65021, reject it.
    let f = zones(65021, 65001, 19);
    let want = pairs(&[("b1", "a1"), ("b1", "a2"), ("b2", "a1"), ("b2", "a2")]);
    assert_eq!(cut(&f, None), want);
    let a1 = node(&f, "a1");
    let c = f.compute(a1, None, &|_| false, None);
    let b1_spine = node(&f, "B1");
    assert!(matches!(
        c.dropped[b1_spine as usize],
        Some(Refusal::AsPathLoop { .. })
    ));
    // With A1's router-id the lower, the super-spines advertise the path through A1: no pair is cut.
    let g = zones(65021, 65001, 25);
    assert_eq!(cut(&g, None), BTreeSet::new());
    // The analysis names the same count.
    let a = analyse(&f);
    let steady = a.cuts.steady.expect("a cut with every link up");
    assert_eq!(steady.pairs, 4);
    assert!(!symmetric(&f));
}

#[test]
fn two_tiers_on_one_asn_are_ibgp_and_lose_every_pair_across_the_zones() {
    // The super-spines on zone 1's spine ASN: their sessions to zone 1 are iBGP.
    let f = zones(65020, 65020, 21);
    let want = pairs(&[
        ("a1", "b1"),
        ("a1", "b2"),
        ("a2", "b1"),
        ("a2", "b2"),
        ("b1", "a1"),
        ("b1", "a2"),
        ("b2", "a1"),
        ("b2", "a2"),
    ]);
    assert_eq!(cut(&f, None), want);
    // Zone 1's routes stop at the super-spines: the iBGP next hop does not resolve.
    let c = f.compute(node(&f, "a1"), None, &|_| false, None);
    assert!(matches!(
        c.dropped[node(&f, "X1") as usize],
        Some(Refusal::NextHopUnresolved { .. })
    ));
    assert_eq!(analyse(&f).cuts.steady.map(|c| c.pairs), Some(8));
}

/// One zone of two spines under two super-spines: a1 has two parallel links to A1 and one to A2, a2
/// one link to A1 only.
fn parallel() -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65020, 21),
        ("X1", 2, 65001, 40),
        ("X2", 2, 65001, 41),
    ];
    let links = [
        (0, 2),
        (0, 2),
        (0, 3),
        (1, 2),
        (2, 4),
        (2, 5),
        (3, 4),
        (3, 5),
    ];
    Fabric::hand(&switches, &links)
}

#[test]
fn losing_both_parallel_links_cuts_a_pair_one_link_does_not() {
    let f = parallel();
    let (a1, a_1) = (node(&f, "a1"), node(&f, "A1"));
    assert_eq!(cut(&f, Some(Failure::Link(0))), BTreeSet::new());
    // Both links gone, a1 reaches A1's other leaf only through the super-spines, and A1 (AS 65020)
    // rejects the path through A2 (AS 65020): the cabling still joins them, BGP does not.
    let both = Failure::Parallel(a1, a_1);
    assert_eq!(cut(&f, Some(both)), pairs(&[("a1", "a2"), ("a2", "a1")]));
    assert!(f.failure_sets().contains(&both));
    // The symmetric analysis (repairs around the steady state) finds the same failure, and only it.
    assert!(symmetric(&f));
    let a = analyse(&f);
    let first = a.cuts.failed.expect("a failure that cuts");
    assert_eq!(first.failure, Some(both));
    assert_eq!(a.cuts.failures, 1);
    assert_eq!(first.pairs, 2, "a1 and a2 are no twins: both are computed");
}

#[test]
fn the_repairs_of_a_symmetric_plan_agree_with_computing_every_failure() {
    for f in [parallel(), zones(65020, 65001, 21)] {
        assert!(symmetric(&f));
        let by_repair: BTreeSet<String> = {
            let a = analyse(&f);
            a.cuts
                .failed
                .iter()
                .map(|c| format!("{:?}", c.failure))
                .collect()
        };
        let every: Vec<Failure> = f
            .failure_sets()
            .into_iter()
            .filter(|&x| !cut(&f, Some(x)).is_empty())
            .collect();
        let first: BTreeSet<String> = every
            .first()
            .map(|x| format!("{:?}", Some(*x)))
            .into_iter()
            .collect();
        assert_eq!(by_repair, first);
        assert_eq!(analyse(&f).cuts.failures, every.len() as u64);
    }
}

/// [`parallel`] with a third leaf a3 cabled as a2 is (a2's twin).
fn parallel_with_twins() -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("a3", 0, 65203, 3),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65020, 21),
        ("X1", 2, 65001, 40),
        ("X2", 2, 65001, 41),
    ];
    let links = [
        (0, 3),
        (0, 3),
        (0, 4),
        (1, 3),
        (2, 3),
        (3, 5),
        (3, 6),
        (4, 5),
        (4, 6),
    ];
    Fabric::hand(&switches, &links)
}

#[test]
fn the_named_failure_counts_every_leaf_pair_even_between_twins() {
    let f = parallel_with_twins();
    assert!(symmetric(&f));
    let both = Failure::Parallel(node(&f, "a1"), node(&f, "A1"));
    let want = pairs(&[("a1", "a2"), ("a1", "a3"), ("a2", "a1"), ("a3", "a1")]);
    assert_eq!(cut(&f, Some(both)), want);
    // a2 and a3 are twins, computed once: the named failure is counted again over every leaf.
    let first = analyse(&f).cuts.failed.expect("a failure that cuts");
    assert_eq!(first.failure, Some(both));
    assert_eq!(first.pairs, want.len() as u64);
}

/// One zone: a1 cabled to A1 only, a2 to both spines; both spines on AS 65020 under X1.
fn one_armed() -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65020, 21),
        ("X1", 2, 65001, 40),
    ];
    let links = [(0, 2), (1, 2), (1, 3), (2, 4), (3, 4)];
    Fabric::hand(&switches, &links)
}

#[test]
fn a_leaf_reaches_only_the_loopbacks_bgp_passes_on() {
    let f = one_armed();
    // The leaves reach each other.
    assert_eq!(cut(&f, None), BTreeSet::new());
    // A2's loopback reaches A1 only through a2 or X1, and A1 rejects both paths (AS 65020 is its
    // own): a1, cabled to A1 alone, has no route to it.
    let c = f.compute(node(&f, "A2"), None, &|_| false, None);
    assert_eq!(c.routes.dist[node(&f, "a1") as usize], UNREACHABLE);
    let a = analyse(&f);
    assert_eq!(a.cuts.steady, None);
    let lo = a.loopbacks.steady.expect("a loopback without a route");
    assert_eq!(lo.pairs, 1);
    assert_eq!(lo.first, vec![(node(&f, "a1"), node(&f, "A2"))]);
    // The same with a1 cabled to both spines: every loopback is reached.
    let both = Fabric::hand(
        &[
            ("a1", 0, 65201, 1),
            ("a2", 0, 65202, 2),
            ("A1", 1, 65020, 20),
            ("A2", 1, 65020, 21),
            ("X1", 2, 65001, 40),
        ],
        &[(0, 2), (0, 3), (1, 2), (1, 3), (2, 4), (3, 4)],
    );
    assert_eq!(analyse(&both).loopbacks.steady, None);
}

#[test]
fn a_search_too_large_for_every_case_takes_each_broken_zone_in_turn() {
    // Both zones have spines of two ASNs, so both break the proof.
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("b1", 0, 65203, 3),
        ("b2", 0, 65204, 4),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65030, 21),
        ("B1", 1, 65021, 30),
        ("B2", 1, 65031, 31),
        ("X1", 2, 65001, 40),
    ];
    let mut links = zone_links();
    for s in 4..8 {
        links.push((s, 8));
    }
    let f = Fabric::hand(&switches, &links);
    let all = f.failure_sets();
    // Room for two destinations: one of each zone, not both of the first.
    let (origins, failures) =
        super::deadlock::targeted(&f, all.clone(), 2 * (all.len() as u64 + 1));
    let names: Vec<&str> = origins.iter().map(|&o| &*f.names[o as usize]).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().any(|n| n.starts_with('a')), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with('b')), "{names:?}");
    assert!(!failures.is_empty());
    // With a budget that small, the analysis still finds zone B's valley or zone A's, and says so.
    let a = super::deadlock::analyse_within(&f, 1);
    assert!(
        matches!(a.verdict, Verdict::Valley { .. }),
        "{:?}",
        a.verdict
    );
}

/// Two zones of two leaves and two spines under one super-spine X; zone 2's spine B1 pinned to zone
/// 1's spine ASN (65020) with router-id octet `b1_rid` (B2's is 31): the plan of the twin's seed
/// 1795821435 (`twin::a_pin_whose_tie_break_depends_on_session_age`).
fn pinned_under_one_super(b1_rid: u8) -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("b1", 0, 65203, 3),
        ("b2", 0, 65204, 4),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65020, 21),
        ("B1", 1, 65020, b1_rid),
        ("B2", 1, 65021, 31),
        ("X", 2, 65001, 40),
    ];
    let mut links = zone_links();
    for s in 4..8 {
        links.push((s, 8));
    }
    Fabric::hand(&switches, &links)
}

#[test]
fn a_pin_whose_tie_break_depends_on_session_age_may_lose_the_other_zone() {
    // B2 has the lower router-id: the router-id outcome has X advertise b1's path through B2, which
    // zone 1's spines accept. But X holds two equal eBGP paths to b1 (through B1, AS 65020, and B2,
    // AS 65021) and keeps the oldest: when B1's session came up first, A1 and A2 (AS 65020) reject
    // X's path and zone 1 loses zone 2.
    let f = pinned_under_one_super(32);
    let (b1, a1, x) = (node(&f, "b1"), node(&f, "a1"), node(&f, "X"));
    let c = f.compute(b1, None, &|_| false, None);
    assert_ne!(c.routes.dist[a1 as usize], UNREACHABLE, "router-id outcome");
    let t = c
        .ties
        .as_ref()
        .expect("X's equal paths hold different ASNs");
    let paths: BTreeSet<Vec<u32>> = t.offers[x as usize]
        .iter()
        .map(|o| o.path.clone())
        .collect();
    let want: BTreeSet<Vec<u32>> = [vec![65001, 65020, 65203], vec![65001, 65021, 65203]].into();
    assert_eq!(paths, want);
    for s in ["A1", "A2", "a1", "a2"] {
        assert!(t.may_lose[node(&f, s) as usize], "{s}");
    }
    for s in ["X", "B1", "B2", "b2"] {
        assert!(!t.may_lose[node(&f, s) as usize], "{s}");
    }
    // The analysis counts zone 1's pairs towards zone 2 as lost, each only under some choice, and
    // names a zone-1 spine rejecting X's path through AS 65020.
    let a = analyse(&f);
    let steady = a.cuts.steady.expect("pairs that may lose their route");
    assert_eq!(steady.pairs, 4);
    assert_eq!(steady.maybe, 4);
    let (at, why, path) = steady.drop.expect("where the prefix stops");
    assert!(["A1", "A2"].contains(&&*f.names[at as usize]));
    assert_eq!(why, Refusal::AsPathLoop { from: x });
    assert_eq!(path, vec![65001, 65020, 65203]);
    assert_eq!(steady.tie, 2);
    // B1 with the lower router-id: the router-id outcome itself loses the same pairs.
    let g = pinned_under_one_super(30);
    let steady = analyse(&g).cuts.steady.expect("pairs without a route");
    assert_eq!((steady.pairs, steady.maybe), (4, 0));
}

/// Every router-id order is an outcome BGP may settle on (the oldest path is the one a router-id
/// order would pick, had the sessions come up in that order): each one's routes are among those the
/// tie computation of the fabric allows, for every destination and failure.
#[test]
fn every_router_id_order_is_an_outcome_the_tie_computation_allows() {
    let mut lost_somewhere = 0;
    for base in [pinned_under_one_super(32), zones(65021, 65001, 25)] {
        let mut cases = vec![None];
        cases.extend(base.failure_sets().into_iter().map(Some));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..24 {
            let mut f = base.clone();
            for r in &mut f.router_id {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *r = std::net::Ipv4Addr::from(x as u32);
            }
            for &failure in &cases {
                let down = |l| failure.is_some_and(|k: Failure| k.takes(&f, l));
                let dead = failure.and_then(Failure::switch);
                for o in f.leaves().filter(|&o| Some(o) != dead) {
                    let mine = f.compute(o, None, &down, dead);
                    let all = base.compute(o, None, &down, dead);
                    lost_somewhere += allowed(&f, &mine, &all, o);
                }
            }
        }
    }
    assert!(lost_somewhere > 0, "no router-id order lost a route");
}

/// Asserts that `mine`'s routes are among those `all` allows; 1 when `mine` loses a leaf's route to
/// `o` that the router-id order of `all`'s fabric keeps.
fn allowed(
    f: &Fabric,
    mine: &super::pathvector::Computed,
    all: &super::pathvector::Computed,
    o: Node,
) -> usize {
    let mut lost = 0;
    for v in 0..f.len() {
        let via = &mine.routes.via[v];
        let Some(t) = all.ties.as_ref() else {
            assert_eq!(
                mine.routes.via[v], all.routes.via[v],
                "{} towards {}",
                f.names[v], f.names[o as usize]
            );
            continue;
        };
        if mine.routes.dist[v] == UNREACHABLE {
            assert!(
                t.may_lose[v],
                "{} towards {}",
                f.names[v], f.names[o as usize]
            );
            lost += usize::from(f.is_leaf(v as Node) && all.routes.dist[v] != UNREACHABLE);
            continue;
        }
        if v == o as usize {
            continue;
        }
        let fits = t.hops[v].iter().any(|h| {
            h.len == mine.routes.dist[v]
                && h.must.iter().all(|l| via.contains(l))
                && via.iter().all(|l| h.must.contains(l) || h.may.contains(l))
        });
        assert!(
            fits,
            "{} towards {}: {via:?} not in {:?}",
            f.names[v], f.names[o as usize], t.hops[v]
        );
    }
    lost
}

#[test]
fn a_switch_with_more_equal_paths_than_the_bound_is_named_not_passed() {
    // One leaf under 17 spines of 17 ASNs, all under X: X holds 17 equal paths of distinct ASN sets.
    let spines = super::ties::PATHS_BOUND + 1;
    let mut switches: Vec<(String, u8, u32, u8)> = vec![("o".into(), 0, 65201, 1)];
    let mut links = Vec::new();
    for i in 0..spines {
        switches.push((format!("S{i}"), 1, 65100 + i as u32, 10 + i as u8));
        links.push((0, 1 + i as Node));
    }
    let x = switches.len() as Node;
    switches.push(("X".into(), 2, 65001, 200));
    for i in 0..spines {
        links.push((1 + i as Node, x));
    }
    let named: Vec<(&str, u8, u32, u8)> = switches
        .iter()
        .map(|s| (s.0.as_str(), s.1, s.2, s.3))
        .collect();
    let f = Fabric::hand(&named, &links);
    let c = f.compute(0, None, &|_| false, None);
    let t = c.ties.as_ref().expect("ties");
    assert_eq!(t.over, Some(x));
    assert_eq!(t.offers[x as usize].len(), super::ties::PATHS_BOUND);
    assert_eq!(analyse(&f).over.map(|(_, _, at)| at), Some(x));
    // The intent's plan has no tie to follow.
    let g = zones(65020, 65001, 21);
    assert!((0..g.len() as Node).all(|o| g.compute(o, None, &|_| false, None).ties.is_none()));
}

/// Two zones of two leaves and two spines, four super-spines in two planes: X1 and X2 above each
/// zone's first spine, Y1 and Y2 above its second. X1 is pinned to another ASN than its plane's twin
/// X2 (the planes' super-spines share AS 65100): the first spines' neighbors above differ.
fn pinned_super_spine() -> Fabric {
    let switches = [
        ("a1", 0, 65201, 1),
        ("a2", 0, 65202, 2),
        ("b1", 0, 65203, 3),
        ("b2", 0, 65204, 4),
        ("A1", 1, 65020, 20),
        ("A2", 1, 65020, 21),
        ("B1", 1, 65021, 30),
        ("B2", 1, 65021, 31),
        ("X1", 2, 65001, 40),
        ("X2", 2, 65100, 41),
        ("Y1", 2, 65100, 42),
        ("Y2", 2, 65100, 43),
    ];
    let mut links = zone_links();
    for (spine, supers) in [(4, [8, 9]), (6, [8, 9]), (5, [10, 11]), (7, [10, 11])] {
        for x in supers {
            links.push((spine, x));
        }
    }
    Fabric::hand(&switches, &links)
}

/// The valley a pinned super-spine opens needs its plane twin's link to the other zone down: no
/// leaf's own failure shows it. The search of a large fabric tries each such link first (after a
/// leaf's), and finds it where a search around the broken switches alone does not.
#[test]
fn a_super_spine_pinned_apart_from_its_twin_is_searched_through_the_twins_links() {
    let f = pinned_super_spine();
    let plain = super::deadlock::exhaustive(&f);
    assert!(
        matches!(plain.verdict, Verdict::Valley { .. }),
        "{:?}",
        plain.verdict
    );
    // The first case of the crossed search opens a valley.
    let cases = super::deadlock::crossed(&f);
    let &(o, failure) = cases.first().expect("crossed cases");
    let c = f.compute_after(o, Some(failure));
    let v = c.valley_any(&f).expect("a valley");
    let path: Vec<&str> = v.path.iter().map(|&n| &*f.names[n as usize]).collect();
    assert!(path.contains(&"X1") && path.contains(&"X2"), "{path:?}");
    // A budget too small for every case: four computations, room for two crossed cases.
    let per_case = (f.links.len() as u64 * 2 + f.len() as u64).max(1);
    let a = super::deadlock::analyse_within(&f, 4 * per_case);
    assert!(
        matches!(a.verdict, Verdict::Valley { .. }),
        "{:?}",
        a.verdict
    );
    // It says that it left cases out, so the valley may not be all there is.
    let (cases, of) = a.cases_left.expect("cases left out");
    assert!(cases < of);
    let findings = super::deadlock::verdict_findings(&f, a);
    let codes: Vec<&str> = findings.iter().map(|x| x.code.id()).collect();
    assert_eq!(
        codes,
        ["AIF-ROUTE-001", "AIF-ROUTE-005", "AIF-ROUTE-004"],
        "{findings:?}"
    );
    // Computed in every case, nothing is left out.
    assert_eq!(super::deadlock::analyse(&f).cases_left, None);
}

/// An analysis that leaves cases out refuses the plan (`AIF-ROUTE-005`, an error an operator may
/// acknowledge), not passes it with a warning: here the cases left out hold a valley.
#[test]
fn an_analysis_that_leaves_cases_out_refuses_the_plan() {
    use crate::rules::{Rule, Severity};
    let f = pinned_super_spine();
    // One computation's budget: no crossed case, the first failure around the broken switches.
    let a = super::deadlock::analyse_within(&f, 1);
    let Verdict::Unproven { cases, of, .. } = a.verdict else {
        panic!("{:?}", a.verdict);
    };
    assert!(cases < of, "{cases} of {of}");
    let findings = super::deadlock::verdict_findings(&f, a);
    let uncovered: Vec<_> = findings
        .iter()
        .filter(|x| x.code == Rule::RoutingUncovered)
        .collect();
    assert_eq!(uncovered.len(), 1, "{findings:?}");
    assert_eq!(uncovered[0].severity, Severity::Error);
    assert!(Rule::RoutingUncovered.acknowledgeable());
    assert!(
        uncovered[0]
            .message
            .contains("so the plan is refused unless acknowledged"),
        "{}",
        uncovered[0].message
    );
    // Computed in every case, the same plan is refused for its valley.
    assert!(matches!(
        super::deadlock::analyse(&f).verdict,
        Verdict::Valley { .. }
    ));
}
