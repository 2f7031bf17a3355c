//! Every outcome BGP may settle on for one destination, enumerated: where a switch has equal-best
//! eBGP paths of different ASN sets, it advertises the oldest (RFC 5004, [`super::ties`]), so each
//! such switch may advertise any of them, whatever the others do (session ages are per switch). The
//! enumeration fixes the first such switch's choice in the order they settle, computes again (a choice
//! changes only the switches that settle after it), and so on down the tree of choices; each leaf of
//! the tree is one outcome. [`super::ties`] follows every choice in one pass but takes each switch's
//! on its own, a superset; this is exact and costs a computation per node of the tree, so it stops at
//! [`RUNS`] and says so (None).

use super::paths::{Fabric, Node, Routes};

/// How many computations one destination's enumeration may take.
pub const RUNS: usize = 64;

/// Every outcome for `origin` with `up` naming the links up and `dead` down, or None when the tree of
/// choices takes more than [`RUNS`] computations.
pub fn every(
    fabric: &Fabric,
    origin: Node,
    up: &[bool],
    dead: Option<Node>,
) -> Option<Vec<Routes>> {
    let mut prefer: Vec<Option<u64>> = vec![None; fabric.len()];
    let mut out = Vec::new();
    let mut runs = 0;
    explore(fabric, origin, up, dead, &mut prefer, &mut out, &mut runs).then_some(out)
}

/// One node of the tree: computed with the choices `prefer` fixes; false past [`RUNS`].
fn explore(
    fabric: &Fabric,
    origin: Node,
    up: &[bool],
    dead: Option<Node>,
    prefer: &mut Vec<Option<u64>>,
    out: &mut Vec<Routes>,
    runs: &mut usize,
) -> bool {
    *runs += 1;
    if *runs > RUNS {
        return false;
    }
    let (routes, tied) = fabric.settle_choosing(origin, up, dead, prefer);
    let Some((v, sigs)) = tied
        .into_iter()
        .find(|(v, _)| prefer[*v as usize].is_none())
    else {
        out.push(routes);
        return true;
    };
    for sig in sigs {
        prefer[v as usize] = Some(sig);
        if !explore(fabric, origin, up, dead, prefer, out, runs) {
            return false;
        }
    }
    prefer[v as usize] = None;
    true
}
