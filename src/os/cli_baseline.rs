//! The parts of the device baseline NX-OS and EOS print alike (addresses, names, placeholders); each
//! OS's own module adds its spellings (roles, protocol keywords, the management VRF's name).

use crate::model::baseline::{AaaPlan, BaselinePlan};
use serde::Serialize;
use std::net::IpAddr;

/// One AAA server as both CLIs print it.
#[derive(Clone, Debug, Serialize)]
pub struct AaaServer {
    /// Address.
    pub address: IpAddr,
    /// The key's placeholder (`AIFAB_SECRET(name)`).
    pub key: String,
}

/// One NTP server.
#[derive(Clone, Debug, Serialize)]
pub struct Ntp {
    /// Address.
    pub address: IpAddr,
    /// `prefer`.
    pub prefer: bool,
}

/// One SNMPv3 user with its placeholders.
#[derive(Clone, Debug, Serialize)]
pub struct SnmpUser<'a> {
    /// Name.
    pub name: &'a str,
    /// Authentication pass phrase placeholder.
    pub auth_key: String,
    /// Privacy pass phrase placeholder.
    pub priv_key: String,
}

/// The AAA servers with their key placeholders.
pub fn aaa_servers(a: &AaaPlan) -> Vec<AaaServer> {
    a.servers
        .iter()
        .map(|s| AaaServer {
            address: s.address,
            key: s.key.token(),
        })
        .collect()
}

/// The NTP servers.
pub fn ntp(b: &BaselinePlan) -> Vec<Ntp> {
    b.ntp
        .iter()
        .map(|n| Ntp {
            address: n.address,
            prefer: n.prefer,
        })
        .collect()
}

/// The SNMPv3 users with their placeholders.
pub fn snmp_users(b: &BaselinePlan) -> Vec<SnmpUser<'_>> {
    b.snmp
        .iter()
        .map(|u| SnmpUser {
            name: &u.name,
            auth_key: u.auth_key.token(),
            priv_key: u.priv_key.token(),
        })
        .collect()
}
