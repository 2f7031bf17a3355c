//! What the routing analysis ([`super::deadlock`]) finds: its verdict on valleys and the leaf pairs
//! and loopbacks left without a route; shared by the exhaustive search ([`super::pruned`]) and the
//! budgeted one.

use super::failures::Failure;
use super::paths::{Node, Valley};
use super::reach::Cuts;

/// What the valley analysis found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ASN plan keeps every path up-down whatever fails.
    Proven,
    /// A path that goes down and up: with which failure (None: with every link up).
    Valley {
        /// The failure.
        failure: Option<Failure>,
        /// The destination switch.
        origin: Node,
        /// The path.
        valley: Valley,
    },
    /// The proof does not hold, but no single failure that was computed opened a valley.
    Unproven {
        /// The switch whose two neighbors above have different ASNs, with them; None when the proof
        /// failed otherwise (tiers that are not adjacent, an ASN in two tiers or on two leaves).
        mixed: Option<(Node, Node, Node)>,
        /// How many (destination, failure) cases were computed.
        cases: u64,
        /// How many there are in scope.
        of: u64,
    },
}

/// The whole analysis: valleys and leaf pairs without a route.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Valleys.
    pub verdict: Verdict,
    /// Leaf pairs without a route, with every link up and after failures.
    pub cuts: Cuts,
    /// (leaf, switch) pairs where the leaf has no route to the loopback of a spine or super-spine, with
    /// every link up.
    pub loopbacks: Cuts,
    /// A case the age tie-break computation could not follow whole ([`super::ties::PATHS_BOUND`]):
    /// (the destination, the failure, the switch with more distinct equal paths than that).
    pub over: Option<(Node, Option<Failure>, Node)>,
    /// The fabric was too large to compute the loopbacks of the spines and super-spines within the
    /// budget: `AIF-ROUTE-004` says so instead of passing.
    pub loopbacks_left: bool,
    /// Where the search left (leaf, failure) cases out: how many it computed, of how many in scope
    /// (`AIF-ROUTE-005` says so even when it found a valley: there may be more).
    pub cases_left: Option<(u64, u64)>,
}
