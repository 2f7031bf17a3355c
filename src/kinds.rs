//! The kinds the intent, the platform profiles and the neutral model share: small enums with one
//! spelling each, imported by [`intent`](crate::intent), [`platform`](crate::platform) and
//! [`model`](crate::model) alike, so the model depends on neither of them.
//!
//! The doc comments of the intent's kinds ([`Role`], [`DlbMode`], [`WatchdogAction`]) are user
//! documentation: the JSON Schema and `docs/intent-reference.md` are generated from them. The
//! platform's kinds ([`Os`], [`Support`], [`QpHashMethod`]) are read from `vendors/<os>.yaml`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Watchdog action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WatchdogAction {
    /// Drop the stuck queue's packets (and ignore incoming PFC) until restored.
    #[default]
    Drop,
    /// Only log.
    Alert,
}

/// Switch role.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Rail leaf.
    Leaf,
    /// Spine.
    Spine,
    /// Super-spine.
    SuperSpine,
}

impl Role {
    /// The name used in files and inventories.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Leaf => "leaf",
            Role::Spine => "spine",
            Role::SuperSpine => "super-spine",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// DLB mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DlbMode {
    /// No DLB.
    #[default]
    Off,
    /// Per-packet spraying.
    PerPacket,
    /// Flowlet switching.
    Flowlet,
}

impl DlbMode {
    /// The name used in the intent and in vendor profiles.
    pub fn as_str(self) -> &'static str {
        match self {
            DlbMode::Off => "off",
            DlbMode::PerPacket => "per-packet",
            DlbMode::Flowlet => "flowlet",
        }
    }
}

/// A network operating system aifab renders for.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    /// Cisco NX-OS (Nexus 9000).
    Nxos,
    /// Arista EOS.
    Eos,
    /// Community SONiC.
    Sonic,
}

impl Os {
    /// All OSes, in the order files are listed.
    pub const ALL: [Os; 3] = [Os::Nxos, Os::Eos, Os::Sonic];
    /// `nxos`, `eos`, `sonic`: the folder name under `templates/` and the file name under `vendors/`.
    pub fn as_str(self) -> &'static str {
        match self {
            Os::Nxos => "nxos",
            Os::Eos => "eos",
            Os::Sonic => "sonic",
        }
    }
    /// Parses `nxos`, `eos`, `sonic`.
    pub fn parse(s: &str) -> Option<Os> {
        Os::ALL.into_iter().find(|o| o.as_str() == s)
    }
}

impl fmt::Display for Os {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How sure the references are about a feature's CLI on this platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Support {
    /// Not available on this platform.
    No,
    /// Available, syntax marked \[U\] in the reference: rendered with a comment naming the reference, and
    /// `aifab validate` warns.
    Unverified,
    /// Available, syntax verified (\[V\]/\[P\]/\[G\]) in the reference.
    Yes,
}

/// How a platform hashes on the BTH destination QP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum QpHashMethod {
    /// Not possible.
    None,
    /// NX-OS `ip load-sharing address source-destination udf offset … length …` (replaces L4 ports).
    NxosUdf,
    /// EOS Strata `port-channel load-balance trident udf … header outer l4 offset 13/14/15`.
    EosTridentUdf,
    /// EOS Sand `load-balance policies` / `load-balance sand profile default` / `fields udp dst-port 4791`
    /// / `payload bytes 5-7`.
    EosSandProfile,
}

/// What a local user may do on the switch (device baseline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UserRole {
    /// Full configuration rights (NX-OS `network-admin`, EOS `privilege 15 role network-admin`).
    Admin,
    /// Show commands only (NX-OS `network-operator`, EOS `privilege 1 role network-operator`).
    ReadOnly,
}

/// The AAA protocol of the baseline's server group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AaaProtocol {
    /// TACACS+ (TCP 49).
    Tacacs,
    /// RADIUS (UDP 1812/1813).
    Radius,
}

/// SNMPv3 authentication protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SnmpAuth {
    /// HMAC-SHA-96.
    Sha,
}

/// SNMPv3 privacy (encryption) protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SnmpPriv {
    /// AES-128 (CFB).
    Aes128,
}

/// The server NIC family whose QoS tooling the host output speaks (`hosts.nic`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NicModel {
    /// NVIDIA ConnectX (ConnectX-6 Dx and later): `mlnx_qos` from MLNX_OFED / DOCA-OFED `mlnx-tools`
    /// and the mlx5 driver's `ecn` sysfs for DCQCN.
    #[default]
    Connectx,
}

/// The Spiderpool CNI a rail's SpiderMultusConfig uses (`hosts.kubernetes.cni`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SpiderCni {
    /// SR-IOV VFs with RDMA isolation: `cniType: sriov`, a VF resource per rail.
    #[default]
    Sriov,
    /// Macvlan on the rail NIC with a shared RDMA device: `cniType: macvlan`.
    Macvlan,
}

impl SpiderCni {
    /// The `cniType` Spiderpool's SpiderMultusConfig spells (`sriov`, `macvlan`).
    pub fn as_str(self) -> &'static str {
        match self {
            SpiderCni::Sriov => "sriov",
            SpiderCni::Macvlan => "macvlan",
        }
    }
}
