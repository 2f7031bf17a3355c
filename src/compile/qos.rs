//! Resolves the intent's traffic classes into one [`QosPlan`] per platform: DSCP map, queues, ECN
//! thresholds in bytes (refused, located, when the platform's unit cannot express one exactly), and
//! watchdog timers with their polling interval. How each OS spells them, in which unit, is the OS
//! layer's job (`crate::os`).

use crate::diag::Finding;
use crate::intent::{Intent, Qos};
use crate::model::{ClassPlan, EcnPlan, QosPlan, QueuePlan, WatchdogPlan};
use crate::platform::{Platform, StrictQueues};
use crate::rules::Rule;

/// Builds the QoS plan for one platform. `platform_name` is used in messages.
pub fn plan(
    intent: &Intent,
    platform_name: &str,
    platform: &Platform,
) -> Result<QosPlan, Vec<Finding>> {
    let qos = &intent.qos;
    let mut errs = Vec::new();
    let mut classes: Vec<ClassPlan> = qos
        .classes
        .iter()
        .map(|(name, c)| class_plan(name, c, platform, platform_name, &mut errs))
        .collect();
    // Highest priority first, the default class last.
    classes.sort_by(|a, b| {
        a.is_default
            .cmp(&b.is_default)
            .then(b.priority.cmp(&a.priority))
            .then(a.name.cmp(&b.name))
    });
    if let Err(mut e) = place_queues(&mut classes, platform, platform_name) {
        errs.append(&mut e);
        return Err(errs);
    }
    let (dscp_to_tc, default_tc, default_dscps) = dscp_maps(&classes);
    let mut lossless_priorities: Vec<u8> = classes
        .iter()
        .filter(|c| c.lossless)
        .map(|c| c.priority)
        .collect();
    lossless_priorities.sort_unstable();
    lossless_priorities.dedup();
    let queues = queue_plans(&classes);
    let watchdog = match watchdog(qos, &lossless_priorities, platform, platform_name) {
        Ok(w) => w,
        Err(f) => {
            errs.push(f);
            return Err(errs);
        }
    };
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(QosPlan {
        classes,
        lossless_priorities,
        dscp_to_tc,
        default_priority: default_tc,
        default_dscps,
        queues,
        watchdog,
    })
}

/// One intent class as planned for the platform: its DSCPs sorted and deduplicated, its queue at its
/// priority (until [`place_queues`] moves it), its ECN thresholds in the platform's unit (a threshold
/// that unit cannot express exactly is pushed onto `errs` and the class gets no ECN).
fn class_plan(
    name: &str,
    c: &crate::intent::QosClass,
    platform: &Platform,
    platform_name: &str,
    errs: &mut Vec<Finding>,
) -> ClassPlan {
    let mut dscp: Vec<u8> = c.dscp.iter().flatten().map(|d| d.0).collect();
    dscp.sort_unstable();
    dscp.dedup();
    let priority = c.priority.unwrap_or(0);
    ClassPlan {
        name: name.to_string(),
        ident: name.to_ascii_uppercase().replace('-', "_"),
        priority,
        queue: priority,
        max_rate: c.max_rate.map(|r| r.0),
        dscp,
        is_default: c.dscp.is_none(),
        lossless: c.lossless,
        strict: c.strict,
        bandwidth: c.bandwidth.map(|b| b.0),
        ecn: c
            .ecn
            .as_ref()
            .and_then(|e| ecn_plan(name, e, platform, platform_name, errs)),
    }
}

/// A class's ECN thresholds, or `None` with one [`Rule::EcnThresholdInexact`] finding per threshold
/// the platform's unit cannot express exactly.
fn ecn_plan(
    name: &str,
    e: &crate::intent::Ecn,
    platform: &Platform,
    platform_name: &str,
    errs: &mut Vec<Finding>,
) -> Option<EcnPlan> {
    let unit = &platform.ecn_unit;
    let min = unit.exact(e.min.bytes());
    let max = unit.exact(e.max.bytes());
    match (min, max) {
        (Ok(_), Ok(_)) => Some(EcnPlan {
            min_bytes: e.min.bytes(),
            max_bytes: e.max.bytes(),
            probability: e.probability.0,
        }),
        (min, max) => {
            for (which, r) in [("min", min), ("max", max)] {
                if let Err(msg) = r {
                    errs.push(
                        Finding::new(
                            Rule::EcnThresholdInexact,
                            format!(
                                "ECN {which} of class `{name}` cannot be expressed on {platform_name}: {msg}"
                            ),
                        )
                        .at(format!("/qos/classes/{name}/ecn/{which}"))
                        .hint(format!(
                            "use a multiple of {} bytes (e.g. write it in KB)",
                            unit.bytes
                        )),
                    );
                }
            }
            None
        }
    }
}

/// The DSCP-to-traffic-class table (all 64 code points; the ones no class names go to the default
/// class's priority, 0 without one), that default priority, and the code points no class names.
fn dscp_maps(classes: &[ClassPlan]) -> (Vec<u8>, u8, Vec<u8>) {
    let default_tc = classes
        .iter()
        .find(|c| c.is_default)
        .map(|c| c.priority)
        .unwrap_or(0);
    let mut dscp_to_tc = vec![default_tc; 64];
    for c in classes {
        for d in &c.dscp {
            if let Some(slot) = dscp_to_tc.get_mut(*d as usize) {
                *slot = c.priority;
            }
        }
    }
    let named: std::collections::BTreeSet<u8> = classes
        .iter()
        .flat_map(|c| c.dscp.iter().copied())
        .collect();
    let default_dscps: Vec<u8> = (0u8..64).filter(|d| !named.contains(d)).collect();
    (dscp_to_tc, default_tc, default_dscps)
}

/// The eight egress queues, each with the class placed on it (if any) and that class's scheduling.
fn queue_plans(classes: &[ClassPlan]) -> Vec<QueuePlan> {
    (0u8..8)
        .map(|q| {
            let class = classes.iter().find(|c| c.queue == q);
            QueuePlan {
                queue: q,
                class: class.map(|c| c.name.clone()),
                strict: class.is_some_and(|c| c.strict),
                bandwidth: class.and_then(|c| c.bandwidth).unwrap_or(0),
                lossless: class.is_some_and(|c| c.lossless),
                max_rate: class.and_then(|c| c.max_rate),
                ecn: class.and_then(|c| c.ecn.clone()),
            }
        })
        .collect()
}

/// Sets each class's egress queue. With [`StrictQueues::Top`] the strict classes take the highest
/// queues in priority order (the highest-priority strict class on queue 7) and every other class keeps
/// its priority as its queue; a non-strict class whose priority falls in that top block, or a strict
/// lossless class that would move, is refused (its queue must stay its PFC priority).
fn place_queues(
    classes: &mut [ClassPlan],
    platform: &Platform,
    platform_name: &str,
) -> Result<(), Vec<Finding>> {
    if platform.strict_queues != StrictQueues::Top {
        return Ok(());
    }
    // `classes` is sorted highest priority first, so strict classes come in level order.
    let strict: Vec<usize> = (0..classes.len()).filter(|&i| classes[i].strict).collect();
    let Some(lowest) = 8u8.checked_sub(strict.len() as u8) else {
        return Ok(()); // more than eight strict classes cannot pass the schema's priority range
    };
    let mut errs = Vec::new();
    for (rank, &i) in strict.iter().enumerate() {
        classes[i].queue = 7 - rank as u8;
    }
    for c in classes.iter() {
        let moved = c.strict && c.lossless && c.queue != c.priority;
        let in_block = !c.strict && c.priority >= lowest;
        if moved || in_block {
            errs.push(
                Finding::new(
                    Rule::StrictQueuesNotTop,
                    format!(
                        "class `{}` (priority {}) on {platform_name}: the {} strict class{} take{} queues {lowest}-7 there, so {}",
                        c.name,
                        c.priority,
                        strict.len(),
                        if strict.len() == 1 { "" } else { "es" },
                        if strict.len() == 1 { "s" } else { "" },
                        if moved {
                            "this lossless class would leave its PFC priority's queue"
                        } else {
                            "this class would share a queue with a strict class"
                        }
                    ),
                )
                .at(format!("/qos/classes/{}/priority", c.name))
                .hint(format!(
                    "give `{}` a priority below {lowest}: the platform puts strict-priority queues on the highest-numbered queues, contiguous (docs/platforms/nxos.md#queuing-and-ecn)",
                    c.name
                )),
            );
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn watchdog(
    qos: &Qos,
    lossless: &[u8],
    platform: &Platform,
    platform_name: &str,
) -> Result<WatchdogPlan, Finding> {
    let w = &qos.pfc_watchdog;
    if !w.enabled {
        // Nothing is rendered for a disabled watchdog, so its timers need no checking.
        return Ok(WatchdogPlan::disabled(w.action));
    }
    let detect_ms = w.detect.millis_exact().map_err(|e| {
        Finding::new(
            Rule::WatchdogNotWholeMs,
            format!("PFC watchdog detect: {e}"),
        )
        .at("/qos/pfc_watchdog/detect")
        .hint("the OSes take whole milliseconds: write e.g. `200ms`")
    })?;
    let restore_ms = w.restore.millis_exact().map_err(|e| {
        Finding::new(
            Rule::WatchdogNotWholeMs,
            format!("PFC watchdog restore: {e}"),
        )
        .at("/qos/pfc_watchdog/restore")
        .hint("the OSes take whole milliseconds: write e.g. `1s`")
    })?;
    // The polling interval: the largest value in 100..=1000 ms dividing both timers, so that NX-OS
    // multipliers and SONiC's POLL_INTERVAL express the timers exactly, and small enough that the
    // platform's paused polls before a storm (SONiC: 2) still fit in the detection time.
    let polls = platform.watchdog_limits.polls_to_detect.max(1);
    let ceiling = (detect_ms / polls).min(1000);
    let g = gcd(detect_ms, restore_ms);
    let poll_ms = (100..=ceiling).rev().find(|p| g.is_multiple_of(*p)).ok_or_else(|| {
        let why = if polls > 1 {
            format!(
                " at most {ceiling} ms ({platform_name} declares a storm after {polls} paused polls, so the poll must be at most 1/{polls} of the detection time)"
            )
        } else {
            String::new()
        };
        Finding::new(
            Rule::WatchdogNoPollInterval,
            format!(
                "PFC watchdog detect {detect_ms} ms and restore {restore_ms} ms have no common polling interval between 100 and 1000 ms{why}"
            ),
        )
        .at("/qos/pfc_watchdog")
        .hint("NX-OS and SONiC count the watchdog in multiples of a 100-1000 ms poll interval, and SONiC needs two polls within the detection time: use multiples of 100 ms and detect of at least 200ms (e.g. detect 200ms, restore 1s)")
    })?;
    Ok(WatchdogPlan {
        enabled: w.enabled,
        detect_ms,
        restore_ms,
        poll_ms,
        action: w.action,
        priorities: lossless.to_vec(),
    })
}
