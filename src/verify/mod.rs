//! `aifab verify`: whether the running fabric is the intended one. Reads what each switch reports in
//! its OS's own machine-readable form from a state folder (`DIR/<hostname>/`, what
//! `ansible/collect.yml` fetches), and compares it with the compiled model: cabling (LLDP), BGP
//! sessions and ECMP width, port state, and the lossless state (PFC, watchdog, DSCP, ECN).

pub mod anta;
pub mod cabling;
pub mod collect;
pub mod expect;
pub mod finding;
pub mod lossless;
pub mod observed;
pub mod ports;
pub mod read;
pub mod report;
pub mod sessions;
pub mod state;
pub mod synth;

use crate::model::FabricModel;
use crate::platform::Catalog;
pub use finding::{Finding, Kind};
use observed::Observed;
use rayon::prelude::*;
use serde::Serialize;
use std::path::Path;

/// A kind of check `aifab verify` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// Every planned cable seen by LLDP from both ends at the planned ports.
    Cabling,
    /// Every planned BGP session established with the planned ASN; the ECMP width per leaf.
    Sessions,
    /// Ports admin and oper up at the rendered speed and MTU.
    Ports,
    /// PFC on exactly the lossless priorities, watchdog, DSCP trust and map, ECN thresholds.
    Lossless,
    /// With `hosts:` in the intent: the planned server heard by LLDP at each server port (a fabric
    /// cabled before its servers arrive, or the twin, which has none, verifies without it).
    Hosts,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: [Check; 5] = [
        Check::Cabling,
        Check::Sessions,
        Check::Ports,
        Check::Lossless,
        Check::Hosts,
    ];

    /// The check's name as the reports and `--checks` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Cabling => "cabling",
            Check::Sessions => "sessions",
            Check::Ports => "ports",
            Check::Lossless => "lossless",
            Check::Hosts => "hosts",
        }
    }

    /// The check whose documents this one reads (the hosts check reads LLDP's).
    pub fn input(self) -> Check {
        match self {
            Check::Hosts => Check::Cabling,
            c => c,
        }
    }
}

impl std::str::FromStr for Check {
    type Err = String;

    fn from_str(s: &str) -> Result<Check, String> {
        Check::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!("`{s}` is not a check (cabling, sessions, ports, lossless, hosts)")
            })
    }
}

/// What to verify.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The checks to run (empty: all).
    pub checks: Vec<Check>,
    /// Only the switches whose hostname matches.
    pub only: Option<globset::GlobMatcher>,
}

/// What `aifab verify` found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The fabric's name.
    pub fabric: String,
    /// The checks run.
    pub checks: Vec<Check>,
    /// Switches verified (those `--only` selects).
    pub switches: usize,
    /// Per check, how many switches gave it input (their documents were read).
    pub read: Vec<(Check, usize)>,
    /// The findings: by check, then switch in model order, then port.
    pub findings: Vec<Finding>,
    /// Facts about the run that are not findings (switches that gave the lldpd/FRR form only).
    pub notes: Vec<String>,
}

impl Report {
    /// True when every check held.
    pub fn holds(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Verifies the state folder `dir` against `model`. Errors are what makes the folder unusable (missing,
/// a link, the state of another fabric); everything else is a finding.
pub fn verify(
    model: &FabricModel,
    catalog: &Catalog,
    dir: &Path,
    opts: &Options,
) -> Result<Report, String> {
    state::check_dir(dir, model)?;
    let checks: Vec<Check> = if opts.checks.is_empty() {
        Check::ALL.to_vec()
    } else {
        Check::ALL
            .into_iter()
            .filter(|c| opts.checks.contains(c))
            .collect()
    };
    let in_scope: Vec<bool> = model
        .devices
        .iter()
        .map(|d| opts.only.as_ref().is_none_or(|g| g.is_match(&d.hostname)))
        .collect();
    // A check no document of a switch's OS serves (the lossless state of NX-OS and EOS: no JSON form
    // with a public sample) has no input there: not run, and said in a note.
    let served = |os: crate::kinds::Os, check: Check| {
        read::documents(os)
            .iter()
            .any(|d| d.serves.contains(&check.input()))
    };
    let reads = |c: &state::Collected, d: &crate::model::Device, check: Check| {
        checks.contains(&check)
            && !c.blind.contains(&check.input())
            && (c.daemon_form || served(d.os, check))
    };
    let plan = expect::Plan::new(model);
    // Each switch read, its ports and lossless state checked against its ideal state at once, and that
    // part of its state dropped: only LLDP, BGP and routes, which the checks across switches need,
    // stay in memory (2,144 switches of a 100K-GPU fabric).
    let collected: Vec<Option<(state::Collected, Vec<Finding>)>> = model
        .devices
        .par_iter()
        .enumerate()
        .map(|(i, d)| {
            if !in_scope[i] {
                return None;
            }
            let mut c = identify(state::collect(dir, d), d);
            let (ports, lossless) = (reads(&c, d, Check::Ports), reads(&c, d, Check::Lossless));
            let mut local = Vec::new();
            if ports || lossless {
                let want = expect::ideal(&plan, catalog, i, None);
                if ports {
                    local.extend(ports::check_one(&want, &c.observed, &d.hostname));
                }
                if lossless {
                    local.extend(lossless::check_one(&want, &c.observed, &d.hostname));
                }
            }
            c.observed.ports = Default::default();
            c.observed.qos = Default::default();
            Some((c, local))
        })
        .collect();
    let mut findings: Vec<Finding> = collected
        .iter()
        .flatten()
        .flat_map(|(c, _)| {
            c.findings
                .iter()
                .filter(|f| checks.contains(&f.check) || f.kind == Kind::WrongSwitch)
                .cloned()
        })
        .collect();
    let view = |check: Check| -> Vec<Option<&Observed>> {
        collected
            .iter()
            .zip(&model.devices)
            .map(|(c, d)| {
                c.as_ref()
                    .filter(|(c, _)| reads(c, d, check))
                    .map(|(c, _)| &c.observed)
            })
            .collect()
    };
    let hosts: Vec<&str> = model.devices.iter().map(|d| d.hostname.as_str()).collect();
    let index: std::collections::HashMap<&str, usize> =
        hosts.iter().enumerate().map(|(i, h)| (*h, i)).collect();
    let mut cabling = if checks.contains(&Check::Cabling) || checks.contains(&Check::Hosts) {
        let lldp = |c: Check| {
            if checks.contains(&c) {
                view(c)
            } else {
                vec![None; model.devices.len()]
            }
        };
        cabling::check(&plan, catalog, &lldp(Check::Cabling), &lldp(Check::Hosts))
    } else {
        cabling::Cabling {
            findings: Vec::new(),
            broken: Default::default(),
            owner: Default::default(),
        }
    };
    let sessions = sessions::check(&plan, &view(Check::Sessions), &mut cabling);
    let local: Vec<Finding> = collected
        .iter()
        .flatten()
        .flat_map(|(_, f)| f.iter().cloned())
        .collect();
    let local = ports::fold(local, &index, &mut cabling);
    findings.extend(cabling.findings);
    findings.extend(sessions);
    findings.extend(local);
    let order = &index;
    findings.sort_by(|a, b| {
        (a.check, order.get(a.switch.as_str()), &a.port, a.kind).cmp(&(
            b.check,
            order.get(b.switch.as_str()),
            &b.port,
            b.kind,
        ))
    });
    let read = checks
        .iter()
        .map(|&c| (c, view(c).iter().flatten().count()))
        .collect();
    let daemon = collected
        .iter()
        .flatten()
        .filter(|(c, _)| c.daemon_form)
        .count();
    let mut notes = Vec::new();
    for &c in &checks {
        let unserved: Vec<&crate::model::Device> = model
            .devices
            .iter()
            .zip(&in_scope)
            .filter(|(d, on)| **on && !served(d.os, c))
            .map(|(d, _)| d)
            .collect();
        if let Some(first) = unserved.first() {
            let mut oses: Vec<&str> = unserved.iter().map(|d| d.os.as_str()).collect();
            oses.dedup();
            notes.push(format!(
                "{}: not checked on {} switch(es) ({}{}): {} report(s) it in no JSON document aifab collects (docs/verify.md)",
                c.as_str(),
                unserved.len(),
                first.hostname,
                if unserved.len() > 1 { ", ..." } else { "" },
                oses.join(", ")
            ));
        }
    }
    if daemon > 0 {
        notes.push(format!("{daemon} switch(es) gave only lldpd and FRR documents (as the twin writes them): their ports and lossless state are not checked"));
    }
    Ok(Report {
        fabric: model.name.clone(),
        checks,
        switches: in_scope.iter().filter(|&&x| x).count(),
        read,
        findings,
        notes,
    })
}

/// Refuses the documents of a folder that holds another switch's: the name the switch reports is not
/// the folder's (an FQDN is cut at its first dot).
fn identify(mut c: state::Collected, d: &crate::model::Device) -> state::Collected {
    let Some(name) = c.observed.hostname.clone() else {
        return c;
    };
    let short = name.split('.').next().unwrap_or(&name);
    if short != d.hostname {
        c.findings.push(
            Finding::new(Check::Cabling, Kind::WrongSwitch, &d.hostname)
                .saw(format!("the documents of {}", d.hostname), format!("the documents of `{name}` (the name the switch reports): another switch's files in this folder; nothing else of it was checked")),
        );
        c.blind = Check::ALL.to_vec();
    }
    c
}
