//! `aifab validate`: loads, schema-checks and rule-checks intents, and prints every finding.

use super::Exit;
use aifab::diag::render;
use aifab::diag::{Finding, Source};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Output format of `aifab validate`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
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
pub struct Args {
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

/// What checking one file gave.
pub struct Outcome {
    /// The file as it was read (for rendering), when it could be read.
    pub source: Option<Source>,
    /// Every finding, errors and warnings, in file order.
    pub findings: Vec<Finding>,
    /// The I/O error message when the file could not be read.
    pub io_error: Option<String>,
    /// The lock beside the intent and its findings (located in the lock), when it has any.
    pub lock: Option<(Source, Vec<Finding>)>,
}

/// Checks one intent file against the site's catalog (and its `{env: NAME}` names against the site's
/// prefix): YAML, schema, then the semantic rules of
/// [`aifab::check::run`], with the allocation lock beside it (as `render` reads it: whole, inside the
/// intent's pools) unless `no_lock`.
pub fn check_file(path: &Path, site: &super::site::Site, no_lock: bool) -> Outcome {
    let lock_path = aifab::lock::path_for(path);
    let mut lock_findings = None;
    let lock = if no_lock {
        None
    } else {
        match aifab::write::journal::recover(&lock_path) {
            Ok(
                aifab::write::journal::Recovery::Completed(m)
                | aifab::write::journal::Recovery::RolledBack(m),
            ) => eprintln!("note: {m}"),
            // A journal that does not verify is named, and the lock read as it is.
            Err(e) => eprintln!("warning: {e}"),
            Ok(_) => {}
        }
        match aifab::lock::read::read_file(&lock_path) {
            Ok(Some(l)) => {
                // A copied lock is refused as `compile` and `render` refuse it.
                let intent = path.to_string_lossy();
                if let Some(other) = aifab::publish::lock::copied_from(&intent, &l) {
                    return Outcome {
                        source: None,
                        findings: Vec::new(),
                        io_error: Some(aifab::publish::lock::copied_message(
                            &intent,
                            &l.source.name,
                            &other,
                        )),
                        lock: None,
                    };
                }
                Some(l)
            }
            Ok(None) => None,
            Err(aifab::lock::read::LockError::Io(e)) => {
                return Outcome {
                    source: None,
                    findings: Vec::new(),
                    io_error: Some(e),
                    lock: None,
                };
            }
            Err(aifab::lock::read::LockError::Invalid(src, f)) => {
                lock_findings = Some((*src, f));
                None
            }
        }
    };
    let mut outcome = check_with_lock(path, site, lock.as_ref());
    if outcome.lock.is_none() {
        outcome.lock = lock_findings;
    }
    outcome
}

/// [`check_file`] with the lock given.
fn check_with_lock(
    path: &Path,
    site: &super::site::Site,
    lock: Option<&aifab::lock::read::Loaded>,
) -> Outcome {
    let source = match aifab::pipeline::read_bounded(path) {
        Err(e) => {
            return Outcome {
                source: None,
                findings: Vec::new(),
                io_error: Some(format!("cannot read {}: {e}", path.display())),
                lock: None,
            };
        }
        Ok(Err((source, finding))) => {
            return Outcome {
                source: Some(source),
                findings: vec![finding],
                io_error: None,
                lock: None,
            };
        }
        Ok(Ok(source)) => source,
    };
    // The shared front (load, schema, rules, compile): fabric-arithmetic findings (pools, ports,
    // platform support) and unverified-syntax warnings come from the compile stage.
    let mut lock_findings = None;
    let findings =
        match aifab::pipeline::front_source_locked_in(source.clone(), None, site.catalog, lock) {
            // An `{env: NAME}` outside the project's prefix fails here already, where a pull request's
            // check runs, not only at the render that would read it.
            Ok(front) => {
                let mut refused = aifab::render::secrets::outside_prefix(&front.intent, &site.env);
                aifab::pipeline::locate(&mut refused, &front.spans, &front.source);
                refused.extend(front.warnings);
                refused
            }
            Err(aifab::pipeline::FrontError::Invalid(_, findings)) => findings,
            // The intent's errors and the lock's own problems with it (out of a pool, held twice),
            // in the same run.
            Err(aifab::pipeline::FrontError::Both { intent, lock }) => {
                lock_findings = Some((*lock.0, lock.1));
                intent.1
            }
            Err(aifab::pipeline::FrontError::Lock(src, findings)) => {
                lock_findings = Some((*src, findings));
                Vec::new()
            }
            Err(aifab::pipeline::FrontError::Io(e)) => {
                return Outcome {
                    source: Some(source),
                    findings: Vec::new(),
                    io_error: Some(e),
                    lock: None,
                };
            }
        };
    Outcome {
        source: Some(source),
        findings,
        io_error: None,
        lock: lock_findings,
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The line that ends a file's text report: `invalid, N errors[, N warnings]`, or `valid` (with its
/// warnings) unless `quiet`.
fn verdict(name: &str, errors: usize, warnings: usize, quiet: bool) -> Option<String> {
    match (errors, warnings) {
        (0, _) if quiet => None,
        (0, 0) => Some(format!("{name}: valid")),
        (0, w) => Some(format!("{name}: valid ({})", plural(w, "warning"))),
        (e, 0) => Some(format!("{name}: invalid, {}", plural(e, "error"))),
        (e, w) => Some(format!(
            "{name}: invalid, {}, {}",
            plural(e, "error"),
            plural(w, "warning")
        )),
    }
}

/// Prints every file's findings as one JSON or SARIF document on stdout (nothing for text); a reader
/// that closed the pipe early is not an error.
fn print_report(format: Format, all: &[aifab::diag::Finding]) -> std::io::Result<()> {
    let out = match format {
        Format::Text => return Ok(()),
        Format::Json => render::to_json(all),
        Format::Sarif => render::to_sarif(all),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
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
pub fn run(args: Args) -> Exit {
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
mod tests {
    use super::{LockArg, as_lock, verdict};
    use std::path::PathBuf;

    #[test]
    fn a_lock_is_checked_with_its_intent() {
        let dir = std::env::temp_dir().join(format!("aifab-validate-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("a.yaml"), "x").expect("write");
        let (intent, lock) = (dir.join("a.yaml"), dir.join("a.lock.yaml"));
        let given = vec![intent.clone(), lock.clone()];
        assert_eq!(as_lock(&intent, &given), LockArg::Intent);
        assert_eq!(as_lock(&lock, &given), LockArg::CheckedWith(intent.clone()));
        assert_eq!(
            as_lock(&lock, std::slice::from_ref(&lock)),
            LockArg::Of(intent)
        );
        let orphan: PathBuf = dir.join("b.lock.yaml");
        assert!(
            matches!(as_lock(&orphan, std::slice::from_ref(&orphan)), LockArg::Orphan(w) if w.contains("b.yaml"))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_verdict_line_counts_errors_and_warnings() {
        let v = |e, w, quiet| verdict("a.yaml", e, w, quiet);
        assert_eq!(v(0, 0, false).as_deref(), Some("a.yaml: valid"));
        assert_eq!(
            v(0, 2, false).as_deref(),
            Some("a.yaml: valid (2 warnings)")
        );
        assert_eq!(v(0, 2, true), None);
        assert_eq!(v(1, 0, true).as_deref(), Some("a.yaml: invalid, 1 error"));
        assert_eq!(
            v(3, 1, false).as_deref(),
            Some("a.yaml: invalid, 3 errors, 1 warning")
        );
    }
}
