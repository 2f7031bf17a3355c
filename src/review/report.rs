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
    /// Server files (`hosts/`) added, removed or changed: they go to the servers, not the switches.
    pub host_files_changed: usize,
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
        host_files_changed: files
            .iter()
            .filter(|f| crate::hosts::is_host_path(&f.path))
            .count(),
    }
}

/// The line that says server files changed too, when they did.
fn host_line(t: &Totals) -> Option<String> {
    (t.host_files_changed > 0).then(|| {
        format!(
            "{} server files under hosts/ changed: install them again (ansible/hosts.yml on the servers, kubectl apply for hosts/kubernetes/)",
            t.host_files_changed
        )
    })
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
    if let Some(h) = host_line(t) {
        let _ = writeln!(s, "{h}");
    }
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

/// Characters a Markdown comment takes at most by default: a pull-request comment holds at most 65,536.
pub const MARKDOWN_BUDGET: usize = 60_000;

/// Smallest budget a comment can be made in (the totals and the closing notes).
pub const MARKDOWN_MIN_BUDGET: usize = 4_000;

/// Room kept for the closing notes of a comment that had to leave blocks out.
const CLOSING_ROOM: usize = 1_500;

/// A comment filled block by block within a budget: a block (a table row, a diff) goes in whole or not
/// at all, so the comment is never cut in the middle of a table or a code block.
struct Comment {
    s: String,
    budget: usize,
}

impl Comment {
    /// Adds `block` when it fits, leaving room for the closing notes.
    fn add(&mut self, block: &str) -> bool {
        let fits = self.s.len() + block.len() + CLOSING_ROOM <= self.budget;
        if fits {
            self.s.push_str(block);
        }
        fits
    }
}

/// Markdown for a pull-request comment of at most `budget` bytes (so at most as many characters):
/// totals, the change report as a table, the topology `picture` (a Mermaid flowchart of the switches
/// and links the change adds or removes, see [`crate::picture::Picture::changes`]), a per-file table,
/// then collapsible per-file diffs. What does not fit is left out whole and summed up at the end
/// (counts and the first devices).
pub fn markdown(
    old: &str,
    new: &str,
    t: &Totals,
    changes: &[Change],
    files: &[FileChange],
    picture: Option<&str>,
    budget: usize,
) -> String {
    let mut c = Comment {
        s: String::new(),
        budget: budget.max(MARKDOWN_MIN_BUDGET),
    };
    let _ = writeln!(c.s, "### aifab diff: `{old}` → `{new}`\n");
    let _ = writeln!(
        c.s,
        "**{} devices changed** ({} added, {} removed), **+{} −{}** lines.\n",
        t.devices_changed, t.devices_added, t.devices_removed, t.lines_added, t.lines_removed
    );
    if let Some(h) = host_line(t) {
        let _ = writeln!(c.s, "{h}.\n");
    }
    let rows_left = markdown_changes(&mut c, changes);
    let picture_left = picture.is_some_and(|m| {
        !c.add(&format!(
            "#### Topology\n\nSwitches and links added (green), removed (red, dashed) or re-counted (orange), with their unchanged neighbours:\n\n```mermaid\n{m}```\n\n"
        ))
    });
    if picture_left {
        let _ = writeln!(
            c.s,
            "The topology picture did not fit (`aifab plan --format mermaid` draws the new side).\n"
        );
    }
    if files.is_empty() {
        let _ = writeln!(c.s, "No rendered file changes.");
        return c.s;
    }
    // Files whose hunks are identical (the same change on many switches) are shown once.
    let groups = group_identical(files);
    let files_left = markdown_file_table(&mut c, &groups);
    let mut shown = 0;
    for g in groups.iter().take(MARKDOWN_MAX_FILES) {
        if !c.add(&markdown_diff(g)) {
            break;
        }
        shown += 1;
    }
    closing_notes(&mut c.s, rows_left, files_left, &groups[shown..]);
    c.s
}

/// The closing notes of a comment: what the budget left out, with the first devices of the diffs not
/// shown.
fn closing_notes(s: &mut String, rows_left: usize, files_left: usize, hidden: &[Vec<&FileChange>]) {
    if rows_left > 0 {
        let _ = writeln!(
            s,
            "{rows_left} more changes of the report not shown (`aifab diff --format json` has them all)."
        );
    }
    if files_left > 0 {
        let _ = writeln!(s, "{files_left} more rows of the file table not shown.");
    }
    if hidden.is_empty() {
        return;
    }
    let mut devices: Vec<&str> = Vec::new();
    for f in hidden.iter().flatten() {
        if !f.device.is_empty() && !devices.contains(&f.device.as_str()) {
            devices.push(&f.device);
        }
    }
    let first: Vec<&str> = devices.iter().take(8).copied().collect();
    let more = devices.len().saturating_sub(first.len());
    let _ = writeln!(
        s,
        "{} more diffs not shown ({} files{}{}); run `aifab diff` locally for every diff.",
        hidden.len(),
        hidden.iter().map(Vec::len).sum::<usize>(),
        if first.is_empty() {
            String::new()
        } else {
            format!(", devices {}", first.join(", "))
        },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
}

/// The change report as a table (nothing when no rule fired); returns how many rows did not fit.
fn markdown_changes(c: &mut Comment, changes: &[Change]) -> usize {
    if changes.is_empty() {
        return 0;
    }
    let head = "#### What this means for the lossless fabric\n\n| impact | change |\n|---|---|\n";
    if !c.add(head) {
        return changes.len();
    }
    let mut left = changes.len();
    for ch in changes {
        let row = format!(
            "| {} | {} |\n",
            ch.impact.label(),
            ch.summary.replace('|', "\\|")
        );
        if !c.add(&row) {
            break;
        }
        left -= 1;
    }
    c.s.push('\n');
    left
}

/// One row per group of identical file changes; returns how many rows did not fit.
fn markdown_file_table(c: &mut Comment, groups: &[Vec<&FileChange>]) -> usize {
    if !c.add("#### Files\n\n| files | status | + | − |\n|---|---|---:|---:|\n") {
        return groups.len();
    }
    let mut left = groups.len();
    for g in groups {
        let f = g[0];
        let row = format!(
            "| {} | {} | {} | {} |\n",
            names(g),
            f.status.as_str(),
            f.added,
            f.removed
        );
        if !c.add(&row) {
            break;
        }
        left -= 1;
    }
    c.s.push('\n');
    left
}

/// One group's diff in a collapsible block (code fences in the diff are broken up).
fn markdown_diff(g: &[&FileChange]) -> String {
    let mut s = String::new();
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
    s
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
