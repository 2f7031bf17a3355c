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
    /// Intent files to check.
    #[arg(required = true, value_name = "INTENT")]
    pub intents: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only findings: no `<file>: valid` lines.
    #[arg(long, short)]
    pub quiet: bool,
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
}

/// Checks one intent file against `catalog`: YAML, schema, then the semantic rules of
/// [`aifab::check::run`].
pub fn check_file(path: &Path, catalog: &aifab::platform::Catalog) -> Outcome {
    let source = match aifab::pipeline::read_bounded(path) {
        Err(e) => {
            return Outcome {
                source: None,
                findings: Vec::new(),
                io_error: Some(format!("cannot read {}: {e}", path.display())),
            };
        }
        Ok(Err((source, finding))) => {
            return Outcome {
                source: Some(source),
                findings: vec![finding],
                io_error: None,
            };
        }
        Ok(Ok(source)) => source,
    };
    // The shared front (load, schema, rules, compile): fabric-arithmetic findings (pools, ports,
    // platform support) and unverified-syntax warnings come from the compile stage.
    let findings = match aifab::pipeline::front_source_in(source.clone(), None, catalog) {
        Ok(front) => front.warnings,
        Err(aifab::pipeline::FrontError::Invalid(_, findings))
        | Err(aifab::pipeline::FrontError::Lock(_, findings)) => findings,
        Err(aifab::pipeline::FrontError::Io(e)) => {
            return Outcome {
                source: Some(source),
                findings: Vec::new(),
                io_error: Some(e),
            };
        }
    };
    Outcome {
        source: Some(source),
        findings,
        io_error: None,
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs `aifab validate`: exit 0 when no file has an error, 1 when one has, 2 when a file cannot be read.
pub fn run(args: Args) -> Exit {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut all = Vec::new();
    let mut io_failed = false;
    let mut invalid = false;
    let mut stderr = std::io::stderr().lock();
    for path in &args.intents {
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
        let outcome = check_file(path, site.catalog);
        if let Some(msg) = &outcome.io_error {
            io_failed = true;
            let _ = writeln!(stderr, "aifab validate: {msg}");
            continue;
        }
        let errors = outcome.findings.iter().filter(|f| f.is_error()).count();
        let warnings = outcome.findings.len() - errors;
        invalid |= errors > 0;
        if args.format == Format::Text {
            if let Some(source) = &outcome.source {
                let _ = write!(
                    stderr,
                    "{}",
                    render::to_text(&outcome.findings, source, color)
                );
            }
            let name = path.display();
            if errors > 0 {
                let mut line = format!("{name}: invalid, {}", plural(errors, "error"));
                if warnings > 0 {
                    line.push_str(&format!(", {}", plural(warnings, "warning")));
                }
                let _ = writeln!(stderr, "{line}");
            } else if !args.quiet {
                if warnings > 0 {
                    let _ = writeln!(stderr, "{name}: valid ({})", plural(warnings, "warning"));
                } else {
                    let _ = writeln!(stderr, "{name}: valid");
                }
            }
        }
        all.extend(outcome.findings);
    }
    let out = match args.format {
        Format::Text => None,
        Format::Json => Some(render::to_json(&all)),
        Format::Sarif => Some(render::to_sarif(&all)),
    };
    if let Some(out) = out {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            let _ = writeln!(stderr, "aifab validate: cannot write to stdout: {e}");
            return Exit::Trouble;
        }
    }
    if io_failed {
        Exit::Trouble
    } else if invalid {
        Exit::Invalid
    } else {
        Exit::Success
    }
}
