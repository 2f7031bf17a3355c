//! Per-device features: QoS plans (one per platform, shared), DLB, QP hashing, and the notes that
//! unverified syntax must carry into the config.
//!
//! A feature a platform cannot do is an error naming the device, the platform and the alternative; a
//! feature whose syntax the reference marks unverified renders with a note naming the reference.

use super::qos;
use super::topology::{Draft, platform_pointer};
use crate::diag::Finding;
use crate::intent::{DlbMode, Intent};
use crate::model::{Direction, DlbPlan, Note, NoteFeature, PortKind, QpHashPlan};
use crate::platform::{Catalog, QpHashMethod, Support};
use crate::rules::Rule;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Resolves QoS plans, DLB, QP hashing and notes for every device.
pub fn resolve(intent: &Intent, catalog: &Catalog, f: &mut Draft) -> Result<(), Vec<Finding>> {
    let mut errs = Vec::new();

    // One QoS plan per platform.
    let mut plans = BTreeMap::new();
    for d in &f.devices {
        if plans.contains_key(&d.platform) {
            continue;
        }
        let Some((_, pf)) = catalog.get(&d.platform) else {
            continue;
        };
        match qos::plan(intent, &d.platform, pf) {
            Ok(p) => {
                plans.insert(d.platform.clone(), Arc::new(p));
            }
            Err(e) => {
                errs.extend(e);
                plans.insert(d.platform.clone(), Arc::new(crate::model::QosPlan::empty()));
            }
        }
    }

    let lb = &intent.load_balancing;
    // Errors are reported once per (feature, platform, reason), naming the first device and the count.
    let mut refusals: BTreeMap<(String, String), (Finding, u32)> = BTreeMap::new();
    for draft in f.devices.iter_mut() {
        let overrides = &draft.overrides;
        let d = &mut draft.dev;
        if let Some(plan) = plans.get(&d.platform) {
            d.qos = plan.clone();
        }
        let Some((_, pf)) = catalog.get(&d.platform) else {
            continue;
        };
        let src = |fact: &str| pf.sources.get(fact).cloned().unwrap_or_default();

        // DLB.
        let mut mode = if lb.dlb.roles.contains(&d.role) {
            lb.dlb.mode
        } else {
            DlbMode::Off
        };
        let mut mode_ptr = "/load_balancing/dlb/mode".to_string();
        for &i in overrides {
            if let Some(m) = intent.overrides[i].dlb {
                mode = m;
                mode_ptr = format!("/overrides/{i}/dlb");
            }
        }
        if mode != DlbMode::Off {
            let supported = pf.dlb.support != Support::No && pf.dlb.modes.contains(&mode);
            if !supported {
                let why = pf
                    .dlb
                    .refused
                    .get(mode.as_str())
                    .cloned()
                    .unwrap_or_else(|| {
                        format!("{} does not support DLB mode {}", d.platform, mode.as_str())
                    });
                let alt = if pf.dlb.modes.is_empty() {
                    "set `dlb: off` for these devices (an override, or leave their role out of load_balancing.dlb.roles)".to_string()
                } else {
                    format!(
                        "use mode {} on this platform, or `dlb: off` in an override",
                        pf.dlb
                            .modes
                            .iter()
                            .map(|m| m.as_str())
                            .collect::<Vec<_>>()
                            .join(" or ")
                    )
                };
                let key = (
                    format!("dlb|{}|{}", d.platform, mode.as_str()),
                    mode_ptr.clone(),
                );
                refusals
                    .entry(key)
                    .or_insert_with(|| {
                        (
                            Finding::new(
                                Rule::DlbModeUnsupported,
                                format!(
                                    "DLB {} on {} ({}): {why}",
                                    mode.as_str(),
                                    d.hostname,
                                    d.platform
                                ),
                            )
                            .at(mode_ptr.clone())
                            .hint(alt),
                            0,
                        )
                    })
                    .1 += 1;
            } else if pf.dlb.needs_mac && lb.dlb.mac.is_none() {
                let key = ("dlb-mac".to_string(), String::new());
                refusals
                    .entry(key)
                    .or_insert_with(|| {
                        (
                            Finding::new(
                                Rule::DlbMacMissing,
                                format!("DLB on {} ({}) needs a DLB virtual MAC", d.hostname, d.platform),
                            )
                            .at("/load_balancing/dlb")
                            .hint("add `mac: 00:cc:cc:cc:cc:cc` (the NX-OS default) under load_balancing.dlb"),
                            0,
                        )
                    })
                    .1 += 1;
            } else {
                let mut uplinks = Vec::new();
                for i in d.interfaces.iter_mut() {
                    if i.kind == PortKind::Fabric && i.direction == Direction::Up {
                        i.dlb = true;
                        uplinks.push(i.name.clone());
                    }
                }
                if pf.dlb.support == Support::Unverified {
                    d.notes.push(Note::new(
                        NoteFeature::Dlb,
                        d.os.as_str(),
                        "DLB lines unverified on this platform",
                    ));
                }
                d.dlb = Some(DlbPlan {
                    mode,
                    mac: pf
                        .dlb
                        .needs_mac
                        .then(|| lb.dlb.mac.map(|m| m.to_string()))
                        .flatten(),
                    flowlet_gap_us: lb.dlb.flowlet_gap.map(|g| g.micros()),
                    interfaces: uplinks,
                    support: pf.dlb.support,
                });
            }
        }

        // QP hashing.
        let mut qp = lb.hash.roce_dest_qp && lb.hash.roles.contains(&d.role);
        let mut qp_ptr = "/load_balancing/hash/roce_dest_qp".to_string();
        for &i in overrides {
            if let Some(v) = intent.overrides[i].roce_dest_qp {
                qp = v;
                qp_ptr = format!("/overrides/{i}/roce_dest_qp");
            }
        }
        if qp {
            if pf.qp_hash.method == QpHashMethod::None || pf.qp_hash.support == Support::No {
                let key = (format!("qp|{}", d.platform), qp_ptr.clone());
                refusals
                    .entry(key)
                    .or_insert_with(|| {
                        (
                            Finding::new(
                                Rule::QpHashUnsupported,
                                format!(
                                    "QP hashing on {} ({}): the platform has no way to hash on the RoCEv2 destination QP ({})",
                                    d.hostname,
                                    d.platform,
                                    src("qp_hash")
                                ),
                            )
                            .at(qp_ptr.clone())
                            .hint("leave this role out of load_balancing.hash.roles, or add an override with `roce_dest_qp: false`; the default 5-tuple hash still spreads RoCE flows by UDP source port"),
                            0,
                        )
                    })
                    .1 += 1;
            } else {
                if pf.qp_hash.support == Support::Unverified {
                    d.notes.push(Note::new(
                        NoteFeature::QpHash,
                        d.os.as_str(),
                        "QP-hash lines unverified on this platform",
                    ));
                }
                d.qp_hash = Some(QpHashPlan {
                    method: pf.qp_hash.method,
                    support: pf.qp_hash.support,
                    l4_offset: 13,
                    length_bytes: 3,
                    udp_port: 4791,
                });
            }
        }

        if pf.watchdog_timers == Support::Unverified && intent.qos.pfc_watchdog.enabled {
            d.notes.push(Note::new(
                NoteFeature::PfcWatchdog,
                d.os.as_str(),
                "PFC watchdog timer lines unverified on this platform",
            ));
        }
        let _ = platform_pointer;
    }
    for ((_, _), (mut finding, count)) in refusals {
        if count > 1 {
            finding
                .message
                .push_str(&format!(" (and {} more devices)", count - 1));
        }
        errs.push(finding);
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}
