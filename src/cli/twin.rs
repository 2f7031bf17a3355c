//! `aifab twin`: runs the fabric's routing in FRR on this machine and reports sessions, routes, ECMP,
//! convergence and single link failures (docs/twin.md).

use super::{Exit, front_or_exit};
use aifab::platform::Catalog;
use aifab::render::{Form, Meta, Renderer};
use std::time::Duration;

/// Arguments of `aifab twin`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Intent file (its lock beside it is read, as `render` reads it).
    #[arg(required_unless_present = "reap")]
    pub intent: Option<String>,
    /// Single link failures to try after convergence: `all` (every fabric link), or a number spread
    /// evenly over the links of both tiers; 0 for none.
    #[arg(long, default_value = "all", value_parser = failures)]
    pub failures: Failures,
    /// Seconds to wait for convergence, each time.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The cleanup process a run starts for itself (internal).
    #[arg(long, hide = true)]
    pub reap: Option<String>,
}

/// Output format of `aifab twin`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Lines for people.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

/// How many single link failures to try: None for all.
#[derive(Clone, Copy, Debug)]
pub struct Failures(pub Option<usize>);

fn failures(s: &str) -> Result<Failures, String> {
    if s == "all" {
        return Ok(Failures(None));
    }
    s.parse()
        .map(|n| Failures(Some(n)))
        .map_err(|_| format!("`{s}` is neither `all` nor a number"))
}

/// Runs `aifab twin`: 0 when every check held, 1 when the twin found a problem, 2 when it could not
/// run (an intent with errors, no privilege, no FRR, a fabric too large, an interruption).
pub fn run(args: Args) -> Exit {
    if let Some(prefix) = &args.reap {
        aifab::twin::lab::reap(prefix);
        return Exit::Success;
    }
    let Some(intent) = args.intent.as_deref() else {
        return Exit::Trouble;
    };
    let catalog = Catalog::builtin();
    let front = match front_or_exit(intent, false, None, catalog) {
        Ok(f) => f,
        Err(status) => return status,
    };
    if let Err(e) = aifab::twin::lab::preflight() {
        eprintln!("error: {e}");
        return Exit::Trouble;
    }
    let renderer = match Renderer::new(catalog) {
        Ok(r) => r.with_form(Form::Frr),
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Trouble;
        }
    };
    let meta = Meta::for_intent_path(intent, &front.model.name);
    let configs = match renderer.fabric(&meta, &front.model, None) {
        Ok(c) => c,
        Err(errs) => {
            for e in errs {
                eprintln!("error: {e}");
            }
            return Exit::Trouble;
        }
    };
    let opts = aifab::twin::Options {
        failures: args.failures.0,
        timeout: Duration::from_secs(args.timeout),
    };
    let report = match aifab::twin::run(&front.model, &configs, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Trouble;
        }
    };
    match args.format {
        Format::Text => super::emit(&report.text()),
        Format::Json => super::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        )),
    }
    if report.ok() {
        Exit::Success
    } else {
        Exit::Differs
    }
}
