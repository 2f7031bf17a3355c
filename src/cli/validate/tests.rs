//! Tests of `aifab validate`'s argument handling and verdict line.

use super::{LockArg, as_lock, verdict};
use std::path::PathBuf;

#[test]
fn a_lock_is_checked_with_its_intent() {
    let dir = std::env::temp_dir().join(format!("aifab-validate-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("a.yaml"), "x").expect("write");
    let (intent, lock) = (dir.join("a.yaml"), dir.join("a.lock.yaml"));
    let given = vec![intent.clone(), lock.clone()];
    assert_eq!(as_lock(&intent, &given), LockArg::Intent);
    assert_eq!(as_lock(&lock, &given), LockArg::CheckedWith(intent.clone()));
    assert_eq!(
        as_lock(&lock, std::slice::from_ref(&lock)),
        LockArg::Of(intent)
    );
    let orphan: PathBuf = dir.join("b.lock.yaml");
    assert!(
        matches!(as_lock(&orphan, std::slice::from_ref(&orphan)), LockArg::Orphan(w) if w.contains("b.yaml"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_verdict_line_counts_errors_and_warnings() {
    let v = |e, w, quiet| verdict("a.yaml", e, w, quiet);
    assert_eq!(v(0, 0, false).as_deref(), Some("a.yaml: valid"));
    assert_eq!(
        v(0, 2, false).as_deref(),
        Some("a.yaml: valid (2 warnings)")
    );
    assert_eq!(v(0, 2, true), None);
    assert_eq!(v(1, 0, true).as_deref(), Some("a.yaml: invalid, 1 error"));
    assert_eq!(
        v(3, 1, false).as_deref(),
        Some("a.yaml: invalid, 3 errors, 1 warning")
    );
}
