//! Golden files: every example intent renders to exactly the reviewed files in `golden/<intent>/`, and
//! every config area (QoS, PFC watchdog, BGP, a SONiC table, ...) to its per-feature golden
//! `golden/features/<os>/<area>.ref` (Aerleon's `.ref` style: one area of a few devices per file, so a
//! template change shows in the few files of the areas it touches).
//! `AIFAB_BLESS=1 cargo test --test it golden::` rewrites both (review the diff line by line first, the
//! `.ref` files first); the device goldens alone are also `aifab render intents/<x>.yaml --check
//! golden/<x> --bless`.

use crate::common;

use aifab::model::Device;
use aifab::platform::Catalog;
use aifab::render::{Area, Meta, OutFile, Renderer};
use aifab::review::{Status, compare_tree};
use aifab::write::write_tree;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn every_example_matches_its_golden_files() {
    let bless = std::env::var("AIFAB_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for path in common::example_intents() {
        let stem = Path::new(&path)
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("stem")
            .to_string();
        let (_, files) = common::render(&path);
        let dir = Path::new("golden").join(&stem);
        let diffs = compare_tree(&dir, &files).expect("read golden");
        if diffs.is_empty() {
            continue;
        }
        if bless {
            write_tree(&dir, &files).expect("bless");
            continue;
        }
        let mut report = format!(
            "{path}: {} files differ from {}\n",
            diffs.len(),
            dir.display()
        );
        for d in diffs.iter().take(5) {
            match d.status {
                Status::Added => report.push_str(&format!("  not in golden: {}\n", d.path)),
                Status::Removed => report.push_str(&format!("  only in golden: {}\n", d.path)),
                Status::Changed => report.push_str(&d.diff.chars().take(3000).collect::<String>()),
            }
        }
        failures.push(report);
    }
    assert!(
        failures.is_empty(),
        "{}\nreview, then rerun with AIFAB_BLESS=1 to accept",
        failures.join("\n")
    );
}

/// The per-feature goldens: `golden/features/<os>/<area>.ref` holds one config area (an NX-OS or EOS
/// device template's `<area>_section` block, a SONiC `config_db.json` table, SONiC's `GENERATED.txt`)
/// of one device per platform and role of the example intents ([`representatives`]), devices whose
/// area prints the same text under one heading. A template change thus shows in the few `.ref` files
/// of the areas it touches, to review line by line before the full-device goldens above.
/// `AIFAB_BLESS=1 cargo test --test it golden::` rewrites them with the others.
#[test]
fn every_area_matches_its_ref_file() {
    let bless = std::env::var("AIFAB_BLESS").is_ok_and(|v| v == "1");
    let files = ref_files();
    let dir = Path::new(REF_DIR);
    let diffs = compare_tree(dir, &files).expect("read golden/features");
    if diffs.is_empty() {
        return;
    }
    if bless {
        write_tree(dir, &files).expect("bless");
        return;
    }
    let mut report = format!("{} files differ from {REF_DIR}\n", diffs.len());
    for d in &diffs {
        match d.status {
            Status::Added => report.push_str(&format!("  not in golden: {}\n", d.path)),
            Status::Removed => report.push_str(&format!("  only in golden: {}\n", d.path)),
            Status::Changed => report.push_str(&d.diff.chars().take(3000).collect::<String>()),
        }
    }
    panic!("{report}\nreview, then rerun with AIFAB_BLESS=1 to accept");
}

/// Where the per-feature goldens live.
const REF_DIR: &str = "golden/features";

/// One device a per-feature golden shows: its intent's file stem, the device and its areas.
struct Shown {
    intent: String,
    meta: Meta,
    device: Device,
    areas: Vec<Area>,
}

/// The devices the per-feature goldens show, over the example intents in name order and each
/// fabric's model order: the first device of each platform, role and kind of leaf (rail or rack), and
/// the first to print an area none before it prints (DLB on the one fabric that turns it on), so every
/// area any example renders is shown.
fn representatives(renderer: &Renderer) -> Vec<Shown> {
    let (mut kinds, mut areas_seen) = (BTreeSet::new(), BTreeSet::new());
    let mut out = Vec::new();
    for path in common::example_intents() {
        let model = common::model(&path);
        let stem = Path::new(&path)
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("stem")
            .to_string();
        let meta = Meta::for_intent_path(&path, &model.name);
        for d in model.devices {
            let areas = renderer.areas(&meta, &d).expect("areas");
            let new_kind = kinds.insert((d.platform.clone(), d.role, d.rail.is_some()));
            let mut new_area = false;
            for a in &areas {
                new_area |= areas_seen.insert((d.os, a.name.clone()));
            }
            if new_kind || new_area {
                out.push(Shown {
                    intent: stem.clone(),
                    meta: meta.clone(),
                    device: d,
                    areas,
                });
            }
        }
    }
    out
}

/// One text of an area and the devices that print it (labelled `intent: hostname (platform, role)`).
type Printed = (String, Vec<String>);

/// The `.ref` files: per OS and area, each distinct text with the devices that print it.
fn ref_files() -> Vec<OutFile> {
    let renderer = Renderer::new(Catalog::builtin()).expect("templates parse");
    let mut by_area: BTreeMap<(String, String), Vec<Printed>> = BTreeMap::new();
    for shown in representatives(&renderer) {
        let d = &shown.device;
        let label = format!(
            "{}: {} ({}, {})",
            shown.intent,
            d.hostname,
            d.platform,
            d.role.as_str()
        );
        for a in shown.areas {
            let texts = by_area
                .entry((d.os.as_str().to_string(), a.name))
                .or_default();
            match texts.iter_mut().find(|(t, _)| *t == a.text) {
                Some((_, who)) => who.push(label.clone()),
                None => texts.push((a.text, vec![label.clone()])),
            }
        }
    }
    by_area
        .into_iter()
        .map(|((os, area), texts)| {
            let mut content = format!(
                "# {os} {area}: one device per platform and role of the example intents (tests/it/golden.rs)\n"
            );
            for (text, who) in texts {
                content.push_str(&format!("\n#### {}\n", who.join("; ")));
                content.push_str(&text);
            }
            OutFile {
                path: format!("{os}/{area}.ref"),
                content,
                device: String::new(),
            }
        })
        .collect()
}

/// The areas are the file, not a second rendering: an NX-OS or EOS config is its areas in order
/// followed by the device template's closing lines (the same on every device of the OS: nothing a
/// device prints lies outside an area), and a JSON file is the union of its tables.
#[test]
fn the_areas_put_together_are_the_file() {
    let renderer = Renderer::new(Catalog::builtin()).expect("templates parse");
    let mut tails: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut checked = 0;
    for shown in representatives(&renderer) {
        let d = &shown.device;
        for file in renderer.device(&shown.meta, d).expect("render") {
            let areas: Vec<&Area> = shown.areas.iter().filter(|a| a.file == file.path).collect();
            assert!(!areas.is_empty(), "{}: no area", file.path);
            if file.path.ends_with(".json") {
                let whole: serde_json::Value = serde_json::from_str(&file.content).expect("json");
                let mut union = serde_json::Map::new();
                for a in &areas {
                    let serde_json::Value::Object(one) =
                        serde_json::from_str(&a.text).expect("json")
                    else {
                        panic!("{}: area {} is not an object", file.path, a.name);
                    };
                    union.extend(one);
                }
                assert_eq!(whole, serde_json::Value::Object(union), "{}", file.path);
            } else {
                let joined: String = areas.iter().map(|a| a.text.as_str()).collect();
                let Some(tail) = file.content.strip_prefix(&joined) else {
                    panic!("{}: the file does not begin with its areas", file.path);
                };
                let (first, had) = tails
                    .entry(format!(
                        "{}: {}",
                        d.os.as_str(),
                        file.path.replace(&d.hostname, "{hostname}")
                    ))
                    .or_insert_with(|| (file.path.clone(), tail.to_string()));
                assert_eq!(
                    had, tail,
                    "{} and {first} end differently after their areas: a device's text outside every area",
                    file.path
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} files checked");
}
