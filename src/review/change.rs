//! The change report: what a diff between two compiled fabrics means for a lossless fabric, in counts of
//! switches and ports, and how disruptive each change is. Every rule is documented in
//! `docs/change-report.md` and has a test.

use crate::model::{Device, FabricModel};
use crate::platform::Catalog;
use crate::units::Size;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How a change affects traffic while it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Applied in place, no traffic loss expected.
    NonDisruptive,
    /// Traffic is lost or sessions reset while it applies.
    Disruptive,
    /// Takes effect only after a reload of the switch.
    ReloadRequired,
}

impl Impact {
    /// Label for text and markdown.
    pub fn label(self) -> &'static str {
        match self {
            Impact::NonDisruptive => "non-disruptive",
            Impact::Disruptive => "disruptive",
            Impact::ReloadRequired => "reload required",
        }
    }
}

/// One line of the change report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Rule id (`CHG-ECN`).
    pub rule: &'static str,
    /// Impact.
    pub impact: Impact,
    /// What changed, with counts.
    pub summary: String,
    /// Switches affected.
    pub switches: usize,
    /// Ports affected (0 when the change is per switch).
    pub ports: usize,
}

/// `1 switch`, `3 switches`.
fn plural(n: usize, one: &str) -> String {
    let many = match one {
        "switch" => "switches",
        "port" => "ports",
        "link" => "links",
        other => other,
    };
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn list(v: &[u8]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
    }
}

/// Compares two compiled fabrics device by device and explains the differences.
pub fn report(old: &FabricModel, new: &FabricModel, catalog: &Catalog) -> Vec<Change> {
    let o: BTreeMap<&str, &Device> = old
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    let n: BTreeMap<&str, &Device> = new
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    let mut out = Vec::new();

    let added: Vec<&str> = n.keys().filter(|k| !o.contains_key(*k)).copied().collect();
    let removed: Vec<&str> = o.keys().filter(|k| !n.contains_key(*k)).copied().collect();
    if !added.is_empty() {
        out.push(Change {
            rule: "CHG-DEVICES",
            impact: Impact::NonDisruptive,
            summary: format!(
                "{} added ({})",
                plural(added.len(), "switch"),
                preview(&added)
            ),
            switches: added.len(),
            ports: 0,
        });
    }
    if !removed.is_empty() {
        out.push(Change {
            rule: "CHG-DEVICES",
            impact: Impact::Disruptive,
            summary: format!(
                "{} removed ({}): their links and BGP sessions go away",
                plural(removed.len(), "switch"),
                preview(&removed)
            ),
            switches: removed.len(),
            ports: 0,
        });
    }
    let both: Vec<(&Device, &Device)> = o
        .iter()
        .filter_map(|(k, a)| n.get(k).map(|b| (*a, *b)))
        .collect();

    // Platform.
    let plat: Vec<_> = both
        .iter()
        .filter(|(a, b)| a.platform != b.platform)
        .collect();
    if !plat.is_empty() {
        out.push(Change {
            rule: "CHG-PLATFORM",
            impact: Impact::Disruptive,
            summary: format!(
                "platform changed on {} (the switch is replaced and re-provisioned)",
                plural(plat.len(), "switch")
            ),
            switches: plat.len(),
            ports: 0,
        });
    }
    let same_platform: Vec<&(&Device, &Device)> = both
        .iter()
        .filter(|(a, b)| a.platform == b.platform)
        .collect();

    // Lossless priority set.
    let mut lossless: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (a, b) in &same_platform {
        if a.qos.lossless_priorities != b.qos.lossless_priorities {
            *lossless
                .entry((
                    list(&a.qos.lossless_priorities),
                    list(&b.qos.lossless_priorities),
                ))
                .or_default() += 1;
        }
    }
    for ((from, to), count) in lossless {
        out.push(Change {
            rule: "CHG-LOSSLESS",
            impact: Impact::Disruptive,
            summary: format!("lossless priority set changed {from}→{to} on {} (PFC and buffer re-carve: traffic loss while it applies)", plural(count, "switch")),
            switches: count,
            ports: 0,
        });
    }

    // ECN thresholds per priority.
    let mut ecn: BTreeMap<(u8, String), (BTreeSet<&str>, usize)> = BTreeMap::new();
    for (a, b) in &same_platform {
        for (qa, qb) in a.qos.queues.iter().zip(b.qos.queues.iter()) {
            let fa = qa
                .ecn
                .as_ref()
                .map(|e| (e.min_bytes, e.max_bytes, e.probability));
            let fb = qb
                .ecn
                .as_ref()
                .map(|e| (e.min_bytes, e.max_bytes, e.probability));
            if fa != fb {
                let what = ecn_text(fa, fb);
                let e = ecn.entry((qb.queue, what)).or_default();
                e.0.insert(b.hostname.as_str());
                e.1 += b.interfaces.len();
            }
        }
    }
    for ((prio, what), (sw, ports)) in ecn {
        out.push(Change {
            rule: "CHG-ECN",
            impact: Impact::NonDisruptive,
            summary: format!("ECN on priority {prio} changed {what} on {} of {} (non-disruptive: the queue keeps forwarding)", plural(ports, "port"), plural(sw.len(), "switch")),
            switches: sw.len(),
            ports,
        });
    }

    // Classification, scheduling, watchdog.
    let count = |f: &dyn Fn(&Device, &Device) -> bool| {
        same_platform.iter().filter(|(a, b)| f(a, b)).count()
    };
    let dscp = count(&|a, b| a.qos.dscp_to_tc != b.qos.dscp_to_tc);
    if dscp > 0 {
        out.push(Change {
            rule: "CHG-DSCP",
            impact: Impact::Disruptive,
            summary: format!("DSCP classification changed on {} (flows move between queues; lossless traffic may drop while ends disagree)", plural(dscp, "switch")),
            switches: dscp,
            ports: 0,
        });
    }
    let sched = count(&|a, b| {
        a.qos
            .queues
            .iter()
            .zip(b.qos.queues.iter())
            .any(|(x, y)| x.strict != y.strict || x.bandwidth != y.bandwidth)
    });
    if sched > 0 {
        out.push(Change {
            rule: "CHG-SCHED",
            impact: Impact::NonDisruptive,
            summary: format!(
                "queue scheduling (strict queues or bandwidth shares) changed on {}",
                plural(sched, "switch")
            ),
            switches: sched,
            ports: 0,
        });
    }
    let wd = count(&|a, b| {
        let (x, y) = (&a.qos.watchdog, &b.qos.watchdog);
        (x.enabled, x.detect_ms, x.restore_ms, x.action)
            != (y.enabled, y.detect_ms, y.restore_ms, y.action)
    });
    if wd > 0 {
        out.push(Change {
            rule: "CHG-WATCHDOG",
            impact: Impact::NonDisruptive,
            summary: format!("PFC watchdog settings changed on {}", plural(wd, "switch")),
            switches: wd,
            ports: 0,
        });
    }

    // DLB.
    let mut dlb_reload = 0;
    let mut dlb_live = 0;
    for (a, b) in &same_platform {
        let fa = a.dlb.as_ref().map(|d| {
            (
                d.mode,
                d.mac.clone(),
                d.flowlet_gap_us,
                d.interfaces.clone(),
            )
        });
        let fb = b.dlb.as_ref().map(|d| {
            (
                d.mode,
                d.mac.clone(),
                d.flowlet_gap_us,
                d.interfaces.clone(),
            )
        });
        if fa != fb {
            let reload = catalog
                .get(&b.platform)
                .is_some_and(|(_, p)| p.dlb.reload_required);
            if reload {
                dlb_reload += 1
            } else {
                dlb_live += 1
            }
        }
    }
    if dlb_reload > 0 {
        out.push(Change {
            rule: "CHG-DLB",
            impact: Impact::ReloadRequired,
            summary: format!(
                "DLB (hardware profile dlb) changed on {} (reload required)",
                plural(dlb_reload, "switch")
            ),
            switches: dlb_reload,
            ports: 0,
        });
    }
    if dlb_live > 0 {
        out.push(Change {
            rule: "CHG-DLB",
            impact: Impact::NonDisruptive,
            summary: format!(
                "DLB changed on {} (flows are re-spread once)",
                plural(dlb_live, "switch")
            ),
            switches: dlb_live,
            ports: 0,
        });
    }
    let qp = count(&|a, b| a.qp_hash.is_some() != b.qp_hash.is_some());
    if qp > 0 {
        out.push(Change {
            rule: "CHG-HASH",
            impact: Impact::NonDisruptive,
            summary: format!("RoCE QP hashing turned on or off on {} (ECMP rehash: flows move paths once, brief reordering)", plural(qp, "switch")),
            switches: qp,
            ports: 0,
        });
    }

    // Per-port: MTU, addressing. Links are counted once (by the upper end) and server ports once.
    let mut mtu_links = 0;
    let mut mtu_sw = BTreeSet::new();
    let mut addr_ports = 0;
    let mut addr_sw = BTreeSet::new();
    for (a, b) in &both {
        let ai: BTreeMap<&str, &crate::model::Interface> =
            a.interfaces.iter().map(|i| (i.name.as_str(), i)).collect();
        for ib in &b.interfaces {
            let Some(ia) = ai.get(ib.name.as_str()) else {
                continue;
            };
            let count_link = ib.kind == crate::model::PortKind::Server
                || ib.direction == crate::model::Direction::Down;
            if ia.mtu != ib.mtu {
                mtu_sw.insert(b.hostname.as_str());
                if count_link {
                    mtu_links += 1;
                }
            }
            if ia.address != ib.address || ia.vlan != ib.vlan {
                addr_sw.insert(b.hostname.as_str());
                if count_link {
                    addr_ports += 1;
                }
            }
        }
    }
    if mtu_links > 0 || !mtu_sw.is_empty() {
        out.push(Change {
            rule: "CHG-MTU",
            impact: Impact::Disruptive,
            summary: format!(
                "MTU changed on {} of {} (BGP sessions flap; both ends must change together)",
                plural(mtu_links, "link"),
                plural(mtu_sw.len(), "switch")
            ),
            switches: mtu_sw.len(),
            ports: mtu_links,
        });
    }
    if addr_ports > 0 || !addr_sw.is_empty() {
        out.push(Change {
            rule: "CHG-ADDR",
            impact: Impact::Disruptive,
            summary: format!(
                "addresses changed on {} of {} (sessions and server routes on them reset)",
                plural(addr_ports, "link"),
                plural(addr_sw.len(), "switch")
            ),
            switches: addr_sw.len(),
            ports: addr_ports,
        });
    }
    let asn = both
        .iter()
        .filter(|(a, b)| a.bgp.asn != b.bgp.asn || a.loopback != b.loopback)
        .count();
    if asn > 0 {
        out.push(Change {
            rule: "CHG-BGP",
            impact: Impact::Disruptive,
            summary: format!(
                "BGP ASN or router-id changed on {} (every session of those switches resets)",
                plural(asn, "switch")
            ),
            switches: asn,
            ports: 0,
        });
    }
    out.sort_by(|a, b| {
        b.impact
            .cmp(&a.impact)
            .then(a.rule.cmp(b.rule))
            .then(a.summary.cmp(&b.summary))
    });
    out
}

fn preview(names: &[&str]) -> String {
    let mut s = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(", … {} more", names.len() - 3));
    }
    s
}

fn ecn_text(a: Option<(u64, u64, u8)>, b: Option<(u64, u64, u8)>) -> String {
    match (a, b) {
        (None, Some((mi, ma, p))) => format!("off→on ({}-{}, {p}%)", Size(mi), Size(ma)),
        (Some(_), None) => "on→off".into(),
        (Some((mi1, ma1, p1)), Some((mi2, ma2, p2))) => {
            let mut parts = Vec::new();
            if mi1 != mi2 {
                parts.push(format!("min {}→{}", Size(mi1), Size(mi2)));
            }
            if ma1 != ma2 {
                parts.push(format!("max {}→{}", Size(ma1), Size(ma2)));
            }
            if p1 != p2 {
                parts.push(format!("probability {p1}%→{p2}%"));
            }
            parts.join(", ")
        }
        (None, None) => String::new(),
    }
}
