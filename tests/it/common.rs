//! Shared helpers for integration tests: compile and render the example intents.
#![allow(dead_code)]

use aifab::compile::compile;
use aifab::intent::Intent;
use aifab::model::FabricModel;
use aifab::platform::Catalog;
use aifab::render::{Meta, OutFile, Renderer};
use std::path::Path;
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
    let files = match r.fabric(&Meta::for_intent_path(path, &m.name), &m, None) {
        Ok(f) => f,
        Err(e) => panic!("render {path} failed: {e:#?}"),
    };
    (m, files)
}

/// Every example intent in intents/ (not the locks beside them).
pub fn example_intents() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("intents")
        .expect("intents/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| p.to_string_lossy().into_owned())
        // `<intent>.lock.yaml` beside an intent is its allocation lock (docs/lock.md), not an intent.
        .filter(|p| !p.ends_with(".lock.yaml"))
        .collect();
    v.sort();
    v
}

/// Intents beside the examples that exercise what no example can: `tests/sonic/breakout-lossy.yaml`
/// breaks out ports on the SONiC SKUs that have breakout facts but no buffer numbers (so no lossless
/// class, which no example is without); `tests/sonic/sn5600-4x200g.yaml` runs lossless 4x200G
/// children on the NVIDIA SN5600 (the example covers 2x400G).
pub const EXTRA_INTENTS: [&str; 2] = [
    "tests/sonic/breakout-lossy.yaml",
    "tests/sonic/sn5600-4x200g.yaml",
];

/// The example intents and [`EXTRA_INTENTS`].
pub fn example_and_extra_intents() -> Vec<String> {
    let mut v = example_intents();
    v.extend(EXTRA_INTENTS.iter().map(|s| s.to_string()));
    v
}

/// The repository root, where the tests run and the example intents, goldens and docs are.
pub fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The built `aifab` binary as a command to complete, its file index cache under the tests' scratch
/// root ([`tmp_root`]), never the user's.
pub fn aifab_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aifab"));
    c.env("AIFAB_CACHE_DIR", tmp_root().join("aifab-cache"));
    c
}

/// Runs the built `aifab` binary like a user, from the repository root, without colors.
pub fn aifab(args: &[&str]) -> Output {
    aifab_command()
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run aifab")
}

/// `aifab diff <before...> <new> --format <format>` (`before`: the old intent, or `--against <rev>`) of
/// two intents that differ: asserts exit 1 and returns its standard output.
pub fn diff_of(before: &[&str], new: &Path, format: &str) -> String {
    let mut args = vec!["diff"];
    args.extend_from_slice(before);
    let new = new.to_string_lossy();
    args.extend_from_slice(&[&new, "--format", format]);
    let o = aifab(&args);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf8")
}

/// Runs the Python script `script` with `python`, the JSON `request` on its stdin; asserts it succeeds
/// (its stderr and `what` in the message) and returns its stdout read as JSON.
pub fn python_json<T: serde::de::DeserializeOwned>(
    python: &Path,
    script: &Path,
    request: &serde_json::Value,
    what: &str,
) -> T {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", script.display()));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.to_string().as_bytes())
        .expect("write request");
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed for {what}:\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{} output is not JSON: {e}", script.display()))
}

/// Whether this run is CI (`CI=true`, as `.ci/run` runs): there a missing prerequisite is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Checks an external prerequisite of a group of tests (a tool or data a fresh clone does not have).
/// Present: true. Missing under CI: the test fails, saying `why` and `how`. Missing elsewhere: one line
/// per test binary and `what` on the terminal (`skipped <what>: <why>; to run it: <how>`), then false,
/// and the caller returns early. The line goes straight to stderr, past the test harness's capture,
/// so it shows in a plain `cargo test`.
pub fn prerequisite(present: bool, what: &str, why: &str, how: &str) -> bool {
    use std::io::Write as _;
    use std::sync::Mutex;
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    if present {
        return true;
    }
    assert!(
        !in_ci(),
        "{what}: {why} (CI=true needs every test to run); {how}"
    );
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|w| w == what) {
        said.push(what.to_string());
        let _ = writeln!(std::io::stderr(), "skipped {what}: {why}; to run it: {how}");
    }
    false
}

/// The python the helper scripts of the tests run with: `$AIFAB_PYTHON`, else CI's venv
/// (`.ci/venv/bin/python`, which `.ci/run` creates), else `python3`; Some only when it can import
/// every module in `modules`.
pub fn python_with(modules: &[&str]) -> Option<std::path::PathBuf> {
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/venv/bin/python");
    let py = std::env::var_os("AIFAB_PYTHON")
        .map(std::path::PathBuf::from)
        .or_else(|| venv.is_file().then_some(venv))
        .unwrap_or_else(|| std::path::PathBuf::from("python3"));
    let import = format!("import {}", modules.join(", "));
    Command::new(&py)
        .args(["-c", &import])
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(py)
}

/// Runs `git -C dir <args>` with a throwaway identity and no signing, as the tests' scratch
/// repositories need; panics with git's message when it fails.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("run git");
    assert!(
        o.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every file under `dir`, recursively, sorted.
pub fn paths_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir` (path relative to it, bytes), sorted by path.
pub fn files_under(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = paths_under(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).expect("inside").to_string_lossy();
            (rel.into_owned(), std::fs::read(&p).expect("read file"))
        })
        .collect();
    out.sort();
    out
}

/// The names in folder `dir`, sorted.
pub fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Where tests put their scratch folders: cargo's per-target folder for integration tests
/// (`target/tmp`), never the system temp folder, so that `cargo clean` removes anything left.
pub fn tmp_root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// A scratch folder for one test: `target/tmp/aifab-<name>-<pid>`, emptied when made and removed when
/// dropped (with the spare folder a render beside it leaves), unless the test is failing: then it is
/// kept for a look and its path printed.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A fresh, empty scratch folder named `name` (unique per test process).
    pub fn new(name: &str) -> Scratch {
        let dir = tmp_root().join(format!("aifab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        Scratch(dir)
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept {} for a look", self.0.display());
            return;
        }
        let _ = std::fs::remove_dir_all(&self.0);
        if let (Some(parent), Some(name)) = (self.0.parent(), self.0.file_name()) {
            let spare = format!(".{}.aifab-spare", name.to_string_lossy());
            let _ = std::fs::remove_dir_all(parent.join(spare));
        }
    }
}

/// `name` in `$AIFAB_ANSIBLE_BIN` if that is set (and only there), else the first one on PATH.
pub fn find_tool(name: &str) -> Option<std::path::PathBuf> {
    match std::env::var_os("AIFAB_ANSIBLE_BIN") {
        Some(dir) => Some(std::path::PathBuf::from(&dir).join(name)).filter(|p| p.is_file()),
        None => std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        }),
    }
}
