//! `aifab twin`: the fabric's routing, run. Each switch of the compiled fabric becomes a network
//! namespace on this machine with a veth per fabric link and one zebra and one bgpd from Debian's
//! `frr`, each reading the switch's `frr.conf` as `aifab render --os frr` writes it ([`lab`]). The
//! twin waits until every FIB holds what the analysis computes ([`crate::check::paths`]), then, for
//! each single link failure it is asked to try, takes the link down, waits again, compares again,
//! looks for a path that goes down and up in the FIBs FRR installed, and brings the link back.
//!
//! docs/twin.md says what it reports and how to read it.

pub mod fib;
pub mod lab;
mod report;

use crate::check::paths::{Fabric, LinkId, Node, Routes};
use crate::model::{Device, FabricModel, PortKind};
use crate::render::OutFile;
use fib::Fib;
use lab::Lab;
use rayon::prelude::*;
use std::time::{Duration, Instant};

pub use report::{FailureReport, LeafReport, Report};

/// Memory one switch (zebra + bgpd) is assumed to take before the twin has measured it, MiB: about
/// twice what the examples' switches take once converged.
const ASSUMED_MIB_PER_SWITCH: u64 = 64;
/// How often the FIBs are read while waiting.
const POLL: Duration = Duration::from_millis(150);

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many single link failures to try: None for every fabric link, else that many spread evenly
    /// over the links (both tiers).
    pub failures: Option<usize>,
    /// How long to wait for convergence, each time.
    pub timeout: Duration,
}

/// Builds the lab for `model` with `configs` (each switch's `frr.conf`, as [`crate::render::Form::Frr`]
/// renders it), runs it and removes it. Errors are what stopped the run (privilege, FRR missing, the
/// machine too small, a daemon that died, an interruption); what the twin found is in the report.
pub fn run(model: &FabricModel, configs: &[OutFile], opts: &Options) -> Result<Report, String> {
    lab::preflight()?;
    let fabric = Fabric::new(model);
    let available = lab::mem_available_kib();
    let fits = available / (ASSUMED_MIB_PER_SWITCH * 1024);
    if model.devices.len() as u64 > fits {
        return Err(format!(
            "{} switches do not fit: this machine has {} MiB available, enough for about {fits} switches at {ASSUMED_MIB_PER_SWITCH} MiB each (zebra + bgpd); run the twin on a smaller fabric or a larger machine",
            model.devices.len(),
            available / 1024
        ));
    }
    lab::catch_signals();
    let mut lab = Lab::new();
    build(&mut lab, model, &fabric, configs)?;
    let started = Instant::now();
    let steady_routes: Vec<Routes> = origins(&fabric).map(|o| fabric.select(o, None)).collect();
    let steady = fib::expected(model, &fabric, &steady_routes);
    let all_links = vec![true; fabric.links.len()];
    let waited = settle(&mut lab, &fabric, &steady, &all_links, opts.timeout)?;
    let converged_in = waited.converged.then(|| started.elapsed());
    let mut report = Report::new(model, &fabric, converged_in, &waited, &steady);
    report.memory(&lab, available);
    report.valleys = valleys(model, &fabric, &waited.fibs, None);
    // Failures start from the steady state: without it they would only measure the same timeout.
    let failures = if converged_in.is_some() {
        pick(fabric.links.len(), opts.failures)
    } else {
        Vec::new()
    };
    for l in failures {
        check_interrupt()?;
        report.failures.push(fail_one(
            &mut lab,
            model,
            &fabric,
            l,
            &steady,
            opts.timeout,
        )?);
    }
    Ok(report)
}

/// What a wait for convergence ended with.
pub struct Settled {
    /// Every FIB equals the analysis and every live link's sessions are up.
    pub converged: bool,
    /// The FIBs read last, per switch.
    pub fibs: Vec<Fib>,
    /// Sessions up and expected, per switch.
    pub sessions: Vec<(usize, usize)>,
}

/// Namespaces, links, server ports and daemons for every switch.
fn build(
    lab: &mut Lab,
    model: &FabricModel,
    fabric: &Fabric,
    configs: &[OutFile],
) -> Result<(), String> {
    for _ in &model.devices {
        lab.add_switch()?;
    }
    let mut links = String::new();
    let mut per_ns: Vec<String> = vec![String::new(); model.devices.len()];
    for (l, k) in fabric.links.iter().enumerate() {
        let (pa, pb) = (
            port_of(&model.devices[k.a as usize], &k.a_port)?,
            port_of(&model.devices[k.b as usize], &k.b_port)?,
        );
        let (na, nb) = (
            &lab.switches[k.a as usize].ns,
            &lab.switches[k.b as usize].ns,
        );
        let (ma, mb) = (mac(l as LinkId, 0), mac(l as LinkId, 1));
        links.push_str(&format!(
            "link add {pa} netns {na} address {ma} type veth peer name {pb} netns {nb} address {mb}\n"
        ));
        // Each end knows the other's MAC for good: the kernel's ARP table is one for every namespace
        // and holds 1,024 learned entries by default (gc_thresh3), which a lab of more than 512 links
        // would outgrow; permanent entries do not count.
        per_ns[k.a as usize].push_str(&format!(
            "link set {pa} up\nneigh replace {} lladdr {mb} dev {pa} nud permanent\n",
            k.b_ip
        ));
        per_ns[k.b as usize].push_str(&format!(
            "link set {pb} up\nneigh replace {} lladdr {ma} dev {pb} nud permanent\n",
            k.a_ip
        ));
    }
    // A routed server port, and the server VLAN's gateway, is a veth whose other end stays in the
    // switch's namespace (`srv<port>`, `srv-vlan`): it has carrier, so its connected route stands and
    // its `network` is announced (not every kernel has dummy interfaces).
    for (i, d) in model.devices.iter().enumerate() {
        for p in d
            .interfaces
            .iter()
            .filter(|p| p.kind == PortKind::Server && p.address.is_some())
        {
            let name = crate::os::frr::port_name(p.port);
            per_ns[i].push_str(&stub(&name, &format!("srv{}", p.port)));
        }
        if let Some(s) = &d.server_subnet {
            per_ns[i].push_str(&stub(&crate::os::frr::vlan_name(s.vlan), "srv-vlan"));
        }
    }
    lab.batch(None, &links)?;
    for (i, lines) in per_ns.iter().enumerate() {
        if !lines.is_empty() {
            lab.batch(Some(i), lines)?;
        }
    }
    for (i, d) in model.devices.iter().enumerate() {
        check_interrupt()?;
        let conf = configs
            .iter()
            .find(|f| f.device == d.hostname)
            .ok_or_else(|| format!("{}: no frr.conf rendered", d.hostname))?;
        lab.start_frr(i, &lab_config(&conf.content))?;
    }
    Ok(())
}

/// The lab's config of a switch: its rendered `frr.conf` with one zebra line after the profile line,
/// `no zebra nexthop kernel enable`: routes go to the kernel with their next hops inline rather than
/// as kernel nexthop groups. With groups, Debian 12's FRR 8.4 left a group without the next hop whose
/// link came back after a failure, while zebra showed both installed (seen in the twin's failure
/// sweep), so the kernel's FIB no longer said what FRR chose.
pub fn lab_config(rendered: &str) -> String {
    let (first, rest) = rendered.split_once('\n').unwrap_or((rendered, ""));
    format!(
        "{first}\n! aifab twin: kernel routes with inline next hops (docs/twin.md#what-the-lab-adds)\nno zebra nexthop kernel enable\n{rest}"
    )
}

/// The MAC of end `end` (0 or 1) of the `l`-th link: locally administered, unique in the lab.
fn mac(l: u32, end: u8) -> String {
    let b = l.to_be_bytes();
    format!("02:af:{:02x}:{:02x}:{:02x}:{end:02x}", b[1], b[2], b[3])
}

/// `ip -batch` lines for an interface `name` with carrier: a veth to `peer` in the same namespace.
fn stub(name: &str, peer: &str) -> String {
    format!("link add {name} type veth peer name {peer}\nlink set {name} up\nlink set {peer} up\n")
}

/// The Linux name of `d`'s port named `name` (its OS name in the model).
fn port_of(d: &Device, name: &str) -> Result<String, String> {
    d.interfaces
        .iter()
        .find(|i| &*i.name == name)
        .map(|i| crate::os::frr::port_name(i.port))
        .ok_or_else(|| format!("{}: no port {name}", d.hostname))
}

fn origins(fabric: &Fabric) -> impl Iterator<Item = Node> + '_ {
    0..fabric.len() as Node
}

fn check_interrupt() -> Result<(), String> {
    if lab::interrupted() {
        Err("interrupted: the lab was removed".into())
    } else {
        Ok(())
    }
}

/// Reads every switch's kernel FIB.
fn read_fibs(lab: &Lab) -> Result<Vec<Fib>, String> {
    (0..lab.switches.len())
        .into_par_iter()
        .map(|i| {
            let json = lab.ip_in(i, &["-j", "route", "show", "proto", "bgp"])?;
            fib::parse_kernel(if json.trim().is_empty() { "[]" } else { &json })
        })
        .collect()
}

/// Reads every switch's BGP sessions: (up, configured) each, counting only sessions on `live` links.
fn read_sessions(lab: &Lab, fabric: &Fabric, live: &[bool]) -> Result<Vec<(usize, usize)>, String> {
    (0..lab.switches.len())
        .into_par_iter()
        .map(|i| {
            let s = fib::parse_sessions(&lab.vtysh(i, "show bgp summary json")?)?;
            let mut up = 0;
            let mut want = 0;
            for &(_, l) in fabric.links_of(i as Node) {
                if !live[l as usize] {
                    continue;
                }
                want += 1;
                let k = &fabric.links[l as usize];
                if s.get(&k.ip_of(k.other(i as Node))) == Some(&true) {
                    up += 1;
                }
            }
            Ok((up, want))
        })
        .collect()
}

/// Waits until every FIB equals `want` and every session on a `live` link is up, or `timeout`.
fn settle(
    lab: &mut Lab,
    fabric: &Fabric,
    want: &[Fib],
    live: &[bool],
    timeout: Duration,
) -> Result<Settled, String> {
    let end = Instant::now() + timeout;
    loop {
        if let Some((i, what)) = lab.dead_daemon() {
            return Err(format!(
                "{}: {what}; its log is gone with the lab",
                fabric.names[i]
            ));
        }
        check_interrupt()?;
        let fibs = read_fibs(lab)?;
        let same = fibs.iter().zip(want).all(|(g, w)| g == w);
        let last = Instant::now() >= end;
        if same || last {
            let sessions = read_sessions(lab, fabric, live)?;
            let up = sessions.iter().all(|(u, w)| u == w);
            if (same && up) || last {
                return Ok(Settled {
                    converged: same && up,
                    fibs,
                    sessions,
                });
            }
        }
        if !lab::nap(POLL) {
            check_interrupt()?;
        }
    }
}

/// Valleys in the FIBs FRR installed, one line each, towards every leaf.
fn valleys(
    model: &FabricModel,
    fabric: &Fabric,
    fibs: &[Fib],
    failed: Option<LinkId>,
) -> Vec<String> {
    let mut out = Vec::new();
    for o in origins(fabric).filter(|&o| fabric.tier[o as usize] == 0) {
        let r = fib::installed(model, fabric, fibs, o, failed);
        if let Some(v) = fabric.valley(&r) {
            out.push(format!(
                "towards {}: {}",
                fabric.names[o as usize],
                fabric.path_text(&v.path)
            ));
        }
    }
    out
}

/// `n` of `len` links spread evenly (all of them for None or n >= len).
pub fn pick(len: usize, n: Option<usize>) -> Vec<LinkId> {
    match n {
        Some(n) if n < len => (0..n).map(|k| (k * len / n) as LinkId).collect(),
        _ => (0..len as LinkId).collect(),
    }
}

/// Takes link `l` down, waits for the FIBs the analysis computes for that failure, compares, looks for
/// valleys, and brings the link back (waiting for the steady state again).
fn fail_one(
    lab: &mut Lab,
    model: &FabricModel,
    fabric: &Fabric,
    l: LinkId,
    steady: &[Fib],
    timeout: Duration,
) -> Result<FailureReport, String> {
    let k = &fabric.links[l as usize];
    let (pa, pb) = (
        port_of(&model.devices[k.a as usize], &k.a_port)?,
        port_of(&model.devices[k.b as usize], &k.b_port)?,
    );
    let routes: Vec<Routes> = origins(fabric).map(|o| fabric.select(o, Some(l))).collect();
    let want = fib::expected(model, fabric, &routes);
    let analysis_valley = routes
        .iter()
        .filter(|r| fabric.tier[r.origin as usize] == 0)
        .find_map(|r| {
            fabric.valley(r).map(|v| {
                format!(
                    "towards {}: {}",
                    fabric.names[r.origin as usize],
                    fabric.path_text(&v.path)
                )
            })
        });
    let mut live = vec![true; fabric.links.len()];
    live[l as usize] = false;
    let t0 = Instant::now();
    lab.ip_in(k.a as usize, &["link", "set", &pa, "down"])?;
    lab.ip_in(k.b as usize, &["link", "set", &pb, "down"])?;
    let down = settle(lab, fabric, &want, &live, timeout)?;
    let reconverged_in = down.converged.then(|| t0.elapsed());
    let mut mismatches = fib::all_differences(&fabric.names, &down.fibs, &want);
    let valley = valleys(model, fabric, &down.fibs, Some(l));
    // Back up, and both ends asked to reconnect now rather than at their next connect retry.
    lab.ip_in(k.a as usize, &["link", "set", &pa, "up"])?;
    lab.ip_in(k.b as usize, &["link", "set", &pb, "up"])?;
    // Taking a port down dropped its permanent neighbor entry: back as it was built.
    let (ma, mb) = (mac(l, 0), mac(l, 1));
    let (ia, ib) = (k.a_ip.to_string(), k.b_ip.to_string());
    lab.ip_in(
        k.a as usize,
        &[
            "neigh",
            "replace",
            &ib,
            "lladdr",
            &mb,
            "dev",
            &pa,
            "nud",
            "permanent",
        ],
    )?;
    lab.ip_in(
        k.b as usize,
        &[
            "neigh",
            "replace",
            &ia,
            "lladdr",
            &ma,
            "dev",
            &pb,
            "nud",
            "permanent",
        ],
    )?;
    let _ = lab.vtysh(k.a as usize, &format!("clear bgp {}", k.b_ip));
    let _ = lab.vtysh(k.b as usize, &format!("clear bgp {}", k.a_ip));
    let all = vec![true; fabric.links.len()];
    let back = settle(lab, fabric, steady, &all, timeout)?;
    if !back.converged {
        mismatches.extend(
            fib::all_differences(&fabric.names, &back.fibs, steady)
                .into_iter()
                .map(|m| format!("once the link is back: {m}")),
        );
        let (up, want) = back
            .sessions
            .iter()
            .fold((0, 0), |a, s| (a.0 + s.0, a.1 + s.1));
        if up < want {
            mismatches.push(format!("once the link is back: {up} of {want} sessions up"));
        }
    }
    let sessions = down
        .sessions
        .iter()
        .fold((0, 0), |a, s| (a.0 + s.0, a.1 + s.1));
    let leaves = report::leaves(model, fabric, &down.fibs);
    let reaching = leaves.iter().filter(|x| x.reached.0 == x.reached.1).count();
    let narrowed = leaves
        .iter()
        .filter(|x| x.reached.1 > 0 && x.ecmp.0 < x.uplinks)
        .count();
    let narrowest = leaves
        .iter()
        .filter(|x| x.reached.1 > 0)
        .map(|x| x.ecmp.0)
        .min()
        .unwrap_or(0);
    Ok(FailureReport {
        leaves_reaching: (reaching, leaves.len()),
        narrowed: (narrowed, narrowest),
        link: fabric.link_name(l),
        reconverged_in,
        sessions,
        mismatches,
        valley: valley.into_iter().next(),
        analysis_valley,
        restored: back.converged,
    })
}
