//! The product stands on its own: what it renders and says points only at files a user has, configs
//! are plain ASCII with no NX-OS command separator in a comment, and a golden check does not depend on
//! how the intent's path was typed.

use crate::common;

use aifab::platform::Os;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The product's own files a user's clone holds and that reach users: code, templates, vendor
/// profiles, goldens, docs.
fn product_files() -> Vec<PathBuf> {
    ["src", "templates", "vendors", "golden", "docs"]
        .iter()
        .flat_map(|d| common::paths_under(Path::new(d)))
        .collect()
}

#[test]
fn nothing_in_the_product_points_at_the_private_references() {
    let forbidden = ["../shared", "shared/reference", "Addendum"];
    let section = |line: &str| {
        ["nxos.md §", "eos.md §", "sonic.md §", "nxos.md Addendum"]
            .iter()
            .any(|p| line.contains(p))
    };
    let mut hits = Vec::new();
    for p in product_files() {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if forbidden.iter().any(|f| line.contains(f)) || section(line) {
                hits.push(format!("{}:{}: {line}", p.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "the product names files a user does not have:\n{}",
        hits.join("\n")
    );
}

/// The `## ` headings of a Markdown file as GitHub anchors.
fn anchors(doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### ")))
        .map(|h| aifab::rules::slug(h.trim()))
        .collect()
}

#[test]
fn every_platform_doc_link_resolves() {
    let mut docs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for os in Os::ALL {
        let path = format!("docs/platforms/{}.md", os.as_str());
        assert!(Path::new(&path).is_file(), "{path} is missing");
        docs.insert(path.clone(), anchors(Path::new(&path)));
    }
    // The FRR output form (`render --os frr`) has its page beside the OSes'.
    let frr = "docs/platforms/frr.md".to_string();
    docs.insert(frr.clone(), anchors(Path::new(&frr)));
    let mut bad = Vec::new();
    let mut links = 0;
    for p in product_files() {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("docs/platforms/") {
                let rest = &line[at..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "/._-#".contains(c)))
                    .unwrap_or(rest.len());
                let link = rest[..end].trim_end_matches('.');
                let Some((doc, anchor)) = link.split_once('#') else {
                    continue;
                };
                links += 1;
                match docs.get(doc) {
                    None => bad.push(format!("{}:{}: no such doc {doc}", p.display(), n + 1)),
                    Some(a) if !a.iter().any(|x| x == anchor) => bad.push(format!(
                        "{}:{}: {doc} has no section #{anchor}",
                        p.display(),
                        n + 1
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    assert!(
        links > 20,
        "only {links} doc links found: the scan is broken"
    );
    assert!(bad.is_empty(), "broken doc links:\n{}", bad.join("\n"));
}

#[test]
fn cli_configs_are_ascii_and_nxos_comments_carry_no_separator() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for path in common::example_intents() {
        let (model, files) = common::render(&path);
        let os: BTreeMap<&str, Os> = model
            .devices
            .iter()
            .map(|d| (d.hostname.as_str(), d.os))
            .collect();
        for f in &files {
            let Some(&device_os) = os.get(f.device.as_str()) else {
                continue;
            };
            if device_os == Os::Sonic {
                continue;
            }
            checked += 1;
            for (n, line) in f.content.lines().enumerate() {
                if let Some(c) = line.chars().find(|c| !(c.is_ascii_graphic() || *c == ' ')) {
                    bad.push(format!("{}:{}: {c:?} in `{line}`", f.path, n + 1));
                }
                if device_os == Os::Nxos && line.trim_start().starts_with('!') && line.contains(';')
                {
                    bad.push(format!("{}:{}: `;` in a comment: `{line}`", f.path, n + 1));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} CLI configs checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `aifab render <intent> --check golden/<x>` from `cwd`, with the intent named as `intent`.
fn check_from(cwd: &Path, intent: &str, golden: &str) -> (bool, String) {
    let out = crate::common::aifab_command()
        .args(["render", intent, "--check", golden, "-q"])
        .current_dir(cwd)
        .output()
        .expect("run aifab");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text.chars().take(2000).collect())
}

#[test]
fn golden_check_passes_however_the_path_is_typed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let abs_intent = root.join("intents/pod1-1024.yaml");
    let abs_golden = root.join("golden/pod1-1024");
    let abs_intent = abs_intent.to_string_lossy();
    let abs_golden = abs_golden.to_string_lossy();
    let golden_dir = root.join("golden");
    let cases: [(&Path, &str, &str); 5] = [
        (root, "intents/pod1-1024.yaml", "golden/pod1-1024"),
        (root, "./intents/pod1-1024.yaml", "golden/pod1-1024"),
        (
            root,
            "intents/../intents/pod1-1024.yaml",
            "golden/pod1-1024",
        ),
        (root, &abs_intent, &abs_golden),
        (&golden_dir, "../intents/pod1-1024.yaml", "pod1-1024"),
    ];
    for (cwd, intent, golden) in cases {
        let (ok, text) = check_from(cwd, intent, golden);
        assert!(
            ok,
            "from {}: render {intent} --check {golden}:\n{text}",
            cwd.display()
        );
    }
}

#[test]
fn per_device_files_do_not_name_the_aifab_version() {
    let version = format!("aifab {}", env!("CARGO_PKG_VERSION"));
    for path in common::example_intents() {
        let (_, files) = common::render(&path);
        for f in &files {
            assert!(
                !f.content.contains(&version),
                "{}: names `{version}`: an upgrade would change every golden",
                f.path
            );
        }
    }
    assert!(
        aifab::write::manifest().contains(&version),
        "the output folder's manifest carries the version"
    );
}

#[test]
fn intent_label_is_the_file_name() {
    for typed in [
        "intents/pod1-1024.yaml",
        "./intents/pod1-1024.yaml",
        "/abs/where/ever/pod1-1024.yaml",
        "../x/../intents/pod1-1024.yaml",
    ] {
        assert_eq!(
            aifab::render::intent_label(Path::new(typed)),
            "pod1-1024.yaml",
            "{typed}"
        );
    }
}
