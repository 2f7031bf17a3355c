//! The intent: what an operator writes to describe one RoCEv2 back-end fabric.
//!
//! These types are the single source of truth for the intent format. The JSON Schema
//! (`schema/intent.schema.json`) and the reference (`docs/intent-reference.md`) are generated from them,
//! so every doc comment here is user documentation.

pub mod baseline;

pub use crate::kinds::{DlbMode, Role, WatchdogAction};
use crate::units::{AsnRange, Duration, Length, Percent, PortMode, Ratio, Size, Speed};
pub use baseline::Baseline;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

pub mod hosts;

/// An aifab intent: one lossless RoCEv2 back-end fabric, its QoS and its load balancing.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "aifab intent", extend("$id" = "https://aifab.dev/schema/intent.schema.json"))]
pub struct Intent {
    /// Format version of this file. Only `1` exists.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// The fabric: topology, addressing, BGP and MTU.
    pub fabric: Fabric,
    /// Traffic classes, PFC and ECN.
    pub qos: Qos,
    /// Dynamic load balancing and ECMP hashing.
    #[serde(default)]
    pub load_balancing: LoadBalancing,
    /// The device baseline every switch gets: users, AAA, NTP, syslog, SNMPv3, DNS, banner, LLDP, SSH
    /// and API access, so a rendered config can replace the whole running-config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// Per-device exceptions, applied in order: for each field, the last override that matches a device
    /// and sets the field wins over earlier ones and over the fabric-wide setting.
    #[serde(default)]
    pub overrides: Vec<Override>,
    /// Lines aifab renders verbatim at the end of every NX-OS and EOS config (before EOS's `end`,
    /// before NX-OS's management section), like AVD's raw CLI: one list item per line, an indented
    /// item belongs to the line above. A push owns them as its own (docs/push.md#site-lines).
    /// Checked by AIF-SITE-001 (no control character, brace or placeholder; no section aifab owns).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 512))]
    pub site_lines: Vec<SiteLine>,
    /// Errors the fabric accepts knowingly: each names an acknowledgeable rule (docs/checks.md says which)
    /// and why. The rule is then reported as an acknowledged exception on every device (a validate
    /// warning `AIF-ACK-003`, a header comment in each affected config, a line in the change report)
    /// instead of rejecting the intent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledge: Vec<Acknowledgement>,
    /// The servers' half of the lossless classes: NIC QoS, NCCL, per-rail routing and Kubernetes pools,
    /// written under `hosts/` (docs/hosts.md). Absent: no host output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<hosts::Hosts>,
}

/// One acknowledged exception: a rule id and the reason, which is printed in the configs it affects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Acknowledgement {
    /// Id of an acknowledgeable rule (`AIF-LB-005`).
    #[schemars(regex(pattern = r"^AIF-[A-Z]+-[0-9]{3}$"), example = &"AIF-LB-005")]
    pub rule: String,
    /// Why the fabric accepts it, printed in the header of every affected config: 1-160 printable
    /// ASCII characters, no `;`, not starting with a space.
    #[schemars(
        regex(pattern = r"^[!-:<-~][ -:<-~]{0,159}$"),
        example = &"DLB tested with our ECN and CNP settings in the lab"
    )]
    pub reason: String,
}

/// The physical and logical fabric.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fabric {
    /// Fabric name: used in file headers and Ansible group names. Letters, digits, `-` and `_`.
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]{0,62}$"), example = &"pod1")]
    pub name: String,
    /// Servers, rails and switch tiers.
    pub topology: Topology,
    /// Address pools.
    pub addressing: Addressing,
    /// eBGP underlay numbering.
    pub bgp: Bgp,
    /// IP MTU of every fabric and server port, in bytes. The same number is rendered on every OS, so it must
    /// not exceed the smallest maximum of the platforms used (EOS: 9214). RoCE's 4096-byte path MTU plus
    /// its headers needs at least 4200.
    #[serde(default = "default_mtu")]
    #[schemars(range(min = 1500, max = 9216), example = 9214)]
    pub mtu: u32,
    /// Out-of-band management addresses, when Ansible should reach switches by address and not by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub management: Option<Management>,
}

fn default_mtu() -> u32 {
    9214
}

/// Fabric shape. Servers are cut into groups ("scalable units") of `servers_per_group`; each group has one
/// leaf per rail, and NIC n of every server in the group connects to rail leaf n of that group.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// `rail-optimized`: leaves and one spine layer (2-tier). `three-tier`: zones of leaves and spines,
    /// joined by a super-spine layer.
    pub kind: TopologyKind,
    /// Number of GPU servers.
    #[schemars(range(min = 1), example = 128)]
    pub servers: u32,
    /// NICs per server (rails). NIC n of every server lands on rail leaf n of its group.
    #[schemars(range(min = 1, max = 64), example = 8)]
    pub rails: u32,
    /// Speed of each server NIC.
    pub nic_speed: Speed,
    /// Servers per group (scalable unit): each rail leaf of a group has this many server ports.
    #[schemars(range(min = 1), example = 32)]
    pub servers_per_group: u32,
    /// Server hostname pattern, used in port descriptions and the cabling plan. Placeholders: `{index}`
    /// (1-based server number), `{group}`, `{slot}` (1-based position in the group).
    #[serde(default = "default_server_hostname")]
    #[schemars(example = &"gpu{index:04}")]
    pub server_hostname: String,
    /// Server NIC name pattern. Placeholders: `{rail}` (1-based), `{nic}` (0-based) and `{port}` (1-based
    /// NIC port, always 1 on single-port NICs), which a two-port NIC's pattern must use.
    #[serde(default = "default_server_nic")]
    #[schemars(example = &"eth{nic}")]
    pub server_nic: String,
    /// Ports per NIC: 1, or 2 for a dual-homed NIC (Alibaba HPN: each NIC port to its own leaf). With 2,
    /// `homing` says where the two ports go.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 2))]
    pub nic_ports: u32,
    /// Where the two ports of a two-port NIC land (`nic_ports: 2` only): `same-leaf`, `two-leaves` (two
    /// leaves of one plane, both under the same spines) or `two-planes` (leaf plane 1 and leaf plane 2,
    /// each plane its own leaves, spines and super-spines, never joined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homing: Option<Homing>,
    /// Number of zones (three-tier only). Groups are spread evenly across zones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub zones: Option<u32>,
    /// The rail leaves.
    pub leaf: LeafTier,
    /// The spine layer (per zone, in a three-tier fabric).
    pub spine: SpineTier,
    /// The super-spine layer (three-tier only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub super_spine: Option<SuperSpineTier>,
    /// Cable lengths per tier: they set PFC headroom (SONiC CABLE_LENGTH, NX-OS pause buffer above 100 m).
    pub cable_length: CableLengths,
}

/// Which fabric shape to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// Leaves and spines; every leaf connects to every spine.
    RailOptimized,
    /// Zones of leaves and spines (every leaf to every spine of its zone), spines to super-spines.
    ThreeTier,
}

/// Where the two ports of a two-port NIC land.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Homing {
    /// Both ports on the NIC's one leaf, on two adjacent server ports.
    SameLeaf,
    /// Port 1 and port 2 on two different leaves (sides 1 and 2) of the same plane: both leaves connect
    /// to the same spines.
    TwoLeaves,
    /// Port p on a leaf of plane p (HPN dual-plane): a plane's leaves connect only to the plane's spines,
    /// its spines only to the plane's super-spines. Spine n of a zone is in plane ((n-1) mod 2)+1.
    TwoPlanes,
}

/// How servers attach to leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Attachment {
    /// Rail-optimized: each group has one leaf per rail (per side), NIC n of every server of the group on
    /// rail leaf n.
    #[default]
    Rail,
    /// Rack leaves (Meta's rack training switch): each group is a rack with one leaf (per side) that takes
    /// every NIC of every server in the rack. Leaf names use `{rack}` (or `{group}`), not `{rail}`.
    Rack,
}

impl Attachment {
    /// True for the default, rail attachment (left out when serialized).
    pub fn is_rail(&self) -> bool {
        *self == Attachment::Rail
    }
}

/// Leaf layer settings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafTier {
    /// Platform as `<os>/<model>`, a name listed in `vendors/<os>.yaml`.
    #[schemars(regex(pattern = r"^(nxos|eos|sonic)/[a-z0-9][a-z0-9._-]*$"), example = &"nxos/n9k-c9364d-gx2a")]
    pub platform: String,
    /// Hostname pattern. Placeholders: `{group}` (alias `{rack}`), `{rail}` (rail leaves only), `{zone}`,
    /// `{index}` (1-based), `{side}` (the NIC port the leaf takes, 1 or 2) and `{plane}` (its leaf plane),
    /// with an optional zero-pad width: `{group:02}`.
    #[schemars(example = &"su{group}-r{rail}-leaf")]
    pub hostname: String,
    /// `rail` (the default: one leaf per rail in each group) or `rack` (one leaf per rack taking all NICs
    /// of its servers; a group is a rack).
    #[serde(default, skip_serializing_if = "Attachment::is_rail")]
    pub attachment: Attachment,
    /// Speed of each leaf uplink.
    pub uplink_speed: Speed,
    /// Leaf oversubscription, server bandwidth : uplink bandwidth.
    #[serde(default = "one_to_one")]
    pub oversubscription: Ratio,
    /// OS release these switches run, as the vendor spells it (`10.5(2)F`, `4.34.1F`, `202505`): every
    /// rendered feature is checked against its minimum release (docs/platforms/<os>.md#os-releases).
    /// Without it no release is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9][0-9A-Za-z().]{0,31}$"), example = &"10.5(2)F")]
    pub os_version: Option<String>,
    /// Breakout mode of this tier's ports whose links run at its child speed (`2x400G`: each
    /// front-panel port runs as two 400G ports). Without it, a link speed below the platform's native
    /// port speed takes the platform's breakout with the most ports at that speed, so a 64 x 800G leaf
    /// with 400G NICs gives 128 x 400G server ports (docs/platforms/<os>.md#breakout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakout: Option<PortMode>,
}

/// Spine layer settings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpineTier {
    /// Platform as `<os>/<model>`.
    #[schemars(regex(pattern = r"^(nxos|eos|sonic)/[a-z0-9][a-z0-9._-]*$"), example = &"eos/7800r3")]
    pub platform: String,
    /// Hostname pattern. Placeholders: `{index}` (1-based within the zone), `{zone}`, `{plane}` (the
    /// spine's plane: leaf plane with `homing: two-planes`, else its super-spine plane; 1 without planes).
    #[schemars(example = &"spine{index:02}")]
    pub hostname: String,
    /// Number of spines (per zone, in a three-tier fabric), of all planes. Leaf uplinks are spread evenly
    /// across the spines of the leaf's plane.
    #[schemars(range(min = 1), example = 16)]
    pub count: u32,
    /// Speed of each spine uplink to the super-spines (three-tier only; defaults to the leaf uplink speed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_speed: Option<Speed>,
    /// Spine oversubscription towards the super-spines (three-tier only): leaf-facing : super-spine-facing.
    #[serde(default = "one_to_one")]
    pub oversubscription: Ratio,
    /// OS release these switches run, as the vendor spells it (`10.5(2)F`, `4.34.1F`, `202505`): every
    /// rendered feature is checked against its minimum release (docs/platforms/<os>.md#os-releases).
    /// Without it no release is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9][0-9A-Za-z().]{0,31}$"), example = &"10.5(2)F")]
    pub os_version: Option<String>,
    /// Breakout mode of this tier's ports whose links run at its child speed (`2x400G`: each
    /// front-panel port runs as two 400G ports). Without it, a link speed below the platform's native
    /// port speed takes the platform's breakout with the most ports at that speed, so a 64 x 800G leaf
    /// with 400G NICs gives 128 x 400G server ports (docs/platforms/<os>.md#breakout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakout: Option<PortMode>,
}

/// Super-spine layer settings (three-tier only).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuperSpineTier {
    /// Platform as `<os>/<model>`.
    #[schemars(regex(pattern = r"^(nxos|eos|sonic)/[a-z0-9][a-z0-9._-]*$"))]
    pub platform: String,
    /// Hostname pattern. Placeholders: `{index}` (1-based), `{plane}`.
    #[schemars(example = &"superspine{index:02}")]
    pub hostname: String,
    /// Total number of super-spines.
    #[schemars(range(min = 1))]
    pub count: u32,
    /// Spine planes: spine n of every zone connects only to the super-spines of plane ((n-1) mod planes)+1.
    /// 1 (the default) connects every spine to every super-spine.
    #[serde(default = "one")]
    #[schemars(range(min = 1))]
    pub planes: u32,
    /// OS release these switches run, as the vendor spells it (`10.5(2)F`, `4.34.1F`, `202505`): every
    /// rendered feature is checked against its minimum release (docs/platforms/<os>.md#os-releases).
    /// Without it no release is checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9][0-9A-Za-z().]{0,31}$"), example = &"10.5(2)F")]
    pub os_version: Option<String>,
    /// Breakout mode of this tier's ports whose links run at its child speed (`2x400G`: each
    /// front-panel port runs as two 400G ports). Without it, a link speed below the platform's native
    /// port speed takes the platform's breakout with the most ports at that speed, so a 64 x 800G leaf
    /// with 400G NICs gives 128 x 400G server ports (docs/platforms/<os>.md#breakout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakout: Option<PortMode>,
}

fn default_server_hostname() -> String {
    "server{index:04}".into()
}

fn default_server_nic() -> String {
    "nic{rail}".into()
}

fn one() -> u32 {
    1
}

fn one_to_one() -> Ratio {
    Ratio { down: 1, up: 1 }
}

/// Cable length per tier.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CableLengths {
    /// Server NIC to leaf.
    pub server: Length,
    /// Leaf to spine.
    pub leaf_spine: Length,
    /// Spine to super-spine (three-tier only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spine_super_spine: Option<Length>,
}

/// Address pools. Allocation is deterministic: adding a server group at the end never moves an existing
/// address.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Addressing {
    /// Router-id / loopback0 pool: one /32 per switch.
    #[schemars(example = &"10.0.0.0/22")]
    pub loopbacks: Prefix,
    /// Switch-to-switch links: one /31 per link, the upper-tier switch takes the even address.
    #[schemars(example = &"10.1.0.0/17")]
    pub fabric_links: Prefix,
    /// Server-facing addresses: one /31 per NIC (`routed`) or one subnet per rail leaf (`rail-subnet`).
    #[schemars(example = &"10.2.0.0/16")]
    pub server_links: Prefix,
    /// How server NICs are addressed.
    #[serde(default)]
    pub server_mode: ServerMode,
    /// `rail-subnet` only: the VLAN that carries each rail leaf's server subnet.
    #[serde(default = "default_server_vlan")]
    #[schemars(range(min = 2, max = 4094))]
    pub server_vlan: u16,
    /// `rail-subnet` only: addresses each server port adds to its leaf's subnet for Kubernetes pods
    /// (the leaf's SpiderIPPool, docs/hosts.md). 1 gives every server one pod address per NIC port;
    /// 0 (the default) sizes the subnet for the servers' own addresses.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(range(max = 64))]
    pub pod_addresses_per_port: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn default_server_vlan() -> u16 {
    100
}

/// Server-facing addressing mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ServerMode {
    /// A routed /31 per NIC; the switch takes the even address.
    #[default]
    Routed,
    /// One subnet per rail leaf, the leaf is the gateway (first usable address) on a VLAN interface: what
    /// a Kubernetes RDMA CNI such as Spiderpool hands out per rail.
    RailSubnet,
}

/// eBGP numbering.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bgp {
    /// Spine ASN. In a three-tier fabric give a range: zone n takes the n-th ASN.
    pub spine_asn: AsnRange,
    /// Super-spine ASN (three-tier only), shared by all super-spines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub super_spine_asn: Option<AsnRange>,
    /// Leaf ASN range: one ASN per leaf, in a stable order (zone, group, rail).
    pub leaf_asn: AsnRange,
    /// ECMP width of the BGP multipath.
    #[serde(default = "default_max_paths")]
    #[schemars(range(min = 1, max = 512))]
    pub maximum_paths: u32,
}

fn default_max_paths() -> u32 {
    64
}

/// Out-of-band management addressing.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Management {
    /// Management subnet (its prefix length is rendered on the management interface).
    #[schemars(example = &"192.168.0.0/22")]
    pub subnet: Prefix,
    /// Default gateway in the management VRF.
    pub gateway: std::net::IpAddr,
    /// First address of each role; devices of a role take consecutive addresses from it, in order.
    pub first: ManagementFirst,
}

/// First management address of each role.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManagementFirst {
    /// First leaf address.
    pub leaf: std::net::IpAddr,
    /// First spine address.
    pub spine: std::net::IpAddr,
    /// First super-spine address (three-tier only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub super_spine: Option<std::net::IpAddr>,
}

/// Traffic classes and PFC.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Qos {
    /// Traffic classes by name. Exactly one class has no `dscp`: it is the default class (everything
    /// unmatched). Names become config identifiers: letters, digits, `-`, `_`.
    #[schemars(extend("propertyNames" = {"pattern": "^[A-Za-z][A-Za-z0-9_-]{0,31}$"}))]
    pub classes: BTreeMap<String, QosClass>,
    /// PFC watchdog: detects a queue stuck by PFC storms and drops its traffic until it recovers.
    pub pfc_watchdog: PfcWatchdog,
}

/// One traffic class.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QosClass {
    /// DSCP values that select this class (0-63). Leave out for the default class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dscp: Option<Vec<Dscp>>,
    /// Priority: the class's traffic class and PFC priority, and its queue (except that a platform which
    /// puts strict queues on the top queues, NX-OS, moves strict classes there). The default class uses 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 7))]
    pub priority: Option<u8>,
    /// PFC no-drop on this priority, DSCP-based on routed ports.
    #[serde(default)]
    pub lossless: bool,
    /// ECN marking (WRED with ECN) on this class's queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<Ecn>,
    /// Weighted share of what the strict queues leave. Shares of non-strict classes sum to 100%.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Percent>,
    /// Strict-priority queue (CNP and CTS classes). Never lossless.
    #[serde(default)]
    pub strict: bool,
    /// Strict classes: the most the class may send on a port, in percent of the port speed (a shaper on
    /// its queue), so that hosts marking too much traffic into it cannot starve the other queues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rate: Option<Percent>,
}

/// A DSCP value 0-63.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct Dscp(#[schemars(range(min = 0, max = 63))] pub u8);

/// ECN marking thresholds for one queue.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ecn {
    /// Queue depth where marking starts.
    pub min: Size,
    /// Queue depth where every packet is marked.
    pub max: Size,
    /// Marking probability at `max`, in percent (1-100).
    pub probability: Percent,
}

/// PFC watchdog timers.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfcWatchdog {
    /// Watchdog on or off.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// How long a queue must stay paused before it is declared stuck.
    pub detect: Duration,
    /// How long the watchdog acts before restoring the queue.
    pub restore: Duration,
    /// What happens to a stuck queue's traffic.
    #[serde(default)]
    pub action: WatchdogAction,
}

fn yes() -> bool {
    true
}

/// Load-balancing features.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadBalancing {
    /// Dynamic load balancing.
    #[serde(default)]
    pub dlb: Dlb,
    /// ECMP hashing.
    #[serde(default)]
    pub hash: Hash,
}

/// Dynamic load balancing on the uplinks.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dlb {
    /// `per-packet` (spraying; NICs must tolerate reordering), `flowlet`, or `off`.
    #[serde(default)]
    pub mode: DlbMode,
    /// Roles where DLB applies (the first hop decides the path: usually `[leaf]`). An empty list selects no
    /// role, as in every `roles` list: DLB then runs only on devices an override gives a `dlb` mode.
    #[serde(default = "leaf_only")]
    pub roles: Vec<Role>,
    /// DLB virtual next-hop MAC (NX-OS), the same on every switch. Unicast.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<Mac>,
    /// Flowlet inactivity gap (flowlet mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flowlet_gap: Option<Duration>,
}

impl Default for Dlb {
    fn default() -> Self {
        Dlb {
            mode: DlbMode::Off,
            roles: leaf_only(),
            mac: None,
            flowlet_gap: None,
        }
    }
}

fn leaf_only() -> Vec<Role> {
    vec![Role::Leaf]
}

/// ECMP hashing.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hash {
    /// Hash on the RoCEv2 BTH destination QP (UDP 4791, L4 bytes 13-15), for entropy when many flows share
    /// a 5-tuple.
    #[serde(default)]
    pub roce_dest_qp: bool,
    /// Roles where the QP hash applies. An empty list selects no role, as in every `roles` list: QP
    /// hashing then runs only on devices an override gives `roce_dest_qp: true`.
    #[serde(default = "all_roles")]
    pub roles: Vec<Role>,
}

impl Default for Hash {
    fn default() -> Self {
        Hash {
            roce_dest_qp: false,
            roles: all_roles(),
        }
    }
}

fn all_roles() -> Vec<Role> {
    vec![Role::Leaf, Role::Spine, Role::SuperSpine]
}

/// A per-device exception.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// Hostname or glob (`su3-r*-leaf`) selecting the devices; must match at least one.
    #[serde(rename = "match")]
    #[schemars(example = &"su3-r7-leaf")]
    pub matches: String,
    /// Another platform for these devices (same OS family or not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^(nxos|eos|sonic)/[a-z0-9][a-z0-9._-]*$"))]
    pub platform: Option<String>,
    /// DLB mode for these devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dlb: Option<DlbMode>,
    /// QP hashing on or off for these devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roce_dest_qp: Option<bool>,
    /// Management address for this one device (overrides the pool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub management: Option<std::net::IpAddr>,
    /// OS release of these devices (replaces their tier's `os_version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9][0-9A-Za-z().]{0,31}$"), example = &"10.5(2)F")]
    pub os_version: Option<String>,
    /// Errors accepted for these devices only (added to the fabric-wide `acknowledge`; for one rule the
    /// last matching override's reason wins).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledge: Vec<Acknowledgement>,
    /// Site lines for these devices, after the fabric's `site_lines` and those of earlier matching
    /// overrides (docs/push.md#site-lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 512))]
    pub site_lines: Vec<SiteLine>,
}

/// One site line, rendered as written (AIF-SITE-001 checks it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SiteLine(
    #[schemars(length(min = 1, max = 400), example = &"daemon TerminAttr")] pub String,
);

/// Why a prefix or a MAC address of the intent could not be read; the text names the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// Not a prefix at all.
    #[error("`{0}` is not a prefix like 10.0.0.0/22")]
    NotAPrefix(String),
    /// An address without its prefix length.
    #[error("`{0}` needs a prefix length, e.g. `{0}/24`")]
    NoLength(String),
    /// Host bits set.
    #[error("`{text}` has host bits set: the network is {network}")]
    HostBits {
        /// The prefix as written.
        text: String,
        /// The network it names (address/length).
        network: String,
    },
    /// Not a MAC address.
    #[error("`{0}` is not a MAC like 00:cc:cc:cc:cc:cc")]
    NotAMac(String),
}

/// An IP prefix (`10.0.0.0/22`). IPv4 today; the type accepts IPv6 so the format will not change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefix(pub ipnetwork::IpNetwork);

impl Prefix {
    /// Parses a prefix and insists that no host bits are set.
    pub fn parse(text: &str) -> Result<Prefix, AddressError> {
        let net: ipnetwork::IpNetwork = text
            .parse()
            .map_err(|_| AddressError::NotAPrefix(text.to_string()))?;
        if !text.contains('/') {
            return Err(AddressError::NoLength(text.to_string()));
        }
        if net.network() != net.ip() {
            return Err(AddressError::HostBits {
                text: text.to_string(),
                network: format!("{}/{}", net.network(), net.prefix()),
            });
        }
        Ok(Prefix(net))
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<'de> Deserialize<'de> for Prefix {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Prefix::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Prefix {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Prefix {
    fn schema_name() -> Cow<'static, str> {
        "Prefix".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An IP prefix with its length, no host bits set (`10.0.0.0/22`).",
            "type": "string",
            "pattern": "^([0-9]{1,3}\\.){3}[0-9]{1,3}/[0-9]{1,2}$|^[0-9a-fA-F:]+/[0-9]{1,3}$",
            "examples": ["10.0.0.0/22"]
        })
    }
}

/// A MAC address `00:cc:cc:cc:cc:cc` (lower or upper case hex, colon separated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mac(pub [u8; 6]);

impl Mac {
    /// Parses `00:cc:cc:cc:cc:cc`.
    pub fn parse(text: &str) -> Result<Mac, AddressError> {
        let parts: Vec<&str> = text.split(':').collect();
        if parts.len() != 6 {
            return Err(AddressError::NotAMac(text.to_string()));
        }
        let mut m = [0u8; 6];
        for (i, p) in parts.iter().enumerate() {
            if p.len() != 2 {
                return Err(AddressError::NotAMac(text.to_string()));
            }
            m[i] =
                u8::from_str_radix(p, 16).map_err(|_| AddressError::NotAMac(text.to_string()))?;
        }
        Ok(Mac(m))
    }
    /// True for a multicast or broadcast MAC (I/G bit set).
    pub fn is_multicast(self) -> bool {
        self.0[0] & 1 == 1
    }
}

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let m = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        )
    }
}

impl<'de> Deserialize<'de> for Mac {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Mac::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Mac {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Mac {
    fn schema_name() -> Cow<'static, str> {
        "Mac".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A MAC address, six colon-separated hex bytes (`00:cc:cc:cc:cc:cc`).",
            "type": "string",
            "pattern": "^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$",
            "examples": ["00:cc:cc:cc:cc:cc"]
        })
    }
}
