//! `aifab plan --format ecmp|buffers|buffers-json`: the ECMP widths and the lossless
//! buffer-dependency graph of the routes BGP installs (computed by `aifab::check::ecmp` and
//! `aifab::check::buffers`; printed here and by `aifab::picture::buffers`).

use super::*;
use aifab::check::buffers::{self, Buffers};
use aifab::check::ecmp;
use aifab::check::paths::Fabric;

/// The widths as CSV on stdout, a row per (leaf, destination leaf), printed as each chunk of
/// destinations is computed; the summary on stderr. Every prefix a destination announces (its
/// loopback, the row's `prefix`, and the server subnets `prefixes` counts) has the same width: one
/// origin. `only` keeps the rows of the leaves it matches.
pub(super) fn ecmp(m: &FabricModel, only: Option<&globset::GlobMatcher>, quiet: bool) {
    let fabric = Fabric::new(m);
    let name = |n: u32| &*fabric.names[n as usize];
    let planned = m.summary.leaf_ecmp_width;
    let mut summary = ecmp::Summary::default();
    super::super::emit("leaf,destination,prefix,prefixes,width,next_hops\n");
    ecmp::for_each_row(&fabric, |r| {
        summary.add(&r, planned);
        let d = &m.devices[r.origin as usize];
        let lo = format!("{}/32", d.loopback);
        let count = 1 + d.bgp.networks.iter().filter(|n| ***n != *lo).count();
        let mut s = String::new();
        for (leaf, w) in r
            .leaves
            .iter()
            .filter(|(l, _)| only.is_none_or(|g| g.is_match(name(*l))))
        {
            let hops: Vec<&str> = w.switches(&fabric, *leaf).into_iter().map(name).collect();
            let _ = writeln!(
                s,
                "{},{},{lo},{count},{},{}",
                name(*leaf),
                name(r.origin),
                w.text(),
                hops.join(" ")
            );
        }
        super::super::emit(&s);
    });
    if !quiet {
        eprint!("{}", ecmp_summary(&fabric, &summary, planned));
    }
}

/// How many (leaf, destination leaf) pairs have each width, and those below the planned width.
fn ecmp_summary(fabric: &Fabric, s: &ecmp::Summary, planned: u32) -> String {
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

/// The buffer-dependency graph with the `--fail` failures, as dot or JSON. Exit 2, each named, on the
/// failures that name nothing in the fabric.
pub(super) fn buffers(m: &FabricModel, args: &Args) -> Exit {
    let fabric = Fabric::new(m);
    let (mut failures, mut wrong) = (Vec::new(), false);
    for f in &args.fail {
        match buffers::parse_failure(&fabric, f) {
            Ok(x) => failures.push(x),
            Err(e) => {
                eprintln!("error: --fail {f}: {e}");
                wrong = true;
            }
        }
    }
    if wrong {
        return Exit::Trouble;
    }
    let b = Buffers::build(&fabric, &failures);
    super::super::emit(&match args.format {
        Format::BuffersJson => picture::buffers::json(m, &fabric, &b),
        _ => picture::buffers::dot(m, &fabric, &b),
    });
    Exit::Success
}
