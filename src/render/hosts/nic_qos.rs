//! The NIC half of the QoS classes for NVIDIA ConnectX: the values ([`NicQos`]) come from the rail
//! leaves' QoS plans, the same plans the switch configs print; [`script`] only prints them as
//! `mlnx_qos` calls and DCQCN sysfs writes.
//!
//! - `mlnx_qos --trust dscp`: classify by DSCP (the fabric is routed and untagged);
//! - `--dscp2prio set,<dscp>,<prio>` for all 64 DSCPs (the option repeats within one call): the class DSCPs to their priority and every
//!   other DSCP to the default class (ConnectX's own default is DSCP/8, which would put unclassified
//!   DSCP 24-31 on a lossless priority 3);
//! - `--pfc`: one flag per priority, set for the lossless priorities;
//! - `--prio_tc 0,1,...,7`: traffic class = priority, as on the switches;
//! - `--tsa` / `--tcbw`: strict TCs for strict classes, ETS shares as the switches' `bandwidth`;
//! - `--ratelimit`: a strict class's `max_rate` (the switches' shaper on its queue) as a limit on its TC,
//!   in whole Gbit/s of the NIC port's speed, rounded down (at least 1, since 0 leaves a TC unlimited;
//!   at most 255, the mlx5 driver's limit);
//! - `ecn/roce_np/enable/<p>`, `ecn/roce_rp/enable/<p>`: DCQCN notification and reaction point on each
//!   lossless priority that marks ECN;
//! - `ecn/roce_np/cnp_dscp`, `ecn/roce_np/cnp_802p_prio`: the CNPs the NIC sends use the switches' CNP
//!   class;
//! - `/sys/kernel/config/rdma_cm/<device>/ports/1/default_roce_tos`: the ToS byte of the RDMA devices
//!   of each port for connections made through RDMA CM (perftest `-R`, UCX, MPI, NVMe-oF, storage)
//!   that set none themselves: the data class's DSCP x 4, as `NCCL_IB_TC`; without it they leave as
//!   DSCP 0, in the lossy default class without ECN.

use crate::hosts::Server;
use crate::model::hosts::HostsPlan;
use crate::model::{ClassPlan, FabricModel, QosPlan};
use crate::output::Meta;
use std::fmt::Write as _;

/// Why a server's NIC settings cannot be worked out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NicQosError {
    /// The server has no NIC port.
    #[error("{server}: no NIC")]
    NoNic {
        /// The server.
        server: String,
    },
    /// Two of the server's leaves map DSCPs to priorities differently.
    #[error("{server}: leaves {first} and {other} map DSCPs to different priorities")]
    DscpMaps {
        /// The server.
        server: String,
        /// The leaf of its first NIC port.
        first: String,
        /// The leaf that differs.
        other: String,
    },
    /// The host plan names a class the QoS plan lacks (or that has no DSCP).
    #[error("no class `{0}` with DSCPs in the QoS plan")]
    NoClass(String),
    /// [`NicQosError::NoClass`] for one server.
    #[error("{server}: {error}")]
    Server {
        /// The server.
        server: String,
        /// What is missing.
        error: Box<NicQosError>,
    },
}

/// What the NIC must be set to, OS-neutral.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NicQos {
    /// Priority of each DSCP 0-63.
    pub dscp_to_prio: Vec<u8>,
    /// Priority of the default class.
    pub default_priority: u8,
    /// `(class name, DSCPs, priority)` of every class with DSCPs, highest priority first.
    pub classes: Vec<(String, Vec<u8>, u8)>,
    /// PFC on each priority 0-7.
    pub pfc: [bool; 8],
    /// Strict traffic classes 0-7.
    pub strict: [bool; 8],
    /// ETS share of each traffic class 0-7 (0 for strict and unused ones).
    pub tc_bw: [u8; 8],
    /// Rate limit of each traffic class 0-7 in Gbit/s (0: unlimited): the strict classes' `max_rate`.
    pub rate_gbps: [u32; 8],
    /// Priorities where DCQCN runs (lossless with ECN), ascending.
    pub ecn: Vec<u8>,
    /// DSCP and priority of the CNPs the NIC sends.
    pub cnp: Option<(u8, u8)>,
    /// DSCP NCCL marks its data with.
    pub data_dscp: u8,
    /// DSCP of NCCL's clear-to-send messages.
    pub cts_dscp: Option<u8>,
}

impl NicQos {
    /// The NIC settings of server `s`: from its rail leaves' QoS plans, which must agree on every
    /// DSCP's priority and the lossless priorities (they do: every plan comes from the intent's classes).
    pub fn of(_model: &FabricModel, plan: &HostsPlan, s: &Server) -> Result<NicQos, NicQosError> {
        let first = s.nics.first().ok_or_else(|| NicQosError::NoNic {
            server: s.name.to_string(),
        })?;
        let q = &first.leaf.qos;
        for n in &s.nics[1..] {
            let other = &n.leaf.qos;
            if other.dscp_to_tc != q.dscp_to_tc
                || other.lossless_priorities != q.lossless_priorities
            {
                return Err(NicQosError::DscpMaps {
                    server: s.name.to_string(),
                    first: first.leaf.hostname.to_string(),
                    other: n.leaf.hostname.to_string(),
                });
            }
        }
        from_plan(q, plan).map_err(|e| NicQosError::Server {
            server: s.name.to_string(),
            error: Box::new(e),
        })
    }
}

/// The NIC settings of one QoS plan.
pub fn from_plan(q: &QosPlan, plan: &HostsPlan) -> Result<NicQos, NicQosError> {
    let class = |name: &str| -> Result<&ClassPlan, NicQosError> {
        q.classes
            .iter()
            .find(|c| c.name == name && !c.dscp.is_empty())
            .ok_or_else(|| NicQosError::NoClass(name.to_string()))
    };
    let mut pfc = [false; 8];
    let mut strict = [false; 8];
    let mut tc_bw = [0u8; 8];
    let mut rate_gbps = [0u32; 8];
    let mut ecn = Vec::new();
    for c in &q.classes {
        let p = usize::from(c.priority.min(7));
        pfc[p] = c.lossless;
        strict[p] = c.strict;
        tc_bw[p] = if c.strict {
            0
        } else {
            c.bandwidth.unwrap_or(0)
        };
        if c.lossless && c.ecn.is_some() {
            ecn.push(c.priority);
        }
        if let Some(pct) = c.max_rate.filter(|_| c.strict) {
            rate_gbps[p] = limit_gbps(plan.nic_speed_gbps, pct);
        }
    }
    ecn.sort_unstable();
    let data = class(&plan.data_class)?;
    let cts = plan.cts_class.as_deref().map(class).transpose()?;
    let cnp = plan.cnp_class.as_deref().map(class).transpose()?;
    Ok(NicQos {
        dscp_to_prio: q.dscp_to_tc.clone(),
        default_priority: q.default_priority,
        classes: q
            .classes
            .iter()
            .filter(|c| !c.dscp.is_empty())
            .map(|c| (c.name.clone(), c.dscp.clone(), c.priority))
            .collect(),
        pfc,
        strict,
        tc_bw,
        rate_gbps,
        ecn,
        cnp: cnp.map(|c| (c.dscp[0], c.priority)),
        data_dscp: data.dscp[0],
        cts_dscp: cts.map(|c| c.dscp[0]),
    })
}

/// The most the mlx5 driver takes as one TC's limit: 255 Gbit/s (an 8-bit count of 1 Gbit/s units;
/// more is refused with EINVAL).
pub const MAX_TC_LIMIT_GBPS: u32 = 255;

/// The traffic-class byte of a DSCP (ECN bits clear): NCCL's `NCCL_IB_TC` and the RDMA CM's
/// `default_roce_tos` (here, below both the NIC script and the NCCL files that use it).
pub fn tc_byte(dscp: u8) -> u16 {
    u16::from(dscp) * 4
}

/// `pct` percent of a `speed_gbps` port in whole Gbit/s for `mlnx_qos --ratelimit` (integers only),
/// rounded down so the NIC allows no more than the switches' shaper, except that a limit under
/// 1 Gbit/s becomes 1 (0 would mean no limit at all), and at most [`MAX_TC_LIMIT_GBPS`].
pub fn limit_gbps(speed_gbps: u32, pct: u8) -> u32 {
    (u64::from(speed_gbps) * u64::from(pct) / 100).clamp(1, u64::from(MAX_TC_LIMIT_GBPS)) as u32
}

/// When the intent names the NIC ports' RDMA devices: a check per port that the device is the port's
/// (the device's parent, its PCI function, lists the netdev under `net/`), so NCCL_IB_HCA cannot name
/// another port's device unnoticed.
fn rdma_devices(o: &mut String, plan: &HostsPlan, s: &Server) {
    let pairs: Vec<(&str, &str)> = s
        .nics
        .iter()
        .filter_map(|n| plan.hca_of(n.rail, n.port).map(|d| (d, n.name)))
        .collect();
    if pairs.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "# NCCL_IB_HCA (nccl.env) names an RDMA device per NIC port: fail unless each is its port's"
    );
    let _ = writeln!(
        o,
        "hca() {{ [ -d \"/sys/class/infiniband/$1/device/net/$2\" ] || {{ echo \"RDMA device $1 is not $2's: fix hosts.nccl.hca\" >&2; exit 1; }}; }}"
    );
    for (dev, nic) in pairs {
        let _ = writeln!(o, "hca '{dev}' '{nic}'");
    }
}

/// `0,0,0,1,0,0,0,0`.
fn flags(v: &[bool; 8]) -> String {
    v.iter()
        .map(|&b| if b { "1" } else { "0" })
        .collect::<Vec<_>>()
        .join(",")
}

fn joined<T: ToString>(v: impl IntoIterator<Item = T>, sep: &str) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// The script every server runs (`s` gives the rail NIC names, the same on every server): every rail
/// NIC gets the same settings. When the intent names the ports' RDMA devices (`NCCL_IB_HCA`), the
/// script then fails unless each is its port's (the QoS is set either way). NIC and device names are
/// checked Linux interface and RDMA device names, and are single-quoted as well.
pub fn script(meta: &Meta, plan: &HostsPlan, s: &Server, q: &NicQos) -> String {
    let mut o = String::with_capacity(2048);
    let nics = joined(s.nics.iter().map(|n| format!("'{}'", n.name)), " ");
    let _ = writeln!(o, "#!/bin/sh");
    let _ = writeln!(
        o,
        "{}",
        super::header(meta, "ConnectX QoS of every server's rail NICs")
    );
    let _ = writeln!(
        o,
        "# needs root, mlnx_qos (MLNX_OFED / DOCA-OFED mlnx-tools) and the mlx5 driver's ecn sysfs"
    );
    let _ = writeln!(o, "set -eu");
    if !q.ecn.is_empty() || q.cnp.is_some() {
        // The DCQCN files come with the MLNX_OFED / DOCA-OFED mlx5 driver: stop before changing
        // anything on a server whose driver has none, rather than half-way.
        let _ = writeln!(
            o,
            "# DCQCN's sysfs (ecn/) is the MLNX_OFED / DOCA-OFED mlx5 driver's: check every port before changing any"
        );
        let _ = writeln!(o, "for nic in {nics}; do");
        let _ = writeln!(
            o,
            "  [ -d \"/sys/class/net/$nic/ecn\" ] || {{ echo \"$nic: no /sys/class/net/$nic/ecn: install the MLNX_OFED or DOCA-OFED mlx5 driver (docs/hosts.md)\" >&2; exit 1; }}"
        );
        let _ = writeln!(o, "done");
    }
    let _ = writeln!(o, "for nic in {nics}; do");
    let _ = writeln!(o, "  mlnx_qos -i \"$nic\" --trust dscp");
    let defaults: Vec<u8> = (0u8..64)
        .filter(|d| !q.classes.iter().any(|(_, ds, _)| ds.contains(d)))
        .collect();
    let set = |dscps: &[u8], prio: u8| {
        joined(
            dscps.iter().map(|d| format!("--dscp2prio set,{d},{prio}")),
            " ",
        )
    };
    let _ = writeln!(o, "  # default class: every DSCP no class names");
    let _ = write!(o, "  mlnx_qos -i \"$nic\"");
    for chunk in defaults.chunks(8) {
        let _ = write!(o, " \\\n    {}", set(chunk, q.default_priority));
    }
    let _ = writeln!(o);
    for (name, dscps, prio) in &q.classes {
        let _ = writeln!(o, "  mlnx_qos -i \"$nic\" {} # {name}", set(dscps, *prio));
    }
    let _ = writeln!(o, "  mlnx_qos -i \"$nic\" --pfc {}", flags(&q.pfc));
    let _ = writeln!(o, "  mlnx_qos -i \"$nic\" --prio_tc 0,1,2,3,4,5,6,7");
    let tsa = joined(
        q.strict.iter().map(|&s| if s { "strict" } else { "ets" }),
        ",",
    );
    let _ = writeln!(
        o,
        "  mlnx_qos -i \"$nic\" --tsa {tsa} --tcbw {}",
        joined(q.tc_bw, ",")
    );
    if q.rate_gbps.iter().any(|&r| r > 0) {
        let _ = writeln!(
            o,
            "  mlnx_qos -i \"$nic\" --ratelimit {} # Gbit/s per TC, 0 unlimited: the strict classes' max_rate",
            joined(q.rate_gbps, ",")
        );
    }
    for p in &q.ecn {
        let _ = writeln!(
            o,
            "  echo 1 > \"/sys/class/net/$nic/ecn/roce_np/enable/{p}\""
        );
        let _ = writeln!(
            o,
            "  echo 1 > \"/sys/class/net/$nic/ecn/roce_rp/enable/{p}\""
        );
    }
    if let Some((dscp, prio)) = q.cnp {
        let _ = writeln!(
            o,
            "  echo {dscp} > \"/sys/class/net/$nic/ecn/roce_np/cnp_dscp\""
        );
        let _ = writeln!(
            o,
            "  echo {prio} > \"/sys/class/net/$nic/ecn/roce_np/cnp_802p_prio\""
        );
    }
    let _ = writeln!(o, "done");
    rdma_cm_tos(&mut o, &nics, q.data_dscp);
    rdma_devices(&mut o, plan, s);
    o
}

/// The RDMA CM default ToS of every RDMA device of every NIC port: the data class's traffic-class byte
/// (DSCP x 4). The rdma_cm module's configfs holds it per device and port; a device's folder appears
/// when created (`mkdir`). An mlx5 Ethernet function is one device with one port.
fn rdma_cm_tos(o: &mut String, nics: &str, data_dscp: u8) {
    let tos = tc_byte(data_dscp);
    let _ = writeln!(
        o,
        "# RDMA CM's default ToS (perftest -R, UCX, MPI, NVMe-oF: connections that set none): the data class's DSCP x 4, as NCCL_IB_TC"
    );
    let _ = writeln!(o, "modprobe rdma_cm");
    let _ = writeln!(
        o,
        "mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config"
    );
    let _ = writeln!(o, "for nic in {nics}; do");
    let _ = writeln!(
        o,
        "  for dev in /sys/class/net/\"$nic\"/device/infiniband/*; do"
    );
    let _ = writeln!(
        o,
        "    [ -e \"$dev\" ] || {{ echo \"$nic: no RDMA device (/sys/class/net/$nic/device/infiniband)\" >&2; exit 1; }}"
    );
    let _ = writeln!(o, "    cm=\"/sys/kernel/config/rdma_cm/${{dev##*/}}\"");
    let _ = writeln!(o, "    mkdir -p \"$cm\"");
    let _ = writeln!(o, "    echo {tos} > \"$cm/ports/1/default_roce_tos\"");
    let _ = writeln!(o, "  done");
    let _ = writeln!(o, "done");
}

#[cfg(test)]
mod tests {
    use super::limit_gbps;

    #[test]
    fn rate_limits_round_down_to_whole_gbps_but_never_to_unlimited() {
        assert_eq!(limit_gbps(400, 5), 20);
        assert_eq!(limit_gbps(25, 5), 1); // 1.25 Gbit/s
        assert_eq!(limit_gbps(100, 7), 7);
        assert_eq!(limit_gbps(200, 3), 6);
        assert_eq!(limit_gbps(10, 5), 1); // 0.5 Gbit/s: 0 would lift the limit
        assert_eq!(limit_gbps(400, 60), 240);
        assert_eq!(limit_gbps(400, 64), 255); // 256: more than the driver takes
        assert_eq!(limit_gbps(800, 100), 255);
    }
}
