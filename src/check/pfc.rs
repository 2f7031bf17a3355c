//! PFC rules (`AIF-PFC-*`): a fabric has lossless classes, they have the watchdog, and each platform can
//! express the watchdog timers and action (the rule id of each OS's limits comes from its `vendors/` profile).

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::kinds::WatchdogAction;
use crate::platform::WatchdogLimits;
use crate::rules::Rule;

/// AIF-PFC-005, -001: the fabric has lossless classes, and they have the watchdog.
pub(super) fn intent_rules(intent: &Intent, out: &mut Vec<Finding>) {
    let lossless = intent.qos.classes.values().any(|c| c.lossless);
    if !lossless {
        out.push(
            Finding::new(
                Rule::NoLosslessClass,
                "no class is lossless: this fabric has no PFC",
            )
            .at("/qos/classes")
            .hint("mark the RoCE class `lossless: true` unless the NICs run a lossy RoCE mode"),
        );
    }
    let w = &intent.qos.pfc_watchdog;
    if lossless && !w.enabled {
        out.push(
            Finding::new(Rule::LosslessWithoutWatchdog, "lossless classes without the PFC watchdog: a stuck receiver can pause the fabric indefinitely")
                .at("/qos/pfc_watchdog/enabled")
                .hint("set `enabled: true`; the watchdog covers exactly the lossless priorities"),
        );
    }
}

/// AIF-PFC-002, -003, -004: each platform in use can express the watchdog timers (the rule id comes
/// from the platform's `watchdog_limits`).
pub(super) fn platform_rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    let w = &intent.qos.pfc_watchdog;
    if !w.enabled {
        return;
    }
    let (d_us, r_us) = (w.detect.micros(), w.restore.micros());
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        if w.action == WatchdogAction::Alert && !p.watchdog_limits.alert {
            out.push(
                Finding::new(Rule::WatchdogActionUnsupported, format!("PFC watchdog `action: alert` on {pname}: the OS has no known CLI for it, so its switches would drop the stuck queue's packets while the intent says only to log"))
                    .at("/qos/pfc_watchdog/action")
                    .hint(format!("use `action: drop` (every OS renders it), or put these devices (platform chosen at {ptr}) on an OS that renders alert (EOS notify-only, SONiC alert)")),
            );
        }
        if let Some(msg) = watchdog_problem(&p.watchdog_limits, d_us, r_us) {
            out.push(
                Finding::new(p.watchdog_limits.rule, format!("PFC watchdog detect {} / restore {} on {pname}: {msg}", w.detect, w.restore))
                    .at("/qos/pfc_watchdog")
                    .hint(format!("choose timers the platform can express (platform chosen at {ptr}); detect 200ms, restore 1s works on every profile")),
            );
        }
    }
}

/// Why a platform cannot express the watchdog timers (`None` when it can), from its `watchdog_limits`.
fn watchdog_problem(l: &WatchdogLimits, d_us: u64, r_us: u64) -> Option<String> {
    if !d_us.is_multiple_of(1000) || !r_us.is_multiple_of(1000) {
        return Some("timers must be whole milliseconds".into());
    }
    let (d, r) = (d_us / 1000, r_us / 1000);
    if d < l.detect_ms[0] || d > l.detect_ms[1] || r < l.restore_ms[0] || r > l.restore_ms[1] {
        return Some(format!(
            "detection must be {}-{} ms and restoration {}-{} ms",
            l.detect_ms[0], l.detect_ms[1], l.restore_ms[0], l.restore_ms[1]
        ));
    }
    if !d.is_multiple_of(l.step_ms) || !r.is_multiple_of(l.step_ms) {
        return Some(format!("timers must be multiples of {} ms", l.step_ms));
    }
    if let (Some([lo, hi]), Some([md, mr])) = (l.poll_interval_ms, l.max_multiplier) {
        let g = crate::units::gcd(d, r);
        let ok = (lo..=hi)
            .rev()
            .any(|p| g.is_multiple_of(p) && d / p >= 1 && d / p <= md && r / p <= mr);
        if !ok {
            return Some(format!(
                "timers must be 1-{md} (detect) and 1-{mr} (restore) multiples of one {lo}-{hi} ms poll interval"
            ));
        }
    }
    None
}
