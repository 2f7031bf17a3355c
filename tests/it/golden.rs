//! Golden files: every example intent renders to exactly the reviewed files in `golden/<intent>/`.
//! `AIFAB_BLESS=1 cargo test --test it golden::` rewrites them (review the diff line by line first), the same as
//! `aifab render intents/<x>.yaml --check golden/<x> --bless`.

use crate::common;

use aifab::review::{Status, compare_tree};
use aifab::write::write_tree;
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
