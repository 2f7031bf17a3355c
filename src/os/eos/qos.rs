//! EOS QoS: `qos map dscp` classification, the `AIFAB-ROCE` qos profile's PFC priorities and tx-queues,
//! and the PFC watchdog in EOS's units (seconds) and action keywords.

use crate::intent::WatchdogAction;
use crate::model::{QosPlan, QueuePlan, WatchdogPlan};
use crate::os::common::join;
use crate::platform::Platform;
use serde::Serialize;

/// Classification and the qos profile.
#[derive(Clone, Debug, Serialize)]
pub struct Qos {
    /// `qos map dscp ... to traffic-class N`, by ascending traffic class, then every other DSCP to the
    /// default class (EOS's built-in map would send DSCP 0-7 to TC 1).
    pub dscp_maps: Vec<DscpMap>,
    /// `priority-flow-control priority N no-drop`, ascending.
    pub no_drop_priorities: Vec<u8>,
    /// The tx-queues the profile sets, ascending.
    pub queues: Vec<TxQueue>,
}

/// One `qos map dscp` line.
#[derive(Clone, Debug, Serialize)]
pub struct DscpMap {
    /// DSCPs, space-separated.
    pub dscps: String,
    /// Traffic class.
    pub traffic_class: u8,
}

/// One tx-queue of the qos profile.
#[derive(Clone, Debug, Serialize)]
pub struct TxQueue {
    /// Sub-mode keyword (`uc-tx-queue` on Strata, `tx-queue` on Sand).
    pub keyword: String,
    /// Queue number.
    pub queue: u8,
    /// The `!!` comment: `class roce` or `unused`.
    pub label: String,
    /// `priority strict`; otherwise `no priority`.
    pub strict: bool,
    /// `bandwidth percent` (weighted queues with a share).
    pub bandwidth: Option<u8>,
    /// `shape rate <n> percent` (strict classes with a rate limit).
    pub shape_percent: Option<u8>,
    /// WRED-ECN.
    pub ecn: Option<Ecn>,
}

/// `random-detect ecn` on one queue.
#[derive(Clone, Debug, Serialize)]
pub struct Ecn {
    /// Minimum threshold in `unit`.
    pub min: u64,
    /// Maximum threshold in `unit`.
    pub max: u64,
    /// Unit keyword.
    pub unit: String,
    /// `max-mark-probability`, percent.
    pub probability: u8,
    /// `weight 0` (platforms that accept it).
    pub weight_zero: bool,
}

/// The PFC watchdog in EOS's terms.
#[derive(Clone, Debug, Serialize)]
pub struct Watchdog {
    /// `timeout`, seconds (`0.2`).
    pub timeout: String,
    /// `recovery-time`, seconds (`1`).
    pub recovery_time: String,
    /// `action`: `drop` or `notify-only`.
    pub action: &'static str,
}

impl Qos {
    /// The EOS QoS sections of a platform's QoS plan. Fails when the platform has no tx-queue keyword.
    pub fn new(q: &QosPlan, pf: &Platform) -> Result<Qos, crate::os::OsError> {
        let keyword = pf
            .queue_keyword
            .as_deref()
            .ok_or(crate::os::OsError::NoQueueKeyword)?;
        let mut dscp_maps: Vec<DscpMap> = q
            .classes
            .iter()
            .rev()
            .filter(|c| !c.is_default)
            .map(|c| DscpMap {
                dscps: join(&c.dscp, " "),
                traffic_class: c.priority,
            })
            .collect();
        if !q.default_dscps.is_empty() {
            dscp_maps.push(DscpMap {
                dscps: join(&q.default_dscps, " "),
                traffic_class: q.default_priority,
            });
        }
        Ok(Qos {
            dscp_maps,
            no_drop_priorities: q.lossless_priorities.clone(),
            queues: queues(&q.queues, pf, keyword),
        })
    }
}

/// The queues the profile sets explicitly: all but the platform's reserved traffic classes and the
/// unused queues above every strict queue (left at the EOS default, strict priority, so that no
/// weighted queue sits above a strict one).
fn queues(queues: &[QueuePlan], pf: &Platform, keyword: &str) -> Vec<TxQueue> {
    let top_strict = queues
        .iter()
        .filter(|q| q.strict)
        .map(|q| q.queue)
        .max()
        .unwrap_or(8);
    queues
        .iter()
        .filter(|q| !pf.reserved_traffic_classes.contains(&q.queue))
        .filter(|q| q.class.is_some() || q.queue <= top_strict)
        .map(|q| TxQueue {
            keyword: keyword.to_string(),
            queue: q.queue,
            label: match &q.class {
                Some(c) => format!("class {c}"),
                None => "unused".to_string(),
            },
            strict: q.strict,
            bandwidth: (q.bandwidth > 0).then_some(q.bandwidth),
            shape_percent: q.max_rate,
            ecn: q.ecn.as_ref().map(|e| Ecn {
                min: pf.ecn_unit.count(e.min_bytes),
                max: pf.ecn_unit.count(e.max_bytes),
                unit: pf.ecn_unit.keyword.clone(),
                probability: e.probability,
                weight_zero: pf.ecn_weight,
            }),
        })
        .collect()
}

impl Watchdog {
    /// The timers of an enabled watchdog in EOS's form.
    pub fn new(w: &WatchdogPlan) -> Option<Watchdog> {
        w.enabled.then(|| Watchdog {
            timeout: seconds(w.detect_ms),
            recovery_time: seconds(w.restore_ms),
            action: match w.action {
                WatchdogAction::Drop => "drop",
                WatchdogAction::Alert => "notify-only",
            },
        })
    }
}

/// Seconds as EOS writes them: `0.2`, `1`, `0.05`.
fn seconds(ms: u64) -> String {
    let whole = ms / 1000;
    let frac = ms % 1000;
    if frac == 0 {
        whole.to_string()
    } else {
        let f = format!("{frac:03}");
        format!("{whole}.{}", f.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_format() {
        assert_eq!(seconds(200), "0.2");
        assert_eq!(seconds(1000), "1");
        assert_eq!(seconds(50), "0.05");
        assert_eq!(seconds(1500), "1.5");
    }
}
