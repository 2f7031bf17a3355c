//! Inputs the fuzzer found (docs/fuzzing.md): each must be refused quickly with an error, never panic,
//! and write nothing.

use std::process::Command;

#[test]
fn fuzz_findings_are_refused_cleanly() {
    let mut n = 0;
    for e in std::fs::read_dir("tests/fuzz_regressions")
        .expect("folder")
        .flatten()
    {
        let p = e.path();
        n += 1;
        let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("aifab-fuzzreg-{}-{n}", std::process::id()));
        let t = std::time::Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_aifab"))
            .arg("render")
            .arg(&p)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {stderr}", p.display());
        assert!(!stderr.contains("panicked"), "{}: {stderr}", p.display());
        assert!(
            stderr.contains("AIF-"),
            "{}: no rule id in {stderr}",
            p.display()
        );
        assert!(!out.exists(), "{}: wrote output", p.display());
        // Not a timed test: a loose bound that only an exponential or unbounded loop would break.
        assert!(
            t.elapsed().as_secs() < 60,
            "{} took {:?}",
            p.display(),
            t.elapsed()
        );
    }
    assert!(n >= 3);
}
