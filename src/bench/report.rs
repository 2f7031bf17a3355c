//! The bench's Markdown tables.

use super::Renders;
use super::process::Run;

/// Milliseconds, with a thousands separator.
fn ms(v: f64) -> String {
    let n = v.round() as u64;
    if n >= 1000 {
        format!("{},{:03} ms", n / 1000, n % 1000)
    } else {
        format!("{n} ms")
    }
}

/// An integer with thousands separators.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Microseconds per switch of a run.
fn per_switch(r: &Run) -> String {
    format!("{:.0}", micros_per_switch(r))
}

/// A render's wall time per switch, µs.
fn micros_per_switch(r: &Run) -> f64 {
    r.wall_ms * 1000.0 / r.devices.max(1) as f64
}

/// The lowest and highest time per switch of `runs` as fractions of their mean; `None` for fewer than
/// two runs.
fn spread(runs: &[Run]) -> Option<(f64, f64)> {
    if runs.len() < 2 {
        return None;
    }
    let each: Vec<f64> = runs.iter().map(micros_per_switch).collect();
    let mean = each.iter().sum::<f64>() / each.len() as f64;
    let (lo, hi) = each
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    (mean > 0.0).then(|| (lo / mean, hi / mean))
}

/// The published sizes: the whole `aifab render --out` process, first render and re-renders.
pub(crate) fn sizes(rows: &[Renders]) -> String {
    let mut s = String::from(
        "| fabric | GPUs | switches | files | output | first render | re-render, unchanged | again, with the spare | `--only` one switch, MTU changed (CPU user, system) | re-render, MTU changed | µs/switch (first, re-render) | peak RSS (first, re-renders) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let peak = r
            .again
            .peak_rss_mib
            .max(r.steady.peak_rss_mib)
            .max(r.changed.peak_rss_mib);
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} MB | **{}** | **{}** | **{}** | **{}** ({:.0}, {:.0} ms) | {} | {}, {} | {:.0}, {:.0} MiB |\n",
            r.name,
            count(r.gpus),
            count(r.first.devices),
            count(r.first.files),
            r.first.bytes as f64 / 1e6,
            ms(r.first.wall_ms),
            ms(r.again.wall_ms),
            ms(r.steady.wall_ms),
            ms(r.only.wall_ms),
            r.only.user_ms,
            r.only.sys_ms,
            ms(r.changed.wall_ms),
            per_switch(&r.first),
            per_switch(&r.again),
            r.first.peak_rss_mib,
            peak,
        ));
    }
    s
}

/// Which render of a row a column shows.
type Pick = fn(&Renders) -> Run;

/// The size sweep: time per switch from the smallest to the largest fabric, and how far each column's
/// figures lie from its mean.
pub(crate) fn sweep(rows: &[Renders]) -> String {
    let mut s = String::from(
        "| switches | GPUs | output | first render | µs/switch | re-render, unchanged | µs/switch | re-render, MTU changed | µs/switch | peak RSS |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let peak = r
            .first
            .peak_rss_mib
            .max(r.again.peak_rss_mib)
            .max(r.steady.peak_rss_mib)
            .max(r.changed.peak_rss_mib);
        s.push_str(&format!(
            "| {} | {} | {:.1} MB | {} | {} | {} | {} | {} | {} | {:.0} MiB |\n",
            count(r.first.devices),
            count(r.gpus),
            r.first.bytes as f64 / 1e6,
            ms(r.first.wall_ms),
            per_switch(&r.first),
            ms(r.again.wall_ms),
            per_switch(&r.again),
            ms(r.changed.wall_ms),
            per_switch(&r.changed),
            peak,
        ));
    }
    let columns: [(&str, Pick); 3] = [
        ("first render", |r| r.first),
        ("re-render, unchanged", |r| r.again),
        ("re-render, MTU changed", |r| r.changed),
    ];
    let spreads: Vec<String> = columns
        .iter()
        .filter_map(|(name, field)| {
            let runs: Vec<Run> = rows.iter().map(field).collect();
            spread(&runs).map(|(lo, hi)| format!("{name} {lo:.2}-{hi:.2}×"))
        })
        .collect();
    if !spreads.is_empty() {
        s.push_str(&format!(
            "\nTime per switch against its column's mean: {}.\n",
            spreads.join("; ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_taken_against_the_mean_per_switch() {
        let run = |wall_ms, devices| Run {
            wall_ms,
            devices,
            ..Run::default()
        };
        // 400, 200 and 300 µs per switch: mean 300.
        let runs = [run(20.0, 50), run(100.0, 500), run(1500.0, 5000)];
        let (lo, hi) = spread(&runs).expect("three runs");
        assert!((lo - 2.0 / 3.0).abs() < 1e-9, "{lo}");
        assert!((hi - 4.0 / 3.0).abs() < 1e-9, "{hi}");
        assert_eq!(spread(&runs[..1]), None);
        let row = |first: Run| Renders {
            name: "sweep".into(),
            gpus: 640,
            first,
            again: first,
            steady: first,
            only: first,
            changed: first,
        };
        let text = sweep(&runs.map(row));
        assert!(
            text.ends_with("Time per switch against its column's mean: first render 0.67-1.33×; re-render, unchanged 0.67-1.33×; re-render, MTU changed 0.67-1.33×.\n"),
            "{text}"
        );
    }

    /// The sizes table shows the `--only` render with its CPU time.
    #[test]
    fn the_sizes_table_shows_the_only_render() {
        let run = |wall_ms, user_ms, sys_ms| Run {
            wall_ms,
            user_ms,
            sys_ms,
            devices: 2144,
            ..Run::default()
        };
        let row = Renders {
            name: "100k".into(),
            gpus: 100_000,
            first: run(1500.0, 1.0, 1.0),
            again: run(1100.0, 1.0, 1.0),
            steady: run(1000.0, 1.0, 1.0),
            only: run(62.4, 41.0, 12.0),
            changed: run(1300.0, 1.0, 1.0),
        };
        let text = sizes(&[row]);
        assert!(
            text.contains("| **1,000 ms** | **62 ms** (41, 12 ms) | 1,300 ms |"),
            "{text}"
        );
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(100_000), "100,000");
        assert_eq!(count(999), "999");
        assert_eq!(ms(1234.4), "1,234 ms");
        assert_eq!(ms(87.6), "88 ms");
    }
}
