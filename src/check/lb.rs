//! Load-balancing rules (`AIF-LB-004`..`-008`): DLB settings that cannot work or do nothing, and what DLB
//! and QP hashing cost on the platforms that run them (`-005` and `-007` are errors an intent may
//! acknowledge, [`crate::place::ack`]). Mode and platform support run in the compiler.
//!
//! Whether a platform runs DLB or QP hashing is decided per device, as the compiler decides it: the
//! role lists (an empty list selects no role) and then the overrides ([`crate::place::dlb_mode`],
//! [`crate::place::roce_dest_qp`]).

use super::Uses;
use crate::diag::Finding;
use crate::intent::{DlbMode, Intent, LoadBalancing};
use crate::place::ack;
use crate::place::{self, PlatformUse};
use crate::rules::Rule;

/// Adds the findings of the DLB settings (AIF-LB-004, -008).
pub(super) fn intent_rules(intent: &Intent, out: &mut Vec<Finding>) {
    dlb_settings(&intent.load_balancing, out);
}

/// Adds the costs of DLB and QP hashing per platform in use (AIF-LB-005, -006, -007): -005 and -007
/// only for the devices no acknowledgement covers.
pub(super) fn platform_rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    for u in uses {
        dlb_costs(intent, u, out);
        qp_hash_cost(intent, u, out);
    }
}

/// AIF-LB-004, -008: a unicast DLB MAC, and no DLB setting that has no effect.
fn dlb_settings(lb: &LoadBalancing, out: &mut Vec<Finding>) {
    if let Some(mac) = lb.dlb.mac
        && (mac.is_multicast() || mac.0 == [0; 6])
    {
        out.push(
                Finding::new(Rule::DlbMacNotUnicast, format!("DLB MAC {mac} is not a unicast address"))
                    .at("/load_balancing/dlb/mac")
                    .hint("use a unicast MAC (first byte even), the same on every switch; NX-OS's default is 00:cc:cc:cc:cc:cc"),
            );
    }
    if lb.dlb.mode != DlbMode::Flowlet && lb.dlb.flowlet_gap.is_some() {
        out.push(
            Finding::new(
                Rule::DlbNoEffect,
                "`flowlet_gap` is set but DLB mode is not flowlet: it has no effect",
            )
            .at("/load_balancing/dlb/flowlet_gap")
            .hint("remove `flowlet_gap`, or set `mode: flowlet`"),
        );
    }
    if lb.dlb.mode != DlbMode::Off && lb.dlb.roles.is_empty() {
        out.push(
            Finding::new(
                Rule::DlbNoEffect,
                "DLB has a mode but no roles: it applies nowhere",
            )
            .at("/load_balancing/dlb/roles")
            .hint("add `roles: [leaf]` (the first hop decides the path)"),
        );
    }
}

/// AIF-LB-005, -006: on a platform where DLB is a hardware profile, egress QoS may skip DLB flows (an
/// error unless acknowledged) and every change needs a reload.
fn dlb_costs(intent: &Intent, u: &PlatformUse, out: &mut Vec<Finding>) {
    let (pname, os, p) = (u.name, u.os, u.profile);
    let skipped = ack::unacknowledged(
        Rule::DlbBypassesEgressQos,
        intent,
        p,
        u.devices.iter().copied(),
    );
    if skipped > 0 {
        out.push(
            Finding::new(Rule::DlbBypassesEgressQos, format!("DLB on {pname} ({}): egress QoS (ECN marking, strict CNP/CTS queues) is not applied to DLB flows on this platform", devices(skipped)))
                .at("/load_balancing/dlb/mode")
                .hint(format!("leave these roles out of `dlb.roles`, or, once tested with your ECN and CNP settings, add `acknowledge: [{{rule: AIF-LB-005, reason: ...}}]` (docs/platforms/{os}.md#dlb); platform chosen at {}", u.origin.pointer())),
        );
    }
    let dlb_here = p.dlb.reload_required
        && u.devices.iter().any(|d| {
            let (mode, _) = place::dlb_mode(intent, *d);
            mode != DlbMode::Off && p.dlb.modes.contains(&mode)
        });
    if dlb_here {
        out.push(
            Finding::new(Rule::DlbNeedsReload, format!("DLB on {pname} is a hardware profile: the first push and every change need the config saved and a reload"))
                .at("/load_balancing/dlb/mode")
                .hint("schedule a reload window for these switches"),
        );
    }
}

/// AIF-LB-007: QP hashing that replaces the L4 ports in the hash of all IPv4 traffic (NX-OS UDF load
/// sharing is global and cannot be scoped to UDP 4791): an error unless acknowledged.
fn qp_hash_cost(intent: &Intent, u: &PlatformUse, out: &mut Vec<Finding>) {
    let (pname, p) = (u.name, u.profile);
    let n = ack::unacknowledged(
        Rule::QpHashReplacesL4Ports,
        intent,
        p,
        u.devices.iter().copied(),
    );
    if n > 0 {
        out.push(
            Finding::new(Rule::QpHashReplacesL4Ports, format!("QP hashing on {pname} ({}) is global: it replaces the L4 ports in the ECMP hash of all IPv4 traffic, not only RoCEv2 (UDP 4791), and its offset base is unconfirmed", devices(n)))
                .at("/load_balancing/hash/roce_dest_qp")
                .hint("leave these roles out of `hash.roles`, or, where the NICs reuse source ports across QPs and the hash was tested, add `acknowledge: [{rule: AIF-LB-007, reason: ...}]`"),
        );
    }
}

/// `1 device`, `4 devices`.
fn devices(n: usize) -> String {
    if n == 1 {
        "1 device".into()
    } else {
        format!("{n} devices")
    }
}
