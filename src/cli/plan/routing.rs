//! `aifab plan --format ecmp|buffers|buffers-json`: the ECMP widths and the lossless
//! buffer-dependency graph of the routes BGP installs (computed by `aifab::check::ecmp` and
//! `aifab::check::buffers`; printed here and by `aifab::picture::buffers`).

use super::*;
use aifab::check::buffers::{self, Buffers};
use aifab::check::ecmp;
use aifab::check::paths::Fabric;

/// The widths as CSV on stdout (a row per prefix of each destination leaf), the summary on stderr.
pub fn ecmp(m: &FabricModel, quiet: bool) {
    let fabric = Fabric::new(m);
    let rows = ecmp::table(&fabric);
    let name = |n: u32| &*fabric.names[n as usize];
    let mut s = String::from("leaf,destination,prefix,width,next_hops\n");
    for r in &rows {
        let d = &m.devices[r.origin as usize];
        let lo = format!("{}/32", d.loopback);
        let prefixes: Vec<&str> = std::iter::once(lo.as_str())
            .chain(d.bgp.networks.iter().map(|n| &**n).filter(|&n| n != lo))
            .collect();
        for (leaf, w) in &r.leaves {
            let hops: Vec<&str> = w.switches(&fabric, *leaf).into_iter().map(name).collect();
            for p in &prefixes {
                let _ = writeln!(
                    s,
                    "{},{},{p},{},{}",
                    name(*leaf),
                    name(r.origin),
                    w.text(),
                    hops.join(" ")
                );
            }
        }
    }
    super::super::emit(&s);
    if !quiet {
        eprint!("{}", ecmp_summary(m, &fabric, &rows));
    }
}

/// How many (leaf, destination leaf) pairs have each width, and those below the planned width.
fn ecmp_summary(m: &FabricModel, fabric: &Fabric, rows: &[ecmp::Row]) -> String {
    let planned = m.summary.leaf_ecmp_width;
    let s = ecmp::summary(rows, planned);
    let mut out = format!("ECMP width per (leaf, destination leaf), planned {planned}:\n");
    for ((min, max), n) in &s.by_width {
        let w = if min == max {
            min.to_string()
        } else {
            format!("{min}-{max} (depends on session order)")
        };
        let _ = writeln!(out, "  {w:<36} {n:>10} pairs");
    }
    if s.below == 0 {
        out.push_str("  every pair has the planned width under every session order\n");
    }
    if s.below > 0 {
        let _ = writeln!(out, "  {} pairs may have fewer than {planned}:", s.below);
    }
    let name = |n: u32| &*fabric.names[n as usize];
    for (leaf, to, w) in &s.first_below {
        let _ = writeln!(out, "    {} to {}: {}", name(*leaf), name(*to), w.text());
    }
    out
}

/// The buffer-dependency graph with the `--fail` failures, as dot or JSON. Exit 2 on a failure that
/// names nothing in the fabric.
pub fn buffers(m: &FabricModel, args: &Args) -> Exit {
    let fabric = Fabric::new(m);
    let mut failures = Vec::new();
    for f in &args.fail {
        match buffers::parse_failure(&fabric, f) {
            Ok(x) => failures.push(x),
            Err(e) => {
                eprintln!("error: --fail {f}: {e}");
                return Exit::Trouble;
            }
        }
    }
    let b = Buffers::build(&fabric, &failures);
    super::super::emit(&match args.format {
        Format::BuffersJson => picture::buffers::json(m, &fabric, &b),
        _ => picture::buffers::dot(m, &fabric, &b),
    });
    Exit::Success
}
