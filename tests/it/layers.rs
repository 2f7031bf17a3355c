//! The code map holds: every top-level module of `src/` has its place in the pipeline order below
//! ([`LAYERS`], the order ARCHITECTURE.md's code map gives), and a module uses only modules before it.
//! A new `crate::x` use that points forward (a cycle in the making) or a new top-level module missing
//! from the list fails here with the file that made it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules in dependency order: each may use only the ones before it.
const LAYERS: &[&str] = &[
    // leaves: vocabulary every stage shares
    "kinds", "units", "spell", "rules", "diag", "output", "files",
    // front: reading and checking the intent
    // (`hosts` is the host plan; its files are printed by `render::hosts`)
    "load", "intent", "validate", "platform", "shape", "place", "model", "hosts", "check",
    // allocation and compilation
    "lock", "compile", // back: pictures, per-OS layer, render, write, review
    "picture", "os", "render", "write", "review", "delivery", "twin",
    // driving the stages; the binary's own modules
    "pipeline", "project", "bench", "cli",
];

/// Every `crate::<module>` a source text names outside comments and `#[cfg(test)]` code.
fn uses(text: &str) -> BTreeSet<String> {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            out.extend(group_heads(group));
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The first path segment of each item of a `use crate::{a, b::c, d::{e, f}}` group.
fn group_heads(group: &str) -> Vec<String> {
    let (mut depth, mut at_head, mut word, mut heads) = (0, true, String::new(), Vec::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_head = true,
            c if depth == 0 && at_head && (c.is_ascii_alphanumeric() || c == '_') => word.push(c),
            _ => {
                if depth == 0 && at_head && !word.is_empty() {
                    heads.push(std::mem::take(&mut word));
                    at_head = false;
                }
            }
        }
        if c == ',' && depth == 0 && !word.is_empty() {
            heads.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        heads.push(word);
    }
    heads.retain(|w| w != "self" && w.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
    heads
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/compile/qos.rs` -> `compile`).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix("src").expect("under src");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

#[test]
fn top_level_modules_use_only_earlier_ones() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    files.sort();
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for file in &files {
        let module = module_of(file);
        if module == "lib" || module == "main" || file.ends_with("tests.rs") {
            continue;
        }
        let Some(&at) = rank.get(module.as_str()) else {
            problems.push(format!(
                "{}: top-level module `{module}` is not in LAYERS (tests/it/layers.rs) nor in ARCHITECTURE.md's code map",
                file.display()
            ));
            continue;
        };
        seen.insert(module.clone());
        let text = std::fs::read_to_string(file).expect("read");
        for used in uses(&text) {
            if used == module {
                continue;
            }
            match rank.get(used.as_str()) {
                Some(&u) if u < at => {}
                Some(_) => problems.push(format!(
                    "{}: `{module}` uses `crate::{used}`, which comes after it in the pipeline: move the shared piece down to a module both can use",
                    file.display()
                )),
                None => {} // a crate-root item (a macro or a re-export), not a module
            }
        }
    }
    for m in LAYERS {
        if !seen.contains(*m) {
            problems.push(format!("LAYERS names `{m}`, which src/ no longer has"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The host plan is what the compiler stores in the model, and nothing prints from it but the render
/// stage: no file of `src/hosts/` makes an `OutFile` or reads the run facts (`crate::output`), and the
/// emitters live under `src/render/hosts/`.
#[test]
fn the_host_plan_prints_nothing() {
    let mut files = Vec::new();
    rust_files(Path::new("src/hosts"), &mut files);
    assert!(
        !files.is_empty(),
        "src/hosts is gone: update this test and ARCHITECTURE.md"
    );
    let printing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("read");
            uses(&text).contains("output") || text.contains("OutFile")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        printing.is_empty(),
        "these files of the host plan produce files; move that part to src/render/hosts/: {printing:?}"
    );
    assert!(Path::new("src/render/hosts/mod.rs").is_file());
}

#[test]
fn the_architecture_map_names_every_top_level_module() {
    let Ok(map) = std::fs::read_to_string("ARCHITECTURE.md") else {
        panic!("ARCHITECTURE.md is missing");
    };
    let missing: Vec<&str> = LAYERS
        .iter()
        .filter(|m| !map.contains(&format!("`src/{m}")))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name: {missing:?}"
    );
}

#[test]
fn the_use_scanner_reads_groups_and_paths() {
    let text = "use crate::{diag::Finding, rules::Rule, units};\nuse crate::place::{self, X};\n// crate::cli in a comment\nfn f() { crate::hosts::plan(); }\n#[cfg(test)]\nuse crate::render;\n";
    let got: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(got, ["diag", "hosts", "place", "rules", "units"]);
}
