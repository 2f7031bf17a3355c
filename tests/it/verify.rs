//! `aifab verify` (docs/verify.md): a state folder generated from the model verifies clean; the same
//! folder edited as a real fault would show is reported as exactly that fault; bad input is named.

use crate::common::{Scratch, aifab, model};
use aifab::platform::Catalog;
use std::path::Path;

/// Writes the ideal state of `intent` into `dir/state` and returns its path.
fn state_of(intent: &str, dir: &Path) -> std::path::PathBuf {
    let m = model(intent);
    let state = dir.join("state");
    aifab::verify::synth::write_state(&m, Catalog::builtin(), &state).expect("write state");
    state
}

fn verify(intent: &str, state: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "verify",
        intent,
        "--state",
        state.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(more);
    let out = aifab(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn edit_json(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    f(&mut v);
    std::fs::write(path, v.to_string()).expect("write");
}

#[test]
fn a_sonic_fabric_that_runs_its_model_verifies_clean() {
    let dir = Scratch::new("verify-clean-sonic");
    let state = state_of("intents/sonic-lossless-breakout.yaml", &dir);
    let (code, out, err) = verify("intents/sonic-lossless-breakout.yaml", &state, &["-q"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("the fabric runs as intended"), "{out}");
    for check in ["cabling", "sessions", "ports", "lossless"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(check) && l.ends_with("holds")),
            "{check}: {out}"
        );
    }
}

/// Sets what `host`'s LLDP sees at `port` (in its `lldpctl.json`): `Some((system, port id))`, or
/// nothing.
fn set_neighbor(state: &Path, host: &str, port: &str, to: Option<(&str, &str)>) {
    edit_json(&state.join(host).join("lldpctl.json"), |v| {
        let list = v["lldp"]["interface"]
            .as_array_mut()
            .expect("several neighbours");
        list.retain(|e| e.get(port).is_none());
        if let Some((sys, id)) = to {
            list.push(serde_json::json!({port: {"chassis": {sys: {"id": {"type": "mac", "value": "02:00:00:00:00:09"}}}, "port": {"id": {"type": "local", "value": id}}}}));
        }
    });
}

/// What `peer` sends as LLDP port ID for its port `port`.
fn sent(m: &aifab::model::FabricModel, peer: &str, port: &str) -> String {
    let d = m
        .devices
        .iter()
        .find(|d| d.hostname == peer)
        .expect("device");
    let p = d
        .interfaces
        .iter()
        .find(|i| &*i.name == port)
        .expect("port");
    aifab::verify::expect::sent_port_id(Catalog::builtin(), d, p)
}

/// Sets the state of `host`'s session with `ip` in its `frr-bgp-summary.json`.
fn set_session(state: &Path, host: &str, ip: &str, f: impl FnOnce(&mut serde_json::Value)) {
    edit_json(&state.join(host).join("frr-bgp-summary.json"), |v| {
        f(&mut v["ipv4Unicast"]["peers"][ip])
    });
}

#[test]
fn a_crossed_pair_and_a_down_link_are_exactly_two_findings() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-faults");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let leaf = m
        .devices
        .iter()
        .find(|d| d.role == aifab::kinds::Role::Leaf)
        .expect("a leaf");
    let up: Vec<_> = leaf
        .interfaces
        .iter()
        .filter(|i| i.kind == aifab::model::PortKind::Fabric)
        .collect();
    assert!(up.len() >= 3, "the test needs three uplinks");
    let (p1, p2, p3) = (up[0], up[1], up[2]);
    // The far ends of p1's and p2's cables crossed: p1 reaches p2's spine port and p2 p1's.
    set_neighbor(
        &state,
        &leaf.hostname,
        &p1.name,
        Some((&p2.peer, &sent(&m, &p2.peer, &p2.peer_port))),
    );
    set_neighbor(
        &state,
        &leaf.hostname,
        &p2.name,
        Some((&p1.peer, &sent(&m, &p1.peer, &p1.peer_port))),
    );
    set_neighbor(
        &state,
        &p2.peer,
        &p2.peer_port,
        Some((&leaf.hostname, &sent(&m, &leaf.hostname, &p1.name))),
    );
    set_neighbor(
        &state,
        &p1.peer,
        &p1.peer_port,
        Some((&leaf.hostname, &sent(&m, &leaf.hostname, &p2.name))),
    );
    // p3's link down: no neighbour at either end, sessions idle, ports oper down.
    set_neighbor(&state, &leaf.hostname, &p3.name, None);
    set_neighbor(&state, &p3.peer, &p3.peer_port, None);
    for (host, port) in [(&*leaf.hostname, &*p3.name), (&*p3.peer, &*p3.peer_port)] {
        edit_json(&state.join(host).join("appl-db.json"), |v| {
            v[format!("PORT_TABLE:{port}")]["value"]["oper_status"] = "down".into();
        });
    }
    for (i, n) in leaf.bgp.neighbors.iter().enumerate().take(3) {
        let far = m
            .devices
            .iter()
            .find(|d| d.hostname == *n.peer)
            .expect("peer");
        set_session(&state, &leaf.hostname, &n.ip.to_string(), |p| {
            p["state"] = "Active".into()
        });
        set_session(&state, &far.hostname, &n.local_ip.to_string(), |p| {
            p["state"] = if i < 2 { "Connect" } else { "Idle" }.into()
        });
    }
    let (code, out, err) = verify(INTENT, &state, &["-q", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("json report");
    let findings = r["findings"].as_array().expect("findings");
    let kinds: Vec<&str> = findings
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["crossed", "no-neighbor"], "{out}");
    let crossed = &findings[0];
    assert_eq!(crossed["switch"], leaf.hostname.as_str(), "{out}");
    assert_eq!(crossed["port"], format!("{} {}", p1.name, p2.name), "{out}");
    let found = crossed["found"].as_str().unwrap_or("");
    assert!(
        found.contains(&format!(
            "swap the plugs at {} {} and {}",
            leaf.hostname, p1.name, p2.name
        )),
        "{found}"
    );
    let explains = crossed["explains"].as_array().map_or(0, Vec::len);
    assert_eq!(explains, 4, "both ends' sessions of both cables: {out}");
    let down = &findings[1];
    assert!(
        down["explains"].as_array().is_some_and(|e| e.len() == 4),
        "two sessions and two ports down: {out}"
    );
    // The text form says the same in a line per finding.
    let (_, text, _) = verify(INTENT, &state, &["-q"]);
    assert!(text.contains("2 finding(s)"), "{text}");
}

#[test]
fn a_session_to_a_switch_running_another_asn_is_named_once() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-asn");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let spine = m
        .devices
        .iter()
        .find(|d| d.role == aifab::kinds::Role::Spine)
        .expect("a spine");
    edit_json(
        &state.join(&spine.hostname).join("frr-bgp-summary.json"),
        |v| v["ipv4Unicast"]["as"] = 64999.into(),
    );
    for n in &spine.bgp.neighbors {
        set_session(&state, &n.peer, &n.local_ip.to_string(), |p| {
            p["remoteAs"] = 64999.into()
        });
    }
    let (code, out, _) = verify(INTENT, &state, &["-q", "--checks", "sessions"]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("sessions ") && l.contains("expected"))
        .collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].contains(&format!(
            "{}: expected AS {}, found AS 64999",
            spine.hostname, spine.bgp.asn
        )),
        "{out}"
    );
}

#[test]
fn pfc_off_on_one_port_is_that_port() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-pfc");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let leaf = &m.devices[m.devices.len() - 1];
    let port = &leaf.interfaces[0].name;
    edit_json(&state.join(&leaf.hostname).join("config-db.json"), |v| {
        v[format!("PORT_QOS_MAP|{port}")]["value"]["pfc_enable"] = "".into();
    });
    let (code, out, _) = verify(INTENT, &state, &["-q", "--format", "junit"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("lossless  pfc                {} {port}: expected PFC on priorities 3, found PFC on priorities none", leaf.hostname)), "{out}");
    assert_eq!(out.matches("<failure ").count(), 1, "{out}");
}

#[test]
fn unreadable_and_misplaced_documents_are_findings_of_that_switch() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-bad-docs");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let (a, b, c) = (
        &m.devices[0].hostname,
        &m.devices[1].hostname,
        &m.devices[2].hostname,
    );
    // a: a truncated document; b: another switch's files; c: a link out of the folder.
    let bgp = state.join(a).join("frr-bgp-summary.json");
    let text = std::fs::read_to_string(&bgp).expect("read");
    std::fs::write(&bgp, &text[..text.len() / 2]).expect("write");
    std::fs::remove_dir_all(state.join(b)).expect("rm");
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("ls").flatten() {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("cp");
        }
    };
    copy(&state.join(c), &state.join(b));
    let routes = state.join(c).join("frr-ip-route.json");
    std::fs::remove_file(&routes).expect("rm");
    std::os::unix::fs::symlink("/etc/hostname", &routes).expect("ln");
    let (code, out, _) = verify(INTENT, &state, &["-q"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "unreadable         {a}: expected frr-bgp-summary.json"
        )) && out.contains("line 1 column"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "wrong-switch       {b}: expected the documents of {b}, found the documents of `{c}`"
        )),
        "{out}"
    );
    assert!(out.contains("a link, not followed"), "{out}");
    // A folder without any switch of the fabric is another fabric's: exit 2.
    let other = dir.join("other");
    std::fs::create_dir_all(other.join("spine-x")).expect("mkdir");
    let (code, _, err) = verify(INTENT, &other, &["-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is it the state of another fabric?"), "{err}");
    let (code, _, err) = verify(INTENT, &dir.join("missing"), &["-q"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_leaf_with_a_narrower_ecmp_or_a_missing_route_is_named() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-ecmp");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let samples = m.route_samples();
    assert!(samples.len() >= 2, "{samples:?}");
    let leaf = samples[0].0;
    let (far, far_lo) = samples[1];
    let prefix = format!("{far_lo}/32");
    edit_json(&state.join(leaf).join("frr-ip-route.json"), |v| {
        let hops = v[&prefix][0]["nexthops"].as_array_mut().expect("next hops");
        assert!(hops.len() >= 2, "needs ECMP: {hops:?}");
        hops.pop();
    });
    let other = m
        .devices
        .iter()
        .find(|d| d.role == aifab::kinds::Role::Leaf && d.hostname != leaf && d.hostname != far)
        .expect("a third leaf");
    edit_json(
        &state.join(&other.hostname).join("frr-ip-route.json"),
        |v| {
            v.as_object_mut().expect("routes").remove(&prefix);
        },
    );
    let (code, out, _) = verify(INTENT, &state, &["-q", "--checks", "sessions"]);
    assert_eq!(code, 1, "{out}");
    let ecmp: Vec<&str> = out.lines().filter(|l| l.contains(" ecmp ")).collect();
    assert_eq!(ecmp.len(), 2, "{out}");
    assert!(
        ecmp.iter().any(|l| l.contains(&format!("{leaf}: expected"))
            && l.contains(&format!("fewer paths: {prefix} ({far}): "))),
        "{out}"
    );
    assert!(
        ecmp.iter()
            .any(|l| l.contains(&format!("{}: expected", other.hostname))
                && l.contains(&format!("no route to {prefix} ({far})"))),
        "{out}"
    );
}

#[test]
fn the_route_samples_are_distinct_leaves_on_every_rail() {
    let m = model("intents/pod1-1024.yaml");
    let samples = m.route_samples();
    assert_eq!(samples.len(), aifab::model::ROUTE_SAMPLES);
    let mut hosts: Vec<&str> = samples.iter().map(|s| s.0).collect();
    hosts.dedup();
    assert_eq!(hosts.len(), samples.len(), "{samples:?}");
    let rails: std::collections::BTreeSet<u32> = samples
        .iter()
        .filter_map(|(h, _)| m.devices.iter().find(|d| d.hostname == *h)?.rail)
        .collect();
    assert_eq!(rails.len(), 8, "every rail sampled: {samples:?}");
}

#[test]
fn every_example_that_runs_its_model_verifies_clean_in_each_oss_own_documents() {
    for intent in crate::common::example_intents() {
        let name = Path::new(&intent)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("x")
            .to_string();
        let dir = Scratch::new(&format!("verify-clean-{name}"));
        let state = state_of(&intent, &dir);
        let (code, out, err) = verify(&intent, &state, &["-q"]);
        assert_eq!(code, 0, "{intent}:\n{out}{err}");
        let m = model(&intent);
        let eos_or_nxos = m
            .devices
            .iter()
            .filter(|d| d.os != aifab::kinds::Os::Sonic)
            .count();
        // NX-OS and EOS print their lossless state in no JSON document aifab has a sample of: said.
        assert_eq!(
            out.contains("note: lossless: not checked on"),
            eos_or_nxos > 0,
            "{intent}:\n{out}"
        );
    }
}

#[test]
fn a_crossed_pair_on_an_nxos_leaf_is_named_from_nxos_and_eos_documents() {
    const INTENT: &str = "intents/breakout-small.yaml";
    let dir = Scratch::new("verify-nxos-cross");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    let leaf = m
        .devices
        .iter()
        .find(|d| d.os == aifab::kinds::Os::Nxos)
        .expect("an NX-OS leaf");
    let up: Vec<_> = leaf
        .interfaces
        .iter()
        .filter(|i| i.kind == aifab::model::PortKind::Fabric)
        .collect();
    let (p1, p2) = (up[0], up[1]);
    assert_ne!(p1.peer, p2.peer, "two spines");
    // Cross the far ends as the leaf's NX-OS LLDP table shows it: its two ports' rows exchanged (the
    // spines' EOS tables left as planned: the crossing is found from one side too).
    let swap = |path: &Path, a: &str, b: &str| {
        let text = std::fs::read_to_string(path).expect("read");
        let text = text.replace(a, "\u{1}").replace(b, a).replace('\u{1}', b);
        std::fs::write(path, text).expect("write");
    };
    let short = |n: &str| n.replacen("Ethernet", "Eth", 1);
    swap(
        &state.join(&leaf.hostname).join("lldp-neighbors.json"),
        &format!("\"{}\"", short(&p1.name)),
        &format!("\"{}\"", short(&p2.name)),
    );
    let (code, out, _) = verify(INTENT, &state, &["-q", "--checks", "cabling"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "crossed            {} {} {}",
            leaf.hostname, p1.name, p2.name
        )),
        "{out}"
    );
}

#[test]
fn markdown_fits_its_budget_and_counts_what_it_leaves_out() {
    const INTENT: &str = "intents/sonic-lossless-breakout.yaml";
    let dir = Scratch::new("verify-markdown");
    let state = state_of(INTENT, &dir);
    let m = model(INTENT);
    // PFC off on every port of every leaf: many findings.
    for d in m
        .devices
        .iter()
        .filter(|d| d.role == aifab::kinds::Role::Leaf)
    {
        edit_json(&state.join(&d.hostname).join("config-db.json"), |v| {
            for p in &d.interfaces {
                v[format!("PORT_QOS_MAP|{}", p.name)]["value"]["pfc_enable"] = "".into();
            }
        });
    }
    let (code, full, _) = verify(INTENT, &state, &["-q", "--format", "markdown"]);
    assert_eq!(code, 1, "{full}");
    assert!(full.starts_with("## aifab verify: snbrk\n"), "{full}");
    let rows = full
        .lines()
        .filter(|l| l.starts_with("| lossless | pfc |"))
        .count();
    let leaf_ports: usize = m
        .devices
        .iter()
        .filter(|d| d.role == aifab::kinds::Role::Leaf)
        .map(|d| d.interfaces.len())
        .sum();
    assert_eq!(rows, leaf_ports, "{full}");
    let (_, short, _) = verify(
        INTENT,
        &state,
        &["-q", "--format", "markdown", "--max-chars", "2000"],
    );
    assert!(short.len() <= 2000, "{} chars", short.len());
    let kept = short
        .lines()
        .filter(|l| l.starts_with("| lossless | pfc |"))
        .count();
    assert!(kept > 0 && kept < rows, "{short}");
    assert!(
        short.contains(&format!(
            "{} more finding(s) left out to stay within 2000 characters",
            rows - kept
        )),
        "{short}"
    );
}

/// `model` with switch `name` renumbered to `asn`, its peers' sessions too (as a lock pin does).
fn pin_asn(m: &mut aifab::model::FabricModel, name: &str, asn: u32) {
    for d in &mut m.devices {
        if d.hostname == name {
            d.bgp.asn = asn;
        }
        for n in &mut d.bgp.neighbors {
            if *n.peer == *name {
                n.remote_as = asn;
            }
        }
    }
}

/// A pinned plan where the super-spines hold equal paths of different ASNs to zone 2 (one zone-2
/// spine pinned to zone 1's ASN): which one they advertise depends on which session came up first,
/// and zone 1's spine of that ASN rejects it, so a zone-1 leaf installs 4 or 2 next hops. verify
/// accepts either width and reports one below both.
#[test]
fn verify_accepts_every_ecmp_width_a_session_order_gives() {
    use aifab::check::ecmp;
    use aifab::check::paths::Node;
    use aifab::verify::observed::RouteWidth;
    let mut m = model("intents/three-tier-small.yaml");
    let rid = |m: &aifab::model::FabricModel, h: &str| {
        m.devices
            .iter()
            .find(|d| d.hostname == h)
            .map(|d| d.bgp.router_id)
    };
    // The zone-2 spine with the higher router-id takes zone 1's ASN: the router-id outcome advertises
    // the other's path, the widest one; z1-spine2 gets an ASN of its own, so z1 leaves keep a route.
    let z1_asn = m
        .devices
        .iter()
        .find(|d| d.hostname == "z1-spine1")
        .map(|d| d.bgp.asn)
        .expect("z1-spine1");
    let high = if rid(&m, "z2-spine1") > rid(&m, "z2-spine2") {
        "z2-spine1"
    } else {
        "z2-spine2"
    };
    pin_asn(&mut m, high, z1_asn);
    pin_asn(&mut m, "z1-spine2", 64990);
    let plan = aifab::verify::expect::Plan::new(&m);
    let fabric = &plan.fabric;
    let leaf = m
        .devices
        .iter()
        .position(|d| d.hostname == "z1-g1-r1")
        .expect("leaf");
    let leaves: Vec<usize> = (0..m.devices.len())
        .filter(|&i| fabric.is_leaf(i as Node) && i != leaf)
        .collect();
    let widths: Vec<(usize, ecmp::Width)> = leaves
        .iter()
        .map(|&o| {
            (
                o,
                ecmp::toward(fabric, o as Node, &|_| false).swap_remove(leaf),
            )
        })
        .collect();
    // Some destination's width is a range whose low end the router-id outcome does not give.
    let ranged = widths
        .iter()
        .find(|(o, w)| {
            !w.is_fixed()
                && w.min > 0
                && fabric.select(*o as Node, None).via[leaf].len() > w.min as usize
        })
        .map(|(o, w)| (*o, w.clone()))
        .expect("a width that depends on session order");
    let check = |pick: &dyn Fn(usize, &ecmp::Width) -> usize| {
        let routes: Vec<RouteWidth> = widths
            .iter()
            .map(|(o, w)| RouteWidth {
                prefix: format!("{}/32", m.devices[*o].loopback).into(),
                hops: pick(*o, w),
            })
            .collect();
        let mut per: Vec<Option<&[RouteWidth]>> = vec![None; m.devices.len()];
        per[leaf] = Some(&routes);
        let observed = vec![None; m.devices.len()];
        let mut cabling = aifab::verify::cabling::Cabling {
            findings: Vec::new(),
            broken: Default::default(),
            owner: Default::default(),
        };
        aifab::verify::sessions::check(&plan, &observed, &per, &mut cabling)
    };
    // Either end of every range verifies clean: no session order is reported.
    assert!(check(&|_, w| w.min as usize).is_empty());
    assert!(check(&|_, w| w.max as usize).is_empty());
    // The ANTA catalog checks one number: where the width is a range it writes why it checks none
    // (zone 2's EOS leaves towards zone 1's first leaf), and keeps the fixed ones (zone 1's).
    let catalog = aifab::verify::anta::catalog(&m, None);
    let ranged_lines: Vec<&str> = catalog
        .lines()
        .filter(|l| l.contains("depending on which BGP session came up first"))
        .collect();
    assert!(!ranged_lines.is_empty(), "{catalog}");
    assert!(
        ranged_lines.iter().all(|l| l.contains("# z2-")),
        "{ranged_lines:?}"
    );
    assert!(catalog.contains("ecmp_count: 4"), "{catalog}");
    // One next hop fewer than the least any order gives is named, with the range.
    let (o, w) = &ranged;
    let f = check(&|x, w| {
        if x == *o {
            w.min as usize - 1
        } else {
            w.max as usize
        }
    });
    assert_eq!(f.len(), 1, "{f:?}");
    let lo = format!("{}/32", m.devices[*o].loopback);
    assert!(
        f[0].found.contains(&format!(
            "{lo} ({}): {} of {} next hops",
            m.devices[*o].hostname,
            w.min - 1,
            w.text()
        )),
        "{:?}",
        f[0]
    );
}
