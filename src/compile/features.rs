//! Per-device features: QoS plans (one per platform, shared), DLB, QP hashing, and the notes that
//! unverified syntax must carry into the config.
//!
//! A feature a platform cannot do is an error naming the device, the platform and the alternative; a
//! feature whose syntax the reference marks unverified renders with a note naming the reference. Which
//! devices run DLB and QP hashing is resolved by [`crate::place`] (role lists, then overrides).

use super::draft::{Draft, DraftDevice};
use super::qos;
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
    dlb_next_hop_mac(intent, catalog, &mut f.devices, &mut refusals);
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
        note_unverified_dlb(d, pf.dlb.support);
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

/// The DLB virtual next-hop MAC (NX-OS) on the other end of every DLB interface. A switch that runs
/// DLB with a MAC sends each DLB flow to that MAC, not to its neighbour's own (the egress port is chosen
/// after the rewrite), so every switch its DLB interfaces reach, its uplinks' tier above, must accept
/// frames to it: Cisco's "the same DLB MAC on all participating switches". A neighbour that runs DLB
/// with the MAC does; one on a platform with a DLB MAC setting gets the MAC alone (`hardware profile
/// dlb` with `mac-address`, no DLB interface); any other neighbour would drop the frames, which is
/// `AIF-LB-009` unless the sender's intent acknowledges it. Worked out from roles, zones and planes,
/// not cables, so a render narrowed by `--only` decides alike.
fn dlb_next_hop_mac(
    intent: &Intent,
    catalog: &Catalog,
    devices: &mut [DraftDevice],
    refusals: &mut Refusals,
) {
    let Some(mac) = intent.load_balancing.dlb.mac.map(|m| m.to_string()) else {
        return;
    };
    let leaf_planes = devices
        .iter()
        .filter(|d| d.role == crate::kinds::Role::Leaf)
        .filter_map(|d| d.plane)
        .max()
        .unwrap_or(0);
    let senders: Vec<usize> = (0..devices.len())
        .filter(|&i| devices[i].dlb.as_ref().is_some_and(|p| p.mac.is_some()))
        .collect();
    let mut accepting: Vec<(usize, Support)> = Vec::new();
    for &s in &senders {
        let mut refused: Vec<usize> = Vec::new();
        for (r, e) in devices.iter().enumerate() {
            if !next_hop(&devices[s], e, leaf_planes) {
                continue;
            }
            if e.dlb.as_ref().is_some_and(|p| p.mac.is_some()) {
                continue;
            }
            let can = catalog
                .get(&e.platform)
                .filter(|(_, pf)| pf.dlb.needs_mac && pf.dlb.support != Support::No)
                .map(|(_, pf)| pf.dlb.support);
            if let Some(support) = can {
                accepting.push((r, support));
            } else {
                refused.push(r);
            }
        }
        if refused.is_empty() {
            continue;
        }
        let rule = Rule::DlbMacNotAccepted;
        if let Some((a, pointer)) = place::acknowledgement(intent, &devices[s], rule.id()) {
            let ack = Acknowledged {
                rule: rule.id().to_string(),
                reason: a.reason.clone(),
                pointer,
            };
            devices[s].acknowledged.push(ack);
            continue;
        }
        let peer = &devices[refused[0]];
        let (sender, peer_platform) = (devices[s].hostname.clone(), peer.platform.clone());
        let (peer_name, more) = (peer.hostname.clone(), refused.len() - 1);
        let platform = devices[s].platform.clone();
        refusals.add(
            (format!("dlb-mac|{platform}|{peer_platform}"), String::new()),
            || {
                Finding::new(
                    rule,
                    format!(
                        "DLB on {sender} ({platform}) sends DLB flows to the DLB next-hop MAC {mac}, which {} ({peer_platform}) must accept as {} own (Cisco: the same DLB MAC on every participating switch); aifab knows no {peer_platform} setting for that, so {} would drop them",
                        if more > 0 {
                            format!("its neighbours {peer_name} and {more} more")
                        } else {
                            format!("its neighbour {peer_name}")
                        },
                        if more > 0 { "their" } else { "its" },
                        if more > 0 { "they" } else { "it" },
                    ),
                )
                .at("/load_balancing/dlb/mac")
                .hint(format!(
                    "turn DLB off on the {platform} devices (an override `dlb: off`, or leave their role out of load_balancing.dlb.roles), put switches that take a DLB MAC on the other end, or, if the neighbours accept {mac} by a setting made outside aifab, acknowledge {} with that reason",
                    rule.id()
                ))
            },
        );
    }
    for (r, support) in accepting {
        let d = &mut devices[r];
        if d.dlb.is_none() {
            note_unverified_dlb(d, support);
            d.dlb = Some(DlbPlan {
                mode: DlbMode::Off,
                mac: Some(mac.clone()),
                flowlet_gap_us: None,
                interfaces: Vec::new(),
                support,
            });
        }
    }
}

/// The device's note that its DLB lines are unverified, where the platform's DLB support is.
fn note_unverified_dlb(d: &mut DraftDevice, support: Support) {
    if support == Support::Unverified {
        let os = d.os.as_str();
        d.notes.push(Note::new(
            NoteFeature::Dlb,
            os,
            "DLB lines unverified on this platform",
        ));
    }
}

/// Whether `e` is on the far end of `d`'s uplinks (its DLB interfaces): a leaf's spines of its zone
/// (and of its leaf plane), a spine's super-spines of its plane.
fn next_hop(d: &DraftDevice, e: &DraftDevice, leaf_planes: u32) -> bool {
    use crate::kinds::Role;
    match (d.role, e.role) {
        (Role::Leaf, Role::Spine) => {
            e.zone == d.zone
                && match (d.plane, e.plane) {
                    (Some(l), Some(p)) if leaf_planes > 0 => (p - 1) % leaf_planes + 1 == l,
                    _ => true,
                }
        }
        (Role::Spine, Role::SuperSpine) => e.plane == d.plane,
        _ => false,
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

/// The acknowledgements that cover the device ([`crate::place::ack::covering`]), recorded for its
/// header, `validate` and the change report.
fn acknowledged(intent: &Intent, pf: &Platform, d: &mut DraftDevice) {
    let acks: Vec<Acknowledged> = crate::place::ack::covering(intent, pf, &*d)
        .into_iter()
        .map(|(rule, a, pointer)| Acknowledged {
            rule: rule.id().to_string(),
            reason: a.reason.clone(),
            pointer,
        })
        .collect();
    d.acknowledged = acks;
}
