//! What `aifab twin` found, and its text.

use super::Settled;
use super::fib::{self, Fib};
use super::lab::{self, Lab};
use crate::check::paths::{Fabric, Node};
use crate::kinds::Role;
use crate::model::FabricModel;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// The twin's findings.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Fabric name.
    pub fabric: String,
    /// Switches run.
    pub switches: usize,
    /// Fabric links (veth pairs), each one eBGP session.
    pub links: usize,
    /// The faults planted (`--swap`, `--down`), one line each. With faults, the analysis the FIBs are
    /// compared with is of the fabric as cabled: the faulted cables' sessions are left out.
    pub faults: Vec<String>,
    /// Sessions Established once converged, of those configured (each link counted at both ends).
    pub sessions: (usize, usize),
    /// Time from the last daemon's start until every FIB held what the analysis computes and every
    /// session was up; None when that did not happen within the timeout.
    #[serde(serialize_with = "millis")]
    pub converged_in: Option<Duration>,
    /// Per leaf, its routes to the other leaves.
    pub leaves: Vec<LeafReport>,
    /// Where FRR's FIBs differ from the analysis with every link up.
    pub mismatches: Vec<String>,
    /// LLDP once converged: neighbours heard as the lab cabled them, of those cabled (each cable that
    /// is up counted at both ends).
    pub lldp: (usize, usize),
    /// Where what the lldpds heard differs from the cabling.
    pub lldp_differences: Vec<String>,
    /// Ports whose lldpd did not send their port ID after its start-up configuration and were
    /// configured again (its `lldpcli` ran before lldpd knew the port).
    pub lldp_reconfigured: usize,
    /// The state folder written (`--state`).
    pub state: Option<String>,
    /// Paths that go down and up in FRR's FIBs with every link up.
    pub valleys: Vec<String>,
    /// Each single link failure tried.
    pub failures: Vec<FailureReport>,
    /// Resident memory of one switch's zebra, bgpd and lldpd once converged, KiB (the mean).
    pub kib_per_switch: u64,
    /// MemAvailable before the lab was built, KiB.
    pub kib_available: u64,
    /// Switches this machine holds at that memory per switch.
    pub capacity: u64,
}

/// One leaf's routes to the other leaves' server prefixes and loopbacks.
#[derive(Clone, Debug, Serialize)]
pub struct LeafReport {
    /// Hostname.
    pub leaf: String,
    /// Its plane (two-plane fabrics).
    pub plane: Option<u32>,
    /// Other leaves whose every prefix it has a route to, of the other leaves its plane holds.
    pub reached: (usize, usize),
    /// Other leaves in other planes: no fabric path joins them, and none is expected.
    pub other_planes: usize,
    /// Prefixes of other leaves in its FIB.
    pub prefixes: usize,
    /// Fewest and most next hops over those prefixes.
    pub ecmp: (usize, usize),
    /// Its uplinks (BGP sessions to the tier above): full ECMP uses every one.
    pub uplinks: usize,
}

/// One failure: a link, every link between two switches, or a whole switch.
#[derive(Clone, Debug, Serialize)]
pub struct FailureReport {
    /// What failed: the link (`a:port—b:port`), `every link between A and B`, or `switch S (every
    /// link of it)`.
    pub link: String,
    /// Time from taking it down until every FIB held what the analysis computes for the failure.
    #[serde(serialize_with = "millis")]
    pub reconverged_in: Option<Duration>,
    /// Sessions up, of those on the links still up.
    pub sessions: (usize, usize),
    /// Where FRR's FIBs differ from the analysis.
    pub mismatches: Vec<String>,
    /// A path that goes down and up in FRR's FIBs.
    pub valley: Option<String>,
    /// A path that goes down and up in the analysis.
    pub analysis_valley: Option<String>,
    /// The steady state came back once the link was up again.
    pub restored: bool,
    /// With the link down: leaves that still reach every other leaf of their plane, of all leaves.
    pub leaves_reaching: (usize, usize),
    /// With the link down: leaves whose ECMP width to some leaf fell below their uplinks, and the
    /// narrowest width (the leaf at the failed link's end loses that uplink: full ECMP is one less).
    pub narrowed: (usize, usize),
}

fn millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&(d.as_millis() as u64)),
        None => s.serialize_none(),
    }
}

impl FailureReport {
    /// FRR agrees with the analysis, reconverged, shows no valley and came back.
    pub fn ok(&self) -> bool {
        self.reconverged_in.is_some()
            && self.mismatches.is_empty()
            && self.valley.is_none()
            && self.analysis_valley.is_none()
            && self.restored
            && self.sessions.0 == self.sessions.1
    }
}

impl Report {
    /// The steady-state part of the report.
    pub(super) fn new(
        model: &FabricModel,
        fabric: &Fabric,
        converged_in: Option<Duration>,
        settled: &Settled,
        want: &fib::Expect,
    ) -> Report {
        let mismatches = fib::all_differences(&fabric.names, &settled.fibs, want);
        let sessions = settled
            .sessions
            .iter()
            .fold((0, 0), |a, s| (a.0 + s.0, a.1 + s.1));
        Report {
            fabric: model.name.clone(),
            switches: model.devices.len(),
            links: fabric.links.len(),
            faults: Vec::new(),
            sessions,
            converged_in,
            leaves: leaves(model, fabric, &settled.fibs),
            mismatches,
            lldp: (0, 0),
            lldp_differences: Vec::new(),
            lldp_reconfigured: 0,
            state: None,
            valleys: Vec::new(),
            failures: Vec::new(),
            kib_per_switch: 0,
            kib_available: 0,
            capacity: 0,
        }
    }

    /// Measures the daemons' memory and what it makes of this machine.
    pub(super) fn memory(&mut self, lab: &Lab, available_before: u64) {
        let pids = lab.daemon_pids();
        let total: u64 = pids.iter().map(|&p| lab::rss_kib(p)).sum();
        self.kib_per_switch = total / (self.switches.max(1) as u64);
        self.kib_available = available_before;
        self.capacity = available_before / self.kib_per_switch.max(1);
    }

    /// Everything held: sessions up, converged, FRR equal to the analysis, no valley, every LLDP
    /// neighbour heard as cabled, full ECMP and full reach in each plane, every failure tried fine.
    /// With faults planted, reach and full ECMP are the faults' doing and do not count: what counts
    /// is that FRR routes the fabric as cabled as the analysis does.
    pub fn ok(&self) -> bool {
        let full = |l: &LeafReport| {
            l.reached.0 == l.reached.1 && (l.reached.1 == 0 || l.ecmp.0 == l.uplinks)
        };
        self.sessions.0 == self.sessions.1
            && self.converged_in.is_some()
            && self.mismatches.is_empty()
            && self.valleys.is_empty()
            && self.lldp_differences.is_empty()
            && (!self.faults.is_empty() || self.leaves.iter().all(full))
            && self.failures.iter().all(FailureReport::ok)
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.steady_text(&mut s);
        self.lldp_text(&mut s);
        self.leaves_text(&mut s);
        self.failures_text(&mut s);
        let _ = writeln!(
            s,
            "memory: {:.1} MiB per switch (zebra, bgpd and lldpd, resident); {} MiB available here: this machine holds about {} switches",
            self.kib_per_switch as f64 / 1024.0,
            self.kib_available / 1024,
            self.capacity
        );
        s
    }

    /// The sessions, convergence and valleys of the steady state (and the faults planted).
    fn steady_text(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "twin of {}: {} switches, {} links, one zebra and one bgpd (FRR) and one lldpd per switch",
            self.fabric, self.switches, self.links
        );
        if !self.faults.is_empty() {
            let _ = writeln!(
                s,
                "FAULTS planted: {} (below, the analysis is of the fabric as cabled, without these cables' sessions)",
                self.faults.len()
            );
            for f in &self.faults {
                let _ = writeln!(s, "  {f}");
            }
        }
        let _ = writeln!(
            s,
            "sessions: {} of {} established",
            self.sessions.0, self.sessions.1
        );
        match self.converged_in {
            Some(d) => {
                let _ = writeln!(
                    s,
                    "converged in {:.1} s: every FIB holds the routes the analysis computes",
                    d.as_secs_f64()
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "NOT converged within the timeout (no link failure was tried)"
                );
            }
        }
        for l in &self.mismatches {
            let _ = writeln!(s, "  differs: {l}");
        }
        for v in &self.valleys {
            let _ = writeln!(s, "  VALLEY (down and up) {v}");
        }
    }

    /// LLDP: the neighbours heard as cabled, and where the state was written.
    fn lldp_text(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "lldp: {} of {} neighbours heard as cabled",
            self.lldp.0, self.lldp.1
        );
        if self.lldp_reconfigured > 0 {
            let _ = writeln!(
                s,
                "  {} ports configured again: lldpd did not send their port ID after its start-up configuration",
                self.lldp_reconfigured
            );
        }
        for l in &self.lldp_differences {
            let _ = writeln!(s, "  differs: {l}");
        }
        if let Some(dir) = &self.state {
            let _ = writeln!(s, "state written to {dir}");
        }
    }

    /// Per leaf, the routes to the other leaves.
    fn leaves_text(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "per leaf, routes to the other leaves' server prefixes and loopbacks:"
        );
        for l in &self.leaves {
            let plane = l.plane.map(|p| format!(" (plane {p})")).unwrap_or_default();
            let others = if l.other_planes > 0 {
                format!("; {} in the other plane, not joined", l.other_planes)
            } else {
                String::new()
            };
            let ecmp = if l.ecmp.0 == l.ecmp.1 {
                format!("ECMP {}", l.ecmp.0)
            } else {
                format!("ECMP {}-{}", l.ecmp.0, l.ecmp.1)
            };
            let full = if l.reached.1 == 0 {
                "no other leaf in its plane".to_string()
            } else if l.ecmp.0 == l.uplinks {
                "full".to_string()
            } else {
                "NOT full".to_string()
            };
            let _ = writeln!(
                s,
                "  {}{plane}: {}/{} leaves, {} prefixes, {ecmp} of {} uplinks ({full}){others}",
                l.leaf, l.reached.0, l.reached.1, l.prefixes, l.uplinks
            );
        }
    }

    /// The failures tried and how each reconverged.
    fn failures_text(&self, s: &mut String) {
        if self.failures.is_empty() {
            return;
        }
        let ok = self.failures.iter().filter(|f| f.ok()).count();
        let _ = writeln!(
            s,
            "failures (single links, then groups of parallel links and whole switches with --grouped): {} tried, {ok} reconverged to the analysis's FIBs without a valley",
            self.failures.len()
        );
        let times: Vec<f64> = self
            .failures
            .iter()
            .filter_map(|f| f.reconverged_in.map(|d| d.as_secs_f64()))
            .collect();
        if !times.is_empty() {
            let max = times.iter().copied().fold(0.0, f64::max);
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            let _ = writeln!(s, "  reconvergence: mean {mean:.1} s, at most {max:.1} s");
        }
        let reaching = self
            .failures
            .iter()
            .filter(|f| f.leaves_reaching.0 == f.leaves_reaching.1)
            .count();
        let narrowest = self
            .failures
            .iter()
            .map(|f| f.narrowed.1)
            .min()
            .unwrap_or(0);
        let _ = writeln!(
            s,
            "  reach: every leaf kept every other leaf of its plane after {reaching} of {} failures; the narrowest ECMP left: {narrowest} next hops",
            self.failures.len()
        );
        for f in self.failures.iter().filter(|f| !f.ok()) {
            let _ = writeln!(s, "  {}:", f.link);
            if f.reconverged_in.is_none() {
                let _ = writeln!(s, "    did not reconverge within the timeout");
            }
            for m in &f.mismatches {
                let _ = writeln!(s, "    differs: {m}");
            }
            if let Some(v) = &f.valley {
                let _ = writeln!(s, "    VALLEY in FRR's FIBs {v}");
            }
            if let Some(v) = &f.analysis_valley {
                let _ = writeln!(s, "    valley in the analysis: {v}");
            }
            if !f.restored {
                let _ = writeln!(s, "    the steady state did not come back");
            }
        }
    }
}

/// Per leaf: the other leaves it reaches, its ECMP widths and its uplinks.
pub(super) fn leaves(model: &FabricModel, fabric: &Fabric, fibs: &[Fib]) -> Vec<LeafReport> {
    let leaf_ids: Vec<usize> = (0..fabric.len())
        .filter(|&i| model.devices[i].role == Role::Leaf)
        .collect();
    leaf_ids
        .iter()
        .map(|&i| {
            let d = &model.devices[i];
            let (mut reached, mut total, mut other_planes, mut prefixes) = (0, 0, 0, 0);
            let (mut lo, mut hi) = (usize::MAX, 0);
            for &j in leaf_ids.iter().filter(|&&j| j != i) {
                let e = &model.devices[j];
                if d.plane.is_some() && e.plane != d.plane {
                    other_planes += 1;
                    continue;
                }
                total += 1;
                let mut all = true;
                for p in &e.bgp.networks {
                    match fibs[i].get(&**p) {
                        Some(h) => {
                            prefixes += 1;
                            lo = lo.min(h.len());
                            hi = hi.max(h.len());
                        }
                        None => all = false,
                    }
                }
                if all {
                    reached += 1;
                }
            }
            LeafReport {
                leaf: d.hostname.clone(),
                plane: d.plane,
                reached: (reached, total),
                other_planes,
                prefixes,
                ecmp: (if lo == usize::MAX { 0 } else { lo }, hi),
                uplinks: fabric
                    .links_of(i as Node)
                    .iter()
                    .filter(|&&(_, l)| fabric.is_up(i as Node, l))
                    .count(),
            }
        })
        .collect()
}
