//! One command checks every generated file of the repository, and one regenerates them all (as ruff's
//! `generate-all --check`):
//!
//! ```sh
//! cargo test --test it generated::                 # check: fails naming each stale file
//! AIFAB_BLESS=1 cargo test --test it generated::   # regenerate all, check again; then review `git diff`
//! ```
//!
//! The generators are tests beside what they check, because several need the test fixtures (the
//! example intents, the golden comparison, Graphviz): [`GENERATED`] is their one list. Each reads
//! `AIFAB_BLESS=1` to rewrite its files instead of failing. [`every_generator_is_listed`] fails when a
//! test module reads `AIFAB_BLESS` and has no row here, so a new generator cannot be left out. In a run
//! of the whole suite the generators run as their own tests, and [`every_generated_file_is_fresh`]
//! leaves them to it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// One generated file (or family of files): what it is made from and the test that checks and,
/// under `AIFAB_BLESS=1`, rewrites it.
struct Generated {
    /// The committed file(s).
    files: &'static str,
    /// Its source of truth.
    from: &'static str,
    /// The test (`module::name` in this binary).
    test: &'static str,
}

/// Every generated file of the repository.
const GENERATED: &[Generated] = &[
    Generated {
        files: "schema/intent.schema.json",
        from: "the intent types (src/intent/)",
        test: "schema_fresh::json_schema_is_fresh",
    },
    Generated {
        files: "docs/intent-reference.md",
        from: "the intent types (src/intent/) and the rule registry (src/rules.rs)",
        test: "schema_fresh::markdown_reference_is_fresh",
    },
    Generated {
        files: "schema/platform.schema.json",
        from: "the platform file types (src/platform/types.rs)",
        test: "schema_fresh::platform_schema_is_fresh",
    },
    Generated {
        files: "docs/checks.md (the rule index under `## Rules`)",
        from: "the rule registry (src/rules.rs, with RETIRED)",
        test: "checks::the_docs_index_is_the_registry",
    },
    Generated {
        files: "tests/rule-ids.txt",
        from: "the rule registry (new ids added; none ever removed)",
        test: "checks::issued_rule_ids_stay_reserved",
    },
    Generated {
        files: "docs/change-report.md (the rule index under `## Rules`)",
        from: "the change rules (`change_rules!` in src/review/change.rs)",
        test: "diff::the_docs_index_is_the_change_rule_table",
    },
    Generated {
        files: "golden/diff/pod1-1024-ecn.md",
        from: "`aifab diff --format markdown` of an ECN edit",
        test: "diff::markdown_comment_matches_golden",
    },
    Generated {
        files: "golden/<intent>/",
        from: "the render of every example intent",
        test: "golden::every_example_matches_its_golden_files",
    },
    Generated {
        files: "golden/features/<os>/<area>.ref",
        from: "the config areas of the example intents' representative devices",
        test: "golden::every_area_matches_its_ref_file",
    },
    Generated {
        files: "docs/topologies/<intent>.dot and .svg",
        from: "`aifab plan --format dot` of every example; the .svg by Graphviz `dot`",
        test: "plan::committed_pictures_are_fresh",
    },
    Generated {
        files: "tests/vendors/resolved.json",
        from: "every built-in platform as the catalog resolves vendors/<os>.yaml (families included)",
        test: "vendors::every_platform_resolves_as_its_snapshot",
    },
    Generated {
        files: "ansible/filter_plugins/aifab_mask.json",
        from: "the masking table (src/review/mask/words.rs)",
        test: "mask::the_filters_table_is_the_one_aifab_masks_with",
    },
    Generated {
        files: "ansible/vars/collect-documents.yml",
        from: "the documents `aifab verify` reads (src/verify/collect.rs)",
        test: "verify_anta::collect_documents_yml_is_fresh",
    },
];

/// Runs the listed generators in a child of this test binary (exactly those tests), with
/// `AIFAB_BLESS` as `bless` says; returns the rows whose test failed, each with its failure text.
fn run_generators(bless: bool) -> Vec<String> {
    let exe = std::env::current_exe().expect("this test binary");
    let mut cmd = Command::new(exe);
    cmd.args(GENERATED.iter().map(|g| g.test))
        .args(["--exact", "--test-threads=2", "--color=never"])
        .env("RUST_BACKTRACE", "0");
    match bless {
        true => cmd.env("AIFAB_BLESS", "1"),
        false => cmd.env_remove("AIFAB_BLESS"),
    };
    let out = cmd.output().expect("run the generators");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let ran: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.split(" ... ").next())
        .collect();
    let mut problems = Vec::new();
    for g in GENERATED {
        if !ran.contains(g.test) {
            problems.push(format!(
                "{}: its generator {} is not a test of tests/it: fix GENERATED in tests/it/generated.rs",
                g.files, g.test
            ));
        } else if stdout.contains(&format!("test {} ... FAILED", g.test)) {
            let why = stdout
                .split(&format!("---- {} stdout ----", g.test))
                .nth(1)
                .and_then(|rest| rest.split("\n---- ").next())
                .unwrap_or("")
                .lines()
                .filter(|l| !l.starts_with("note: ") && !l.trim().is_empty())
                .take(12)
                .collect::<Vec<_>>()
                .join("\n    ");
            problems.push(format!(
                "stale: {} (from {}; checked by {})\n    {why}",
                g.files, g.from, g.test
            ));
        }
    }
    problems
}

/// Every generated file is what its generator makes now; with `AIFAB_BLESS=1` they are all rewritten
/// first (then checked again, so a generator that cannot rewrite its file, as the .svg pictures
/// without Graphviz, still fails here by name).
#[test]
fn every_generated_file_is_fresh() {
    // In a run of the whole suite each generator runs as its own test already: running them again in
    // a child would only double the work, and under AIFAB_BLESS two writers would swap the same golden
    // folders at once. This test runs them when it is asked for by name (`generated::`).
    let asked = std::env::args().skip(1).any(|a| a.starts_with("generated"));
    if !asked {
        eprintln!("generated::every_generated_file_is_fresh: the suite runs each generator itself");
        return;
    }
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        run_generators(true);
    }
    let stale = run_generators(false);
    assert!(
        stale.is_empty(),
        "{}\n\nregenerate with: AIFAB_BLESS=1 cargo test --test it generated::  (then review git diff)",
        stale.join("\n")
    );
}

/// The test functions of one test file whose own code names `AIFAB_BLESS`, and whether any code of
/// the file does (a helper, as `schema_fresh::check`, counts for the file).
fn bless_readers(text: &str) -> (bool, Vec<String>) {
    let file = syn::parse_file(text).expect("a test file parses");
    let mut finder = BlessFinder::default();
    for item in &file.items {
        finder.found = false;
        syn::visit::Visit::visit_item(&mut finder, item);
        if !finder.found {
            continue;
        }
        finder.any = true;
        if let syn::Item::Fn(f) = item
            && f.attrs.iter().any(|a| a.path().is_ident("test"))
        {
            finder.tests.push(f.sig.ident.to_string());
        }
    }
    (finder.any, finder.tests)
}

/// Finds the string `"AIFAB_BLESS"` in code, macro arguments included.
#[derive(Default)]
struct BlessFinder {
    found: bool,
    any: bool,
    tests: Vec<String>,
}

impl<'ast> syn::visit::Visit<'ast> for BlessFinder {
    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.found |= lit.value() == "AIFAB_BLESS";
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.found |= mac.tokens.to_string().contains("\"AIFAB_BLESS\"");
    }
}

/// Every test module that reads `AIFAB_BLESS` writes a committed file, and so has its row in
/// [`GENERATED`]; every test that reads it itself is listed by name.
#[test]
fn every_generator_is_listed() {
    let listed: BTreeSet<&str> = GENERATED.iter().map(|g| g.test).collect();
    let mut problems = Vec::new();
    let mut seen = 0;
    for path in crate::common::paths_under(Path::new("tests/it")) {
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("generated.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a test file");
        let (any, tests) = bless_readers(&text);
        let module = path
            .strip_prefix("tests/it")
            .expect("under tests/it")
            .with_extension("")
            .to_string_lossy()
            .replace('/', "::");
        if any {
            seen += 1;
        }
        if any && !listed.iter().any(|t| t.starts_with(&format!("{module}::"))) {
            problems.push(format!(
                "{}: reads AIFAB_BLESS but no row of GENERATED (tests/it/generated.rs) names a test of it",
                path.display()
            ));
        }
        for t in tests {
            if !listed.contains(format!("{module}::{t}").as_str()) {
                problems.push(format!(
                    "{module}::{t} rewrites a file under AIFAB_BLESS: add its row to GENERATED (tests/it/generated.rs)"
                ));
            }
        }
    }
    assert!(
        seen >= 7,
        "only {seen} generator files seen: the reader broke"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
