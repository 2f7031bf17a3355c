//! Acknowledged exceptions (`AIF-ACK-001`, `-002`): the `acknowledge` lists name only rules the registry
//! marks acknowledgeable ([`Rule::acknowledgeable`]), each once per list; and, per device, whether an
//! acknowledgeable rule fires ([`fires`]) and which acknowledgement covers it ([`covering`]).
//!
//! An acknowledgeable rule reports only the devices no acknowledgement covers; the compiler records the
//! covered ones in the device model, so the configs, `validate` and the change report show them.

use crate::diag::Finding;
use crate::intent::{Acknowledgement, DlbMode, Intent};
use crate::place::{self, Overridable};
use crate::platform::Platform;
use crate::rules::Rule;

/// AIF-ACK-001, -002 over the fabric-wide list and every override's.
pub fn intent_rules(intent: &Intent, out: &mut Vec<Finding>) {
    list(&intent.acknowledge, "/acknowledge", out);
    for (i, o) in intent.overrides.iter().enumerate() {
        list(&o.acknowledge, &format!("/overrides/{i}/acknowledge"), out);
    }
}

/// One list: every rule known and acknowledgeable, none twice.
fn list(acks: &[Acknowledgement], at: &str, out: &mut Vec<Finding>) {
    for (i, a) in acks.iter().enumerate() {
        let ptr = format!("{at}/{i}/rule");
        match Rule::from_id(&a.rule) {
            Some(r) if r.acknowledgeable() => {}
            found => out.push(
                Finding::new(
                    Rule::AckUnknownRule,
                    match found {
                        Some(_) => format!("{} cannot be acknowledged", a.rule),
                        None => match Rule::retired(&a.rule) {
                            Some(why) => {
                                format!("{} is a retired rule ({why}): remove the entry", a.rule)
                            }
                            None => format!("{} is not a rule aifab has", a.rule),
                        },
                    },
                )
                .at(ptr.clone())
                .hint(format!("acknowledgeable rules: {}", names())),
            ),
        }
        if acks[..i].iter().any(|b| b.rule == a.rule) {
            out.push(
                Finding::new(
                    Rule::AckDuplicate,
                    format!("{} is acknowledged twice in this list", a.rule),
                )
                .at(ptr)
                .hint("keep one entry per rule, with one reason"),
            );
        }
    }
}

/// The ids of the acknowledgeable rules, comma-separated.
fn names() -> String {
    let ids: Vec<&str> = Rule::ALL
        .iter()
        .filter(|r| r.acknowledgeable())
        .map(|r| r.id())
        .collect();
    ids.join(", ")
}

/// Whether the intent has egress QoS that DLB could skip: ECN marking or strict queues.
fn egress_qos(intent: &Intent) -> bool {
    intent
        .qos
        .classes
        .values()
        .any(|c| c.ecn.is_some() || c.strict)
}

/// Whether acknowledgeable `rule` fires on a device of platform `p`: DLB that skips egress QoS
/// (AIF-LB-005), QP hashing that replaces the L4 ports in the hash of all traffic (AIF-LB-007).
pub fn fires(rule: Rule, intent: &Intent, p: &Platform, d: &impl Overridable) -> bool {
    match rule {
        Rule::DlbBypassesEgressQos => {
            let (mode, _) = place::dlb_mode(intent, d);
            p.dlb.bypasses_egress_qos
                && egress_qos(intent)
                && mode != DlbMode::Off
                && p.dlb.modes.contains(&mode)
        }
        Rule::QpHashReplacesL4Ports => {
            p.qp_hash.replaces_l4_ports && place::roce_dest_qp(intent, d).0
        }
        _ => false,
    }
}

/// The acknowledgements that cover a device: every acknowledgeable rule that fires on it and is
/// acknowledged for it, with the acknowledgement's pointer, in registry order.
pub fn covering<'i>(
    intent: &'i Intent,
    p: &Platform,
    d: &impl Overridable,
) -> Vec<(Rule, &'i Acknowledgement, String)> {
    Rule::ALL
        .iter()
        .filter(|r| r.acknowledgeable() && fires(**r, intent, p, d))
        .filter_map(|r| place::acknowledgement(intent, d, r.id()).map(|(a, at)| (*r, a, at)))
        .collect()
}

/// How many of `devices` `rule` fires on without an acknowledgement.
pub fn unacknowledged<'d, D: Overridable + 'd>(
    rule: Rule,
    intent: &Intent,
    p: &Platform,
    devices: impl IntoIterator<Item = &'d D>,
) -> usize {
    devices
        .into_iter()
        .filter(|d| fires(rule, intent, p, *d))
        .filter(|d| place::acknowledgement(intent, *d, rule.id()).is_none())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_id_is_refused_with_its_reason() {
        let ack = |rule: &str| Acknowledgement {
            rule: rule.into(),
            reason: "lab tested".into(),
        };
        let mut out = Vec::new();
        list(
            &[ack("AIF-PFC-008"), ack("AIF-ZZZ-001")],
            "/acknowledge",
            &mut out,
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(
            out[0].message.contains("AIF-PFC-008 is a retired rule"),
            "{:?}",
            out[0]
        );
        assert!(
            out[1].message.contains("is not a rule aifab has"),
            "{:?}",
            out[1]
        );
    }
}
