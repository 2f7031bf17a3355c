//! How a command ends: its exit status, and the one place where an intent the pipeline front could not
//! use becomes printed output and a status.

use aifab::diag::{Finding, Source};
use aifab::pipeline::FrontError;

/// The exit status of every command, after diff(1): 0 same, 1 different (or invalid), 2 trouble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: done; for `diff` and `render --check`, nothing differs.
    Success,
    /// 1: an intent is invalid (a finding is an error).
    Invalid,
    /// 1: `diff` or `render --check` found a difference.
    Differs,
    /// 2: could not run: bad arguments, a file that cannot be read or written, an intent `diff` cannot
    /// compare.
    Trouble,
    /// 128 + the signal: SIGINT, SIGTERM, SIGHUP or SIGQUIT stopped a render (what it had created is removed).
    Interrupted(i32),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Invalid | Exit::Differs => 1,
            Exit::Trouble => 2,
            Exit::Interrupted(sig) => u8::try_from(128 + sig).unwrap_or(255),
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}

/// Prints findings about one source to stderr as miette reports (colored on a terminal).
pub(super) fn print_findings(source: &Source, findings: &[Finding]) {
    use std::io::IsTerminal;
    if findings.is_empty() {
        return;
    }
    let color = std::io::stderr().is_terminal();
    eprint!("{}", aifab::diag::render::to_text(findings, source, color));
}

/// Prints why the pipeline front could not produce a model and returns the exit status. A file that
/// cannot be read is [`Exit::Trouble`]; an invalid intent prints its findings and
/// `<file>: invalid (<n> errors); <consequence>`, and returns `invalid` (the status the command gives an
/// invalid intent: [`Exit::Invalid`], or [`Exit::Trouble`] for `diff`, whose 1 means "differs").
pub(super) fn front_failed(err: FrontError, invalid: Exit, consequence: &str) -> Exit {
    match err {
        FrontError::Io(e) => {
            eprintln!("error: {e}");
            Exit::Trouble
        }
        FrontError::Lock(source, findings) => {
            print_findings(&source, &findings);
            eprintln!(
                "{}: invalid lock ({} problems); {consequence}",
                source.name,
                findings.len()
            );
            invalid
        }
        FrontError::Both { intent, lock } => {
            front_failed(
                FrontError::Invalid(intent.0, intent.1),
                invalid,
                consequence,
            );
            front_failed(FrontError::Lock(lock.0, lock.1), invalid, consequence)
        }
        FrontError::Invalid(source, findings) => {
            print_findings(&source, &findings);
            let n = findings.iter().filter(|f| f.is_error()).count();
            eprintln!(
                "{}: invalid ({n} error{}); {consequence}",
                source.name,
                if n == 1 { "" } else { "s" }
            );
            invalid
        }
    }
}
