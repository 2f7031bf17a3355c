//! What `aifab drift` prints: per device what a push changes, and what was not compared.

use super::Compared;
use aifab::delivery::{Mark, mask::mask};
use std::fmt::Write as _;
use std::path::Path;

/// Per device: a summary line, then (unless `summary`) the changed lines and the kept sections, every
/// secret value masked.
pub(super) fn report(compared: &[Compared], summary: bool) {
    let mut out = String::new();
    for c in compared {
        let d = &c.drift;
        let kept_lines: usize = d.kept.iter().map(|s| s.lines.len()).sum();
        let _ = write!(
            out,
            "{} ({}): {} line(s) added, {} owned line(s) removed, {} section(s) kept ({kept_lines} lines)",
            c.host,
            c.os,
            d.added,
            d.removed,
            d.kept.len()
        );
        let _ = match d.unverified {
            0 => writeln!(out),
            n => writeln!(out, ", {n} secret value(s) not compared"),
        };
        if summary {
            continue;
        }
        for (mark, line) in &d.lines {
            let sign = match mark {
                Mark::Context => ' ',
                Mark::Added => '+',
                Mark::Removed => '-',
            };
            let _ = writeln!(out, "  {sign} {}", mask(line));
        }
        for s in &d.kept {
            let more = s.lines.len() - 1;
            let tail = if more > 0 {
                format!(" (+{more} lines)")
            } else {
                String::new()
            };
            let _ = writeln!(out, "  = {}{tail}", mask(&s.lines[0]));
        }
    }
    super::super::emit(&out);
}

/// The totals, and the devices not compared, on stderr.
pub(super) fn footer(compared: &[Compared], missing: &[String], skipped: &[String], dir: &Path) {
    let changed = compared.iter().filter(|c| !c.drift.unchanged()).count();
    eprintln!(
        "{} device(s) compared: {changed} change, {} unchanged",
        compared.len(),
        compared.len() - changed
    );
    let some = |v: &[String]| {
        let mut s = v.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if v.len() > 5 {
            let _ = write!(s, " and {} more", v.len() - 5);
        }
        s
    };
    let unverified: usize = compared.iter().map(|c| c.drift.unverified).sum();
    if unverified > 0 {
        eprintln!(
            "note: {unverified} secret value(s) not compared (give --secrets FILE / set the env variables, and fetch <host>.engineid for SNMPv3 keys)"
        );
    }
    if !missing.is_empty() {
        eprintln!(
            "warning: no running-config in {} for {} device(s), not compared: {}",
            dir.display(),
            missing.len(),
            some(missing)
        );
    }
    if !skipped.is_empty() {
        eprintln!(
            "note: {} device(s) of an OS whose sections or tables aifab does not own, not compared: {}",
            skipped.len(),
            some(skipped)
        );
    }
}
