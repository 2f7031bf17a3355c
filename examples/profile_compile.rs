//! Development aid: compile the generated 100K-GPU fabric five times (for profiling).
fn main() {
    let yaml = aifab::bench::intent_yaml("100k", 1).unwrap_or_default();
    let intent: aifab::intent::Intent = serde_norway::from_str(&yaml).expect("intent");
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let m =
            aifab::compile::compile(&intent, aifab::platform::Catalog::builtin()).expect("compile");
        println!("{} devices {:?}", m.devices.len(), t.elapsed());
    }
}
