//! The ports check: every used port administratively and operationally up at its rendered speed and
//! MTU (broken-out children included), every unused port shut down as rendered.

use super::Check;
use super::cabling::Cabling;
use super::finding::{Finding, Kind};
use super::observed::Observed;

/// The ports check of one switch, comparing what it reports (`got`) with its ideal state (`want`). A
/// port down on a cable the cabling check finds broken is moved under that cable's finding later
/// ([`fold`]).
pub fn check_one(want: &Observed, got: &Observed, host: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    if got
        .ports
        .values()
        .all(|p| p.oper_up.is_none() && p.admin_up.is_none())
    {
        return out; // no port document read
    }
    for (name, w) in &want.ports {
        let f = |kind: Kind| Finding::new(Check::Ports, kind, host).at(name.clone());
        let Some(g) = got.ports.get(name) else {
            if w.admin_up == Some(true) {
                out.push(f(Kind::PortDown).saw("port up", "not in the switch's port list (wrong breakout mode, or not a port of this platform?)"));
            }
            continue;
        };
        if w.admin_up == Some(false) {
            if g.admin_up == Some(true) {
                out.push(f(Kind::PortUp).saw("shut down (no cable planned)", "admin up"));
            }
            continue;
        }
        let mut found = Vec::new();
        if g.admin_up == Some(false) {
            found.push(f(Kind::PortDown).saw("admin up", "admin down (shutdown)"));
        } else if g.oper_up == Some(false) {
            found.push(f(Kind::PortDown).saw("link up", "link down"));
        }
        if let (Some(ws), Some(gs)) = (w.speed_gbps, g.speed_gbps)
            && ws != gs
        {
            found.push(f(Kind::Speed).saw(format!("{ws}G"), format!("{gs}G")));
        }
        if let (Some(wm), Some(gm)) = (w.mtu, g.mtu)
            && wm != gm
        {
            found.push(f(Kind::Mtu).saw(format!("MTU {wm}"), format!("MTU {gm}")));
        }
        out.extend(found);
    }
    out
}

/// Moves each port-down finding at an end of a cable the cabling check found broken under that
/// cable's finding (`index`: device index by hostname); returns the others.
pub fn fold(
    findings: Vec<Finding>,
    index: &std::collections::HashMap<&str, usize>,
    cabling: &mut Cabling,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for x in findings {
        let end = x
            .port
            .clone()
            .and_then(|p| Some((*index.get(x.switch.as_str())?, p)));
        match end.and_then(|e| cabling.owner.get(&e)) {
            Some(&k) if x.kind == Kind::PortDown => {
                let port = x.port.as_deref().unwrap_or("");
                cabling.findings[k]
                    .explains
                    .push(format!("{}: {port} {}", x.switch, x.found));
            }
            _ => out.push(x),
        }
    }
    out
}
