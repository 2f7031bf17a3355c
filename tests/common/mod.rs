//! Shared helpers for integration tests: compile and render the example intents.
#![allow(dead_code)]

use aifab::compile::compile;
use aifab::intent::Intent;
use aifab::model::FabricModel;
use aifab::platform::Catalog;
use aifab::render::{Meta, OutFile, Renderer};
use std::process::{Command, Output};

/// Parses an intent with serde (no spans needed here).
pub fn intent(path: &str) -> Intent {
    let text = std::fs::read_to_string(path).expect("read intent");
    serde_norway::from_str(&text).expect("parse intent")
}

/// Compiles an intent file, panicking with the findings on failure.
pub fn model(path: &str) -> FabricModel {
    match compile(&intent(path), Catalog::builtin()) {
        Ok(m) => m,
        Err(e) => panic!("compile {path} failed: {e:#?}"),
    }
}

/// Renders every device of an intent file.
pub fn render(path: &str) -> (FabricModel, Vec<OutFile>) {
    let m = model(path);
    let r = Renderer::new(Catalog::builtin()).expect("templates parse");
    let files = match r.fabric(&Meta::new(path, &m.name), &m, None) {
        Ok(f) => f,
        Err(e) => panic!("render {path} failed: {e:#?}"),
    };
    (m, files)
}

/// Every example intent in intents/.
pub fn example_intents() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("intents")
        .expect("intents/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs the built `aifab` binary like a user, from the repository root, without colors.
pub fn aifab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aifab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run aifab")
}
