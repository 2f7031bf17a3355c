//! MTU rules (`AIF-MTU-*`): the fabric MTU carries RoCE and every platform accepts it.

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::rules::Rule;

/// IP MTU a RoCEv2 4096-byte path MTU needs: 4096 payload + IP 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4,
/// rounded up to the 4200 NIC vendors recommend.
pub const ROCE_MIN_MTU: u32 = 4200;

/// AIF-MTU-001: the MTU carries RoCE.
pub(super) fn intent_rules(intent: &Intent, out: &mut Vec<Finding>) {
    let mtu = intent.fabric.mtu;
    if mtu < ROCE_MIN_MTU {
        out.push(
            Finding::new(Rule::MtuBelowRoce, format!("MTU {mtu} cannot carry RoCE's 4096-byte path MTU plus headers (needs {ROCE_MIN_MTU})"))
                .at("/fabric/mtu")
                .hint("use a jumbo MTU such as 9214, and make the NICs' RoCE MTU 4096"),
        );
    }
}

/// AIF-MTU-002: every platform in use accepts the MTU.
pub(super) fn platform_rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    let mtu = intent.fabric.mtu;
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        if mtu > p.max_mtu {
            out.push(
                Finding::new(Rule::MtuAbovePlatform, format!("MTU {mtu} exceeds the {} that {pname} accepts", p.max_mtu))
                    .at("/fabric/mtu")
                    .hint(format!("set `mtu: {}` (every port of the fabric uses the same MTU, so both ends of every link agree; platform chosen at {ptr})", p.max_mtu)),
            );
        }
    }
}
