//! A render is one transaction (`src/publish/`): the command line parses arguments and prints what
//! the library returns, so a safety rule of a write (the lock policy, the journals, the write itself)
//! has one home. These tests read the CLI's source and fail when a command starts writing an output
//! folder or a lock on its own again, or when a CLI file grows back into a conductor.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d)
            .expect("read a source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// What only `src/publish/` (and `src/write/` beneath it) may call: the writers of an output folder,
/// the journals' writers, and the builders of the lock a render writes.
const TRANSACTION_ONLY: [&str; 8] = [
    "write_job(",
    "inplace::write(",
    "swap_folders(",
    "staged_lock(",
    "write::Companion",
    "lock::build::",
    "to_yaml_after(",
    "journal::write(",
];

/// The calls of `text` (comments aside) among [`TRANSACTION_ONLY`].
fn writer_calls(text: &str) -> Vec<&'static str> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    TRANSACTION_ONLY
        .iter()
        .copied()
        .filter(|call| code.contains(call))
        .collect()
}

#[test]
fn the_cli_writes_through_the_render_transaction() {
    let mut problems = Vec::new();
    for file in rust_files(Path::new("src/cli")) {
        let text = std::fs::read_to_string(&file).expect("read a CLI file");
        for call in writer_calls(&text) {
            problems.push(format!(
                "{} calls `{call}`: a write of an output folder or a lock belongs in src/publish/ (Render::plan, Plan::commit), so its safety rules stay in one place",
                file.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let render = std::fs::read_to_string("src/cli/render.rs").expect("src/cli/render.rs");
    for step in ["Render {", ".open(", ".plan(", ".commit(", ".checking("] {
        assert!(
            render.contains(step),
            "src/cli/render.rs no longer runs the transaction's `{step}`"
        );
    }
}

/// The scanner sees a writer's call in code and not in a comment.
#[test]
fn the_writer_scanner_reads_code_not_comments() {
    assert_eq!(
        writer_calls("let r = aifab::write::write_job(out, &o, f);"),
        ["write_job("]
    );
    assert!(writer_calls("// aifab::write::write_job(out) is the library's").is_empty());
    assert_eq!(writer_calls("x.to_yaml_after(a, b, c)"), ["to_yaml_after("]);
}

/// About 200 lines a file: a command that grows past it is doing the library's work.
const CLI_FILE_LINES: usize = 210;

#[test]
fn every_cli_file_stays_small() {
    let long: Vec<String> = rust_files(Path::new("src/cli"))
        .into_iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(&f).expect("read").lines().count();
            (n > CLI_FILE_LINES).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "CLI files over {CLI_FILE_LINES} lines (move the work into the library, or split the printing): {}",
        long.join(", ")
    );
}
