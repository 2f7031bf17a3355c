//! The EOS device baseline (docs/platforms/eos.md#device-baseline): DNS, NTP, SNMPv3, AAA, users,
//! syslog, banner, eAPI and SSH, in VRF MGMT when the device has Management1.

use crate::kinds::{AaaProtocol, UserRole};
use crate::model::Device;
use crate::model::baseline::BaselinePlan;
use crate::os::cli_baseline::{self, AaaServer, Ntp, SnmpUser};
use serde::Serialize;
use std::net::IpAddr;

/// What `templates/eos/baseline.j2` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Baseline<'a> {
    /// `MGMT` when the device has Management1 (servers and services go in that VRF); None: default VRF.
    pub vrf: Option<&'static str>,
    /// ` vrf MGMT` or empty: the infix of server lines.
    pub in_vrf: &'static str,
    /// Local users.
    pub users: Vec<User<'a>>,
    /// AAA.
    pub aaa: Option<Aaa>,
    /// NTP servers.
    pub ntp: Vec<Ntp>,
    /// Syslog servers.
    pub syslog: &'a [IpAddr],
    /// SNMPv3 users (group `AIFAB-RO`, v3 priv).
    pub snmp: Vec<SnmpUser<'a>>,
    /// `ip name-server` addresses, one line each (as EOS prints them).
    pub name_servers: Vec<String>,
    /// `dns domain`.
    pub domain: Option<&'a str>,
    /// `banner login` lines (ended by `EOF`).
    pub banner: &'a [String],
    /// SSH on.
    pub ssh: bool,
    /// eAPI (`management api http-commands`) on.
    pub api: bool,
}

/// `username NAME privilege N role ROLE secret sha512 HASH`.
#[derive(Clone, Debug, Serialize)]
pub struct User<'a> {
    /// Name.
    pub name: &'a str,
    /// `15` or `1`.
    pub privilege: u8,
    /// `network-admin` or `network-operator`.
    pub role: &'static str,
    /// sha512-crypt hash.
    pub hash: &'a str,
}

/// The AAA server group and methods.
#[derive(Clone, Debug, Serialize)]
pub struct Aaa {
    /// `tacacs-server` or `radius-server`.
    pub host_command: &'static str,
    /// `tacacs+` or `radius`.
    pub kind: &'static str,
    /// Group name.
    pub group: &'static str,
    /// Servers.
    pub servers: Vec<AaaServer>,
    /// `aaa accounting exec default start-stop group`.
    pub accounting: bool,
}

/// The EOS baseline of `d`.
pub(super) fn view(d: &Device) -> Option<Baseline<'_>> {
    let b: &BaselinePlan = d.baseline.as_deref()?;
    let vrf = d.management.is_some().then_some("MGMT");
    Some(Baseline {
        vrf,
        in_vrf: if vrf.is_some() { " vrf MGMT" } else { "" },
        users: b
            .users
            .iter()
            .map(|u| {
                let (privilege, role) = match u.role {
                    UserRole::Admin => (15, "network-admin"),
                    UserRole::ReadOnly => (1, "network-operator"),
                };
                User {
                    name: &u.name,
                    privilege,
                    role,
                    hash: &u.password_hash,
                }
            })
            .collect(),
        aaa: b.aaa.as_ref().map(|a| {
            let tacacs = a.protocol == AaaProtocol::Tacacs;
            Aaa {
                host_command: if tacacs {
                    "tacacs-server"
                } else {
                    "radius-server"
                },
                kind: if tacacs { "tacacs+" } else { "radius" },
                group: a.group,
                servers: cli_baseline::aaa_servers(a),
                accounting: a.accounting,
            }
        }),
        ntp: cli_baseline::ntp(b),
        syslog: &b.syslog,
        snmp: cli_baseline::snmp_users(b),
        name_servers: b.dns_servers.iter().map(IpAddr::to_string).collect(),
        domain: b.dns_domain.as_deref(),
        banner: &b.banner,
        ssh: b.ssh,
        api: b.api,
    })
}
