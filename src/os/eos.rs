//! The EOS view: everything `templates/eos/` prints, in EOS spelling and in the order pyavd renders
//! the running-config. The templates only place these values.

mod baseline;
mod qos;

pub use baseline::Baseline;
pub use qos::{DscpMap, Ecn, Qos, TxQueue, Watchdog};

use super::common::{self, Bgp, Management, ServerVlan};
use crate::intent::DlbMode;
use crate::model::{Device, Interface, QpHashPlan, UnusedPort};
use crate::platform::{Platform, QpHashMethod, Support};
use serde::Serialize;
use std::net::Ipv4Addr;

/// Length of the UDP header, bytes: the BTH starts right after it.
const UDP_HEADER_BYTES: u32 = 8;

/// One EOS device's structured config.
#[derive(Clone, Debug, Serialize)]
pub struct EosView<'a> {
    /// Hostname.
    pub hostname: &'a str,
    /// Header comments of the acknowledged errors (`aifab: acknowledged AIF-LB-005: <reason>`).
    pub acknowledged: Vec<String>,
    /// Header comment lines (unverified syntax, reload needs).
    pub notes: Vec<&'a str>,
    /// QP hashing on Sand: the default load-balance profile.
    pub sand_hash: Option<SandHash>,
    /// QP hashing on Strata: UDF hash fields.
    pub trident_hash: Option<TridentHash>,
    /// Classification, the qos profile's queues and PFC.
    pub qos: Qos,
    /// PFC watchdog (None when off), global and in the qos profile.
    pub pfc_watchdog: Option<Watchdog>,
    /// The server VLAN and its gateway interface (`rail-subnet` leaves).
    pub server_vlan: Option<ServerVlan<'a>>,
    /// Every front-panel port in port order: the used ones and, shut, the unused ones.
    pub interfaces: Vec<Port<'a>>,
    /// Loopback0 address.
    pub loopback: Ipv4Addr,
    /// The platform's management port (Management1, or Management0 on a modular chassis) in VRF MGMT.
    pub management: Option<Management<'a>>,
    /// `ip hardware fib load-balance distribution dynamic` (flowlet-style DLB).
    pub dlb: Option<Dlb>,
    /// eBGP underlay.
    pub bgp: Bgp<'a>,
    /// The device baseline (users, AAA, NTP, ...), when the intent has one.
    pub baseline: Option<Baseline<'a>>,
    /// The intent's site lines, printed verbatim (docs/push.md#site-lines).
    pub site_lines: &'a [String],
}

/// `load-balance sand profile default` fields.
#[derive(Clone, Debug, Serialize)]
pub struct SandHash {
    /// `fields udp dst-port`.
    pub udp_port: u16,
    /// `payload bytes` (`5-7`): the DestQP as bytes of the UDP payload.
    pub payload_bytes: String,
    /// Comment: the lines are unverified on this platform.
    pub unverified: bool,
}

/// `port-channel load-balance trident udf` lines.
#[derive(Clone, Debug, Serialize)]
pub struct TridentHash {
    /// `ip-protocol`: RoCEv2 is UDP, so TCP and other protocols keep their usual hash instead of hashing
    /// on whatever their L4 bytes 13-15 hold (TCP flags and window, which change within a flow).
    pub ip_protocol: &'static str,
    /// One L4 offset per DestQP byte (13, 14, 15).
    pub offsets: Vec<u32>,
    /// Comment: whether these lines feed ECMP is unconfirmed.
    pub unverified: bool,
}

/// One front-panel port.
#[derive(Clone, Debug, Serialize)]
pub struct Port<'a> {
    /// `Ethernet1/1`.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// IP MTU.
    pub mtu: u32,
    /// Access VLAN (server port of a `rail-subnet` leaf); None for a routed port.
    pub access_vlan: Option<u16>,
    /// Routed address with prefix length.
    pub address: Option<&'a str>,
    /// No link uses the port: it is shut, with only its description (the other fields are unused).
    pub unused: bool,
    /// `speed` of a broken-out port, used or not (`400g-4`: 400G over 4 lanes), from the platform's
    /// breakout facts (docs/platforms/eos.md#breakout).
    pub speed: Option<&'a str>,
}

/// Dynamic (flowlet-style) load balancing.
#[derive(Clone, Debug, Serialize)]
pub struct Dlb {
    /// Comment: the line is unverified on this platform.
    pub unverified: bool,
}

/// The EOS view of `d` on platform `pf`. Fails when the platform lacks a fact EOS needs.
pub fn view<'a>(d: &'a Device, pf: &'a Platform) -> Result<EosView<'a>, super::OsError> {
    let hash = d.qp_hash.as_ref();
    Ok(EosView {
        hostname: &d.hostname,
        acknowledged: common::acknowledged(d),
        notes: common::notes(d),
        sand_hash: hash
            .filter(|q| q.method == QpHashMethod::EosSandProfile)
            .map(sand_hash),
        trident_hash: hash
            .filter(|q| q.method == QpHashMethod::EosTridentUdf)
            .map(|q| TridentHash {
                ip_protocol: "udp",
                offsets: (q.l4_offset..q.l4_offset + q.length_bytes).collect(),
                unverified: q.support == Support::Unverified,
            }),
        qos: Qos::new(&d.qos, pf)?,
        pfc_watchdog: Watchdog::new(&d.qos.watchdog),
        server_vlan: ServerVlan::new(d),
        interfaces: common::front_panel(
            d,
            |i| port(i, common::breakout_keyword(d, pf, i.port)),
            |u| unused_port(u, common::breakout_keyword(d, pf, u.port)),
        ),
        loopback: d.loopback,
        management: Management::new(d.management.as_ref(), pf),
        dlb: d
            .dlb
            .as_ref()
            .filter(|p| p.mode == DlbMode::Flowlet)
            .map(|p| Dlb {
                unverified: p.support == Support::Unverified,
            }),
        bgp: Bgp::new(&d.bgp),
        baseline: baseline::view(d),
        site_lines: &d.site_lines,
    })
}

fn sand_hash(q: &QpHashPlan) -> SandHash {
    let first = q.l4_offset.saturating_sub(UDP_HEADER_BYTES);
    SandHash {
        udp_port: q.udp_port,
        payload_bytes: format!("{first}-{}", first + q.length_bytes.saturating_sub(1)),
        unverified: q.support == Support::Unverified,
    }
}

fn port<'a>(i: &'a Interface, speed: Option<&'a str>) -> Port<'a> {
    Port {
        name: &i.name,
        description: &i.description,
        mtu: i.mtu,
        access_vlan: i.vlan,
        address: i.address.as_deref(),
        unused: false,
        speed,
    }
}

fn unused_port<'a>(u: &'a UnusedPort, speed: Option<&'a str>) -> Port<'a> {
    Port {
        name: &u.name,
        description: common::UNUSED_DESCRIPTION,
        mtu: 0,
        access_vlan: None,
        address: None,
        unused: true,
        speed,
    }
}
