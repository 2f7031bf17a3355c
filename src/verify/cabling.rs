//! The cabling check: every planned cable seen by LLDP from both ends at the planned ports. Two cables
//! whose ends are crossed are named as one swap (both cables, both ends, and the two ports whose plugs
//! to exchange); a neighbour where none is planned, and a server's neighbour where the intent has hosts.

use super::Check;
use super::expect::{Plan, sent_port_id};
use super::finding::{Finding, Kind};
use super::observed::Observed;
use crate::model::PortKind;
use crate::platform::Catalog;
use std::collections::{BTreeSet, HashMap};

/// A switch port: (device index, port name).
pub type End = (usize, String);

/// A switch port borrowed from the model or a switch's report (no copy per port at 275,000 ports).
type E<'a> = (usize, &'a str);

/// What LLDP says is at the other end of a port.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen<'a> {
    /// A port of a switch of the fabric.
    Port(E<'a>),
    /// Something the fabric does not know (a system and port ID as sent).
    Other(String),
}

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

/// Runs the check over the switches whose LLDP was read (`observed[i]` is `None` for a switch whose
/// LLDP is missing or unreadable, or which `--only` left out).
pub fn check<'a>(
    plan: &'a Plan,
    catalog: &Catalog,
    observed: &[Option<&'a Observed>],
    hosts: &[Option<&Observed>],
) -> Cabling {
    let model = plan.model;
    let planned = planned_ends(plan);
    let aliases = aliases(plan, catalog);
    let mut seen: HashMap<E<'a>, Option<Seen<'a>>> = HashMap::new();
    for (i, o) in observed.iter().enumerate() {
        let Some(lldp) = o.and_then(|o| o.lldp.as_ref()) else {
            continue;
        };
        let d = &model.devices[i];
        for p in d
            .interfaces
            .iter()
            .map(|p| &p.name)
            .chain(d.unused_ports.iter().map(|u| &u.name))
        {
            seen.insert((i, &**p), None);
        }
        for n in lldp {
            let sys = n.system_name.as_deref().unwrap_or("");
            let short = sys.split('.').next().unwrap_or(sys);
            let id = n.port_id.as_deref().unwrap_or("");
            let at = plan.index.get(short).and_then(|&j| {
                let by_name = planned.far.get_key_value(&(j, id)).map(|(k, _)| k.1);
                let port = by_name
                    .or_else(|| aliases.get(&j)?.get(id).copied())
                    .or_else(|| any_port(&model.devices[j], id))?;
                Some(Seen::Port((j, port)))
            });
            let what = at.unwrap_or_else(|| Seen::Other(format!("{sys} {id}").trim().to_string()));
            seen.insert((i, n.local_port.as_str()), Some(what));
        }
    }
    let mut out = Cabling {
        findings: Vec::new(),
        broken: BTreeSet::new(),
        owner: HashMap::new(),
    };
    let mut broken_links: BTreeSet<usize> = BTreeSet::new();
    let mut done: BTreeSet<usize> = BTreeSet::new();
    for (l, link) in model.links.iter().enumerate() {
        let (Some(a), Some(b)) = planned.link_ends[l] else {
            continue;
        };
        debug_assert_eq!(plan.model.devices[a.0].hostname, *link.a);
        if done.contains(&l) {
            continue;
        }
        let (sa, sb) = (seen.get(&a), seen.get(&b));
        if sa.is_none() && sb.is_none() {
            continue; // neither end's LLDP was read
        }
        let ok_a = sa.is_none_or(|s| *s == Some(Seen::Port(b)));
        let ok_b = sb.is_none_or(|s| *s == Some(Seen::Port(a)));
        if ok_a && ok_b {
            continue;
        }
        let before: BTreeSet<usize> = broken_links.clone();
        broken_links.insert(l);
        let f = crossed(
            plan,
            &planned,
            &seen,
            l,
            &a,
            &b,
            &mut done,
            &mut broken_links,
        )
        .unwrap_or_else(|| single(plan, &a, &b, sa, sb));
        let k = out.findings.len();
        out.findings.push(f);
        for &m in broken_links.difference(&before) {
            if let (Some(x), Some(y)) = &planned.link_ends[m] {
                for e in [x, y] {
                    out.broken.insert((e.0, e.1.to_string()));
                    out.owner.insert((e.0, e.1.to_string()), k);
                }
            }
        }
    }
    unplanned(plan, &planned, &seen, &mut out.findings);
    servers(plan, hosts, &mut out.findings);
    out
}

/// The port of `d` named `id` that no planned cable uses (a server or unused port): looked up only for
/// a neighbour no planned port explains, which is rare.
fn any_port<'a>(d: &'a crate::model::Device, id: &str) -> Option<&'a str> {
    let names = d
        .interfaces
        .iter()
        .map(|p| &p.name)
        .chain(d.unused_ports.iter().map(|u| &u.name));
    names.map(|n| &**n).find(|n| *n == id)
}

/// The port IDs SONiC switches send for their ports (the SKU's alias, SONiC's lldpmgrd), per device:
/// alias to port name. Other ports are known by their name.
fn aliases<'a>(plan: &'a Plan, catalog: &Catalog) -> HashMap<usize, HashMap<String, &'a str>> {
    let mut out: HashMap<usize, HashMap<String, &'a str>> = HashMap::new();
    for (j, d) in plan.model.devices.iter().enumerate() {
        if d.os != crate::kinds::Os::Sonic {
            continue;
        }
        let m = out.entry(j).or_default();
        for p in &d.interfaces {
            let sent = sent_port_id(catalog, d, p);
            if sent != *p.name {
                m.insert(sent, &*p.name);
            }
        }
    }
    out
}

/// The planned ends of every fabric link, and the planned far end of every switch port.
struct Planned<'a> {
    /// Per link of the model: both switch ends (None for a server end).
    link_ends: Vec<(Option<E<'a>>, Option<E<'a>>)>,
    /// Far end and link of each switch port with a planned fabric cable.
    far: HashMap<E<'a>, (E<'a>, usize)>,
}

fn planned_ends<'a>(plan: &'a Plan) -> Planned<'a> {
    let mut far = HashMap::new();
    let link_ends = plan
        .model
        .links
        .iter()
        .enumerate()
        .map(|(l, k)| {
            let a = plan.index.get(&*k.a).map(|&i| (i, &*k.a_port));
            let b = plan.index.get(&*k.b).map(|&i| (i, &*k.b_port));
            if let (Some(a), Some(b)) = (a, b) {
                far.insert(a, (b, l));
                far.insert(b, (a, l));
            }
            (a, b)
        })
        .collect();
    Planned { link_ends, far }
}

fn name(plan: &Plan, e: &E) -> String {
    format!("{}:{}", plan.model.devices[e.0].hostname, e.1)
}

/// A crossing that explains link `l` = `a`—`b`: LLDP at `a` shows `q`, the far end of another planned
/// link `q'`—`q`, and `b` and `q'` are cabled together. Both links are marked done.
#[allow(clippy::too_many_arguments)]
fn crossed<'a>(
    plan: &Plan,
    planned: &Planned<'a>,
    seen: &HashMap<E<'a>, Option<Seen<'a>>>,
    l: usize,
    a: &E<'a>,
    b: &E<'a>,
    done: &mut BTreeSet<usize>,
    broken: &mut BTreeSet<usize>,
) -> Option<Finding> {
    for (p, p_far) in [(a, b), (b, a)] {
        let Some(Some(Seen::Port(q))) = seen.get(p) else {
            continue;
        };
        let Some((q_far, l2)) = planned.far.get(q) else {
            continue;
        };
        if *l2 == l {
            continue;
        }
        let linked = |x: &E<'a>, y: &E<'a>| seen.get(x).is_some_and(|s| *s == Some(Seen::Port(*y)));
        if !(linked(p_far, q_far) || linked(q_far, p_far)) {
            continue;
        }
        done.insert(l);
        done.insert(*l2);
        broken.insert(*l2);
        // Exchanging the plugs at p and q_far (or at p_far and q) restores both: name the pair on one switch.
        let (x, y) = if p.0 == q_far.0 || p_far.0 != q.0 {
            (p, q_far)
        } else {
            (p_far, q)
        };
        let ports = format!("{} {}", x.1, y.1);
        let site = if x.0 == y.0 {
            format!(
                "swap the plugs at {} {} and {}",
                plan.model.devices[x.0].hostname, x.1, y.1
            )
        } else {
            format!("swap the plugs at {} and {}", name(plan, x), name(plan, y))
        };
        let f = Finding::new(
            Check::Cabling,
            Kind::Crossed,
            &plan.model.devices[x.0].hostname,
        )
        .at(ports)
        .saw(
            format!(
                "{}—{} and {}—{}",
                name(plan, p),
                name(plan, p_far),
                name(plan, q_far),
                name(plan, q)
            ),
            format!(
                "{}—{} and {}—{}: the cables are crossed; {site}",
                name(plan, p),
                name(plan, q),
                name(plan, q_far),
                name(plan, p_far)
            ),
        );
        return Some(f);
    }
    None
}

fn describe(plan: &Plan, s: Option<&Option<Seen<'_>>>) -> String {
    match s {
        None => "LLDP not read".into(),
        Some(None) => "no neighbour".into(),
        Some(Some(Seen::Port(e))) => name(plan, e),
        Some(Some(Seen::Other(t))) => format!("`{t}` (not a switch port of this fabric)"),
    }
}

/// The finding for one planned link that is not seen as planned and no crossing explains.
fn single<'a>(
    plan: &Plan,
    a: &E<'a>,
    b: &E<'a>,
    sa: Option<&Option<Seen<'a>>>,
    sb: Option<&Option<Seen<'a>>>,
) -> Finding {
    let none = |s: Option<&Option<Seen>>| matches!(s, Some(None)) || s.is_none();
    let right =
        |s: Option<&Option<Seen<'a>>>, e: &E<'a>| s.is_some_and(|s| *s == Some(Seen::Port(*e)));
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
        name(plan, a),
        describe(plan, sa),
        name(plan, b),
        describe(plan, sb)
    );
    let found = if kind == Kind::NoNeighbor {
        format!("no neighbour at either end: the cable is missing or its link is down ({found})")
    } else {
        found
    };
    Finding::new(Check::Cabling, kind, &plan.model.devices[at.0].hostname)
        .at(at.1.to_string())
        .saw(format!("cable to {}", name(plan, far)), found)
}

/// Neighbours at ports with no planned fabric cable: unused ports, and server ports seeing a switch.
fn unplanned<'a>(
    plan: &Plan,
    planned: &Planned<'a>,
    seen: &HashMap<E<'a>, Option<Seen<'a>>>,
    out: &mut Vec<Finding>,
) {
    let mut extra: Vec<(&E<'a>, &Seen<'a>)> = seen
        .iter()
        .filter(|(e, _)| !planned.far.contains_key(*e))
        .filter_map(|(e, s)| Some((e, s.as_ref()?)))
        .filter(|(e, s)| {
            let is_server = plan.model.devices[e.0]
                .interfaces
                .iter()
                .any(|p| *p.name == *e.1 && p.kind == PortKind::Server);
            !is_server || matches!(s, Seen::Port(_))
        })
        .collect();
    extra.sort_by(|x, y| x.0.cmp(y.0));
    for (e, s) in extra {
        let what = match s {
            Seen::Port(q) => name(plan, q),
            Seen::Other(t) => t.clone(),
        };
        out.push(
            Finding::new(
                Check::Cabling,
                Kind::Unplanned,
                &plan.model.devices[e.0].hostname,
            )
            .at(e.1.to_string())
            .saw("no neighbour (no cable planned at this port)", what),
        );
    }
}

/// Server ports, where the intent has hosts: the planned server (its hostname) at each.
fn servers(plan: &Plan, observed: &[Option<&Observed>], out: &mut Vec<Finding>) {
    if plan.model.hosts.is_none() {
        return;
    }
    for (i, o) in observed.iter().enumerate() {
        let Some(lldp) = o.and_then(|o| o.lldp.as_ref()) else {
            continue;
        };
        let d = &plan.model.devices[i];
        for p in d.interfaces.iter().filter(|p| p.kind == PortKind::Server) {
            let n = lldp.iter().find(|n| n.local_port == *p.name);
            let sys = n
                .and_then(|n| n.system_name.as_deref())
                .map(|s| s.split('.').next().unwrap_or(s));
            if sys == Some(&*p.peer) {
                continue;
            }
            let nics = plan.nics.get(&(&*p.peer, d.hostname.as_str()));
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
