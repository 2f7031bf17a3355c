//! The cabling plan as CSV and the fabric's summary table.

use super::*;

/// The cabling plan: one row per cable.
pub(crate) fn csv(m: &FabricModel) -> String {
    let mut s = String::from("device,port,peer,peer_port,speed,cable_length,tier,subnet\n");
    for l in &m.links {
        let _ = writeln!(
            s,
            "{},{},{},{},{}G,{}m,{},{}",
            l.b,
            l.b_port,
            l.a,
            l.a_port,
            l.speed_gbps,
            l.cable_m,
            l.tier,
            l.subnet.as_deref().unwrap_or("")
        );
    }
    s
}

/// The summary table.
pub(crate) fn summary(m: &FabricModel) -> String {
    let s = &m.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "fabric {}: {} GPUs on {} servers",
        m.name, s.gpus, s.servers
    );
    let _ = writeln!(out, "{:<28} {:>10}", "devices", "count");
    for (k, v) in [
        ("leaves", s.leaves),
        ("spines", s.spines),
        ("super-spines", s.super_spines),
    ] {
        if v > 0 {
            let _ = writeln!(out, "  {k:<26} {v:>10}");
        }
    }
    let _ = writeln!(out, "{:<28} {:>10}", "links", "count");
    for (k, v) in [
        (LinkTier::ServerLeaf, s.server_links),
        (LinkTier::LeafSpine, s.leaf_spine_links),
        (LinkTier::SpineSuperSpine, s.spine_super_spine_links),
    ] {
        if v > 0 {
            let _ = writeln!(out, "  {k:<26} {v:>10}");
        }
    }
    let _ = writeln!(out, "oversubscription");
    let _ = writeln!(out, "  {:<26} {:>10}", "leaf", s.leaf_oversubscription);
    if let Some(o) = &s.spine_oversubscription {
        let _ = writeln!(out, "  {:<26} {:>10}", "spine", o);
    }
    let _ = writeln!(out, "{:<28} {:>10}", "leaf ECMP width", s.leaf_ecmp_width);
    let _ = writeln!(
        out,
        "{:<28} {:>10} {:>10}",
        "address pools", "used", "capacity"
    );
    for p in &s.pools {
        let _ = writeln!(
            out,
            "  {:<26} {:>10} {:>10}  {}",
            p.pool, p.used, p.capacity, p.prefix
        );
    }
    out
}
