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
        let at = format!("/overrides/{i}/acknowledge");
        list(&o.acknowledge, &at, out);
        not_per_device(&o.acknowledge, &at, out);
    }
}

/// An override's list names no fabric-wide rule ([`fabric_wide`]): it would cover nothing.
fn not_per_device(acks: &[Acknowledgement], at: &str, out: &mut Vec<Finding>) {
    for (j, a) in acks.iter().enumerate() {
        if Rule::from_id(&a.rule).is_some_and(fabric_wide) {
            out.push(
                Finding::new(
                    Rule::AckUnknownRule,
                    format!(
                        "{} is about the whole fabric, not a device: an override cannot acknowledge it",
                        a.rule
                    ),
                )
                .at(format!("{at}/{j}/rule"))
                .hint("move the entry to the top-level `acknowledge` list"),
            );
        }
    }
}

/// Whether acknowledgeable `rule` is about the whole fabric (the routing analysis), so only the
/// top-level `acknowledge` list covers it.
fn fabric_wide(rule: Rule) -> bool {
    rule == Rule::RoutingUncovered
}

/// `f`, kept as a warning that quotes the reason where the top-level list `acks` acknowledges its
/// fabric-wide rule (`AIF-ROUTE-005`: a routing analysis that could not cover every case).
pub fn fabric_finding(acks: &[Acknowledgement], mut f: Finding) -> Finding {
    if !fabric_wide(f.code) || !f.is_error() {
        return f;
    }
    if let Some((i, a)) = acks.iter().enumerate().find(|(_, a)| a.rule == f.code.id()) {
        f.severity = crate::rules::Severity::Warning;
        f.message = format!(
            "{} (acknowledged at /acknowledge/{i}: {})",
            f.message, a.reason
        );
    }
    f
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
    fn the_fabric_wide_rule_is_acknowledged_only_at_the_top_and_quotes_the_reason() {
        let ack = |rule: &str| Acknowledgement {
            rule: rule.into(),
            reason: "adopted as it runs".into(),
        };
        let f = || Finding::new(Rule::RoutingUncovered, "not every case was computed");
        let kept = fabric_finding(&[ack("AIF-LB-005")], f());
        assert!(kept.is_error(), "{kept:?}");
        let acked = fabric_finding(&[ack("AIF-LB-005"), ack("AIF-ROUTE-005")], f());
        assert!(!acked.is_error(), "{acked:?}");
        assert!(
            acked
                .message
                .ends_with("(acknowledged at /acknowledge/1: adopted as it runs)"),
            "{}",
            acked.message
        );
        // Another rule's error is not touched by the list.
        let valley = fabric_finding(
            &[ack("AIF-ROUTE-005")],
            Finding::new(Rule::ValleyPath, "a valley"),
        );
        assert!(valley.is_error());
        // An override cannot acknowledge it; a per-device rule it can.
        let mut out = Vec::new();
        not_per_device(
            &[ack("AIF-LB-005"), ack("AIF-ROUTE-005")],
            "/overrides/0/acknowledge",
            &mut out,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(
            out[0].pointer.as_deref(),
            Some("/overrides/0/acknowledge/1/rule")
        );
    }

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
