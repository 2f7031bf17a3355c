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
    let collected: Vec<Option<state::Collected>> = model
        .devices
        .par_iter()
        .zip(&in_scope)
        .map(|(d, &on)| on.then(|| identify(state::collect(dir, d), d)))
        .collect();
    let mut findings: Vec<Finding> = collected
        .iter()
        .flatten()
        .flat_map(|c| {
            c.findings
                .iter()
                .filter(|f| checks.contains(&f.check) || f.kind == Kind::WrongSwitch)
                .cloned()
        })
        .collect();
    // A check no document of a switch's OS serves (the lossless state of NX-OS and EOS: no JSON form
    // with a public sample) has no input there: not run, and said in a note.
    let served = |os: crate::kinds::Os, check: Check| {
        read::documents(os)
            .iter()
            .any(|d| d.serves.contains(&check.input()))
    };
    let view = |check: Check| -> Vec<Option<&Observed>> {
        collected
            .iter()
            .zip(&model.devices)
            .map(|(c, d)| {
                c.as_ref()
                    .filter(|c| {
                        checks.contains(&check)
                            && !c.blind.contains(&check.input())
                            && (c.daemon_form || served(d.os, check))
                    })
                    .map(|c| &c.observed)
            })
            .collect()
    };
    let plan = expect::Plan::new(model);
    let hosts: Vec<&str> = model.devices.iter().map(|d| d.hostname.as_str()).collect();
    // The cabling check (one thread) and each switch's ideal state (the others) at once.
    let (mut cabling, ideal) = rayon::join(
        || {
            if !(checks.contains(&Check::Cabling) || checks.contains(&Check::Hosts)) {
                return cabling::Cabling {
                    findings: Vec::new(),
                    broken: Default::default(),
                    owner: Default::default(),
                };
            }
            let lldp = |c: Check| {
                if checks.contains(&c) {
                    view(c)
                } else {
                    vec![None; model.devices.len()]
                }
            };
            cabling::check(&plan, catalog, &lldp(Check::Cabling), &lldp(Check::Hosts))
        },
        || -> Vec<Option<Observed>> {
            (0..model.devices.len())
                .into_par_iter()
                .map(|i| in_scope[i].then(|| expect::ideal(&plan, catalog, i, None)))
                .collect()
        },
    );
    let sessions = sessions::check(&plan, &view(Check::Sessions), &mut cabling);
    let ports = ports::check(&ideal, &view(Check::Ports), &hosts, &mut cabling);
    let lossless = lossless::check(&ideal, &view(Check::Lossless), &hosts);
    findings.extend(cabling.findings);
    findings.extend(sessions);
    findings.extend(ports);
    findings.extend(lossless);
    let order: std::collections::HashMap<&str, usize> =
        hosts.iter().enumerate().map(|(i, h)| (*h, i)).collect();
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
    let daemon = collected.iter().flatten().filter(|c| c.daemon_form).count();
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
