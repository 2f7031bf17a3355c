//! `aifab bench`: time `aifab render --out` as a user runs it (this binary, one process per render:
//! wall time and peak RSS) on generated fabrics of published sizes and a size sweep, then every phase
//! of the pipeline per size. Build with `--release` for meaningful numbers.

use super::Exit;
use crate::bench::phases::{Timings, measure, table};
use crate::bench::{Case, SIZES, SMALL_GPUS, SMALL_SWEEP_RUNS, SWEEP_RUNS, SWEEP_ZONES, report};

/// Arguments of `aifab bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
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
pub fn run(args: Args) -> Exit {
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
            Err(e) => trouble(&e),
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

/// Every measurement, as the Markdown the command prints.
fn measure_all(
    exe: &std::path::Path,
    run: &std::path::Path,
    sizes: &[Case],
    sweep: &[Case],
    phases: bool,
) -> Result<String, String> {
    let load_before = crate::bench::load_average();
    // What writing new files costs before any render (again after the last one, below).
    let cost_before = (!sizes.is_empty())
        .then(|| {
            std::fs::create_dir_all(run).ok()?;
            crate::bench::write_cost::measure(run, "before")
        })
        .flatten();
    let size_rows = crate::bench::renders(exe, run, sizes)?;
    let mut sweeps = Vec::new();
    if !sweep.is_empty() {
        let small: Vec<Case> = sweep
            .iter()
            .filter(|c| c.gpus < SMALL_GPUS)
            .cloned()
            .collect();
        for i in 0..SMALL_SWEEP_RUNS.max(SWEEP_RUNS) {
            let cases = if i < SWEEP_RUNS { sweep } else { &small };
            let folder = run.join(format!("sweep-run{}", i + 1));
            sweeps.push(crate::bench::renders(exe, &folder, cases)?);
        }
    }
    let sweep_rows = crate::bench::median(&sweeps);
    let mut text = format!(
        "`aifab render --out` as a process, {} CPUs, load average {} before, {} after the renders:\n\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_before.as_deref().unwrap_or("?"),
        crate::bench::load_average().as_deref().unwrap_or("?"),
    );
    if !size_rows.is_empty() {
        text.push_str(&report::sizes(&size_rows));
    }
    if !sweep_rows.is_empty() {
        text.push_str(&format!(
            "\nSize sweep (one fabric shape, 48 to 5,000 switches; each figure the median of {SWEEP_RUNS} runs, of {SMALL_SWEEP_RUNS} under {} GPUs):\n\n",
            report::count(SMALL_GPUS)
        ));
        text.push_str(&report::sweep(&sweep_rows));
    }
    if phases && !sizes.is_empty() {
        let mut timings = Vec::new();
        for c in sizes {
            eprintln!("bench {}: phases ...", c.name);
            timings.push(phases_of(exe, run, &c.name)?);
        }
        text.push_str("\nPhases, in one process (render alone drops what it renders):\n\n");
        text.push_str(&table(&timings));
    }
    text.push_str(&machine_notes(run, &size_rows, cost_before));
    Ok(text)
}

/// The "On this machine" list: what outside aifab moved the figures, with what writing new files cost
/// before the renders (`cost_before`) and now, after them (the probe files are removed here).
fn machine_notes(
    run: &std::path::Path,
    size_rows: &[crate::bench::Renders],
    cost_before: Option<crate::bench::write_cost::WriteCost>,
) -> String {
    let largest = size_rows
        .iter()
        .max_by_key(|r| r.first.bytes)
        .map(|r| (r.name.as_str(), r.first.bytes));
    let cost_after = largest.and_then(|_| crate::bench::write_cost::measure(run, "after"));
    crate::bench::write_cost::remove(run);
    let notes = crate::bench::machine::notes(run, largest, cost_before.zip(cost_after));
    if notes.is_empty() {
        return String::new();
    }
    let items: String = notes.iter().map(|n| format!("- {n}\n")).collect();
    format!("\nOn this machine:\n\n{items}")
}

/// The phase timings of one size, measured in a child process so that its peak RSS is its own.
fn phases_of(exe: &std::path::Path, run: &std::path::Path, size: &str) -> Result<Timings, String> {
    let o = std::process::Command::new(exe)
        .args(["bench", "--child", size, "--out"])
        .arg(run.join("phases"))
        .env(aifab::write::CACHE_ENV, run.join("cache"))
        .output()
        .map_err(|e| format!("{size}: {e}"))?;
    if !o.status.success() {
        return Err(format!("{size}: {}", String::from_utf8_lossy(&o.stderr)));
    }
    serde_json::from_slice(&o.stdout).map_err(|e| format!("{size}: {e}"))
}

fn trouble(message: &str) -> Exit {
    eprintln!("error: {message}");
    Exit::Trouble
}
