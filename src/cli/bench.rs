//! `aifab bench`: time `aifab render --out` as a user runs it (this binary, one process per render:
//! wall time and peak RSS) on generated fabrics of published sizes and a size sweep, then every phase
//! of the pipeline per size. Build with `--release` for meaningful numbers.

mod measure;

use super::Exit;
use crate::bench::phases::{Timings, measure, table};
use crate::bench::{Case, SIZES, SMALL_GPUS, SMALL_SWEEP_RUNS, SWEEP_RUNS, SWEEP_ZONES, report};
use measure::*;

/// Arguments of `aifab bench`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// What to run: 1k, 24k, 100k, sweep (default: all of them).
    #[arg(long, value_delimiter = ',')]
    pub size: Vec<String>,
    /// Folder for the intents and rendered output (default: a temporary folder). Each run works in a
    /// new sub-folder `run-<pid>`, removed at the end unless --keep.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Keep the run's folder (its removal would slow the first render of a run that follows soon on
    /// ext4).
    #[arg(long)]
    pub keep: bool,
    /// Skip the per-phase table.
    #[arg(long)]
    pub no_phases: bool,
    /// Print the generated intent of one size (or of one size-sweep point, `sweep-<zones>`) and exit.
    #[arg(long)]
    pub print_intent: Option<String>,
    /// Internal: time the phases of one size in this process and print them as JSON.
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

/// Runs `aifab bench`.
pub(super) fn run(args: Args) -> Exit {
    if let Some(size) = &args.print_intent {
        return print_intent(size);
    }
    let base = args
        .out
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("aifab-bench"));
    if let Some(size) = &args.child {
        return match measure(size, &base.join(size)) {
            Ok(t) => {
                let json = serde_json::to_string(&t).unwrap_or_default();
                super::emit(&format!("{json}\n"));
                Exit::Success
            }
            Err(e) => trouble(&e.to_string()),
        };
    }
    let (sizes, sweep) = match cases(&args.size) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let Ok(exe) = std::env::current_exe() else {
        return trouble("cannot find the aifab binary to run");
    };
    if cfg!(debug_assertions) {
        eprintln!(
            "note: this is a debug build; run `cargo run --release -- bench` for real numbers"
        );
    }
    let run = base.join(format!("run-{}", std::process::id()));
    let result = measure_all(&exe, &run, &sizes, &sweep, !args.no_phases);
    if !args.keep {
        let _ = std::fs::remove_dir_all(&run);
    }
    match result {
        Ok(text) => {
            super::emit(&text);
            Exit::Success
        }
        Err(e) => trouble(&e),
    }
}

/// `--print-intent`: prints the generated intent of one size or size-sweep point.
fn print_intent(size: &str) -> Exit {
    let sweep = size
        .strip_prefix("sweep-")
        .and_then(|z| z.parse::<u32>().ok())
        .filter(|z| SWEEP_ZONES.contains(z));
    let yaml = match sweep {
        Some(zones) => Some(crate::bench::sweep_yaml(zones)),
        None => crate::bench::intent_yaml(size, 1),
    };
    match yaml {
        Some(y) => {
            super::emit(&y);
            Exit::Success
        }
        None => trouble(&format!(
            "unknown size {size}; use one of {}, or sweep-<zones> with zones one of {:?}",
            SIZES.join(", "),
            SWEEP_ZONES
        )),
    }
}

/// The fabrics `--size` asks for (every size and the sweep when none is given): the sized cases, and
/// the sweep's cases.
fn cases(wanted: &[String]) -> Result<(Vec<Case>, Vec<Case>), Exit> {
    let all: Vec<String> = SIZES
        .iter()
        .map(|s| s.to_string())
        .chain(["sweep".into()])
        .collect();
    let wanted = if wanted.is_empty() { &all[..] } else { wanted };
    let (mut sizes, mut sweep) = (Vec::new(), Vec::new());
    for w in wanted {
        match (w.as_str(), Case::size(w)) {
            ("sweep", _) => sweep.extend(SWEEP_ZONES.iter().map(|z| Case::sweep(*z))),
            (_, Some(c)) => sizes.push(c),
            (_, None) => {
                return Err(trouble(&format!(
                    "unknown size {w}; use {}, sweep",
                    SIZES.join(", ")
                )));
            }
        }
    }
    Ok((sizes, sweep))
}

fn trouble(message: &str) -> Exit {
    eprintln!("error: {message}");
    Exit::Trouble
}
