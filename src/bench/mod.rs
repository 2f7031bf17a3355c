//! `aifab bench`: times what a user runs, `aifab render --out` as a whole process ([`process`]), on
//! generated fabrics ([`fabrics`]): a first render into a new folder, two re-renders of the same intent
//! into that folder (the second fills the spare the first left), and a re-render after an MTU change
//! (nearly every file changes). Then, for the
//! published sizes, every phase in one process ([`phases`]). Part of the binary, not of the library API.

mod fabrics;
pub(crate) mod machine;
pub(crate) mod phases;
pub(crate) mod process;
pub(crate) mod report;
pub(crate) mod write_cost;

pub(crate) use fabrics::{SIZES, SWEEP_ZONES, intent_yaml, sweep_yaml};

use process::Run;
use std::path::{Path, PathBuf};

/// Why the timed renders stopped: a file of the run folder, a render, or a lock without a device.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BenchError {
    /// A file or folder of the run could not be written or read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A timed render gave no figures.
    #[error(transparent)]
    Render(#[from] process::ProcessError),
    /// The lock names no device to render alone.
    #[error("{}: no device to render with --only", lock.display())]
    NoDevice {
        /// The lock.
        lock: PathBuf,
    },
}

/// The error for an I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |error| BenchError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// One generated fabric to render.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// `1k`, `24k`, `100k`, `100k-hosts`, or `sweep-<zones>`.
    pub name: String,
    /// GPUs (server NICs).
    pub gpus: u64,
    /// The intent.
    pub yaml: String,
}

impl Case {
    /// A published size.
    pub(crate) fn size(name: &str) -> Option<Case> {
        let gpus = match name {
            "1k" => 1_024,
            "24k" => 24_576,
            "100k" | "100k-hosts" => 100_000,
            _ => return None,
        };
        Some(Case {
            name: name.to_string(),
            gpus,
            yaml: intent_yaml(name, 1)?,
        })
    }

    /// A size-sweep fabric.
    pub(crate) fn sweep(zones: u32) -> Case {
        Case {
            name: format!("sweep-{zones}"),
            gpus: 640 * u64::from(zones),
            yaml: sweep_yaml(zones),
        }
    }

    /// The intent after an MTU change: nearly every file's bytes change, under the same file name.
    fn changed_yaml(&self) -> String {
        self.yaml.replace("mtu: 9214", "mtu: 9100")
    }
}

/// The three timed renders of one case.
#[derive(Clone, Debug, Default)]
pub(crate) struct Renders {
    /// The case's name.
    pub name: String,
    /// GPUs.
    pub gpus: u64,
    /// Into a new folder.
    pub first: Run,
    /// The same intent again into that folder: every file unchanged (the new folder is built and
    /// the first output is parked as the spare).
    pub again: Run,
    /// The same intent a third time: the spare already holds every file's bytes, nothing is created,
    /// linked or removed (what repeated renders of an unchanged fabric cost).
    pub steady: Run,
    /// `--only` one switch (a leaf) of the intent after the MTU change, into the folder the renders
    /// before it left: one switch's files replaced in place, the rest of the fabric untouched.
    pub only: Run,
    /// After an MTU change, into that folder.
    pub changed: Run,
}

/// Renders every case four times, each render its own process of `exe`, under folder `run`. All
/// first renders come before any re-render, so that no first render follows the removal of a previous
/// tree (on ext4, allocating inodes right after many were freed costs up to 3×).
pub(crate) fn renders(exe: &Path, run: &Path, cases: &[Case]) -> Result<Vec<Renders>, BenchError> {
    let intents = run.join("intents");
    let changed = intents.join("changed");
    std::fs::create_dir_all(&changed).map_err(io(&changed))?;
    let file = |dir: &Path, c: &Case| dir.join(format!("bench-{}.yaml", c.name));
    for c in cases {
        let write = |path: PathBuf, text: String| std::fs::write(&path, text).map_err(io(&path));
        write(file(&intents, c), c.yaml.clone())?;
        write(file(&changed, c), c.changed_yaml())?;
    }
    let (log, cache) = (run.join("render.log"), run.join("cache"));
    let mut rows: Vec<Renders> = cases
        .iter()
        .map(|c| Renders {
            name: c.name.clone(),
            gpus: c.gpus,
            ..Renders::default()
        })
        .collect();
    let out = |c: &Case| run.join("out").join(&c.name);
    for (c, r) in cases.iter().zip(&mut rows) {
        eprintln!("bench {}: first render ...", c.name);
        r.first = process::render(exe, &file(&intents, c), &out(c), &log, &cache)?;
    }
    for (c, r) in cases.iter().zip(&mut rows) {
        eprintln!("bench {}: re-render ...", c.name);
        r.again = process::render(exe, &file(&intents, c), &out(c), &log, &cache)?;
    }
    for (c, r) in cases.iter().zip(&mut rows) {
        eprintln!("bench {}: re-render with the spare ...", c.name);
        r.steady = process::render(exe, &file(&intents, c), &out(c), &log, &cache)?;
    }
    for (c, r) in cases.iter().zip(&mut rows) {
        // The changed intent re-renders with the lock the first render wrote, as a user's edit would.
        let (from, to) = (file(&intents, c), file(&changed, c));
        let (from, to) = (aifab::lock::path_for(&from), aifab::lock::path_for(&to));
        std::fs::copy(&from, &to).map_err(io(&from))?;
        let host = one_switch(&to)?;
        eprintln!("bench {}: --only {host} after an MTU change ...", c.name);
        let args = ["--only", host.as_str()];
        r.only = process::render_with(exe, &file(&changed, c), &out(c), &args, (&log, &cache))?;
    }
    for (c, r) in cases.iter().zip(&mut rows) {
        eprintln!("bench {}: re-render after an MTU change ...", c.name);
        r.changed = process::render(exe, &file(&changed, c), &out(c), &log, &cache)?;
    }
    Ok(rows)
}

/// The switch the `--only` render renders: the first leaf with servers in the lock `lock`, else its
/// first device.
fn one_switch(lock: &Path) -> Result<String, BenchError> {
    let text = std::fs::read_to_string(lock).map_err(io(lock))?;
    let first = |key: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix("  - {")?.strip_prefix(key)?;
            rest.split(',').next().map(str::to_string)
        })
    };
    first("leaf: ")
        .or_else(|| first("name: "))
        .ok_or_else(|| BenchError::NoDevice {
            lock: lock.to_path_buf(),
        })
}

/// How many times the size sweep runs: each figure is the median of this many runs.
pub(crate) const SWEEP_RUNS: usize = 3;

/// How many times the sweep's small fabrics run (those under [`SMALL_GPUS`]): they take 15-120 ms,
/// where one busy moment of a shared machine moves a figure by half, so their medians take more runs.
pub(crate) const SMALL_SWEEP_RUNS: usize = 9;

/// The sweep's small fabrics: fewer GPUs than this.
pub(crate) const SMALL_GPUS: u64 = 10_000;

/// Per case and per render (first, unchanged, spare, changed), the run with the median wall time of
/// `runs` (each the rows of one [`renders`] of the same cases, in the same order; a later run may
/// hold only the first cases, as the extra runs of the small fabrics do).
pub(crate) fn median(runs: &[Vec<Renders>]) -> Vec<Renders> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let pick = |i: usize, field: fn(&Renders) -> Run| {
        let mut all: Vec<Run> = runs.iter().filter_map(|r| r.get(i)).map(field).collect();
        all.sort_by(|a, b| a.wall_ms.total_cmp(&b.wall_ms));
        all.get(all.len() / 2).copied().unwrap_or_default()
    };
    first
        .iter()
        .enumerate()
        .map(|(i, r)| Renders {
            name: r.name.clone(),
            gpus: r.gpus,
            first: pick(i, |r| r.first),
            again: pick(i, |r| r.again),
            steady: pick(i, |r| r.steady),
            only: pick(i, |r| r.only),
            changed: pick(i, |r| r.changed),
        })
        .collect()
}

/// The load average over the last minute (Linux), to print beside the numbers.
pub(crate) fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(first: f64, changed: f64) -> Renders {
        let run = |wall_ms| Run {
            wall_ms,
            ..Run::default()
        };
        Renders {
            name: "sweep-1".into(),
            gpus: 640,
            first: run(first),
            again: run(first + 1.0),
            steady: run(first + 2.0),
            only: run(1.0),
            changed: run(changed),
        }
    }

    #[test]
    fn the_median_is_taken_per_render() {
        let runs = vec![
            vec![row(30.0, 10.0)],
            vec![row(10.0, 30.0)],
            vec![row(20.0, 90.0)],
        ];
        let m = median(&runs);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].first.wall_ms, 20.0);
        assert_eq!(m[0].again.wall_ms, 21.0);
        assert_eq!(m[0].changed.wall_ms, 30.0);
        assert!(median(&[]).is_empty());
    }

    /// Extra runs of the first cases only: each case's median is taken over the runs that hold it.
    #[test]
    fn a_case_in_more_runs_takes_the_median_of_all_of_them() {
        let both = |small: f64, large: f64| vec![row(small, small), row(large, large)];
        let runs = vec![
            both(50.0, 900.0),
            both(40.0, 1000.0),
            both(45.0, 800.0),
            vec![row(10.0, 10.0)],
            vec![row(11.0, 11.0)],
        ];
        let m = median(&runs);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].first.wall_ms, 40.0);
        assert_eq!(m[1].first.wall_ms, 900.0);
    }
}
