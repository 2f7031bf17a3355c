//! The device baseline: what every switch needs besides the fabric so its rendered config can replace
//! the whole running-config: local users, AAA, NTP, syslog, SNMPv3, DNS, a login banner, SSH and API
//! access (LLDP is always on: docs/platforms/<os>.md#device-baseline). Shared secrets never stand
//! here: a [`SecretSource`] names where each comes from.

pub use crate::kinds::{AaaProtocol, SnmpAuth, SnmpPriv, UserRole};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// The device baseline, rendered on every switch (docs/platforms/<os>.md#device-baseline). Servers are
/// given by address (no name lookup is needed before DNS works) and are reached through the
/// management VRF when `fabric.management` is set.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Local users. At least one `admin` (AIF-BASE-003): it is the fallback when no AAA server
    /// answers, and what a full-replace push must keep. Not rendered on SONiC, where users are Linux
    /// accounts (docs/platforms/sonic.md#device-baseline).
    #[serde(default)]
    #[schemars(length(max = 32))]
    pub users: Vec<User>,
    /// Central AAA: one server group used for login authentication, exec authorization and accounting,
    /// with the local users as fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aaa: Option<Aaa>,
    /// NTP servers.
    #[serde(default)]
    #[schemars(length(max = 8))]
    pub ntp: Vec<NtpServer>,
    /// Syslog servers (UDP 514).
    #[serde(default)]
    #[schemars(length(max = 8))]
    pub syslog: Vec<IpAddr>,
    /// SNMPv3 (users with authentication and privacy only; no v1/v2c community is rendered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snmp: Option<Snmp>,
    /// DNS resolvers and domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns: Option<Dns>,
    /// Login banner, one list item per line (AIF-BASE-002: printable ASCII, no `#`, `;`, `{`, `}`, no
    /// line `EOF`). Empty: no banner.
    #[serde(default)]
    #[schemars(length(max = 40))]
    pub banner: Vec<String>,
    /// SSH server on, in the management VRF.
    #[serde(default = "yes")]
    pub ssh: bool,
    /// The switch's HTTPS API (EOS eAPI `management api http-commands`, NX-OS `feature nxapi`), in the
    /// management VRF. SONiC's REST server is not configured from config_db here.
    #[serde(default)]
    pub api: bool,
}

fn yes() -> bool {
    true
}

/// One local user.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct User {
    /// User name: a lower-case letter or `_`, then up to 31 lower-case letters, digits, `_` or `-`.
    #[schemars(regex(pattern = r"^[a-z_][a-z0-9_-]{0,31}$"), example = &"netops")]
    pub name: String,
    /// What the user may do.
    pub role: UserRole,
    /// The password as a sha512-crypt hash (`$6$<salt>$<86 characters>`, from `mkpasswd -m sha-512`),
    /// never the password itself (AIF-BASE-001).
    #[schemars(example = &"$6$rounds=656000$aifabexamplesalt$...")]
    pub password_hash: String,
}

/// Where a shared secret comes from. The secret itself never stands in the intent, the goldens or a
/// review: `vault` renders a placeholder that `ansible/deploy.yml` fills from Ansible Vault before the
/// push (the default choice: rendered files stay secret-free); `env` is read from the environment by
/// `aifab render --out` only (for pipelines without Ansible Vault; every other command, goldens and
/// reports keep the placeholder).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum SecretSource {
    /// `{vault: <name>}`: a key of the vault dictionary `aifab_secrets` (rendered as
    /// `AIFAB_SECRET(<name>)`).
    Vault {
        /// Key in `aifab_secrets`: a lower-case letter, then lower-case letters, digits or `_`.
        #[schemars(regex(pattern = r"^[a-z][a-z0-9_]{0,63}$"), example = &"tacacs_key")]
        vault: String,
    },
    /// `{env: <NAME>}`: an environment variable read by `aifab render --out` (rendered as
    /// `AIFAB_ENV(<NAME>)` by every other command).
    Env {
        /// Variable name: upper-case letters, digits and `_`, not starting with a digit.
        #[schemars(regex(pattern = r"^[A-Z_][A-Z0-9_]{0,63}$"), example = &"AIFAB_TACACS_KEY")]
        env: String,
    },
}

/// Central authentication, authorization and accounting.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aaa {
    /// TACACS+ or RADIUS.
    pub protocol: AaaProtocol,
    /// The servers, tried in order.
    #[schemars(length(min = 1, max = 8))]
    pub servers: Vec<AaaServer>,
    /// Send accounting records (exec sessions start and stop) to the group.
    #[serde(default = "yes")]
    pub accounting: bool,
}

/// One AAA server.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AaaServer {
    /// Server address.
    pub address: IpAddr,
    /// Where its shared key comes from.
    pub key: SecretSource,
}

/// One NTP server.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NtpServer {
    /// Server address.
    pub address: IpAddr,
    /// Preferred over the others.
    #[serde(default)]
    pub prefer: bool,
}

/// SNMPv3 agent settings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Snmp {
    /// Read-only SNMPv3 users.
    #[schemars(length(min = 1, max = 8))]
    pub users: Vec<SnmpUser>,
}

/// One read-only SNMPv3 user (authPriv).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnmpUser {
    /// User name: a letter, then up to 31 letters, digits, `_` or `-`.
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"), example = &"monitor")]
    pub name: String,
    /// Authentication protocol.
    #[serde(default = "sha")]
    pub auth: SnmpAuth,
    /// Where the authentication pass phrase comes from.
    pub auth_key: SecretSource,
    /// Privacy protocol.
    #[serde(default = "aes128")]
    pub privacy: SnmpPriv,
    /// Where the privacy pass phrase comes from.
    pub priv_key: SecretSource,
}

fn sha() -> SnmpAuth {
    SnmpAuth::Sha
}

fn aes128() -> SnmpPriv {
    SnmpPriv::Aes128
}

/// DNS resolution.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dns {
    /// Resolvers, in order.
    #[schemars(length(min = 1, max = 3))]
    pub servers: Vec<IpAddr>,
    /// Domain name appended to unqualified names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        regex(pattern = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?){0,8}$"),
        example = &"example.net"
    )]
    pub domain: Option<String>,
}
