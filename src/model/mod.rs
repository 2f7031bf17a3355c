//! The vendor-neutral device model: every device, port, link, address, ASN and resolved QoS setting of
//! one fabric, fully explicit. Renderers read this and never recompute fabric arithmetic. OS spellings
//! belong in `crate::os`, which turns a device into the structured config one OS's templates print.
//!
//! `aifab compile --format json|yaml` prints it.

pub mod baseline;

use crate::kinds::{DlbMode, Os, QpHashMethod, Role, Support, WatchdogAction};
pub use baseline::{BaselinePlan, Secret};
use serde::Serialize;
use std::fmt;
use std::net::Ipv4Addr;
use std::sync::Arc;

pub mod hosts;

/// A name that many places of the model mention (a port, a device, a server, a NIC): stored once and
/// shared, so that the half a million interfaces, neighbours and links of a 100K-GPU fabric do not each
/// carry their own copies. It prints and serializes as the plain string.
pub type Name = Arc<str>;

/// The compiled fabric.
#[derive(Clone, Debug, Serialize)]
pub struct FabricModel {
    /// Fabric name from the intent.
    pub name: String,
    /// Devices in a stable order: super-spines, spines, leaves; each by zone, group, rail, index.
    pub devices: Vec<Device>,
    /// Every cable: server links and switch links.
    pub links: Vec<Link>,
    /// Counts for `aifab plan` and the tests.
    pub summary: Summary,
    /// The servers' settings, when the intent has an enabled `hosts` section (`hosts/` output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Arc<hosts::HostsPlan>>,
}

/// How many leaves' loopbacks `aifab verify` samples the ECMP width towards ([`FabricModel::route_samples`]).
pub const ROUTE_SAMPLES: usize = 16;

impl FabricModel {
    /// The leaves whose loopback every switch's route to is collected and checked by `aifab verify`
    /// (`aifab_route_samples` in the inventory): up to [`ROUTE_SAMPLES`] leaves spread over the leaves
    /// in model order by a stride coprime with their count (zones, groups and rails mixed). A leaf announces its loopback and its
    /// server subnets alike, so its loopback's next hops are its subnets' (the ECMP width); sampling
    /// keeps the collected route tables small at any fabric size (a full table of a 100K-GPU fabric's
    /// leaf holds 100,000 prefixes with 64 next hops each).
    pub fn route_samples(&self) -> Vec<(&str, Ipv4Addr)> {
        let leaves: Vec<&Device> = self
            .devices
            .iter()
            .filter(|d| d.role == Role::Leaf)
            .collect();
        let len = leaves.len();
        let n = len.min(ROUTE_SAMPLES);
        // A stride coprime with the leaf count visits n distinct leaves and, unlike an even stride,
        // every rail of a rail-ordered fabric (32 leaves of 8 rails: stride 3, not 2).
        let gcd = |mut a: usize, mut b: usize| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let mut step = len.div_ceil(n.max(1)).max(1);
        while gcd(step, len) != 1 {
            step += 1;
        }
        let mut picked: Vec<usize> = (0..n).map(|k| k * step % len).collect();
        picked.sort_unstable();
        picked
            .into_iter()
            .map(|k| (leaves[k].hostname.as_str(), leaves[k].loopback))
            .collect()
    }
}

/// One switch.
#[derive(Clone, Debug, Serialize)]
pub struct Device {
    /// Hostname (validated: RFC 1123 label, safe as a file name).
    pub hostname: String,
    /// Role in the fabric.
    pub role: Role,
    /// Operating system.
    pub os: Os,
    /// Platform name as `<os>/<model>`.
    pub platform: String,
    /// Zone (three-tier), 1-based.
    pub zone: Option<u32>,
    /// Server group (leaves), 1-based.
    pub group: Option<u32>,
    /// Rail (rail leaves), 1-based; `None` for rack leaves, which take every rail.
    pub rail: Option<u32>,
    /// Plane, 1-based: a leaf's leaf plane (`homing: two-planes`), a spine's or super-spine's spine plane
    /// (three-tier, or two-plane fabrics), which lies in leaf plane ((p-1) mod leaf planes)+1.
    pub plane: Option<u32>,
    /// Index within the role (and zone), 1-based.
    pub index: u32,
    /// Loopback0 address, also the BGP router-id.
    pub loopback: Ipv4Addr,
    /// Out-of-band management address, when the intent gives one.
    pub management: Option<ManagementAddr>,
    /// Every used front-panel port, by port number.
    pub interfaces: Vec<Interface>,
    /// Every front-panel port no link uses, by port number: rendered shut with a description, so a
    /// replace push leaves no port in its default state. Empty on devices `--only` did not expand.
    pub unused_ports: Vec<UnusedPort>,
    /// Front-panel ports broken out, in panel order (empty when every port runs unbroken): port
    /// numbers of `interfaces` and `unused_ports` then count the child ports (see [`Device::locate`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub port_groups: Vec<PortGroup>,
    /// `rail-subnet` server mode: the server VLAN and the leaf's gateway address.
    pub server_subnet: Option<ServerSubnet>,
    /// eBGP underlay.
    pub bgp: BgpPlan,
    /// QoS plan, shared by every device of the same platform.
    pub qos: Arc<QosPlan>,
    /// DLB on this device (None when off).
    pub dlb: Option<DlbPlan>,
    /// QP hashing on this device (None when off).
    pub qp_hash: Option<QpHashPlan>,
    /// Lines the renderers must put in the config as comments: unverified syntax and the reference it
    /// follows, reload needs.
    pub notes: Vec<Note>,
    /// Errors the intent acknowledged for this device, in registry order: each becomes a header
    /// comment of its config and a line of the change report.
    pub acknowledged: Vec<Acknowledged>,
    /// The intent's site lines for this device, rendered verbatim (docs/push.md#site-lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site_lines: Vec<String>,
    /// The device baseline (users, AAA, NTP, ...), shared by every device; None without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Arc<BaselinePlan>>,
}

/// An acknowledged exception on one device: the rule that would have rejected the intent and the
/// intent's reason for accepting it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Acknowledged {
    /// Rule id (`AIF-LB-005`).
    pub rule: String,
    /// The intent's reason (checked printable ASCII, no `;`).
    pub reason: String,
    /// JSON pointer of the acknowledgement in the intent.
    #[serde(skip)]
    pub pointer: String,
}

impl Acknowledged {
    /// The header comment text: `aifab: acknowledged AIF-LB-005: <reason>`.
    pub fn comment(&self) -> String {
        format!("aifab: acknowledged {}: {}", self.rule, self.reason)
    }
}

/// A management address with its prefix length and gateway.
#[derive(Clone, Debug, Serialize)]
pub struct ManagementAddr {
    /// Address.
    pub ip: std::net::IpAddr,
    /// Prefix length of the management subnet.
    pub prefix_len: u8,
    /// Default gateway.
    pub gateway: std::net::IpAddr,
}

/// What a port connects to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortKind {
    /// A server NIC.
    Server,
    /// Another switch.
    Fabric,
}

/// Which side of the device a port faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Towards servers or a lower tier.
    Down,
    /// Towards a higher tier.
    Up,
}

/// A run of consecutive front-panel ports that run in one mode. Port numbers count the child ports of
/// every group in order: the first group's ports 1.., then the next group's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortGroup {
    /// First front-panel port of the run, 1-based.
    pub first_panel: u32,
    /// Front-panel ports in the run.
    pub panels: u32,
    /// Ports each front-panel port runs as (1: not broken out).
    pub children: u32,
    /// Speed of each child port, Gbit/s.
    pub speed_gbps: u32,
}

/// Where a port number sits: its front-panel port, which child (1-based) and of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortPlace {
    /// Front-panel port, 1-based.
    pub panel: u32,
    /// Child, 1-based (1 when not broken out).
    pub child: u32,
    /// Children of the front-panel port (1 when not broken out).
    pub children: u32,
    /// Speed of the port, Gbit/s (0 when no port is broken out: the interface's own speed holds).
    pub speed_gbps: u32,
}

impl Device {
    /// The front-panel port and child of port number `port`: itself when no port is broken out.
    pub fn locate(&self, port: u32) -> Option<PortPlace> {
        locate(&self.port_groups, port)
    }

    /// The broken-out port groups: front-panel ports and their mode, in panel order.
    pub fn breakouts(&self) -> impl Iterator<Item = &PortGroup> {
        self.port_groups.iter().filter(|g| g.children > 1)
    }
}

/// [`Device::locate`] over a list of port groups.
pub fn locate(groups: &[PortGroup], port: u32) -> Option<PortPlace> {
    if groups.is_empty() {
        return (port >= 1).then_some(PortPlace {
            panel: port,
            child: 1,
            children: 1,
            speed_gbps: 0,
        });
    }
    let mut first = 1u32;
    for g in groups {
        let n = g.panels * g.children;
        if port >= first && port < first + n {
            let k = port - first;
            return Some(PortPlace {
                panel: g.first_panel + k / g.children,
                child: k % g.children + 1,
                children: g.children,
                speed_gbps: g.speed_gbps,
            });
        }
        first += n;
    }
    None
}

/// A front-panel port of the platform that no link uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnusedPort {
    /// OS interface name (`Ethernet1/17`, `Ethernet17/1`, `Ethernet64`).
    pub name: Name,
    /// Port number, 1-based: the front-panel port, or a child's place when ports are broken out
    /// ([`Device::locate`]).
    pub port: u32,
}

/// One front-panel port in use.
#[derive(Clone, Debug, Serialize)]
pub struct Interface {
    /// OS interface name (`Ethernet1/5`, `Ethernet5/1`, `Ethernet32`).
    pub name: Name,
    /// Port number, 1-based: the front-panel port, or a child's place when ports are broken out
    /// ([`Device::locate`]).
    pub port: u32,
    /// Server or fabric.
    pub kind: PortKind,
    /// Up or down.
    pub direction: Direction,
    /// Speed in Gbit/s.
    pub speed_gbps: u32,
    /// Peer device or server name.
    pub peer: Name,
    /// Peer port name.
    pub peer_port: Name,
    /// `peer:peer_port`, the interface description.
    pub description: String,
    /// Routed address with prefix length (`10.1.0.0/31`); None for a port in the server VLAN.
    pub address: Option<Name>,
    /// Our address without prefix length.
    pub ip: Option<Ipv4Addr>,
    /// Peer's address on the /31.
    pub peer_ip: Option<Ipv4Addr>,
    /// Access VLAN (`rail-subnet` server ports).
    pub vlan: Option<u16>,
    /// IP MTU.
    pub mtu: u32,
    /// Cable length in metres.
    pub cable_m: u32,
    /// This port is a DLB interface.
    pub dlb: bool,
}

/// A rail leaf's server subnet.
#[derive(Clone, Debug, Serialize)]
pub struct ServerSubnet {
    /// VLAN id.
    pub vlan: u16,
    /// Subnet (`10.2.0.0/26`).
    pub prefix: Name,
    /// Gateway address with prefix length (`10.2.0.1/26`).
    pub gateway: String,
    /// Gateway address alone.
    pub gateway_ip: Ipv4Addr,
    /// Prefix length.
    pub prefix_len: u8,
}

/// eBGP settings of one device.
#[derive(Clone, Debug, Serialize)]
pub struct BgpPlan {
    /// Local ASN.
    pub asn: u32,
    /// Router-id (= loopback).
    pub router_id: Ipv4Addr,
    /// ECMP width.
    pub maximum_paths: u32,
    /// One per fabric link.
    pub neighbors: Vec<Neighbor>,
    /// Each neighbor switch once, in port order of its first link (SONiC DEVICE_NEIGHBOR_METADATA).
    pub peers: Vec<Peer>,
    /// Prefixes to advertise: loopback /32, server /31s or the server subnet.
    pub networks: Vec<Name>,
}

/// A neighbor switch.
#[derive(Clone, Debug, Serialize)]
pub struct Peer {
    /// Hostname.
    pub name: Name,
    /// Role.
    pub role: Role,
}

/// One BGP neighbor.
#[derive(Clone, Debug, Serialize)]
pub struct Neighbor {
    /// Neighbor address.
    pub ip: Ipv4Addr,
    /// Our address on the link.
    pub local_ip: Ipv4Addr,
    /// Neighbor ASN.
    pub remote_as: u32,
    /// Neighbor hostname.
    pub peer: Name,
    /// Neighbor's port.
    pub peer_port: Name,
    /// Our interface.
    pub interface: Name,
    /// Our front-panel port number (neighbors are listed in port order).
    pub port: u32,
    /// `peer:peer_port`.
    pub description: String,
    /// Neighbor role.
    pub peer_role: Role,
}

/// The QoS plan of one platform: resolved from the intent's classes with the platform's units.
#[derive(Clone, Debug, Serialize)]
pub struct QosPlan {
    /// Classes ordered by priority, highest first; the default class last.
    pub classes: Vec<ClassPlan>,
    /// Lossless priorities, ascending.
    pub lossless_priorities: Vec<u8>,
    /// DSCP → priority for all 64 DSCPs (index = DSCP).
    pub dscp_to_tc: Vec<u8>,
    /// Priority of the default class (every DSCP no class names).
    pub default_priority: u8,
    /// DSCPs no class names, ascending: mapped explicitly to the default class where the OS's built-in
    /// map would put them elsewhere (EOS maps DSCP 0-7 to TC 1).
    pub default_dscps: Vec<u8>,
    /// The eight queues 0-7 with their scheduling.
    pub queues: Vec<QueuePlan>,
    /// PFC watchdog.
    pub watchdog: WatchdogPlan,
}

impl QosPlan {
    /// A plan with nothing in it: the compiler's placeholder until a device's platform plan is resolved.
    pub fn empty() -> QosPlan {
        QosPlan {
            classes: Vec::new(),
            lossless_priorities: Vec::new(),
            dscp_to_tc: Vec::new(),
            default_priority: 0,
            default_dscps: Vec::new(),
            queues: Vec::new(),
            watchdog: WatchdogPlan::disabled(WatchdogAction::Drop),
        }
    }
}

impl WatchdogPlan {
    /// A watchdog that is off (nothing is rendered for it).
    pub fn disabled(action: WatchdogAction) -> WatchdogPlan {
        WatchdogPlan {
            enabled: false,
            detect_ms: 0,
            restore_ms: 0,
            poll_ms: 0,
            action,
            priorities: Vec::new(),
        }
    }
}

/// One traffic class, resolved.
#[derive(Clone, Debug, Serialize)]
pub struct ClassPlan {
    /// Class name (validated identifier).
    pub name: String,
    /// Upper-case class name for config object names (`ROCE`).
    pub ident: String,
    /// Priority: the class's traffic class and PFC priority on the wire and in the DSCP map.
    pub priority: u8,
    /// The egress queue the class uses on this platform: its priority, except where the platform puts
    /// strict queues on the top queues (a lossless class's queue is always its priority).
    pub queue: u8,
    /// Shaper of a strict class: at most this percent of the port speed.
    pub max_rate: Option<u8>,
    /// DSCPs, ascending; empty for the default class.
    pub dscp: Vec<u8>,
    /// True for the class without DSCPs.
    pub is_default: bool,
    /// PFC no-drop.
    pub lossless: bool,
    /// Strict priority.
    pub strict: bool,
    /// Weighted share, percent.
    pub bandwidth: Option<u8>,
    /// ECN thresholds.
    pub ecn: Option<EcnPlan>,
}

/// ECN thresholds in bytes. Each OS writes them in its platform's unit (`crate::os`); the compiler
/// refused a threshold that unit cannot express exactly (`AIF-QOS-020`), so the conversion is exact.
#[derive(Clone, Debug, Serialize)]
pub struct EcnPlan {
    /// Minimum threshold, bytes.
    pub min_bytes: u64,
    /// Maximum threshold, bytes.
    pub max_bytes: u64,
    /// Marking probability at max, percent.
    pub probability: u8,
}

/// Scheduling of one egress queue.
#[derive(Clone, Debug, Serialize)]
pub struct QueuePlan {
    /// Queue number 0-7.
    pub queue: u8,
    /// The class using it, if any.
    pub class: Option<String>,
    /// Strict priority.
    pub strict: bool,
    /// Weighted share, percent (0 for unused queues).
    pub bandwidth: u8,
    /// Lossless queue.
    pub lossless: bool,
    /// Shaper: at most this percent of the port speed (strict classes that set `max_rate`).
    pub max_rate: Option<u8>,
    /// ECN on this queue.
    pub ecn: Option<EcnPlan>,
}

/// PFC watchdog, with the timers in milliseconds (the OS layer writes them in each OS's form).
#[derive(Clone, Debug, Serialize)]
pub struct WatchdogPlan {
    /// On or off.
    pub enabled: bool,
    /// Detection time, ms.
    pub detect_ms: u64,
    /// Restoration time, ms.
    pub restore_ms: u64,
    /// Polling interval, ms: the largest value in 100-1000 that divides both timers, so both are
    /// whole multiples of it (NX-OS multipliers, SONiC POLL_INTERVAL).
    pub poll_ms: u64,
    /// Action.
    pub action: WatchdogAction,
    /// Priorities watched: exactly the lossless ones.
    pub priorities: Vec<u8>,
}

/// DLB on one device.
#[derive(Clone, Debug, Serialize)]
pub struct DlbPlan {
    /// Mode.
    pub mode: DlbMode,
    /// Virtual MAC (NX-OS).
    pub mac: Option<String>,
    /// Flowlet gap, microseconds.
    pub flowlet_gap_us: Option<u64>,
    /// The uplinks.
    pub interfaces: Vec<Name>,
    /// Support level of the platform's DLB CLI.
    pub support: Support,
}

impl DlbPlan {
    /// Whether `other` programs the same DLB: mode, MAC, flowlet gap and uplinks (the support level is
    /// a note, not a setting).
    pub fn same_setting(&self, other: &DlbPlan) -> bool {
        self.mode == other.mode
            && self.mac == other.mac
            && self.flowlet_gap_us == other.flowlet_gap_us
            && self.interfaces == other.interfaces
    }
}

/// QP hashing on one device.
#[derive(Clone, Debug, Serialize)]
pub struct QpHashPlan {
    /// Method.
    pub method: QpHashMethod,
    /// Support level of the platform's CLI.
    pub support: Support,
    /// First byte of the BTH DestQP counted from the start of the L4 (UDP) header: 13.
    pub l4_offset: u32,
    /// Length of the DestQP in bytes: 3.
    pub length_bytes: u32,
    /// UDP destination port of RoCEv2: 4791.
    pub udp_port: u16,
}

/// What a [`Note`] is about: each kind has its own section in `docs/platforms/<os>.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteFeature {
    /// Dynamic load balancing lines whose syntax no public source confirms for the platform.
    Dlb,
    /// RoCEv2 destination-QP hashing lines whose syntax or effect is unconfirmed.
    QpHash,
    /// PFC watchdog timer lines whose spelling is unconfirmed.
    PfcWatchdog,
    /// ECN thresholds on a platform whose packet buffer no public source gives, so AIF-QOS-002 could not
    /// bound them.
    EcnBuffer,
    /// Breakout or port speed lines whose keyword no public source confirms for the platform.
    Breakout,
    /// Local-user lines with a sha512-crypt hash on an OS no public source shows taking one.
    PasswordHash,
}

impl NoteFeature {
    /// The feature as the warnings name it (`dlb`, `qp-hash`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            NoteFeature::Dlb => "dlb",
            NoteFeature::QpHash => "qp-hash",
            NoteFeature::PfcWatchdog => "pfc-watchdog",
            NoteFeature::EcnBuffer => "ecn-buffer",
            NoteFeature::Breakout => "breakout",
            NoteFeature::PasswordHash => "password-hash",
        }
    }

    /// The anchor of the feature's section in `docs/platforms/<os>.md`.
    pub fn doc_anchor(self, os: &str) -> &'static str {
        match (self, os) {
            (NoteFeature::Dlb, "sonic") | (NoteFeature::QpHash, "sonic") => "dlb-and-qp-hash",
            (NoteFeature::Dlb, _) => "dlb",
            (NoteFeature::QpHash, _) => "qp-hash",
            (NoteFeature::PfcWatchdog, _) => "pfc-watchdog",
            (NoteFeature::EcnBuffer, "sonic") => "buffers",
            (NoteFeature::EcnBuffer, _) => "queuing-and-ecn",
            (NoteFeature::Breakout, _) => "breakout",
            (NoteFeature::PasswordHash, _) => "device-baseline",
        }
    }

    /// The intent field a warning about this feature points at.
    pub fn pointer(self) -> &'static str {
        match self {
            NoteFeature::Dlb => "/load_balancing/dlb/mode",
            NoteFeature::QpHash => "/load_balancing/hash/roce_dest_qp",
            NoteFeature::PfcWatchdog => "/qos/pfc_watchdog",
            NoteFeature::EcnBuffer => "/qos/classes",
            NoteFeature::Breakout => "/fabric/topology",
            NoteFeature::PasswordHash => "/baseline/users",
        }
    }
}

/// A comment the renderer must carry into the config: one short line, plain ASCII, that names the
/// section of aifab's own platform docs with the details (never a file the user does not have).
#[derive(Clone, Debug, Serialize)]
pub struct Note {
    /// Feature the note is about.
    pub feature: NoteFeature,
    /// Text of the comment, one line.
    pub text: String,
}

impl Note {
    /// The note for `feature` on a device of `os`/`platform`, saying `what` and where it is documented.
    pub fn new(feature: NoteFeature, os: &str, what: &str) -> Note {
        Note {
            feature,
            text: format!(
                "aifab: {what}, see docs/platforms/{os}.md#{}",
                feature.doc_anchor(os)
            ),
        }
    }
}

/// Which tier of the fabric a cable belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkTier {
    /// A server NIC to its rail leaf.
    ServerLeaf,
    /// A leaf uplink to a spine.
    LeafSpine,
    /// A spine uplink to a super-spine (three-tier fabrics).
    SpineSuperSpine,
}

impl LinkTier {
    /// Every tier, bottom up.
    pub const ALL: [LinkTier; 3] = [
        LinkTier::ServerLeaf,
        LinkTier::LeafSpine,
        LinkTier::SpineSuperSpine,
    ];

    /// The tier as the model and the cabling plan spell it (`server-leaf`, `leaf-spine`,
    /// `spine-super-spine`).
    pub fn as_str(self) -> &'static str {
        match self {
            LinkTier::ServerLeaf => "server-leaf",
            LinkTier::LeafSpine => "leaf-spine",
            LinkTier::SpineSuperSpine => "spine-super-spine",
        }
    }
}

impl fmt::Display for LinkTier {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Compares with the tier's spelling (`l.tier == "server-leaf"`), as the JSON model and the plan print it.
impl PartialEq<&str> for LinkTier {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One cable.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    /// Tier.
    pub tier: LinkTier,
    /// Lower end: device or server name.
    pub a: Name,
    /// Lower end port name.
    pub a_port: Name,
    /// Upper end: device name.
    pub b: Name,
    /// Upper end port name.
    pub b_port: Name,
    /// Speed, Gbit/s.
    pub speed_gbps: u32,
    /// Cable length, metres.
    pub cable_m: u32,
    /// The /31 (or the server subnet, in rail-subnet mode).
    pub subnet: Option<Name>,
    /// Server links: which NIC and NIC port of the server the lower end is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic: Option<NicEnd>,
}

/// The server end of a server link: the NIC (its rail) and the NIC's port, both 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NicEnd {
    /// Rail of the NIC (NIC n of the server is rail n + 1), also on rack leaves.
    pub rail: u32,
    /// Port of the NIC (1 for single-port NICs).
    pub port: u32,
}

/// Fabric counts.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Leaves.
    pub leaves: u32,
    /// Spines (all zones).
    pub spines: u32,
    /// Super-spines.
    pub super_spines: u32,
    /// Servers.
    pub servers: u32,
    /// GPUs (= server NICs).
    pub gpus: u32,
    /// Server links.
    pub server_links: u32,
    /// Leaf-spine links.
    pub leaf_spine_links: u32,
    /// Spine-super-spine links.
    pub spine_super_spine_links: u32,
    /// Leaf oversubscription actually built (`1:1`).
    pub leaf_oversubscription: String,
    /// Spine oversubscription actually built (three-tier).
    pub spine_oversubscription: Option<String>,
    /// ECMP width at a leaf (number of uplinks).
    pub leaf_ecmp_width: u32,
    /// Addresses used per pool.
    pub pools: Vec<PoolUse>,
}

/// One of the intent's address pools (`fabric.addressing.<pool>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressPool {
    /// Router-id / loopback0 addresses, one /32 per switch.
    Loopbacks,
    /// Switch-to-switch /31s.
    FabricLinks,
    /// Server /31s, or the rail subnets in `rail-subnet` mode.
    ServerLinks,
}

impl AddressPool {
    /// The pool's key under `fabric.addressing` (`loopbacks`, `fabric_links`, `server_links`).
    pub fn as_str(self) -> &'static str {
        match self {
            AddressPool::Loopbacks => "loopbacks",
            AddressPool::FabricLinks => "fabric_links",
            AddressPool::ServerLinks => "server_links",
        }
    }

    /// The intent pointer of the pool (`/fabric/addressing/loopbacks`).
    pub fn pointer(self) -> String {
        format!("/fabric/addressing/{}", self.as_str())
    }
}

impl fmt::Display for AddressPool {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// How much of one pool the fabric uses.
#[derive(Clone, Debug, Serialize)]
pub struct PoolUse {
    /// Which pool.
    pub pool: AddressPool,
    /// The pool prefix.
    pub prefix: String,
    /// Addresses used.
    pub used: u64,
    /// Addresses in the pool.
    pub capacity: u64,
}
