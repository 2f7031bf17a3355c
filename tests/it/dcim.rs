//! `aifab dcim sync|check` against a real Nautobot (docs/dcim.md): the one `.ci/nautobot.sh` starts
//! (its address and token in `.ci/nautobot.env`), or the one `AIFAB_NAUTOBOT_URL` and
//! `AIFAB_NAUTOBOT_TOKEN` name. Without one, the tests skip with one line (and fail under CI=true).
//! Each test syncs its own fabric name, so its tag, location and IPAM namespace are its own; objects
//! an earlier run left are deleted first.

use crate::common::{Scratch, aifab_command, model, prerequisite, root};
use aifab::dcim::http::{Client, q};
use aifab::model::LinkTier;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The test server's address and token.
struct Server {
    url: String,
    token: String,
}

impl Server {
    fn client(&self) -> Client {
        Client::new(&self.url, &self.token, Duration::from_secs(600))
    }
}

/// The server from the environment or `.ci/nautobot.env`, when it answers.
fn server() -> Option<Server> {
    let mut url = std::env::var("AIFAB_NAUTOBOT_URL").ok();
    let mut token = std::env::var("AIFAB_NAUTOBOT_TOKEN").ok();
    if url.is_none() || token.is_none() {
        let text = std::fs::read_to_string(root().join(".ci/nautobot.env")).unwrap_or_default();
        for line in text.lines() {
            match line.split_once('=') {
                Some(("AIFAB_NAUTOBOT_URL", v)) => url = Some(v.to_string()),
                Some(("AIFAB_NAUTOBOT_TOKEN", v)) => token = Some(v.to_string()),
                _ => {}
            }
        }
    }
    let s = Server {
        url: url?,
        token: token?,
    };
    let up = Client::new(&s.url, &s.token, Duration::from_secs(10))
        .call("GET", "status/", None, "status")
        .is_ok();
    prerequisite(
        up,
        "Nautobot tests (tests/it/dcim.rs)",
        "no Nautobot answers at AIFAB_NAUTOBOT_URL or in .ci/nautobot.env",
        "bash .ci/nautobot.sh (Debian's postgresql and redis-server, Nautobot from PyPI)",
    )
    .then_some(s)
}

/// `intent` copied into `dir` with the fabric renamed `name`.
fn renamed(intent: &str, name: &str, dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join(intent)).expect("read intent");
    let mut done = false;
    let text: String = text
        .lines()
        .map(|l| {
            if !done && l.starts_with("  name: ") {
                done = true;
                format!("  name: {name}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, edit(text)).expect("write intent");
    path
}

/// Runs `aifab dcim <action> <intent> --format json` against the server, in the fabric's own
/// namespace (the intent's file name; `Global` for the examples as they are): its exit code and report.
fn dcim(s: &Server, action: &str, intent: &Path, extra: &[&str]) -> (i32, Value) {
    let stem = intent.file_stem().and_then(|n| n.to_str()).expect("stem");
    let name = if intent.starts_with(root().join("intents")) {
        "Global"
    } else {
        stem
    };
    let started = std::time::Instant::now();
    let o = aifab_command()
        .args(["dcim", action])
        .arg(intent)
        .args([
            "--nautobot",
            &s.url,
            "--namespace",
            name,
            "--format",
            "json",
            "-q",
        ])
        .args(extra)
        .env("NAUTOBOT_TOKEN", &s.token)
        .output()
        .expect("run aifab");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains(&s.token), "the token was printed");
    let report = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("dcim {action}: {e}: {stderr}"));
    record(stem, action, extra, &report, started.elapsed());
    (o.status.code().unwrap_or(-1), report)
}

/// Where each sync's time is recorded (`.ci/run` prints it after the tests; docs/dcim.md, "Speed").
fn bench_file() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join("dcim-bench.md")
}

/// Appends one row to [`bench_file`]: the run, its objects written and requests, its time, and the
/// objects written per second (the measure the extrapolation in docs/dcim.md scales).
fn record(fabric: &str, action: &str, extra: &[&str], report: &Value, took: Duration) {
    use std::io::Write as _;
    let n = |k: &str| report[k].as_u64().unwrap_or(0);
    let secs = took.as_secs_f64();
    let rate = if n("write_requests") > 0 && secs > 0.0 {
        format!("{:.1}", n("writes") as f64 / secs)
    } else {
        "-".to_string()
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let row = format!(
        "| {fabric} | {action} {} | {} | {} | {} | {secs:.1} | {rate} | {} |\n",
        extra.join(" "),
        n("writes"),
        n("write_requests"),
        n("read_requests"),
        load.split_whitespace().next().unwrap_or("?"),
    );
    let path = bench_file();
    let fresh = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if fresh {
            let _ = f.write_all(b"| fabric | run | objects written | write requests | read requests | seconds | objects/s | load |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
        }
        let _ = f.write_all(row.as_bytes());
    }
}

/// Every object tagged for `fabric` at `endpoint`.
fn tagged(c: &Client, endpoint: &str, fabric: &str) -> Vec<Value> {
    c.list(
        &format!("{endpoint}?tags={}", q(&format!("aifab:{fabric}"))),
        endpoint,
    )
    .unwrap_or_default()
}

/// Deletes what an earlier run of a test left of `fabric`.
/// The serial number of the device a test makes by hand in `fabric`'s location.
fn hand_serial(fabric: &str) -> String {
    format!("aifab-test-hand-made-{fabric}")
}

fn clean(s: &Server, fabric: &str) {
    let c = s.client();
    for ep in [
        "dcim/cables/",
        "ipam/ip-addresses/",
        "ipam/prefixes/",
        "dcim/devices/",
        "ipam/vlans/",
        "ipam/vlan-groups/",
    ] {
        let ids: Vec<Value> = tagged(&c, ep, fabric)
            .iter()
            .map(|o| json!({ "id": o["id"] }))
            .collect();
        for chunk in ids.chunks(200) {
            c.call(
                "DELETE",
                ep,
                Some(&Value::Array(chunk.to_vec())),
                "clean up",
            )
            .expect("delete leftovers");
        }
    }
    // A hand-made device of an earlier run carries no tag: by its serial, which names its fabric (the
    // tests run at once, and one test's clean-up must not take another's hand-made device).
    let hand = c
        .list(
            &format!("dcim/devices/?serial={}", hand_serial(fabric)),
            "hand-made",
        )
        .unwrap_or_default();
    for d in hand {
        let _ = c.call(
            "DELETE",
            &format!("dcim/devices/{}/", d["id"].as_str().unwrap_or("?")),
            None,
            "clean up",
        );
    }
}

/// The cables Nautobot holds for `fabric`, as `device:port -- device:port` keys.
fn cables_in_nautobot(c: &Client, fabric: &str) -> BTreeSet<String> {
    let names: BTreeMap<String, String> = tagged(c, "dcim/interfaces/", fabric)
        .iter()
        .map(|i| {
            let dev = i["device"]["id"].as_str().unwrap_or("").to_string();
            (
                i["id"].as_str().unwrap_or("").to_string(),
                (dev, i["name"].as_str().unwrap_or("").to_string()),
            )
        })
        .map(|(id, (dev, name))| (id, format!("{dev}:{name}")))
        .collect();
    let devices: BTreeMap<String, String> = tagged(c, "dcim/devices/", fabric)
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap_or("").to_string(),
                d["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let end = |id: &Value| -> String {
        let full = names
            .get(id.as_str().unwrap_or(""))
            .cloned()
            .unwrap_or_default();
        let (dev, port) = full.split_once(':').unwrap_or(("", ""));
        format!("{}:{port}", devices.get(dev).map_or("?", String::as_str))
    };
    tagged(c, "dcim/cables/", fabric)
        .iter()
        .map(|k| {
            aifab::dcim::plan::cable_key(&end(&k["termination_a_id"]), &end(&k["termination_b_id"]))
        })
        .collect()
}

/// The switch-to-switch cables the intent plans.
fn planned_cables(intent: &Path) -> BTreeSet<String> {
    model(&intent.to_string_lossy())
        .links
        .iter()
        .filter(|l| l.tier != LinkTier::ServerLeaf)
        .map(|l| {
            aifab::dcim::plan::cable_key(
                &format!("{}:{}", l.a, l.a_port),
                &format!("{}:{}", l.b, l.b_port),
            )
        })
        .collect()
}

fn count(report: &Value, kind: &str, what: &str) -> usize {
    report["kinds"][kind][what].as_array().map_or(0, Vec::len)
}

/// The bar of issue 49: the example pod1-1024 as it is (fabric `pod1`, location `pod1`, namespace
/// `Global`), synced: 48 devices, every planned fabric cable and every loopback address; the second
/// sync writes nothing. Not cleaned first: on a server that already holds it (a developer's, after an
/// earlier run) the first sync is a re-sync, and the contents are checked all the same.
#[test]
fn pod1_synced_holds_every_device_cable_and_loopback_and_a_second_sync_writes_nothing() {
    let Some(s) = server() else { return };
    let fabric = "pod1";
    let intent = root().join("intents/pod1-1024.yaml");
    let (code, first) = dcim(&s, "sync", &intent, &[]);
    assert_eq!((code, first["held"].as_u64()), (0, Some(0)), "{first:#}");
    let m = model(&intent.to_string_lossy());
    let c = s.client();
    let devices: BTreeSet<String> = tagged(&c, "dcim/devices/", fabric)
        .iter()
        .map(|d| d["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(devices.len(), 48);
    let hostnames: BTreeSet<String> = m.devices.iter().map(|d| d.hostname.clone()).collect();
    assert_eq!(devices, hostnames);
    assert_eq!(cables_in_nautobot(&c, fabric), planned_cables(&intent));
    // Every loopback address, on its device's loopback interface.
    let ips = tagged(&c, "ipam/ip-addresses/", fabric);
    let on: BTreeMap<&str, usize> = ips
        .iter()
        .map(|ip| {
            (
                ip["address"].as_str().unwrap_or(""),
                ip["interfaces"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    for d in &m.devices {
        let lo = format!("{}/32", d.loopback);
        assert_eq!(
            on.get(lo.as_str()),
            Some(&1),
            "{}: loopback {lo}",
            d.hostname
        );
    }
    let (code, second) = dcim(&s, "sync", &intent, &[]);
    assert_eq!(code, 0, "{second:#}");
    assert_eq!(
        (second["writes"].as_u64(), second["write_requests"].as_u64()),
        (Some(0), Some(0)),
        "{second:#}"
    );
    let (code, check) = dcim(&s, "check", &intent, &[]);
    assert_eq!((code, check["writes"].as_u64()), (0, Some(0)), "{check:#}");
}

#[test]
fn every_small_example_syncs_and_resyncs_with_no_write() {
    let Some(s) = server() else { return };
    let dir = Scratch::new("dcim-examples");
    // breakout-small: in servers_sync_with_their_cables_and_addresses_and_device_types_carry_templates.
    for stem in [
        "hpn-dual-plane",
        "three-tier-small",
        "sonic-lossless-breakout",
        "meta-rack-three-tier",
    ] {
        let fabric = format!("dcim-{stem}");
        clean(&s, &fabric);
        let intent = renamed(&format!("intents/{stem}.yaml"), &fabric, &dir, |t| t);
        let (code, first) = dcim(&s, "sync", &intent, &[]);
        assert_eq!(
            (code, first["held"].as_u64()),
            (0, Some(0)),
            "{stem}: {first:#}"
        );
        assert_eq!(
            cables_in_nautobot(&s.client(), &fabric),
            planned_cables(&intent),
            "{stem}"
        );
        let (code, again) = dcim(&s, "sync", &intent, &[]);
        assert_eq!(
            (code, again["write_requests"].as_u64()),
            (0, Some(0)),
            "{stem}: {again:#}"
        );
    }
}

#[test]
fn a_grown_and_recabled_fabric_syncs_and_a_hand_made_device_in_the_way_is_left_alone() {
    let Some(s) = server() else { return };
    let fabric = "dcim-grow";
    clean(&s, fabric);
    let dir = Scratch::new("dcim-grow");
    let intent = renamed("intents/breakout-small.yaml", fabric, &dir, |t| t);
    let (code, first) = dcim(&s, "sync", &intent, &[]);
    assert_eq!(code, 0, "{first:#}");
    // Twice the servers (a second group of leaves) and four spines: every uplink is re-planned.
    let grown = renamed("intents/breakout-small.yaml", fabric, &dir, |t| {
        t.replace("servers: 32\n", "servers: 64\n")
            .replace("count: 2\n", "count: 4\n")
    });
    let c = s.client();
    let leaf = tagged(&c, "dcim/devices/", fabric)
        .into_iter()
        .find(|d| d["name"] == "g1-r1-leaf")
        .expect("g1-r1-leaf synced");
    let hand = json!({
        "name": "g2-r1-leaf", "serial": hand_serial(fabric),
        "role": leaf["role"]["id"], "device_type": leaf["device_type"]["id"],
        "location": leaf["location"]["id"], "status": leaf["status"]["id"],
    });
    let made = c
        .call("POST", "dcim/devices/", Some(&hand), "hand-made device")
        .expect("create");
    let (code, report) = dcim(&s, "sync", &grown, &[]);
    assert_eq!(code, 1, "held objects make exit 1: {report:#}");
    let conflicts = &report["kinds"]["device"]["conflicts"];
    assert_eq!(conflicts[0]["key"], "g2-r1-leaf", "{report:#}");
    assert!(count(&report, "interface", "blocked") > 0);
    assert!(
        count(&report, "cable", "delete") > 0 && count(&report, "cable", "create") > 0,
        "{report:#}"
    );
    let after = c
        .call(
            "GET",
            &format!("dcim/devices/{}/", made["id"].as_str().unwrap_or("?")),
            None,
            "hand-made",
        )
        .expect("read back");
    assert_eq!(
        after["tags"].as_array().map(Vec::len),
        Some(0),
        "the hand-made device was tagged"
    );
    assert_eq!(
        after["custom_fields"]["aifab_asn"],
        Value::Null,
        "the hand-made device was changed"
    );
    // Adopted, the rest follows; then a second sync writes nothing and Nautobot holds the new plan.
    let (code, adopt) = dcim(&s, "sync", &grown, &["--adopt"]);
    assert_eq!((code, adopt["held"].as_u64()), (0, Some(0)), "{adopt:#}");
    let (code, again) = dcim(&s, "sync", &grown, &[]);
    assert_eq!(
        (code, again["write_requests"].as_u64()),
        (0, Some(0)),
        "{again:#}"
    );
    assert_eq!(cables_in_nautobot(&c, fabric), planned_cables(&grown));
}

/// mixed-sonic-nxos (rail-subnet server mode) cut to 4 servers, 2 rails, 2 groups and 2 spines.
fn small_rail_subnet(fabric: &str, dir: &Path) -> PathBuf {
    renamed("intents/mixed-sonic-nxos.yaml", fabric, dir, |t| {
        t.replace("servers: 32\n", "servers: 4\n")
            .replace("rails: 8\n", "rails: 2\n")
            .replace("servers_per_group: 16", "servers_per_group: 2")
            .replace("count: 8\n", "count: 2\n")
            .replace("\"g2-rail8\"", "\"g2-rail2\"")
    })
}

/// The id of each VLAN of `fabric` by its group's name, with its vid.
fn vlans_in_nautobot(c: &Client, fabric: &str) -> BTreeMap<String, (String, i64)> {
    let groups: BTreeMap<String, String> = tagged(c, "ipam/vlan-groups/", fabric)
        .iter()
        .map(|g| (id_of(g), g["name"].as_str().unwrap_or("").to_string()))
        .collect();
    tagged(c, "ipam/vlans/", fabric)
        .iter()
        .map(|v| {
            let group = groups
                .get(v["vlan_group"]["id"].as_str().unwrap_or(""))
                .cloned()
                .unwrap_or_default();
            (group, (id_of(v), v["vid"].as_i64().unwrap_or(-1)))
        })
        .collect()
}

/// Makes the fabric's tag as an aifab before the VLANs left it (no VLAN content types), so the next
/// sync must widen it. Only after [`clean`]: Nautobot refuses to drop a type objects are tagged with.
fn tag_without_vlan_types(c: &Client, fabric: &str) {
    let name = format!("aifab:{fabric}");
    let types = json!([
        "dcim.device",
        "dcim.interface",
        "dcim.cable",
        "ipam.prefix",
        "ipam.ipaddress"
    ]);
    let found = c
        .list(&format!("extras/tags/?name={}", q(&name)), "the tag")
        .expect("read the tag");
    match found.first() {
        Some(t) => c.call(
            "PATCH",
            &format!("extras/tags/{}/", id_of(t)),
            Some(&json!({ "content_types": types })),
            "narrow the tag",
        ),
        None => c.call(
            "POST",
            "extras/tags/",
            Some(&json!({ "name": name, "content_types": types })),
            "make the tag",
        ),
    }
    .expect("the tag without VLAN types");
}

fn id_of(o: &Value) -> String {
    o["id"].as_str().unwrap_or("").to_string()
}

/// The rail-subnet mode's VLANs, read back from Nautobot (the fabric's tag made without the VLAN
/// content types, as an earlier aifab made it, is widened): each rail leaf's VLAN in its own group
/// with the server VLAN id, every server port of the leaf an access port with it untagged; a second
/// sync writes nothing; a port's VLAN changed by hand is what `check` reports, and a sync repairs it.
#[test]
fn rail_subnet_leaves_hold_their_server_vlan_untagged_on_every_server_port() {
    let Some(s) = server() else { return };
    let fabric = "dcim-rail-vlans";
    clean(&s, fabric);
    let dir = Scratch::new("dcim-rail-vlans");
    let intent = small_rail_subnet(fabric, &dir);
    let c = s.client();
    tag_without_vlan_types(&c, fabric);
    let (code, first) = dcim(&s, "sync", &intent, &[]);
    assert_eq!((code, first["held"].as_u64()), (0, Some(0)), "{first:#}");
    assert_eq!(
        count(&first, "tag", "update"),
        1,
        "the tag widened: {first:#}"
    );
    let vlans = vlans_in_nautobot(&c, fabric);
    let devices: BTreeMap<String, String> = tagged(&c, "dcim/devices/", fabric)
        .iter()
        .map(|d| (id_of(d), d["name"].as_str().unwrap_or("").to_string()))
        .collect();
    // Server port `device:name` -> (mode, untagged VLAN id), as Nautobot holds them.
    let ports: BTreeMap<String, (String, String)> = tagged(&c, "dcim/interfaces/", fabric)
        .iter()
        .map(|i| {
            let dev = devices
                .get(i["device"]["id"].as_str().unwrap_or(""))
                .cloned()
                .unwrap_or_default();
            let mode = i["mode"]["value"].as_str().unwrap_or("").to_string();
            let vlan = i["untagged_vlan"]["id"].as_str().unwrap_or("").to_string();
            (
                format!("{dev}:{}", i["name"].as_str().unwrap_or("")),
                (mode, vlan),
            )
        })
        .collect();
    let m = model(&intent.to_string_lossy());
    let leaves: Vec<_> = m
        .devices
        .iter()
        .filter_map(|d| d.server_subnet.as_ref().map(|sub| (d, sub)))
        .collect();
    assert_eq!((leaves.len(), vlans.len()), (4, 4), "{vlans:?}");
    for (d, sub) in &leaves {
        let group = aifab::dcim::vlans::group_key(fabric, &d.hostname);
        let (vlan, vid) = vlans.get(&group).cloned().unwrap_or_default();
        assert_eq!(vid, i64::from(sub.vlan), "{group}: {vlans:?}");
        let server_ports: Vec<_> = d.interfaces.iter().filter(|i| i.vlan.is_some()).collect();
        assert_eq!(server_ports.len(), 2, "{}", d.hostname);
        for i in server_ports {
            let key = format!("{}:{}", d.hostname, i.name);
            assert_eq!(
                ports.get(&key),
                Some(&("access".to_string(), vlan.clone())),
                "{key}"
            );
        }
    }
    // Each rail leaf's server subnet: a prefix on the leaf's VLAN, under the server_links pool.
    let prefixes: BTreeMap<String, (String, String)> = tagged(&c, "ipam/prefixes/", fabric)
        .iter()
        .map(|p| {
            (
                p["prefix"].as_str().unwrap_or("").to_string(),
                (
                    p["vlan"]["id"].as_str().unwrap_or("").to_string(),
                    p["parent"]["id"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect();
    let on_vlan = prefixes.values().filter(|(v, _)| !v.is_empty()).count();
    assert_eq!(on_vlan, leaves.len(), "one per rail leaf: {prefixes:?}");
    for (d, sub) in &leaves {
        let group = aifab::dcim::vlans::group_key(fabric, &d.hostname);
        let (vlan, parent) = prefixes
            .get(&sub.prefix.to_string())
            .cloned()
            .unwrap_or_default();
        assert_eq!(vlan, vlans[&group].0, "{}: {prefixes:?}", sub.prefix);
        assert!(!parent.is_empty(), "{}: no parent prefix", sub.prefix);
    }
    let (code, again) = dcim(&s, "sync", &intent, &[]);
    assert_eq!(
        (code, again["write_requests"].as_u64()),
        (0, Some(0)),
        "{again:#}"
    );
    // A server port moved to another leaf's VLAN by hand.
    let (d, _) = leaves[0];
    let port = d
        .interfaces
        .iter()
        .find(|i| i.vlan.is_some())
        .expect("port");
    let key = format!("{}:{}", d.hostname, port.name);
    let id = tagged(&c, "dcim/interfaces/", fabric)
        .iter()
        .find(|i| {
            i["name"].as_str() == Some(port.name.to_string().as_str())
                && devices.get(i["device"]["id"].as_str().unwrap_or("")) == Some(&d.hostname)
        })
        .map(id_of)
        .expect("the port in Nautobot");
    let other = aifab::dcim::vlans::group_key(fabric, &leaves[1].0.hostname);
    c.call(
        "PATCH",
        &format!("dcim/interfaces/{id}/"),
        Some(&json!({ "untagged_vlan": vlans[&other].0 })),
        "edit by hand",
    )
    .expect("patch");
    let (code, report) = dcim(&s, "check", &intent, &[]);
    assert_eq!(code, 1, "{report:#}");
    let u = &report["kinds"]["interface"]["update"][0];
    let other_key = aifab::dcim::vlans::key(&other, i64::from(leaves[1].1.vlan));
    assert_eq!(
        (u["key"].as_str(), &u["was"]["untagged_vlan"]),
        (Some(key.as_str()), &json!(["vlan", other_key])),
        "{report:#}"
    );
    assert_eq!(dcim(&s, "sync", &intent, &[]).0, 0);
    assert_eq!(dcim(&s, "check", &intent, &[]).0, 0);
    switched_back_to_31(&s, fabric, &dir);
}

/// The rail-subnet fabric synced again without `server_mode` (the /31 mode): no port is left an
/// access port or on a VLAN, no VLAN, group or VLAN prefix is left, and a re-sync writes nothing.
fn switched_back_to_31(s: &Server, fabric: &str, dir: &Path) {
    let routed = renamed("intents/mixed-sonic-nxos.yaml", fabric, dir, |t| {
        std::fs::read_to_string(small_rail_subnet(fabric, dir))
            .unwrap_or(t)
            .replace("    server_mode: rail-subnet\n", "")
            .replace("    server_vlan: 100\n", "")
    });
    assert!(
        model(&routed.to_string_lossy())
            .devices
            .iter()
            .all(|d| d.server_subnet.is_none())
    );
    let (code, report) = dcim(s, "sync", &routed, &[]);
    assert_eq!((code, report["held"].as_u64()), (0, Some(0)), "{report:#}");
    let c = s.client();
    let left: Vec<String> = tagged(&c, "dcim/interfaces/", fabric)
        .iter()
        .filter(|i| !i["mode"].is_null() || !i["untagged_vlan"].is_null())
        .map(|i| format!("{} {} {}", id_of(i), i["mode"], i["untagged_vlan"]))
        .collect();
    assert!(left.is_empty(), "ports still in a VLAN mode: {left:?}");
    assert_eq!(vlans_in_nautobot(&c, fabric).len(), 0);
    assert!(tagged(&c, "ipam/vlan-groups/", fabric).is_empty());
    assert!(
        tagged(&c, "ipam/prefixes/", fabric)
            .iter()
            .all(|p| p["vlan"].is_null())
    );
    let (code, again) = dcim(s, "sync", &routed, &[]);
    assert_eq!(
        (code, again["write_requests"].as_u64()),
        (0, Some(0)),
        "{again:#}"
    );
}

#[test]
fn check_reports_a_change_made_by_hand_and_writes_nothing() {
    let Some(s) = server() else { return };
    let fabric = "dcim-check";
    clean(&s, fabric);
    let dir = Scratch::new("dcim-check");
    let intent = renamed("intents/hpn-dual-plane.yaml", fabric, &dir, |t| t);
    assert_eq!(dcim(&s, "sync", &intent, &[]).0, 0);
    assert_eq!(dcim(&s, "check", &intent, &[]).0, 0);
    let c = s.client();
    let cable = tagged(&c, "dcim/cables/", fabric)
        .into_iter()
        .next()
        .expect("a cable");
    let id = cable["id"].as_str().unwrap_or("?").to_string();
    c.call(
        "PATCH",
        &format!("dcim/cables/{id}/"),
        Some(&json!({ "length": 99 })),
        "edit by hand",
    )
    .expect("patch");
    let (code, report) = dcim(&s, "check", &intent, &[]);
    assert_eq!(code, 1, "{report:#}");
    let u = &report["kinds"]["cable"]["update"][0];
    assert_eq!(
        (
            u["was"]["length"].as_i64(),
            report["write_requests"].as_u64()
        ),
        (Some(99), Some(0)),
        "{report:#}"
    );
    let still = c
        .call("GET", &format!("dcim/cables/{id}/"), None, "read back")
        .expect("get");
    assert_eq!(still["length"], 99, "check wrote");
    assert_eq!(dcim(&s, "sync", &intent, &[]).0, 0);
    assert_eq!(dcim(&s, "check", &intent, &[]).0, 0);
}

#[test]
fn a_refused_token_and_an_unreachable_server_are_clear_errors() {
    let Some(s) = server() else { return };
    let dir = Scratch::new("dcim-errors");
    let intent = renamed("intents/breakout-small.yaml", "dcim-errors", &dir, |t| t);
    let run = |url: &str, token: &str| {
        aifab_command()
            .args(["dcim", "check"])
            .arg(&intent)
            .args(["--nautobot", url, "-q", "--timeout", "5"])
            .env("NAUTOBOT_TOKEN", token)
            .output()
            .expect("run aifab")
    };
    let o = run(&s.url, "0123456789abcdef0123456789abcdef01234567");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("token was refused") && !err.contains("0123456789abcdef"),
        "{err}"
    );
    let o = run("http://127.0.0.1:9", "whatever-token");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("cannot be reached"), "{err}");
}

/// `--batch-size` outside 1..=1000 is refused before anything is read (no server needed).
#[test]
fn a_batch_size_out_of_range_is_refused() {
    for n in ["0", "1001", "x"] {
        let o = aifab_command()
            .args(["dcim", "sync", "intents/breakout-small.yaml"])
            .args(["--nautobot", "http://127.0.0.1:9", "--batch-size", n])
            .current_dir(root())
            .output()
            .expect("run aifab");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{n}: {err}");
        assert!(err.contains("--batch-size"), "{n}: {err}");
        assert!(!err.contains("cannot be reached"), "{n}: {err}");
    }
}

/// `--servers`: breakout-small's servers with their NIC ports, the server end of each server link's
/// address and every server-to-leaf cable; the switches' device type carries interface templates (so
/// a leaf also has the ports no link uses, untagged, as Nautobot made them); a second sync writes
/// nothing, and a dry run without `--servers` would delete the servers (they are the fabric's).
#[test]
fn servers_sync_with_their_cables_and_addresses_and_device_types_carry_templates() {
    let Some(s) = server() else { return };
    let fabric = "dcim-servers";
    clean(&s, fabric);
    let dir = Scratch::new("dcim-servers");
    let intent = renamed("intents/breakout-small.yaml", fabric, &dir, |t| t);
    let (code, first) = dcim(&s, "sync", &intent, &["--servers"]);
    assert_eq!((code, first["held"].as_u64()), (0, Some(0)), "{first:#}");
    let m = model(&intent.to_string_lossy());
    let c = s.client();
    let devices = tagged(&c, "dcim/devices/", fabric);
    assert_eq!(
        devices.len(),
        m.devices.len() + usize::try_from(m.summary.servers).unwrap_or(0)
    );
    let every: BTreeSet<String> = m
        .links
        .iter()
        .map(|l| {
            aifab::dcim::plan::cable_key(
                &format!("{}:{}", l.a, l.a_port),
                &format!("{}:{}", l.b, l.b_port),
            )
        })
        .collect();
    assert_eq!(cables_in_nautobot(&c, fabric), every);
    // Each server link's server end holds its address, on the NIC port.
    let on: BTreeMap<String, usize> = tagged(&c, "ipam/ip-addresses/", fabric)
        .iter()
        .map(|ip| {
            (
                ip["address"].as_str().unwrap_or("").to_string(),
                ip["interfaces"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    for d in &m.devices {
        for i in d.interfaces.iter().filter(|i| i.peer.starts_with("server")) {
            let len = i
                .address
                .as_deref()
                .and_then(|a| a.split_once('/'))
                .map(|x| x.1);
            let (Some(peer), Some(len)) = (i.peer_ip, len) else {
                continue;
            };
            assert_eq!(on.get(&format!("{peer}/{len}")), Some(&1), "{}", i.peer);
        }
    }
    // The leaves' device type carries a template of every port name the fabric uses on it.
    let leaf = &m
        .devices
        .iter()
        .find(|d| d.hostname == "g1-r1-leaf")
        .expect("leaf");
    let ty = devices
        .iter()
        .find(|d| d["name"] == "g1-r1-leaf")
        .map(|d| d["device_type"]["id"].as_str().unwrap_or("").to_string())
        .expect("leaf synced");
    let names: BTreeSet<String> = c
        .list(
            &format!("dcim/interface-templates/?device_type={ty}"),
            "templates",
        )
        .expect("templates")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("").to_string())
        .collect();
    for i in &leaf.interfaces {
        assert!(names.contains(&*i.name), "template {}", i.name);
    }
    let (code, again) = dcim(&s, "sync", &intent, &["--servers"]);
    assert_eq!(
        (code, again["write_requests"].as_u64()),
        (0, Some(0)),
        "{again:#}"
    );
    let (_, without) = dcim(&s, "sync", &intent, &["--dry-run"]);
    assert_eq!(
        count(&without, "device", "delete"),
        usize::try_from(m.summary.servers).unwrap_or(0),
        "{without:#}"
    );
}
