//! Compiler invariants on the example intents (parsed directly with serde, independent of the loader).

use aifab::compile::compile;
use aifab::intent::Intent;
use aifab::model::FabricModel;
use aifab::platform::Catalog;

fn load(path: &str) -> Intent {
    let text = std::fs::read_to_string(path).expect("read intent");
    serde_norway::from_str(&text).expect("parse intent")
}

fn build(intent: &Intent) -> FabricModel {
    match compile(intent, Catalog::builtin()) {
        Ok(m) => m,
        Err(e) => panic!("compile failed: {e:#?}"),
    }
}

#[test]
fn example_1024_counts() {
    let m = build(&load("intents/pod1-1024.yaml"));
    let s = &m.summary;
    assert_eq!((s.leaves, s.spines, s.super_spines), (32, 16, 0));
    assert_eq!(s.server_links, 1024);
    assert_eq!(s.leaf_spine_links, 1024);
    assert_eq!(s.leaf_oversubscription, "1:1");
    assert_eq!(s.gpus, 1024);
    assert_eq!(m.devices.len(), 48);
}
