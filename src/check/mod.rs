//! Semantic checks: the rules that catch meanings a schema cannot (ECN min < max, lossless never strict,
//! watchdog timers each OS can express, MTU every platform accepts, ...). One module per rule family;
//! every rule is declared in the registry ([`crate::rules`]) and has a section in `docs/checks.md`.
//! Fabric-arithmetic rules (pools, ports, platform support) run in the compiler, declared the same way.

mod bgp;
mod cable;
mod headroom;
mod lb;
mod mtu;
mod pfc;
mod qos;

pub use mtu::ROCE_MIN_MTU;

use crate::diag::{Finding, Source};
use crate::intent::{Intent, Role};
use crate::load::SpanMap;
use crate::platform::{Catalog, Os, Platform};

/// A platform an intent uses: its name, OS, profile, the roles it serves and the pointer that chose it.
type UsedPlatform<'a> = (&'a str, Os, &'a Platform, Vec<Role>, String);

/// Every platform an intent uses, with the roles it serves and the pointer that chose it.
fn platforms<'a>(intent: &'a Intent, catalog: &'a Catalog) -> Vec<UsedPlatform<'a>> {
    let t = &intent.fabric.topology;
    let mut out: Vec<UsedPlatform> = Vec::new();
    let mut add = |name: &'a str, role: Option<Role>, ptr: String| {
        let Some((os, p)) = catalog.get(name) else {
            return;
        };
        match out.iter_mut().find(|e| e.0 == name) {
            Some(e) => {
                if let Some(r) = role
                    && !e.3.contains(&r)
                {
                    e.3.push(r);
                }
            }
            None => out.push((name, *os, p, role.into_iter().collect(), ptr)),
        }
    };
    add(
        &t.leaf.platform,
        Some(Role::Leaf),
        "/fabric/topology/leaf/platform".into(),
    );
    add(
        &t.spine.platform,
        Some(Role::Spine),
        "/fabric/topology/spine/platform".into(),
    );
    if let Some(ss) = &t.super_spine {
        add(
            &ss.platform,
            Some(Role::SuperSpine),
            "/fabric/topology/super_spine/platform".into(),
        );
    }
    for (i, o) in intent.overrides.iter().enumerate() {
        if let Some(p) = &o.platform {
            // An override may serve any role; checks treat it as serving every role its glob could match.
            add(p, None, format!("/overrides/{i}/platform"));
        }
    }
    out
}

/// Runs every rule over a schema-valid intent and returns all findings (located later by the caller, or
/// here when `spans` has the pointer).
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
    let mut out = Vec::new();
    qos::rules(intent, catalog, &mut out);
    pfc::rules(intent, catalog, &mut out);
    mtu::rules(intent, catalog, &mut out);
    bgp::rules(intent, &mut out);
    lb::rules(intent, catalog, &mut out);
    cable::rules(intent, catalog, &mut out);
    headroom::rules(intent, catalog, &mut out);
    out
}
