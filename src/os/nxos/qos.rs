//! NX-OS QoS: type qos class-maps and input policy (DSCP -> qos-group), network-qos (MTU, PFC no-drop),
//! output queuing (strict levels, DWRR, WRED-ECN), and the global PFC watchdog timers.
//!
//! One number per class everywhere: qos-group = c-8q-nqN = c-out-8q-qN = the class's queue, and for a
//! lossless class also its `pause pfc-cos N` (its queue is its priority). Strict classes sit on the
//! top queues (the platform's `strict_queues: top`), so their qos-group may differ from their wire
//! priority. Queue 0 is the class-default queue, whose system class names end in `-default`.

use crate::model::{ClassPlan, EcnPlan, QosPlan, QueuePlan, WatchdogPlan};
use crate::os::common::join;
use crate::platform::{EcnUnit, Platform};
use serde::Serialize;

/// The `c-8q-nqN` network-qos class names public sources show in use; other N follow the pattern but
/// are unverified and get a comment.
const VERIFIED_NQ_CLASSES: [u8; 3] = [0, 3, 7];

/// Everything under `class-map type qos`, the three policy-maps and `system qos`.
#[derive(Clone, Debug, Serialize)]
pub struct Qos {
    /// `class-map type qos match-any`, one per class with DSCPs.
    pub class_maps: Vec<ClassMap>,
    /// `policy-map type qos AIFAB-QOS-IN` entries, `class-default` last.
    pub qos_in: Vec<QosInClass>,
    /// `policy-map type network-qos AIFAB-NQOS` classes.
    pub network_qos: Vec<NetworkQosClass>,
    /// `policy-map type queuing AIFAB-QUEUING-OUT` classes, highest queue first: the policy under
    /// `system qos`, whose shapers are taken of the device's slowest port speed in use.
    pub queuing: Vec<QueuingClass>,
    /// `policy-map type queuing AIFAB-QUEUING-OUT-<speed>G`, one per faster port speed the device uses,
    /// when a strict class is shaped: the same classes with the shapers of that speed, attached on the
    /// ports of that speed (an interface's queuing policy replaces the system one there).
    pub port_queuing: Vec<SpeedQueuing>,
}

/// A queuing policy for the ports of one speed.
#[derive(Clone, Debug, Serialize)]
pub struct SpeedQueuing {
    /// The port speed, Gbit/s: the policy is `AIFAB-QUEUING-OUT-<gbps>G`.
    pub gbps: u32,
    /// Its classes, highest queue first.
    pub classes: Vec<QueuingClass>,
}

/// One `class-map type qos`.
#[derive(Clone, Debug, Serialize)]
pub struct ClassMap {
    /// Class-map name (`ROCE`).
    pub name: String,
    /// `match dscp` list (`24,26`).
    pub dscp: String,
    /// Comment: how running-config prints a DSCP list is unverified.
    pub list_unverified: bool,
}

/// One class of the input policy.
#[derive(Clone, Debug, Serialize)]
pub struct QosInClass {
    /// Class-map name, or `class-default`.
    pub class: String,
    /// `set qos-group`.
    pub qos_group: u8,
}

/// One network-qos class.
#[derive(Clone, Debug, Serialize)]
pub struct NetworkQosClass {
    /// `c-8q-nq3`, `c-8q-nq-default`.
    pub name: String,
    /// Comment: the class name is unverified for this number.
    pub name_unverified: bool,
    /// `mtu`: the platform's largest.
    pub mtu: u32,
    /// `pause pfc-cos` (lossless classes).
    pub pause_pfc_cos: Option<u8>,
}

/// One output queuing class.
#[derive(Clone, Debug, Serialize)]
pub struct QueuingClass {
    /// `c-out-8q-q3`, `c-out-8q-q-default`.
    pub name: String,
    /// `priority level N` (strict queues): 1 for the highest strict queue, 2 for the next.
    pub priority_level: Option<u8>,
    /// `bandwidth remaining percent` (other queues).
    pub bandwidth_remaining: u8,
    /// `shape min 0 <unit> max <rate> <unit>`: a strict class's rate limit at the platform's port speed.
    pub shape: Option<Shape>,
    /// WRED-ECN.
    pub ecn: Option<Ecn>,
}

/// A queue shaper in an absolute rate: the intent's share of the speed of the ports the policy serves.
#[derive(Clone, Debug, Serialize)]
pub struct Shape {
    /// Maximum rate in `unit`.
    pub max: u64,
    /// `gbps` when the rate is whole gigabits, else `mbps`.
    pub unit: &'static str,
    /// The share of the port speed it stands for, percent (for the comment).
    pub percent: u8,
    /// The port speed it was taken of, Gbit/s (for the comment).
    pub port_gbps: u32,
}

impl Shape {
    /// `percent` of a `port_gbps` port, in whole gbps or mbps.
    fn new(percent: u8, port_gbps: u32) -> Shape {
        let mbps = u64::from(port_gbps) * 1000 * u64::from(percent) / 100;
        let (max, unit) = if mbps % 1000 == 0 {
            (mbps / 1000, "gbps")
        } else {
            (mbps, "mbps")
        };
        Shape {
            max,
            unit,
            percent,
            port_gbps,
        }
    }
}

/// `random-detect ... ecn` on one queue.
#[derive(Clone, Debug, Serialize)]
pub struct Ecn {
    /// Minimum threshold in `unit`.
    pub min: u64,
    /// Maximum threshold in `unit`.
    pub max: u64,
    /// Unit keyword.
    pub unit: String,
    /// `drop-probability`, percent.
    pub probability: u8,
    /// Comment: 1 kbyte = 1024 bytes is assumed.
    pub kbyte_assumed: bool,
}

/// The global PFC watchdog timers.
#[derive(Clone, Debug, Serialize)]
pub struct Watchdog {
    /// Comment: the timer lines are unverified on this platform.
    pub timers_unverified: bool,
    /// `watch-dog interval`, ms.
    pub interval_ms: u64,
    /// `shutdown-multiplier`: detection time in intervals.
    pub shutdown_multiplier: u64,
    /// `auto-restore multiplier`: restoration time in intervals.
    pub auto_restore_multiplier: u64,
}

impl Qos {
    /// The NX-OS QoS sections of a platform's QoS plan, on a device whose ports in use run at
    /// `speeds` (Gbit/s, any order, repeats allowed; empty: the platform's slowest speed).
    pub fn new(q: &QosPlan, pf: &Platform, speeds: impl IntoIterator<Item = u32>) -> Qos {
        let speeds = shaped_speeds(q, pf, speeds);
        let (system, faster) = speeds
            .split_first()
            .map_or((slowest_port_gbps(pf), &[][..]), |(s, f)| (*s, f));
        let (defaults, named): (Vec<&ClassPlan>, Vec<&ClassPlan>) =
            q.classes.iter().partition(|c| c.is_default);
        Qos {
            class_maps: named
                .iter()
                .map(|c| ClassMap {
                    name: c.ident.clone(),
                    dscp: join(&c.dscp, ","),
                    list_unverified: c.dscp.len() > 1,
                })
                .collect(),
            qos_in: named
                .iter()
                .map(|c| (c.ident.as_str(), c.queue))
                .chain(defaults.iter().map(|c| ("class-default", c.queue)))
                .map(|(class, qos_group)| QosInClass {
                    class: class.to_string(),
                    qos_group,
                })
                .collect(),
            network_qos: q
                .classes
                .iter()
                .map(|c| NetworkQosClass {
                    name: format!("c-8q-nq{}", number(c.queue)),
                    name_unverified: !VERIFIED_NQ_CLASSES.contains(&c.queue),
                    mtu: pf.max_mtu,
                    pause_pfc_cos: c.lossless.then_some(c.priority),
                })
                .collect(),
            queuing: queuing(&q.queues, system, &pf.ecn_unit),
            port_queuing: faster
                .iter()
                .map(|&gbps| SpeedQueuing {
                    gbps,
                    classes: queuing(&q.queues, gbps, &pf.ecn_unit),
                })
                .collect(),
        }
    }
}

/// The distinct port speeds a shaper must be taken of, ascending: the device's speeds in use when a
/// strict class is shaped, else none (one policy serves every port).
fn shaped_speeds(q: &QosPlan, pf: &Platform, speeds: impl IntoIterator<Item = u32>) -> Vec<u32> {
    if q.queues.iter().all(|c| c.max_rate.is_none()) {
        return Vec::new();
    }
    let mut v: Vec<u32> = speeds.into_iter().filter(|s| *s > 0).collect();
    if v.is_empty() {
        v.push(slowest_port_gbps(pf));
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Queuing classes, highest queue first, strict queues numbered from the top; ECN thresholds in the
/// platform's `unit`.
fn queuing(queues: &[QueuePlan], port_gbps: u32, unit: &EcnUnit) -> Vec<QueuingClass> {
    let mut sorted: Vec<&QueuePlan> = queues.iter().collect();
    sorted.sort_by_key(|q| std::cmp::Reverse(q.queue));
    let mut level = 0u8;
    sorted
        .into_iter()
        .map(|q| QueuingClass {
            name: format!("c-out-8q-q{}", number(q.queue)),
            priority_level: q.strict.then(|| {
                level += 1;
                level
            }),
            bandwidth_remaining: q.bandwidth,
            shape: q.max_rate.map(|p| Shape::new(p, port_gbps)),
            ecn: q.ecn.as_ref().map(|e| ecn(e, unit)),
        })
        .collect()
}

/// The slowest port speed the platform offers, Gbit/s: the shaper base of a device with no port in use.
fn slowest_port_gbps(pf: &Platform) -> u32 {
    pf.ports.speeds.iter().map(|s| s.gbps()).min().unwrap_or(0)
}

fn ecn(e: &EcnPlan, unit: &EcnUnit) -> Ecn {
    Ecn {
        min: unit.count(e.min_bytes),
        max: unit.count(e.max_bytes),
        unit: unit.keyword.clone(),
        probability: e.probability,
        kbyte_assumed: unit.keyword == "kbytes",
    }
}

/// A queue or qos-group number in a system class name: `-default` for 0.
fn number(n: u8) -> String {
    if n == 0 {
        "-default".to_string()
    } else {
        n.to_string()
    }
}

impl Watchdog {
    /// The NX-OS timers of an enabled watchdog: multiples of one polling interval.
    pub fn new(w: &WatchdogPlan, timers_unverified: bool) -> Option<Watchdog> {
        // An enabled watchdog always has a poll interval (the compiler refuses timers without one).
        if !w.enabled || w.poll_ms == 0 {
            return None;
        }
        Some(Watchdog {
            timers_unverified,
            interval_ms: w.poll_ms,
            shutdown_multiplier: w.detect_ms / w.poll_ms,
            auto_restore_multiplier: w.restore_ms / w.poll_ms,
        })
    }
}
