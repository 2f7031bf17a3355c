//! Port modes and names: which mode each front-panel port of a device runs in (its native speed, or a
//! breakout from the platform's facts) and the interface name of every port the wiring passes number.
//!
//! A tier's link speed picks the mode: the native speed when it equals the port's first speed, else the
//! platform's breakout whose child ports run at that speed (the one with the most ports), else an
//! unbroken lower speed the port runs. A role's `breakout` in the intent names the mode instead. When
//! the down and up links of a role need different modes, the lowest front-panel ports run the down
//! mode (as many as the down ports need) and the rest the up mode, so server ports stay lowest,
//! uplinks highest, and spare ports run the up mode. Port numbers then count child ports in panel order ([`crate::model::locate`]).

use super::draft::DraftDevice;
use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::model::{Name, Note, NoteFeature, PortGroup};
use crate::platform::{Platform, PortMode};
use crate::rules::Rule;
use crate::units::Speed;

/// The ports one role needs on one platform.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    /// Down ports and their link speed.
    pub down: (u32, Speed),
    /// Up ports and their link speed.
    pub up: (u32, Speed),
    /// The mode the intent names for the role's ports at its child speed.
    pub explicit: Option<PortMode>,
}

/// Why a platform cannot give a role its ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// No mode of the platform runs ports at the links' speed (`down` or `up`).
    NoMode(&'static str, Speed),
    /// The intent's mode is not one of the platform's, or no link of the role runs at its speed.
    BadExplicit(PortMode),
    /// Too few front-panel ports: the message.
    TooFew(String),
}

/// The mode for links at `speed` on `pf`, `explicit` when it is the platform's and runs at that speed.
pub fn mode_for(pf: &Platform, speed: Speed, explicit: Option<PortMode>) -> Option<PortMode> {
    let native = |speed| PortMode { children: 1, speed };
    if let Some(m) = explicit.filter(|m| m.speed == speed) {
        let known = if m.children == 1 {
            pf.ports.speeds.contains(&m.speed)
        } else {
            pf.breakout(m).is_some()
        };
        return known.then_some(m);
    }
    if pf.ports.speeds.first() == Some(&speed) {
        return Some(native(speed));
    }
    pf.ports
        .breakout
        .iter()
        .filter(|b| b.mode.speed == speed)
        .max_by_key(|b| b.mode.children)
        .map(|b| b.mode)
        .or_else(|| pf.ports.speeds.contains(&speed).then(|| native(speed)))
}

/// The port groups of a device of `role_name` with `need` on `pf` (named `platform` in messages):
/// empty when no port is broken out, so port numbers stay front-panel numbers.
pub fn layout(
    pf: &Platform,
    platform: &str,
    role_name: &str,
    need: Need,
) -> Result<Vec<PortGroup>, Vec<Problem>> {
    let mut problems = Vec::new();
    if let Some(m) = need.explicit {
        let speeds = [need.down, need.up];
        let used = speeds.iter().any(|&(n, s)| n > 0 && s == m.speed);
        if !used || mode_for(pf, m.speed, Some(m)).is_none() {
            problems.push(Problem::BadExplicit(m));
        }
    }
    let mut pick = |what, (n, speed): (u32, Speed)| {
        if n == 0 {
            return None;
        }
        let m = mode_for(pf, speed, need.explicit);
        if m.is_none() && need.explicit.is_none_or(|e| e.speed != speed) {
            problems.push(Problem::NoMode(what, speed));
        }
        m
    };
    let (down_mode, up_mode) = (pick("down", need.down), pick("up", need.up));
    if !problems.is_empty() {
        return Err(problems);
    }
    let (Some(dm), Some(um)) = (down_mode.or(up_mode), up_mode.or(down_mode)) else {
        return Ok(Vec::new());
    };
    let (down, up, count) = (need.down.0, need.up.0, pf.ports.count);
    let group = |first_panel, panels, m: PortMode| PortGroup {
        first_panel,
        panels,
        children: m.children,
        speed_gbps: m.speed.gbps(),
    };
    let groups = if dm == um {
        if down + up > count * dm.children {
            return Err(vec![too_few(role_name, platform, need, count, dm, um)]);
        }
        vec![group(1, count, dm)]
    } else {
        let down_panels = down.div_ceil(dm.children);
        if down_panels + up.div_ceil(um.children) > count {
            return Err(vec![too_few(role_name, platform, need, count, dm, um)]);
        }
        vec![
            group(1, down_panels, dm),
            group(down_panels + 1, count - down_panels, um),
        ]
    };
    if groups.iter().all(|g| g.children == 1) {
        return Ok(Vec::new());
    }
    Ok(groups.into_iter().filter(|g| g.panels > 0).collect())
}

fn too_few(
    role: &str,
    platform: &str,
    need: Need,
    count: u32,
    dm: PortMode,
    um: PortMode,
) -> Problem {
    let (down, up) = (need.down.0, need.up.0);
    if dm.children == 1 && um.children == 1 {
        return Problem::TooFew(format!(
            "{role} needs {down} down + {up} up = {} ports; {platform} has {count}",
            down + up
        ));
    }
    Problem::TooFew(format!(
        "{role} needs {down} down ports as {dm} ({} front-panel ports) + {up} up as {um} ({}) = {} front-panel ports; {platform} has {count}",
        down.div_ceil(dm.children),
        up.div_ceil(um.children),
        down.div_ceil(dm.children) + up.div_ceil(um.children)
    ))
}

/// The findings of a device's port problems: `at` points at the field that chose its platform.
pub fn findings(
    intent: &Intent,
    d: &DraftDevice,
    pf: &Platform,
    at: &str,
    problems: Vec<Problem>,
) -> Vec<Finding> {
    let modes = pf.modes_text();
    problems
        .into_iter()
        .map(|p| match p {
            Problem::TooFew(msg) => Finding::new(Rule::PlatformPorts, format!("{msg} (first device: {})", d.hostname))
                .at(at)
                .hint("choose a platform with more ports or the right speed, fewer servers per group, more oversubscription, or more spines"),
            Problem::NoMode(what, speed) => Finding::new(
                Rule::PortModeMissing,
                format!(
                    "{} {what}links run at {speed}; no port mode of {} runs ports at {speed} (first device: {})",
                    d.role, d.platform, d.hostname
                ),
            )
            .at(speed_pointer(intent, d.role, what))
            .hint(format!("{} ports run as {modes}: choose one of these speeds or another platform", d.platform)),
            Problem::BadExplicit(m) => Finding::new(
                Rule::PortModeMissing,
                format!(
                    "breakout {m}: {} has no such mode, or no {} link runs at {} (first device: {})",
                    d.platform, d.role, m.speed, d.hostname
                ),
            )
            .at(format!("/fabric/topology/{}/breakout", role_key(d.role)))
            .hint(format!("{} ports run as {modes}; the mode's speed must be a link speed of the {}", d.platform, d.role)),
        })
        .collect()
}

/// The intent key of a role's tier.
fn role_key(role: Role) -> &'static str {
    match role {
        Role::Leaf => "leaf",
        Role::Spine => "spine",
        Role::SuperSpine => "super_spine",
    }
}

/// The field that sets the speed of a role's `down` or `up` links.
fn speed_pointer(intent: &Intent, role: Role, what: &str) -> &'static str {
    let spine_set = intent.fabric.topology.spine.uplink_speed.is_some();
    match (role, what) {
        (Role::Leaf, "down") => "/fabric/topology/nic_speed",
        (Role::Leaf, _) | (Role::Spine, "down") => "/fabric/topology/leaf/uplink_speed",
        _ if spine_set => "/fabric/topology/spine/uplink_speed",
        _ => "/fabric/topology/leaf/uplink_speed",
    }
}

/// The note of a layout whose breakout keyword is unverified on the platform, if any.
pub fn note(pf: &Platform, os: &str, groups: &[PortGroup]) -> Option<Note> {
    let unverified = groups.iter().filter(|g| g.children > 1).any(|g| {
        let mode = PortMode {
            children: g.children,
            speed: Speed(g.speed_gbps),
        };
        pf.breakout(mode)
            .is_some_and(|b| b.support == crate::platform::Support::Unverified)
    });
    unverified.then(|| {
        Note::new(
            NoteFeature::Breakout,
            os,
            "breakout lines unverified on this platform",
        )
    })
}

/// Interface names of every port of one platform in one layout, by port number.
pub struct PortCache {
    names: Vec<Name>,
}

impl PortCache {
    /// The names of `pf`'s ports laid out as `groups` (every front-panel port when empty).
    pub fn new(pf: &Platform, groups: &[PortGroup]) -> PortCache {
        if groups.is_empty() {
            return PortCache {
                names: (1..=pf.ports.count)
                    .map(|p| pf.interface_name(p).into())
                    .collect(),
            };
        }
        let mut names = Vec::new();
        for g in groups {
            for panel in g.first_panel..g.first_panel + g.panels {
                names.extend(
                    (1..=g.children).map(|c| Name::from(pf.child_name(panel, c, g.children))),
                );
            }
        }
        PortCache { names }
    }

    /// The name of port `port` (1-based), shared by every interface on that port.
    pub fn name(&self, port: u32) -> &Name {
        &self.names[port as usize - 1]
    }

    /// The number of ports.
    pub fn count(&self) -> u32 {
        self.names.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Catalog;

    fn pf(name: &str) -> &'static Platform {
        &Catalog::builtin().get(name).expect("platform").1
    }

    fn need(down: u32, ds: u32, up: u32, us: u32) -> Need {
        Need {
            down: (down, Speed(ds)),
            up: (up, Speed(us)),
            explicit: None,
        }
    }

    #[test]
    fn eos_800g_leaf_with_400g_nics_breaks_out_the_server_ports_only() {
        let p = pf("eos/7060x6");
        let g = layout(p, "eos/7060x6", "leaf", need(64, 400, 32, 800)).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].first_panel, g[0].panels, g[0].children), (1, 32, 2));
        assert_eq!((g[1].first_panel, g[1].panels, g[1].children), (33, 32, 1));
        let c = PortCache::new(p, &g);
        assert_eq!(c.count(), 96);
        assert_eq!(&**c.name(1), "Ethernet1/1");
        assert_eq!(&**c.name(2), "Ethernet1/5");
        assert_eq!(&**c.name(64), "Ethernet32/5");
        assert_eq!(&**c.name(65), "Ethernet33/1");
    }

    #[test]
    fn all_400g_gives_128_child_ports_and_no_mode_is_an_error() {
        let p = pf("eos/7060x6");
        let g = layout(p, "eos/7060x6", "leaf", need(64, 400, 64, 400)).unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!(PortCache::new(p, &g).count(), 128);
        let e = layout(p, "eos/7060x6", "leaf", need(64, 300, 64, 400)).unwrap_err();
        assert_eq!(e, vec![Problem::NoMode("down", Speed(300))]);
        let mut n = need(64, 400, 64, 400);
        n.explicit = Some(PortMode::parse("4x200G").unwrap());
        assert!(matches!(
            layout(p, "eos/7060x6", "leaf", n).unwrap_err()[0],
            Problem::BadExplicit(_)
        ));
        let too_many = layout(p, "eos/7060x6", "leaf", need(100, 400, 64, 800)).unwrap_err();
        assert!(matches!(too_many[0], Problem::TooFew(_)));
    }

    #[test]
    fn native_speeds_keep_front_panel_numbers() {
        let p = pf("nxos/n9k-c9364d-gx2a");
        let g = layout(p, "x", "leaf", need(32, 400, 32, 400)).unwrap();
        assert!(g.is_empty());
        assert_eq!(&**PortCache::new(p, &g).name(5), "Ethernet1/5");
    }
}
