//! One difference between the running fabric and the intended one, as `aifab verify` reports it.

use super::Check;
use serde::Serialize;

/// What kind of difference a [`Finding`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A document (or the whole folder) of the switch is not in the state folder.
    NotCollected,
    /// A document is there but cannot be read (truncated JSON, another command's output, a link, too
    /// large).
    Unreadable,
    /// The documents in the switch's folder are another switch's.
    WrongSwitch,
    /// Two planned cables have their ends crossed.
    Crossed,
    /// A planned cable is seen from neither end: missing, or its link down.
    NoNeighbor,
    /// A planned cable is seen from one end only.
    OneWay,
    /// A port's neighbour is another switch or port than planned (and no crossing explains it).
    WrongNeighbor,
    /// A neighbour at a port where none is planned.
    Unplanned,
    /// A switch runs another ASN or router-id than planned.
    WrongIdentity,
    /// A planned session is not established.
    SessionDown,
    /// A planned session is missing from the switch's BGP table.
    SessionMissing,
    /// A session's peer ASN is not the planned one.
    WrongAsn,
    /// A session the plan does not have.
    UnplannedSession,
    /// A leaf has fewer paths (or none) to other leaves' server subnets than planned.
    Ecmp,
    /// A port is down (administratively or operationally) or missing.
    PortDown,
    /// A port that should be shut down is up.
    PortUp,
    /// A port runs at another speed.
    Speed,
    /// A port has another MTU.
    Mtu,
    /// PFC is not enabled on exactly the lossless priorities.
    Pfc,
    /// The PFC watchdog is off where planned (or on where not).
    Watchdog,
    /// DSCP trust or the DSCP-to-TC map differs.
    Dscp,
    /// ECN thresholds differ.
    Ecn,
}

impl Kind {
    /// The kind as the reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::NotCollected => "not-collected",
            Kind::Unreadable => "unreadable",
            Kind::WrongSwitch => "wrong-switch",
            Kind::Crossed => "crossed",
            Kind::NoNeighbor => "no-neighbor",
            Kind::OneWay => "one-way",
            Kind::WrongNeighbor => "wrong-neighbor",
            Kind::Unplanned => "unplanned-neighbor",
            Kind::WrongIdentity => "wrong-identity",
            Kind::SessionDown => "session-down",
            Kind::SessionMissing => "session-missing",
            Kind::WrongAsn => "wrong-asn",
            Kind::UnplannedSession => "unplanned-session",
            Kind::Ecmp => "ecmp",
            Kind::PortDown => "port-down",
            Kind::PortUp => "port-up",
            Kind::Speed => "speed",
            Kind::Mtu => "mtu",
            Kind::Pfc => "pfc",
            Kind::Watchdog => "watchdog",
            Kind::Dscp => "dscp",
            Kind::Ecn => "ecn",
        }
    }
}

/// One failing check: where, what was expected, what was found, and what else it explains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check that found it.
    pub check: Check,
    /// What kind of difference.
    pub kind: Kind,
    /// The switch.
    pub switch: String,
    /// The port (or ports, `Ethernet1/51 Ethernet1/52`), when it is about ports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// What the plan says.
    pub expected: String,
    /// What the switch reports.
    pub found: String,
    /// Failing checks this finding explains (the sessions a down cable carried, its ports down):
    /// reported under it, not as findings of their own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explains: Vec<String>,
}

impl Finding {
    /// A finding of `check` and `kind` on `switch`.
    pub fn new(check: Check, kind: Kind, switch: &str) -> Finding {
        Finding {
            check,
            kind,
            switch: switch.to_string(),
            port: None,
            expected: String::new(),
            found: String::new(),
            explains: Vec::new(),
        }
    }

    /// The same at `port`.
    pub fn at(mut self, port: impl Into<String>) -> Finding {
        self.port = Some(port.into());
        self
    }

    /// With what was expected and what was found.
    pub fn saw(mut self, expected: impl Into<String>, found: impl Into<String>) -> Finding {
        self.expected = expected.into();
        self.found = found.into();
        self
    }
}
