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
pub fn count(n: u64) -> String {
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
    format!("{:.0}", r.wall_ms * 1000.0 / r.devices.max(1) as f64)
}

/// The published sizes: the whole `aifab render --out` process, first render and re-renders.
pub fn sizes(rows: &[Renders]) -> String {
    let mut s = String::from(
        "| fabric | GPUs | switches | files | output | first render | re-render, unchanged | again, with the spare | re-render, MTU changed | µs/switch (first, re-render) | peak RSS (first, re-renders) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let peak = r
            .again
            .peak_rss_mib
            .max(r.steady.peak_rss_mib)
            .max(r.changed.peak_rss_mib);
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} MB | **{}** | **{}** | **{}** | {} | {}, {} | {:.0}, {:.0} MiB |\n",
            r.name,
            count(r.gpus),
            count(r.first.devices),
            count(r.first.files),
            r.first.bytes as f64 / 1e6,
            ms(r.first.wall_ms),
            ms(r.again.wall_ms),
            ms(r.steady.wall_ms),
            ms(r.changed.wall_ms),
            per_switch(&r.first),
            per_switch(&r.again),
            r.first.peak_rss_mib,
            peak,
        ));
    }
    s
}

/// The size sweep: time per switch from the smallest to the largest fabric.
pub fn sweep(rows: &[Renders]) -> String {
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
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(100_000), "100,000");
        assert_eq!(count(999), "999");
        assert_eq!(ms(1234.4), "1,234 ms");
        assert_eq!(ms(87.6), "88 ms");
    }
}
