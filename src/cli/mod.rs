//! Command-line interface: argument parsing and one module per subcommand. Every command returns an
//! [`Exit`]: 0 success, 1 an intent is invalid (or, for `diff`/`--check`, something differs), 2 trouble.

use clap::{Parser, Subcommand};

mod bench;
mod compile;
mod dcim;
mod diff;
mod drift;
mod exit;
mod lockfile;
mod plan;
mod render;
mod schema;
mod site;
mod twin;
mod validate;
mod verify;

pub(crate) use exit::Exit;
use exit::{front_failed, print_findings};

/// aifab compiles a lossless RoCEv2 fabric intent into NX-OS, EOS and SONiC configurations.
#[derive(Parser, Debug)]
#[command(name = "aifab", version, about, long_about = None)]
pub(crate) struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
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
    /// Compare the rendered configs with the switches' running-configs: what a push adds, which owned
    /// lines it removes, which sections it keeps; `--write` the replace files the playbooks push.
    Drift(drift::Args),
    /// Run the fabric's routing in FRR on this machine (root): sessions, routes, ECMP, convergence and
    /// every single link failure, checked against the deadlock analysis.
    Twin(twin::Args),
    /// Compare what the switches report (LLDP, BGP, ports, PFC; collected by ansible/collect.yml) with
    /// the intent: cabling, sessions, ports and the lossless state, every difference named.
    Verify(verify::Args),
    /// Publish the compiled fabric into Nautobot (`sync`: devices, interfaces, cables, addresses,
    /// tagged `aifab:<fabric>`), or report where Nautobot disagrees with it (`check`).
    Dcim(dcim::Args),
}

/// Writes to stdout, treating a closed pipe (`aifab plan x | head`) as the reader being done, not a crash.
/// Any other failure (a full disk under `>file`) is said on stderr and makes the exit code 2
/// ([`output_failed`]).
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        OUTPUT.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = writeln!(std::io::stderr(), "aifab: cannot write to stdout: {e}");
    }
}

/// Set when [`emit`] could not write stdout.
static OUTPUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether stdout or stderr could not be written ([`emit`], [`Stderr`]): the binary then exits with
/// code 2.
pub(crate) fn output_failed() -> bool {
    OUTPUT.load(std::sync::atomic::Ordering::SeqCst)
}

/// stderr for a command that writes it piece by piece and goes on when a piece fails: a failure is
/// remembered, and the binary exits with code 2 ([`output_failed`]) instead of its own code.
pub(crate) struct Stderr(std::io::StderrLock<'static>);

/// stderr, locked, remembering failures ([`Stderr`]).
pub(crate) fn stderr() -> Stderr {
    Stderr(std::io::stderr().lock())
}

impl std::io::Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.0.write(buf);
        if r.is_err() {
            OUTPUT.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Runs the pipeline front with the lock beside the intent (when there is one); on failure prints what
/// went wrong and returns the exit status (an invalid intent or lock is [`Exit::Trouble`], "nothing
/// written": the command could not run, and 1 stays the code of a real difference). Warnings are printed unless `quiet`. With `only`, ports and cables are expanded only for
/// the matching devices (see [`aifab::compile::compile_only`]).
pub(crate) fn front_or_exit(
    path: &str,
    quiet: bool,
    only: Option<&globset::GlobMatcher>,
    catalog: &aifab::platform::Catalog,
) -> Result<aifab::pipeline::Front, Exit> {
    let lock = lockfile::load(path, false, false)?;
    front_locked_or_exit(path, quiet, only, lock.as_ref(), catalog)
}

/// [`front_or_exit`] with the lock given (`None`: the arithmetic alone).
pub(crate) fn front_locked_or_exit(
    path: &str,
    quiet: bool,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&aifab::lock::read::Loaded>,
    catalog: &aifab::platform::Catalog,
) -> Result<aifab::pipeline::Front, Exit> {
    let front = aifab::pipeline::read_source(path)
        .and_then(|src| aifab::pipeline::front_source_locked_in(src, only, catalog, lock))
        .map_err(|e| front_failed(e, Exit::Trouble, "nothing written"))?;
    if !quiet {
        print_findings(&front.source, &front.warnings);
    }
    Ok(front)
}

/// With `--only`: refuses (exit 2) a glob that matches no device of the fabric, naming a few hostnames
/// the fabric does have.
pub(crate) fn only_matches_some(
    model: &aifab::model::FabricModel,
    glob: Option<&str>,
    only: Option<&globset::GlobMatcher>,
) -> Result<(), Exit> {
    let (Some(glob), Some(m)) = (glob, only) else {
        return Ok(());
    };
    if model.devices.iter().any(|d| m.is_match(&d.hostname)) {
        return Ok(());
    }
    let some: Vec<&str> = model
        .devices
        .iter()
        .map(|d| d.hostname.as_str())
        .take(4)
        .collect();
    eprintln!(
        "error: --only '{glob}' matches none of the {} devices of {} (they are named like {}); nothing written",
        model.devices.len(),
        model.name,
        some.join(", ")
    );
    Err(Exit::Trouble)
}

/// Compiles a host glob for `--only`.
pub(crate) fn only_matcher(glob: Option<&str>) -> Result<Option<globset::GlobMatcher>, Exit> {
    match glob {
        None => Ok(None),
        Some(g) => match globset::Glob::new(g) {
            Ok(g) => Ok(Some(g.compile_matcher())),
            Err(e) => {
                eprintln!("error: --only {g}: {e}");
                Err(Exit::Trouble)
            }
        },
    }
}

/// Runs the CLI and returns the exit status.
pub(crate) fn main() -> Exit {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let status = if e.use_stderr() {
                Exit::Trouble
            } else {
                Exit::Success
            };
            let _ = e.print();
            return status;
        }
    };
    match cli.command {
        Command::Schema(a) => schema::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Render(a) => render::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Drift(a) => drift::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Twin(a) => twin::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Dcim(a) => dcim::run(a),
    }
}
