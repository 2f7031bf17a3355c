//! The cabling check: every planned cable seen by LLDP from both ends at the planned ports. Two cables
//! whose ends are crossed are named as one swap (both cables, both ends, and the two ports whose plugs
//! to exchange); a neighbour where none is planned, and a server's neighbour where the intent has hosts.

use super::Check;
use super::expect::Plan;
use super::finding::{Finding, Kind};
use super::portmap::{Lldp, Port, PortIds, Seen};
use crate::model::PortKind;
use std::collections::{BTreeSet, HashMap};

/// A switch port: (device index, port name).
pub type End = (usize, String);

/// What the cabling check found: its findings, and the switch ports of the planned cables it found
/// broken, whose sessions, ports and paths these findings then explain.
pub struct Cabling {
    /// The findings.
    pub findings: Vec<Finding>,
    /// Both ends of every planned cable that does not work as planned.
    pub broken: BTreeSet<End>,
    /// The finding (index in `findings`) that names each broken end.
    pub owner: HashMap<End, usize>,
}

/// What LLDP shows at every port of the fabric: `None` where the switch's LLDP was not read,
/// `Some(None)` at a port with no neighbour.
struct Slots<'a> {
    at: Vec<Option<Option<Seen>>>,
    observed: &'a [Option<&'a Lldp>],
}

impl<'a> Slots<'a> {
    fn new(ids: &PortIds, observed: &'a [Option<&'a Lldp>]) -> Slots<'a> {
        let mut at = vec![None; ids.total()];
        for (i, lldp) in observed.iter().enumerate() {
            let Some(lldp) = lldp else { continue };
            let (first, last) = (ids.id(i, 0), ids.id(i + 1, 0));
            at[first as usize..last as usize].fill(Some(None));
            for &(k, s) in &lldp.at {
                at[ids.id(i, k) as usize] = Some(Some(s));
            }
        }
        Slots { at, observed }
    }

    fn get(&self, g: Port) -> Option<Option<Seen>> {
        self.at[g as usize]
    }

    /// Whether `x` sees `y`.
    fn sees(&self, x: Port, y: Port) -> bool {
        self.get(x) == Some(Some(Seen::Port(y)))
    }

    /// What switch `i` saw as `s`, named for the report.
    fn text(&self, plan: &Plan, ids: &PortIds, i: usize, s: Seen) -> String {
        match (s, self.observed[i]) {
            (Seen::Port(q), _) => name(plan, ids, q),
            (Seen::Other(k), Some(l)) => l.other(k).text(),
            (Seen::Other(_), None) => String::new(),
            (Seen::Host, _) => "the planned server".into(),
        }
    }
}

/// Runs the check over the switches whose LLDP was read (`observed[i]` is `None` for a switch whose
/// LLDP is missing or unreadable, or which `--only` left out), their neighbours resolved by `ids`.
pub fn check(
    plan: &Plan,
    ids: &PortIds,
    observed: &[Option<&Lldp>],
    hosts: &[Option<&Lldp>],
) -> Cabling {
    let seen = Slots::new(ids, observed);
    let mut out = Cabling {
        findings: Vec::new(),
        broken: BTreeSet::new(),
        owner: HashMap::new(),
    };
    let mut broken_links: BTreeSet<usize> = BTreeSet::new();
    let mut done: BTreeSet<usize> = BTreeSet::new();
    for l in 0..plan.model.links.len() {
        let (Some(a), Some(b)) = ids.link_ends(l) else {
            continue;
        };
        if done.contains(&l) {
            continue;
        }
        let (sa, sb) = (seen.get(a), seen.get(b));
        if sa.is_none() && sb.is_none() {
            continue; // neither end's LLDP was read
        }
        let ok_a = sa.is_none() || seen.sees(a, b);
        let ok_b = sb.is_none() || seen.sees(b, a);
        if ok_a && ok_b {
            continue;
        }
        let before: BTreeSet<usize> = broken_links.clone();
        broken_links.insert(l);
        let f = crossed(plan, ids, &seen, l, a, b, &mut done, &mut broken_links)
            .unwrap_or_else(|| single(plan, ids, &seen, a, b));
        let k = out.findings.len();
        out.findings.push(f);
        for &m in broken_links.difference(&before) {
            if let (Some(x), Some(y)) = ids.link_ends(m) {
                for e in [x, y] {
                    let end = (ids.device(e), ids.name(e).to_string());
                    out.broken.insert(end.clone());
                    out.owner.insert(end, k);
                }
            }
        }
    }
    unplanned(plan, ids, &seen, observed, &mut out.findings);
    servers(plan, ids, hosts, &mut out.findings);
    out
}

fn name(plan: &Plan, ids: &PortIds, e: Port) -> String {
    format!(
        "{}:{}",
        plan.model.devices[ids.device(e)].hostname,
        ids.name(e)
    )
}

/// A crossing that explains link `l` = `a`—`b`: LLDP at `a` shows `q`, the far end of another planned
/// link `q'`—`q`, and `b` and `q'` are cabled together. Both links are marked done.
#[allow(clippy::too_many_arguments)]
fn crossed(
    plan: &Plan,
    ids: &PortIds,
    seen: &Slots,
    l: usize,
    a: Port,
    b: Port,
    done: &mut BTreeSet<usize>,
    broken: &mut BTreeSet<usize>,
) -> Option<Finding> {
    for (p, p_far) in [(a, b), (b, a)] {
        let Some(Some(Seen::Port(q))) = seen.get(p) else {
            continue;
        };
        let Some((q_far, l2)) = ids.far(q) else {
            continue;
        };
        if l2 == l {
            continue;
        }
        if !(seen.sees(p_far, q_far) || seen.sees(q_far, p_far)) {
            continue;
        }
        done.insert(l);
        done.insert(l2);
        broken.insert(l2);
        return Some(crossing(plan, ids, [p, p_far, q, q_far]));
    }
    None
}

/// The finding for two crossed cables `p`—`p_far` and `q_far`—`q` where `p` sees `q`.
fn crossing(plan: &Plan, ids: &PortIds, [p, p_far, q, q_far]: [Port; 4]) -> Finding {
    let dev = |e: Port| ids.device(e);
    // Exchanging the plugs at p and q_far (or at p_far and q) restores both: name the pair on one switch.
    let (x, y) = if dev(p) == dev(q_far) || dev(p_far) != dev(q) {
        (p, q_far)
    } else {
        (p_far, q)
    };
    let ports = format!("{} {}", ids.name(x), ids.name(y));
    let n = |e: Port| name(plan, ids, e);
    let site = if dev(x) == dev(y) {
        format!(
            "swap the plugs at {} {} and {}",
            plan.model.devices[dev(x)].hostname,
            ids.name(x),
            ids.name(y)
        )
    } else {
        format!("swap the plugs at {} and {}", n(x), n(y))
    };
    Finding::new(
        Check::Cabling,
        Kind::Crossed,
        &plan.model.devices[dev(x)].hostname,
    )
    .at(ports)
    .saw(
        format!("{}—{} and {}—{}", n(p), n(p_far), n(q_far), n(q)),
        format!(
            "{}—{} and {}—{}: the cables are crossed; {site}",
            n(p),
            n(q),
            n(q_far),
            n(p_far)
        ),
    )
}

/// What LLDP shows at port `g`, for the report.
fn describe(plan: &Plan, ids: &PortIds, seen: &Slots, g: Port) -> String {
    match seen.get(g) {
        None => "LLDP not read".into(),
        Some(None) => "no neighbour".into(),
        Some(Some(s @ Seen::Port(_))) => seen.text(plan, ids, ids.device(g), s),
        Some(Some(s @ (Seen::Other(_) | Seen::Host))) => format!(
            "`{}` (not a switch port of this fabric)",
            seen.text(plan, ids, ids.device(g), s)
        ),
    }
}

/// The finding for one planned link that is not seen as planned and no crossing explains.
fn single(plan: &Plan, ids: &PortIds, seen: &Slots, a: Port, b: Port) -> Finding {
    let (sa, sb) = (seen.get(a), seen.get(b));
    let none = |s: Option<Option<Seen>>| matches!(s, Some(None) | None);
    let right = |s: Option<Option<Seen>>, e: Port| s == Some(Some(Seen::Port(e)));
    let (kind, at) = if none(sa) && none(sb) {
        (Kind::NoNeighbor, a)
    } else if (right(sa, b) && matches!(sb, Some(None)))
        || (right(sb, a) && matches!(sa, Some(None)))
    {
        (Kind::OneWay, if right(sa, b) { b } else { a })
    } else if !right(sa, b) && !matches!(sa, Some(None)) && sa.is_some() {
        (Kind::WrongNeighbor, a)
    } else {
        (Kind::WrongNeighbor, b)
    };
    let far = if at == a { b } else { a };
    let found = format!(
        "{} sees {}; {} sees {}",
        name(plan, ids, a),
        describe(plan, ids, seen, a),
        name(plan, ids, b),
        describe(plan, ids, seen, b)
    );
    let found = if kind == Kind::NoNeighbor {
        format!("no neighbour at either end: the cable is missing or its link is down ({found})")
    } else {
        found
    };
    Finding::new(
        Check::Cabling,
        kind,
        &plan.model.devices[ids.device(at)].hostname,
    )
    .at(ids.name(at).to_string())
    .saw(format!("cable to {}", name(plan, ids, far)), found)
}

/// Neighbours at ports with no planned fabric cable: unused ports, server ports seeing a switch, and
/// port names the model does not have.
fn unplanned(
    plan: &Plan,
    ids: &PortIds,
    seen: &Slots,
    observed: &[Option<&Lldp>],
    out: &mut Vec<Finding>,
) {
    let mut extra: Vec<(usize, &str, Seen)> = Vec::new();
    for (i, lldp) in observed.iter().enumerate() {
        let Some(lldp) = lldp else { continue };
        let d = &plan.model.devices[i];
        for k in 0..(d.interfaces.len() + d.unused_ports.len()) as u32 {
            let g = ids.id(i, k);
            let Some(Some(s)) = seen.get(g) else { continue };
            let server = d
                .interfaces
                .get(k as usize)
                .is_some_and(|p| p.kind == PortKind::Server);
            if ids.far(g).is_none() && (!server || matches!(s, Seen::Port(_))) {
                extra.push((i, ids.name(g), s));
            }
        }
        // The last neighbour reported at a name stands, as at a port of the model.
        for (port, s) in lldp.stray.iter().rev() {
            extra.push((i, port, *s));
        }
    }
    extra.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
    extra.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
    for (i, port, s) in extra {
        let what = seen.text(plan, ids, i, s);
        out.push(
            Finding::new(
                Check::Cabling,
                Kind::Unplanned,
                &plan.model.devices[i].hostname,
            )
            .at(port.to_string())
            .saw("no neighbour (no cable planned at this port)", what),
        );
    }
}

/// Server ports, where the intent has hosts: the planned server (its hostname) at each.
fn servers(plan: &Plan, ids: &PortIds, observed: &[Option<&Lldp>], out: &mut Vec<Finding>) {
    if plan.model.hosts.is_none() {
        return;
    }
    for (i, o) in observed.iter().enumerate() {
        let Some(lldp) = o else { continue };
        let d = &plan.model.devices[i];
        for (k, p) in d.interfaces.iter().enumerate() {
            if p.kind != PortKind::Server {
                continue;
            }
            // The system name the neighbour sent (a fabric switch's is its hostname).
            let sys = lldp.first_at(k as u32).and_then(|s| match s {
                Seen::Port(g) => Some(plan.model.devices[ids.device(g)].hostname.as_str()),
                Seen::Other(o) => lldp.other(o).sys.as_deref(),
                Seen::Host => Some(&*p.peer),
            });
            let sys = sys.map(|s| s.split('.').next().unwrap_or(s));
            if sys == Some(&*p.peer) {
                continue;
            }
            let nics = plan.nics(&p.peer, &d.hostname);
            let expected = match nics {
                Some(n) if n.len() == 1 => format!("server {} ({})", p.peer, n[0]),
                _ => format!("server {}", p.peer),
            };
            let found = sys.map_or_else(
                || "no neighbour (server not cabled, or its lldpd not running)".to_string(),
                |s| format!("`{s}`"),
            );
            out.push(
                Finding::new(Check::Hosts, Kind::WrongNeighbor, &d.hostname)
                    .at(p.name.to_string())
                    .saw(expected, found),
            );
        }
    }
}
