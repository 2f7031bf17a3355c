//! "Last matching override wins", once for every overridable field.
//!
//! A device's value of a field is the intent's own setting for its role (the base), replaced by the
//! field's value in each override that matches the device, in the order the overrides are written: the
//! last override that matches and sets the field wins. [`resolved`] is that rule; the functions below are
//! the fields, each with its base and its key under `/overrides/<i>/`.

use crate::intent::{Acknowledgement, DlbMode, Intent, Override, Role};
use std::net::IpAddr;

/// Where a device's value of an overridable field comes from: what a finding about it points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The intent's own setting, at this JSON pointer.
    Base(&'static str),
    /// Override `index`, its key `key`.
    Override {
        /// Position in `/overrides`.
        index: usize,
        /// The field's key in the override (`platform`, `dlb`, ...).
        key: &'static str,
    },
}

impl Origin {
    /// The JSON pointer of the setting (`/load_balancing/dlb/mode`, `/overrides/2/dlb`).
    pub fn pointer(self) -> String {
        match self {
            Origin::Base(p) => p.to_string(),
            Origin::Override { index, key } => format!("/overrides/{index}/{key}"),
        }
    }
}

/// A placed device as the resolver sees it: its role and the overrides that match it.
pub trait Overridable {
    /// The device's role.
    fn role(&self) -> Role;
    /// Indices into `/overrides` of the overrides whose `match` selects the device, in order.
    fn matched(&self) -> &[usize];
}

/// The value of one overridable field for a device: `base` (with its origin), replaced by `pick` of
/// each matching override that sets the field (`Some`), in order, so the last one wins.
pub fn resolved<'o, T>(
    overrides: &'o [Override],
    device: &impl Overridable,
    base: (T, Origin),
    key: &'static str,
    pick: impl Fn(&'o Override) -> Option<T>,
) -> (T, Origin) {
    let mut out = base;
    for &index in device.matched() {
        if let Some(v) = overrides.get(index).and_then(&pick) {
            out = (v, Origin::Override { index, key });
        }
    }
    out
}

/// The tier setting of a role's platform: its value and pointer.
pub fn tier_platform(intent: &Intent, role: Role) -> Option<(&str, Origin)> {
    let t = &intent.fabric.topology;
    match role {
        Role::Leaf => Some((
            &t.leaf.platform,
            Origin::Base("/fabric/topology/leaf/platform"),
        )),
        Role::Spine => Some((
            &t.spine.platform,
            Origin::Base("/fabric/topology/spine/platform"),
        )),
        Role::SuperSpine => t.super_spine.as_ref().map(|s| {
            (
                s.platform.as_str(),
                Origin::Base("/fabric/topology/super_spine/platform"),
            )
        }),
    }
}

/// A device's platform: its tier's, or an override's `platform` (`None` for a super-spine of an intent
/// without a super-spine tier).
pub fn platform<'i>(intent: &'i Intent, device: &impl Overridable) -> Option<(&'i str, Origin)> {
    let base = tier_platform(intent, device.role())?;
    Some(resolved(&intent.overrides, device, base, "platform", |o| {
        o.platform.as_deref()
    }))
}

/// A device's DLB mode: `load_balancing.dlb.mode` where its role is in `dlb.roles` (an empty list
/// selects no role), otherwise off; an override's `dlb`.
pub fn dlb_mode(intent: &Intent, device: &impl Overridable) -> (DlbMode, Origin) {
    let dlb = &intent.load_balancing.dlb;
    let mode = if dlb.roles.contains(&device.role()) {
        dlb.mode
    } else {
        DlbMode::Off
    };
    let base = (mode, Origin::Base("/load_balancing/dlb/mode"));
    resolved(&intent.overrides, device, base, "dlb", |o| o.dlb)
}

/// Whether a device hashes on the RoCEv2 destination QP: `load_balancing.hash.roce_dest_qp` where its
/// role is in `hash.roles` (an empty list selects no role); an override's `roce_dest_qp`.
pub fn roce_dest_qp(intent: &Intent, device: &impl Overridable) -> (bool, Origin) {
    let hash = &intent.load_balancing.hash;
    let on = hash.roce_dest_qp && hash.roles.contains(&device.role());
    let base = (on, Origin::Base("/load_balancing/hash/roce_dest_qp"));
    resolved(&intent.overrides, device, base, "roce_dest_qp", |o| {
        o.roce_dest_qp
    })
}

/// A device's management address from an override's `management`, when one sets it (the pool address
/// otherwise comes from `fabric.management`).
pub fn management_override(intent: &Intent, device: &impl Overridable) -> Option<(IpAddr, Origin)> {
    let base = (None, Origin::Base("/fabric/management/first"));
    match resolved(&intent.overrides, device, base, "management", |o| {
        o.management.map(Some)
    }) {
        (Some(ip), origin) => Some((ip, origin)),
        (None, _) => None,
    }
}

/// The acknowledgement of `rule` that covers a device, with its JSON pointer: the fabric-wide
/// `acknowledge` entry, replaced by an entry in each matching override that names the rule (the last
/// one wins, as for every overridable field).
pub fn acknowledgement<'i>(
    intent: &'i Intent,
    device: &impl Overridable,
    rule: &str,
) -> Option<(&'i Acknowledgement, String)> {
    let mut out = intent
        .acknowledge
        .iter()
        .enumerate()
        .find(|(_, a)| a.rule == rule)
        .map(|(i, a)| (a, format!("/acknowledge/{i}")));
    for &index in device.matched() {
        let Some(o) = intent.overrides.get(index) else {
            continue;
        };
        if let Some((i, a)) = o
            .acknowledge
            .iter()
            .enumerate()
            .find(|(_, a)| a.rule == rule)
        {
            out = Some((a, format!("/overrides/{index}/acknowledge/{i}")));
        }
    }
    out
}

/// A device's OS release: its tier's `os_version`, or an override's (`None` when neither sets one:
/// then no release is checked).
pub fn os_version<'i>(intent: &'i Intent, device: &impl Overridable) -> (Option<&'i str>, Origin) {
    let t = &intent.fabric.topology;
    let base = match device.role() {
        Role::Leaf => (
            t.leaf.os_version.as_deref(),
            Origin::Base("/fabric/topology/leaf/os_version"),
        ),
        Role::Spine => (
            t.spine.os_version.as_deref(),
            Origin::Base("/fabric/topology/spine/os_version"),
        ),
        Role::SuperSpine => (
            t.super_spine.as_ref().and_then(|s| s.os_version.as_deref()),
            Origin::Base("/fabric/topology/super_spine/os_version"),
        ),
    };
    resolved(&intent.overrides, device, base, "os_version", |o| {
        o.os_version.as_deref().map(Some)
    })
}

/// A device's site lines: the fabric's `site_lines`, then those of every override that matches it, in
/// order (they add up; none replaces another), each with its JSON pointer.
pub fn site_lines<'i>(intent: &'i Intent, device: &impl Overridable) -> Vec<(&'i str, String)> {
    let mut out: Vec<(&str, String)> = intent
        .site_lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.0.as_str(), format!("/site_lines/{i}")))
        .collect();
    for &index in device.matched() {
        if let Some(o) = intent.overrides.get(index) {
            out.extend(
                o.site_lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.0.as_str(), format!("/overrides/{index}/site_lines/{i}"))),
            );
        }
    }
    out
}
