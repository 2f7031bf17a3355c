//! Reads the lossless meaning back out of rendered NX-OS configs: a small parser of the running-config
//! text (two-space indentation per level, `!` comment lines). It never looks at the model.
//!
//! How each field is read:
//! - `lossless`: `pause pfc-cos <list>` in the classes of the network-qos policy attached under
//!   `system qos`. A CoS counts only in its own class (`c-8q-nqN` with `pause pfc-cos N`, `-default` = 0):
//!   aifab keeps qos-group = PFC CoS = queue (nxos.md §2, Cisco's recommendation), so a CoS paused
//!   from another class is a broken config, not a lossless priority.
//! - `dscp`: `match dscp` of each `class-map type qos` (lists and ranges expanded) through the
//!   `set qos-group` of the type qos policy on the ports; first matching class wins, as on the switch.
//!   A DSCP counts only when every PFC port applies a policy that maps it the same way.
//! - `watchdog`: NX-OS watches the no-drop queues, so the lossless set when
//!   `priority-flow-control watch-dog-interval on` is set globally and on every PFC port.
//! - `ecn` / `strict`: each PFC port's queuing policy (its own `service-policy type queuing output`,
//!   else the one attached under `system qos`), the same on every port: `random-detect ... ecn` and
//!   `priority level N` per `c-out-8q-qN` (`-default` = 0); thresholds in bytes (kbytes × 1024,
//!   mbytes × 1024²).
//! - `shapers`: `shape min .. max <n> <unit>` per queue of each PFC port's queuing policy, in kbit/s.
//! - `pfc_ports`: interfaces with `priority-flow-control mode on`.
//! - `dlb`: the `mode` under `hardware profile dlb` (flowlet when absent: the NX-OS default, nxos.md §5),
//!   when the profile has `dlb-interface`s; `dlb_mac`: its `mac-address`, the DLB next-hop MAC the
//!   switch takes as its own (with or without DLB interfaces).
//! - `qp_hash`: an `ip load-sharing address ... udf offset <n> length <m>` line.
use super::Meaning;
use aifab::render::OutFile;
use std::collections::{BTreeMap, BTreeSet};

/// One configuration line with the lines indented under it.
#[derive(Debug)]
struct Node {
    text: String,
    children: Vec<Node>,
}

impl Node {
    /// Child lines starting with `prefix` followed by a space (or equal to it), with the rest.
    fn with<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a Node, &'a str)> + 'a {
        self.children
            .iter()
            .filter_map(move |c| rest(&c.text, prefix).map(|r| (c, r)))
    }
}

/// `text` without `prefix`, when `text` is `prefix` or starts with `prefix` and a space.
fn rest<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let r = text.strip_prefix(prefix)?;
    if r.is_empty() {
        Some("")
    } else {
        r.strip_prefix(' ').map(str::trim)
    }
}

/// Parses the text into a tree by indentation; comment and blank lines are skipped.
fn parse(text: &str) -> Node {
    let mut root = Node {
        text: String::new(),
        children: Vec::new(),
    };
    // Stack of (indent, path of child indices from the root).
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for line in text.lines() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('!') {
            continue;
        }
        let indent = line.len() - body.len();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let path = stack.last().map(|(_, p)| p.clone()).unwrap_or_default();
        let mut parent = &mut root;
        for &i in &path {
            parent = &mut parent.children[i];
        }
        parent.children.push(Node {
            text: body.trim_end().to_string(),
            children: Vec::new(),
        });
        let mut mine = path;
        mine.push(parent.children.len() - 1);
        stack.push((indent, mine));
    }
    root
}

/// Expands `24,26`, `24-31`, `24 26`, `af31`, `cs3`, `ef` into DSCP values.
fn dscp_list(s: &str) -> BTreeSet<u8> {
    let mut out = BTreeSet::new();
    for item in s.split([',', ' ']).map(str::trim).filter(|x| !x.is_empty()) {
        if let Some((a, b)) = item.split_once('-') {
            let (a, b): (u8, u8) = (
                a.parse().expect("dscp range"),
                b.parse().expect("dscp range"),
            );
            out.extend(a..=b);
        } else if let Ok(v) = item.parse::<u8>() {
            out.insert(v);
        } else {
            out.insert(dscp_keyword(item).unwrap_or_else(|| panic!("unknown dscp value `{item}`")));
        }
    }
    out
}

fn dscp_keyword(k: &str) -> Option<u8> {
    if k == "ef" {
        return Some(46);
    }
    if k == "default" {
        return Some(0);
    }
    if let Some(n) = k.strip_prefix("cs") {
        return n.parse::<u8>().ok().filter(|n| *n <= 7).map(|n| n * 8);
    }
    let n = k.strip_prefix("af")?;
    let mut d = n.chars().filter_map(|c| c.to_digit(10));
    let (class, drop) = (d.next()? as u8, d.next()? as u8);
    Some(class * 8 + drop * 2)
}

/// `3`, `3,4`, `3-4` as a set.
fn number_list(s: &str) -> BTreeSet<u8> {
    let mut out = BTreeSet::new();
    for item in s.split([',', ' ']).map(str::trim).filter(|x| !x.is_empty()) {
        if let Some((a, b)) = item.split_once('-') {
            out.extend(a.parse::<u8>().expect("list")..=b.parse::<u8>().expect("list"));
        } else {
            out.insert(item.parse().expect("list"));
        }
    }
    out
}

/// Queue / qos-group number of a system class name: `<prefix>N` or `<prefix>-default` (0).
fn class_number(name: &str, prefix: &str) -> Option<u8> {
    let n = name.strip_prefix(prefix)?;
    if n == "-default" {
        Some(0)
    } else {
        n.parse().ok()
    }
}

/// Bytes of `<n> <unit>`.
fn bytes(n: &str, unit: &str) -> u64 {
    let n: u64 = n.parse().expect("threshold value");
    n * match unit {
        "bytes" => 1,
        "kbytes" => 1024,
        "mbytes" => 1024 * 1024,
        other => panic!("threshold unit `{other}` is not a byte unit"),
    }
}

/// `random-detect minimum-threshold A u maximum-threshold B u drop-probability P weight W ecn` →
/// (min bytes, max bytes, P) when it marks ECN.
fn random_detect(args: &str) -> Option<(u64, u64, u8)> {
    let t: Vec<&str> = args.split_whitespace().collect();
    if t.last() != Some(&"ecn") {
        return None;
    }
    let at = |k: &str| {
        t.iter()
            .position(|x| *x == k)
            .unwrap_or_else(|| panic!("random-detect without {k}: {args}"))
    };
    let min = at("minimum-threshold");
    let max = at("maximum-threshold");
    let prob = at("drop-probability");
    Some((
        bytes(t[min + 1], t[min + 2]),
        bytes(t[max + 1], t[max + 2]),
        t[prob + 1].parse().expect("drop-probability"),
    ))
}

/// Strict queues and ECN per queue: what every port's queuing policy must agree on.
type Scheduling = (BTreeSet<u8>, BTreeMap<u8, (u64, u64, u8)>);

/// One `policy-map type queuing`.
#[derive(Default)]
struct Queuing {
    strict: BTreeSet<u8>,
    ecn: BTreeMap<u8, (u64, u64, u8)>,
    /// `shape ... max <n> <unit>` per queue, kbit/s.
    shapers: BTreeMap<u8, u64>,
}

/// The maximum of `shape min <n> <unit> max <n> <unit>`, in kbit/s.
fn shape_max_kbps(args: &str) -> u64 {
    let t: Vec<&str> = args.split_whitespace().collect();
    let at = t
        .iter()
        .position(|x| *x == "max")
        .unwrap_or_else(|| panic!("shape without max: {args}"));
    let n: u64 = t[at + 1].parse().expect("shape max");
    n * match t[at + 2] {
        "kbps" => 1,
        "mbps" => 1_000,
        "gbps" => 1_000_000,
        other => panic!("shape unit `{other}`"),
    }
}

/// Extracts the meaning of one device's rendered files.
pub fn read(files: &[&OutFile]) -> Meaning {
    let text: String = files
        .iter()
        .map(|f| f.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let root = parse(&text);
    let mut m = Meaning::default();

    // Policies attached under `system qos`.
    let mut nqos = None;
    let mut queuing = None;
    for (sys, _) in root.with("system qos") {
        for (_, name) in sys.with("service-policy type network-qos") {
            nqos = Some(name.to_string());
        }
        for (_, name) in sys.with("service-policy type queuing output") {
            queuing = Some(name.to_string());
        }
    }

    // network-qos: lossless priorities.
    if let Some(name) = &nqos {
        for (pm, _) in root.with(&format!("policy-map type network-qos {name}")) {
            for (class, cname) in pm.with("class type network-qos") {
                let Some(group) = class_number(cname, "c-8q-nq") else {
                    continue;
                };
                for (_, cos) in class.with("pause pfc-cos") {
                    m.lossless
                        .extend(number_list(cos).into_iter().filter(|c| *c == group));
                }
            }
        }
    }

    // Queuing policies: ECN, strict priority and shapers per queue.
    let mut policies: BTreeMap<String, Queuing> = BTreeMap::new();
    for (pm, name) in root.with("policy-map type queuing") {
        let mut p = Queuing::default();
        for (class, cname) in pm.with("class type queuing") {
            let q = class_number(cname, "c-out-8q-q")
                .unwrap_or_else(|| panic!("queuing class `{cname}`"));
            if class.with("priority").next().is_some() {
                p.strict.insert(q);
            }
            for (_, args) in class.with("random-detect") {
                if let Some(e) = random_detect(args) {
                    p.ecn.insert(q, e);
                }
            }
            for (_, args) in class.with("shape") {
                p.shapers.insert(q, shape_max_kbps(args));
            }
        }
        policies.insert(name.to_string(), p);
    }

    // Classification: class-map → DSCPs, then each type qos policy → DSCP → qos-group.
    let mut class_maps: BTreeMap<String, BTreeSet<u8>> = BTreeMap::new();
    for (cm, args) in root.with("class-map type qos") {
        let (kind, name) = args
            .split_once(' ')
            .expect("class-map type qos <match-any|match-all> <name>");
        let sets: Vec<BTreeSet<u8>> = cm.with("match dscp").map(|(_, l)| dscp_list(l)).collect();
        let dscps = match kind {
            "match-all" => sets
                .into_iter()
                .reduce(|a, b| a.intersection(&b).copied().collect())
                .unwrap_or_default(),
            _ => sets.into_iter().flatten().collect(),
        };
        class_maps.insert(name.to_string(), dscps);
    }
    let mut qos_policies: BTreeMap<String, BTreeMap<u8, u8>> = BTreeMap::new();
    for (pm, name) in root.with("policy-map type qos") {
        let mut map = BTreeMap::new();
        for (class, cname) in pm.with("class") {
            let Some(group) = class
                .with("set qos-group")
                .map(|(_, g)| g.parse::<u8>().expect("qos-group"))
                .last()
            else {
                continue;
            };
            if cname == "class-default" {
                // class-default takes every DSCP no earlier class matched.
                for d in 0u8..64 {
                    map.entry(d).or_insert(group);
                }
                continue;
            }
            for d in class_maps.get(cname).into_iter().flatten() {
                map.entry(*d).or_insert(group);
            }
        }
        qos_policies.insert(name.to_string(), map);
    }

    // Interfaces.
    let global_wd = root
        .children
        .iter()
        .filter_map(|n| {
            rest(&n.text, "priority-flow-control watch-dog-interval").map(|v| v == "on")
        })
        .next_back()
        .unwrap_or(false);
    let mut all_ports_wd = true;
    let mut port_maps: Vec<BTreeMap<u8, u8>> = Vec::new();
    let mut port_queuing: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (intf, name) in root.with("interface") {
        let pfc = intf
            .with("priority-flow-control mode")
            .last()
            .is_some_and(|(_, mode)| mode.split_whitespace().next() == Some("on"));
        if !pfc {
            continue;
        }
        m.pfc_ports.insert(name.to_string());
        port_queuing.insert(
            name.to_string(),
            intf.with("service-policy type queuing output")
                .map(|(_, p)| p.to_string())
                .last(),
        );
        let wd = intf
            .with("priority-flow-control watch-dog-interval")
            .last()
            .is_some_and(|(_, v)| v == "on");
        all_ports_wd &= wd;
        let policy = intf
            .with("service-policy type qos input")
            .map(|(_, p)| p)
            .last();
        port_maps.push(
            policy
                .and_then(|p| qos_policies.get(p))
                .cloned()
                .unwrap_or_default(),
        );
    }
    if let Some((first, others)) = port_maps.split_first() {
        m.dscp = first
            .iter()
            .filter(|(d, g)| others.iter().all(|o| o.get(d) == Some(g)))
            .map(|(d, g)| (*d, *g))
            .collect();
    }
    if global_wd && all_ports_wd {
        m.watchdog = m.lossless.clone();
    }

    // Each PFC port's queuing: its own policy, else the one under `system qos`. Strict queues and ECN
    // must be the same on every port; shapers are per port (their rate follows the port's speed).
    let mut common: Option<Scheduling> = None;
    for (port, own) in &port_queuing {
        let Some(name) = own.as_ref().or(queuing.as_ref()) else {
            continue;
        };
        let p = policies
            .get(name)
            .unwrap_or_else(|| panic!("{port}: queuing policy {name} is not defined"));
        let mine = (p.strict.clone(), p.ecn.clone());
        match &common {
            None => common = Some(mine),
            Some(c) => assert_eq!(
                *c, mine,
                "{port}: queuing policy {name} schedules otherwise than the other ports'"
            ),
        }
        if !p.shapers.is_empty() {
            m.shapers.insert(port.clone(), p.shapers.clone());
        }
    }
    if let Some((strict, ecn)) = common {
        (m.strict, m.ecn) = (strict, ecn);
    }

    // DLB and QP hashing.
    for (dlb, _) in root.with("hardware profile dlb") {
        m.dlb_mac = dlb.with("mac-address").map(|(_, v)| v.to_string()).last();
        // A profile without DLB interfaces balances nothing: it only takes the DLB MAC.
        if dlb.with("dlb-interface").next().is_none() {
            continue;
        }
        let mode = dlb.with("mode").map(|(_, v)| v.to_string()).last();
        m.dlb = Some(mode.unwrap_or_else(|| "flowlet".to_string()));
    }
    m.qp_hash = root.with("ip load-sharing address").any(|(_, args)| {
        let t: Vec<&str> = args.split_whitespace().collect();
        t.windows(5).any(|w| {
            w[0] == "udf"
                && w[1] == "offset"
                && w[2].parse::<u32>().is_ok()
                && w[3] == "length"
                && w[4].parse::<u32>().is_ok()
        })
    });
    m
}
