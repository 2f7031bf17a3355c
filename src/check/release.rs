//! OS releases (`AIF-OS-001`, `-002`): a device's `os_version` (its tier's, or an override's) is a
//! release of its OS, and at least the minimum release of every feature rendered on it (the platform's
//! `dlb.min_os`, `qp_hash.min_os` and `min_os` facts). Devices without `os_version` are not checked.

use super::Uses;
use crate::diag::Finding;
use crate::intent::{DlbMode, Intent};
use crate::place::{self, PlatformUse};
use crate::platform::release::{self, Feature, Release};
use crate::platform::{Os, Platform, QpHashMethod};
use crate::rules::Rule;
use std::collections::BTreeMap;

/// AIF-OS-001 and -002 for every platform in use.
pub(super) fn rules(intent: &Intent, uses: &Uses, out: &mut Vec<Finding>) {
    for u in uses {
        platform(intent, u, out);
    }
}

/// The checks for the devices of one platform: one finding per setting and problem, with a device count.
fn platform(intent: &Intent, u: &PlatformUse, out: &mut Vec<Finding>) {
    let mut bad_format: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut too_old: BTreeMap<(String, Feature, String, String), usize> = BTreeMap::new();
    for d in &u.devices {
        let (Some(text), origin) = place::os_version(intent, *d) else {
            continue;
        };
        let Ok(have) = Release::parse(u.os, text) else {
            *bad_format
                .entry((origin.pointer(), text.to_string()))
                .or_default() += 1;
            continue;
        };
        for (feature, min) in rendered(intent, u.profile, d) {
            match Release::parse(u.os, min) {
                Ok(need) if !have.at_least(&need) => {
                    let key = (origin.pointer(), feature, min.to_string(), text.to_string());
                    *too_old.entry(key).or_default() += 1;
                }
                _ => {}
            }
        }
    }
    for ((at, text), n) in bad_format {
        out.push(
            Finding::new(
                Rule::OsVersionFormat,
                format!(
                    "os_version `{text}` of {} on {}: not a {} release like {}",
                    devices(n),
                    u.name,
                    release::os_name(u.os),
                    release::example(u.os)
                ),
            )
            .at(at)
            .hint(hint(u.os)),
        );
    }
    for ((at, feature, min, text), n) in too_old {
        out.push(
            Finding::new(
                Rule::FeatureNeedsRelease,
                format!(
                    "{} on {} of {} needs {} {min} or later; os_version is {text}",
                    feature.label(),
                    devices(n),
                    u.name,
                    release::os_name(u.os)
                ),
            )
            .at(at)
            .hint(fix(feature, u.os)),
        );
    }
}

/// The features rendered on a device with the minimum release its platform states for each.
fn rendered<'p>(intent: &Intent, p: &'p Platform, d: &place::Placed) -> Vec<(Feature, &'p str)> {
    p.release_minimums()
        .into_iter()
        .filter(|(f, _)| match f {
            Feature::Dlb => {
                let (mode, _) = place::dlb_mode(intent, d);
                mode != DlbMode::Off && p.dlb.modes.contains(&mode)
            }
            Feature::QpHash => {
                place::roce_dest_qp(intent, d).0 && p.qp_hash.method != QpHashMethod::None
            }
            Feature::Bgp => true,
            Feature::PfcWatchdog => intent.qos.pfc_watchdog.enabled,
        })
        .collect()
}

/// How to fix a feature on too old a release: upgrade, or turn an optional feature off.
fn fix(feature: Feature, os: Os) -> String {
    let off = match feature {
        Feature::Dlb => ", or turn DLB off for them (`dlb.roles` or an override's `dlb: off`)",
        Feature::QpHash => {
            ", or turn QP hashing off for them (`hash.roles` or an override's `roce_dest_qp: false`)"
        }
        Feature::PfcWatchdog => {
            ", or turn the PFC watchdog off (`qos.pfc_watchdog.enabled: false`)"
        }
        Feature::Bgp => "",
    };
    format!(
        "upgrade these switches and raise `os_version`{off} (docs/platforms/{}.md#os-releases)",
        os.as_str()
    )
}

/// How to spell a release of `os`, and where the setting lives.
fn hint(os: Os) -> String {
    format!(
        "write the release as `show version` prints it, e.g. `{}`; an override that moves devices to another OS needs its own `os_version`",
        release::example(os)
    )
}

/// `1 device`, `4 devices`.
fn devices(n: usize) -> String {
    if n == 1 {
        "1 device".into()
    } else {
        format!("{n} devices")
    }
}
