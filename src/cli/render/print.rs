//! What `aifab render` prints of a transaction's outcome.

use super::super::{Exit, emit};
use aifab::publish::{Checked, Written};
use aifab::review::Status;
use std::path::Path;

/// Prints what a write kept of the user's and cleaned up, unless `quiet`.
pub(super) fn report(quiet: bool, out: &Path, report: &aifab::write::Report) {
    for n in &report.notes {
        eprintln!("warning: {n}");
    }
    if quiet {
        return;
    }
    for s in &report.stale {
        eprintln!(
            "note: removed {}, left by an interrupted render of a process that no longer runs",
            s.display()
        );
    }
    if !report.kept.is_empty() {
        let kept: Vec<&str> = report.kept.iter().map(String::as_str).collect();
        eprintln!(
            "note: kept {} aifab did not write, unchanged: {}",
            plural(kept.len(), "entry", "entries"),
            aifab::write::name_list(out, &kept)
        );
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What an `--out` render says once committed: the report, the lock written, the counts, the host
/// files' warning with `--only`, and a signal that came after the commit.
pub(super) fn written(
    quiet: bool,
    out: &Path,
    w: &Written,
    (devices, only, writes_hosts): (usize, bool, bool),
) -> Exit {
    report(quiet, out, &w.report);
    if !quiet {
        if let Some(l) = &w.lock {
            eprintln!(
                "{}: written with the output (commit it with the intent)",
                l.display()
            );
        }
        eprintln!(
            "{}: {devices} devices, {} files, {} bytes written",
            out.display(),
            w.files.0,
            w.files.1
        );
    }
    hosts_warning(out, only, writes_hosts);
    // A signal that came while this was printed counts as one that came after the commit.
    match w.interrupted.or_else(aifab::write::interrupt::pending) {
        Some(sig) => {
            eprintln!(
                "{}: the render had committed when {} came: {} and its lock are complete",
                out.display(),
                aifab::write::interrupt::name(sig),
                out.display()
            );
            Exit::Interrupted(sig)
        }
        None => Exit::Success,
    }
}

/// With `--only`: warns that the host files are the last full render's (or left from one).
fn hosts_warning(out: &Path, only: bool, writes_hosts: bool) {
    // A narrowed render carries the host files of the last full one over unchanged.
    if !only || !out.join("hosts").is_dir() {
        return;
    }
    let hosts = out.join("hosts");
    if writes_hosts {
        eprintln!(
            "warning: --only renders no host file: {} is the last full render's; after a change to the QoS classes, the addressing or `hosts`, render without --only before installing it",
            hosts.display()
        );
    } else {
        eprintln!(
            "warning: --only kept {} from an earlier render, but this intent writes no host files: render without --only to remove it",
            hosts.display()
        );
    }
}

/// What `--check` says: the lock's staleness, each difference (a unified diff, or which side alone
/// has the file) and the count, or that the files are identical; `--bless` what it rewrote.
pub(super) fn checked(intent: &str, quiet: bool, dir: &Path, checked: &Checked) -> Exit {
    let (diffs, stale, files) = match checked {
        Checked::Blessed { report: r, changed } => {
            report(quiet, dir, r);
            eprintln!("{}: blessed {changed} changed files", dir.display());
            return Exit::Success;
        }
        Checked::Compared {
            diffs,
            stale,
            files,
        } => (diffs, stale, files),
    };
    if let Some(s) = stale {
        eprintln!("{}", aifab::publish::lock::stale_message(intent, s));
    }
    if !diffs.is_empty() {
        for d in diffs {
            match d.status {
                Status::Added => emit(&format!("only in new output: {}\n", d.path)),
                Status::Removed => emit(&format!("only in {}: {}\n", dir.display(), d.path)),
                Status::Changed => emit(&d.diff),
            }
        }
        eprintln!("{}: {} files differ", dir.display(), diffs.len());
        return Exit::Differs;
    }
    if stale.is_some() {
        return Exit::Differs;
    }
    if !quiet {
        eprintln!("{}: {files} files identical", dir.display());
    }
    Exit::Success
}
