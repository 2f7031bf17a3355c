//! The code map holds: every top-level module of `src/` has its place in the pipeline order below
//! ([`LAYERS`], the order ARCHITECTURE.md's code map gives), and a module uses only modules before it.
//! A new `crate::x` use that points forward (a cycle in the making) or a new top-level module missing
//! from the list fails here with the file that made it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules in dependency order: each may use only the ones before it.
const LAYERS: &[&str] = &[
    // leaves: vocabulary every stage shares
    "kinds", "units", "spell", "rules", "diag", "output", "boundary", "files",
    // front: reading and checking the intent
    // (`hosts` is the host plan; its files are printed by `render::hosts`)
    "load", "intent", "validate", "platform", "shape", "place", "model", "hosts", "check",
    // allocation and compilation, then publishing the compiled fabric into a DCIM (Nautobot)
    "lock", "compile", "dcim", // back: pictures, per-OS layer, render, write, review
    "picture", "os", "render", "write", "review", "delivery", "verify", "twin",
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

/// The modules of top-level module `top` (`src/<top>/<sub>.rs` or `src/<top>/<sub>/`) each uses,
/// by `super::<sub>` (or `super::super::<sub>` one folder down) and `crate::<top>::<sub>`, outside
/// comments and `#[cfg(test)]` code. `mod.rs` is the parent, not a sibling.
fn sibling_uses(top: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new("src").join(top);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    let sub_of = |f: &Path| -> Option<(String, usize)> {
        let rel = f.strip_prefix(&dir).ok()?;
        let parts: Vec<_> = rel.components().collect();
        let first = parts[0]
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        (first != "mod" && first != "tests").then_some((first, parts.len()))
    };
    let subs: BTreeSet<String> = files
        .iter()
        .filter_map(|f| sub_of(f))
        .map(|(s, _)| s)
        .collect();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some((sub, depth)) = sub_of(f) else {
            continue;
        };
        let text = std::fs::read_to_string(f).expect("read");
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let up = "super::".repeat(depth);
        let mut used = BTreeSet::new();
        for prefix in [up, format!("crate::{top}::")] {
            let mut rest = code.as_str();
            while let Some(at) = rest.find(&prefix) {
                // `super::super::x` also contains `super::x` one level in: skip a longer chain.
                let longer = rest[..at].ends_with("super::");
                rest = &rest[at + prefix.len()..];
                if longer || rest.starts_with("super::") {
                    continue;
                }
                if let Some(group) = rest.strip_prefix('{') {
                    used.extend(group_heads(group));
                } else {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                        .collect();
                    used.insert(name);
                }
            }
        }
        let entry = out.entry(sub.clone()).or_default();
        entry.extend(used.into_iter().filter(|u| *u != sub && subs.contains(u)));
    }
    out
}

/// A cycle in `graph`, as the path that closes it (`a -> b -> a`), if there is one.
fn a_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut cycle = path[at..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle.join(" -> "));
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Inside each top-level module the files depend one way too: the compiler's draft types are
/// `compile::draft`'s, so its passes use the draft and not each other (ports <-> topology was such a
/// pair), and no module of any other `src/<top>/` uses one that uses it back.
#[test]
fn the_modules_inside_each_top_level_module_form_no_cycle() {
    let compile = sibling_uses("compile");
    assert!(
        compile.get("topology").is_some_and(|u| u.contains("ports")),
        "the scanner no longer sees compile's uses: {compile:?}"
    );
    let mut problems = Vec::new();
    for top in LAYERS {
        if !Path::new("src").join(top).is_dir() {
            continue;
        }
        if let Some(cycle) = a_cycle(&sibling_uses(top)) {
            problems.push(format!(
                "a cycle between the modules of src/{top}/: {cycle}; move what both need into a module both use (as compile::draft)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_cycle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"][..]),
        ("c", &["a"][..]),
        ("d", &[][..]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(a_cycle(&graph).as_deref(), Some("a -> b -> c -> a"));
    let mut acyclic = graph.clone();
    acyclic.insert("c".into(), BTreeSet::new());
    assert_eq!(a_cycle(&acyclic), None);
}

/// The folders whose paths the docs name and this test checks.
const NAMED_ROOTS: [&str; 9] = [
    "src/",
    "templates/",
    "vendors/",
    "docs/",
    "tests/",
    "golden/",
    "schema/",
    "intents/",
    "ansible/",
];

/// Every repository path `text` names (`src/compile/draft.rs`, `templates/<os>/`,
/// `src/os/{nxos,eos}/qos.rs`, `tests/it/meaning/*.rs`), braces expanded, trailing punctuation off.
fn named_paths(text: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./<>{},*-".contains(c);
    let mut out = Vec::new();
    for (at, _) in text.char_indices() {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || "_./-".contains(c)) {
            continue;
        }
        let rest = &text[at..];
        if !NAMED_ROOTS.iter().any(|r| rest.starts_with(r)) {
            continue;
        }
        let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['.', ',', ':', ';']);
        match (path.find('{'), path.find('}')) {
            (Some(open), Some(close)) if open < close => {
                for alt in path[open + 1..close].split(',') {
                    out.push(format!("{}{alt}{}", &path[..open], &path[close + 1..]));
                }
            }
            _ => out.push(path.to_string()),
        }
    }
    out
}

/// Whether a named path is in the tree: a `<placeholder>` or `*` component stands for any entry,
/// so the folder before it must exist (and, for `*.rs`, hold such a file).
fn path_exists(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut dir = std::path::PathBuf::new();
    for part in parts {
        if part.contains('<') {
            return dir.is_dir();
        }
        if let Some((pre, post)) = part.split_once('*') {
            return std::fs::read_dir(&dir).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with(pre) && n.ends_with(post)
                })
            });
        }
        dir.push(part);
    }
    dir.exists()
}

/// Every path ARCHITECTURE.md names exists (its code map, invariants and recipes are a newcomer's map:
/// a moved file must move there too), and every test it cites as `tests/it/x.rs` (`a_test`) is a
/// function of that file. In README.md and docs/, paths into a folder of this repository (`src/compile/...`,
/// `tests/it/...`, `docs/platforms/...`) must exist too; other repositories' paths that happen to start
/// with `src/` or `docs/` (sonic-buildimage, NCCL) name folders this repository lacks and are left alone.
#[test]
fn every_path_the_architecture_names_exists() {
    let map = std::fs::read_to_string("ARCHITECTURE.md").expect("ARCHITECTURE.md");
    let mut problems: Vec<String> = named_paths(&map)
        .into_iter()
        .filter(|p| !path_exists(p))
        .map(|p| format!("ARCHITECTURE.md names `{p}`, which does not exist"))
        .collect();
    let mut cited = 0;
    for (line_no, line) in map.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("`tests/it/") {
            rest = &rest[at + 1..];
            let Some((file, after)) = rest.split_once('`') else {
                break;
            };
            let Some(names) = after.strip_prefix(" (").and_then(|a| a.split(')').next()) else {
                continue;
            };
            let Ok(source) = std::fs::read_to_string(file) else {
                continue; // reported above
            };
            for name in names.split('`').skip(1).step_by(2) {
                if !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                {
                    continue;
                }
                cited += 1;
                if !source.contains(&format!("fn {name}(")) {
                    problems.push(format!(
                        "ARCHITECTURE.md:{}: `{file}` has no test `{name}`",
                        line_no + 1
                    ));
                }
            }
        }
    }
    assert!(cited > 10, "only {cited} tests cited: the scanner broke");
    let mut docs = vec![std::path::PathBuf::from("README.md")];
    docs.extend(
        crate::common::paths_under(Path::new("docs"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    for doc in docs {
        let text = std::fs::read_to_string(&doc).expect("read doc");
        for p in named_paths(&text) {
            let ours = ["src/", "templates/", "vendors/", "tests/", "docs/"]
                .iter()
                .any(|r| p.starts_with(r));
            let mut parts = p.split('/');
            let folder: std::path::PathBuf = parts.by_ref().take(2).collect();
            let deeper = parts.next().is_some();
            let checked = ours
                && ((deeper && folder.is_dir()) || (p.starts_with("src/") && p.ends_with(".rs")));
            if checked && !path_exists(&p) {
                problems.push(format!(
                    "{} names `{p}`, which does not exist",
                    doc.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_path_scanner_reads_braces_placeholders_and_globs() {
    let text =
        "see `src/os/{nxos,eos}/qos.rs`, templates/<os>/ and tests/it/meaning/*.rs. Not mysrc/x.rs";
    assert_eq!(
        named_paths(text),
        [
            "src/os/nxos/qos.rs",
            "src/os/eos/qos.rs",
            "templates/<os>/",
            "tests/it/meaning/*.rs"
        ]
    );
    assert!(path_exists("templates/<os>/") && path_exists("tests/it/meaning/*.rs"));
    assert!(!path_exists("src/compile/shape.rs") && !path_exists("tests/it/nothing/*.rs"));
}
