//! Embeds every file under `templates/` into the binary, so `aifab` runs from any folder, and
//! converts the built-in platform files `vendors/*.yaml` to JSON, which the binary reads at every
//! start ten times faster than the YAML, each platform apart so that only the platforms a fabric
//! uses are parsed (`platform::Catalog::builtin`; a test checks both give the same catalog).

use std::fmt::Write as _;
use std::path::Path;

// The per-family defaults of vendors/<os>.yaml, resolved as the catalog resolves them.
#[allow(dead_code, unreachable_pub)] // the site-file helpers and the error type are the library's
#[path = "src/platform/family.rs"]
mod family;

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

/// Writes, for every `vendors/<os>.yaml`, `OUT_DIR/vendors/<os>.json`: the file as JSON without its
/// platforms; and `OUT_DIR/vendors.rs`: every platform's JSON by OS and name, so that the binary
/// parses only the platforms a fabric looks up (`platform::Entry`).
fn vendors(root: &Path, out: &Path) {
    println!("cargo:rerun-if-changed=vendors");
    println!("cargo:rerun-if-changed=src/platform/family.rs");
    let dir = out.join("vendors");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/vendors");
    let mut code = String::from(
        "/// Every built-in platform as JSON: its OS, its name, the platform.\npub(crate) static PLATFORMS: &[(&str, &str, &str)] = &[\n",
    );
    for os in ["nxos", "eos", "sonic"] {
        let rel = format!("vendors/{os}.yaml");
        println!("cargo:rerun-if-changed={rel}");
        let text = std::fs::read_to_string(root.join(&rel)).expect("read a vendors file");
        let mut value: serde_json::Value = serde_norway::from_str(&text)
            .unwrap_or_else(|e| panic!("{rel} is not YAML this build can convert: {e}"));
        family::inherit(&mut value).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let platforms = value
            .as_object_mut()
            .and_then(|o| o.remove("platforms"))
            .unwrap_or_else(|| panic!("{rel} has no platforms"));
        for (name, platform) in platforms.as_object().into_iter().flatten() {
            let json = serde_json::to_string(platform).expect("JSON of a YAML value");
            let _ = writeln!(code, "    ({os:?}, {name:?}, {json:?}),");
        }
        let json = serde_json::to_string(&value).expect("JSON of a YAML value");
        std::fs::write(dir.join(format!("{os}.json")), json).expect("write a vendors JSON file");
    }
    code.push_str("];\n");
    std::fs::write(out.join("vendors.rs"), code).expect("write vendors.rs");
}

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let templates = Path::new(&root).join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut files = Vec::new();
    collect(&templates, &templates, &mut files);
    let mut code = String::from(
        "/// Every template under `templates/`, by path relative to it.\npub(crate) static TEMPLATES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed=templates/{f}");
        let _ = writeln!(
            code,
            "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/templates/\", {f:?}))),"
        );
    }
    code.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out_dir = Path::new(&out_dir);
    std::fs::write(out_dir.join("templates.rs"), code).expect("write templates.rs");
    vendors(Path::new(&root), out_dir);
}
