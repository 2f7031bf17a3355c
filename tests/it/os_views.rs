//! The per-OS layer (`aifab::os`): the NX-OS and EOS views carry every value in the OS's spelling, and
//! the NX-OS/EOS templates only place them.

use crate::common;

use aifab::model::Device;
use aifab::os::{eos, nxos};
use aifab::platform::{Catalog, Platform};

fn device<'a>(m: &'a aifab::model::FabricModel, host: &str) -> &'a Device {
    m.devices
        .iter()
        .find(|d| d.hostname == host)
        .unwrap_or_else(|| panic!("no device {host}"))
}

fn platform(d: &Device) -> &'static Platform {
    &Catalog::builtin().get(&d.platform).expect("platform").1
}

/// The contents of every `{{ }}` and `{% %}` tag of a template (comments left out).
fn tags(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find('{') {
        rest = &rest[i..];
        let close = match rest.get(..2) {
            Some("{{") => "}}",
            Some("{%") => "%}",
            _ => {
                rest = &rest[1..];
                continue;
            }
        };
        let end = rest.find(close).expect("closed tag");
        out.push(rest[2..end].trim_matches(['-', ' ']).to_string());
        rest = &rest[end + 2..];
    }
    out
}

#[test]
fn cli_templates_read_only_the_view_and_compute_nothing() {
    let mut bad = Vec::new();
    for os in ["nxos", "eos"] {
        for entry in std::fs::read_dir(format!("templates/{os}")).expect("templates") {
            let path = entry.expect("entry").path();
            let src = std::fs::read_to_string(&path).expect("read");
            for tag in tags(&src) {
                if tag.starts_with("include ") {
                    continue;
                }
                let words: Vec<&str> = tag
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .collect();
                let raw_fact = words.iter().any(|w| {
                    ["device", "platform", "qos"].contains(&w.split('.').next().unwrap_or(""))
                });
                let computes = ['|', '~', '*', '+', '/', '%', '[']
                    .iter()
                    .any(|c| tag.contains(*c))
                    || tag.contains(" - ")
                    || tag.contains("range(")
                    || tag.contains("namespace(");
                if raw_fact || computes {
                    bad.push(format!("{}: {{ {tag} }}", path.display()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "templates compute or read raw facts:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_guard_sees_a_computing_tag() {
    assert_eq!(
        tags("a {{ x.y * 8 }} {# c #} {%- for q in qos.queues | sort %}"),
        ["x.y * 8", "for q in qos.queues | sort"]
    );
}

#[test]
fn nxos_view_spells_queues_classes_and_timers() {
    let m = common::model("intents/pod1-1024.yaml");
    let d = device(&m, "su1-r1-leaf");
    let v = nxos::view(d, platform(d));
    let q = &v.qos;
    let names: Vec<&str> = q.queuing.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"c-out-8q-q7"));
    assert_eq!(names.last(), Some(&"c-out-8q-q-default"));
    let levels: Vec<(&str, u8)> = q
        .queuing
        .iter()
        .filter_map(|c| c.priority_level.map(|l| (c.name.as_str(), l)))
        .collect();
    // Cisco's placement: strict queues on top, CNP (priority 6) on q7 level 1, CTS (5) on q6 level 2.
    assert_eq!(levels, [("c-out-8q-q7", 1), ("c-out-8q-q6", 2)]);
    let groups: Vec<(&str, u8)> = q
        .qos_in
        .iter()
        .map(|c| (c.class.as_str(), c.qos_group))
        .collect();
    assert_eq!(
        groups,
        [("CNP", 7), ("CTS", 6), ("ROCE", 3), ("class-default", 0)]
    );
    let roce = q
        .class_maps
        .iter()
        .find(|c| c.name == "ROCE")
        .expect("ROCE");
    assert_eq!((roce.dscp.as_str(), roce.list_unverified), ("24,26", true));
    assert_eq!(
        q.qos_in.last().map(|c| c.class.as_str()),
        Some("class-default")
    );
    let nq3 = q
        .network_qos
        .iter()
        .find(|c| c.name == "c-8q-nq3")
        .expect("nq3");
    assert_eq!(
        (nq3.pause_pfc_cos, nq3.name_unverified, nq3.mtu),
        (Some(3), false, 9216)
    );
    let wd = v.pfc_watchdog.expect("watchdog");
    assert_eq!(
        (
            wd.interval_ms,
            wd.shutdown_multiplier,
            wd.auto_restore_multiplier
        ),
        (200, 1, 5)
    );
    assert!(wd.timers_unverified);
    assert!(v.interfaces.iter().all(|i| i.long_cable_m.is_none()));
    assert!(v.qp_hash.is_none(), "leaves hash nothing in pod1");
    let dlb = v.dlb.expect("DLB on the leaves");
    assert_eq!(
        (dlb.mode, dlb.reload_note, dlb.flowlet_aging_us),
        ("per-packet", true, None)
    );
    assert!(
        dlb.interfaces.starts_with("Ethernet1/33,Ethernet1/34,"),
        "{}",
        dlb.interfaces
    );
}

#[test]
fn nxos_view_flags_cables_past_the_platform_pause_buffer_limit() {
    let m = common::model("intents/mixed-sonic-nxos.yaml");
    let mut d = device(&m, "spine1").clone();
    let pf = platform(&d).clone();
    let limit = pf
        .pause_buffer_above_m
        .expect("NX-OS has a pause-buffer limit");
    d.interfaces[0].cable_m = limit + 1;
    d.interfaces[1].cable_m = limit;
    let v = nxos::view(&d, &pf);
    assert_eq!(v.interfaces[0].long_cable_m, Some(limit + 1));
    assert_eq!(v.interfaces[1].long_cable_m, None);
    let udf = v
        .qp_hash
        .and_then(|q| q.udf)
        .expect("UDF hashing on the spines");
    assert_eq!((udf.offset, udf.length_bits), (13, 24));
}

#[test]
fn eos_view_spells_seconds_payload_and_queues() {
    let m = common::model("intents/pod1-1024.yaml");
    let d = device(&m, "spine01");
    let pf = platform(d);
    let v = eos::view(d, pf).expect("view");
    let wd = v.pfc_watchdog.expect("watchdog");
    assert_eq!(
        (wd.timeout.as_str(), wd.recovery_time.as_str(), wd.action),
        ("0.2", "1", "drop")
    );
    assert_eq!(v.sand_hash.expect("sand").payload_bytes, "5-7");
    assert!(v.trident_hash.is_none());
    let queues: Vec<u8> = v.qos.queues.iter().map(|q| q.queue).collect();
    assert_eq!(queues, [0, 1, 2, 3, 4, 5, 6], "TC 7 is reserved on Sand");
    assert!(v.qos.queues.iter().all(|q| q.keyword == "tx-queue"));
    let maps: Vec<(&str, u8)> = v
        .qos
        .dscp_maps
        .iter()
        .map(|m| (m.dscps.as_str(), m.traffic_class))
        .collect();
    assert_eq!(&maps[..3], [("24 26", 3), ("46", 5), ("48", 6)]);
    assert_eq!(maps[3].1, 0);
    assert!(maps[3].0.starts_with("0 1 2 3 4 5 6 7 8 "));

    let mut no_keyword = pf.clone();
    no_keyword.queue_keyword = None;
    let e = eos::view(d, &no_keyword)
        .expect_err("no queue keyword")
        .to_string();
    assert!(e.contains("queue_keyword"), "{e}");
}

#[test]
fn eos_view_on_strata_uses_udf_offsets_and_leaves_unused_top_queues_alone() {
    let m = common::model("intents/three-tier-small.yaml");
    let d = device(&m, "z1-g1-r1");
    let v = eos::view(d, platform(d)).expect("view");
    assert_eq!(v.trident_hash.expect("trident").offsets, [13, 14, 15]);
    let queues: Vec<u8> = v.qos.queues.iter().map(|q| q.queue).collect();
    assert_eq!(
        queues,
        [0, 1, 2, 3, 4, 5, 6],
        "queue 7 is unused and above every strict queue"
    );
    assert!(v.qos.queues.iter().all(|q| q.keyword == "uc-tx-queue"));
    let roce = v.qos.queues.iter().find(|q| q.queue == 3).expect("queue 3");
    assert_eq!(roce.ecn.as_ref().map(|e| e.weight_zero), Some(true));
}

/// QP hashing must not touch other traffic: every Strata UDF hash line is scoped to UDP (RoCEv2), so
/// TCP's flags and window bytes never feed the hash.
#[test]
fn eos_trident_udf_hash_is_scoped_to_udp() {
    let mut lines = 0;
    for path in common::example_intents() {
        let (_, files) = common::render(&path);
        for f in &files {
            for l in f
                .content
                .lines()
                .filter(|l| l.starts_with("port-channel load-balance trident udf"))
            {
                lines += 1;
                assert!(
                    l.contains(" eth-type IPv4 ip-protocol udp header outer l4 "),
                    "{}: `{l}` is not scoped to UDP",
                    f.path
                );
            }
        }
    }
    assert!(lines > 0, "no example renders Strata UDF hashing");
}

/// NX-OS accepts on an L2 (switchport) port only the default MTU or the system jumbo MTU: a rail-subnet
/// NX-OS leaf gets `system jumbomtu`, its access ports carry that value, and the intent's IP MTU goes on
/// the server SVI.
#[test]
fn nxos_l2_server_ports_take_the_system_jumbo_mtu() {
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("intent");
    let mut text = text
        .lines()
        .map(|l| match l.find("platform: sonic/") {
            Some(at) => format!("{}platform: nxos/n9k-c9332d-gx2b", &l[..at]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    let intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    let cat = aifab::platform::Catalog::builtin();
    let m = aifab::compile::compile(&intent, cat).expect("compile");
    let files = aifab::render::Renderer::new(cat)
        .expect("templates")
        .fabric(&aifab::render::Meta::new("x.yaml", &m.name), &m, None)
        .expect("render");
    let leaf = m
        .devices
        .iter()
        .find(|d| d.server_subnet.is_some())
        .expect("a rail-subnet leaf");
    let cfg = &files
        .iter()
        .find(|f| f.device == leaf.hostname)
        .expect("leaf config")
        .content;
    assert!(cfg.contains("\nsystem jumbomtu 9216\n"), "{cfg}");
    let blocks: Vec<&str> = cfg.split("\n!\n").collect();
    let svi = blocks
        .iter()
        .find(|b| b.starts_with("interface Vlan"))
        .expect("SVI");
    assert!(
        svi.contains(&format!("\n  mtu {}\n", intent.fabric.mtu)),
        "{svi}"
    );
    let mut l2 = 0;
    for b in blocks
        .iter()
        .filter(|b| b.contains("switchport access vlan"))
    {
        l2 += 1;
        assert!(
            b.contains("\n  mtu 9216\n"),
            "L2 port without the jumbo MTU:\n{b}"
        );
    }
    assert!(l2 > 0, "no L2 server port rendered");
}

/// SONiC declares a PFC storm only after the queue stays paused across polls (the detection time is
/// counted down from the first paused poll), so the poll interval is at most half the detection time:
/// real detection then stays within what the intent asks.
#[test]
fn sonic_watchdog_poll_is_at_most_half_the_detection_time() {
    let mut checked = 0;
    for path in common::example_intents() {
        let (_, files) = common::render(&path);
        for f in files.iter().filter(|f| f.path.ends_with("config_db.json")) {
            let db: serde_json::Value = serde_json::from_str(&f.content).expect("json");
            let Some(wd) = db.get("PFC_WD").and_then(|t| t.as_object()) else {
                continue;
            };
            let num = |v: &serde_json::Value| {
                v.as_str()
                    .and_then(|s| s.parse::<u64>().ok())
                    .expect("number")
            };
            let poll = num(&wd["GLOBAL"]["POLL_INTERVAL"]);
            for (port, e) in wd.iter().filter(|(k, _)| *k != "GLOBAL") {
                let detect = num(&e["detection_time"]);
                assert!(
                    2 * poll <= detect,
                    "{}: {port}: poll {poll} ms, detection {detect} ms",
                    f.path
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no SONiC watchdog entries rendered");
}

/// SONiC sends the switch's own traffic (BGP, LLDP, ARP) from queue 7: every port's queue 7 has a
/// scheduler, strict when no class uses it, so no strict class can starve the fabric's BGP sessions.
/// Ports shut because no link uses them (`admin_status` down) carry nothing and are left out.
#[test]
fn sonic_control_queue_has_a_scheduler_on_every_port() {
    let mut ports = 0;
    for path in common::example_intents() {
        let (_, files) = common::render(&path);
        for f in files.iter().filter(|f| f.path.ends_with("config_db.json")) {
            let db: serde_json::Value = serde_json::from_str(&f.content).expect("json");
            let up = db["PORT"].as_object().expect("PORT").iter();
            let up = up.filter(|(_, row)| row["admin_status"] == "up");
            for (port, _) in up {
                let entry = &db["QUEUE"][format!("{port}|7")];
                let sched = entry["scheduler"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: {port}|7 has no scheduler", f.path));
                assert_eq!(
                    db["SCHEDULER"][sched]["type"], "STRICT",
                    "{}: {port}|7 uses {sched}",
                    f.path
                );
                ports += 1;
            }
        }
    }
    assert!(ports > 0, "no SONiC ports rendered");
}
