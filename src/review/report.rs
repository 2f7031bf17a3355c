//! Formats a diff between two renders for people (text, a pull-request comment in Markdown) and for
//! pipelines (JSON).

use super::FileChange;
use super::change::Change;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Most file diffs a Markdown comment shows (GitHub comments are limited to 65,536 characters).
pub const MARKDOWN_MAX_FILES: usize = 40;

/// Totals of a diff.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Totals {
    /// Devices with at least one changed file.
    pub devices_changed: usize,
    /// Devices only in the new render.
    pub devices_added: usize,
    /// Devices only in the old render.
    pub devices_removed: usize,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
}

/// Counts devices and lines; `old_devices` / `new_devices` are the hostnames of each side.
pub fn totals(
    files: &[FileChange],
    old_devices: &BTreeSet<String>,
    new_devices: &BTreeSet<String>,
) -> Totals {
    let changed: BTreeSet<&str> = files
        .iter()
        .filter(|f| !f.device.is_empty())
        .map(|f| f.device.as_str())
        .collect();
    Totals {
        devices_changed: changed.len(),
        devices_added: new_devices.difference(old_devices).count(),
        devices_removed: old_devices.difference(new_devices).count(),
        lines_added: files.iter().map(|f| f.added).sum(),
        lines_removed: files.iter().map(|f| f.removed).sum(),
    }
}

/// Plain text: totals, the change report, then every unified diff.
pub fn text(old: &str, new: &str, t: &Totals, changes: &[Change], files: &[FileChange]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "aifab diff {old} → {new}");
    let _ = writeln!(
        s,
        "{} devices changed ({} added, {} removed), +{} -{} lines",
        t.devices_changed, t.devices_added, t.devices_removed, t.lines_added, t.lines_removed
    );
    if !changes.is_empty() {
        let _ = writeln!(s, "\nWhat this means for the lossless fabric:");
        for c in changes {
            let _ = writeln!(s, "  [{}] {}", c.impact.label(), c.summary);
        }
    }
    for f in files {
        let _ = writeln!(s);
        s.push_str(&f.diff);
    }
    s
}

/// Markdown for a pull-request comment: totals, the change report as a table, a per-file table, then
/// collapsible per-file diffs.
pub fn markdown(
    old: &str,
    new: &str,
    t: &Totals,
    changes: &[Change],
    files: &[FileChange],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### aifab diff: `{old}` → `{new}`\n");
    let _ = writeln!(
        s,
        "**{} devices changed** ({} added, {} removed), **+{} −{}** lines.\n",
        t.devices_changed, t.devices_added, t.devices_removed, t.lines_added, t.lines_removed
    );
    markdown_changes(&mut s, changes);
    if files.is_empty() {
        let _ = writeln!(s, "No rendered file changes.");
        return s;
    }
    // Files whose hunks are identical (the same change on many switches) are shown once.
    let groups = group_identical(files);
    markdown_file_table(&mut s, &groups);
    for g in groups.iter().take(MARKDOWN_MAX_FILES) {
        markdown_diff(&mut s, g);
    }
    if groups.len() > MARKDOWN_MAX_FILES {
        let _ = writeln!(
            s,
            "{} more changes not shown; run `aifab diff` locally for every diff.",
            groups.len() - MARKDOWN_MAX_FILES
        );
    }
    s
}

/// The change report as a table (nothing when no rule fired).
fn markdown_changes(s: &mut String, changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    let _ = writeln!(s, "#### What this means for the lossless fabric\n");
    let _ = writeln!(s, "| impact | change |");
    let _ = writeln!(s, "|---|---|");
    for c in changes {
        let _ = writeln!(
            s,
            "| {} | {} |",
            c.impact.label(),
            c.summary.replace('|', "\\|")
        );
    }
    let _ = writeln!(s);
}

/// One row per group of identical file changes.
fn markdown_file_table(s: &mut String, groups: &[Vec<&FileChange>]) {
    let _ = writeln!(s, "#### Files\n");
    let _ = writeln!(s, "| files | status | + | − |");
    let _ = writeln!(s, "|---|---|---:|---:|");
    for g in groups {
        let f = g[0];
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            names(g),
            f.status.as_str(),
            f.added,
            f.removed
        );
    }
    let _ = writeln!(s);
}

/// One group's diff in a collapsible block (code fences in the diff are broken up).
fn markdown_diff(s: &mut String, g: &[&FileChange]) {
    let f = g[0];
    let title = if g.len() == 1 {
        format!("<code>{}</code>", f.path)
    } else {
        format!("{} files with the same change", g.len())
    };
    let _ = writeln!(
        s,
        "<details><summary>{title} (+{} −{})</summary>\n",
        f.added, f.removed
    );
    if g.len() > 1 {
        let _ = writeln!(s, "{}\n", names(g));
    }
    let _ = writeln!(s, "```diff");
    s.push_str(&f.diff.replace("```", "`\u{200b}``"));
    if !f.diff.ends_with('\n') {
        s.push('\n');
    }
    let _ = writeln!(s, "```\n\n</details>\n");
}

/// Groups files whose diffs are the same once the file names are taken out, in first-seen order.
fn group_identical(files: &[FileChange]) -> Vec<Vec<&FileChange>> {
    let mut groups: Vec<(String, Vec<&FileChange>)> = Vec::new();
    for f in files {
        let body: String = f.diff.lines().skip(2).collect::<Vec<_>>().join("\n");
        let key = format!("{:?}|{body}", f.status);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// `a.cfg`, or `a.cfg, b.cfg … z.cfg (12)` for a group.
fn names(g: &[&FileChange]) -> String {
    match g.len() {
        1 => format!("`{}`", g[0].path),
        2 | 3 => g
            .iter()
            .map(|f| format!("`{}`", f.path))
            .collect::<Vec<_>>()
            .join(", "),
        n => format!(
            "`{}`, `{}` … `{}` ({n})",
            g[0].path,
            g[1].path,
            g[n - 1].path
        ),
    }
}

/// JSON for pipelines.
pub fn json(old: &str, new: &str, t: &Totals, changes: &[Change], files: &[FileChange]) -> String {
    let v = serde_json::json!({
        "old": old,
        "new": new,
        "totals": t,
        "changes": changes,
        "files": files,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
