//! Every problem at once, as a matrix: single mistakes in different sections of one example intent,
//! each reported alone with its rule and place; then every pair of them in one file, where both must
//! come back, at the same places, from `validate`, `render` (which writes nothing) and `diff`. The
//! expected findings are those of the single runs, so nothing here is hard-coded but the mistakes.

use crate::common::{self, aifab};
use serde_json::Value;
use std::collections::BTreeSet;

/// The intent every mistake is made in: baseline, management, QoS, DLB, three tiers.
const BASE: &str = "intents/three-tier-small.yaml";

/// One mistake: what it is, the intent section it is in, the text it replaces (once) and what replaces
/// it, on the same lines.
const MISTAKES: &[(&str, &str, &str, &str)] = &[
    (
        "ntp address",
        "baseline",
        "{ address: 192.0.2.22 }",
        "{ address: 192.0.2.299 }",
    ),
    (
        "syslog address",
        "baseline",
        "syslog: [192.0.2.31]",
        "syslog: [192.0.2.310]",
    ),
    (
        "management gateway",
        "management",
        "gateway: 198.51.100.1\n",
        "gateway: 198.51.100.300\n",
    ),
    ("user role", "baseline", "role: read-only", "role: readonly"),
    (
        "ECN min above max",
        "qos",
        "ecn: { min: 200KB, max: 2MB,",
        "ecn: { min: 3MB, max: 2MB,",
    ),
    (
        "DLB mode",
        "load_balancing",
        "mode: flowlet",
        "mode: flowlett",
    ),
    (
        "spine count",
        "topology",
        "hostname: \"z{zone}-spine{index}\"\n      count: 2",
        "hostname: \"z{zone}-spine{index}\"\n      count: 3",
    ),
    (
        "server pool",
        "addressing",
        "server_links: 10.22.0.0/24",
        "server_links: 10.22.0.0/28",
    ),
    (
        "leaf ASN range",
        "bgp",
        "leaf_asn: 65200-65299",
        "leaf_asn: 65200-65203",
    ),
    (
        "super-spine ASN in the spine range",
        "bgp",
        "super_spine_asn: 65001",
        "super_spine_asn: 65020",
    ),
    (
        "NTP server in a pool",
        "baseline",
        "{ address: 192.0.2.21, prefer: true }",
        "{ address: 10.20.0.5, prefer: true }",
    ),
    (
        "first leaf management address",
        "management",
        "first: { leaf: 198.51.100.100",
        "first: { leaf: 198.51.100.250",
    ),
];

/// An error as the matrix compares it: rule, line, column.
type Place = (String, u64, u64);

/// The errors `aifab validate --format json` reports for `file`.
fn errors(file: &str) -> BTreeSet<Place> {
    let out = aifab(&["validate", "--format", "json", file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let parsed: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{file}: not JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out.status.code(), Some(1), "{file}: {stdout}");
    parsed
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["column"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// The base intent with the mistakes `which` made.
fn with(base: &str, which: &[usize]) -> String {
    let mut text = base.to_string();
    for &i in which {
        let (what, _, from, to) = MISTAKES[i];
        assert_eq!(
            from.matches('\n').count(),
            to.matches('\n').count(),
            "{what}"
        );
        assert!(text.contains(from), "{what}: `{from}` is not in {BASE}");
        text = text.replacen(from, to, 1);
    }
    text
}

/// Whether stderr of a command reports every error of `want` (its rule and `:line:col:`).
fn missing_in(stderr: &str, want: &BTreeSet<Place>) -> Vec<String> {
    want.iter()
        .filter(|(code, line, col)| {
            !stderr.contains(code.as_str()) || !stderr.contains(&format!(":{line}:{col}:"))
        })
        .map(|(code, line, col)| format!("{code} at {line}:{col}"))
        .collect()
}

/// The lines of `base` mistake `i` changes.
fn lines_of(base: &str, i: usize) -> std::ops::RangeInclusive<u64> {
    let (_, _, from, _) = MISTAKES[i];
    let at = base.find(from).expect("the mistake's text");
    let first = base[..at].matches('\n').count() as u64 + 1;
    first..=first + from.trim_end_matches('\n').matches('\n').count() as u64
}

/// Whether a finding is the schema's (the file's form), which a mistake in the same section may hide
/// others behind: a section that fails the schema is not read.
fn schema(p: &Place) -> bool {
    p.0.starts_with("AIF-SCHEMA") || p.0.starts_with("AIF-YAML")
}

/// What a pair must report of mistake `i` (with `other` made too): its own findings, those on the lines
/// it changed; only its schema findings when the other mistake is in the same section and one of them
/// fails the schema there (the section is then not read, as docs/checks.md says).
fn owed(base: &str, singles: &[BTreeSet<Place>], i: usize, other: usize) -> BTreeSet<Place> {
    let lines = lines_of(base, i);
    let same = MISTAKES[i].1 == MISTAKES[other].1;
    let unread = same && (singles[i].iter().any(schema) || singles[other].iter().any(schema));
    singles[i]
        .iter()
        .filter(|p| lines.contains(&p.1))
        .filter(|p| !unread || schema(p))
        .cloned()
        .collect()
}

#[test]
fn every_pair_of_mistakes_reports_both_in_validate_render_and_diff() {
    let base = std::fs::read_to_string(BASE).expect("read");
    let scratch = common::Scratch::new("matrix");
    let write = |name: &str, text: &str| {
        let p = scratch.join(name);
        std::fs::write(&p, text).expect("write");
        p.to_str().expect("utf-8").to_string()
    };
    // Each mistake alone: at least one error, none of them the base's.
    let singles: Vec<BTreeSet<Place>> = (0..MISTAKES.len())
        .map(|i| {
            let file = write(&format!("single-{i}.yaml"), &with(&base, &[i]));
            let e = errors(&file);
            let lines = lines_of(&base, i);
            assert!(
                e.iter().any(|p| lines.contains(&p.1)),
                "{}: no error on its lines alone: {e:?}",
                MISTAKES[i].0
            );
            e
        })
        .collect();
    let mut problems = Vec::new();
    let n = MISTAKES.len();
    let pairs = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
    for (i, j) in pairs {
        let want: BTreeSet<Place> = owed(&base, &singles, i, j)
            .union(&owed(&base, &singles, j, i))
            .cloned()
            .collect();
        let name = format!("pair-{i}-{j}.yaml");
        let file = write(&name, &with(&base, &[i, j]));
        let pair = format!("{} + {}", MISTAKES[i].0, MISTAKES[j].0);
        let got = errors(&file);
        let lost: Vec<&Place> = want.difference(&got).collect();
        if !lost.is_empty() {
            problems.push(format!("validate, {pair}: lost {lost:?}"));
        }
        let out = scratch.join(format!("out-{i}-{j}"));
        let r = aifab(&[
            "render",
            &file,
            "--no-lock",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let stderr = String::from_utf8_lossy(&r.stderr);
        if r.status.code() != Some(2) || out.exists() {
            problems.push(format!(
                "render, {pair}: exit {:?}, wrote {}",
                r.status.code(),
                out.exists()
            ));
        }
        let lost = missing_in(&stderr, &want);
        if !lost.is_empty() {
            problems.push(format!("render, {pair}: lost {lost:?}"));
        }
        let d = aifab(&["diff", BASE, &file]);
        let stderr = String::from_utf8_lossy(&d.stderr);
        if d.status.code() != Some(2) {
            problems.push(format!("diff, {pair}: exit {:?}", d.status.code()));
        }
        let lost = missing_in(&stderr, &want);
        if !lost.is_empty() {
            problems.push(format!("diff, {pair}: lost {lost:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
