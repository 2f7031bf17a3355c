//! `aifab bench`'s runs: every case measured, the machine's notes, one run's phases.

use super::*;

/// Every measurement, as the Markdown the command prints.
pub(super) fn measure_all(
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
    let size_rows = crate::bench::renders(exe, run, sizes).map_err(|e| e.to_string())?;
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
            sweeps.push(crate::bench::renders(exe, &folder, cases).map_err(|e| e.to_string())?);
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
pub(super) fn machine_notes(
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
pub(super) fn phases_of(
    exe: &std::path::Path,
    run: &std::path::Path,
    size: &str,
) -> Result<Timings, String> {
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
