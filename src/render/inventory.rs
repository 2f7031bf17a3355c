//! The Ansible inventory written next to the configs. Every group is namespaced by the fabric
//! ([`group_prefix`]), so the inventories of two fabrics merged with `-i a -i b` keep their hosts and
//! groups apart: `<fabric>` holds every device and the fabric's `aifab_fabric`; `<fabric>_<os>` (each
//! OS's connection variables from `vendors/<os>.yaml`, plus `aifab_os`) holds the hosts and their
//! variables (`ansible_host` from the management address, `aifab_config`, `aifab_platform`); rollout
//! groups hold host names only: per role (`<fabric>_leaf`), zone (`<fabric>_zone2`), server group or
//! scalable unit (`<fabric>_group3`), rail (`<fabric>_rail1`), plane (`<fabric>_plane1`: with
//! `homing: two-planes`, every switch of leaf plane 1, its leaves, spines and super-spines) and spine
//! plane (`<fabric>_spine_plane1`: in three tiers, a super-spine plane's spines and super-spines), for
//! the ones the fabric has. A plane group thus holds a whole plane: `--limit <fabric>_plane1` reaches
//! every switch that carries plane 1's traffic, and no other.

use super::OutFile;
use crate::kinds::Role;
use crate::model::{Device, FabricModel};
use crate::platform::Catalog;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Group names Ansible reserves.
const RESERVED: [&str; 2] = ["all", "ungrouped"];

/// The fabric's group name and the prefix of all its groups: the fabric name with every character an
/// Ansible group name cannot hold (anything but ASCII letters, digits and `_`) as `_`, `_` in front of
/// a leading digit, and `_fabric` after a name Ansible reserves (`all`, `ungrouped`). Two fabric
/// names that differ only in `-` and `_` get the same prefix: give merged fabrics distinct names.
pub fn group_prefix(fabric: &str) -> String {
    let mut s: String = fabric
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if RESERVED.contains(&s.as_str()) {
        s.push_str("_fabric");
    }
    s
}

/// A rollout group: its kind (in output order) and number, or the role.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rollout {
    Role(&'static str),
    Zone(u32),
    Group(u32),
    Rail(u32),
    Plane(u32),
    SpinePlane(u32),
}

/// The planes of a fabric, as the devices carry them.
#[derive(Clone, Copy)]
struct Planes {
    /// Leaf planes (`homing: two-planes`: 2; else 0, no plane groups).
    leaf: u32,
    /// Whether spines and super-spines form spine planes (three tiers).
    spine: bool,
}

impl Planes {
    fn of(devices: &[&Device]) -> Planes {
        Planes {
            leaf: devices
                .iter()
                .filter(|d| d.role == Role::Leaf)
                .filter_map(|d| d.plane)
                .max()
                .unwrap_or(0),
            spine: devices.iter().any(|d| d.role == Role::SuperSpine),
        }
    }
}

impl Rollout {
    /// The groups a device belongs to. A leaf carries its leaf plane; a spine or super-spine its spine
    /// plane p, which lies in leaf plane ((p-1) mod leaf planes)+1.
    fn of(d: &Device, planes: Planes) -> impl Iterator<Item = Rollout> {
        let leaf_plane = d.plane.filter(|_| planes.leaf > 0).map(|p| match d.role {
            Role::Leaf => p,
            _ => (p - 1) % planes.leaf + 1,
        });
        let spine_plane = d.plane.filter(|_| planes.spine && d.role != Role::Leaf);
        [
            Some(Rollout::Role(d.role.as_str())),
            d.zone.map(Rollout::Zone),
            d.group.map(Rollout::Group),
            d.rail.map(Rollout::Rail),
            leaf_plane.map(Rollout::Plane),
            spine_plane.map(Rollout::SpinePlane),
        ]
        .into_iter()
        .flatten()
    }

    /// The group name after the fabric prefix.
    fn suffix(&self) -> String {
        match self {
            Rollout::Role(r) => r.replace('-', "_"),
            Rollout::Zone(n) => format!("zone{n}"),
            Rollout::Group(n) => format!("group{n}"),
            Rollout::Rail(n) => format!("rail{n}"),
            Rollout::Plane(n) => format!("plane{n}"),
            Rollout::SpinePlane(n) => format!("spine_plane{n}"),
        }
    }
}

/// Which devices the inventory lists: every one, or after a render narrowed by `--only` those that
/// have a config in the folder, the matched (rendered now) and the others whose config file the folder
/// already holds (a render before it wrote them). A device with no config file gets no entry: the
/// playbooks would have nothing to push to it.
pub struct Listed<'a> {
    only: Option<&'a globset::GlobMatcher>,
    folder: Option<&'a std::path::Path>,
    catalog: &'a Catalog,
}

impl<'a> Listed<'a> {
    /// The devices an `only` render into `folder` lists (every device without `only`; without a
    /// folder, the matched ones).
    pub fn new(
        only: Option<&'a globset::GlobMatcher>,
        folder: Option<&'a std::path::Path>,
        catalog: &'a Catalog,
    ) -> Listed<'a> {
        Listed {
            only,
            folder,
            catalog,
        }
    }

    /// Whether `d` has an entry.
    pub fn lists(&self, d: &Device) -> bool {
        let Some(only) = self.only else {
            return true;
        };
        only.is_match(&d.hostname)
            || self.folder.is_some_and(|dir| {
                // Not following a link: the file the render keeps is the folder's own.
                std::fs::symlink_metadata(dir.join(config_path(self.catalog, d)))
                    .is_ok_and(|m| m.is_file())
            })
    }
}

/// The path of a device's config under the output folder (`su1-r1-leaf.cfg`, `g1-rail1/config_db.json`).
pub fn config_path(catalog: &Catalog, d: &Device) -> String {
    catalog
        .outputs
        .get(&d.os)
        .and_then(|o| o.first())
        .map(|o| o.file.replace("{hostname}", &d.hostname))
        .unwrap_or_default()
}

/// Renders `inventory.yml` for the whole fabric.
pub fn inventory(model: &FabricModel, catalog: &Catalog) -> OutFile {
    inventory_of(model, catalog, &Listed::new(None, None, catalog))
}

/// Renders `inventory.yml` with the devices `listed` lists.
pub fn inventory_of(model: &FabricModel, catalog: &Catalog, listed: &Listed) -> OutFile {
    let devices: Vec<&Device> = model.devices.iter().filter(|d| listed.lists(d)).collect();
    let f = group_prefix(&model.name);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Ansible inventory for fabric {} - generated by aifab, do not edit.",
        model.name
    );
    let _ = writeln!(
        s,
        "# Push with: ansible-playbook -i inventory.yml ansible/deploy.yml -e aifab_out=<this folder> --check --diff"
    );
    let _ = writeln!(
        s,
        "# Groups are named {f}_*: inventories of several fabrics merge (-i a/inventory.yml -i b/inventory.yml)."
    );
    let _ = writeln!(s, "all:\n  children:\n    {f}:");
    let _ = writeln!(
        s,
        "      vars:\n        aifab_fabric: {}",
        yaml_scalar(&model.name)
    );
    // The prefixes ansible/collect.yml asks every switch's route to (`aifab verify`'s ECMP check).
    let samples = model.route_samples();
    let _ = writeln!(
        s,
        "        aifab_route_samples:{}",
        if samples.is_empty() { " []" } else { "" }
    );
    for (_, ip) in samples {
        let _ = writeln!(s, "          - {ip}/32");
    }
    let _ = writeln!(s, "      children:");
    os_groups(&mut s, &f, &devices, catalog);
    let all: Vec<&Device> = model.devices.iter().collect();
    rollout_groups(&mut s, &f, &devices, Planes::of(&all));
    OutFile {
        path: "inventory.yml".into(),
        content: s,
        device: String::new(),
    }
}

/// `<fabric>_<os>` groups: the OS's connection variables and every host with its variables.
fn os_groups(s: &mut String, f: &str, devices: &[&Device], catalog: &Catalog) {
    let mut by_os: BTreeMap<&str, Vec<&Device>> = BTreeMap::new();
    for d in devices {
        by_os.entry(d.os.as_str()).or_default().push(d);
    }
    for (os, hosts) in &by_os {
        let _ = writeln!(s, "        {f}_{os}:");
        let _ = writeln!(s, "          vars:");
        let _ = writeln!(s, "            aifab_os: {os}");
        if let Some(vars) = crate::platform::Os::parse(os).and_then(|o| catalog.ansible.get(&o)) {
            for (k, v) in vars {
                let _ = writeln!(s, "            {k}: {}", yaml_scalar(v));
            }
        }
        let _ = writeln!(s, "          hosts:");
        for d in hosts {
            let config = config_path(catalog, d);
            let _ = writeln!(s, "            {}:", d.hostname);
            if let Some(m) = &d.management {
                let _ = writeln!(s, "              ansible_host: {}", m.ip);
            }
            let _ = writeln!(s, "              aifab_config: {config}");
            let _ = writeln!(s, "              aifab_platform: {}", d.platform);
        }
    }
}

/// The rollout groups (role, zone, server group, rail, plane, spine plane), host names only.
fn rollout_groups(s: &mut String, f: &str, devices: &[&Device], planes: Planes) {
    let mut groups: BTreeMap<Rollout, Vec<&str>> = BTreeMap::new();
    for d in devices {
        for g in Rollout::of(d, planes) {
            groups.entry(g).or_default().push(&d.hostname);
        }
    }
    for (g, hosts) in &groups {
        let _ = writeln!(s, "        {f}_{}:", g.suffix());
        let _ = writeln!(s, "          hosts:");
        for h in hosts {
            let _ = writeln!(s, "            {h}: {{}}");
        }
    }
}

/// A YAML plain scalar when safe, else double-quoted.
fn yaml_scalar(v: &str) -> String {
    if v.chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
        && !v.is_empty()
        && v.starts_with(|c: char| c.is_ascii_alphabetic())
    {
        v.to_string()
    } else {
        format!("{v:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_prefixes_are_ansible_group_names() {
        assert_eq!(group_prefix("pod1-1024"), "pod1_1024");
        assert_eq!(group_prefix("Zones_2"), "Zones_2");
        assert_eq!(group_prefix("all"), "all_fabric");
        assert_eq!(group_prefix("ungrouped"), "ungrouped_fabric");
        assert_eq!(group_prefix("9x"), "_9x");
        assert_eq!(group_prefix("a.b c\n"), "a_b_c_");
        for name in ["pod1-1024", "all", "9x", "é-x", ""] {
            let p = group_prefix(name);
            assert!(
                p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !p.starts_with(|c: char| c.is_ascii_digit()),
                "{name} -> {p}"
            );
        }
    }
}
