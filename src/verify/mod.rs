//! `aifab verify`: whether the running fabric is the intended one. Reads what each switch reports in
//! its OS's own machine-readable form from a state folder (`DIR/<hostname>/`, what
//! `ansible/collect.yml` fetches), and compares it with the compiled model: cabling (LLDP), BGP
//! sessions and ECMP width, port state, and the lossless state (PFC, watchdog, DSCP, ECN).

pub mod anta;
pub mod collect;
pub mod observed;
pub mod read;

use serde::Serialize;

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
}

impl Check {
    /// Every check, in report order.
    pub const ALL: [Check; 4] = [Check::Cabling, Check::Sessions, Check::Ports, Check::Lossless];

    /// The check's name as the reports and `--checks` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Cabling => "cabling",
            Check::Sessions => "sessions",
            Check::Ports => "ports",
            Check::Lossless => "lossless",
        }
    }
}

impl std::str::FromStr for Check {
    type Err = String;

    fn from_str(s: &str) -> Result<Check, String> {
        Check::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| format!("`{s}` is not a check (cabling, sessions, ports, lossless)"))
    }
}
