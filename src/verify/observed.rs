//! What one switch reports about itself, read from the documents of its state folder and made
//! OS-neutral: its LLDP neighbours, BGP sessions, routes, ports and lossless state. The readers of
//! [`super::read`] fill it; the checks compare it with the compiled model.
//!
//! Every field is optional: `None` means no collected document reported it (the document was missing,
//! or the OS does not report that value in any document aifab collects). A check skips a value the
//! switch's OS never reports and reports "not collected" for one whose document is missing.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;

/// DSCP to traffic class, shared by the ports that have the same map (a 100K-GPU fabric has 275,000
/// ports and a handful of maps).
pub type DscpMap = Arc<BTreeMap<u8, u8>>;

/// ECN thresholds per egress queue, shared like [`DscpMap`].
pub type EcnMap = Arc<BTreeMap<u8, EcnState>>;

/// One switch's reported state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// The switch's own name as a document reports it (LLDP's local system name, `show hostname`, the
    /// config database's hostname): a state folder holding another switch's files is found by it.
    pub hostname: Option<String>,
    /// LLDP neighbours, one per local port that has one.
    pub lldp: Option<Vec<LldpNeighbor>>,
    /// BGP: the switch's router-id, its own ASN and its IPv4 unicast sessions.
    pub bgp: Option<BgpSummary>,
    /// IPv4 routes of the default VRF.
    pub routes: Option<Vec<Route>>,
    /// Ports by their OS name as the model spells it (`Ethernet1/5`, `Ethernet5/1`, `Ethernet64`):
    /// readers expand abbreviations (`Eth1/5`, `Et5/1`) with [`canonical_port`].
    pub ports: BTreeMap<String, PortState>,
    /// Switch-wide QoS state.
    pub qos: QosState,
}

/// One LLDP neighbour as the local switch sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LldpNeighbor {
    /// The local port it was heard on, canonical ([`canonical_port`]).
    pub local_port: String,
    /// The neighbour's system name (LLDP TLV 5), as sent (an FQDN is cut at its first dot by the check).
    pub system_name: Option<String>,
    /// The neighbour's port ID (TLV 2) as sent: an interface name (NX-OS, EOS), a SONiC port's alias
    /// (SONiC's lldpmgrd sends the alias), or a MAC address when the peer sends its MAC.
    pub port_id: Option<String>,
    /// The neighbour's port description (TLV 4), which SONiC sets to the port's description.
    pub port_descr: Option<String>,
}

/// The BGP summary of the default VRF.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BgpSummary {
    /// The router-id the switch runs with.
    pub router_id: Option<Ipv4Addr>,
    /// The switch's own ASN.
    pub local_as: Option<u32>,
    /// Every IPv4 unicast session, in the order the document lists them.
    pub peers: Vec<BgpPeer>,
}

/// One BGP session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BgpPeer {
    /// The neighbour's address.
    pub ip: Ipv4Addr,
    /// The neighbour's ASN as configured (and, once up, as it sent in its OPEN).
    pub remote_as: Option<u32>,
    /// The session state as the OS spells it (`Established`, `Idle`, `Active`, `Connect`, ...):
    /// borrowed for the states every OS prints ([`peer_state`]), so 360,000 sessions hold no copy.
    pub state: Cow<'static, str>,
    /// True when the session is established.
    pub established: bool,
    /// Prefixes received from the neighbour, when the document says.
    pub prefixes_received: Option<u32>,
}

/// A BGP session state as read: the RFC 4271 state names shared, any other spelling kept.
pub fn peer_state(state: &str) -> Cow<'static, str> {
    const KNOWN: [&str; 6] = [
        "Established",
        "Idle",
        "Connect",
        "Active",
        "OpenSent",
        "OpenConfirm",
    ];
    match KNOWN.iter().find(|k| **k == state) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(state.to_string()),
    }
}

/// One IPv4 route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The prefix, with its length (`10.2.0.0/26`, `10.0.0.5/32`).
    pub prefix: String,
    /// The protocol that installed it, lower case (`bgp`, `connected`, `local`, `static`, ...).
    pub protocol: String,
    /// The next-hop addresses of its selected (installed) paths.
    pub next_hops: Vec<Ipv4Addr>,
}

/// What the sessions check keeps of a route once the switch is read: its prefix and how many next
/// hops it has (a 100K-GPU fabric's sampled routes hold two million next-hop addresses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteWidth {
    /// The prefix, with its length.
    pub prefix: Box<str>,
    /// How many next hops its selected paths have.
    pub hops: usize,
}

impl From<Route> for RouteWidth {
    fn from(r: Route) -> RouteWidth {
        RouteWidth {
            prefix: r.prefix.into_boxed_str(),
            hops: r.next_hops.len(),
        }
    }
}

/// One port's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortState {
    /// Administratively up (not shut down).
    pub admin_up: Option<bool>,
    /// Operationally up (link up).
    pub oper_up: Option<bool>,
    /// Speed in Gbit/s.
    pub speed_gbps: Option<u32>,
    /// The MTU as the OS reports the value the config sets (NX-OS: the L2 MTU, EOS and SONiC: the
    /// port's MTU).
    pub mtu: Option<u32>,
    /// The priorities PFC is enabled on, ascending (empty: PFC off on the port).
    pub pfc_priorities: Option<Vec<u8>>,
    /// The PFC watchdog watches the port.
    pub pfc_watchdog: Option<bool>,
    /// The port classifies on DSCP (trust DSCP, or a DSCP-to-TC map bound).
    pub trust_dscp: Option<bool>,
    /// DSCP to traffic class as bound to the port, when the OS reports a per-port map.
    pub dscp_to_tc: Option<DscpMap>,
    /// ECN thresholds per egress queue, when the OS reports them per port.
    pub ecn: Option<EcnMap>,
}

/// ECN marking thresholds of one queue, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnState {
    /// Minimum threshold, bytes.
    pub min_bytes: u64,
    /// Maximum threshold, bytes.
    pub max_bytes: u64,
}

/// Switch-wide QoS state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QosState {
    /// The switch-wide DSCP to traffic class map, when the OS reports one.
    pub dscp_to_tc: Option<DscpMap>,
    /// The PFC watchdog is enabled switch-wide.
    pub watchdog_enabled: Option<bool>,
    /// ECN thresholds per queue, when the OS reports them switch-wide rather than per port.
    pub ecn: Option<EcnMap>,
}

/// The model's spelling of a port name an OS abbreviates: `Eth1/5` and `Et1/5` become `Ethernet1/5`;
/// `Ethernet...`, SONiC names and anything else stay as they are. Case is kept (`ethernet1/5` is not
/// a spelling any of the three OSes prints).
pub fn canonical_port(name: &str) -> String {
    let name = name.trim();
    for short in ["Eth", "Et"] {
        if let Some(rest) = name.strip_prefix(short)
            && !rest.starts_with("ernet")
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return format!("Ethernet{rest}");
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::canonical_port;

    #[test]
    fn abbreviations_expand_and_full_names_stay() {
        assert_eq!(canonical_port("Eth1/5"), "Ethernet1/5");
        assert_eq!(canonical_port("Et5/1"), "Ethernet5/1");
        assert_eq!(canonical_port("Ethernet64"), "Ethernet64");
        assert_eq!(canonical_port("Ethernet1/5"), "Ethernet1/5");
        assert_eq!(canonical_port("mgmt0"), "mgmt0");
        assert_eq!(canonical_port("Management1"), "Management1");
        assert_eq!(canonical_port("etp1"), "etp1");
    }
}
