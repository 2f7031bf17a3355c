//! Command-line interface: argument parsing and one module per subcommand.
//!
//! Exit codes everywhere: 0 success, 1 the intent is invalid (or, for `diff`/`--check`, something differs),
//! 2 usage or I/O error.

use clap::{Parser, Subcommand};

pub mod bench;
pub mod compile;
pub mod diff;
pub mod plan;
pub mod render;
pub mod schema;
pub mod validate;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: invalid intent, or a difference was found.
pub const EXIT_INVALID: i32 = 1;
/// Exit code: usage or I/O error.
pub const EXIT_USAGE: i32 = 2;

/// aifab compiles a lossless RoCEv2 fabric intent into NX-OS, EOS and SONiC configurations.
#[derive(Parser, Debug)]
#[command(name = "aifab", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the intent JSON Schema (draft 2020-12) or the intent reference in Markdown.
    Schema(schema::Args),
    /// Check intents: YAML, schema and semantic rules; every problem at once.
    Validate(validate::Args),
    /// Print the compiled vendor-neutral device model.
    Compile(compile::Args),
    /// Print the cabling plan (CSV), a summary table, or a topology drawing.
    Plan(plan::Args),
    /// Render every device's configuration into a folder, or check it against golden files.
    Render(render::Args),
    /// Time every phase on generated fabrics of 1K, 24K and 100K GPUs.
    Bench(bench::Args),
    /// Compare two intents (or an intent with its version at a git revision): change report and diffs.
    Diff(diff::Args),
}

/// Writes to stdout, treating a closed pipe (`aifab plan x | head`) as the reader being done, not a crash.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
}

/// Prints findings about one source to stderr as miette reports (colored on a terminal).
pub fn print_findings(source: &crate::diag::Source, findings: &[crate::diag::Finding]) {
    use std::io::IsTerminal;
    if findings.is_empty() {
        return;
    }
    let color = std::io::stderr().is_terminal();
    eprint!("{}", crate::diag::render::to_text(findings, source, color));
}

/// Runs the pipeline front and turns a failure into its exit code, printing what went wrong.
/// With `only`, ports and cables are expanded only for the matching devices (see
/// [`crate::compile::compile_only`]).
pub fn front_or_exit(
    path: &str,
    quiet: bool,
    only: Option<&globset::GlobMatcher>,
) -> Result<crate::pipeline::Front, i32> {
    match crate::pipeline::front_with(path, only) {
        Ok(f) => {
            if !quiet {
                print_findings(&f.source, &f.warnings);
            }
            Ok(f)
        }
        Err(crate::pipeline::FrontError::Io(e)) => {
            eprintln!("error: {e}");
            Err(EXIT_USAGE)
        }
        Err(crate::pipeline::FrontError::Invalid(source, findings)) => {
            print_findings(&source, &findings);
            let n = findings.iter().filter(|f| f.is_error()).count();
            eprintln!(
                "{}: invalid ({n} error{}); nothing written",
                source.name,
                if n == 1 { "" } else { "s" }
            );
            Err(EXIT_INVALID)
        }
    }
}

/// Compiles a host glob for `--only`.
pub fn only_matcher(glob: Option<&str>) -> Result<Option<globset::GlobMatcher>, i32> {
    match glob {
        None => Ok(None),
        Some(g) => match globset::Glob::new(g) {
            Ok(g) => Ok(Some(g.compile_matcher())),
            Err(e) => {
                eprintln!("error: --only {g}: {e}");
                Err(EXIT_USAGE)
            }
        },
    }
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Schema(a) => schema::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Render(a) => render::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Bench(a) => bench::run(a),
    }
}
