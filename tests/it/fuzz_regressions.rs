//! Inputs the fuzzer found (docs/fuzzing.md): each must be refused quickly with an error, never panic,
//! and write nothing.

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
        let o = crate::common::aifab_command()
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

/// Files of a folder, sorted (an absent folder has none).
fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The fuzz harness itself (built into this test binary) on every regression intent, every example
/// intent and every committed seed of both targets: none may panic, and a `mutate_intent` seed decodes
/// to an intent. A crash the fuzzer finds is added here as a seed or a regression file.
#[test]
fn fuzz_harness_replays_the_seeds_and_regressions() {
    use crate::fuzz_harness::{Outcome, exercise, exercise_bytes, mutate};
    let mut rendered = 0;
    for p in files("tests/fuzz_regressions")
        .into_iter()
        .chain(files("intents"))
        .chain(files("fuzz/seeds/pipeline"))
    {
        let bytes = std::fs::read(&p).expect("read");
        if exercise_bytes(&bytes) == Outcome::Rendered {
            rendered += 1;
        }
    }
    // Each example intent renders (with its lock beside it, the arithmetic alone gives the same).
    assert!(rendered >= 6, "only {rendered} inputs rendered");
    let seeds = files("fuzz/seeds/mutate_intent");
    assert!(seeds.len() >= 10, "{} mutate_intent seeds", seeds.len());
    let mut outcomes = [0usize; 4];
    for p in &seeds {
        let bytes = std::fs::read(p).expect("read");
        let text = mutate::decode(&bytes).unwrap_or_else(|| panic!("{} decodes", p.display()));
        outcomes[exercise(&text) as usize] += 1;
    }
    // The seeds reach compile and render, not only the loader.
    assert!(
        outcomes[Outcome::Rendered as usize] > 0 && outcomes[Outcome::Rejected as usize] > 0,
        "skipped, rejected, compiled, rendered: {outcomes:?}"
    );
}
