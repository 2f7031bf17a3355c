//! Command-line interface: argument parsing and one module per subcommand.
//!
//! Exit codes everywhere: 0 success, 1 the intent is invalid (or, for `diff`/`--check`, something differs),
//! 2 usage or I/O error.

use clap::{Parser, Subcommand};

pub mod compile;
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
    }
}
