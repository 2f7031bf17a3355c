//! What the lab's switches hold, read from the kernel and FRR, and what the analysis says they should:
//! each switch's BGP routes in its kernel FIB (prefix to next-hop addresses), its BGP sessions, and the
//! same FIB computed from the model ([`crate::check::paths`]).

use crate::check::paths::{Fabric, LinkId, Node, Routes};
use crate::check::pathvector::Computed;
use crate::model::FabricModel;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

/// One switch's BGP routes: prefix (`10.20.0.1/32`) to its next-hop addresses.
pub type Fib = BTreeMap<String, BTreeSet<Ipv4Addr>>;

/// Why a switch's routes or sessions could not be read: the command whose output was not JSON.
#[derive(Debug, thiserror::Error)]
pub enum FibError {
    /// `ip -j route show proto bgp` printed no JSON.
    #[error("ip -j route: {0}")]
    Kernel(#[source] serde_json::Error),
    /// `show bgp summary json` printed no JSON.
    #[error("show bgp summary json: {0}")]
    Sessions(#[source] serde_json::Error),
}

/// Parses `ip -j route show proto bgp`: single-path routes carry `gateway`, multipath routes
/// `nexthops` (also when the kernel holds them as a nexthop group).
pub fn parse_kernel(json: &str) -> Result<Fib, FibError> {
    let v: Value = serde_json::from_str(json).map_err(FibError::Kernel)?;
    let mut fib = Fib::new();
    for r in v.as_array().into_iter().flatten() {
        let Some(dst) = r["dst"].as_str() else {
            continue;
        };
        let dst = if dst.contains('/') {
            dst.to_string()
        } else {
            format!("{dst}/32")
        };
        let hops = fib.entry(dst).or_default();
        let mut add = |h: &Value| {
            if let Some(ip) = h["gateway"].as_str().and_then(|g| g.parse().ok()) {
                hops.insert(ip);
            }
        };
        add(r);
        for h in r["nexthops"].as_array().into_iter().flatten() {
            add(h);
        }
    }
    Ok(fib)
}

/// Parses `show bgp summary json`: neighbor address to whether its session is Established.
pub fn parse_sessions(json: &str) -> Result<BTreeMap<Ipv4Addr, bool>, FibError> {
    let v: Value = serde_json::from_str(json).map_err(FibError::Sessions)?;
    let mut out = BTreeMap::new();
    let peers = v["ipv4Unicast"]["peers"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (ip, p) in peers {
        if let Ok(ip) = ip.parse() {
            out.insert(ip, p["state"] == "Established");
        }
    }
    Ok(out)
}

/// What the analysis lets a switch install for one prefix whose next hops depend on which eBGP
/// session came up first ([`crate::check::ties`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admit {
    /// Some choice leaves the switch without a route.
    pub none: bool,
    /// Per length it may settle at: the next hops it installs then, and those it may.
    pub sets: Vec<(BTreeSet<Ipv4Addr>, BTreeSet<Ipv4Addr>)>,
    /// Its `maximum-paths`.
    pub width: usize,
}

impl Admit {
    /// Whether `got` (None: no route) is one of the outcomes.
    pub fn admits(&self, got: Option<&BTreeSet<Ipv4Addr>>) -> bool {
        let Some(g) = got else {
            return self.none;
        };
        self.sets.iter().any(|(must, may)| {
            let inside = g.iter().all(|h| must.contains(h) || may.contains(h));
            inside && !g.is_empty() && (g.len() >= self.width || must.is_subset(g))
        })
    }
}

/// Every switch's FIB as the analysis computes it: the outcome where every tie between equal eBGP
/// paths goes to the lowest router-id, and per switch the prefixes whose next hops depend on which
/// session came up first, with what they may be.
#[derive(Clone, Debug, Default)]
pub struct Expect {
    /// Per switch, the router-id outcome.
    pub fibs: Vec<Fib>,
    /// Per switch, the prefixes with more than one outcome.
    pub open: Vec<BTreeMap<String, Admit>>,
}

impl Expect {
    /// Whether switch `i`'s `got` is the router-id outcome, or one the tie-break allows prefix by
    /// prefix.
    pub fn holds(&self, i: usize, got: &Fib) -> bool {
        let want = &self.fibs[i];
        if got == want {
            return true;
        }
        let open = &self.open[i];
        let keys: BTreeSet<&String> = got.keys().chain(want.keys()).collect();
        keys.into_iter().all(|k| match open.get(k) {
            Some(a) => a.admits(got.get(k)),
            None => got.get(k) == want.get(k),
        })
    }

    /// Whether every switch's FIB is exactly the router-id outcome.
    pub fn exact(&self, got: &[Fib]) -> bool {
        got.iter().zip(&self.fibs).all(|(g, w)| g == w)
    }

    /// Switch `i`'s `got` without the prefixes whose outcome the tie-break allows (for listing what
    /// differs), and the router-id outcome without them.
    fn unexplained(&self, i: usize, got: &Fib) -> (Fib, Fib) {
        let keep = |k: &String| self.open[i].get(k).is_none_or(|a| !a.admits(got.get(k)));
        let g = got
            .iter()
            .filter(|(k, _)| keep(k))
            .map(|(k, v)| (k.clone(), v.clone()));
        let w = self.fibs[i]
            .iter()
            .filter(|(k, _)| keep(k))
            .map(|(k, v)| (k.clone(), v.clone()));
        (g.collect(), w.collect())
    }
}

/// [`expected`] with the outcomes the eBGP tie-break allows: `computed` holds one computation per
/// destination switch.
pub fn expect(model: &FabricModel, fabric: &Fabric, computed: &[Computed]) -> Expect {
    let routes: Vec<Routes> = computed.iter().map(|c| c.routes.clone()).collect();
    let mut out = Expect {
        fibs: expected(model, fabric, &routes),
        open: vec![BTreeMap::new(); fabric.len()],
    };
    let hop = |s: usize, l: LinkId| {
        let k = &fabric.links[l as usize];
        k.ip_of(k.other(s as Node))
    };
    for c in computed {
        let Some(t) = &c.ties else {
            continue;
        };
        let o = c.routes.origin as usize;
        for s in (0..fabric.len()).filter(|&s| s != o) {
            let admit = Admit {
                none: t.may_lose[s],
                sets: t.hops[s]
                    .iter()
                    .map(|h| {
                        let must = h.must.iter().map(|&l| hop(s, l)).collect();
                        (must, h.may.iter().map(|&l| hop(s, l)).collect())
                    })
                    .collect(),
                width: fabric.max_paths[s].max(1) as usize,
            };
            for n in &model.devices[o].bgp.networks {
                out.open[s].insert(n.to_string(), admit.clone());
            }
        }
    }
    out
}

/// The FIB of every switch as the analysis computes it for `routes` (one [`Routes`] per destination
/// switch, in model order).
pub fn expected(model: &FabricModel, fabric: &Fabric, routes: &[Routes]) -> Vec<Fib> {
    let mut fibs = vec![Fib::new(); fabric.len()];
    for r in routes {
        let nets = &model.devices[r.origin as usize].bgp.networks;
        for (s, via) in r.via.iter().enumerate() {
            if s == r.origin as usize || via.is_empty() {
                continue;
            }
            let hops: BTreeSet<Ipv4Addr> = via
                .iter()
                .map(|&l| fabric.links[l as usize].ip_of(fabric.links[l as usize].other(s as Node)))
                .collect();
            for n in nets {
                fibs[s].insert(n.to_string(), hops.clone());
            }
        }
    }
    fibs
}

/// The next-hop links of every switch towards `origin` in the FIBs the lab holds: the [`Routes`] the
/// valley search reads, from FRR's own choice (its first prefix stands for all of them).
pub fn installed(
    model: &FabricModel,
    fabric: &Fabric,
    fibs: &[Fib],
    origin: Node,
    failed: Option<LinkId>,
) -> Routes {
    let n = fabric.len();
    let mut via = vec![Vec::new(); n];
    let mut dist = vec![crate::check::paths::UNREACHABLE; n];
    dist[origin as usize] = 0;
    let Some(prefix) = model.devices[origin as usize].bgp.networks.first() else {
        return Routes {
            origin,
            failed,
            dist,
            via,
        };
    };
    for (s, fib) in fibs.iter().enumerate() {
        let Some(hops) = fib.get(&**prefix) else {
            continue;
        };
        for &(_, l) in fabric.links_of(s as Node) {
            let link = &fabric.links[l as usize];
            if hops.contains(&link.ip_of(link.other(s as Node))) {
                via[s].push(l);
            }
        }
        if !via[s].is_empty() {
            dist[s] = 1;
        }
    }
    Routes {
        origin,
        failed,
        dist,
        via,
    }
}

/// How many switches' differences a report lists line by line; the others are counted.
pub const SWITCHES_LISTED: usize = 4;

/// The differences between every switch's FIB and the analysis's, as lines: those of the first
/// [`SWITCHES_LISTED`] switches that differ (at most 3 prefixes each), then a count of the rest. A
/// prefix whose next hops depend on session age differs only when FRR's are none of the outcomes the
/// analysis allows; the line then compares with the router-id outcome.
pub fn all_differences(names: &[crate::model::Name], got: &[Fib], want: &Expect) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = 0;
    for (i, g) in got.iter().enumerate() {
        if want.holds(i, g) {
            continue;
        }
        differ += 1;
        if differ <= SWITCHES_LISTED {
            let (g, w) = want.unexplained(i, g);
            out.extend(differences(&names[i], &g, &w, 3));
        }
    }
    if differ > SWITCHES_LISTED {
        out.push(format!(
            "and {} more switches differ ({differ} in all)",
            differ - SWITCHES_LISTED
        ));
    }
    out
}

/// The differences between what a switch holds and what the analysis computed, as lines (at most
/// `limit`, then a count).
pub fn differences(name: &str, got: &Fib, want: &Fib, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let keys: BTreeSet<&String> = got.keys().chain(want.keys()).collect();
    for k in keys {
        let (g, w) = (got.get(k), want.get(k));
        if g == w {
            continue;
        }
        let list = |h: &mut dyn Iterator<Item = &Ipv4Addr>| {
            let all: Vec<String> = h.map(Ipv4Addr::to_string).collect();
            match all.len() {
                0..=4 => all.join(" "),
                n => format!("{} and {} more", all[..4].join(" "), n - 4),
            }
        };
        let line = match (g, w) {
            (None, Some(w)) => format!(
                "FRR has no route, the analysis computes {} next hops ({})",
                w.len(),
                list(&mut w.iter())
            ),
            (Some(g), None) => format!(
                "FRR installs {} next hops ({}), the analysis computes no route",
                g.len(),
                list(&mut g.iter())
            ),
            (Some(g), Some(w)) => {
                let mut d = format!(
                    "FRR installs {} next hops, the analysis {}",
                    g.len(),
                    w.len()
                );
                if w.difference(g).next().is_some() {
                    d.push_str(&format!("; missing {}", list(&mut w.difference(g))));
                }
                if g.difference(w).next().is_some() {
                    d.push_str(&format!("; not computed {}", list(&mut g.difference(w))));
                }
                d
            }
            (None, None) => continue,
        };
        out.push(format!("{name}: {k}: {line}"));
    }
    if out.len() > limit {
        let more = out.len() - limit;
        out.truncate(limit);
        out.push(format!("{name}: and {more} more prefixes differ"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_routes_single_and_multipath() {
        let json = r#"[{"dst":"10.20.0.2","gateway":"10.21.0.0","dev":"swp61","protocol":"bgp"},
            {"dst":"10.22.0.8/31","nhid":40,"protocol":"bgp","nexthops":[
              {"gateway":"10.21.0.0","dev":"swp61"},{"gateway":"10.21.0.2","dev":"swp62"}]}]"#;
        let fib = parse_kernel(json).expect("parse");
        assert_eq!(fib["10.20.0.2/32"].len(), 1);
        assert_eq!(fib["10.22.0.8/31"].len(), 2);
        let s = parse_sessions(
            r#"{"ipv4Unicast":{"peers":{"10.21.0.0":{"state":"Established"},"10.21.0.2":{"state":"Active"}}}}"#,
        )
        .expect("parse");
        assert_eq!(s.values().filter(|&&up| up).count(), 1);
    }
}
