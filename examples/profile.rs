//! Development aid: where render time goes on the generated 100K-GPU fabric.
use std::time::Instant;
#[allow(dead_code)] // the benchmark's fabrics; SIZES is unused here
#[path = "../src/bench/fabrics.rs"]
mod fabrics;
fn main() {
    let size = std::env::args().nth(1).unwrap_or_else(|| "100k".into());
    let yaml = fabrics::intent_yaml(&size, 1).unwrap_or_default();
    let intent: aifab::intent::Intent = serde_norway::from_str(&yaml).expect("intent");
    let cat = aifab::platform::Catalog::builtin();
    let t = Instant::now();
    let m = aifab::compile::compile(&intent, cat).expect("compile");
    println!("compile {:?}", t.elapsed());
    let r = aifab::render::Renderer::new(cat).expect("r");
    let meta = aifab::render::Meta::new("x", &m.name);
    for os in [
        aifab::platform::Os::Sonic,
        aifab::platform::Os::Eos,
        aifab::platform::Os::Nxos,
    ] {
        let ds: Vec<_> = m.devices.iter().filter(|d| d.os == os).take(50).collect();
        if ds.is_empty() {
            continue;
        }
        let t = Instant::now();
        for d in &ds {
            let _ = minijinja::Value::from(minijinja::value::Serde(*d));
        }
        let ser = t.elapsed() / ds.len() as u32;
        let t = Instant::now();
        let mut bytes = 0;
        for d in &ds {
            bytes += r
                .device(&meta, d)
                .expect("render")
                .iter()
                .map(|f| f.content.len())
                .sum::<usize>();
        }
        let full = t.elapsed() / ds.len() as u32;
        println!(
            "{os}: {} devices sampled; serde->value {ser:?}/dev; full render {full:?}/dev; {} KB/dev",
            ds.len(),
            bytes / ds.len() / 1024
        );
    }
}
