//! The code map holds: every top-level module of `src/` has its place in the pipeline order below
//! ([`LAYERS`], the order ARCHITECTURE.md's code map gives), and a module uses only modules before it.
//! A new `crate::x` use that points forward (a cycle in the making) or a new top-level module missing
//! from the list fails here with the file and line that made it; inside every folder, at every depth,
//! the files form no cycle. The code is read with a Rust parser ([`code`]): only `#[cfg(test)]` items
//! are left out, and two made-up trees prove both checks fail where they should.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod code;

/// Top-level modules in dependency order: each may use only the ones before it.
const LAYERS: &[&str] = &[
    // leaves: vocabulary every stage shares
    "kinds", "units", "spell", "rules", "diag", "output", "boundary", "files",
    // front: reading and checking the intent
    // (`hosts` is the host plan; its files are printed by `render::hosts`)
    "load", "intent", "validate", "platform", "shape", "place", "model", "hosts", "check",
    // allocation and compilation, then publishing the compiled fabric into a DCIM (Nautobot)
    "lock", "git", "compile", "dcim", // back: pictures, per-OS layer, render, write, review
    "picture", "os", "render", "write", "review", "delivery", "verify", "twin",
    // driving the stages; the binary's own modules
    "pipeline", "project", "publish", "bench", "cli",
];

/// The problems of the layer rule in the crate under `src`: a module using one that comes after
/// it in `layers` (each named with the file and line of the use and the fix), a top-level module
/// missing from `layers`, a name of `layers` that `src` no longer has.
fn layer_problems(src: &Path, layers: &[&str]) -> Vec<String> {
    let krate = match code::read(src) {
        Ok(k) => k,
        Err(e) => return vec![e],
    };
    let rank: BTreeMap<&str, usize> = layers.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut problems = Vec::new();
    for top in krate.modules.iter().filter(|m| m.len() == 1) {
        if !rank.contains_key(top[0].as_str()) {
            problems.push(format!(
                "{}: top-level module `{}` is not in LAYERS (tests/it/layers.rs) nor in ARCHITECTURE.md's code map",
                krate.files.get(top).map_or(String::new(), |f| f.display().to_string()),
                top[0]
            ));
        }
    }
    let mut reported = BTreeSet::new();
    for edge in krate.edges.iter().filter(|e| !e.from.is_empty()) {
        let (from, to) = (edge.from[0].as_str(), edge.to[0].as_str());
        let (Some(&f), Some(&t)) = (rank.get(from), rank.get(to)) else {
            continue; // reported above
        };
        if t > f && reported.insert((edge.file.clone(), edge.line, to)) {
            problems.push(format!(
                "{}:{}: `{from}` uses `crate::{}`, which comes after it in the pipeline: move the shared piece down to a module both can use",
                edge.file.display(),
                edge.line,
                edge.to.join("::")
            ));
        }
    }
    for m in layers {
        if !krate.modules.contains(&vec![m.to_string()]) {
            problems.push(format!("LAYERS names `{m}`, which src/ no longer has"));
        }
    }
    problems
}

#[test]
fn top_level_modules_use_only_earlier_ones() {
    let problems = layer_problems(Path::new("src"), LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The host plan is what the compiler stores in the model, and nothing prints from it but the render
/// stage: no file of `src/hosts/` makes an `OutFile` or reads the run facts (`crate::output`), and the
/// emitters live under `src/render/hosts/`.
#[test]
fn the_host_plan_prints_nothing() {
    let krate = code::read(Path::new("src")).unwrap_or_else(|e| panic!("{e}"));
    let hosts: Vec<&code::ModPath> = krate
        .modules
        .iter()
        .filter(|m| m.first().is_some_and(|t| t == "hosts"))
        .collect();
    assert!(
        hosts.len() > 1,
        "src/hosts is gone: update this test and ARCHITECTURE.md"
    );
    let mut printing: BTreeSet<String> = krate
        .edges
        .iter()
        .filter(|e| e.from.first().is_some_and(|t| t == "hosts") && e.to[0] == "output")
        .map(|e| format!("{}:{}", e.file.display(), e.line))
        .collect();
    for m in hosts {
        if let Some(file) = krate.files.get(m)
            && std::fs::read_to_string(file)
                .expect("read")
                .contains("OutFile")
        {
            printing.insert(file.display().to_string());
        }
    }
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

/// The dependencies between the children of module `parent` (`src/<parent>/<child>.rs` or
/// `src/<parent>/<child>/`, and inline `mod` items): an edge `a -> b` when code anywhere in `a`
/// names something of `b`, with the first `file:line` that does. The parent's own file (`mod.rs`) is
/// the parent, not a sibling.
fn children_graph(
    krate: &code::Crate,
    parent: &code::ModPath,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let n = parent.len();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for e in &krate.edges {
        if e.from.len() > n
            && e.to.len() > n
            && e.from[..n] == parent[..]
            && e.to[..n] == parent[..]
            && e.from[n] != e.to[n]
        {
            graph
                .entry(e.from[n].clone())
                .or_default()
                .entry(e.to[n].clone())
                .or_insert_with(|| format!("{}:{}", e.file.display(), e.line));
        }
    }
    graph
}

/// A folder (module) as the docs name it: `src/render/hosts/`, `src/` for the root.
fn folder(module: &code::ModPath) -> String {
    module
        .iter()
        .fold("src/".to_string(), |f, m| format!("{f}{m}/"))
}

/// The cycles among the children of every module of the crate under `src`, at every depth (the
/// top-level modules too; `LAYERS` orders them), one problem a folder, naming each edge of the
/// cycle with where it is made and the fix.
fn cycle_problems(src: &Path) -> Vec<String> {
    let krate = match code::read(src) {
        Ok(k) => k,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    for parent in &krate.modules {
        let graph = children_graph(&krate, parent);
        let names: BTreeMap<String, BTreeSet<String>> = graph
            .iter()
            .map(|(a, bs)| (a.clone(), bs.keys().cloned().collect()))
            .collect();
        let Some(cycle) = a_cycle(&names) else {
            continue;
        };
        let steps: Vec<&str> = cycle.split(" -> ").collect();
        let wheres: Vec<String> = steps
            .windows(2)
            .map(|w| format!("{} uses {} at {}", w[0], w[1], graph[w[0]][w[1]]))
            .collect();
        problems.push(format!(
            "a cycle between the modules of {}: {cycle} ({}); move what both need into a module both use (as compile::draft) or into {}",
            folder(parent),
            wheres.join("; "),
            match parent.is_empty() {
                true => "an earlier layer".to_string(),
                false => format!("their parent ({}mod.rs)", folder(parent)),
            }
        ));
    }
    problems
}

/// Inside every folder, at every depth, the files depend one way too: the compiler's draft types are
/// `compile::draft`'s, so its passes use the draft and not each other (ports <-> topology was such a
/// pair), and `render::hosts`'s emitters share the NIC plan through their parent, not each other
/// (nccl <-> nic_qos was such a pair).
#[test]
fn the_modules_inside_every_folder_form_no_cycle() {
    let krate = code::read(Path::new("src")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        krate.test_items > 50,
        "only {} #[cfg(test)] items seen: the reader broke",
        krate.test_items
    );
    let compile = children_graph(&krate, &vec!["compile".to_string()]);
    assert!(
        compile
            .get("topology")
            .is_some_and(|u| u.contains_key("ports")),
        "the reader no longer sees compile's uses: {compile:?}"
    );
    let problems = cycle_problems(Path::new("src"));
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

/// A scratch folder holding `files` (a path in the tree and its text).
fn tree(name: &str, files: &[(&str, &str)]) -> crate::common::Scratch {
    let dir = crate::common::Scratch::new(name);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

/// The reader that split each file at its first `#[cfg(test)]` missed everything after it
/// (`src/write/index.rs` has a test-only function near its top): a back edge there fails now, with
/// its line and the fix, and only the test item is left out.
#[test]
fn a_back_edge_after_a_test_item_fails() {
    let early = "#[cfg(test)]\nfn fixture() -> crate::late::Thing { crate::late::Thing }\n\n\
                 pub fn one() -> u8 {\n    1\n}\n\nuse crate::late::Thing;\n";
    let dir = tree(
        "layers-back-edge",
        &[
            ("src/lib.rs", "pub mod early;\npub mod late;\n"),
            ("src/early.rs", early),
            ("src/late.rs", "pub struct Thing;\n"),
        ],
    );
    let src = dir.join("src");
    let problems = layer_problems(&src, &["early", "late"]);
    let file = src.join("early.rs");
    assert_eq!(
        problems,
        [format!(
            "{}:8: `early` uses `crate::late`, which comes after it in the pipeline: move the shared piece down to a module both can use",
            file.display()
        )]
    );
    assert!(layer_problems(&src, &["late", "early"]).is_empty());
    // In a macro's arguments, in a function body, in an inline module: seen too.
    let hidden = "pub fn one() -> String {\n    format!(\"{}\", crate::late::N)\n}\n\
                  mod inner {\n    fn f() {\n        use super::super::late;\n        let _ = late::N;\n    }\n}\n";
    std::fs::write(&file, hidden).expect("write");
    std::fs::write(src.join("late.rs"), "pub const N: u8 = 1;\n").expect("write");
    let lines: Vec<String> = layer_problems(&src, &["early", "late"])
        .iter()
        .map(|p| p.split(": ").next().unwrap_or("").to_string())
        .collect();
    let at = |l: u32| format!("{}:{l}", file.display());
    assert_eq!(lines, [at(2), at(6), at(7)]);
}

/// A cycle two folders down (`src/outer/inner/x.rs <-> y.rs`, one edge through a glob import)
/// fails, naming both edges, where each is made, and the fix.
#[test]
fn a_nested_cycle_fails() {
    let dir = tree(
        "layers-nested-cycle",
        &[
            ("src/lib.rs", "pub mod outer;\n"),
            ("src/outer/mod.rs", "mod inner;\n"),
            ("src/outer/inner/mod.rs", "mod x;\nmod y;\nmod z;\n"),
            (
                "src/outer/inner/x.rs",
                "use super::y::Y;\npub struct X(Y);\n",
            ),
            (
                "src/outer/inner/y.rs",
                "use super::*;\npub struct Y;\npub fn f(_: x::X) {}\n",
            ),
            ("src/outer/inner/z.rs", "pub fn g(_: super::x::X) {}\n"),
        ],
    );
    let src = dir.join("src");
    assert!(layer_problems(&src, &["outer"]).is_empty());
    let at = |f: &str, l: u32| format!("{}:{l}", src.join("outer/inner").join(f).display());
    assert_eq!(
        cycle_problems(&src),
        [format!(
            "a cycle between the modules of src/outer/inner/: x -> y -> x (x uses y at {}; y uses x at {}); move what both need into a module both use (as compile::draft) or into their parent (src/outer/inner/mod.rs)",
            at("x.rs", 1),
            at("y.rs", 3)
        )]
    );
    std::fs::write(src.join("outer/inner/y.rs"), "pub struct Y;\n").expect("write");
    assert_eq!(cycle_problems(&src), Vec::<String>::new());
}

/// Errors carried as text (`Result<_, String>`) outside `src/cli`, the edge that prints them, by
/// file: none. Every stage returns a typed error (thiserror); a file listed here would be an
/// exception to argue for, allowed no more than its count.
const TEXT_ERRORS_ALLOWED: &[(&str, usize)] = &[];

/// Every `Result<_, String>` of `src` outside `src/cli` beyond [`TEXT_ERRORS_ALLOWED`], each named by
/// file, line and function.
fn text_error_problems(src: &Path, allowed: &[(&str, usize)]) -> Vec<String> {
    let found = match code::text_errors(src) {
        Ok(f) => f,
        Err(e) => return vec![e],
    };
    let (cli, cli_file) = (src.join("cli"), src.join("cli.rs"));
    let mut by_file: BTreeMap<&Path, Vec<&code::TextError>> = BTreeMap::new();
    for f in found
        .iter()
        .filter(|f| !f.file.starts_with(&cli) && f.file != cli_file)
    {
        by_file.entry(&f.file).or_default().push(f);
    }
    let mut problems = Vec::new();
    for (file, list) in by_file {
        let rel = file
            .strip_prefix(src.parent().unwrap_or(src))
            .unwrap_or(file);
        let allowance = allowed
            .iter()
            .find(|(f, _)| Path::new(f) == rel)
            .map_or(0, |(_, n)| *n);
        if list.len() > allowance {
            for f in list {
                problems.push(format!(
                    "{}:{}: `{}` carries its error as a String ({} in the file, {allowance} allowed): give its module a thiserror enum naming what went wrong and where; strings only in src/cli",
                    f.file.display(),
                    f.line,
                    f.item,
                    by_file_len(&found, file),
                ));
            }
        }
    }
    problems
}

/// How many of `found` are in `file`.
fn by_file_len(found: &[code::TextError], file: &Path) -> usize {
    found.iter().filter(|f| f.file == file).count()
}

#[test]
fn errors_cross_modules_typed_not_as_text() {
    let problems = text_error_problems(Path::new("src"), TEXT_ERRORS_ALLOWED);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reader finds a text error in a signature, a closure's bound, a field and a turbofish, names the
/// function, and leaves test code and the CLI alone.
#[test]
fn text_errors_are_found_where_they_hide() {
    let lib = "pub mod a;\nmod cli;\n#[cfg(test)]\nmod tests;\n";
    let a = "pub fn f() -> Result<(), String> { Ok(()) }\n\
             pub struct S { r: Vec<Result<u8, String>> }\n\
             impl S {\n    pub fn g(x: impl Fn() -> Result<(), Vec<String>>) { let _ = Err::<u8, String>(String::new()); }\n}\n\
             pub fn ok() -> Result<(), std::io::Error> { Ok(()) }\n\
             #[cfg(test)]\nfn t() -> Result<(), String> { Ok(()) }\n";
    let dir = tree(
        "layers-text-errors",
        &[
            ("src/lib.rs", lib),
            ("src/a.rs", a),
            (
                "src/cli.rs",
                "pub fn main() -> Result<(), String> { Ok(()) }\n",
            ),
            ("src/tests.rs", "fn t() -> Result<(), String> { Ok(()) }\n"),
        ],
    );
    let src = dir.join("src");
    let lines: Vec<String> = text_error_problems(&src, &[])
        .iter()
        .map(|p| p.split(" carries").next().unwrap_or("").to_string())
        .collect();
    let at = |l: u32, item: &str| format!("{}:{l}: `{item}`", src.join("a.rs").display());
    assert_eq!(
        lines,
        [at(1, "f"), at(2, "S"), at(4, "S::g"), at(4, "S::g")]
    );
    assert!(text_error_problems(&src, &[("src/a.rs", 4)]).is_empty());
}
