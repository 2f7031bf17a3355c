//! The benchmark fabrics of published sizes, generated as intent YAML (see [`intent_yaml`]).
//!
//! - `1k`: 1,024 GPUs, rail-optimized 2-tier (NX-OS leaves, EOS 7800R3 spines, a SONiC group), 48 switches.
//! - `24k`: 24,576 GPUs Meta-style: 8 AI zones of 3,072 GPUs, a rack switch per 2 servers of 8 NICs
//!   (rack leaves, 16 × 400G down), deep-buffer 7800R3 spines per zone, an aggregation tier across zones
//!   at 4:1 (Meta's 7:1 gives no whole uplinks at this size: 192 × 400G down needs 10971.43G up).
//! - `100k`: 100,000 GPUs xAI-style: 12,500 servers × 8 × 400G, three tiers: 128 × 400G Tomahawk 5
//!   rail leaves, 7800R3 spines in 7 zones, 128 super-spines in 64 planes.
//! - `100k-hosts`: the same fabric with the servers' side (`hosts:`): a netplan file per server (12,500),
//!   the NIC QoS script, the NCCL environment and the Spiderpool objects.
//!
//! - the size sweep ([`sweep_yaml`]): 48 to 5,000 switches of one shape, zones of 40 EOS rack switches
//!   and 4 EOS spines under SONiC super-spines, for the claim that time per switch stays flat.
//!
//! Every generated intent turns on each RoCE feature its platforms support: lossless RoCE with ECN, strict
//! CNP and CTS, PFC watchdog, DLB (where the platform has it), QP hashing (where it has it).
//!
//! Self-contained (no `aifab` item), so that tests and examples can include this file with
//! `#[path = "../src/bench/fabrics.rs"] mod fabrics;` and check the same fabrics the benchmark times.

/// The benchmark sizes, smallest first.
pub(crate) const SIZES: [&str; 4] = ["1k", "24k", "100k", "100k-hosts"];

/// The `hosts:` section of `100k-hosts`: every host output, for ConnectX NICs under Kubernetes.
const HOSTS: &str = r#"hosts:
  nic: connectx
  data_class: roce
  cts_class: cts
  cnp_class: cnp
  nccl: { gid_index: 3, qps_per_connection: 4, hca: "mlx5_{index}" }
  kubernetes: { ipam: spiderpool, cni: sriov, namespace: kube-system, resource: "spidernet.io/rail{rail}p{port}" }
"#;

const QOS: &str = r#"
qos:
  classes:
    roce: { dscp: [24, 26], priority: 3, lossless: true, ecn: { min: 150KB, max: 1500KB, probability: 10% }, bandwidth: 90% }
    cnp: { dscp: [48], priority: 6, strict: true }
    cts: { dscp: [46], priority: 5, strict: true }
    default: { bandwidth: 10% }
  pfc_watchdog: { detect: 200ms, restore: 1s, action: drop }
"#;

/// The errors every generated fabric accepts knowingly: NX-OS skips egress QoS on DLB flows and its
/// UDF QP hash is global (the benchmark measures rendering, not a deployable design).
const ACK: &str = r#"acknowledge:
  - { rule: AIF-LB-005, reason: "benchmark fabric: DLB flows on NX-OS lose ECN marking and strict CNP/CTS queues" }
  - { rule: AIF-LB-007, reason: "benchmark fabric: the NX-OS UDF hash replaces L4 ports for all IPv4 traffic" }
  - { rule: AIF-LB-009, reason: "benchmark fabric: the spines of other OSes must take the NX-OS DLB MAC as their own" }
"#;

/// Zones of each size-sweep fabric: 48, 136, 500, 1,448 and 5,000 switches.
pub(crate) const SWEEP_ZONES: [u32; 5] = [1, 3, 11, 32, 110];

/// A size-sweep fabric of `zones` zones, each 40 EOS rack switches (16 × 400G servers each, an NX-OS
/// one among them) and 4 EOS 7800R3 spines, under SONiC 128 × 400G super-spines in 4 planes, as many
/// as keep each under 128 ports. Every switch but the super-spines is the same whatever the size.
pub(crate) fn sweep_yaml(zones: u32) -> String {
    // Each spine has 40 uplinks, spread evenly over the super-spines of its plane.
    let per_plane = [1u32, 2, 4, 5, 8, 10, 20, 40]
        .into_iter()
        .find(|p| zones * 40 <= 128 * p)
        .unwrap_or(40);
    format!(
        r#"version: 1
fabric:
  name: sweep{zones}
  topology:
    kind: three-tier
    servers: {servers}
    rails: 1
    nic_speed: 400G
    servers_per_group: 16
    server_hostname: "gpu{{index:06}}"
    zones: {zones}
    leaf: {{ platform: eos/7060x5-64, hostname: "z{{zone}}-rtsw{{group:04}}", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "z{{zone}}-ctsw{{index:02}}", count: 4, oversubscription: "4:1" }}
    super_spine: {{ platform: sonic/arista-7060x6-64pe-o128s2, hostname: "atsw{{index:03}}", count: {super_spines}, planes: 4 }}
    cable_length: {{ server: 3m, leaf_spine: 30m, spine_super_spine: 100m }}
  addressing: {{ loopbacks: 10.0.0.0/16, fabric_links: 10.64.0.0/12, server_links: 10.128.0.0/11 }}
  bgp: {{ spine_asn: 65000-65199, super_spine_asn: 65300, leaf_asn: 4200000000-4200009999 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: flowlet, roles: [leaf], mac: "00:cc:cc:cc:cc:cc" }}
  hash: {{ roce_dest_qp: true, roles: [spine] }}
overrides:
  - {{ match: "z1-rtsw0001", platform: nxos/n9k-c9364d-gx2a }}
{ACK}
"#,
        servers = 640 * zones,
        super_spines = 4 * per_plane
    )
}

/// The intent YAML of a benchmark size, scaled down by `scale_down` (1 = full size) for tests.
pub(crate) fn intent_yaml(size: &str, scale_down: u32) -> Option<String> {
    let k = scale_down.max(1);
    match size {
        "100k-hosts" => intent_yaml("100k", k).map(|y| y + HOSTS),
        "1k" => Some(pod_1k(k)),
        "24k" => Some(meta_24k(k)),
        "100k" => Some(xai_100k(k)),
        _ => None,
    }
}

/// The 1K fabric (pod1-like: NX-OS rail leaves, EOS spines, one SONiC group), `k` times smaller.
fn pod_1k(k: u32) -> String {
    format!(
        r#"version: 1
fabric:
  name: bench1k
  topology:
    kind: rail-optimized
    servers: {servers}
    rails: 8
    nic_speed: 400G
    servers_per_group: 32
    leaf: {{ platform: nxos/n9k-c9364d-gx2a, hostname: "su{{group}}-r{{rail}}-leaf", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "spine{{index:02}}", count: 16 }}
    cable_length: {{ server: 3m, leaf_spine: 50m }}
  addressing: {{ loopbacks: 10.0.0.0/22, fabric_links: 10.1.0.0/17, server_links: 10.2.0.0/16 }}
  bgp: {{ spine_asn: 65000, leaf_asn: 65100-65299 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: per-packet, roles: [leaf], mac: "00:cc:cc:cc:cc:cc" }}
  hash: {{ roce_dest_qp: true, roles: [spine] }}
overrides:
  - {{ match: "su4-r*-leaf", platform: sonic/dell-z9664f-o64, dlb: "off" }}
{ACK}
"#,
        servers = 128 / k.min(4)
    )
}

/// The 24K fabric (Meta-style: 8 AI zones, a rack switch per 2 servers, 7800R3 spines, an aggregation
/// tier at 4:1), `k` times smaller.
fn meta_24k(k: u32) -> String {
    let zones = 8 / k.min(8);
    format!(
        r#"version: 1
fabric:
  name: bench24k
  topology:
    kind: three-tier
    servers: {servers}
    rails: 8
    nic_speed: 400G
    servers_per_group: 2
    server_hostname: "gpu{{index:05}}"
    zones: {zones}
    leaf: {{ platform: eos/7060x5-64, hostname: "z{{zone}}-rtsw{{rack:04}}", attachment: rack, uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "z{{zone}}-ctsw{{index:02}}", count: 16, oversubscription: "4:1" }}
    super_spine: {{ platform: sonic/arista-7060x6-64pe-o128s2, hostname: "atsw{{index:03}}", count: 48, planes: 16 }}
    cable_length: {{ server: 3m, leaf_spine: 30m, spine_super_spine: 100m }}
  addressing: {{ loopbacks: 10.0.0.0/21, fabric_links: 10.64.0.0/16, server_links: 10.128.0.0/16 }}
  bgp: {{ spine_asn: 65000-65007, super_spine_asn: 65100, leaf_asn: 4200000000-4200009999 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: flowlet, roles: [leaf], mac: "00:cc:cc:cc:cc:cc" }}
  hash: {{ roce_dest_qp: true, roles: [spine] }}
overrides:
  - {{ match: "z1-rtsw00*", platform: nxos/n9k-c9364d-gx2a }}
{ACK}
"#,
        servers = 384 * zones
    )
}

/// The 100K fabric (xAI-style: 12,500 servers × 8 × 400G, Tomahawk 5 rail leaves, 7800R3 spines and
/// super-spines), `k` times smaller.
fn xai_100k(k: u32) -> String {
    let zones = 7 / k.min(7);
    format!(
        r#"version: 1
fabric:
  name: bench100k
  topology:
    kind: three-tier
    servers: {servers}
    rails: 8
    nic_speed: 400G
    servers_per_group: 64
    server_hostname: "gpu{{index:05}}"
    zones: {zones}
    leaf: {{ platform: sonic/arista-7060x6-64pe-o128s2, hostname: "z{{zone}}-g{{group:03}}-r{{rail}}", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "z{{zone}}-s{{index:02}}", count: 64, oversubscription: "4:1" }}
    super_spine: {{ platform: eos/7800r3, hostname: "ss{{index:03}}", count: 128, planes: 64 }}
    cable_length: {{ server: 3m, leaf_spine: 30m, spine_super_spine: 100m }}
  addressing: {{ loopbacks: 10.0.0.0/20, fabric_links: 10.64.0.0/14, server_links: 10.128.0.0/14 }}
  bgp: {{ spine_asn: 65000-65009, super_spine_asn: 65100, leaf_asn: 4200000000-4200009999 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: "off" }}
  hash: {{ roce_dest_qp: true, roles: [spine, super-spine] }}
{ACK}
"#,
        // 28 groups of 64 servers per zone; the full size stops at 12,500 servers (100,000 GPUs).
        servers = if zones == 7 { 12_500 } else { 28 * 64 * zones }
    )
}
