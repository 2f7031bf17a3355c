//! The change report is never silent, field by field: every leaf field of the intent's type (walked
//! from `schema/intent.schema.json`, generated from the Rust types, not from a hand list) is changed
//! in turn in each example that has it, or added with a valid non-default value where the example
//! lacks it. Where the changed intent compiles, the two renders are compared and:
//! - every switch whose files changed is named by the report, and every switch a rule names changed;
//! - every changed section of every switch is explained by a rule that fired there (its
//!   `change_sections:` in `vendors/<os>.yaml`) or named by `CHG-CONFIG`;
//! - a QoS rule (`CHG-ECN`, `CHG-SCHED`, `CHG-WATCHDOG`, `CHG-LOSSLESS`, `CHG-DSCP`) gives old→new values;
//! - a rule that fired on a switch explains at least one of its changed sections (else its map lacks
//!   what it changed, or it names the wrong switch);
//! - `CHG-CONFIG` names no section of a switch where a specific rule fired, unless [`ALSO_CONFIG`]
//!   says why that field moves more than its rule explains (else the rule's map lacks a section).
//!
//! The test prints how many leaf fields the schema has, how many were exercised, and every field
//! skipped with its reason; a field skipped without a reason in [`SKIPPED`] fails it, and so does a
//! reason for a field that was exercised after all.

use crate::field_walk::{Field, add, candidates, fields, instances};
use aifab::kinds::Os;
use aifab::model::FabricModel;
use aifab::platform::Catalog;
use aifab::render::{Meta, Renderer};
use aifab::review::change::{Change, ChangeRule, report_rendered};
use aifab::review::uncovered::{explains, oses, section_name, uncovered, unexplained};
use aifab::review::{FileChange, diff_files};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The examples walked: three tiers with a baseline and DLB, two-tier with hosts, two planes, and a
/// SONiC/NX-OS mix; NX-OS, EOS and SONiC each appear in two.
const EXAMPLES: &[&str] = &[
    "intents/three-tier-small.yaml",
    "intents/pod1-1024.yaml",
    "intents/hpn-dual-plane.yaml",
    "intents/mixed-sonic-nxos.yaml",
];

/// Fields no example can change into another compiling intent, with why (a field path as
/// [`Field::path`] prints it, or a prefix ending in `/`).
const SKIPPED: &[(&str, &str)] = &[
    ("/version", "only version 1 exists"),
    (
        "/fabric/topology/kind",
        "another kind needs other fields: `zones` for three tiers, none for two (AIF-FAB-001)",
    ),
    (
        "/fabric/topology/nic_speed",
        "another NIC speed must fill the uplinks with whole links at the ratio (AIF-FAB-003) and run in a breakout mode the leaf has",
    ),
    (
        "/fabric/topology/nic_ports",
        "another NIC port count needs another `homing` and a name per port (AIF-FAB-007, AIF-NAME-004)",
    ),
    (
        "/fabric/topology/homing",
        "another homing needs another NIC port count (AIF-FAB-007) or names devices twice (AIF-NAME-002)",
    ),
    (
        "/fabric/topology/leaf/uplink_speed",
        "another uplink speed must carry the leaf's downlinks in whole links at the ratio (AIF-FAB-003)",
    ),
    (
        "/fabric/topology/leaf/breakout",
        "the examples' leaf platforms have no other mode at their link speed (AIF-FAB-011)",
    ),
    (
        "/fabric/topology/spine/breakout",
        "the examples' spine platforms have no other mode at their link speed (AIF-FAB-011)",
    ),
    (
        "/fabric/topology/super_spine/breakout",
        "the one super-spine platform of the examples has no other mode at its link speed (AIF-FAB-011)",
    ),
    (
        "/qos/classes/*/strict",
        "CNP and CTS classes must stay strict (AIF-QOS-010), and a weighted class made strict keeps a share it may not have",
    ),
    (
        "/qos/pfc_watchdog/enabled",
        "lossless classes need the PFC watchdog on (AIF-PFC-001)",
    ),
    (
        "/qos/pfc_watchdog/action",
        "`alert` has no known NX-OS CLI, and every example has NX-OS switches (AIF-PFC-007)",
    ),
    (
        "/baseline/ssh",
        "Ansible pushes the switches over SSH (AIF-BASE-005)",
    ),
    (
        "/acknowledge/[]/rule",
        "an acknowledgement names a rule that fires on the switches it covers: another id alone is refused",
    ),
    (
        "/overrides/[]/acknowledge/",
        "an override's acknowledgement names a rule that fires on its switches; no example's override has one to change, and a made-up one is refused",
    ),
    ("/hosts/nic", "only `connectx` exists"),
    ("/hosts/kubernetes/ipam", "only `spiderpool` exists"),
    (
        "/hosts/data_class",
        "names the fabric's one lossless data class (AIF-HOST-001): another name is refused",
    ),
    (
        "/hosts/cts_class",
        "names the fabric's one CTS class (AIF-HOST-002): another name is refused",
    ),
    (
        "/hosts/cnp_class",
        "names the fabric's one CNP class (AIF-HOST-003): another name is refused",
    ),
    (
        "/overrides/[]/roce_dest_qp",
        "the overridden switches' platforms cannot hash on the RoCE destination QP (AIF-LB-003)",
    ),
];

/// Patterns of `change_sections:` the walk never sees explain a changed section, with why (OS, rule,
/// pattern or `*` for all of the rule's): any other pattern not seen fails the test, so a map claims
/// only what the renders show.
const NOT_REACHED: &[(&str, &str, &str, &str)] = &[
    (
        "*",
        "CHG-BREAKOUT",
        "*",
        "no breakout changes alone (the breakout fields are skipped above); a breakout change re-creates the ports, their BGP neighbors and, on SONiC, BREAKOUT_CFG and every per-port table",
    ),
    (
        "eos",
        "CHG-ACK",
        "(comments)",
        "no acknowledgement of the examples applies to an EOS switch; templates/eos/header.j2 prints them as comments",
    ),
    (
        "sonic",
        "CHG-ACK",
        "(comments)",
        "no acknowledgement of the examples applies to a SONiC switch; templates/sonic/header.j2 prints them in GENERATED.txt",
    ),
];

/// Fields whose change moves sections beyond what the rule that fires explains, where `CHG-CONFIG`
/// rightly names the rest: (field path or prefix ending in `/`, section name, why).
const ALSO_CONFIG: &[(&str, &str, &str)] = &[];

/// What the walk found.
#[derive(Default)]
struct Tally {
    /// Field paths changed into a compiling intent, in some example.
    exercised: BTreeSet<String>,
    /// Why a field was not exercised, per example.
    why_not: BTreeMap<String, BTreeSet<String>>,
    /// Changed intents compiled, and those that changed some file.
    tried: usize,
    changed: usize,
    problems: Vec<String>,
    /// Each (OS, rule, pattern) of `change_sections:` that explained a changed section.
    seen: BTreeSet<(Os, &'static str, String)>,
}

#[test]
fn every_field_that_changes_a_config_is_reported_on_its_switches() {
    let text = std::fs::read_to_string("schema/intent.schema.json").expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    let all = fields(&schema);
    let mut t = Tally::default();
    for example in EXAMPLES {
        walk(example, &schema, &all, &mut t);
    }
    let skipped = skipped(&all, &mut t);
    println!(
        "every_field: {} schema leaf fields, {} exercised, {} skipped; {} changed intents compiled, {} moved a config",
        all.len(),
        t.exercised.len(),
        skipped.len(),
        t.tried,
        t.changed
    );
    for s in &skipped {
        println!("  skipped {s}");
    }
    maps_reached(&mut t);
    assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
    assert!(
        t.tried >= 200 && t.changed >= 150,
        "only {} values changed, {} configs moved",
        t.tried,
        t.changed
    );
}

/// The fields of `all` the walk did not exercise, each with its reason from [`SKIPPED`]; a field
/// without one, or a reason for a field that was exercised, is a problem.
fn skipped(all: &[Field], t: &mut Tally) -> Vec<String> {
    let listed = |p: &str| {
        SKIPPED
            .iter()
            .find(|(f, _)| *f == p || (f.ends_with('/') && p.starts_with(f)))
    };
    let mut out = Vec::new();
    for f in all {
        let p = f.path();
        if t.exercised.contains(&p) {
            if listed(&p).is_some() {
                t.problems.push(format!(
                    "{p}: exercised, yet SKIPPED gives a reason: drop it"
                ));
            }
            continue;
        }
        match listed(&p) {
            Some((_, why)) => out.push(format!("{p}: {why}")),
            None => {
                let seen = t.why_not.get(&p).cloned().unwrap_or_default();
                t.problems.push(format!(
                    "{p}: skipped with no reason in SKIPPED ({})",
                    seen.into_iter().collect::<Vec<_>>().join("; ")
                ));
            }
        }
    }
    out
}

/// Every pattern of the built-in `change_sections:` explained some changed section in the walk, or
/// [`NOT_REACHED`] says why not (printed); any other is a problem: a map claims only what the renders
/// show.
fn maps_reached(t: &mut Tally) {
    for (os, map) in &Catalog::builtin().change_sections {
        for (rule, patterns) in &map.0 {
            for p in patterns {
                if t.seen
                    .iter()
                    .any(|(o, r, x)| o == os && r == rule && x == p)
                {
                    continue;
                }
                let why = NOT_REACHED.iter().find(|(o, r, x, _)| {
                    (*o == "*" || *o == os.to_string()) && r == rule && (*x == "*" || x == p)
                });
                match why {
                    Some((.., why)) => println!("  not reached: {os} {rule} `{p}`: {why}"),
                    None => t.problems.push(format!(
                        "{os} {rule} `{p}`: no change of the walk shows it, and NOT_REACHED gives no reason: drop it from vendors/{os}.yaml change_sections"
                    )),
                }
            }
        }
    }
}

/// The compiled model and rendered files of an intent, as `render` makes them.
struct Sides {
    renderer: Renderer,
    example: &'static str,
}

impl Sides {
    /// The whole front as `render` runs it (schema, rules, compiler): an intent it refuses is no case.
    fn compile(&self, v: &Value) -> Result<FabricModel, String> {
        let text = serde_norway::to_string(v).map_err(|e| e.to_string())?;
        let source = aifab::diag::Source::new(self.example, text);
        use aifab::pipeline::FrontError;
        aifab::pipeline::front_source(source)
            .map(|f| f.model)
            .map_err(|e| {
                let findings = match &e {
                    FrontError::Invalid(_, f) | FrontError::Lock(_, f) => f.as_slice(),
                    FrontError::Both { intent, .. } => intent.1.as_slice(),
                    _ => &[],
                };
                findings
                    .iter()
                    .find(|f| f.is_error())
                    .map_or("refused".to_string(), |f| {
                        format!("{}: {}", f.code, f.message)
                    })
            })
    }

    fn render(&self, m: &FabricModel) -> Vec<aifab::render::OutFile> {
        self.renderer
            .fabric(&Meta::new(self.example, &m.name), m, None)
            .expect("render")
    }
}

/// Changes every field of `example` in turn (each instance the example has, or one added).
fn walk(example: &'static str, schema: &Value, all: &[Field], t: &mut Tally) {
    let cat = Catalog::builtin();
    let sides = Sides {
        renderer: Renderer::new(cat).expect("templates"),
        example,
    };
    let text = std::fs::read_to_string(example).expect("read");
    let base: Value = serde_norway::from_str(&text).expect("yaml");
    let old = sides.compile(&base).expect("the example compiles");
    let old_files = sides.render(&old);
    for f in all {
        let path = f.path();
        let cases = cases(schema, &base, f, cat);
        if cases.is_empty() {
            note(t, &path, example, "no instance and none can be added");
        }
        // Per instance, the first value that compiles.
        let mut done: BTreeSet<String> = BTreeSet::new();
        for (v, p) in cases {
            if done.contains(&p) {
                continue;
            }
            let new = match sides.compile(&v) {
                Ok(m) => m,
                Err(e) => {
                    let short: String = e.chars().take(140).collect();
                    note(t, &path, example, &format!("refused ({short})"));
                    continue;
                }
            };
            done.insert(p.clone());
            t.exercised.insert(path.clone());
            t.tried += 1;
            let files = diff_files(&old_files, &sides.render(&new));
            if !files.is_empty() {
                t.changed += 1;
            }
            let what = format!("{example} {p} ({path})");
            check(&what, &path, (&old, &new), &files, cat, t);
        }
    }
}

/// The changed intents for field `f` of `base`, each with the pointer of the changed value: every
/// instance the example has, with each other value; or, when it has none, the field added.
fn cases(schema: &Value, base: &Value, f: &Field, cat: &Catalog) -> Vec<(Value, String)> {
    let path = f.path();
    let mut out: Vec<(Value, String)> = Vec::new();
    for p in instances(base, f) {
        let now = base.pointer(&p);
        let mut values = candidates(f.leaf(), now);
        values.extend(platforms(&path, now, cat));
        for value in values {
            let mut v = base.clone();
            if let Some(slot) = v.pointer_mut(&p) {
                *slot = value;
            }
            if path == "/qos/classes/*/bandwidth" && !rebalance(&mut v, base, &p) {
                continue;
            }
            out.push((v, p.clone()));
        }
    }
    if out.is_empty() {
        for value in candidates(f.leaf(), None) {
            out.extend(add(schema, base, f, &value));
        }
    }
    out
}

fn note(t: &mut Tally, path: &str, example: &str, why: &str) {
    t.why_not
        .entry(path.to_string())
        .or_default()
        .insert(format!("{example}: {why}"));
}

/// The report `aifab diff` prints for one changed field, held to the module doc's promises.
fn check(
    what: &str,
    path: &str,
    (old, new): (&FabricModel, &FabricModel),
    files: &[FileChange],
    cat: &Catalog,
    t: &mut Tally,
) {
    let problems = &mut t.problems;
    let touched: BTreeSet<&str> = files
        .iter()
        .map(|f| f.device.as_str())
        .filter(|d| !d.is_empty())
        .collect();
    let os = oses(cat, &[old, new]);
    let mut changes = report_rendered(old, new, cat, &touched);
    changes.extend(uncovered(&changes, files, cat, &os));
    let named: BTreeSet<&str> = changes
        .iter()
        .flat_map(|c| c.devices.iter().map(String::as_str))
        .collect();
    let silent: Vec<&&str> = touched.difference(&named).collect();
    if !silent.is_empty() {
        problems.push(format!(
            "{what}: files changed on {silent:?}, no change names them"
        ));
    }
    let idle: Vec<&&str> = named.difference(&touched).collect();
    if !idle.is_empty() {
        problems.push(format!(
            "{what}: {:?} name {idle:?}, whose files did not change",
            ids(&changes)
        ));
    }
    // QoS values are reported old→new (rates, thresholds, shares, timers, priorities).
    let qos = [
        ChangeRule::Ecn,
        ChangeRule::Sched,
        ChangeRule::Watchdog,
        ChangeRule::Lossless,
        ChangeRule::Dscp,
    ];
    for c in changes.iter().filter(|c| qos.contains(&c.rule)) {
        if !c.summary.contains('→') {
            problems.push(format!(
                "{what}: {} gives no old→new value: {}",
                c.rule, c.summary
            ));
        }
    }
    if files.is_empty() && !changes.is_empty() {
        problems.push(format!("{what}: no file changed, yet {:?}", ids(&changes)));
    }
    sections_explained(what, path, files, &changes, cat, &os, t);
}

fn ids(changes: &[Change]) -> BTreeSet<&'static str> {
    changes.iter().map(|c| c.rule.id()).collect()
}

/// Every changed section of every switch is explained by a rule that fired there, or named by
/// `CHG-CONFIG`; each rule that fired explains some changed section of each switch it names; and
/// `CHG-CONFIG` adds to a specific rule only where [`ALSO_CONFIG`] says why.
fn sections_explained(
    what: &str,
    path: &str,
    files: &[FileChange],
    changes: &[Change],
    cat: &Catalog,
    os: &BTreeMap<&str, Os>,
    t: &mut Tally,
) {
    let problems = &mut t.problems;
    let mut keys: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.device.is_empty()) {
        if aifab::hosts::is_host_path(&f.path) {
            continue;
        }
        keys.entry(f.device.as_str())
            .or_default()
            .extend(f.sections.iter().map(String::as_str));
    }
    let specific: Vec<&Change> = changes
        .iter()
        .filter(|c| c.rule != ChangeRule::Config)
        .collect();
    let configs: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.rule == ChangeRule::Config)
        .flat_map(|c| c.devices.iter().map(String::as_str))
        .collect();
    let left = unexplained(
        &specific.iter().map(|c| (*c).clone()).collect::<Vec<_>>(),
        files,
        cat,
        os,
    );
    for (device, sections) in &left {
        if !configs.contains(device) {
            problems.push(format!(
                "{what}: {device}: {sections:?} changed, explained by no rule, and CHG-CONFIG does not name it"
            ));
        }
    }
    for c in &specific {
        for d in &c.devices {
            let o = os.get(d.as_str()).copied();
            let Some(ks) = keys.get(d.as_str()) else {
                continue;
            };
            let map = o.and_then(|o| cat.change_sections.get(&o).map(|m| (o, m)));
            if let Some((o, m)) = map {
                for p in m.0.get(c.rule.id()).into_iter().flatten() {
                    if ks.iter().any(|k| aifab::platform::owned::matches(p, k)) {
                        t.seen.insert((o, c.rule.id(), p.clone()));
                    }
                }
            }
            if !ks.iter().any(|k| explains(cat, o, c.rule, k)) {
                let names: BTreeSet<String> = ks.iter().map(|k| section_name(cat, o, k)).collect();
                problems.push(format!(
                    "{what}: {} names {d} ({o:?}) but explains none of its changed sections {names:?}: its change_sections lack one",
                    c.rule
                ));
            }
            if let Some(rest) = left.get(d.as_str()) {
                let unlisted: Vec<&String> =
                    rest.iter().filter(|s| !also_config(path, s)).collect();
                if !unlisted.is_empty() {
                    problems.push(format!(
                        "{what}: {} fired on {d} ({o:?}), and CHG-CONFIG names {unlisted:?}: add them to its change_sections, or say in ALSO_CONFIG why the field moves more",
                        c.rule
                    ));
                }
            }
        }
    }
}

/// Whether [`ALSO_CONFIG`] says why `path`'s change moves `section` beyond its rule.
fn also_config(path: &str, section: &str) -> bool {
    ALSO_CONFIG
        .iter()
        .any(|(f, s, _)| *s == section && (*f == path || (f.ends_with('/') && path.starts_with(f))))
}

/// For a `platform` field, the catalog's other platforms of the same OS (a platform name is valid
/// only when the catalog has it).
fn platforms(path: &str, now: Option<&Value>, cat: &Catalog) -> Vec<Value> {
    let Some(now) = now
        .and_then(Value::as_str)
        .filter(|_| path.ends_with("/platform"))
    else {
        return Vec::new();
    };
    let os = now.split('/').next().unwrap_or_default();
    cat.names()
        .filter(|n| *n != now && n.split('/').next() == Some(os))
        .map(Value::from)
        .collect()
}

/// A whole percentage, written `90%` or `90`.
fn percent(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str()?.trim_end_matches('%').parse().ok())
}

/// Bandwidth shares sum to 100: after one class's share changed at `p` in `v`, another weighted
/// class gives or takes the difference. False when no class can.
fn rebalance(v: &mut Value, base: &Value, p: &str) -> bool {
    let (Some(old), Some(new)) = (
        base.pointer(p).and_then(percent),
        v.pointer(p).and_then(percent),
    ) else {
        return false;
    };
    let class = p.trim_end_matches("/bandwidth");
    let Some(Value::Object(classes)) = v.pointer_mut("/qos/classes") else {
        return false;
    };
    for (name, c) in classes.iter_mut() {
        if class.ends_with(&format!("/{name}")) {
            continue;
        }
        if let Some(share) = c.get("bandwidth").and_then(percent) {
            let other = share + old - new;
            if (1..=100).contains(&other) {
                c["bandwidth"] = Value::from(other);
                return true;
            }
        }
    }
    false
}
