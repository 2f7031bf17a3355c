//! `aifab verify` (docs/verify.md): a state folder generated from the model verifies clean; the same
//! folder edited as a real fault would show is reported as exactly that fault; bad input is named.

use crate::common::{Scratch, aifab, model};
use aifab::platform::Catalog;
use std::path::Path;

/// Writes the ideal state of `intent` into `dir/state` and returns its path.
fn state_of(intent: &str, dir: &Path) -> std::path::PathBuf {
    let m = model(intent);
    let state = dir.join("state");
    aifab::verify::synth::write_state(&m, Catalog::builtin(), &state).expect("write state");
    state
}

fn verify(intent: &str, state: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec!["verify", intent, "--state", state.to_str().expect("utf-8 path")];
    args.extend_from_slice(more);
    let out = aifab(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn edit_json(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    f(&mut v);
    std::fs::write(path, v.to_string()).expect("write");
}

#[test]
fn a_sonic_fabric_that_runs_its_model_verifies_clean() {
    let dir = Scratch::new("verify-clean-sonic");
    let state = state_of("intents/sonic-lossless-breakout.yaml", &dir);
    let (code, out, err) = verify("intents/sonic-lossless-breakout.yaml", &state, &["-q"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("the fabric runs as intended"), "{out}");
    for check in ["cabling", "sessions", "ports", "lossless"] {
        assert!(out.lines().any(|l| l.starts_with(check) && l.ends_with("holds")), "{check}: {out}");
    }
}
