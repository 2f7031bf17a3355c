//! The NX-OS view: everything `templates/nxos/` prints, in NX-OS spelling and running-config order.
//! The templates only place these values.

mod baseline;
mod qos;

pub use baseline::Baseline;
pub use qos::{
    ClassMap, Ecn, NetworkQosClass, Qos, QosInClass, QueuingClass, SpeedQueuing, Watchdog,
};

use super::common::{self, Bgp, Management, ServerVlan};
use crate::model::{Device, Interface, UnusedPort};
use crate::platform::{Platform, PortMode, QpHashMethod, Support};
use crate::units::Speed;
use serde::Serialize;
use std::net::Ipv4Addr;

/// One NX-OS device's structured config.
#[derive(Clone, Debug, Serialize)]
pub struct NxosView<'a> {
    /// Hostname.
    pub hostname: &'a str,
    /// Header comments of the acknowledged errors (`aifab: acknowledged AIF-LB-005: <reason>`).
    pub acknowledged: Vec<String>,
    /// Header comment lines (unverified syntax, reload needs).
    pub notes: Vec<&'a str>,
    /// The server VLAN and its SVI (`rail-subnet` leaves).
    pub server_vlan: Option<ServerVlan<'a>>,
    /// `system jumbomtu N` when the device has L2 (switchport) ports: NX-OS accepts on an L2 port only
    /// the default MTU or this value, so L2 ports carry it and the IP MTU goes on the SVI.
    pub system_jumbomtu: Option<u32>,
    /// `interface breakout module 1 port <ports> map <map>` lines, one per run of broken-out ports
    /// (docs/platforms/nxos.md#breakout).
    pub breakouts: Vec<Breakout<'a>>,
    /// Class-maps, policy-maps and system QoS.
    pub qos: Qos,
    /// Global PFC watchdog (None when off); its presence also turns the per-port watchdog on.
    pub pfc_watchdog: Option<Watchdog>,
    /// `hardware profile dlb`.
    pub dlb: Option<Dlb<'a>>,
    /// RoCEv2 destination-QP hashing.
    pub qp_hash: Option<QpHash>,
    /// The platform's management port (mgmt0) in the management VRF.
    pub management: Option<Management<'a>>,
    /// loopback0 address.
    pub loopback: Ipv4Addr,
    /// Every front-panel port in port order: the used ones and, shut, the unused ones.
    pub interfaces: Vec<Port<'a>>,
    /// eBGP underlay.
    pub bgp: Bgp<'a>,
    /// The device baseline (users, AAA, NTP, ...), when the intent has one.
    pub baseline: Option<Baseline<'a>>,
    /// The intent's site lines, printed verbatim (docs/push.md#site-lines).
    pub site_lines: &'a [String],
}

/// One front-panel port.
#[derive(Clone, Debug, Serialize)]
pub struct Port<'a> {
    /// `Ethernet1/5`.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// Routed address with prefix length (routed port).
    pub address: Option<&'a str>,
    /// Access VLAN (server port of a `rail-subnet` leaf).
    pub access_vlan: Option<u16>,
    /// IP MTU.
    pub mtu: u32,
    /// Cable length in metres, when it is long enough to need pause-buffer settings aifab cannot source.
    pub long_cable_m: Option<u32>,
    /// The speed of the port's own queuing policy (`AIFAB-QUEUING-OUT-<gbps>G`), when its shapers
    /// differ from the system policy's (a port faster than the device's slowest).
    pub queuing_gbps: Option<u32>,
    /// No link uses the port: it is shut, with only its description (the other fields are unused).
    pub unused: bool,
}

/// `hardware profile dlb`.
#[derive(Clone, Debug, Serialize)]
pub struct Dlb<'a> {
    /// `flowlet`, `per-packet`.
    pub mode: &'static str,
    /// `dlb-interface` list, comma-separated on one line.
    pub interfaces: String,
    /// `mac-address`.
    pub mac: Option<&'a str>,
    /// `flowlet-aging`, microseconds (flowlet mode only).
    pub flowlet_aging_us: Option<u64>,
    /// Comment: the profile takes effect after a save and reload.
    pub reload_note: bool,
    /// Comment: egress QoS is not applied to DLB flows.
    pub egress_qos_note: bool,
    /// The switch runs no DLB itself but takes the DLB next-hop MAC its DLB neighbours send to: the
    /// profile holds `mac-address` alone.
    pub mac_only: bool,
}

/// Destination-QP hashing.
#[derive(Clone, Debug, Serialize)]
pub struct QpHash {
    /// The UDF load-sharing line, when the platform's method is NX-OS UDF.
    pub udf: Option<Udf>,
    /// The platform's method (named in a comment when it has no NX-OS rendering).
    pub method: QpHashMethod,
}

/// `ip load-sharing address source-destination udf offset N length M`.
#[derive(Clone, Debug, Serialize)]
pub struct Udf {
    /// Offset, bytes from the outer L4 header.
    pub offset: u32,
    /// Length, bits.
    pub length_bits: u32,
}

/// One `interface breakout` line.
#[derive(Clone, Debug, Serialize)]
pub struct Breakout<'a> {
    /// Front-panel ports: `3` or `1-32`.
    pub ports: String,
    /// The map (`200g-2x`).
    pub map: &'a str,
}

fn breakouts<'a>(d: &Device, pf: &'a Platform) -> Vec<Breakout<'a>> {
    d.breakouts()
        .filter_map(|g| {
            let mode = PortMode {
                children: g.children,
                speed: Speed(g.speed_gbps),
            };
            let last = g.first_panel + g.panels - 1;
            Some(Breakout {
                ports: if g.panels == 1 {
                    g.first_panel.to_string()
                } else {
                    format!("{}-{last}", g.first_panel)
                },
                map: pf.breakout(mode)?.keyword.as_str(),
            })
        })
        .collect()
}

/// The NX-OS view of `d` on platform `pf`.
pub fn view<'a>(d: &'a Device, pf: &'a Platform) -> NxosView<'a> {
    let qos = Qos::new(&d.qos, pf, d.interfaces.iter().map(|i| i.speed_gbps));
    let per_speed: Vec<u32> = qos.port_queuing.iter().map(|p| p.gbps).collect();
    NxosView {
        hostname: &d.hostname,
        acknowledged: common::acknowledged(d),
        notes: common::notes(d),
        server_vlan: ServerVlan::new(d),
        qos,
        pfc_watchdog: Watchdog::new(&d.qos.watchdog, pf.watchdog_timers == Support::Unverified),
        dlb: dlb(d, pf),
        qp_hash: d.qp_hash.as_ref().map(|q| QpHash {
            udf: (q.method == QpHashMethod::NxosUdf).then_some(Udf {
                offset: q.l4_offset,
                length_bits: q.length_bytes * 8,
            }),
            method: q.method,
        }),
        management: Management::new(d.management.as_ref(), pf),
        loopback: d.loopback,
        system_jumbomtu: d
            .interfaces
            .iter()
            .any(|i| i.vlan.is_some())
            .then_some(pf.max_mtu),
        breakouts: breakouts(d, pf),
        interfaces: common::front_panel(d, |i| port(i, pf, &per_speed), unused_port),
        bgp: Bgp::new(&d.bgp),
        baseline: baseline::view(d),
        site_lines: &d.site_lines,
    }
}

/// The MTU of port `i`: an L2 port takes the system jumbo MTU (the platform's largest); its IP MTU is
/// the SVI's.
pub fn port_mtu(i: &Interface, pf: &Platform) -> u32 {
    if i.vlan.is_some() { pf.max_mtu } else { i.mtu }
}

fn port<'a>(i: &'a Interface, pf: &Platform, per_speed: &[u32]) -> Port<'a> {
    Port {
        name: &i.name,
        description: &i.description,
        address: i.address.as_deref(),
        access_vlan: i.vlan,
        mtu: port_mtu(i, pf),
        long_cable_m: pf
            .pause_buffer_above_m
            .is_some_and(|limit| i.cable_m > limit)
            .then_some(i.cable_m),
        queuing_gbps: per_speed.contains(&i.speed_gbps).then_some(i.speed_gbps),
        unused: false,
    }
}

fn unused_port(u: &UnusedPort) -> Port<'_> {
    Port {
        name: &u.name,
        description: common::UNUSED_DESCRIPTION,
        address: None,
        access_vlan: None,
        mtu: 0,
        long_cable_m: None,
        queuing_gbps: None,
        unused: true,
    }
}

fn dlb<'a>(d: &'a Device, pf: &Platform) -> Option<Dlb<'a>> {
    let p = d.dlb.as_ref()?;
    Some(Dlb {
        mode: p.mode.as_str(),
        interfaces: p.interfaces.join(","),
        mac: p.mac.as_deref(),
        flowlet_aging_us: p
            .flowlet_gap_us
            .filter(|_| p.mode == crate::intent::DlbMode::Flowlet),
        reload_note: pf.dlb.reload_required,
        egress_qos_note: pf.dlb.bypasses_egress_qos && p.mode != crate::intent::DlbMode::Off,
        mac_only: p.mode == crate::intent::DlbMode::Off,
    })
}
