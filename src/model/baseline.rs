//! The device baseline of the neutral model: users, AAA, NTP, syslog, SNMPv3, DNS, banner, LLDP, SSH
//! and API access, the same for every device of a fabric (so it is shared behind one `Arc`). Every
//! string here was checked by the intent rules; secrets are [`Secret`] references, never values.

use crate::kinds::{AaaProtocol, SnmpAuth, SnmpPriv, UserRole};
use serde::Serialize;
use std::net::IpAddr;

/// The placeholder prefix of a secret filled from Ansible Vault by `ansible/deploy.yml`.
pub const VAULT_TOKEN: &str = "AIFAB_SECRET(";
/// The placeholder prefix of a secret read from the environment by `aifab render --out`.
pub const ENV_TOKEN: &str = "AIFAB_ENV(";

/// Where a shared secret comes from; rendered as a placeholder token ([`Secret::token`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Secret {
    /// A key of the vault dictionary `aifab_secrets`.
    Vault(String),
    /// An environment variable.
    Env(String),
}

impl Secret {
    /// The placeholder the configs carry: `AIFAB_SECRET(name)` or `AIFAB_ENV(NAME)`. Both are made of
    /// characters every OS accepts in a key (no space, `#`, `,`, `@`, `:`, quote or brace).
    pub fn token(&self) -> String {
        match self {
            Secret::Vault(n) => format!("{VAULT_TOKEN}{n})"),
            Secret::Env(n) => format!("{ENV_TOKEN}{n})"),
        }
    }
}

/// The baseline of every device.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BaselinePlan {
    /// Local users, in intent order.
    pub users: Vec<LocalUser>,
    /// The AAA server group (None: local authentication only).
    pub aaa: Option<AaaPlan>,
    /// NTP servers.
    pub ntp: Vec<NtpPlan>,
    /// Syslog servers.
    pub syslog: Vec<IpAddr>,
    /// Read-only SNMPv3 users.
    pub snmp: Vec<SnmpUserPlan>,
    /// DNS resolvers.
    pub dns_servers: Vec<IpAddr>,
    /// DNS domain.
    pub dns_domain: Option<String>,
    /// Banner lines.
    pub banner: Vec<String>,
    /// SSH server on.
    pub ssh: bool,
    /// HTTPS API on.
    pub api: bool,
}

/// One local user.
#[derive(Clone, Debug, Serialize)]
pub struct LocalUser {
    /// Name.
    pub name: String,
    /// Role.
    pub role: UserRole,
    /// sha512-crypt hash.
    pub password_hash: String,
}

/// The AAA server group.
#[derive(Clone, Debug, Serialize)]
pub struct AaaPlan {
    /// TACACS+ or RADIUS.
    pub protocol: AaaProtocol,
    /// Name of the server group on the CLI OSes.
    pub group: &'static str,
    /// Servers in order.
    pub servers: Vec<AaaServerPlan>,
    /// Accounting on.
    pub accounting: bool,
}

/// One AAA server.
#[derive(Clone, Debug, Serialize)]
pub struct AaaServerPlan {
    /// Address.
    pub address: IpAddr,
    /// Shared key.
    pub key: Secret,
}

/// One NTP server.
#[derive(Clone, Debug, Serialize)]
pub struct NtpPlan {
    /// Address.
    pub address: IpAddr,
    /// Preferred.
    pub prefer: bool,
}

/// One SNMPv3 user.
#[derive(Clone, Debug, Serialize)]
pub struct SnmpUserPlan {
    /// Name.
    pub name: String,
    /// Authentication protocol.
    pub auth: SnmpAuth,
    /// Authentication pass phrase.
    pub auth_key: Secret,
    /// Privacy protocol.
    pub privacy: SnmpPriv,
    /// Privacy pass phrase.
    pub priv_key: Secret,
}

impl BaselinePlan {
    /// Every secret the baseline names, once each, in order.
    pub fn secrets(&self) -> Vec<&Secret> {
        let mut out: Vec<&Secret> = Vec::new();
        let aaa = self
            .aaa
            .iter()
            .flat_map(|a| a.servers.iter().map(|s| &s.key));
        let snmp = self.snmp.iter().flat_map(|u| [&u.auth_key, &u.priv_key]);
        for s in aaa.chain(snmp) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}
