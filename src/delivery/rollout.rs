//! The rollout plan: the order in which switches take a change, in batches that keep the fabric
//! serving. A batch holds switches of one role; no server loses more than one rail at a time, no
//! switch loses more than a set fraction of its uplinks at a time (at least one), no two spines of one
//! plane go together, one canary switch goes first, and switches whose change takes a reload (an NX-OS
//! `hardware profile dlb`) go last, in a named reload window.

use crate::kinds::Role;
use crate::model::{Device, FabricModel, LinkTier};
use crate::platform::Catalog;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The batches of a rollout, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rollout {
    /// Fabric name.
    pub fabric: String,
    /// Most uplinks (percent, at least one) a switch may lose to one batch.
    pub uplink_percent: u32,
    /// Batches in push order.
    pub batches: Vec<Batch>,
}

/// Switches that take a change together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// 1-based position.
    pub number: usize,
    /// Role of every switch in it.
    pub role: Role,
    /// The switches need a reload to finish the change (the reload window).
    pub reload: bool,
    /// Why these switches may go together.
    pub why: String,
    /// Hostnames, in model order.
    pub hosts: Vec<String>,
}

/// What one switch of the plan carries: which batch it may join.
struct Neighbours<'m> {
    /// Servers of a leaf, leaves of a spine, spines of a super-spine.
    below: BTreeMap<&'m str, Vec<&'m str>>,
    /// Super-spines of a spine (its plane).
    above: BTreeMap<&'m str, Vec<&'m str>>,
    /// Distinct uplink switches of each lower end.
    uplinks: BTreeMap<&'m str, usize>,
}

impl<'m> Neighbours<'m> {
    fn new(m: &'m FabricModel) -> Neighbours<'m> {
        let mut below: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut above: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut up: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for l in &m.links {
            below.entry(&l.b).or_default().insert(&l.a);
            up.entry(&l.a).or_default().insert(&l.b);
            if l.tier == LinkTier::SpineSuperSpine {
                above.entry(&l.a).or_default().insert(&l.b);
            }
        }
        let vecs = |m: BTreeMap<&'m str, BTreeSet<&'m str>>| {
            m.into_iter()
                .map(|(k, v)| (k, v.into_iter().collect()))
                .collect()
        };
        Neighbours {
            below: vecs(below),
            above: vecs(above),
            uplinks: up.into_iter().map(|(k, v)| (k, v.len())).collect(),
        }
    }
}

/// A batch being filled, with what its switches already take away.
#[derive(Default)]
struct Filling<'m> {
    hosts: Vec<&'m str>,
    /// Lower ends and how many of their uplink switches are in the batch.
    lost: BTreeMap<&'m str, usize>,
    /// Super-spines whose plane already has a spine in the batch.
    planes: BTreeSet<&'m str>,
}

impl<'m> Filling<'m> {
    /// Whether `host` may join: every lower end keeps its uplinks within `percent`, servers lose one
    /// rail at most (a server's leaves never share a batch), spines of one plane never share one.
    fn admits(&self, n: &Neighbours<'m>, host: &str, role: Role, percent: u32) -> bool {
        let lower = n.below.get(host).map(Vec::as_slice).unwrap_or_default();
        let within = |x: &&str| {
            let total = n.uplinks.get(x).copied().unwrap_or(1);
            let allowed = match role {
                Role::Leaf => 1,
                _ => (total * percent as usize / 100).max(1),
            };
            self.lost.get(x).copied().unwrap_or(0) < allowed
        };
        let planes = n.above.get(host).map(Vec::as_slice).unwrap_or_default();
        lower.iter().all(within) && planes.iter().all(|p| !self.planes.contains(p))
    }

    fn add(&mut self, n: &Neighbours<'m>, host: &'m str) {
        self.hosts.push(host);
        for x in n.below.get(host).into_iter().flatten() {
            *self.lost.entry(x).or_default() += 1;
        }
        self.planes.extend(n.above.get(host).into_iter().flatten());
    }
}

/// Orders `devices` (a subset of `m`, in model order) into batches of one role each: a canary first,
/// then leaves, spines and super-spines, then the reload window for the hosts in `reload`.
pub fn plan(
    m: &FabricModel,
    devices: &[&Device],
    reload: &BTreeSet<String>,
    uplink_percent: u32,
) -> Rollout {
    let n = Neighbours::new(m);
    let mut batches: Vec<Batch> = Vec::new();
    let canary = devices.iter().find(|d| d.role == Role::Leaf);
    if let Some(c) = canary {
        let reloads = reload.contains(&c.hostname);
        let why = "canary: one switch first; check it before the rest".to_string();
        push(
            &mut batches,
            Role::Leaf,
            reloads,
            vec![c.hostname.clone()],
            why,
        );
    }
    let rest = devices
        .iter()
        .filter(|d| canary.is_none_or(|c| c.hostname != d.hostname));
    let (late, now): (Vec<&Device>, Vec<&Device>) =
        rest.partition(|d| reload.contains(&d.hostname));
    for (group, is_reload) in [(now, false), (late, true)] {
        for role in [Role::Leaf, Role::Spine, Role::SuperSpine] {
            let of_role: Vec<&str> = group
                .iter()
                .filter(|d| d.role == role)
                .map(|d| d.hostname.as_str())
                .collect();
            for hosts in fill(&n, &of_role, role, uplink_percent) {
                let why = why(role, uplink_percent, is_reload);
                push(&mut batches, role, is_reload, hosts, why);
            }
        }
    }
    Rollout {
        fabric: m.name.clone(),
        uplink_percent,
        batches,
    }
}

/// First-fit: each host joins the first batch that admits it.
fn fill(n: &Neighbours, hosts: &[&str], role: Role, percent: u32) -> Vec<Vec<String>> {
    let mut open: Vec<Filling> = Vec::new();
    for &h in hosts {
        match open.iter_mut().find(|b| b.admits(n, h, role, percent)) {
            Some(b) => b.add(n, h),
            None => {
                let mut b = Filling::default();
                b.add(n, h);
                open.push(b);
            }
        }
    }
    open.into_iter()
        .map(|b| b.hosts.into_iter().map(str::to_string).collect())
        .collect()
}

fn why(role: Role, percent: u32, reload: bool) -> String {
    let base = match role {
        Role::Leaf => "leaves no two of which serve one server: each server loses at most one rail"
            .to_string(),
        Role::Spine => format!(
            "spines: each leaf loses at most {percent}% of its spines (at least one), at most one spine per plane"
        ),
        Role::SuperSpine => format!(
            "super-spines: each spine loses at most {percent}% of its super-spines (at least one)"
        ),
    };
    if reload {
        format!("reload window: {base}; the change completes only after a save and a reload")
    } else {
        base
    }
}

fn push(batches: &mut Vec<Batch>, role: Role, reload: bool, hosts: Vec<String>, why: String) {
    batches.push(Batch {
        number: batches.len() + 1,
        role,
        reload,
        why,
        hosts,
    });
}

/// Switches of `new` whose change takes a reload: the DLB hardware profile is new or changed on a
/// platform where it only takes effect after a reload. `old` is `None` for a first deployment.
pub fn needing_reload(
    old: Option<&FabricModel>,
    new: &FabricModel,
    catalog: &Catalog,
) -> BTreeSet<String> {
    let before: BTreeMap<&str, &Device> = old
        .map(|m| m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect())
        .unwrap_or_default();
    new.devices
        .iter()
        .filter(|d| {
            let Some(dlb) = &d.dlb else { return false };
            let reloads = catalog
                .get(&d.platform)
                .is_some_and(|(_, p)| p.dlb.reload_required);
            let same = before
                .get(d.hostname.as_str())
                .and_then(|o| o.dlb.as_ref())
                .is_some_and(|o| o.same_setting(dlb));
            reloads && !same
        })
        .map(|d| d.hostname.clone())
        .collect()
}

impl Rollout {
    /// The plan as YAML: readable in review, and the extra-vars file `ansible/rollout.yml` walks
    /// (`aifab_rollout_hosts` in push order, `aifab_rollout_serial` the batch sizes for `serial`,
    /// `aifab_rollout_batch_of` each host's batch, `aifab_rollout_reload_hosts` the reload window).
    pub fn to_yaml(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Rollout plan for fabric {} - generated by aifab, do not edit.",
            self.fabric
        );
        let _ = writeln!(
            s,
            "# Walk it with: ansible-playbook -i <out>/inventory.yml ansible/rollout.yml -e @<this file> (ansible/README.md)"
        );
        let _ = writeln!(s, "aifab_rollout_fabric: {}", self.fabric);
        let _ = writeln!(s, "aifab_rollout_uplink_percent: {}", self.uplink_percent);
        let reload: Vec<String> = self
            .batches
            .iter()
            .filter(|b| b.reload)
            .map(|b| b.number.to_string())
            .collect();
        let _ = writeln!(s, "aifab_rollout_reload_batches: [{}]", reload.join(", "));
        let sizes: Vec<String> = self
            .batches
            .iter()
            .map(|b| b.hosts.len().to_string())
            .collect();
        let _ = writeln!(s, "aifab_rollout_serial: [{}]", sizes.join(", "));
        if self.batches.is_empty() {
            let _ = writeln!(s, "aifab_rollout_reload_hosts: []");
            let _ = writeln!(s, "aifab_rollout_batch_of: {{}}");
            let _ = writeln!(s, "aifab_rollout_hosts: []   # no switch changes");
            return s;
        }
        let reload_hosts: Vec<&str> = self
            .batches
            .iter()
            .filter(|b| b.reload)
            .flat_map(|b| b.hosts.iter().map(String::as_str))
            .collect();
        let _ = writeln!(
            s,
            "aifab_rollout_reload_hosts: [{}]",
            reload_hosts.join(", ")
        );
        let _ = writeln!(s, "aifab_rollout_batch_of:");
        for b in &self.batches {
            for h in &b.hosts {
                let _ = writeln!(s, "  {h}: {}", b.number);
            }
        }
        let _ = writeln!(s, "aifab_rollout_hosts:");
        for b in &self.batches {
            let n = b.hosts.len();
            let plural = if n == 1 { "" } else { "es" };
            let _ = writeln!(
                s,
                "  # batch {} ({}, {n} switch{plural}): {}",
                b.number,
                b.role.as_str(),
                b.why
            );
            for h in &b.hosts {
                let _ = writeln!(s, "  - {h}");
            }
        }
        s
    }
}
