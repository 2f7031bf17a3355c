//! Semantic checks: the rules that catch meanings a schema cannot (ECN min < max, lossless never strict,
//! watchdog timers each OS can express, MTU every platform accepts, ...). One module per rule family;
//! every rule is declared in the registry ([`crate::rules`]) and has a section in `docs/checks.md`.
//! Rules that read only the intent run first ([`intent_rules`]); the rules about platforms run on the
//! placement ([`platform_rules`]), so each platform is checked for the devices it really serves.
//! Fabric-arithmetic rules (pools, ports, platform support) run in placement and the compiler, declared
//! the same way.

mod analysis;
mod asn;
mod baseline;
mod bgp;
pub mod buffers;
mod cable;
pub mod deadlock;
pub mod ecmp;
pub mod failures;
mod headroom;
mod lb;
pub mod lemma;
mod management;
mod max_paths;
mod mtu;
pub mod outcomes;
pub mod paths;
pub mod pathvector;
mod pfc;
mod pruned;
mod qos;
pub mod reach;
mod release;
mod services;
mod site;
pub mod ties;
mod twins;

pub use asn::ecmp_rules;
pub use baseline::{banner_line_problem, sha512_crypt_shape};
pub use deadlock::rules as deadlock_rules;
pub use management::collisions as management_collisions;
pub use management::model_rules as management_rules;
pub use mtu::ROCE_MIN_MTU;

use crate::diag::Finding;
use crate::diag::Source;
use crate::intent::Intent;
use crate::load::SpanMap;
use crate::place::{self, Placement, PlatformUse};
use crate::platform::Catalog;

/// Runs every rule over a schema-valid intent and returns all findings (located later by the caller, or
/// here when `spans` has the pointer). The platform rules run on [`place::for_rules`]; a caller that
/// places the fabric itself runs [`intent_rules`] and [`platform_rules`] instead.
pub fn run(intent: &Intent, spans: &SpanMap, source: &Source) -> Vec<Finding> {
    let mut f = run_unlocated(intent, Catalog::builtin());
    for x in f.iter_mut() {
        if let Some(span) = x.pointer.as_deref().and_then(|p| spans.locate(p)) {
            *x = x.clone().with_span(source, span);
        }
    }
    f
}

/// The rules, without source locations (findings carry JSON pointers).
pub fn run_unlocated(intent: &Intent, catalog: &Catalog) -> Vec<Finding> {
    let mut out = intent_rules(intent);
    let placement = place::for_rules(intent, catalog, None);
    out.extend(platform_rules(intent, catalog, &placement));
    if let Ok(s) = crate::shape::shape(intent) {
        out.extend(ecmp_rules(intent, &s));
    }
    out
}

/// A family of rules that read only the intent: the sections it reads and its entry point.
type IntentFamily = (&'static [&'static str], fn(&Intent, &mut Vec<Finding>));

/// Every intent-rule family, in the order its findings are reported, with the intent sections it reads.
/// [`intent_rules`] runs them all; [`partial_intent_rules`] runs those whose sections passed the schema,
/// so a family added here runs in both.
const INTENT_FAMILIES: &[IntentFamily] = &[
    (&["/qos"], qos::intent_rules),
    (&["/qos"], pfc::intent_rules),
    (&["/fabric/mtu"], mtu::intent_rules),
    (&["/fabric/bgp"], bgp::rules),
    (&["/fabric/bgp"], asn::reserved_rules),
    (
        &["/fabric/management", "/fabric/addressing", "/overrides"],
        management::pool_rules,
    ),
    (&["/load_balancing"], lb::intent_rules),
    (
        &["/acknowledge", "/overrides"],
        crate::place::ack::intent_rules,
    ),
    (&["/baseline"], baseline::rules),
    (&["/baseline", "/fabric/addressing"], services::rules),
    (&["/hosts", "/qos", "/fabric/topology"], crate::hosts::rules),
];

/// The rules that read only the intent: class definitions, the watchdog switch, the RoCE MTU, ASNs,
/// management pools, DLB settings, acknowledgements, the baseline and the hosts section.
pub fn intent_rules(intent: &Intent) -> Vec<Finding> {
    let mut out = Vec::new();
    for (_, family) in INTENT_FAMILIES {
        family(intent, &mut out);
    }
    // Whether there is a baseline at all: only on a whole intent (a partial one's stand-ins would
    // make it fire on a file whose baseline failed the schema).
    baseline::presence(intent, &mut out);
    management::presence(intent, &mut out);
    out
}

/// The intent rules whose inputs passed the schema, on an intent that failed it elsewhere: each family
/// runs only when every section it reads is clean ([`crate::validate::Partial`]). The platform and
/// topology rules need the whole fabric and do not run.
pub fn partial_intent_rules(p: &crate::validate::Partial) -> Vec<Finding> {
    let mut out = Vec::new();
    for (sections, family) in INTENT_FAMILIES {
        if sections.iter().all(|s| p.clean(s)) {
            family(&p.intent, &mut out);
        }
    }
    out
}

/// The rules that compare the intent with the platforms the placement puts devices on: buffers, lossless
/// classes, reserved traffic classes, watchdog timers, MTU, DLB and QP-hash costs, cable lengths. Each
/// platform is checked for the roles and settings of its own devices.
pub fn platform_rules(intent: &Intent, catalog: &Catalog, placement: &Placement) -> Vec<Finding> {
    let uses = placement.platforms(catalog);
    let mut out = Vec::new();
    qos::platform_rules(intent, &uses, &mut out);
    pfc::platform_rules(intent, &uses, &mut out);
    mtu::platform_rules(intent, &uses, &mut out);
    lb::platform_rules(intent, &uses, &mut out);
    cable::rules(intent, &uses, &mut out);
    release::rules(intent, &uses, &mut out);
    headroom::rules(intent, catalog, &uses, &mut out);
    baseline::transport_rules(intent, catalog, &uses, &mut out);
    site::rules(intent, catalog, &uses, &mut out);
    max_paths::rules(intent, &uses, &mut out);
    out
}

/// The platforms a rule family checks.
type Uses<'a> = [PlatformUse<'a>];

#[cfg(test)]
mod ecmp_tests;
#[cfg(test)]
mod lemma_tests;
#[cfg(test)]
mod routing_tests;
#[cfg(test)]
mod tests;
