//! The ECMP widths ([`super::ecmp`]) and the buffer-dependency graph ([`super::buffers`]) on small
//! fabrics drawn by hand, where the widths and the turns are known.

use super::buffers::{Buffers, Queue};
use super::ecmp::{self, Width};
use super::failures::Failure;
use super::paths::{Fabric, LinkId, Node};

/// Leaves under two spines, one link from each leaf to each spine; the spines' ASNs given.
fn two_spines(leaves: usize, s1: u32, s2: u32) -> Fabric {
    let mut switches: Vec<(String, u8, u32, u8)> = (0..leaves)
        .map(|i| (format!("l{}", i + 1), 0, 65400 + i as u32, 1 + i as u8))
        .collect();
    switches.push(("S1".into(), 1, s1, 101));
    switches.push(("S2".into(), 1, s2, 102));
    let mut links = Vec::new();
    for l in 0..leaves as Node {
        links.push((l, leaves as Node));
        links.push((l, leaves as Node + 1));
    }
    hand(&switches, &links)
}

fn hand(switches: &[(String, u8, u32, u8)], links: &[(Node, Node)]) -> Fabric {
    let named: Vec<(&str, u8, u32, u8)> = switches
        .iter()
        .map(|s| (s.0.as_str(), s.1, s.2, s.3))
        .collect();
    Fabric::hand(&named, links)
}

fn node(f: &Fabric, name: &str) -> Node {
    f.names.iter().position(|n| &**n == name).expect("switch") as Node
}

fn link(f: &Fabric, a: &str, b: &str) -> LinkId {
    let (a, b) = (node(f, a), node(f, b));
    f.links
        .iter()
        .position(|k| (k.a == a && k.b == b) || (k.a == b && k.b == a))
        .expect("link") as LinkId
}

/// Two zones under one super-spine X: a1, a2 under A1 (AS 65020) and A2 (AS 65022); b1, b2 under B1
/// (pinned to zone 1's 65020) and B2 (AS 65021), B2 with the lower router-id.
fn pinned_zones() -> Fabric {
    let s = |n: &str, t: u8, asn: u32, rid: u8| (n.to_string(), t, asn, rid);
    let switches = [
        s("a1", 0, 65201, 1),
        s("a2", 0, 65202, 2),
        s("b1", 0, 65203, 3),
        s("b2", 0, 65204, 4),
        s("A1", 1, 65020, 20),
        s("A2", 1, 65022, 21),
        s("B1", 1, 65020, 32),
        s("B2", 1, 65021, 31),
        s("X", 2, 65001, 40),
    ];
    let mut links = Vec::new();
    for (leaf, spines) in [(0, [4, 5]), (1, [4, 5]), (2, [6, 7]), (3, [6, 7])] {
        for sp in spines {
            links.push((leaf, sp));
        }
    }
    for sp in 4..8 {
        links.push((sp, 8));
    }
    hand(&switches, &links)
}

#[test]
fn two_spines_give_every_leaf_two_next_hops() {
    let f = two_spines(3, 65030, 65030);
    let rows = ecmp::table(&f);
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r.leaves.len(), 2);
        for (s, w) in &r.leaves {
            assert_eq!((w.min, w.max), (2, 2), "{s} to {}", r.origin);
            assert_eq!(w.text(), "2");
            let names: Vec<&str> = w
                .switches(&f, *s)
                .iter()
                .map(|&n| &*f.names[n as usize])
                .collect();
            assert_eq!(names, ["S1", "S2"]);
        }
    }
    let s = ecmp::summary(&rows, 2);
    assert_eq!(s.by_width, vec![((2, 2), 6)]);
    assert_eq!(s.below, 0);
    // maximum-paths 1 on l1: one next hop, below a planned width of 2.
    let mut g = f.clone();
    g.max_paths[0] = 1;
    let s = ecmp::summary(&ecmp::table(&g), 2);
    assert_eq!(s.by_width, vec![((1, 1), 2), ((2, 2), 4)]);
    assert_eq!(s.below, 2);
    assert!(s.first_below.iter().all(|(leaf, _, _)| *leaf == 0));
}

#[test]
fn a_spine_pinned_to_its_own_asn_still_gives_two_with_every_link_up() {
    // Each leaf's two paths to another leaf hold different ASNs (a tie at the leaf), but nothing
    // downstream rejects either: the width is 2 under every session order.
    let f = two_spines(3, 65030, 65031);
    for r in ecmp::table(&f) {
        for (_, w) in &r.leaves {
            assert_eq!((w.min, w.max), (2, 2));
        }
    }
}

#[test]
fn a_tie_upstream_makes_the_width_a_range() {
    // X holds two equal paths to b1: through B1 (AS 65020) and B2 (AS 65021). Advertising B2's (the
    // router-id outcome), A1 and A2 both accept and a1 installs 2 next hops; advertising B1's (B1's
    // session came up first), A1 (AS 65020) rejects it and a1 installs 1, through A2.
    let f = pinned_zones();
    let (a1, b1) = (node(&f, "a1"), node(&f, "b1"));
    let c = f.compute(b1, None, &|_| false, None);
    assert!(c.ties.is_some(), "X's equal paths hold different ASNs");
    let w = ecmp::width(&f, &c, a1);
    assert_eq!((w.min, w.max), (1, 2), "{w:?}");
    assert_eq!(w.text(), "1-2");
    assert!(w.allows(1) && w.allows(2) && !w.allows(0) && !w.allows(3));
    // The router-id outcome is one of them.
    assert!(w.allows(c.routes.via[a1 as usize].len()));
    // A1 may lose b1 altogether (0) or take X's path (1). The tie computation takes each switch's
    // choice on its own (a superset of BGP's outcomes, ties.rs), so it also allows A1 to take the
    // paths a1 and a2 would offer under X's other choice: 2.
    let a_1 = ecmp::width(&f, &c, node(&f, "A1"));
    assert_eq!((a_1.min, a_1.max), (0, 2), "{a_1:?}");
    // Towards b2, the same; within zone 2, no tie reaches: 2.
    let rows = ecmp::table(&f);
    let row = rows.iter().find(|r| r.origin == b1).expect("b1's row");
    let to = |name: &str| {
        &row.leaves
            .iter()
            .find(|(s, _)| *s == node(&f, name))
            .expect("leaf")
            .1
    };
    assert_eq!(to("a2").text(), "1-2");
    assert_eq!(to("b2").text(), "2");
    // The same the other way: X's paths to zone 1 go through A1 (65020) or A2 (65022), and B1
    // (pinned to 65020) rejects A1's. Every pair across the zones is 1-2, within a zone 2.
    let s = ecmp::summary(&rows, 2);
    assert_eq!(s.by_width, vec![((1, 2), 8), ((2, 2), 4)]);
    assert_eq!(s.below, 8);
}

/// `base` with random router-ids (xorshift from `x`): another order BGP's sessions may come up in.
fn reordered(base: &Fabric, x: &mut u64) -> Fabric {
    let mut f = base.clone();
    for r in &mut f.router_id {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *r = std::net::Ipv4Addr::from(*x as u32);
    }
    f
}

#[test]
fn the_router_id_outcomes_of_every_order_fall_in_the_range() {
    // Every router-id order is a legitimate session order; its width is inside the range computed
    // on the pinned plan.
    let base = pinned_zones();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..48 {
        let f = reordered(&base, &mut x);
        for o in base.leaves() {
            let all = base.compute(o, None, &|_| false, None);
            let mine = f.select(o, None);
            for s in base.leaves().filter(|&s| s != o) {
                let w: Width = ecmp::width(&base, &all, s);
                let n = mine.via[s as usize].len();
                assert!(
                    w.allows(n),
                    "{} to {}: {n} not in {w:?}",
                    base.names[s as usize],
                    base.names[o as usize]
                );
                seen.insert((s, o, n));
            }
        }
    }
    let a1_b1: Vec<usize> = seen
        .iter()
        .filter(|(s, o, _)| (*s, *o) == (node(&base, "a1"), node(&base, "b1")))
        .map(|t| t.2)
        .collect();
    assert_eq!(a1_b1, [1, 2], "both ends of the range occur");
}

#[test]
fn a_symmetric_plan_has_no_down_up_turn_whatever_fails() {
    let f = two_spines(4, 65030, 65030);
    let all = Buffers::build(&f, &[]);
    assert!(all.acyclic() && all.down_up.is_empty());
    // Every leaf sends up to both spines and each spine down to every other leaf: at a spine, each
    // of 4 ports feeds the 3 others, at a leaf (as a destination only) nothing leaves.
    assert_eq!(all.edges, 2 * 4 * 3);
    let failures = f.failure_sets();
    for a in &failures {
        for b in &failures {
            let g = Buffers::build(&f, &[*a, *b]);
            assert!(g.down_up.is_empty() && g.acyclic(), "{a:?} {b:?}");
        }
    }
}

#[test]
fn a_valley_is_a_down_up_turn_and_two_close_a_cycle() {
    // One ASN per spine (tests/twin/per-spine-asn.lock.yaml): with every link up, up-down; once
    // S1—l1 fails, S1 reaches l1 down through another leaf and up S2.
    let f = two_spines(4, 65030, 65031);
    let steady = Buffers::build(&f, &[]);
    assert!(steady.down_up.is_empty() && steady.acyclic());
    let one = Buffers::build(&f, &[Failure::Link(link(&f, "S1", "l1"))]);
    assert!(!one.down_up.is_empty());
    for t in &one.down_up {
        assert!(f.is_leaf(t.at));
        assert_eq!(f.links[t.from as usize].other(t.at), node(&f, "S1"));
        assert_eq!(f.links[t.to as usize].other(t.at), node(&f, "S2"));
    }
    assert!(
        one.acyclic(),
        "one valley alone closes no cycle: {:?}",
        one.cycle
    );
    // Two failures, one under each spine, open valleys both ways: a cycle.
    let two = Buffers::build(
        &f,
        &[
            Failure::Link(link(&f, "S1", "l1")),
            Failure::Link(link(&f, "S2", "l2")),
        ],
    );
    let cycle = two.cycle.clone().expect("a cycle");
    assert!(cycle.len() >= 4, "{cycle:?}");
    // It is a cycle of the graph, and it turns down-up somewhere.
    let deps: std::collections::BTreeSet<(Queue, Queue)> = two.dependencies(&f).collect();
    for i in 0..cycle.len() {
        let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
        assert!(deps.contains(&(a, b)), "{a:?} -> {b:?} not a dependency");
    }
    assert!(
        cycle
            .iter()
            .any(|q| two.down_up.iter().any(|t| t.at == q.at && t.from == q.link))
    );
}

/// Every row computed, no twin taking another's: what [`ecmp::table`] must equal.
fn plain_table(f: &Fabric) -> Vec<ecmp::Row> {
    let comp = f.components(None);
    let leaves: Vec<Node> = f.leaves().collect();
    leaves
        .iter()
        .map(|&o| {
            let c = f.compute(o, None, &|_| false, None);
            let all = ecmp::widths(f, &c, &vec![true; f.links.len()]);
            ecmp::Row {
                origin: o,
                leaves: leaves
                    .iter()
                    .filter(|&&s| s != o && comp[s as usize] == comp[o as usize])
                    .map(|&s| (s, all[s as usize].clone()))
                    .collect(),
            }
        })
        .collect()
}

/// A random plan; every fourth with a narrow maximum-paths, so that some switches install only the
/// lowest router-ids' equal paths (a result that stands for no twin).
fn twin_plan(seed: u64) -> Fabric {
    let mut f = super::lemma_tests::random_fabric(seed);
    if seed % 4 == 3 {
        f.max_paths.iter_mut().for_each(|m| *m = 1);
    }
    f
}

#[test]
fn twin_destinations_take_their_rows_from_each_other_exactly() {
    let (mut fabrics, mut saved) = (0, 0);
    for seed in 0..160u64 {
        let f = twin_plan(seed);
        let mut rows = Vec::new();
        let computed = ecmp::rows(&f, |r| rows.push(r));
        assert_eq!(rows, plain_table(&f), "seed {seed}");
        fabrics += 1;
        saved += f.leaves().count() - computed;
    }
    // Many random fabrics have twins (97 rows taken over the 160 when this was written): rows were
    // taken, not computed.
    assert!(
        saved > fabrics / 2,
        "{saved} rows taken over {fabrics} fabrics"
    );
}

#[test]
fn a_row_where_maximum_paths_chose_by_router_id_stands_for_no_twin() {
    // Four twin leaves under two spines, each spine at maximum-paths 1: towards l1, a leaf's route
    // through S1 and S2 is equal, and it installs the lowest router-id's.
    let mut f = two_spines(4, 65001, 65001);
    f.max_paths.iter_mut().for_each(|m| *m = 1);
    let mut rows = Vec::new();
    let computed = ecmp::rows(&f, |r| rows.push(r));
    assert_eq!(computed, 4, "each destination computed");
    assert_eq!(rows, plain_table(&f));
    // With room for both paths, one computation stands for the four.
    let g = two_spines(4, 65001, 65001);
    let mut rows = Vec::new();
    assert_eq!(ecmp::rows(&g, |r| rows.push(r)), 1);
    assert_eq!(rows, plain_table(&g));
}

#[test]
fn twin_destinations_give_the_buffer_graph_of_computing_every_destination() {
    let (mut fabrics, mut saved) = (0, 0);
    for seed in 0..160u64 {
        let f = twin_plan(seed);
        let built = Buffers::build(&f, &[]);
        let mut every = Buffers::build_every(&f);
        assert_eq!(every.computed, f.leaves().count());
        saved += every.computed - built.computed;
        every.computed = built.computed;
        assert_eq!(format!("{built:?}"), format!("{every:?}"), "seed {seed}");
        fabrics += 1;
    }
    assert!(
        saved > fabrics / 2,
        "{saved} destinations taken over {fabrics} fabrics"
    );
}

/// Whether `inner`'s range and links lie within `outer`'s.
fn within(inner: &Width, outer: &Width) -> bool {
    outer.min <= inner.min
        && inner.max <= outer.max
        && inner.links.iter().all(|l| outer.links.contains(l))
}

#[test]
fn the_enumerated_widths_lie_within_the_tie_range_and_hold_every_router_id_order() {
    let (mut tied, mut narrower) = (0, 0);
    for seed in 0..160u64 {
        let f = super::lemma_tests::random_fabric(seed);
        let up = vec![true; f.links.len()];
        for o in f.leaves() {
            let c = f.compute(o, None, &|_| false, None);
            if c.ties.is_none() {
                continue;
            }
            let Some(exact) = ecmp::exact(&f, o, &up, None) else {
                continue;
            };
            tied += 1;
            let mut orders = vec![f.clone()];
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for _ in 0..8 {
                orders.push(reordered(&f, &mut x));
            }
            for s in 0..f.len() as Node {
                let range = ecmp::width(&f, &c, s);
                let e = &exact[s as usize];
                assert!(
                    within(e, &range),
                    "seed {seed} {s}->{o}: {e:?} not in {range:?}"
                );
                narrower += usize::from(e != &range);
                for g in &orders {
                    let mine = g.compute(o, None, &|_| false, None);
                    let n = mine.routes.via[s as usize].len() as u32;
                    assert!(
                        s == o || (e.min <= n && n <= e.max),
                        "seed {seed} {s}->{o}: a router-id order installs {n}, outside {e:?}"
                    );
                }
            }
        }
    }
    eprintln!("{tied} destinations with ties, {narrower} widths narrower enumerated");
    assert!(tied > 20, "{tied} destinations with ties");
}

#[test]
fn a_choice_two_switches_inherit_is_taken_together_not_apart() {
    // A has equal paths through X (AS 10) and Y (AS 20) to O and passes its choice to both B and C;
    // D holds AS 10, so it takes B's and C's routes only when A chose Y (then two next hops at length
    // 4), and otherwise the two through E and F at length 5. D installs two either way; taking B's and
    // C's choices apart, as the tie computation does, also allows one.
    let sw: Vec<(String, u8, u32, u8)> = [
        ("O", 0, 1),
        ("X", 1, 10),
        ("Y", 1, 20),
        ("A", 2, 30),
        ("B", 1, 40),
        ("C", 1, 50),
        ("D", 0, 10),
        ("Q", 2, 70),
        ("R", 1, 80),
        ("E", 2, 90),
        ("F", 2, 95),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(n, t, a))| (n.to_string(), t, a, 1 + i as u8))
    .collect();
    let idx = |n: &str| sw.iter().position(|s| s.0 == n).expect("switch") as Node;
    let pairs = [
        ("O", "X"),
        ("O", "Y"),
        ("X", "A"),
        ("Y", "A"),
        ("A", "B"),
        ("A", "C"),
        ("B", "D"),
        ("C", "D"),
        ("Y", "Q"),
        ("Q", "R"),
        ("R", "E"),
        ("R", "F"),
        ("E", "D"),
        ("F", "D"),
    ];
    let links: Vec<(Node, Node)> = pairs.iter().map(|&(a, b)| (idx(a), idx(b))).collect();
    let f = hand(&sw, &links);
    let (o, d) = (idx("O"), idx("D"));
    let c = f.compute(o, None, &|_| false, None);
    let apart = ecmp::width(&f, &c, d);
    let exact = ecmp::exact(&f, o, &vec![true; f.links.len()], None).expect("within the bound");
    assert_eq!((apart.min, apart.max), (1, 2), "{apart:?}");
    assert_eq!((exact[d as usize].min, exact[d as usize].max), (2, 2));
    // What `plan --format ecmp` and `verify` read: the enumerated width.
    assert_eq!(
        ecmp::widths(&f, &c, &vec![true; f.links.len()])[d as usize],
        exact[d as usize]
    );
}

#[test]
fn past_the_bound_of_the_enumeration_the_tie_range_stands() {
    // Seven diamonds in a row, each with two paths of different ASNs: 2^7 outcomes, more than the
    // enumeration computes.
    let mut sw: Vec<(String, u8, u32, u8)> = vec![("O".into(), 0, 1, 1)];
    let mut links: Vec<(Node, Node)> = Vec::new();
    let mut last = 0 as Node;
    for i in 0..7u32 {
        let base = sw.len() as Node;
        for (n, asn) in [("X", 100), ("Y", 200), ("A", 300)] {
            let rid = sw.len() as u8 + 1;
            sw.push((format!("{n}{i}"), 1, asn + i, rid));
        }
        links.extend([
            (last, base),
            (last, base + 1),
            (base, base + 2),
            (base + 1, base + 2),
        ]);
        last = base + 2;
    }
    let f = hand(&sw, &links);
    let up = vec![true; f.links.len()];
    assert!(ecmp::exact(&f, 0, &up, None).is_none());
    let c = f.compute(0, None, &|_| false, None);
    let fallback: Vec<Width> = (0..f.len() as Node)
        .map(|s| ecmp::width(&f, &c, s))
        .collect();
    assert_eq!(ecmp::widths(&f, &c, &up), fallback);
    // Four diamonds (16 outcomes) are enumerated.
    let g = hand(&sw[..13], &links[..16]);
    assert!(ecmp::exact(&g, 0, &vec![true; g.links.len()], None).is_some());
}
