//! The routing analysis of a plan the proof does not cover ([`super::deadlock`]), exhaustive: every
//! leaf and every other switch with every link up, and every leaf with every failure in scope that the
//! failure lemma ([`super::lemma`]) does not cover, each computed; the cases the lemma covers give
//! nothing the steady state does not. The destinations, then the failures, are computed in parallel
//! and read in the order of the plain computation ([`super::deadlock::exhaustive`]), so the first
//! valley, the first case past the bound of equal paths and the failures that leave pairs without a
//! route are the ones it finds; the first such failure is computed again with every leaf as a
//! destination, so its counts and the pairs it names are exact.

use super::analysis::{Analysis, Verdict};
use super::failures::Failure;
use super::lemma;
use super::paths::{Fabric, Node, Valley};
use super::reach::{self, Cut, Cuts};
use rayon::prelude::*;

/// What one (destination, failure) case gives.
struct Case {
    /// The destination.
    origin: Node,
    /// A valley (leaf destinations only).
    valley: Option<Valley>,
    /// A switch past the bound of equal paths.
    over: Option<Node>,
    /// Its pairs without a route.
    cut: Cut,
}

/// Computes destination `o` with `failure`; `comp` is the cabling's components with it.
fn case(
    fabric: &Fabric,
    o: Node,
    failure: Option<Failure>,
    comp: &[u32],
) -> (Case, super::pathvector::Computed) {
    let c = fabric.compute_after(o, failure);
    let valley = if fabric.is_leaf(o) {
        c.valley_any(fabric)
    } else {
        None
    };
    let mut cut = Cut::new(failure);
    cut.add(fabric, &c, comp, 1);
    let over = c.ties.as_ref().and_then(|t| t.over);
    (
        Case {
            origin: o,
            valley,
            over,
            cut,
        },
        c,
    )
}

/// The analysis, or None when the cases to compute pass `budget` switch and link visits.
pub(super) fn analyse(fabric: &Fabric, budget: u64) -> Option<Analysis> {
    let failures = fabric.failure_sets();
    let per_case = (fabric.links.len() as u64 * 2 + fabric.len() as u64).max(1);
    // The leaves first, then the other switches (their loopbacks), as the plain computation.
    let steady: Vec<Node> = (0..fabric.len() as Node)
        .filter(|&n| fabric.is_leaf(n))
        .chain((0..fabric.len() as Node).filter(|&n| !fabric.is_leaf(n)))
        .collect();
    if (steady.len() as u64).saturating_mul(per_case) > budget {
        return None;
    }
    let comp = fabric.components(None);
    let first: Vec<(Case, Vec<u32>)> = steady
        .par_iter()
        .map(|&o| {
            let (k, c) = case(fabric, o, None, &comp);
            let relevant = if fabric.is_leaf(o) {
                lemma::relevant(fabric, &c, &failures)
            } else {
                Vec::new()
            };
            (k, relevant)
        })
        .collect();
    let more: u64 = first.iter().map(|(_, r)| r.len() as u64).sum();
    if (steady.len() as u64 + more).saturating_mul(per_case) > budget {
        return None;
    }
    // Per failure, the destinations to compute with it, in leaf order.
    let mut by_failure: Vec<Vec<Node>> = vec![Vec::new(); failures.len()];
    for (k, relevant) in &first {
        for &i in relevant {
            by_failure[i as usize].push(k.origin);
        }
    }
    let splits = fabric.splits();
    let computed: Vec<(Failure, Vec<Case>)> = by_failure
        .par_iter()
        .zip(failures.par_iter())
        .filter(|(origins, _)| !origins.is_empty())
        .map(|(origins, &f)| {
            let comp = splits.components(fabric, Some(f));
            let cases = origins
                .iter()
                .map(|&o| case(fabric, o, Some(f), &comp).0)
                .collect();
            (f, cases)
        })
        .collect();
    let leaves = fabric.leaves().count() as u64;
    let all = (failures.len() as u64 + 1) * leaves;
    Some(merge(
        fabric,
        first.into_iter().map(|(k, _)| k).collect(),
        computed,
        all,
    ))
}

/// The cases read in the plain computation's order: the steady state's, then each failure's.
fn merge(
    fabric: &Fabric,
    steady: Vec<Case>,
    failed: Vec<(Failure, Vec<Case>)>,
    all: u64,
) -> Analysis {
    let mut acc = Acc::default();
    let mut servers = Cut::new(None);
    let mut loopbacks = Cut::new(None);
    for k in steady {
        acc.note(None, &k);
        if fabric.is_leaf(k.origin) {
            servers.merge(k.cut);
        } else {
            loopbacks.merge(k.cut);
        }
    }
    let mut cuts = Cuts::default();
    cuts.push(servers);
    let mut lo = Cuts::default();
    lo.push(loopbacks);
    for (f, cases) in failed {
        let mut cut = Cut::new(Some(f));
        for k in cases {
            acc.note(Some(f), &k);
            cut.merge(k.cut);
        }
        cuts.push(cut);
    }
    // The first failure that leaves pairs without a route, over every leaf (the lemma's cases add
    // destinations whose pairs all have a route, which the counts name).
    if let Some(first) = cuts.failed.take() {
        cuts.failed = Some(reach::every_leaf(fabric, first.failure));
    }
    let verdict = match acc.valley {
        Some((failure, origin, valley)) => Verdict::Valley {
            failure,
            origin,
            valley,
        },
        None => Verdict::Unproven {
            mixed: fabric.mixed_upper_asns(),
            cases: all,
            of: all,
        },
    };
    Analysis {
        verdict,
        cuts,
        loopbacks: lo,
        over: acc.over,
        loopbacks_left: false,
        cases_left: None,
    }
}

/// The first valley and the first case past the bound, in reading order.
#[derive(Default)]
struct Acc {
    valley: Option<(Option<Failure>, Node, Valley)>,
    over: Option<(Node, Option<Failure>, Node)>,
}

impl Acc {
    fn note(&mut self, failure: Option<Failure>, k: &Case) {
        if self.valley.is_none()
            && let Some(v) = &k.valley
        {
            self.valley = Some((failure, k.origin, v.clone()));
        }
        if let Some(at) = k.over {
            self.over.get_or_insert((k.origin, failure, at));
        }
    }
}
