//! `aifab validate`: loads, schema-checks and rule-checks intents, and prints every finding.

mod check;
mod print;

pub(super) use check::*;
use print::*;

use super::Exit;
use aifab::diag::render;
use aifab::diag::{Finding, Source};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Output format of `aifab validate`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// Reports for people, on stderr: `file:line:col`, the source line underlined, a hint.
    #[default]
    Text,
    /// A JSON array of findings, on stdout.
    Json,
    /// A SARIF 2.1.0 log, on stdout.
    Sarif,
}

/// Arguments of `aifab validate`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent files to check. A lock file (`<stem>.lock.yaml`) is checked as its intent's lock:
    /// `aifab validate intents/*.yaml` checks every intent and lock once.
    #[arg(required = true, value_name = "INTENT")]
    pub intents: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only what needs reading: no `<file>: valid` lines, and not the exceptions the intent
    /// acknowledges itself (AIF-ACK-003, whose reasons the intent's reviewers already read).
    #[arg(long, short)]
    pub quiet: bool,
    /// Check the intent alone, without the allocation lock beside it.
    #[arg(long)]
    pub no_lock: bool,
    /// Site platforms and templates (templates are parsed, so a broken one fails here).
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// What a file given to `validate` is: an intent, or an allocation lock (`<stem>.lock.yaml`, as
/// [`aifab::lock::path_for`] names it), which is checked with its intent.
#[derive(Debug, PartialEq, Eq)]
enum LockArg {
    /// An intent: checked as one.
    Intent,
    /// A lock whose intent is given too: checked with it, nothing more to do.
    CheckedWith(PathBuf),
    /// A lock whose intent is beside it but not given: the intent is checked (with the lock).
    Of(PathBuf),
    /// A lock without an intent beside it.
    Orphan(String),
}

/// Whether `given` is a lock (its name ends in `.lock.yaml` and an intent `<stem>.yaml` or
/// `<stem>.yml` beside it has it as its lock), and where its intent is.
fn as_lock(given: &Path, all: &[PathBuf]) -> LockArg {
    let Some(stem) = given
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".lock.yaml"))
    else {
        return LockArg::Intent;
    };
    let candidates = [".yaml", ".yml"].map(|ext| given.with_file_name(format!("{stem}{ext}")));
    if let Some(intent) = candidates.iter().find(|c| all.contains(c)) {
        return LockArg::CheckedWith(intent.clone());
    }
    match candidates.into_iter().find(|c| c.is_file()) {
        Some(intent) => LockArg::Of(intent),
        None => LockArg::Orphan(format!(
            "an allocation lock without its intent {stem}.yaml beside it: validate the intent, which checks its lock (docs/lock.md)"
        )),
    }
}

/// Runs `aifab validate`: exit 0 when no file has an error, 1 when one has, 2 when a file cannot be read.
pub(super) fn run(args: Args) -> Exit {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut all = Vec::new();
    let mut io_failed = false;
    let mut invalid = false;
    let mut stderr = super::stderr();
    let mut targets: Vec<PathBuf> = Vec::new();
    for given in &args.intents {
        let note = |stderr: &mut super::Stderr, text: String| {
            if !args.quiet && args.format == Format::Text {
                let _ = writeln!(stderr, "{}: {text}", given.display());
            }
        };
        match as_lock(given, &args.intents) {
            LockArg::Intent => targets.push(given.clone()),
            LockArg::CheckedWith(intent) => {
                note(
                    &mut stderr,
                    format!("the lock of {}, checked with it", intent.display()),
                );
            }
            LockArg::Of(intent) => {
                note(
                    &mut stderr,
                    format!("a lock: checked with its intent {}", intent.display()),
                );
                if !targets.contains(&intent) {
                    targets.push(intent);
                }
            }
            LockArg::Orphan(why) => {
                invalid = true;
                let _ = writeln!(stderr, "error: {}: {why}", given.display());
            }
        }
    }
    for path in &targets {
        let site = match super::site::Site::load(path, &args.site) {
            Ok(s) => s,
            Err(_) => {
                io_failed = true;
                continue;
            }
        };
        if site.templates.is_some() && site.renderer().is_err() {
            io_failed = true;
            continue;
        }
        let mut outcome = check_file(path, &site, args.no_lock);
        if let Some(msg) = &outcome.io_error {
            io_failed = true;
            let _ = writeln!(stderr, "aifab validate: {msg}");
            continue;
        }
        if args.quiet {
            outcome
                .findings
                .retain(|f| f.code != aifab::rules::Rule::Acknowledged);
        }
        let lock = outcome.lock.take();
        let lock_findings = lock.as_ref().map_or(&[][..], |(_, f)| f.as_slice());
        let errors = (outcome.findings.iter().chain(lock_findings))
            .filter(|f| f.is_error())
            .count();
        let warnings = outcome.findings.len() + lock_findings.len() - errors;
        invalid |= errors > 0;
        if args.format == Format::Text {
            if let Some(source) = &outcome.source {
                let _ = write!(
                    stderr,
                    "{}",
                    render::to_text(&outcome.findings, source, color)
                );
            }
            if let Some((source, f)) = &lock {
                let _ = write!(stderr, "{}", render::to_text(f, source, color));
            }
            if let Some(line) = verdict(&path.display().to_string(), errors, warnings, args.quiet) {
                let _ = writeln!(stderr, "{line}");
            }
        }
        all.extend(outcome.findings);
        all.extend(lock.map(|(_, f)| f).unwrap_or_default());
    }
    if let Err(e) = print_report(args.format, &all) {
        let _ = writeln!(stderr, "aifab validate: cannot write to stdout: {e}");
        return Exit::Trouble;
    }
    if io_failed {
        Exit::Trouble
    } else if invalid {
        Exit::Invalid
    } else {
        Exit::Success
    }
}

#[cfg(test)]
mod tests;
