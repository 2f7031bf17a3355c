//! Faults planted in the lab, as a miscabled or broken fabric has them: two cables whose far ends are
//! crossed (`--swap SW:PORT,SW:PORT`) and cables whose link is down (`--down SW:PORT`). Each names a
//! cable by one of its ports, with the OS interface name the model and the configs use. They are
//! checked against the compiled fabric before anything starts, and the fabric the twin's analysis then
//! runs on is the one without the faulted cables' sessions ([`without`]).

use crate::check::paths::{Fabric, LinkId, Node};
use crate::model::{FabricModel, PortKind};
use std::collections::HashMap;
use std::str::FromStr;

/// Why a fault cannot be planted: its spelling, or the port it names (the port as the user named it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    /// Not `SW:PORT`.
    #[error("`{text}` is not SW:PORT (a hostname and an interface name, `leaf1:Ethernet1/51`)")]
    NotPort {
        /// What was given.
        text: String,
    },
    /// Not `SW:PORT,SW:PORT`.
    #[error("`{text}` is not SW:PORT,SW:PORT (two ports, a comma between)")]
    NotSwap {
        /// What was given.
        text: String,
    },
    /// No switch of the fabric has the name.
    #[error("{port}: no switch is named {}", port.switch)]
    NoSwitch {
        /// The port named.
        port: PortRef,
    },
    /// The switch uses no such port.
    #[error("{port}: {} has no port {} in use", port.switch, port.port)]
    NoPort {
        /// The port named.
        port: PortRef,
    },
    /// A server port: the lab has no server at its far end.
    #[error(
        "{port}: a server port (to {peer}): the twin has no server at its far end, only fabric cables can be crossed or taken down"
    )]
    ServerPort {
        /// The port named.
        port: PortRef,
        /// The server it is cabled to.
        peer: String,
    },
    /// The port has no BGP session to another switch.
    #[error("{port}: the port has no BGP session to another switch of the fabric")]
    NoSession {
        /// The port named.
        port: PortRef,
    },
    /// The port's cable is named by an earlier fault.
    #[error(
        "{port}: its cable ({cable}) is already named by {first}: each cable may be named once in all --swap and --down"
    )]
    NamedTwice {
        /// The port named.
        port: PortRef,
        /// The cable, as the report names a link.
        cable: String,
        /// The port that named it first.
        first: String,
    },
}

/// A switch port as the user names it: `SW:PORT` (`leaf1:Ethernet1/51`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortRef {
    /// Hostname.
    pub switch: String,
    /// OS interface name, as in the model and the configs.
    pub port: String,
}

impl FromStr for PortRef {
    type Err = FaultError;

    fn from_str(s: &str) -> Result<PortRef, FaultError> {
        match s.split_once(':') {
            Some((sw, port)) if !sw.is_empty() && !port.is_empty() => Ok(PortRef {
                switch: sw.to_string(),
                port: port.to_string(),
            }),
            _ => Err(FaultError::NotPort {
                text: s.to_string(),
            }),
        }
    }
}

impl std::fmt::Display for PortRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.switch, self.port)
    }
}

/// `--swap SW:PORT,SW:PORT`: the cables at the two ports get their far ends crossed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swap(pub PortRef, pub PortRef);

impl FromStr for Swap {
    type Err = FaultError;

    fn from_str(s: &str) -> Result<Swap, FaultError> {
        let (a, b) = s.split_once(',').ok_or_else(|| FaultError::NotSwap {
            text: s.to_string(),
        })?;
        Ok(Swap(a.parse()?, b.parse()?))
    }
}

/// The faults a run plants.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Cable pairs to cross.
    pub swaps: Vec<Swap>,
    /// Cables to take down.
    pub downs: Vec<PortRef>,
}

/// A cable end: a link of the planned fabric and which of its ends (0: `a`, 1: `b`).
pub type CableEnd = (LinkId, usize);

/// Faults resolved against the planned fabric.
#[derive(Clone, Debug, Default)]
pub struct Planted {
    /// Each swap's two named cable ends: their far ends are crossed.
    pub swaps: Vec<[CableEnd; 2]>,
    /// The cables taken down.
    pub downs: Vec<LinkId>,
    /// One line per fault, for the report.
    pub lines: Vec<String>,
}

impl Planted {
    /// Every faulted cable.
    pub fn cables(&self) -> Vec<LinkId> {
        let swapped = self.swaps.iter().flat_map(|s| s.iter().map(|e| e.0));
        swapped.chain(self.downs.iter().copied()).collect()
    }
}

impl Faults {
    /// No fault asked for.
    pub fn is_empty(&self) -> bool {
        self.swaps.is_empty() && self.downs.is_empty()
    }

    /// The faults on `fabric` (the planned one of `model`), or every problem: an unknown switch or
    /// port, a server port, a port without a fabric cable, a cable named twice.
    pub fn resolve(
        &self,
        model: &FabricModel,
        fabric: &Fabric,
    ) -> Result<Planted, Vec<FaultError>> {
        let ends = cable_ends(fabric);
        let mut errors = Vec::new();
        let mut seen: HashMap<LinkId, String> = HashMap::new();
        let mut find = |p: &PortRef| -> Option<CableEnd> {
            let end = cable_at(model, &ends, p).map_err(|e| errors.push(e)).ok()?;
            if let Some(first) = seen.insert(end.0, p.to_string()) {
                errors.push(FaultError::NamedTwice {
                    port: p.clone(),
                    cable: fabric.link_name(end.0),
                    first,
                });
                return None;
            }
            Some(end)
        };
        let mut planted = Planted::default();
        for Swap(a, b) in &self.swaps {
            if let (Some(x), Some(y)) = (find(a), find(b)) {
                planted.lines.push(swap_line(fabric, x, y));
                planted.swaps.push([x, y]);
            }
        }
        for p in &self.downs {
            if let Some((l, _)) = find(p) {
                planted.lines.push(format!("down: {}", fabric.link_name(l)));
                planted.downs.push(l);
            }
        }
        if errors.is_empty() {
            Ok(planted)
        } else {
            Err(errors)
        }
    }
}

/// Every cable end of `fabric` by (switch, port name).
fn cable_ends(fabric: &Fabric) -> HashMap<(Node, &str), CableEnd> {
    let mut out = HashMap::new();
    for (l, k) in fabric.links.iter().enumerate() {
        out.insert((k.a, &*k.a_port), (l as LinkId, 0));
        out.insert((k.b, &*k.b_port), (l as LinkId, 1));
    }
    out
}

/// The cable end at port `p`, or why there is none.
fn cable_at(
    model: &FabricModel,
    ends: &HashMap<(Node, &str), CableEnd>,
    p: &PortRef,
) -> Result<CableEnd, FaultError> {
    let port = || p.clone();
    let (n, d) = model
        .devices
        .iter()
        .enumerate()
        .find(|(_, d)| d.hostname == p.switch)
        .ok_or_else(|| FaultError::NoSwitch { port: port() })?;
    let i = d
        .interfaces
        .iter()
        .find(|i| *i.name == *p.port)
        .ok_or_else(|| FaultError::NoPort { port: port() })?;
    if i.kind == PortKind::Server {
        return Err(FaultError::ServerPort {
            port: port(),
            peer: i.peer.to_string(),
        });
    }
    ends.get(&(n as Node, &*p.port))
        .copied()
        .ok_or_else(|| FaultError::NoSession { port: port() })
}

/// The report's line for a swap: what each named port is cabled to instead of its plan.
fn swap_line(fabric: &Fabric, x: CableEnd, y: CableEnd) -> String {
    let end = |(l, side): CableEnd, near: bool| {
        let k = &fabric.links[l as usize];
        let (n, port) = if (side == 0) == near {
            (k.a, &k.a_port)
        } else {
            (k.b, &k.b_port)
        };
        format!("{}:{port}", fabric.names[n as usize])
    };
    format!(
        "crossed: {} cabled to {} (planned {}), {} cabled to {} (planned {})",
        end(x, true),
        end(y, false),
        end(x, false),
        end(y, true),
        end(x, false),
        end(y, false)
    )
}

/// `model` without the BGP sessions of `cables` (links of `fabric`, the planned fabric of `model`):
/// the fabric as the lab cables it, for the analysis. A crossed cable's sessions never come up (each
/// end's neighbor address is on another cable) and a down cable carries none, so BGP settles as if
/// those links had failed.
pub fn without(model: &FabricModel, fabric: &Fabric, cables: &[LinkId]) -> FabricModel {
    let mut out = model.clone();
    for &l in cables {
        let k = &fabric.links[l as usize];
        for (n, port) in [(k.a, &k.a_port), (k.b, &k.b_port)] {
            out.devices[n as usize]
                .bgp
                .neighbors
                .retain(|nb| nb.interface != *port);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_and_swaps_parse() {
        let p: PortRef = "leaf1:Ethernet1/51".parse().expect("port");
        assert_eq!(
            (p.switch.as_str(), p.port.as_str()),
            ("leaf1", "Ethernet1/51")
        );
        assert!("leaf1".parse::<PortRef>().is_err());
        assert!(":Ethernet1".parse::<PortRef>().is_err());
        let s: Swap = "a:Ethernet1,b:Ethernet2".parse().expect("swap");
        assert_eq!(s.1.switch, "b");
        assert!("a:Ethernet1".parse::<Swap>().is_err());
        assert!("a:Ethernet1,b".parse::<Swap>().is_err());
    }
}
