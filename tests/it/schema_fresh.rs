//! `schema/intent.schema.json` and `docs/intent-reference.md` are generated from the intent types, and
//! `schema/platform.schema.json` from the platform file types; this test fails when one is stale.
//! Regenerate with
//!
//! ```sh
//! cargo run -q -- schema > schema/intent.schema.json
//! cargo run -q -- schema --format markdown > docs/intent-reference.md
//! cargo run -q -- schema --platforms > schema/platform.schema.json
//! ```
//!
//! or run this test with `AIFAB_BLESS=1` to rewrite them.

use std::path::PathBuf;

fn generated(args: &[&str]) -> String {
    let out = crate::common::aifab_command()
        .args(args)
        .output()
        .expect("run aifab");
    assert_eq!(out.status.code(), Some(0), "aifab {args:?} failed");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn check(rel: &str, args: &[&str], regenerate: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    let fresh = generated(args);
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create directory");
        }
        std::fs::write(&path, &fresh).unwrap_or_else(|e| panic!("write {rel}: {e}"));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != fresh {
        let first_diff = on_disk
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| on_disk.lines().count().min(fresh.lines().count()))
            + 1;
        panic!(
            "{rel} is stale (first difference at line {first_diff}).\n\
             Regenerate it with:\n    {regenerate}\n\
             or run: AIFAB_BLESS=1 cargo test --test it schema_fresh::"
        );
    }
}

#[test]
fn json_schema_is_fresh() {
    check(
        "schema/intent.schema.json",
        &["schema"],
        "cargo run -q -- schema > schema/intent.schema.json",
    );
}

#[test]
fn markdown_reference_is_fresh() {
    check(
        "docs/intent-reference.md",
        &["schema", "--format", "markdown"],
        "cargo run -q -- schema --format markdown > docs/intent-reference.md",
    );
}

#[test]
fn platform_schema_is_fresh() {
    check(
        "schema/platform.schema.json",
        &["schema", "--platforms"],
        "cargo run -q -- schema --platforms > schema/platform.schema.json",
    );
}
