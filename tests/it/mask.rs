//! The one masking module (src/review/mask/) and the playbooks' `aifab_mask` filter
//! (ansible/filter_plugins/aifab_access.py) hide the same words: both run the table of cases
//! `tests/mask/cases.json` (line, masked line), and the filter reads the table of secret words aifab
//! writes (`ansible/filter_plugins/aifab_mask.json`, rewritten by `AIFAB_BLESS=1 cargo test --test it
//! mask::`). The Python half needs python3 (`$AIFAB_PYTHON`, CI's venv or PATH): without it, it prints
//! one line and skips; under `CI=true` it fails.

use crate::common;
use crate::common::root;
use aifab::review::mask::{mask, words};

/// The shared cases: (line, what it prints masked).
fn cases() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("tests/mask/cases.json")).expect("cases");
    serde_json::from_str(&text).expect("cases.json: a list of [line, masked] pairs")
}

#[test]
fn every_case_masks_as_the_table_says() {
    let cases = cases();
    assert!(cases.len() > 40, "the corpus shrank: {}", cases.len());
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(line, want)| mask(line) != want.as_str())
        .map(|(line, want)| format!("{line:?}\n   gives {:?}\n    want {want:?}", mask(line)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // No test secret (every one starts `Tst-`) survives, and masking twice changes nothing.
    for (line, _) in &cases {
        let once = mask(line);
        assert!(!once.contains("Tst-"), "{once}");
        assert_eq!(mask(&once), once, "masking {line:?} twice");
    }
}

#[test]
fn the_filters_table_is_the_one_aifab_masks_with() {
    let path = root().join("ansible/filter_plugins/aifab_mask.json");
    let fresh = words::table_json();
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).expect("write aifab_mask.json");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == fresh,
        "ansible/filter_plugins/aifab_mask.json is stale: AIFAB_BLESS=1 cargo test --test it mask::"
    );
}

#[test]
fn the_playbook_filter_masks_every_case_the_same() {
    let py = common::python_with(&["json", "re"]);
    if !common::prerequisite(
        py.is_some(),
        "the playbook mask filter test",
        "python3 not found",
        "install python3 or set AIFAB_PYTHON",
    ) {
        return;
    }
    let Some(py) = py else { return };
    let script = "import json, sys\n\
        sys.path.insert(0, 'ansible/filter_plugins')\n\
        import aifab_access\n\
        cases = json.load(open('tests/mask/cases.json'))\n\
        print(json.dumps([aifab_access.aifab_mask(line) for line, _ in cases]))\n";
    let o = std::process::Command::new(&py)
        .args(["-c", script])
        .current_dir(root())
        .output()
        .expect("run python");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Vec<String> = serde_json::from_slice(&o.stdout).expect("json");
    let cases = cases();
    assert_eq!(got.len(), cases.len());
    let wrong: Vec<String> = cases
        .iter()
        .zip(&got)
        .filter(|((_, want), got)| want != *got)
        .map(|((line, want), got)| format!("{line:?}\n   gives {got:?}\n    want {want:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "aifab_mask differs:\n{}",
        wrong.join("\n")
    );
    // A text of many lines is masked line by line, as the playbooks print a diff.
    let joined: Vec<&str> = cases.iter().map(|(l, _)| l.as_str()).collect();
    let script = "import json, sys\n\
        sys.path.insert(0, 'ansible/filter_plugins')\n\
        import aifab_access\n\
        print(json.dumps(aifab_access.aifab_mask(sys.stdin.read())))\n";
    let mut child = std::process::Command::new(&py)
        .args(["-c", script])
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run python");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(joined.join("\n").as_bytes())
            .expect("write");
    }
    let o = child.wait_with_output().expect("python");
    let text: String = serde_json::from_slice(&o.stdout).expect("json");
    let want: Vec<&str> = cases.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(text, want.join("\n"));
}
