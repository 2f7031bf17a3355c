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
pub mod portmap;
pub mod ports;
pub mod read;
pub mod report;
mod run;
pub mod sessions;
pub mod state;
pub mod synth;

use crate::model::FabricModel;
use crate::platform::Catalog;
pub use finding::{Finding, Kind};
use serde::Serialize;
use std::path::Path;

/// Why verify could not run: a check it does not know, or a state folder it cannot use.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Not the name of a check.
    #[error("`{name}` is not a check (cabling, sessions, ports, lossless, hosts)")]
    NotACheck {
        /// What was given.
        name: String,
    },
    /// The state folder cannot be used.
    #[error(transparent)]
    Folder(#[from] state::StateError),
}

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
    type Err = VerifyError;

    fn from_str(s: &str) -> Result<Check, VerifyError> {
        Check::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| VerifyError::NotACheck {
                name: s.to_string(),
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
) -> Result<Report, VerifyError> {
    state::check_dir(dir, model)?;
    let run = run::Run::new(model, catalog, opts);
    let collected = run.read_all(dir);
    let mut findings = run.folder_findings(&collected);
    findings.extend(run.cross_checks(&collected));
    run.sort(&mut findings);
    Ok(Report {
        fabric: model.name.clone(),
        read: run.read_counts(&collected),
        notes: run.notes(&collected),
        switches: run.in_scope.iter().filter(|&&x| x).count(),
        checks: run.checks,
        findings,
    })
}

/// Refuses the documents of a folder that holds another switch's: the name the switch reports is not
/// the folder's (an FQDN is cut at its first dot).
pub(crate) fn identify(mut c: state::Collected, d: &crate::model::Device) -> state::Collected {
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
