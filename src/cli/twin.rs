//! `aifab twin`: runs the fabric's routing in FRR and its LLDP in lldpd on this machine and reports
//! sessions, routes, ECMP, LLDP, convergence and single link failures; plants crossed or down cables
//! and writes every switch's state on request (docs/twin.md).

use super::{Exit, front_or_exit};
use aifab::check::paths::Fabric;
use aifab::model::FabricModel;
use aifab::platform::Catalog;
use aifab::render::{Form, Meta, Renderer};
use aifab::twin::faults::{Faults, PortRef, Swap};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `aifab twin`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file (its lock beside it is read, as `render` reads it).
    #[arg(required_unless_present = "reap")]
    pub intent: Option<String>,
    /// Single link failures to try after convergence: `all` (every fabric link), or a number spread
    /// evenly over the links of both tiers; 0 for none. Default: `all`, or 0 with --state.
    #[arg(long, value_parser = failures)]
    pub failures: Option<Failures>,
    /// After the single links, fail N groups of parallel links (every link between two switches at
    /// once: a line card, an optic cage, a cable bundle) and N whole switches, each spread evenly.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub grouped: usize,
    /// Once converged (before any failure), write every switch's state as a SONiC switch prints it to
    /// DIR/<hostname>/ (lldpctl.json, lldpcli-chassis.json, frr-bgp-summary.json,
    /// frr-ip-route.json), for `aifab verify --state DIR`. DIR must be new or empty.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Cross two cables when the lab is built: the port at the first SW:PORT is cabled to the far end
    /// of the second's cable, and the other way round (repeatable). PORT is the interface name of the
    /// config (`leaf1:Ethernet1/51`).
    #[arg(long, value_name = "SW:PORT,SW:PORT")]
    pub swap: Vec<Swap>,
    /// Take the cable at SW:PORT down at both ends when the lab is built (repeatable).
    #[arg(long, value_name = "SW:PORT")]
    pub down: Vec<PortRef>,
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
pub(crate) enum Format {
    /// Lines for people.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

/// How many single link failures to try: None for all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Failures(pub Option<usize>);

fn failures(s: &str) -> Result<Failures, String> {
    if s == "all" {
        return Ok(Failures(None));
    }
    s.parse()
        .map(|n| Failures(Some(n)))
        .map_err(|_| format!("`{s}` is neither `all` nor a number"))
}

/// Runs `aifab twin`: 0 when every check held, 1 when the twin found a problem, 2 when it could not
/// run (an intent with errors, a fault that names no fabric cable, an unusable state folder, no
/// privilege, no FRR or lldpd, a fabric too large, an interruption).
pub(super) fn run(args: Args) -> Exit {
    if let Some(prefix) = &args.reap {
        aifab::twin::lab::reap(prefix);
        return Exit::Success;
    }
    let Some(intent) = args.intent.as_deref() else {
        return Exit::Trouble;
    };
    // The state folder is written: a link of the repository may not lead it out (docs/security.md).
    if let Some(dir) = &args.state
        && let Err(e) = aifab::boundary::Root::of(intent.as_ref())
            .admit(dir, aifab::boundary::Origin::CommandLine)
    {
        eprintln!("error: {e}; nothing written");
        return Exit::Trouble;
    }
    let catalog = Catalog::builtin();
    let front = match front_or_exit(intent, false, None, catalog) {
        Ok(f) => f,
        Err(status) => return status,
    };
    let faults = Faults {
        swaps: args.swap.clone(),
        downs: args.down.clone(),
    };
    if let Err(problems) = usable(&front.model, &faults, args.state.as_deref()) {
        for p in problems {
            eprintln!("error: {p}");
        }
        return Exit::Trouble;
    }
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
    let failures = match (args.failures, &args.state) {
        (Some(f), _) => f.0,
        (None, Some(_)) => Some(0),
        (None, None) => None,
    };
    let opts = aifab::twin::Options {
        failures,
        grouped: args.grouped,
        timeout: Duration::from_secs(args.timeout),
        faults,
        state: args.state,
    };
    let report = match aifab::twin::run(&front.model, catalog, &configs, &opts) {
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

/// The faults and the state folder checked before anything starts: every problem, or none.
fn usable(
    model: &FabricModel,
    faults: &Faults,
    state: Option<&std::path::Path>,
) -> Result<(), Vec<String>> {
    let mut problems: Vec<String> = match faults.resolve(model, &Fabric::new(model)) {
        Ok(_) => Vec::new(),
        Err(p) => p.iter().map(ToString::to_string).collect(),
    };
    if let Some(dir) = state
        && let Err(e) = aifab::twin::state::check(dir)
    {
        problems.push(e.to_string());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
