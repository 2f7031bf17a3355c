//! `aifab twin`: the fabric's routing, run. Each switch of the compiled fabric becomes a network
//! namespace on this machine with a veth per fabric link, one zebra and one bgpd from Debian's `frr`,
//! each reading the switch's `frr.conf` as `aifab render --os frr` writes it ([`lab`]), and one
//! Debian `lldpd` sending the port IDs the switch's OS sends ([`lldp`]). Faults may be planted first:
//! cables crossed or down ([`faults`], [`wiring`]). The twin waits until every FIB holds what the
//! analysis computes ([`crate::check::paths`]) for the fabric as cabled, and every port's lldpd heard
//! the far end cabled to it; it can write each switch's state as the switch would print it
//! ([`state`]); then, for each single link failure it is asked to try, it takes the link down, waits
//! again, compares again, looks for a path that goes down and up in the FIBs FRR installed, and brings
//! the link back.
//!
//! docs/twin.md says what it reports and how to read it.

pub mod faults;
pub mod fib;
pub mod lab;
pub mod lldp;
mod report;
pub mod state;
pub mod wiring;

use crate::check::failures::Failure;
use crate::check::paths::{Fabric, LinkId, Node};
use crate::check::pathvector::Computed;
use crate::model::{FabricModel, PortKind};
use crate::platform::Catalog;
use crate::render::OutFile;
use faults::{Faults, Planted};
use fib::Fib;
use lab::Lab;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use wiring::{Wire, Wiring};

/// What stopped a twin run (what the twin found is in its [`Report`]): privilege or a tool missing,
/// the faults, the machine too small, a switch without its config, a daemon that died, a lab command,
/// the state folder, an interruption.
#[derive(Debug, thiserror::Error)]
pub enum TwinError {
    /// A lab command failed, or the machine lacks what the lab needs.
    #[error(transparent)]
    Lab(#[from] lab::LabError),
    /// The faults cannot be planted: every problem.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Faults(Vec<faults::FaultError>),
    /// LLDP could not be set up or read.
    #[error(transparent)]
    Lldp(#[from] lldp::LldpError),
    /// The cables could not be laid.
    #[error(transparent)]
    Wiring(#[from] wiring::WiringError),
    /// A switch's routes or sessions could not be read.
    #[error(transparent)]
    Fib(#[from] fib::FibError),
    /// The state could not be written.
    #[error(transparent)]
    State(#[from] state::StateError),
    /// The fabric's switches do not fit this machine's memory.
    #[error(
        "{switches} switches do not fit: this machine has {available_mib} MiB available, enough for about {fits} switches at {ASSUMED_MIB_PER_SWITCH} MiB each (zebra, bgpd, lldpd); run the twin on a smaller fabric or a larger machine"
    )]
    TooLarge {
        /// Switches in the fabric.
        switches: usize,
        /// `MemAvailable`, MiB.
        available_mib: u64,
        /// How many switches fit.
        fits: u64,
    },
    /// No `frr.conf` was rendered for a switch.
    #[error("{device}: no frr.conf rendered")]
    NoConfig {
        /// The switch.
        device: String,
    },
    /// A daemon of a switch exited.
    #[error("{device}: {what}; its log is gone with the lab")]
    DaemonExited {
        /// The switch.
        device: String,
        /// Which daemon, and how it exited.
        what: String,
    },
    /// A link to fail has no cable in the lab.
    #[error("{link}: no cable in the lab")]
    NoCable {
        /// The link, as the report names it.
        link: String,
    },
    /// SIGINT or SIGTERM arrived.
    #[error("interrupted: the lab was removed")]
    Interrupted,
}

pub use report::{FailureReport, LeafReport, Report};

/// Memory one switch (zebra, bgpd, lldpd) is assumed to take before the twin has measured it, MiB:
/// about twice what the examples' switches take once converged.
const ASSUMED_MIB_PER_SWITCH: u64 = 64;
/// How often the FIBs are read while waiting.
const POLL: Duration = Duration::from_millis(150);
/// How long a switch's lldpd may take to list its ports before FRR's daemons start beside it.
const LLDPD_START: Duration = Duration::from_secs(5);
/// How many LLDP differences the report lists.
const LLDP_LISTED: usize = 12;

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many single link failures to try: None for every fabric link, else that many spread evenly
    /// over the links (both tiers).
    pub failures: Option<usize>,
    /// How many groups of parallel links (all links between two switches, failing together) and how
    /// many whole switches to fail as well, each spread evenly over those the fabric has.
    pub grouped: usize,
    /// How long to wait for convergence, each time.
    pub timeout: Duration,
    /// Faults to plant when the lab is built.
    pub faults: Faults,
    /// Where to write every switch's state once converged (`DIR/<hostname>/`), if anywhere.
    pub state: Option<PathBuf>,
}

/// One run's fixed parts: the model, the fabric as the lab cables it (without the faulted cables'
/// sessions), the lab's cables, and the wait.
struct Run<'a> {
    model: &'a FabricModel,
    fabric: Fabric,
    wiring: Wiring,
    timeout: Duration,
    /// Every switch's FIB as the analysis computes it with every cabled link up.
    steady: fib::Expect,
}

/// Builds the lab for `model` with `configs` (each switch's `frr.conf`, as [`crate::render::Form::Frr`]
/// renders it) and the platforms of `catalog`, runs it and removes it. Errors are what stopped the run
/// (privilege, FRR or lldpd missing, a fault that names no cable, the machine too small, a daemon that
/// died, the state folder, an interruption); what the twin found is in the report.
pub fn run(
    model: &FabricModel,
    catalog: &Catalog,
    configs: &[OutFile],
    opts: &Options,
) -> Result<Report, TwinError> {
    lab::preflight()?;
    let planned = Fabric::new(model);
    let planted = opts
        .faults
        .resolve(model, &planned)
        .map_err(TwinError::Faults)?;
    let ids = lldp::identities(model, catalog)?;
    let available = fits(model)?;
    let fabric = Fabric::new(&faults::without(model, &planned, &planted.cables()));
    let steady_routes: Vec<Computed> = origins(&fabric)
        .map(|o| fabric.compute(o, None, &|_| false, None))
        .collect();
    let run = Run {
        model,
        steady: fib::expect(model, &fabric, &steady_routes),
        fabric,
        wiring: Wiring::new(model, &planned, &planted)?,
        timeout: opts.timeout,
    };
    lab::catch_signals();
    let mut lab = Lab::new();
    build(&mut lab, &run, &ids, configs)?;
    take_down(&lab, &run)?;
    let mut report = steady(&mut lab, &run, &planted, available)?;
    lldp_check(&mut lab, &run, &ids, &mut report)?;
    if let Some(dir) = &opts.state {
        state::write(dir, &lab, model)?;
        report.state = Some(dir.display().to_string());
    }
    // Failures start from the steady state: without it they would only measure the same timeout.
    let failures = if report.converged_in.is_some() {
        failure_cases(&run.fabric, opts.failures, opts.grouped)
    } else {
        Vec::new()
    };
    for case in failures {
        check_interrupt()?;
        let f = fail_one(&mut lab, &run, case)?;
        report.failures.push(f);
    }
    Ok(report)
}

/// Whether the fabric fits this machine's memory: `MemAvailable` in KiB, or why not.
fn fits(model: &FabricModel) -> Result<u64, TwinError> {
    let available = lab::mem_available_kib();
    let fits = available / (ASSUMED_MIB_PER_SWITCH * 1024);
    if model.devices.len() as u64 > fits {
        return Err(TwinError::TooLarge {
            switches: model.devices.len(),
            available_mib: available / 1024,
            fits,
        });
    }
    Ok(available)
}

/// Waits for the steady state and reports it: sessions, FIBs against the analysis, valleys, memory.
fn steady(
    lab: &mut Lab,
    run: &Run<'_>,
    planted: &Planted,
    available: u64,
) -> Result<Report, TwinError> {
    let started = Instant::now();
    let fabric = &run.fabric;
    let all_links = vec![true; fabric.links.len()];
    let waited = settle(lab, fabric, &run.steady, &all_links, run.timeout)?;
    let converged_in = waited.converged.then(|| started.elapsed());
    let mut report = Report::new(run.model, fabric, converged_in, &waited, &run.steady);
    report.faults = planted.lines.clone();
    report.memory(lab, available);
    report.valleys = valleys(run.model, fabric, &waited.fibs, None);
    Ok(report)
}

/// Waits until every port's lldpd heard the far end the lab cabled to it (or the timeout), and
/// reports what it heard against that.
fn lldp_check(
    lab: &mut Lab,
    run: &Run<'_>,
    ids: &lldp::Identities,
    report: &mut Report,
) -> Result<(), TwinError> {
    let sending: Vec<Vec<(String, lldp::PortId)>> = (0..run.model.devices.len())
        .map(|i| {
            lldp_ports(run, i, false)
                .into_iter()
                .filter_map(|(ifname, name)| Some((ifname, ids[i].get(name)?.clone())))
                .collect()
        })
        .collect();
    report.lldp_reconfigured = lldp::confirm(lab, &sending, run.timeout)?;
    let want = run.wiring.heard(&run.fabric.names, ids);
    let got = lldp::settle(lab, &want, run.timeout)?;
    let (heard, wired, lines) = lldp::differences(&run.fabric.names, &got, &want, LLDP_LISTED);
    report.lldp = (heard, wired);
    report.lldp_differences = lines;
    Ok(())
}

/// Takes the `--down` cables down at both ends, once zebra has put each end's address on it: zebra
/// brings an interface up when it installs the address its config gives (FRR's `ip_address_install`),
/// so a port taken down before would come back up.
fn take_down(lab: &Lab, run: &Run<'_>) -> Result<(), TwinError> {
    let end = Instant::now() + run.timeout;
    for w in run.wiring.wires.iter().filter(|w| w.down) {
        for e in &w.ends {
            let ip = e.ip.to_string();
            let has_address = || {
                lab.ip_in(
                    e.node as usize,
                    &["-br", "-4", "addr", "show", "dev", &e.ifname],
                )
                .is_ok_and(|out| {
                    out.split_whitespace()
                        .any(|a| a.split('/').next() == Some(&ip))
                })
            };
            while !has_address() && Instant::now() < end {
                if !lab::nap(POLL) {
                    check_interrupt()?;
                }
            }
        }
        set_wire(lab, w, "down")?;
    }
    Ok(())
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

/// Namespaces, cables, server ports and daemons for every switch: its lldpd first (until it lists
/// its ports), then its zebra and bgpd.
fn build(
    lab: &mut Lab,
    run: &Run<'_>,
    ids: &lldp::Identities,
    configs: &[OutFile],
) -> Result<(), TwinError> {
    let model = run.model;
    for _ in &model.devices {
        lab.add_switch()?;
    }
    let ns: Vec<String> = lab.switches.iter().map(|s| s.ns.clone()).collect();
    let (links, mut per_ns) = run.wiring.ip_lines(&ns);
    // A routed server port, and the server VLAN's gateway, is a veth whose other end stays in the
    // switch's namespace (`srv<port>`, `srv-vlan`): it has carrier, so its connected route stands and
    // its `network` is announced (not every kernel has dummy interfaces).
    for (i, d) in model.devices.iter().enumerate() {
        for (name, _) in server_ports(d) {
            let peer = name.replacen("swp", "srv", 1);
            per_ns[i].push_str(&stub(&name, &peer));
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
            .ok_or_else(|| TwinError::NoConfig {
                device: d.hostname.clone(),
            })?;
        let ports = lldp_ports(run, i, true);
        lab.start_lldpd(i, &lldp::config(&d.hostname, &ids[i], &ports)?)?;
        let names: Vec<&str> = ports.iter().map(|(n, _)| n.as_str()).collect();
        lldp::wait_ports(lab, i, &names, LLDPD_START)?;
        lab.start_frr(i, &lab_config(&conf.content))?;
    }
    Ok(())
}

/// `d`'s routed server ports: Linux name and model name.
fn server_ports(d: &crate::model::Device) -> Vec<(String, &str)> {
    d.interfaces
        .iter()
        .filter(|p| p.kind == PortKind::Server && p.address.is_some())
        .map(|p| (crate::os::frr::port_name(p.port), &*p.name))
        .collect()
}

/// Switch `i`'s ports in the lab that lldpd runs on (Linux name, model name): its cable ends (those
/// left down only with `down`) and its routed server ports.
fn lldp_ports<'a>(run: &'a Run<'_>, i: usize, down: bool) -> Vec<(String, &'a str)> {
    let mut ports = run.wiring.ports_of(i as Node, down);
    ports.extend(server_ports(&run.model.devices[i]));
    ports
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

/// `ip -batch` lines for an interface `name` with carrier: a veth to `peer` in the same namespace.
fn stub(name: &str, peer: &str) -> String {
    format!("link add {name} type veth peer name {peer}\nlink set {name} up\nlink set {peer} up\n")
}

fn origins(fabric: &Fabric) -> impl Iterator<Item = Node> + '_ {
    0..fabric.len() as Node
}

/// [`TwinError::Interrupted`] once SIGINT or SIGTERM arrived.
fn check_interrupt() -> Result<(), TwinError> {
    if lab::interrupted() {
        Err(TwinError::Interrupted)
    } else {
        Ok(())
    }
}

/// Reads every switch's kernel FIB.
fn read_fibs(lab: &Lab) -> Result<Vec<Fib>, TwinError> {
    (0..lab.switches.len())
        .into_par_iter()
        .map(|i| {
            let json = lab.ip_in(i, &["-j", "route", "show", "proto", "bgp"])?;
            Ok(fib::parse_kernel(if json.trim().is_empty() {
                "[]"
            } else {
                &json
            })?)
        })
        .collect()
}

/// Reads every switch's BGP sessions: (up, configured) each, counting only sessions on `live` links.
fn read_sessions(
    lab: &Lab,
    fabric: &Fabric,
    live: &[bool],
) -> Result<Vec<(usize, usize)>, TwinError> {
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

/// How long FIBs that are an outcome of the eBGP tie-break other than the router-id one must stay
/// unchanged to count as settled (FRR may pass through such a state on its way to another).
const TIE_STABLE: Duration = Duration::from_secs(2);

/// Waits until every FIB is what `want` allows and every session on a `live` link is up, or
/// `timeout`: the router-id outcome at once, another outcome the tie-break allows once it has held
/// for [`TIE_STABLE`].
fn settle(
    lab: &mut Lab,
    fabric: &Fabric,
    want: &fib::Expect,
    live: &[bool],
    timeout: Duration,
) -> Result<Settled, TwinError> {
    let end = Instant::now() + timeout;
    let mut last: Option<(Vec<Fib>, Instant)> = None;
    loop {
        if let Some((i, what)) = lab.dead_daemon() {
            return Err(TwinError::DaemonExited {
                device: fabric.names[i].to_string(),
                what,
            });
        }
        check_interrupt()?;
        let fibs = read_fibs(lab)?;
        let now = Instant::now();
        let since = match last.take() {
            Some((prev, t)) if prev == fibs => t,
            _ => now,
        };
        let allowed = fibs.iter().enumerate().all(|(i, g)| want.holds(i, g));
        let same = want.exact(&fibs) || (allowed && now - since >= TIE_STABLE);
        last = Some((fibs.clone(), since));
        let last = now >= end;
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

/// The failures to try: `links` single links ([`pick`]), then `grouped` groups of parallel links
/// and `grouped` whole switches, each spread evenly over those of the fabric.
pub fn failure_cases(fabric: &Fabric, links: Option<usize>, grouped: usize) -> Vec<Failure> {
    let mut out: Vec<Failure> = pick(fabric.links.len(), links)
        .into_iter()
        .map(Failure::Link)
        .collect();
    if grouped == 0 {
        return out;
    }
    let sets = fabric.failure_sets();
    for parallel in [true, false] {
        let kind: Vec<Failure> = sets
            .iter()
            .copied()
            .filter(|f| matches!(f, Failure::Parallel(..)) == parallel && f.link().is_none())
            .collect();
        let chosen = pick(kind.len(), Some(grouped));
        out.extend(chosen.into_iter().map(|i| kind[i as usize]));
    }
    out
}

/// The name of failure `f` in the report: the link (`a:port—b:port`), the parallel links, the switch.
fn failure_name(fabric: &Fabric, f: Failure) -> String {
    let name = |n: Node| &*fabric.names[n as usize];
    match f {
        Failure::Link(l) => fabric.link_name(l),
        Failure::Parallel(a, b) => format!("every link between {} and {}", name(a), name(b)),
        Failure::Switch(n) => format!("switch {} (every link of it)", name(n)),
    }
}

/// Takes the links of failure `f` (of the fabric as cabled) down, a whole switch as every link of it,
/// waits for the FIBs the analysis computes for that failure, compares, looks for valleys, and brings
/// the links back (waiting for the steady state again).
fn fail_one(lab: &mut Lab, run: &Run<'_>, f: Failure) -> Result<FailureReport, TwinError> {
    let (model, fabric) = (run.model, &run.fabric);
    let taken: Vec<LinkId> = (0..fabric.links.len() as LinkId)
        .filter(|&l| f.takes(fabric, l))
        .collect();
    let mut wires = Vec::with_capacity(taken.len());
    for &l in &taken {
        let k = &fabric.links[l as usize];
        let wire = run
            .wiring
            .planned(k.a, &k.a_port)
            .ok_or_else(|| TwinError::NoCable {
                link: fabric.link_name(l),
            })?;
        wires.push(wire);
    }
    let down_link = |l: LinkId| f.takes(fabric, l);
    let computed: Vec<Computed> = origins(fabric)
        .map(|o| fabric.compute(o, f.link(), &down_link, f.switch()))
        .collect();
    let want = fib::expect(model, fabric, &computed);
    let live: Vec<bool> = (0..fabric.links.len() as LinkId)
        .map(|l| !f.takes(fabric, l))
        .collect();
    let t0 = Instant::now();
    for wire in &wires {
        set_wire(lab, wire, "down")?;
    }
    let down = settle(lab, fabric, &want, &live, run.timeout)?;
    let reconverged_in = down.converged.then(|| t0.elapsed());
    let mut mismatches = fib::all_differences(&fabric.names, &down.fibs, &want);
    let valley = valleys(model, fabric, &down.fibs, f.link());
    for wire in &wires {
        restore(lab, wire)?;
    }
    let all = vec![true; fabric.links.len()];
    let back = settle(lab, fabric, &run.steady, &all, run.timeout)?;
    if !back.converged {
        mismatches.extend(not_restored(fabric, &back, &run.steady));
    }
    let leaves = report::leaves(model, fabric, &down.fibs);
    let narrowed = leaves
        .iter()
        .filter(|x| x.reached.1 > 0 && x.ecmp.0 < x.uplinks)
        .count();
    let narrowest = leaves
        .iter()
        .filter(|x| x.reached.1 > 0)
        .map(|x| x.ecmp.0)
        .min();
    Ok(FailureReport {
        leaves_reaching: (
            leaves.iter().filter(|x| x.reached.0 == x.reached.1).count(),
            leaves.len(),
        ),
        narrowed: (narrowed, narrowest.unwrap_or(0)),
        link: failure_name(fabric, f),
        reconverged_in,
        sessions: total(&down.sessions),
        mismatches,
        valley: valley.into_iter().next(),
        analysis_valley: analysis_valley(fabric, &computed),
        restored: back.converged,
    })
}

/// Sessions up and expected, over every switch.
fn total(sessions: &[(usize, usize)]) -> (usize, usize) {
    sessions.iter().fold((0, 0), |a, s| (a.0 + s.0, a.1 + s.1))
}

/// The first path that goes down and up in the analysis (its router-id outcome, else one the eBGP
/// tie-break allows), as a line.
fn analysis_valley(fabric: &Fabric, computed: &[Computed]) -> Option<String> {
    computed
        .iter()
        .filter(|c| fabric.tier[c.routes.origin as usize] == 0)
        .find_map(|c| {
            c.valley_any(fabric).map(|v| {
                format!(
                    "towards {}: {}",
                    fabric.names[c.routes.origin as usize],
                    fabric.path_text(&v.path)
                )
            })
        })
}

/// Sets both ends of `wire` `up` or `down`.
fn set_wire(lab: &Lab, wire: &Wire, state: &str) -> Result<(), lab::LabError> {
    for e in &wire.ends {
        lab.ip_in(e.node as usize, &["link", "set", &e.ifname, state])?;
    }
    Ok(())
}

/// Brings `wire` back up as it was built (taking a port down dropped its permanent neighbor entry),
/// and asks both ends to reconnect now rather than at their next connect retry.
fn restore(lab: &Lab, wire: &Wire) -> Result<(), lab::LabError> {
    set_wire(lab, wire, "up")?;
    let [a, b] = &wire.ends;
    for (near, far) in [(a, b), (b, a)] {
        lab.batch(Some(near.node as usize), &wiring::pin(near, far))?;
    }
    for (near, far) in [(a, b), (b, a)] {
        let _ = lab.vtysh(near.node as usize, &format!("clear bgp {}", far.ip));
    }
    Ok(())
}

/// What differs once a failed link is back and the steady state did not return.
fn not_restored(fabric: &Fabric, back: &Settled, steady: &fib::Expect) -> Vec<String> {
    let mut out: Vec<String> = fib::all_differences(&fabric.names, &back.fibs, steady)
        .into_iter()
        .map(|m| format!("once the link is back: {m}"))
        .collect();
    let (up, want) = total(&back.sessions);
    if up < want {
        out.push(format!("once the link is back: {up} of {want} sessions up"));
    }
    out
}
