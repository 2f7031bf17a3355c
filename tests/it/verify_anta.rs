//! The ANTA catalog of the EOS switches (`src/verify/anta.rs`) and the collect playbook
//! (`ansible/collect.yml`, `src/verify/collect.rs`): the catalog of every example with EOS switches
//! parses with ANTA's own catalog parser and holds the entries the model implies, each scoped to its
//! switch; the entries of concrete switches say what their rendered configs say (the LLDP port IDs of
//! SONiC and NX-OS peers, the BGP neighbors); `anta get from-ansible` on aifab's inventory gives every
//! EOS switch its tests; the playbook passes `--syntax-check` and, run on the control node against a
//! stand-in SONiC host, writes what the commands print; `ansible/vars/collect-documents.yml` is the
//! documents table's (`AIFAB_BLESS=1` rewrites it).
//!
//! ANTA, its `anta` command and Ansible come from `$AIFAB_ANSIBLE_BIN` (the folder of `.ci/venv/bin`,
//! as `.ci/run` sets it; only there when it is set), else from PATH. Without them the tests print one
//! line and skip; under `CI=true` they fail.

use crate::common;
use crate::common::root;
use aifab::kinds::{Os, Role};
use aifab::model::{FabricModel, PortKind};
use aifab::verify::anta::{self, ANTA_MAX_SPEED_GBPS};
use aifab::verify::collect;
use aifab::verify::observed::Observed;
use aifab::verify::read::{Document, ReadError};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const INSTALL_HINT: &str = "`python3 -m venv .ci/venv && .ci/venv/bin/pip install 'ansible==12.3.0' \
     'anta[cli]==1.10.0'` then `export AIFAB_ANSIBLE_BIN=$PWD/.ci/venv/bin` (what .ci/run does)";

/// Reads a catalog with ANTA's own parser (`AntaCatalog.parse`) and prints every test as JSON: its
/// name, its tags and its inputs as given. With an ANTA inventory as second argument, also how many
/// distinct tests each of its devices gets, chosen as `anta nrfu` chooses them (the untagged ones and
/// those of the device's tags, its name among them).
const PARSE: &str = r#"
import json, sys
from anta.catalog import AntaCatalog
catalog = AntaCatalog.parse(sys.argv[1])
out = {"tests": [
    {"test": t.test.name,
     "tags": sorted(t.inputs.filters.tags) if t.inputs.filters and t.inputs.filters.tags else [],
     "inputs": t.inputs.model_dump(mode="json", exclude_unset=True, exclude={"filters"})}
    for t in catalog.tests]}
if len(sys.argv) > 2:
    from anta.inventory import AntaInventory
    inventory = AntaInventory.parse(sys.argv[2], username="aifab", password="aifab")
    catalog.build_indexes()  # then what `anta nrfu` runs on each device, as anta.runner picks it
    out["devices"] = {
        name: len(catalog.tag_to_tests[None] | catalog.get_tests_by_tags(d.tags))
        for name, d in inventory.items()}
print(json.dumps(out))
"#;

/// The python beside the Ansible tools (`python`, else `python3`) when it imports ANTA's catalog.
fn anta_python() -> Option<PathBuf> {
    let py = common::find_tool("python").or_else(|| common::find_tool("python3"))?;
    let ok = Command::new(&py)
        .args(["-c", "import anta.catalog, anta.inventory"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// True when ANTA (its python package and, with `cli`, its `anta` command) is missing, after the
/// one skip line; under CI it fails.
fn skip_anta(cli: bool) -> bool {
    let present = anta_python().is_some() && (!cli || common::find_tool("anta").is_some());
    !common::prerequisite(
        present,
        "the ANTA catalog tests",
        "ANTA 1.10.0 (python package and `anta` command) not found",
        INSTALL_HINT,
    )
}

/// True when `ansible-playbook` is missing, after the one skip line; under CI it fails.
fn skip_ansible() -> bool {
    !common::prerequisite(
        common::find_tool("ansible-playbook").is_some(),
        "the collect playbook tests",
        "ansible-playbook not found",
        INSTALL_HINT,
    )
}

/// Runs `exe` from the repository root, without colours.
fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .current_dir(root())
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_FORCE_COLOR", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL_HINT}", exe.display()))
}

/// Asserts `out` succeeded, with both streams in the message.
fn ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The catalog of `model` written under `dir`, read back by ANTA (with `inventory`, the tests each of
/// its devices gets).
fn parsed(catalog: &str, dir: &Path, inventory: Option<&Path>) -> Value {
    let path = dir.join("catalog.yml");
    std::fs::write(&path, catalog).expect("write catalog");
    let py = anta_python().expect("ANTA python");
    let mut args = vec!["-c", PARSE, path.to_str().expect("utf-8 path")];
    if let Some(inv) = inventory {
        args.push(inv.to_str().expect("utf-8 path"));
    }
    let out = run(&py, &args);
    ok("AntaCatalog.parse", &out);
    serde_json::from_slice(&out.stdout).expect("the parse script prints JSON")
}

/// The parsed tests as (tag, test name, inputs); each test carries exactly one tag.
fn tests_of(parsed: &Value) -> Vec<(String, String, Value)> {
    let tests = parsed["tests"].as_array().expect("tests");
    tests
        .iter()
        .map(|t| {
            let tags = t["tags"].as_array().expect("tags");
            assert_eq!(tags.len(), 1, "a test without exactly one tag: {t}");
            let s = |v: &Value| v.as_str().expect("string").to_string();
            (s(&tags[0]), s(&t["test"]), t["inputs"].clone())
        })
        .collect()
}

/// How many tests of each name each EOS switch of `model` must get: one `VerifyLLDPNeighbors` per
/// fabric port, one `VerifyInterfacesStatus` per used port and one `VerifyInterfacesSpeed` per used
/// port ANTA can take, one `VerifyL3MTU` per switch with a routed interface, one
/// `VerifyBGPPeerSession` per neighbor, one `VerifyBGPRouteECMP` per leaf (every example's EOS leaf
/// has another leaf in its plane).
fn expected(model: &FabricModel) -> BTreeMap<(String, &'static str), usize> {
    let mut want = BTreeMap::new();
    for d in model.devices.iter().filter(|d| d.os == Os::Eos) {
        let fabric = d.interfaces.iter().filter(|i| i.kind == PortKind::Fabric);
        let speeds = d
            .interfaces
            .iter()
            .filter(|i| i.speed_gbps <= ANTA_MAX_SPEED_GBPS);
        let routed = d.interfaces.iter().any(|i| i.vlan.is_none()) || d.server_subnet.is_some();
        let counts = [
            ("VerifyLLDPNeighbors", fabric.count()),
            ("VerifyInterfacesStatus", d.interfaces.len()),
            ("VerifyInterfacesSpeed", speeds.count()),
            ("VerifyL3MTU", usize::from(routed)),
            ("VerifyBGPPeerSession", d.bgp.neighbors.len()),
            ("VerifyBGPRouteECMP", usize::from(d.role == Role::Leaf)),
        ];
        for (test, n) in counts.into_iter().filter(|(_, n)| *n > 0) {
            want.insert((d.hostname.clone(), test), n);
        }
    }
    want
}

/// The example intents that have an EOS switch.
fn eos_examples() -> Vec<(String, FabricModel)> {
    let v: Vec<(String, FabricModel)> = common::example_intents()
        .into_iter()
        .map(|i| {
            let m = common::model(&i);
            (i, m)
        })
        .filter(|(_, m)| m.devices.iter().any(|d| d.os == Os::Eos))
        .collect();
    assert!(
        v.len() >= 3,
        "fewer EOS examples than expected: {}",
        v.len()
    );
    v
}

#[test]
fn every_eos_example_catalog_parses_and_has_an_entry_per_planned_item() {
    if skip_anta(false) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-examples");
    for (intent, model) in eos_examples() {
        let text = anta::catalog(&model, None);
        assert_eq!(
            text,
            anta::catalog(&model, None),
            "{intent}: not deterministic"
        );
        let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (tag, test, _) in tests_of(&parsed(&text, &dir, None)) {
            *got.entry((tag, test)).or_default() += 1;
        }
        let want: BTreeMap<(String, String), usize> = expected(&model)
            .into_iter()
            .map(|((h, t), n)| ((h, t.to_string()), n))
            .collect();
        assert_eq!(got, want, "{intent}: tests per switch and name");
    }
}

/// `interface <name>` → its description, from a rendered EOS config.
fn described_ports(cfg: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in cfg.lines() {
        if let Some(name) = line.strip_prefix("interface ") {
            current = Some(name.to_string());
        } else if let (Some(name), Some(d)) = (&current, line.strip_prefix("   description ")) {
            out.insert(name.clone(), d.to_string());
        }
    }
    out
}

fn golden(path: &str) -> String {
    std::fs::read_to_string(root().join("golden").join(path))
        .unwrap_or_else(|e| panic!("read golden/{path}: {e}"))
}

/// The LLDP entries of `host`: (port, neighbor device, neighbor port).
fn lldp_of(tests: &[(String, String, Value)], host: &str) -> BTreeSet<(String, String, String)> {
    let s = |v: &Value| v.as_str().expect("string").to_string();
    tests
        .iter()
        .filter(|(tag, test, _)| tag == host && test == "VerifyLLDPNeighbors")
        .flat_map(|(_, _, inputs)| {
            assert_eq!(inputs["require_fqdn"], Value::Bool(false));
            let n = inputs["neighbors"].as_array().expect("neighbors").clone();
            assert_eq!(n.len(), 1, "one neighbor per entry: {inputs}");
            n
        })
        .map(|n| {
            (
                s(&n["port"]),
                s(&n["neighbor_device"]),
                s(&n["neighbor_port"]),
            )
        })
        .collect()
}

#[test]
fn a_leaf_under_sonic_spines_expects_their_aliases_and_its_rendered_neighbors() {
    if skip_anta(false) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-leaf");
    let model = common::model("intents/three-tier-small.yaml");
    let tests = tests_of(&parsed(&anta::catalog(&model, None), &dir, None));
    let host = "z1-g1-r1";
    // The port ID each SONiC spine sends is the alias of its PORT row, as the rendered config_db.json
    // has it; the row's description names the leaf's port.
    let mut want = BTreeSet::new();
    for spine in ["z1-spine1", "z1-spine2"] {
        let db: Value =
            serde_json::from_str(&golden(&format!("three-tier-small/{spine}/config_db.json")))
                .expect("config_db.json");
        for row in db["PORT"].as_object().expect("PORT").values() {
            if let Some(port) = row["description"]
                .as_str()
                .and_then(|d| d.strip_prefix("z1-g1-r1:"))
            {
                let alias = row["alias"].as_str().expect("alias").to_string();
                want.insert((port.to_string(), spine.to_string(), alias));
            }
        }
    }
    assert_eq!(want.len(), 4, "z1-g1-r1 has four uplinks");
    assert!(
        want.iter()
            .any(|(p, _, a)| p == "Ethernet61/1" && a == "fourhundredGigE1/1")
    );
    assert_eq!(lldp_of(&tests, host), want);

    // Every `neighbor <ip> remote-as <asn>` of its rendered config has an established-session entry
    // naming that ASN.
    let cfg = golden("three-tier-small/z1-g1-r1.cfg");
    let rendered: BTreeSet<(String, String)> = cfg
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("neighbor ")?;
            let (ip, asn) = rest.split_once(" remote-as ")?;
            Some((ip.to_string(), format!("AS{asn}")))
        })
        .collect();
    assert_eq!(rendered.len(), 4);
    let sessions: BTreeSet<(String, String)> = tests
        .iter()
        .filter(|(tag, test, _)| tag == host && test == "VerifyBGPPeerSession")
        .map(|(_, _, inputs)| {
            assert_eq!(inputs["check_tcp_queues"], Value::Bool(false));
            let peer = &inputs["bgp_peers"][0];
            let asn = peer["description"]
                .as_str()
                .expect("description")
                .split(' ')
                .nth(1);
            let ip = peer["peer_address"].as_str().expect("peer_address");
            (
                ip.to_string(),
                asn.expect("an ASN in the description").to_string(),
            )
        })
        .collect();
    assert_eq!(sessions, rendered);

    // Its ECMP width toward the next leaf's loopback: its four uplinks.
    let next = model
        .devices
        .iter()
        .find(|d| d.hostname == "z1-g1-r2")
        .expect("z1-g1-r2");
    let ecmp: Vec<&Value> = tests
        .iter()
        .filter(|(tag, test, _)| tag == host && test == "VerifyBGPRouteECMP")
        .map(|(_, _, inputs)| &inputs["route_entries"][0])
        .collect();
    assert_eq!(ecmp.len(), 1);
    assert_eq!(
        ecmp[0]["prefix"],
        Value::String(format!("{}/32", next.loopback))
    );
    assert_eq!(
        ecmp[0]["ecmp_count"],
        Value::from(model.summary.leaf_ecmp_width)
    );
}

#[test]
fn a_spine_over_nxos_leaves_expects_their_port_names() {
    if skip_anta(false) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-spine");
    let model = common::model("intents/pod1-1024.yaml");
    let tests = tests_of(&parsed(&anta::catalog(&model, None), &dir, None));
    // The rendered spine01.cfg describes each fabric port as `<leaf>:<leaf port>`: NX-OS sends the
    // port's name as its LLDP port ID.
    let want: BTreeSet<(String, String, String)> =
        described_ports(&golden("pod1-1024/spine01.cfg"))
            .into_iter()
            .filter_map(|(port, d)| {
                let (peer, peer_port) = d.split_once(':')?;
                peer.contains("leaf")
                    .then(|| (port, peer.to_string(), peer_port.to_string()))
            })
            .collect();
    assert_eq!(want.len(), 64, "spine01's leaf ports");
    assert!(want.contains(&(
        "Ethernet3/1/1".to_string(),
        "su1-r1-leaf".to_string(),
        "Ethernet1/33".to_string()
    )));
    assert_eq!(lldp_of(&tests, "spine01"), want);
    // A spine gets no ECMP entry (the width is a leaf's).
    assert!(
        !tests
            .iter()
            .any(|(t, n, _)| t == "spine01" && n == "VerifyBGPRouteECMP")
    );
}

/// The mixed example with EOS rail leaves instead of SONiC ones: `rail-subnet` leaves, whose server
/// ports are access ports of the server VLAN and whose VLAN interface is routed.
fn eos_rail_subnet(dir: &Path) -> FabricModel {
    let text = std::fs::read_to_string(root().join("intents/mixed-sonic-nxos.yaml")).expect("read");
    let eos = text.replace("platform: sonic/dell-z9332f-o32", "platform: eos/7060x5-64");
    assert_ne!(eos, text, "the mixed example's leaf platform moved");
    let path = dir.join("eos-rail-subnet.yaml");
    std::fs::write(&path, eos).expect("write intent");
    common::model(path.to_str().expect("utf-8 path"))
}

/// The `VerifyL3MTU` inputs of `host`.
fn l3_mtu_of(tests: &[(String, String, Value)], host: &str) -> Value {
    let mut of = tests
        .iter()
        .filter(|(tag, test, _)| tag == host && test == "VerifyL3MTU");
    let (_, _, inputs) = of.next().expect("a VerifyL3MTU entry");
    assert!(of.next().is_none(), "one VerifyL3MTU entry per switch");
    inputs.clone()
}

#[test]
fn a_rail_subnet_leaf_checks_its_vlan_interface_mtu_and_ignores_one_without() {
    if skip_anta(false) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-rail-subnet");
    let mut model = eos_rail_subnet(&dir);
    let tests = tests_of(&parsed(&anta::catalog(&model, None), &dir, None));
    let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (tag, test, _) in &tests {
        *got.entry((tag.clone(), test.clone())).or_default() += 1;
    }
    let want: BTreeMap<(String, String), usize> = expected(&model)
        .into_iter()
        .map(|((h, t), n)| ((h, t.to_string()), n))
        .collect();
    assert_eq!(got, want);
    // Uplinks and Vlan100 all run the intent's 9100: one value, nothing specific, nothing ignored.
    assert_eq!(
        l3_mtu_of(&tests, "g1-rail1"),
        serde_json::json!({"mtu": 9100})
    );

    // One uplink planned otherwise, and the server ports out of the VLAN (so Vlan100 has no member
    // and no rendered MTU): the uplink is specific, Vlan100 ignored beside ANTA's own defaults.
    let leaf = model
        .devices
        .iter_mut()
        .find(|d| d.hostname == "g1-rail1")
        .expect("g1-rail1");
    let uplink = leaf
        .interfaces
        .iter_mut()
        .find(|i| i.kind == PortKind::Fabric)
        .expect("uplink");
    uplink.mtu = 9000;
    let uplink = uplink.name.to_string();
    for i in leaf
        .interfaces
        .iter_mut()
        .filter(|i| i.kind == PortKind::Server)
    {
        i.vlan = None;
    }
    let tests = tests_of(&parsed(&anta::catalog(&model, None), &dir, None));
    let inputs = l3_mtu_of(&tests, "g1-rail1");
    assert_eq!(inputs["mtu"], Value::from(9100));
    assert_eq!(
        inputs["specific_mtu"],
        serde_json::json!([{ uplink: 9000 }])
    );
    let ignored = inputs["ignored_interfaces"]
        .as_array()
        .expect("ignored_interfaces");
    assert!(
        ignored.contains(&Value::from("Vlan100")) && ignored.contains(&Value::from("Loopback"))
    );
}

#[test]
fn only_narrows_the_catalog_to_the_matching_eos_switches() {
    let model = common::model("intents/three-tier-small.yaml");
    let glob = |g: &str| globset::Glob::new(g).expect("glob").compile_matcher();
    let some = anta::catalog(&model, Some(&glob("z2-g4-*")));
    let tags: BTreeSet<&str> = some
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tags: [\"")?.strip_suffix("\"]"))
        .collect();
    let want: BTreeSet<&str> = ["z2-g4-r1", "z2-g4-r2", "z2-g4-r3", "z2-g4-r4"].into();
    assert_eq!(tags, want);
    // Spines are SONiC, super-spines NX-OS: nothing to check with ANTA.
    let none = anta::catalog(&model, Some(&glob("*spine*")));
    assert!(none.ends_with("\n{}\n"), "{none}");
    // A model compiled for one leaf only (as `--only` compiles it: the summary still counts the
    // whole fabric) has no spine to name an alias from and no paths: no LLDP or ECMP entry, a
    // comment for each uplink instead; its ports and sessions are all there.
    let mut narrowed = model.clone();
    narrowed.devices.retain(|d| d.hostname == "z1-g1-r1");
    let one = anta::catalog(&narrowed, None);
    assert!(!one.contains("VerifyLLDPNeighbors") && !one.contains("VerifyBGPRouteECMP"));
    let leaf = &narrowed.devices[0];
    let commented = one.matches("is not in the model").count();
    assert_eq!(commented, leaf.bgp.neighbors.len(), "{one}");
    let sessions = one.matches("- VerifyBGPPeerSession:").count();
    assert_eq!(sessions, leaf.bgp.neighbors.len());
    assert_eq!(
        one.matches("- VerifyInterfacesStatus:").count(),
        leaf.interfaces.len()
    );
    if skip_anta(false) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-only");
    assert_eq!(parsed(&none, &dir, None)["tests"], Value::Array(Vec::new()));
    let tests = tests_of(&parsed(&one, &dir, None));
    assert_eq!(tests.len(), one.matches("- Verify").count());
    assert!(tests.iter().all(|(tag, _, _)| tag == "z1-g1-r1"));
}

#[test]
fn anta_inventory_from_aifabs_gives_each_eos_switch_exactly_its_tests() {
    if skip_anta(true) {
        return;
    }
    let dir = common::Scratch::new("verify-anta-inventory");
    for (intent, group) in [
        ("three-tier-small", "zones2_eos"),
        ("pod1-1024", "pod1_eos"),
    ] {
        let model = common::model(&format!("intents/{intent}.yaml"));
        let inventory = dir.join(format!("{intent}-anta.yml"));
        let out = run(
            &common::find_tool("anta").expect("anta"),
            &[
                "get",
                "from-ansible",
                "--ansible-inventory",
                &format!("golden/{intent}/inventory.yml"),
                "--ansible-group",
                group,
                "--output",
                inventory.to_str().expect("utf-8 path"),
                "--overwrite",
            ],
        );
        ok("anta get from-ansible", &out);
        let got = parsed(&anta::catalog(&model, None), &dir, Some(&inventory));
        let mut want: BTreeMap<String, usize> = BTreeMap::new();
        for ((host, _), n) in expected(&model) {
            *want.entry(host).or_default() += n;
        }
        let got: BTreeMap<String, usize> =
            serde_json::from_value(got["devices"].clone()).expect("devices");
        assert_eq!(got, want, "{intent}: tests per ANTA device");
    }
}

// ------------------------------------------------------------------------------------------------
// The collect playbook
// ------------------------------------------------------------------------------------------------

#[test]
fn collect_documents_yml_is_fresh() {
    let path = root().join("ansible/vars/collect-documents.yml");
    let fresh = collect::documents_vars();
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == fresh,
        "ansible/vars/collect-documents.yml is not the documents table's (src/verify/read/); \
         rewrite it with: AIFAB_BLESS=1 cargo test --test it verify_anta::collect_documents_yml_is_fresh"
    );
}

#[test]
fn collect_playbook_passes_the_syntax_check() {
    if skip_ansible() {
        return;
    }
    let playbook = common::find_tool("ansible-playbook").expect("ansible-playbook");
    for intent in ["three-tier-small", "pod1-1024"] {
        let inventory = format!("golden/{intent}/inventory.yml");
        let out = run(
            &playbook,
            &["-i", &inventory, "ansible/collect.yml", "--syntax-check"],
        );
        ok("ansible-playbook --syntax-check", &out);
        assert!(String::from_utf8_lossy(&out.stdout).contains("playbook: ansible/collect.yml"));
    }
}

fn no_read(_: &str, _: &mut Observed) -> Result<(), ReadError> {
    Ok(())
}

/// A stand-in table for a SONiC host on the control node: JSON, a command that holds a template's
/// braces (Ansible must run it as written), and one that fails.
const STAND_IN: &[Document] = &[
    Document {
        file: "lldp.json",
        command: r#"printf '%s' '{"lldp": {"interface": []}}'"#,
        keys: &[],
        serves: &[],
        read: no_read,
    },
    Document {
        file: "braces.txt",
        command: "echo '{{ not_a_variable }}' \"two words\"",
        keys: &[],
        serves: &[],
        read: no_read,
    },
    Document {
        file: "missing.json",
        command: "ls /nonexistent-aifab-collect",
        keys: &[],
        serves: &[],
        read: no_read,
    },
    Document {
        file: "routes.json",
        command: r#"printf '{"%s": []}' '{prefix}'"#,
        keys: &[],
        serves: &[],
        read: no_read,
    },
    Document {
        file: "tables.json",
        command: r#"printf '{"%s": {"type": "hash"}}' '{key}'"#,
        keys: &["PFC_WD|*", "DEVICE_METADATA|localhost"],
        serves: &[],
        read: no_read,
    },
];

/// An inventory of two stand-in SONiC hosts, `sw1` and `sw2`, run on the control node itself.
fn stand_in_inventory(dir: &Path, python: &Path) -> PathBuf {
    let inv = dir.join("inventory.yml");
    let text = format!(
        "all:\n  children:\n    lab_sonic:\n      vars:\n        aifab_os: sonic\n        \
         ansible_connection: local\n        ansible_python_interpreter: {}\n        \
         aifab_route_samples: [10.0.0.1/32, 10.0.0.7/32]\n      hosts:\n        \
         sw1: {{}}\n        sw2: {{}}\n",
        python.display()
    );
    std::fs::write(&inv, text).expect("write inventory");
    inv
}

#[test]
fn collect_writes_what_a_sonic_switch_prints_and_fails_on_a_missing_document() {
    if skip_ansible() {
        return;
    }
    let dir = common::Scratch::new("verify-collect-run");
    let python = common::find_tool("python")
        .or_else(|| common::find_tool("python3"))
        .expect("python");
    let inventory = stand_in_inventory(&dir, &python);
    let table = dir.join("documents.yml");
    const NONE: &[Document] = &[];
    let fake = |os: Os| if os == Os::Sonic { STAND_IN } else { NONE };
    std::fs::write(&table, collect::documents_vars_of(fake)).expect("write table");
    let state = dir.join("state");
    for host in ["sw1", "sw2"] {
        std::fs::create_dir_all(state.join(host)).expect("mkdir");
        std::fs::write(state.join(host).join("missing.json"), "old\n").expect("stale file");
    }
    let out = run(
        &common::find_tool("ansible-playbook").expect("ansible-playbook"),
        &[
            "-i",
            inventory.to_str().expect("utf-8"),
            "ansible/collect.yml",
            "--limit",
            "sw1",
            "-e",
            &format!("@{}", table.display()),
            "-e",
            &format!("aifab_state={}", state.display()),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a failed document fails the host:\n{stdout}"
    );
    assert!(
        stdout.contains("sw1: 1 of 7 commands failed")
            && stdout.contains("missing.json (`ls /nonexistent-aifab-collect`)")
            && stdout.contains("No such file"),
        "{stdout}"
    );
    let read = |host: &str, f: &str| std::fs::read_to_string(state.join(host).join(f)).ok();
    assert_eq!(
        read("sw1", "lldp.json").as_deref(),
        Some("{\"lldp\": {\"interface\": []}}\n")
    );
    assert_eq!(
        read("sw1", "braces.txt").as_deref(),
        Some("{{ not_a_variable }} two words\n")
    );
    assert_eq!(
        read("sw1", "missing.json"),
        None,
        "the earlier run's file is removed"
    );
    // A per-prefix document: the command once per sampled prefix, the outputs as one JSON list.
    let routes: serde_json::Value =
        serde_json::from_str(&read("sw1", "routes.json").expect("routes.json"))
            .expect("a JSON list");
    assert_eq!(
        routes,
        serde_json::json!([{"10.0.0.1/32": []}, {"10.0.0.7/32": []}])
    );
    // A per-key document: the command once per key glob, the outputs' members as one JSON object.
    let tables: serde_json::Value =
        serde_json::from_str(&read("sw1", "tables.json").expect("tables.json"))
            .expect("a JSON object");
    assert_eq!(
        tables,
        serde_json::json!({"PFC_WD|*": {"type": "hash"}, "DEVICE_METADATA|localhost": {"type": "hash"}})
    );
    assert_eq!(
        read("sw2", "missing.json").as_deref(),
        Some("old\n"),
        "--limit left sw2 alone"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = |p: PathBuf| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(state.join("sw1")), 0o700);
    assert_eq!(mode(state.join("sw1/lldp.json")), 0o600);
}
