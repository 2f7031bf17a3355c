//! Writes that survive a power cut, and the edges of a render's I/O (issue 47): the order of fsyncs and
//! renames of a render, read from the system calls under strace (each file written fsynced before the
//! swap that publishes it, the folders around the swap, the staged lock and the journal before it, the
//! lock's folder before the journal goes; for `--only`, the staged files and the `commit` journal
//! before the first rename, the folders renamed into before the journal goes); SIGQUIT stops a render as SIGTERM does; a read-only output
//! folder or parent is refused with nothing left behind; a full disk under stdout or stderr ends with
//! exit code 2, not a panic.
//!
//! The strace tests need `strace` (Debian's `strace`, which `.ci/run` installs): without it they print
//! one line and skip; under `CI=true` they fail.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch folder holding `fab.yaml`, a copy of three-tier-small.yaml (its lock: `fab.lock.yaml`).
fn scratch(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("durable-{name}"));
    std::fs::copy("intents/three-tier-small.yaml", d.join("fab.yaml")).expect("copy");
    d
}

/// aifab in `dir`, its index cache in `dir/cache` (removed with the scratch folder).
fn aifab_in(dir: &Path, args: &[&str]) -> Command {
    let mut c = common::aifab_command();
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", dir.join("cache"));
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn render_ok(dir: &Path) {
    let o = aifab_in(dir, &["render", "fab.yaml", "--out", "out", "-q"])
        .output()
        .expect("run aifab");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Grows fab.yaml by a zone: the lock changes.
fn grow(d: &Path) {
    let p = d.join("fab.yaml");
    let mut t = std::fs::read_to_string(&p).expect("read");
    for (from, to) in [
        ("servers: 16", "servers: 24"),
        ("zones: 2", "zones: 3"),
        ("65020-65021", "65020-65022"),
    ] {
        assert!(t.contains(from), "no `{from}`");
        t = t.replacen(from, to, 1);
    }
    std::fs::write(&p, t).expect("write");
}

/// Every regular file under `dir` (relative path, bytes) and every folder (relative path, `/` last),
/// sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).expect("inside").to_string_lossy();
            if e.file_type().expect("type").is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                todo.push(p);
            } else {
                out.push((rel.into_owned(), std::fs::read(&p).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// The names in `dir` an interrupted or refused render could leave: temporary folders, staged locks,
/// journals.
fn leftovers(dir: &Path) -> Vec<String> {
    common::names(dir)
        .into_iter()
        .filter(|n| n.contains("aifab-tmp") || n.contains("aifab-old") || n.contains("journal"))
        .collect()
}

/// Output and lock, as a pair.
type State = (Vec<(String, Vec<u8>)>, Option<Vec<u8>>);

fn state(d: &Path) -> State {
    (
        tree(&d.join("out")),
        std::fs::read(d.join("fab.lock.yaml")).ok(),
    )
}

// ---------------------------------------------------------------------------------------------------
// The order under strace.

/// One system call of the trace, complete (an `<unfinished ...>` call joined with its resumption, at
/// the place it returned).
#[derive(Debug)]
struct Call {
    name: String,
    /// The paths it names: the descriptor's path (`strace -y`) for fsync, the quoted paths otherwise,
    /// made absolute against the folder aifab ran in.
    paths: Vec<PathBuf>,
    ok: bool,
}

/// Parses `strace -f -y -qq` output: each call where it completed.
fn parse(trace: &str, cwd: &Path) -> Vec<Call> {
    let mut open: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    let mut calls = Vec::new();
    for line in trace.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let whole = if let Some(start) = rest.strip_suffix(" <unfinished ...>") {
            open.insert(pid, start.to_string());
            continue;
        } else if let Some(tail) = rest.strip_prefix("<... ") {
            let tail = tail.split_once(" resumed>").map_or("", |(_, t)| t);
            format!("{}{tail}", open.remove(pid).unwrap_or_default())
        } else {
            rest.to_string()
        };
        let Some((name, args)) = whole.split_once('(') else {
            continue;
        };
        let result = whole.rsplit_once(" = ").map_or("", |(_, r)| r.trim());
        calls.push(Call {
            name: name.to_string(),
            paths: paths_of(name, args, cwd),
            ok: result.starts_with('0') || (name == "openat" && !result.starts_with('-')),
        });
    }
    calls
}

/// The paths a call names: `fsync(3</a/b>)` gives `/a/b`; `rename("x", "y")` gives `cwd/x`, `cwd/y`.
fn paths_of(name: &str, args: &str, cwd: &Path) -> Vec<PathBuf> {
    if name.contains("sync") {
        let path = args
            .split_once('<')
            .and_then(|(_, r)| r.split_once('>'))
            .map(|(p, _)| PathBuf::from(p));
        return path.into_iter().collect();
    }
    args.split('"')
        .skip(1)
        .step_by(2)
        .map(|p| {
            let p = p.strip_prefix("./").unwrap_or(p);
            if p.starts_with('/') {
                PathBuf::from(p)
            } else {
                cwd.join(p)
            }
        })
        .collect()
}

impl Call {
    fn is(&self, name: &str, path: &Path) -> bool {
        self.ok && self.name.starts_with(name) && self.paths.first().is_some_and(|p| p == path)
    }
    fn renames(&self, from_prefix: &str, to: &Path) -> bool {
        self.ok
            && self.name.starts_with("rename")
            && self.paths.len() == 2
            && self.paths[1] == to
            && self.paths[0]
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(from_prefix))
    }
}

/// Whether strace runs here (after printing the one skip line; under CI a missing strace fails).
fn have_strace() -> bool {
    // Tracing `true` proves strace is installed and may trace here (a container can refuse ptrace).
    let present = Command::new("strace")
        .args(["-qq", "-e", "trace=none", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    common::prerequisite(
        present,
        "the fsync-order tests (tests/it/durable.rs)",
        "strace is not installed or may not trace here",
        "apt-get install strace, or run .ci/run",
    )
}

/// Runs `aifab render fab.yaml --out out` in `dir` under strace; returns its calls and the folder.
fn traced_render(dir: &Path) -> (Vec<Call>, PathBuf) {
    traced(dir, &[])
}

/// [`traced_render`] with `extra` arguments.
fn traced(dir: &Path, extra: &[&str]) -> (Vec<Call>, PathBuf) {
    let dir = std::fs::canonicalize(dir).expect("canonical");
    let log = dir.with_extension("strace");
    let exe = common::aifab_command().get_program().to_owned();
    let o = Command::new("strace")
        .args(["-f", "-y", "-qq", "-o"])
        .arg(&log)
        .args([
            "-e",
            "trace=fsync,fdatasync,sync_file_range,syncfs,rename,renameat,renameat2,unlink,unlinkat,openat",
        ])
        .arg(&exe)
        .args(["render", "fab.yaml", "--out", "out", "-q"])
        .args(extra)
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", dir.join("cache"))
        .output()
        .expect("run strace");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let trace = std::fs::read_to_string(&log).expect("the trace");
    let _ = std::fs::remove_file(&log);
    (parse(&trace, &dir), dir)
}

/// Position of the first call matching `f`, with a message naming what is missing.
fn first(calls: &[Call], what: &str, f: impl Fn(&Call) -> bool) -> usize {
    calls
        .iter()
        .position(f)
        .unwrap_or_else(|| panic!("no {what} in the trace"))
}

/// A first render (the lock is new: staged, journaled, renamed): every file and folder of the new
/// output synced before the rename that publishes it, the parent folder before and after it, the
/// staged lock and the journal before it, the lock's folder after the lock's rename, the journal
/// removed after that. A second render of the same intent links every file: none but the manifest is
/// synced again, and the folders still are, before the exchange.
#[cfg(target_os = "linux")]
#[test]
fn a_render_syncs_every_file_and_folder_before_it_publishes_them() {
    if !have_strace() {
        return;
    }
    let d = scratch("order");
    let (calls, dir) = traced_render(&d);
    let out = dir.join("out");
    let swap = first(&calls, "swap of the output", |c| {
        c.renames(".out.aifab-tmp-", &out)
    });
    let tmp = calls[swap].paths[0].clone();
    let synced_before = |path: &Path, end: usize| calls[..end].iter().any(|c| c.is("fsync", path));
    for (rel, _) in tree(&out) {
        let staged = tmp.join(rel.trim_end_matches('/'));
        assert!(
            synced_before(&staged, swap),
            "{} fsynced before the swap",
            staged.display()
        );
    }
    assert!(synced_before(&tmp, swap), "the temporary folder itself");
    let lock = dir.join("fab.lock.yaml");
    let lock_rename = first(&calls, "rename of the staged lock", |c| {
        c.renames(".fab.lock.yaml.aifab-tmp-", &lock)
    });
    let staged_lock = calls[lock_rename].paths[0].clone();
    let journal = dir.join(".fab.lock.yaml.aifab-journal");
    let lock_synced = first(&calls, "fsync of the staged lock", |c| {
        c.is("fsync", &staged_lock)
    });
    let journal_synced = first(&calls, "fsync of the journal", |c| c.is("fsync", &journal));
    let parent_syncs: Vec<usize> = (0..calls.len())
        .filter(|&i| calls[i].is("fsync", &dir))
        .collect();
    let journal_gone = first(&calls, "removal of the journal", |c| {
        c.is("unlink", &journal)
    });
    assert!(lock_synced < journal_synced && journal_synced < swap);
    assert!(
        parent_syncs.iter().any(|&i| journal_synced < i && i < swap),
        "the folder of the lock and journal synced before the swap"
    );
    assert!(
        parent_syncs.iter().any(|&i| swap < i && i < lock_rename),
        "the output's parent synced after the swap, before the lock moves"
    );
    assert!(
        parent_syncs
            .iter()
            .any(|&i| lock_rename < i && i < journal_gone),
        "the lock's folder synced after its rename, before the journal goes"
    );
    // The journal goes last: nothing of the commit in this folder after it.
    let cache = dir.join("cache");
    let late = calls[journal_gone + 1..].iter().find(|c| {
        c.ok && c.name != "openat"
            && c.paths
                .iter()
                .any(|p| p.starts_with(&dir) && !p.starts_with(&cache) && !p.starts_with(&tmp))
    });
    assert!(late.is_none(), "after the journal's removal: {late:?}");

    // Again, unchanged: every file linked from the previous output, none synced again.
    let (calls, _) = traced_render(&d);
    let swap = first(&calls, "exchange of the output", |c| {
        c.renames(".out.aifab-tmp-", &out)
    });
    let tmp = calls[swap].paths[0].clone();
    let out_tree = tree(&out);
    let synced: Vec<PathBuf> = out_tree
        .iter()
        .filter(|(r, _)| !r.ends_with('/'))
        .map(|(r, _)| tmp.join(r))
        .filter(|p| calls[..swap].iter().any(|c| c.is("fsync", p)))
        .collect();
    assert_eq!(
        synced,
        vec![tmp.join(".aifab-output")],
        "only the manifest is written anew"
    );
    for (rel, _) in out_tree.iter().filter(|(r, _)| r.ends_with('/')) {
        let staged = tmp.join(rel.trim_end_matches('/'));
        assert!(
            calls[..swap].iter().any(|c| c.is("fsync", &staged)),
            "{} (its links are new names) fsynced before the exchange",
            staged.display()
        );
    }
    assert!(
        calls[swap + 1..].iter().any(|c| c.is("fsync", &dir)),
        "the output's parent synced after the exchange"
    );
}

// ---------------------------------------------------------------------------------------------------
// SIGQUIT, read-only folders, full disks.

/// SIGQUIT while the render fills its folder removes what it created (exit 131, nothing changed);
/// after the swap the commit finishes first (output and lock the new pair).
#[cfg(unix)]
#[test]
fn sigquit_stops_a_render_as_sigterm_does() {
    for (point, commits) in [("fill", false), ("swapped", true)] {
        let d = scratch(&format!("quit-{point}"));
        render_ok(&d);
        let before = state(&d);
        grow(&d);
        let o = aifab_in(&d, &["render", "fab.yaml", "--out", "out", "-q"])
            .env(aifab::write::interrupt::SIGNAL_AT_ENV, point)
            .env(aifab::write::interrupt::SIGNAL_ENV, "QUIT")
            .output()
            .expect("run aifab");
        let said = text(&o);
        assert_eq!(o.status.code(), Some(128 + 3), "{point}: {said}");
        assert!(said.contains("SIGQUIT"), "{point}: {said}");
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{point}");
        let after = state(&d);
        if commits {
            assert_ne!(after.1, before.1, "{point}: the new lock");
            let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
            let hash = format!(
                "{:032x}",
                xxhash_rust::xxh3::xxh3_128(after.1.as_deref().unwrap_or_default())
            );
            assert!(manifest.contains(&hash), "{point}: the pair matches");
        } else {
            assert!(after == before, "{point}: nothing changed");
        }
    }
}

/// An output folder that is read-only (permissions without any write bit: refused for root too), or
/// one whose parent is, is refused before anything is staged: the output, the lock and the folder
/// around them stay exactly as they were.
#[cfg(unix)]
#[test]
fn a_read_only_output_folder_or_parent_is_refused_leaving_nothing() {
    use std::os::unix::fs::PermissionsExt as _;
    let chmod = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    let d = scratch("read-only");
    render_ok(&d);
    grow(&d);
    let out = d.join("out");
    for (locked, out_arg) in [(out.clone(), "out"), (d.join("site"), "site/out")] {
        std::fs::create_dir_all(d.join("site")).expect("site");
        let before = (state(&d), common::names(&d), common::names(&d.join("site")));
        chmod(&locked, 0o555);
        let o = aifab_in(&d, &["render", "fab.yaml", "--out", out_arg, "-q"])
            .output()
            .expect("run aifab");
        chmod(&locked, 0o755);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out_arg}: {said}");
        assert!(said.contains("read-only"), "{out_arg}: {said}");
        let after = (state(&d), common::names(&d), common::names(&d.join("site")));
        assert!(
            after == before,
            "{out_arg}: nothing changed or left: {said}"
        );
    }
}

/// stdout or stderr on a full disk (`/dev/full`): exit code 2, never a panic (101).
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_under_stdout_or_stderr_ends_with_a_code_not_a_panic() {
    let d = scratch("full");
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    for args in [
        &["render", "fab.yaml", "--out", "out"][..],
        &["plan", "fab.yaml"],
        &["validate", "fab.yaml"],
    ] {
        let o = aifab_in(&d, args)
            .stderr(full())
            .output()
            .expect("run aifab");
        assert_eq!(o.status.code(), Some(2), "{args:?} 2>/dev/full");
    }
    for args in [&["compile", "fab.yaml"][..], &["plan", "fab.yaml"]] {
        let o = aifab_in(&d, args)
            .stdout(full())
            .output()
            .expect("run aifab");
        let said = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?} >/dev/full: {said}");
        assert!(!said.contains("panicked"), "{said}");
        assert!(said.contains("No space left"), "{said}");
    }
}

/// A render of one switch (`--only`) in place: each staged file fsynced before the `commit` journal
/// is put in place, the journal and its folder fsynced before the first rename into the output, and
/// every folder renamed into fsynced before the journal is removed.
#[cfg(target_os = "linux")]
#[test]
fn an_only_render_in_place_syncs_before_each_step() {
    if !have_strace() {
        return;
    }
    let d = scratch("only");
    render_ok(&d);
    let p = d.join("fab.yaml");
    let t = std::fs::read_to_string(&p).expect("read");
    assert!(t.contains("mtu: 9214"), "three-tier-small sets mtu 9214");
    std::fs::write(&p, t.replacen("mtu: 9214", "mtu: 9100", 1)).expect("write");
    let (calls, dir) = traced(&d, &["--only", "z1-g1-r1"]);
    let out = dir.join("out");
    let journal = dir.join(".out.aifab-journal");
    let into_place: Vec<usize> = (0..calls.len())
        .filter(|&i| {
            let c = &calls[i];
            c.ok && c.name.starts_with("rename")
                && c.paths.len() == 2
                && c.paths[1].starts_with(&out)
                && c.paths[0].to_string_lossy().contains(".out.aifab-only-")
        })
        .collect();
    assert!(
        !into_place.is_empty(),
        "the leaf's config renamed into place"
    );
    let (first_in, last_in) = (into_place[0], into_place[into_place.len() - 1]);
    let decided = first(&calls, "the commit journal put in place", |c| {
        c.ok && c.name.starts_with("rename") && c.paths.get(1) == Some(&journal)
    });
    for &i in &into_place {
        let staged = &calls[i].paths[0];
        assert!(
            calls[..decided].iter().any(|c| c.is("fsync", staged)),
            "{} fsynced before the journal decides",
            staged.display()
        );
    }
    let synced_journal = first(&calls, "fsync of the journal", |c| c.is("fsync", &journal));
    assert!(decided < synced_journal && synced_journal < first_in);
    assert!(
        calls[synced_journal..first_in]
            .iter()
            .any(|c| c.is("fsync", &dir)),
        "the journal's folder synced before the first rename"
    );
    let gone = first(&calls, "removal of the journal", |c| {
        c.is("unlink", &journal)
    });
    for &i in &into_place {
        let folder = calls[i].paths[1].parent().expect("a folder");
        assert!(
            calls[last_in..gone].iter().any(|c| c.is("fsync", folder)),
            "{} synced after the renames, before the journal goes",
            folder.display()
        );
    }
}
