//! The NX-OS device baseline (docs/platforms/nxos.md#device-baseline): users, AAA, NTP, syslog,
//! SNMPv3, DNS, banner, SSH and NX-API, with `use-vrf management` when the device has mgmt0.

use crate::kinds::{AaaProtocol, UserRole};
use crate::model::Device;
use crate::model::baseline::BaselinePlan;
use crate::os::cli_baseline::{self, AaaServer, Ntp, SnmpUser};
use serde::Serialize;
use std::net::IpAddr;

/// What `templates/nxos/baseline.j2` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Baseline<'a> {
    /// ` use-vrf management` when the device has mgmt0 (empty otherwise): appended to server lines.
    pub use_vrf: &'static str,
    /// `feature ssh` and `feature scp-server` (the push copies the replace file over SCP).
    pub ssh: bool,
    /// `feature nxapi` (and `nxapi use-vrf management`).
    pub nxapi: bool,
    /// Local users.
    pub users: Vec<User<'a>>,
    /// AAA.
    pub aaa: Option<Aaa>,
    /// NTP servers.
    pub ntp: Vec<Ntp>,
    /// Syslog servers.
    pub syslog: &'a [IpAddr],
    /// SNMPv3 users (group `network-operator`).
    pub snmp: Vec<SnmpUser<'a>>,
    /// `ip name-server` addresses, space-separated.
    pub name_servers: String,
    /// `ip domain-name`.
    pub domain: Option<&'a str>,
    /// `banner motd #` lines.
    pub banner: &'a [String],
}

/// `username NAME password 5 HASH role ROLE`.
#[derive(Clone, Debug, Serialize)]
pub struct User<'a> {
    /// Name.
    pub name: &'a str,
    /// sha512-crypt hash.
    pub hash: &'a str,
    /// `network-admin` or `network-operator`.
    pub role: &'static str,
}

/// The AAA server group and methods.
#[derive(Clone, Debug, Serialize)]
pub struct Aaa {
    /// `feature tacacs+` (TACACS+ only; RADIUS needs no feature).
    pub feature: Option<&'static str>,
    /// `tacacs-server` or `radius-server`.
    pub host_command: &'static str,
    /// `tacacs+` or `radius` (`aaa group server <kind> <group>`).
    pub kind: &'static str,
    /// Group name.
    pub group: &'static str,
    /// Servers.
    pub servers: Vec<AaaServer>,
    /// Command authorization through the group (TACACS+ only: RADIUS does not authorize commands).
    pub authorization: bool,
    /// `aaa accounting default group`.
    pub accounting: bool,
}

/// The NX-OS baseline of `d`.
pub(super) fn view(d: &Device) -> Option<Baseline<'_>> {
    let b: &BaselinePlan = d.baseline.as_deref()?;
    Some(Baseline {
        use_vrf: if d.management.is_some() {
            " use-vrf management"
        } else {
            ""
        },
        ssh: b.ssh,
        nxapi: b.api,
        users: b
            .users
            .iter()
            .map(|u| User {
                name: &u.name,
                hash: &u.password_hash,
                role: match u.role {
                    UserRole::Admin => "network-admin",
                    UserRole::ReadOnly => "network-operator",
                },
            })
            .collect(),
        aaa: b.aaa.as_ref().map(|a| {
            let tacacs = a.protocol == AaaProtocol::Tacacs;
            Aaa {
                feature: tacacs.then_some("tacacs+"),
                host_command: if tacacs {
                    "tacacs-server"
                } else {
                    "radius-server"
                },
                kind: if tacacs { "tacacs+" } else { "radius" },
                group: a.group,
                servers: cli_baseline::aaa_servers(a),
                authorization: tacacs,
                accounting: a.accounting,
            }
        }),
        ntp: cli_baseline::ntp(b),
        syslog: &b.syslog,
        snmp: cli_baseline::snmp_users(b),
        name_servers: b
            .dns_servers
            .iter()
            .map(IpAddr::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        domain: b.dns_domain.as_deref(),
        banner: &b.banner,
    })
}
