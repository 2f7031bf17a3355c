//! NCCL's environment: the traffic classes its QPs use and how it finds the RoCEv2 GID.
//!
//! - `NCCL_IB_TC`: the IP traffic-class byte of NCCL's RDMA QPs, DSCP x 4 (the two low bits are ECN,
//!   which the NIC sets itself when DCQCN runs) of the data class's first DSCP;
//! - `NCCL_IB_FIFO_TC`: the same for the QP that carries NCCL's clear-to-send (FIFO) messages
//!   (NVIDIA/nccl PR #1194), from the CTS class;
//! - `NCCL_IB_GID_INDEX`: the GID table entry of the NIC's IPv4 RoCEv2 address;
//! - `NCCL_IB_QPS_PER_CONNECTION`: QPs per connection, when the switches hash on the destination QP;
//! - `NCCL_IB_HCA`: when the intent names the NIC ports' RDMA devices, exactly those (`=` makes each
//!   item a whole name, not a prefix: `mlx5_1` alone would also pick `mlx5_10`), port 1 of each (an mlx5
//!   Ethernet function is one RDMA device with one port).

use super::nic_qos::NicQos;
use crate::model::hosts::HostsPlan;
use crate::render::Meta;
use std::fmt::Write as _;

/// The traffic-class byte of a DSCP (ECN bits clear).
pub fn tc_byte(dscp: u8) -> u16 {
    u16::from(dscp) * 4
}

/// `KEY=value` lines for a systemd `EnvironmentFile=` or `set -a; . ./nccl.env`.
pub fn file(meta: &Meta, plan: &HostsPlan, q: &NicQos) -> String {
    let mut o = String::with_capacity(512);
    let _ = writeln!(
        o,
        "{}",
        super::header(meta, "NCCL environment of every server")
    );
    let _ = writeln!(o, "NCCL_IB_GID_INDEX={}", plan.gid_index);
    let _ = writeln!(o, "NCCL_IB_TC={}", tc_byte(q.data_dscp));
    if let Some(d) = q.cts_dscp {
        let _ = writeln!(o, "NCCL_IB_FIFO_TC={}", tc_byte(d));
    }
    if let Some(n) = plan.qps_per_connection {
        let _ = writeln!(o, "NCCL_IB_QPS_PER_CONNECTION={n}");
    }
    if !plan.hca.is_empty() {
        let devices: Vec<String> = plan.hca.iter().map(|d| format!("{d}:1")).collect();
        let _ = writeln!(o, "NCCL_IB_HCA=={}", devices.join(","));
    }
    o
}
