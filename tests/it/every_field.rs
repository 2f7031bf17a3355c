//! The change report is never silent, field by field: every value of an example intent (walked from
//! its own data, not from a hand list) is changed in turn; where the changed intent still compiles,
//! the two renders are compared and every switch whose files changed must be named by the report
//! (a model rule or `CHG-CONFIG`), and every switch a rule names must have changed files.

use aifab::platform::Catalog;
use aifab::render::{Meta, Renderer};
use aifab::review::change::{ChangeRule, report_rendered};
use aifab::review::{diff_files, uncovered::uncovered};
use serde_json::Value;
use std::collections::BTreeSet;

/// Every scalar under `v`, as a JSON pointer.
fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                leaves(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// Another value of the same kind: a number one more, a boolean flipped, a string's last number one
/// more (`300ms` → `301ms`, `192.0.2.21` → `192.0.2.22`, `80%` → `81%`), else a letter added.
fn other(v: &Value) -> Option<Value> {
    match v {
        Value::Bool(b) => Some(Value::Bool(!b)),
        Value::Number(n) => n.as_u64().map(|n| Value::from(n + 1)),
        Value::String(s) => {
            let end = s.rfind(|c: char| c.is_ascii_digit())?;
            let start = s[..=end]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            let n: u64 = s[start..=end].parse().ok()?;
            Some(Value::String(format!(
                "{}{}{}",
                &s[..start],
                n + 1,
                &s[end + 1..]
            )))
        }
        _ => None,
    }
}

/// The examples walked: three tiers with a baseline and DLB, two-tier with hosts, two planes, and a
/// SONiC/NX-OS mix.
const EXAMPLES: &[&str] = &[
    "intents/three-tier-small.yaml",
    "intents/pod1-1024.yaml",
    "intents/hpn-dual-plane.yaml",
    "intents/mixed-sonic-nxos.yaml",
];

#[test]
fn every_field_that_changes_a_config_is_reported_on_its_switches() {
    let (mut tried, mut changed) = (0, 0);
    let mut problems = Vec::new();
    for example in EXAMPLES {
        let (t, c) = walk(example, &mut problems);
        tried += t;
        changed += c;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Most values the walk changes move some config.
    assert!(
        tried >= 100 && changed >= 80,
        "only {tried} values changed, {changed} configs moved"
    );
}

/// Changes each value of `example` in turn; the problems found go to `problems`. Returns how many
/// changed intents compiled and how many of them changed some switch's files.
fn walk(example: &str, problems: &mut Vec<String>) -> (usize, usize) {
    let cat = Catalog::builtin();
    let renderer = Renderer::new(cat).expect("templates");
    let text = std::fs::read_to_string(example).expect("read");
    let base: Value = serde_norway::from_str(&text).expect("yaml");
    // The whole front as `render` runs it (schema, rules, compiler): an intent it refuses is no case.
    let compile = |v: &Value| -> Option<_> {
        let text = serde_norway::to_string(v).ok()?;
        let source = aifab::diag::Source::new(example, text);
        aifab::pipeline::front_source(source).ok().map(|f| f.model)
    };
    let render = |m: &aifab::model::FabricModel| {
        renderer
            .fabric(&Meta::new(example, &m.name), m, None)
            .expect("render")
    };
    let old = compile(&base).expect("the example compiles");
    let old_files = render(&old);
    let mut paths = Vec::new();
    leaves(&base, String::new(), &mut paths);
    let (mut tried, mut changed) = (0, 0);
    for p in paths.iter().filter(|p| !p.starts_with("/version")) {
        let Some(new_value) = base.pointer(p).and_then(other) else {
            continue;
        };
        let mut v = base.clone();
        if let Some(slot) = v.pointer_mut(p) {
            *slot = new_value;
        }
        let Some(new) = compile(&v) else { continue };
        tried += 1;
        let files = diff_files(&old_files, &render(&new));
        let touched: BTreeSet<&str> = files
            .iter()
            .map(|f| f.device.as_str())
            .filter(|d| !d.is_empty())
            .collect();
        // As `aifab diff` reports.
        let mut changes = report_rendered(&old, &new, cat, &touched);
        changes.extend(uncovered(&changes, &files));
        let named: BTreeSet<&str> = changes
            .iter()
            .flat_map(|c| c.devices.iter().map(String::as_str))
            .collect();
        if !touched.is_empty() {
            changed += 1;
        }
        let silent: Vec<&&str> = touched.difference(&named).collect();
        if !silent.is_empty() {
            problems.push(format!(
                "{p}: files changed on {silent:?}, no change names them"
            ));
        }
        let idle: Vec<&&str> = named.difference(&touched).collect();
        let rules: BTreeSet<&str> = changes
            .iter()
            .filter(|c| c.rule != ChangeRule::Ack)
            .map(|c| c.rule.id())
            .collect();
        if !idle.is_empty() {
            problems.push(format!(
                "{p}: {rules:?} name {idle:?}, whose files did not change"
            ));
        }
        if files.is_empty() && !changes.is_empty() {
            let what: Vec<&str> = changes.iter().map(|c| c.summary.as_str()).collect();
            problems.push(format!("{example} {p}: no file changed, yet {what:?}"));
        }
    }
    (tried, changed)
}
