//! Embeds every file under `templates/` into the binary, so `aifab` runs from any folder.

use std::fmt::Write as _;
use std::path::Path;

fn collect(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, base, out);
        } else if let (true, Ok(rel)) = (
            p.extension().is_some_and(|e| e == "j2"),
            p.strip_prefix(base),
        ) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let templates = Path::new(&root).join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut files = Vec::new();
    collect(&templates, &templates, &mut files);
    let mut code = String::from(
        "/// Every template under `templates/`, by path relative to it.\npub static TEMPLATES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed=templates/{f}");
        let _ = writeln!(
            code,
            "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/templates/\", {f:?}))),"
        );
    }
    code.push_str("];\n");
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("templates.rs");
    std::fs::write(out, code).expect("write templates.rs");
}
