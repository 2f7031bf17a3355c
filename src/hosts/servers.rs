//! The servers of a compiled fabric, read from its server links: each NIC port's rail, port, name,
//! address, subnet and gateway, in both server addressing modes. A two-port NIC is two netdevs, each
//! with its own address and gateway on its own leaf (its link), whatever the homing; a rack leaf's NICs
//! are told apart by the rail their link records.
//!
//! - `routed`: the link's /31; the leaf has the even address and is the gateway, the NIC the odd one.
//! - `rail-subnet`: the rail leaf's subnet; the leaf is the gateway (first host address) and the NICs
//!   on it take the next addresses in the leaf's port order (its k-th server port: gateway + 1 + k), so
//!   the subnet holds the network, the gateway, every server and the broadcast address.

use super::names;
use crate::model::{Device, FabricModel, LinkTier};
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// Why the servers could not be read from the server links; the text names the link.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A server or NIC name the host files cannot carry.
    #[error(transparent)]
    Name(#[from] names::HostNameError),
    /// A server link whose leaf is not in the model.
    #[error("server link {server}:{nic} has no leaf {leaf}")]
    NoLeaf {
        /// The server.
        server: String,
        /// Its NIC port's name.
        nic: String,
        /// The leaf the link names.
        leaf: String,
    },
    /// A server link that names no NIC port.
    #[error("server link {server}:{nic} names no NIC port")]
    NoNicPort {
        /// The server.
        server: String,
        /// Its NIC port's name.
        nic: String,
    },
    /// A NIC port of a server link that could not be read.
    #[error("{server}:{nic}: {source}")]
    Link {
        /// The server.
        server: String,
        /// Its NIC port's name.
        nic: String,
        /// Why.
        source: Box<ServerError>,
    },
    /// A subnet that is no IPv4 prefix.
    #[error("`{0}` is not an IPv4 prefix")]
    NotIpv4(String),
    /// A routed server link without its /31.
    #[error("the server link has no address")]
    NoAddress,
}

/// One GPU server and its NIC ports.
#[derive(Clone, Debug)]
pub struct Server<'m> {
    /// Hostname (checked: a lower-case RFC 1123 label).
    pub name: &'m str,
    /// Its NIC ports (netdevs), by rail, then port.
    pub nics: Vec<Nic<'m>>,
}

/// One NIC port of a server: a netdev with its own address and gateway.
#[derive(Clone, Debug)]
pub struct Nic<'m> {
    /// Rail (the NIC), 1-based.
    pub rail: u32,
    /// Port of the NIC, 1-based (1 on single-port NICs).
    pub port: u32,
    /// Interface name (checked: a Linux interface name).
    pub name: &'m str,
    /// The NIC's address.
    pub ip: Ipv4Addr,
    /// The subnet it sits in: the /31 or the leaf's subnet.
    pub network: Ipv4Addr,
    /// Prefix length of that subnet.
    pub prefix_len: u8,
    /// The leaf's address on the subnet: the NIC port's gateway.
    pub gateway: Ipv4Addr,
    /// The leaf the port is cabled to.
    pub leaf: &'m Device,
}

impl Nic<'_> {
    /// `network/len`.
    pub fn subnet(&self) -> String {
        let mut s = String::with_capacity(18);
        self.push_subnet(&mut s);
        s
    }

    /// Appends [`Nic::subnet`] to `o` (a routed fabric's 100,000 Spiderpool pools spell it into one
    /// scratch buffer).
    pub fn push_subnet(&self, o: &mut String) {
        crate::spell::push_ipv4(o, self.network);
        o.push('/');
        crate::spell::push_decimal(o, self.prefix_len.into());
    }
}

/// Every server of the fabric in link order (group, then slot), its NICs by rail. Errors name a server
/// or NIC name the host files cannot carry, or a server link without an address.
pub fn servers(model: &FabricModel) -> Result<Vec<Server<'_>>, ServerError> {
    let leaves: HashMap<&str, &Device> = model
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut next_on_leaf: HashMap<&str, u32> = HashMap::new();
    let mut out: Vec<Server> = Vec::new();
    for l in model
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::ServerLeaf)
    {
        let leaf = *leaves
            .get(l.b.as_ref())
            .ok_or_else(|| ServerError::NoLeaf {
                server: l.a.to_string(),
                nic: l.a_port.to_string(),
                leaf: l.b.to_string(),
            })?;
        let k = next_on_leaf.entry(leaf.hostname.as_str()).or_insert(0);
        let end = l.nic.ok_or_else(|| ServerError::NoNicPort {
            server: l.a.to_string(),
            nic: l.a_port.to_string(),
        })?;
        let mut nic =
            nic(leaf, &l.a_port, l.subnet.as_deref(), *k).map_err(|e| ServerError::Link {
                server: l.a.to_string(),
                nic: l.a_port.to_string(),
                source: Box::new(e),
            })?;
        (nic.rail, nic.port) = (end.rail, end.port);
        *k += 1;
        let at = *index.entry(l.a.as_ref()).or_insert_with(|| {
            out.push(Server {
                name: &l.a,
                nics: Vec::new(),
            });
            out.len() - 1
        });
        out[at].nics.push(nic);
    }
    for s in &mut out {
        names::check_server(s.name)?;
        s.nics.sort_by_key(|n| (n.rail, n.port));
    }
    Ok(out)
}

/// The NIC port on `leaf`'s `k`-th server port: from the /31 of the link, or from the leaf's subnet
/// (rail and port are the link's, set by the caller).
fn nic<'m>(
    leaf: &'m Device,
    name: &'m str,
    subnet: Option<&str>,
    k: u32,
) -> Result<Nic<'m>, ServerError> {
    names::check_nic(name)?;
    let (rail, port) = (leaf.rail.unwrap_or(0), 1);
    if let Some(s) = &leaf.server_subnet {
        let network = network_of(&s.prefix)?;
        let ip = add(s.gateway_ip, 1 + k);
        return Ok(Nic {
            rail,
            port,
            name,
            ip,
            network,
            prefix_len: s.prefix_len,
            gateway: s.gateway_ip,
            leaf,
        });
    }
    let even = network_of(subnet.ok_or(ServerError::NoAddress)?)?;
    Ok(Nic {
        rail,
        port,
        name,
        ip: add(even, 1),
        network: even,
        prefix_len: 31,
        gateway: even,
        leaf,
    })
}

/// The address of `10.2.0.0/26`.
fn network_of(prefix: &str) -> Result<Ipv4Addr, ServerError> {
    prefix
        .split('/')
        .next()
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| ServerError::NotIpv4(prefix.to_string()))
}

/// `ip + n` (the compiler's capacity check keeps every address inside its pool).
pub fn add(ip: Ipv4Addr, n: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(ip).wrapping_add(n))
}
