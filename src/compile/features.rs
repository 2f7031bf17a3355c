//! Per-device features: QoS plans (one per platform, shared), DLB, QP hashing, and the notes that
//! unverified syntax must carry into the config.
//!
//! A feature a platform cannot do is an error naming the device, the platform and the alternative; a
//! feature whose syntax the reference marks unverified renders with a note naming the reference. Which
//! devices run DLB and QP hashing is resolved by [`crate::place`] (role lists, then overrides).

use super::qos;
use super::topology::{Draft, DraftDevice};
use crate::diag::Finding;
use crate::intent::{DlbMode, Intent};
use crate::model::{
    Acknowledged, Direction, DlbPlan, Note, NoteFeature, PortKind, QosPlan, QpHashPlan,
};
use crate::place;
use crate::platform::{Catalog, Platform, QpHashMethod, Support};
use crate::rules::Rule;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Resolves QoS plans, DLB, QP hashing and notes for every device.
pub fn resolve(intent: &Intent, catalog: &Catalog, f: &mut Draft) -> Result<(), Vec<Finding>> {
    let (plans, mut errs) = qos_plans(intent, catalog, &f.devices);
    let mut refusals = Refusals::default();
    for d in f.devices.iter_mut() {
        if let Some(plan) = plans.get(&d.platform) {
            d.qos = plan.clone();
        }
        let Some((_, pf)) = catalog.get(&d.platform) else {
            continue;
        };
        dlb(intent, pf, d, &mut refusals);
        qp_hash(intent, pf, d, &mut refusals);
        notes(intent, pf, d);
        acknowledged(intent, pf, d);
    }
    errs.extend(refusals.findings());
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// One QoS plan per platform (an empty plan where the platform's plan fails, with its findings).
fn qos_plans(
    intent: &Intent,
    catalog: &Catalog,
    devices: &[DraftDevice],
) -> (BTreeMap<String, Arc<QosPlan>>, Vec<Finding>) {
    let mut plans = BTreeMap::new();
    let mut errs = Vec::new();
    for d in devices {
        if plans.contains_key(&d.platform) {
            continue;
        }
        let Some((_, pf)) = catalog.get(&d.platform) else {
            continue;
        };
        let plan = qos::plan(intent, &d.platform, pf).unwrap_or_else(|e| {
            errs.extend(e);
            QosPlan::empty()
        });
        plans.insert(d.platform.clone(), Arc::new(plan));
    }
    (plans, errs)
}

/// Feature errors, reported once per (feature, platform, reason, setting), naming the first device and
/// the count of the others.
#[derive(Default)]
struct Refusals(BTreeMap<(String, String), (Finding, u32)>);

impl Refusals {
    /// Counts one more device refused for `key`; the finding is made for the first.
    fn add(&mut self, key: (String, String), first: impl FnOnce() -> Finding) {
        self.0.entry(key).or_insert_with(|| (first(), 0)).1 += 1;
    }

    /// The findings in key order, each saying how many more devices it covers.
    fn findings(self) -> impl Iterator<Item = Finding> {
        self.0.into_values().map(|(mut finding, count)| {
            if count > 1 {
                finding
                    .message
                    .push_str(&format!(" (and {} more devices)", count - 1));
            }
            finding
        })
    }
}

/// DLB on the device's uplinks when its resolved mode is not off and the platform can do it
/// (`AIF-LB-001`, `-002` otherwise).
fn dlb(intent: &Intent, pf: &Platform, d: &mut DraftDevice, refusals: &mut Refusals) {
    let lb = &intent.load_balancing;
    let (mode, origin) = place::dlb_mode(intent, &*d);
    if mode == DlbMode::Off {
        return;
    }
    let supported = pf.dlb.support != Support::No && pf.dlb.modes.contains(&mode);
    if !supported {
        let mode_ptr = origin.pointer();
        let key = (
            format!("dlb|{}|{}", d.platform, mode.as_str()),
            mode_ptr.clone(),
        );
        refusals.add(key, || dlb_refused(pf, d, mode, mode_ptr));
    } else if pf.dlb.needs_mac && lb.dlb.mac.is_none() {
        refusals.add(("dlb-mac".to_string(), String::new()), || {
            Finding::new(
                Rule::DlbMacMissing,
                format!(
                    "DLB on {} ({}) needs a DLB virtual MAC",
                    d.hostname, d.platform
                ),
            )
            .at("/load_balancing/dlb")
            .hint("add `mac: 00:cc:cc:cc:cc:cc` (the NX-OS default) under load_balancing.dlb")
        });
    } else {
        let mut uplinks = Vec::new();
        for i in d.interfaces.iter_mut() {
            if i.kind == PortKind::Fabric && i.direction == Direction::Up {
                i.dlb = true;
                uplinks.push(i.name.clone());
            }
        }
        if pf.dlb.support == Support::Unverified {
            let os = d.os.as_str();
            d.notes.push(Note::new(
                NoteFeature::Dlb,
                os,
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

/// `AIF-LB-001`: a DLB mode the platform cannot do, with the reason and the alternative.
fn dlb_refused(pf: &Platform, d: &DraftDevice, mode: DlbMode, mode_ptr: String) -> Finding {
    let why = pf
        .dlb
        .refused
        .get(mode.as_str())
        .cloned()
        .unwrap_or_else(|| format!("{} does not support DLB mode {}", d.platform, mode.as_str()));
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
    Finding::new(
        Rule::DlbModeUnsupported,
        format!(
            "DLB {} on {} ({}): {why}",
            mode.as_str(),
            d.hostname,
            d.platform
        ),
    )
    .at(mode_ptr)
    .hint(alt)
}

/// QP hashing when the device's resolved `roce_dest_qp` is on and the platform can do it
/// (`AIF-LB-003` otherwise).
fn qp_hash(intent: &Intent, pf: &Platform, d: &mut DraftDevice, refusals: &mut Refusals) {
    let (on, origin) = place::roce_dest_qp(intent, &*d);
    if !on {
        return;
    }
    if pf.qp_hash.method == QpHashMethod::None || pf.qp_hash.support == Support::No {
        let qp_ptr = origin.pointer();
        let source = pf.sources.get("qp_hash").cloned().unwrap_or_default();
        refusals.add((format!("qp|{}", d.platform), qp_ptr.clone()), || {
            Finding::new(
                Rule::QpHashUnsupported,
                format!(
                    "QP hashing on {} ({}): the platform has no way to hash on the RoCEv2 destination QP ({source})",
                    d.hostname, d.platform
                ),
            )
            .at(qp_ptr)
            .hint("leave this role out of load_balancing.hash.roles, or add an override with `roce_dest_qp: false`; the default 5-tuple hash still spreads RoCE flows by UDP source port")
        });
        return;
    }
    if pf.qp_hash.support == Support::Unverified {
        let os = d.os.as_str();
        d.notes.push(Note::new(
            NoteFeature::QpHash,
            os,
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

/// Notes for platform facts the configs rely on without a confirming source: watchdog timer lines,
/// sha512-crypt user hashes, ECN thresholds on a platform without a sourced packet buffer.
fn notes(intent: &Intent, pf: &Platform, d: &mut DraftDevice) {
    let os = d.os.as_str();
    if pf.watchdog_timers == Support::Unverified && intent.qos.pfc_watchdog.enabled {
        d.notes.push(Note::new(
            NoteFeature::PfcWatchdog,
            os,
            "PFC watchdog timer lines unverified on this platform",
        ));
    }
    let users = intent
        .baseline
        .as_ref()
        .is_some_and(|b| !b.users.is_empty());
    if users && pf.password_hash == Some(Support::Unverified) {
        d.notes.push(Note::new(
            NoteFeature::PasswordHash,
            os,
            "sha512-crypt ($6$) user password hashes unverified on this platform (public configs show $5$)",
        ));
    }
    if pf.buffer.is_none() && intent.qos.classes.values().any(|c| c.ecn.is_some()) {
        d.notes.push(Note::new(
            NoteFeature::EcnBuffer,
            os,
            "ECN max not checked against the packet buffer, whose size no public source gives",
        ));
    }
}

/// The acknowledgements that cover the device ([`crate::check::ack::covering`]), recorded for its
/// header, `validate` and the change report.
fn acknowledged(intent: &Intent, pf: &Platform, d: &mut DraftDevice) {
    let acks: Vec<Acknowledged> = crate::check::ack::covering(intent, pf, &*d)
        .into_iter()
        .map(|(rule, a, pointer)| Acknowledged {
            rule: rule.id().to_string(),
            reason: a.reason.clone(),
            pointer,
        })
        .collect();
    d.acknowledged = acks;
}
