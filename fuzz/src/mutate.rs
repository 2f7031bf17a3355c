//! Structure-aware mutation of a valid intent, driven by fuzzer bytes.
//!
//! Random bytes rarely get past the YAML loader and the JSON Schema, so compile and render are barely
//! reached by the byte-level `pipeline` target. Here the fuzzer's bytes are read by
//! [`arbitrary::Unstructured`] as a list of edits applied to one of the example intents
//! (`intents/*.yaml`): change a number (±1, ×2, ÷2, 0, limits, a random value), change the digits or
//! the unit inside a string (`400G` → `800G`, `10.0.0.0/24` → `10.0.0.0/33`, `4:1` → `4:0`), put in
//! hostname placeholders, swap in a dictionary value (platform names, modes, prefixes, MACs), delete
//! a key or list element, or graft an optional block (zones, super-spine, management, overrides…).
//! An empty input is the unmodified intent, so most inputs stay close to a valid one.

use arbitrary::{Result, Unstructured};
use serde_json::{Number, Value, json};
use std::sync::OnceLock;

const SEEDS: &[(&str, &str)] = &[
    (
        "three-tier-small",
        include_str!("../../intents/three-tier-small.yaml"),
    ),
    (
        "mixed-sonic-nxos",
        include_str!("../../intents/mixed-sonic-nxos.yaml"),
    ),
    ("pod1-1024", include_str!("../../intents/pod1-1024.yaml")),
    // Two-port NICs on two planes, `hosts:` (server files), rack leaves, breakout.
    (
        "hpn-dual-plane",
        include_str!("../../intents/hpn-dual-plane.yaml"),
    ),
    (
        "meta-rack-three-tier",
        include_str!("../../intents/meta-rack-three-tier.yaml"),
    ),
    (
        "breakout-small",
        include_str!("../../intents/breakout-small.yaml"),
    ),
];

/// The example intents as JSON values.
pub fn bases() -> &'static [Value] {
    static B: OnceLock<Vec<Value>> = OnceLock::new();
    B.get_or_init(|| {
        SEEDS
            .iter()
            .map(|(name, text)| {
                serde_norway::from_str::<Value>(text)
                    .unwrap_or_else(|e| panic!("seed intent {name} does not parse: {e}"))
            })
            .collect()
    })
}

/// Platforms in `vendors/*.yaml`, plus near misses.
const PLATFORMS: &[&str] = &[
    "eos/7060x5-64",
    "eos/7060x6",
    "eos/7800r3",
    "nxos/n9k-c9364d-gx2a",
    "nxos/n9k-c9332d-gx2b",
    "sonic/dell-z9332f-o32",
    "sonic/dell-z9664f-o64",
    "sonic/arista-7060dx5-64s",
    "sonic/arista-7060x6-64pe",
    "sonic/arista-7060x6-64pe-o128s2",
    "sonic/unknown-model",
    "eos/n9k-c9364d-gx2a",
];

/// Strings worth trying anywhere a string goes.
const STRINGS: &[&str] = &[
    "rail-optimized",
    "three-tier",
    "routed",
    "rail-subnet",
    "per-packet",
    "flowlet",
    "off",
    "drop",
    "alert",
    "leaf",
    "spine",
    "super-spine",
    "1:1",
    "2:1",
    "3:1",
    "4:1",
    "1:2",
    "3:2",
    "0:1",
    "100G",
    "200G",
    "400G",
    "800G",
    "25G",
    "1G",
    "0G",
    "1.5G",
    "3m",
    "0m",
    "2km",
    "100m",
    "4294967296m",
    "150KB",
    "1.5MB",
    "1MiB",
    "0KB",
    "153600",
    "1GB",
    "18446744073709551615B",
    "500us",
    "200ms",
    "1s",
    "1.5s",
    "0ms",
    "0%",
    "100%",
    "101%",
    "50%",
    "10.0.0.0/8",
    "10.0.0.0/31",
    "10.0.0.0/32",
    "10.0.0.0/30",
    "0.0.0.0/0",
    "255.255.255.254/31",
    "10.0.0.1/24",
    "192.168.0.0/16",
    "fd00::/64",
    "::/0",
    "2001:db8::/127",
    "10.0.0.1",
    "10.255.255.255",
    "192.168.10.0",
    "fe80::1",
    "00:cc:cc:cc:cc:cc",
    "01:00:5e:00:00:01",
    "ff:ff:ff:ff:ff:ff",
    "00:00:00:00:00:00",
    "1",
    "65000",
    "65000-65000",
    "65000-65001",
    "4294967294",
    "1-4294967294",
    "4200000000-4294967294",
    "64512-65534",
    "65535",
    "*",
    "su*",
    "spine[0-9]",
    "{index}",
    "{group}-{rail}",
    "z{zone}-g{group}-r{rail}",
    "s{index:02}",
    "{index:999}",
    "{zone}",
    "{plane}-{index}",
    "leaf",
    "",
    " ",
    "a",
    "A_b-c",
    "x\u{7}y",
    "tab\there",
    "new\nline",
    "é",
    "{{",
    "}",
    "{",
    "{index:}",
    "{index:x}",
    "{nope}",
];

/// Placeholder-ish fragments inserted into strings.
const FRAGMENTS: &[&str] = &[
    "{index}",
    "{group}",
    "{rail}",
    "{zone}",
    "{plane}",
    "{slot}",
    "{nic}",
    "{index:03}",
    "{group:02}",
    "{index:99}",
    "{index:0}",
    "{",
    "}",
    "{}",
    "{unknown}",
    "*",
    "?",
    "[",
    "]",
    "-",
    "_",
    ".",
    ":",
    "/",
    " ",
    "%",
    "0",
    "9",
    "é",
    "\u{7}",
    "\n",
    "\"",
    "'",
    "#",
    "&a",
    "!!int",
];

/// Unit suffixes swapped onto strings.
const UNITS: &[&str] = &[
    "", "G", "g", "M", "m", "km", "B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "kb", "us", "ms",
    "s", "%", "x",
];

/// Optional blocks grafted in: (parent pointer, key, value).
fn grafts() -> &'static [(&'static str, &'static str, Value)] {
    static G: OnceLock<Vec<(&'static str, &'static str, Value)>> = OnceLock::new();
    G.get_or_init(|| {
        vec![
            ("/fabric/topology", "kind", json!("three-tier")),
            ("/fabric/topology", "kind", json!("rail-optimized")),
            ("/fabric/topology", "zones", json!(2)),
            ("/fabric/topology", "zones", json!(1)),
            (
                "/fabric/topology",
                "super_spine",
                json!({"platform": "nxos/n9k-c9332d-gx2b", "hostname": "ss{index}", "count": 2}),
            ),
            (
                "/fabric/topology",
                "super_spine",
                json!({"platform": "sonic/arista-7060x6-64pe", "hostname": "p{plane}-ss{index}", "count": 4, "planes": 2}),
            ),
            ("/fabric/topology/super_spine", "planes", json!(2)),
            ("/fabric/topology/spine", "uplink_speed", json!("800G")),
            ("/fabric/topology/spine", "oversubscription", json!("2:1")),
            ("/fabric/topology/leaf", "oversubscription", json!("3:1")),
            ("/fabric/topology", "server_hostname", json!("gpu{group}-{slot}")),
            ("/fabric/topology", "server_nic", json!("eth{nic}")),
            ("/fabric/topology/cable_length", "spine_super_spine", json!("300m")),
            ("/fabric/addressing", "server_mode", json!("rail-subnet")),
            ("/fabric/addressing", "server_vlan", json!(4094)),
            (
                "/fabric",
                "management",
                json!({"subnet": "192.168.0.0/24", "gateway": "192.168.0.1",
                       "first": {"leaf": "192.168.0.100", "spine": "192.168.0.20", "super_spine": "192.168.0.10"}}),
            ),
            ("/fabric/management/first", "super_spine", json!("192.168.0.250")),
            ("/fabric/bgp", "super_spine_asn", json!("65001")),
            ("/fabric/bgp", "maximum_paths", json!(512)),
            ("/fabric", "mtu", json!(4200)),
            ("/fabric", "mtu", json!(9216)),
            ("/load_balancing/dlb", "mac", json!("00:cc:cc:cc:cc:cc")),
            ("/load_balancing/dlb", "flowlet_gap", json!("100us")),
            ("/load_balancing/dlb", "mode", json!("per-packet")),
            ("/load_balancing/dlb", "roles", json!(["leaf", "spine", "super-spine"])),
            ("/load_balancing/hash", "roles", json!(["spine", "super-spine"])),
            ("/load_balancing/hash", "roce_dest_qp", json!(false)),
            ("/qos/pfc_watchdog", "enabled", json!(false)),
            ("/qos/pfc_watchdog", "action", json!("alert")),
            (
                "/qos/classes",
                "bulk",
                json!({"dscp": [10, 12], "priority": 1, "bandwidth": "10%"}),
            ),
            (
                "/qos/classes",
                "storage",
                json!({"dscp": [18], "priority": 2, "lossless": true,
                       "ecn": {"min": "100KB", "max": "1MB", "probability": "5%"}, "bandwidth": "5%"}),
            ),
            ("/qos/classes/roce", "strict", json!(true)),
            ("/qos/classes/cnp", "lossless", json!(true)),
            (
                "",
                "overrides",
                json!([{"match": "*", "dlb": "off"}]),
            ),
            (
                "",
                "overrides",
                json!([{"match": "spine1", "platform": "eos/7800r3", "roce_dest_qp": false},
                       {"match": "*leaf*", "platform": "sonic/arista-7060x6-64pe", "management": "10.9.9.9"}]),
            ),
            ("/overrides/0", "platform", json!("sonic/dell-z9332f-o32")),
            ("/overrides/0", "management", json!("192.168.0.77")),
            ("/overrides/0", "dlb", json!("flowlet")),
            ("/overrides/0", "roce_dest_qp", json!(true)),
            // Homing, rack leaves, breakout and the servers' side.
            ("/fabric/topology", "nic_ports", json!(2)),
            ("/fabric/topology", "homing", json!("two-leaves")),
            ("/fabric/topology", "homing", json!("two-planes")),
            ("/fabric/topology", "homing", json!("same-leaf")),
            ("/fabric/topology", "server_nic", json!("eth{nic}p{port}")),
            ("/fabric/topology/leaf", "attachment", json!("rack")),
            ("/fabric/topology/leaf", "hostname", json!("s{group}-r{rail}-p{plane}")),
            ("/fabric/topology/leaf", "breakout", json!("2x200G")),
            ("/fabric/topology/spine", "breakout", json!("4x100G")),
            ("/fabric/topology", "nic_speed", json!("200G")),
            (
                "",
                "hosts",
                json!({"nic": "connectx", "data_class": "roce", "cts_class": "cts", "cnp_class": "cnp",
                       "nccl": {"gid_index": 3, "qps_per_connection": 4, "hca": "mlx5_{index}"},
                       "kubernetes": {"ipam": "spiderpool", "cni": "sriov", "namespace": "kube-system",
                                      "resource": "spidernet.io/rail{rail}p{port}"}}),
            ),
            ("/hosts", "enabled", json!(false)),
        ]
    })
}

/// Builds a mutated intent from fuzzer bytes: YAML text.
pub fn generate(u: &mut Unstructured) -> Result<String> {
    let mut v = u.choose(bases())?.clone();
    let edits = u.int_in_range(0..=12u8)?;
    for _ in 0..edits {
        if u.is_empty() {
            break;
        }
        edit(u, &mut v)?;
    }
    Ok(serde_norway::to_string(&v).unwrap_or_else(|_| serde_json::to_string(&v).unwrap()))
}

/// Every node's JSON pointer (containers included, the root excluded).
fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(c, &p, out);
            }
        }
        _ => {}
    }
}

fn edit(u: &mut Unstructured, root: &mut Value) -> Result<()> {
    // 1 in 5: graft an optional block; otherwise edit an existing node.
    if u.ratio(1u8, 5u8)? {
        let (parent, key, val) = u.choose(grafts())?;
        if let Some(Value::Object(m)) = root.pointer_mut(parent) {
            m.insert((*key).to_string(), val.clone());
        }
        return Ok(());
    }
    let mut ptrs = Vec::new();
    pointers(root, "", &mut ptrs);
    let ptr = u.choose(&ptrs)?.clone();
    let op = u.int_in_range(0..=19u8)?;
    if op == 0 {
        // Delete the node.
        let (parent, last) = ptr.rsplit_once('/').unwrap_or(("", &ptr));
        let last = last.replace("~1", "/").replace("~0", "~");
        match root.pointer_mut(parent) {
            Some(Value::Object(m)) => {
                m.shift_remove(&last);
            }
            Some(Value::Array(a)) => {
                if let Ok(i) = last.parse::<usize>()
                    && i < a.len()
                {
                    a.remove(i);
                }
            }
            _ => {}
        }
        return Ok(());
    }
    if op == 1 {
        // Replace with any dictionary value, of any type.
        let new = any_value(u)?;
        if let Some(n) = root.pointer_mut(&ptr) {
            *n = new;
        }
        return Ok(());
    }
    let Some(node) = root.pointer_mut(&ptr) else {
        return Ok(());
    };
    match node {
        Value::Number(n) => *node = mutate_number(u, n)?,
        Value::String(s) => *s = mutate_string(u, s)?,
        Value::Bool(b) => *b = !*b,
        Value::Null => *node = any_value(u)?,
        Value::Array(a) => match u.int_in_range(0..=3u8)? {
            0 if !a.is_empty() => {
                let i = u.choose_index(a.len())?;
                let c = a[i].clone();
                a.push(c);
            }
            1 => a.push(any_value(u)?),
            2 => a.clear(),
            _ => a.reverse(),
        },
        Value::Object(m) => match u.int_in_range(0..=2u8)? {
            0 if !m.is_empty() => {
                // Rename a key (class names, or a typo'd field).
                let keys: Vec<String> = m.keys().cloned().collect();
                let k = u.choose(&keys)?.clone();
                if let Some(val) = m.shift_remove(&k) {
                    let nk = mutate_string(u, &k)?;
                    m.insert(nk, val);
                }
            }
            1 if !m.is_empty() => {
                // Copy one entry under a new key.
                let keys: Vec<String> = m.keys().cloned().collect();
                let k = u.choose(&keys)?.clone();
                let val = m[&k].clone();
                let nk = format!("{k}{}", u.int_in_range(2..=9u8)?);
                m.insert(nk, val);
            }
            _ => {
                let k = (*u.choose(STRINGS)?).to_string();
                let val = any_value(u)?;
                m.insert(k, val);
            }
        },
    }
    Ok(())
}

fn any_value(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.int_in_range(0..=130u32)?),
        3 => json!(u.arbitrary::<i64>()?),
        4 => json!(1.5),
        5 => json!([]),
        6 => json!({}),
        7 => json!(*u.choose(PLATFORMS)?),
        _ => json!(*u.choose(STRINGS)?),
    })
}

fn interesting_u64(u: &mut Unstructured, n: u64) -> Result<u64> {
    Ok(match u.int_in_range(0..=12u8)? {
        0 => n.wrapping_add(1),
        1 => n.wrapping_sub(1),
        2 => n.wrapping_mul(2),
        3 => n / 2,
        4 => 0,
        5 => 1,
        6 => u.int_in_range(0..=130)?,
        7 => (u32::MAX as u64)
            .wrapping_add(u.int_in_range(0..=2)?)
            .wrapping_sub(1),
        8 => 1u64 << u.int_in_range(0..=63)?,
        9 => n.wrapping_mul(u.int_in_range(3..=16)?),
        10 => u64::MAX,
        11 => (u16::MAX as u64)
            .wrapping_add(u.int_in_range(0..=2)?)
            .wrapping_sub(1),
        _ => u.arbitrary()?,
    })
}

fn mutate_number(u: &mut Unstructured, n: &Number) -> Result<Value> {
    let base = n.as_u64().unwrap_or(0);
    Ok(match u.int_in_range(0..=9u8)? {
        0 => json!(-(u.int_in_range(1..=i64::MAX)?)),
        1 => json!(base as f64 + 0.5),
        _ => json!(interesting_u64(u, base)?),
    })
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate_string(u: &mut Unstructured, s: &str) -> Result<String> {
    Ok(match u.int_in_range(0..=9u8)? {
        // Change one run of digits (most strings are numbers with units, prefixes, ranges, ratios).
        0..=3 => {
            let runs: Vec<(usize, usize)> = digit_runs(s);
            if runs.is_empty() {
                format!("{s}{}", interesting_u64(u, 1)?)
            } else {
                let (a, b) = *u.choose(&runs)?;
                let n: u64 = s[a..b].parse().unwrap_or(u64::MAX);
                let new = interesting_u64(u, n)?;
                format!("{}{}{}", &s[..a], new, &s[b..])
            }
        }
        // Swap the unit suffix.
        4 => {
            let stem = s.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
            format!("{stem}{}", u.choose(UNITS)?)
        }
        5 => (*u.choose(STRINGS)?).to_string(),
        6 => (*u.choose(PLATFORMS)?).to_string(),
        // Insert a fragment.
        7 => {
            let at = floor_boundary(s, u.int_in_range(0..=s.len())?);
            format!("{}{}{}", &s[..at], u.choose(FRAGMENTS)?, &s[at..])
        }
        // Delete a range.
        8 => {
            let a = floor_boundary(s, u.int_in_range(0..=s.len())?);
            let b = floor_boundary(s, u.int_in_range(a..=s.len())?);
            format!("{}{}", &s[..a], &s[b..])
        }
        _ => {
            // A whole-sale arbitrary short string.
            let len = u.int_in_range(0..=12usize)?;
            let mut out = String::new();
            for _ in 0..len {
                out.push(u.arbitrary::<char>()?);
            }
            out
        }
    })
}

fn digit_runs(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let j = (i..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Convenience for tests and tools: the intent an input decodes to.
pub fn decode(data: &[u8]) -> Option<String> {
    generate(&mut Unstructured::new(data)).ok()
}
