//! QoS class rules (`AIF-QOS-*`): DSCP and priority ownership, the default class, lossless and strict
//! classes, ECN thresholds and bandwidth shares. Classes are checked one at a time, in name order, each
//! rule family in turn, then the rules about all classes together.

use super::Uses;
use crate::diag::Finding;
use crate::intent::{Intent, QosClass};
use crate::rules::Rule;
use std::collections::BTreeMap;

type Classes = BTreeMap<String, QosClass>;

/// Which class took a DSCP value or a priority first.
#[derive(Default)]
struct Owners<'a> {
    dscp: BTreeMap<u8, &'a str>,
    priority: BTreeMap<u8, &'a str>,
}

/// Adds the findings of the class rules that read only the intent, class by class in name order, then
/// across classes.
pub(super) fn intent_rules(intent: &Intent, out: &mut Vec<Finding>) {
    let classes = &intent.qos.classes;
    default_class(classes, out);
    let has_cnp = classes.iter().any(|(n, c)| is_cnp(n, c));
    let mut owners = Owners::default();
    for (name, c) in classes {
        dscp(name, c, &mut owners, out);
        priority(name, c, &mut owners, out);
        lossless(name, c, has_cnp, out);
        ecn(name, c, out);
        strict(name, c, out);
        max_rate(name, c, out);
    }
    bandwidth_sum(classes, out);
}

/// Adds the findings of the class rules about the platforms in use, class by class in name order, then
/// across classes.
pub(super) fn platform_rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    let classes = &intent.qos.classes;
    for (name, c) in classes {
        ecn_buffer(name, c, uses, out);
        reserved_traffic_class(name, c, uses, out);
    }
    lossless_limit(classes, uses, out);
}

fn class_ptr(name: &str, field: &str) -> String {
    let seg = crate::load::escape_segment(name);
    if field.is_empty() {
        format!("/qos/classes/{seg}")
    } else {
        format!("/qos/classes/{seg}/{field}")
    }
}

fn is_cnp(name: &str, c: &QosClass) -> bool {
    name.eq_ignore_ascii_case("cnp") || c.dscp.iter().flatten().any(|d| d.0 == 48)
}

/// AIF-QOS-007: exactly one class has no `dscp`.
fn default_class(classes: &Classes, out: &mut Vec<Finding>) {
    let defaults: Vec<&str> = classes
        .iter()
        .filter(|(_, c)| c.dscp.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if defaults.len() == 1 {
        return;
    }
    out.push(
        Finding::new(
            Rule::DefaultClassCount,
            if defaults.is_empty() {
                "no default class: every class lists DSCPs, so unmatched traffic has no queue".to_string()
            } else {
                format!("{} classes have no `dscp` ({}); exactly one may be the default", defaults.len(), defaults.join(", "))
            },
        )
        .at(defaults.get(1).map(|n| class_ptr(n, "")).unwrap_or_else(|| "/qos/classes".into()))
        .hint("give every class but one a `dscp` list; the one without is the default class (class-default)"),
    );
}

/// AIF-QOS-006, -004, -018: a class's `dscp` list is not empty, shares no value with another class, and
/// comes with a priority.
fn dscp<'a>(name: &'a str, c: &QosClass, owners: &mut Owners<'a>, out: &mut Vec<Finding>) {
    let Some(d) = &c.dscp else { return };
    if d.is_empty() {
        out.push(
            Finding::new(Rule::EmptyDscpList, format!("class `{name}` has an empty `dscp` list"))
                .at(class_ptr(name, "dscp"))
                .hint("list the DSCPs the NICs mark (e.g. [26] for RoCE), or remove `dscp` to make this the default class"),
        );
    }
    for (i, v) in d.iter().enumerate() {
        if let Some(other) = owners.dscp.insert(v.0, name)
            && other != name
        {
            out.push(
                Finding::new(
                    Rule::DscpInTwoClasses,
                    format!("DSCP {} is in class `{other}` and in class `{name}`", v.0),
                )
                .at(class_ptr(name, &format!("dscp/{i}")))
                .hint("a packet can go to one queue only: keep each DSCP in one class"),
            );
        }
    }
    if c.priority.is_none() {
        out.push(
            Finding::new(
                Rule::DscpWithoutPriority,
                format!("class `{name}` has DSCPs but no `priority`"),
            )
            .at(class_ptr(name, ""))
            .hint("add `priority: <0-7>` (the traffic class, queue and PFC priority)"),
        );
    }
}

/// AIF-QOS-005: no two classes share a priority (the default class counts as priority 0).
fn priority<'a>(name: &'a str, c: &QosClass, owners: &mut Owners<'a>, out: &mut Vec<Finding>) {
    let prio = c.priority.unwrap_or(0);
    if (c.priority.is_some() || c.dscp.is_none())
        && let Some(other) = owners.priority.insert(prio, name)
    {
        out.push(
            Finding::new(
                Rule::PriorityInTwoClasses,
                format!("priority {prio} is used by class `{other}` and class `{name}`"),
            )
            .at(class_ptr(name, "priority"))
            .hint("each class needs its own priority: it is also its queue and PFC priority"),
        );
    }
}

/// AIF-QOS-009, -017, -012, -011: a lossless class is not strict, not the default class, and marks ECN
/// with a CNP class to carry the notifications.
fn lossless(name: &str, c: &QosClass, has_cnp: bool, out: &mut Vec<Finding>) {
    if !c.lossless {
        return;
    }
    if c.strict {
        out.push(
            Finding::new(Rule::LosslessStrict, format!("class `{name}` is both lossless and strict"))
                .at(class_ptr(name, "strict"))
                .hint("a strict, no-drop queue can starve every other queue and spread pause storms: make it weighted (`bandwidth`) or drop `lossless`"),
        );
    }
    if c.dscp.is_none() {
        out.push(
            Finding::new(Rule::LosslessDefaultClass, format!("the default class `{name}` is lossless"))
                .at(class_ptr(name, "lossless"))
                .hint("PFC on the default class pauses all unclassified traffic: make only the RoCE class lossless"),
        );
    }
    match &c.ecn {
        None => out.push(
            Finding::new(Rule::LosslessWithoutEcn, format!("lossless class `{name}` has no ECN: congestion is handled by PFC pauses alone"))
                .at(class_ptr(name, "lossless"))
                .hint("add `ecn: {min: 150KB, max: 1500KB, probability: 10%}` so DCQCN slows senders before PFC fires"),
        ),
        Some(_) if !has_cnp => out.push(
            Finding::new(Rule::EcnWithoutCnp, format!("lossless class `{name}` marks ECN but no class carries CNPs"))
                .at(class_ptr(name, "ecn"))
                .hint("add `cnp: {dscp: [48], priority: 6, strict: true}`: DCQCN needs the congestion notifications to travel ahead of data"),
        ),
        Some(_) => {}
    }
}

/// AIF-QOS-001, -003: ECN min below max, a probability that marks.
fn ecn(name: &str, c: &QosClass, out: &mut Vec<Finding>) {
    let Some(e) = &c.ecn else { return };
    if e.min >= e.max {
        out.push(
            Finding::new(Rule::EcnMinNotBelowMax, format!("class `{name}`: ECN min {} is not below max {}", e.min, e.max))
                .at(class_ptr(name, "ecn/min"))
                .hint("marking starts at `min` and reaches `probability` at `max`: make min smaller than max"),
        );
    }
    if e.probability.0 == 0 {
        out.push(
            Finding::new(
                Rule::EcnProbabilityZero,
                format!("class `{name}`: ECN probability 0% never marks"),
            )
            .at(class_ptr(name, "ecn/probability"))
            .hint("use 1-100% (10% is a common DCQCN starting point)"),
        );
    }
}

/// AIF-QOS-002: an ECN max every platform's buffer holds.
fn ecn_buffer(name: &str, c: &QosClass, uses: &Uses, out: &mut Vec<Finding>) {
    let Some(e) = &c.ecn else { return };
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        if let Some(buf) = p.buffer
            && e.max > buf
        {
            out.push(
                Finding::new(
                    Rule::EcnMaxOverBuffer,
                    format!(
                        "class `{name}`: ECN max {} exceeds the {} buffer of {pname}",
                        e.max, buf
                    ),
                )
                .at(class_ptr(name, "ecn/max"))
                .hint(format!(
                    "lower `max` below {buf}; the platform is chosen at {ptr}"
                )),
            );
        }
    }
}

/// AIF-QOS-010, -014, -015: CNP and CTS classes are strict; a strict class has no bandwidth share, a
/// weighted one has.
fn strict(name: &str, c: &QosClass, out: &mut Vec<Finding>) {
    let cts = name.eq_ignore_ascii_case("cts");
    if !c.strict && (is_cnp(name, c) || cts) {
        out.push(
            Finding::new(Rule::CnpCtsNotStrict, format!("class `{name}` carries {} but is not strict", if cts { "clear-to-send messages" } else { "CNPs" }))
                .at(class_ptr(name, ""))
                .hint("add `strict: true`: congestion notifications and clear-to-send must overtake the data they control"),
        );
    }
    match (c.strict, c.bandwidth) {
        (true, Some(_)) => out.push(
            Finding::new(Rule::StrictWithBandwidth, format!("strict class `{name}` has a bandwidth share"))
                .at(class_ptr(name, "bandwidth"))
                .hint("strict queues are served first and take no weighted share: remove `bandwidth`"),
        ),
        (false, None) => out.push(
            Finding::new(Rule::NoBandwidthShare, format!("class `{name}` is neither strict nor given a bandwidth share"))
                .at(class_ptr(name, ""))
                .hint("add `bandwidth: <n>%` (shares of non-strict classes sum to 100%) or `strict: true`"),
        ),
        _ => {}
    }
}

/// AIF-QOS-022: a strict class without a shaper can starve every other queue; AIF-QOS-023: a shaper
/// belongs to a strict class and is 1-100%.
fn max_rate(name: &str, c: &QosClass, out: &mut Vec<Finding>) {
    match (c.strict, c.max_rate) {
        (true, None) => out.push(
            Finding::new(Rule::StrictWithoutRateLimit, format!("strict class `{name}` has no rate limit: a host that marks too much traffic into it can starve every other queue, the lossless one included"))
                .at(class_ptr(name, "strict"))
                .hint("add `max_rate: <n>%` (a shaper at that share of the port speed; CNP and CTS need little, e.g. 5%)"),
        ),
        (false, Some(_)) => out.push(
            Finding::new(Rule::RateLimitNotStrict, format!("class `{name}` has `max_rate` but is not strict"))
                .at(class_ptr(name, "max_rate"))
                .hint("a weighted class is bounded by its `bandwidth` share: remove `max_rate`, or make the class strict"),
        ),
        (true, Some(r)) if r.0 == 0 => out.push(
            Finding::new(Rule::RateLimitNotStrict, format!("strict class `{name}` has `max_rate: 0%`, which would stop it"))
                .at(class_ptr(name, "max_rate"))
                .hint("give a share of 1-100% of the port speed"),
        ),
        _ => {}
    }
}

/// AIF-QOS-016: a class's priority is not a traffic class a platform keeps for control traffic.
fn reserved_traffic_class(name: &str, c: &QosClass, uses: &Uses, out: &mut Vec<Finding>) {
    let prio = c.priority.unwrap_or(0);
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        if p.reserved_traffic_classes.contains(&prio) {
            out.push(
                Finding::new(Rule::ReservedTrafficClass, format!("class `{name}` uses traffic class {prio}, which {pname} reserves for control traffic"))
                    .at(class_ptr(name, "priority"))
                    .hint(format!("pick another priority (the platform is chosen at {ptr}); keep CNP on 6 and the NICs in step")),
            );
        }
    }
}

/// AIF-QOS-013: the bandwidth shares of the non-strict classes add up to 100%.
fn bandwidth_sum(classes: &Classes, out: &mut Vec<Finding>) {
    let share_sum: u32 = classes
        .values()
        .filter(|c| !c.strict)
        .filter_map(|c| c.bandwidth)
        .map(|b| b.0 as u32)
        .sum();
    if share_sum != 100 && classes.values().any(|c| !c.strict) {
        out.push(
            Finding::new(
                Rule::BandwidthSum,
                format!("bandwidth shares of the non-strict classes sum to {share_sum}%, not 100%"),
            )
            .at("/qos/classes")
            .hint("adjust the `bandwidth` values so they add up to 100%"),
        );
    }
}

/// AIF-QOS-008: no more lossless classes than a platform supports.
fn lossless_limit(classes: &Classes, uses: &Uses, out: &mut Vec<Finding>) {
    let lossless_count = classes.values().filter(|c| c.lossless).count();
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        if let Some(max) = p.max_lossless_classes
            && lossless_count > usize::from(max)
        {
            out.push(
                Finding::new(
                    Rule::TooManyLosslessClasses,
                    format!("{lossless_count} lossless classes; {pname} supports {max}"),
                )
                .at(ptr)
                .hint("reduce the lossless classes or choose another platform"),
            );
        }
    }
}
