//! The lossless check, as the switch reports it: PFC enabled on exactly the lossless priorities on every
//! used fabric and server port, the PFC watchdog on where planned, DSCP trusted with the planned map,
//! and the ECN thresholds, wherever the switch's OS reports each of them (a value no collected document
//! of the OS carries is not checked: docs/verify.md says which OS reports what).

use super::Check;
use super::finding::{Finding, Kind};
use super::observed::{EcnState, Observed, PortState};
use std::collections::BTreeMap;

/// The lossless check of one switch, comparing what it reports (`got`) with its ideal state (`want`).
pub fn check_one(want: &Observed, got: &Observed, host: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    switch_wide(want, got, host, &mut out);
    for (name, w) in want.ports.iter().filter(|(_, w)| w.admin_up == Some(true)) {
        if let Some(g) = got.ports.get(name) {
            port(w, g, &mut |kind, e, f| {
                out.push(
                    Finding::new(Check::Lossless, kind, host)
                        .at(name.clone())
                        .saw(e, f),
                )
            });
        }
    }
    out
}

fn switch_wide(want: &Observed, got: &Observed, host: &str, out: &mut Vec<Finding>) {
    let f = |kind, e: String, g: String| Finding::new(Check::Lossless, kind, host).saw(e, g);
    if let (Some(w), Some(g)) = (want.qos.watchdog_enabled, got.qos.watchdog_enabled)
        && w != g
    {
        out.push(f(
            Kind::Watchdog,
            on_off("PFC watchdog", w),
            on_off("PFC watchdog", g),
        ));
    }
    if let (Some(w), Some(g)) = (&want.qos.dscp_to_tc, &got.qos.dscp_to_tc)
        && let Some(d) = map_difference(w, g)
    {
        out.push(f(Kind::Dscp, "the planned DSCP-to-TC map".into(), d));
    }
    if let (Some(w), Some(g)) = (&want.qos.ecn, &got.qos.ecn)
        && let Some(d) = ecn_difference(w, g)
    {
        out.push(f(Kind::Ecn, "the planned ECN thresholds".into(), d));
    }
}

fn on_off(what: &str, on: bool) -> String {
    format!("{what} {}", if on { "on" } else { "off" })
}

fn list(p: &[u8]) -> String {
    if p.is_empty() {
        return "none".into();
    }
    p.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

fn port(w: &PortState, g: &PortState, push: &mut dyn FnMut(Kind, String, String)) {
    if let (Some(wp), Some(gp)) = (&w.pfc_priorities, &g.pfc_priorities)
        && wp != gp
    {
        push(
            Kind::Pfc,
            format!("PFC on priorities {}", list(wp)),
            format!("PFC on priorities {}", list(gp)),
        );
    }
    if let (Some(ww), Some(gw)) = (w.pfc_watchdog, g.pfc_watchdog)
        && ww != gw
    {
        push(
            Kind::Watchdog,
            on_off("PFC watchdog", ww),
            on_off("PFC watchdog", gw),
        );
    }
    if let (Some(true), Some(false)) = (w.trust_dscp, g.trust_dscp) {
        push(
            Kind::Dscp,
            "DSCP trusted".into(),
            "DSCP not trusted (no DSCP-to-TC map bound)".into(),
        );
    } else if let (Some(wm), Some(gm)) = (&w.dscp_to_tc, &g.dscp_to_tc)
        && let Some(d) = map_difference(wm, gm)
    {
        push(Kind::Dscp, "the planned DSCP-to-TC map".into(), d);
    }
    if let (Some(we), Some(ge)) = (&w.ecn, &g.ecn)
        && let Some(d) = ecn_difference(we, ge)
    {
        push(Kind::Ecn, "the planned ECN thresholds".into(), d);
    }
}

/// The first DSCPs whose traffic class differs, `None` when the maps agree on every DSCP the plan maps.
fn map_difference(want: &BTreeMap<u8, u8>, got: &BTreeMap<u8, u8>) -> Option<String> {
    let diffs: Vec<String> = want
        .iter()
        .filter(|(d, t)| got.get(d) != Some(t))
        .map(|(d, t)| {
            format!(
                "DSCP {d} -> TC {} (planned {t})",
                got.get(d).map_or("none".into(), u8::to_string)
            )
        })
        .collect();
    match diffs.len() {
        0 => None,
        1..=3 => Some(diffs.join(", ")),
        n => Some(format!("{}, and {} more", diffs[..3].join(", "), n - 3)),
    }
}

fn ecn_difference(want: &BTreeMap<u8, EcnState>, got: &BTreeMap<u8, EcnState>) -> Option<String> {
    let show = |e: Option<&EcnState>| {
        e.map_or("no ECN".into(), |e| {
            format!("min {} max {} bytes", e.min_bytes, e.max_bytes)
        })
    };
    let diffs: Vec<String> = want
        .iter()
        .filter(|(q, e)| got.get(q) != Some(e))
        .map(|(q, e)| {
            format!(
                "queue {q}: {} (planned {})",
                show(got.get(q)),
                show(Some(e))
            )
        })
        .collect();
    (!diffs.is_empty()).then(|| diffs.join(", "))
}
