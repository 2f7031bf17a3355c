//! The ports check: every used port administratively and operationally up at its rendered speed and
//! MTU (broken-out children included), every unused port shut down as rendered.

use super::Check;
use super::cabling::Cabling;
use super::finding::{Finding, Kind};
use super::observed::Observed;

/// Runs the check over the switches whose port state was read, comparing with each one's ideal state;
/// a port down on a cable the cabling check found broken is added to that cable's finding.
pub fn check(
    ideal: &[Option<Observed>],
    observed: &[Option<&Observed>],
    hosts: &[&str],
    cabling: &mut Cabling,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, (want, got)) in ideal.iter().zip(observed).enumerate() {
        let (Some(want), Some(got)) = (want, got) else {
            continue;
        };
        if got
            .ports
            .values()
            .all(|p| p.oper_up.is_none() && p.admin_up.is_none())
        {
            continue; // no port document read
        }
        for (name, w) in &want.ports {
            let f = |kind: Kind| Finding::new(Check::Ports, kind, hosts[i]).at(name.clone());
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
            for x in found {
                match cabling.owner.get(&(i, name.clone())) {
                    Some(&k) if x.kind == Kind::PortDown => cabling.findings[k]
                        .explains
                        .push(format!("{}: {} {}", hosts[i], name, x.found)),
                    _ => out.push(x),
                }
            }
        }
    }
    out
}
