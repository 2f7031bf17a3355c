//! SONiC SKU facts against the SKU folders they are copied from, and the rendered PORT table against them.
//!
//! - Every PORT entry of every rendered config_db.json is its interface's row of the SKU's port table
//!   (name, lanes, alias, index, speed), or the child row derived from it for a broken-out port, with
//!   the SKU's FEC; `bgp_max_paths` is each release's constants.yml; this needs nothing outside the
//!   repository.
//! - Every SONiC platform's port table in `vendors/sonic.yaml` is its SKU folder's `port_config.ini`, row
//!   for row (speeds from `hwsku.json` where the file has none, FEC as SONiC's breakout code gives it
//!   where it has no fec column), and its PG headroom rows are the folder's `pg_profile_lookup.ini`; a
//!   SKU without buffer numbers has a folder without any.
//! - `config qos reload` agrees with aifab: SONiC's own `buffers_config.j2`, rendered with the SKU's
//!   `buffers.json.j2` (`buffers_dynamic.json.j2` for a SKU in the dynamic model) for each
//!   DEVICE_METADATA type aifab writes and for every rendered config_db.json, produces the BUFFER_POOL,
//!   BUFFER_PROFILE and dynamic-model entries aifab wrote, and per port the same profile lists and PG
//!   and queue profiles (`tests/sonic/render_buffers.py`, python3 + jinja2, as in `tests/it/sonic_frr.rs`).
//!
//! The SKU folders come from the `shared/` folder beside the repository (`sonic-devices/`, copied from
//! sonic-buildimage at the commit `vendors/sonic.yaml` cites; `AIFAB_SONIC_DEVICES_DIR` overrides it);
//! python is `$AIFAB_PYTHON`, else `.ci/venv/bin/python`, else `python3`. Without them the tests that
//! need them print one line and skip; under `CI=true` they fail.

use crate::common;
use crate::common::root;

use aifab::intent::Role;
use aifab::os::sonic::device_type;
use aifab::platform::{BufferModel, Catalog, Os, Platform, SonicFacts};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every SONiC platform of the built-in catalog: name, platform, SKU facts.
fn sonic_platforms() -> Vec<(&'static str, &'static Platform, &'static SonicFacts)> {
    let out: Vec<_> = Catalog::builtin()
        .platforms
        .iter()
        .map(|(name, entry)| (name, entry.get()))
        .filter(|(_, (os, _))| *os == Os::Sonic)
        .map(|(name, (_, p))| (name.as_str(), p, p.sonic.as_ref().expect("sonic facts")))
        .collect();
    assert!(!out.is_empty(), "no SONiC platform");
    out
}

// ------------------------------------------------------------------------------------------------
// Rendered PORT entries against the port table (no prerequisite).
// ------------------------------------------------------------------------------------------------

fn field<'a>(entry: &'a Value, name: &str) -> Option<&'a str> {
    entry.get(name).and_then(Value::as_str)
}

#[test]
fn every_rendered_port_is_its_skus_row() {
    let mut checked = 0;
    for path in common::example_and_extra_intents() {
        let (model, files) = common::render(&path);
        for d in model.devices.iter().filter(|d| d.os == Os::Sonic) {
            let (_, pf) = Catalog::builtin().get(&d.platform).expect("platform");
            let sku = pf.sonic.as_ref().expect("sonic facts");
            let file = files
                .iter()
                .find(|f| f.device == d.hostname && f.path.ends_with("config_db.json"))
                .expect("config_db.json");
            let db: Value = serde_json::from_str(&file.content).expect("json");
            let ports = db["PORT"].as_object().expect("PORT");
            // Used ports and the shut unused ones alike: every front-panel port is its SKU's row.
            let used = d.interfaces.iter().map(|i| (i.port, &i.name));
            let all: Vec<(u32, &aifab::model::Name)> = used
                .chain(d.unused_ports.iter().map(|u| (u.port, &u.name)))
                .collect();
            assert_eq!(ports.len(), all.len(), "{path}: {}", d.hostname);
            // Every front-panel port once, a broken-out one as its children.
            let panels: std::collections::BTreeSet<u32> = all
                .iter()
                .map(|(port, _)| d.locate(*port).expect("place").panel)
                .collect();
            assert_eq!(
                panels.len() as u32,
                pf.ports.count,
                "{path}: {}",
                d.hostname
            );
            for (port, name) in all {
                let at = format!("{path}: {}: {name}", d.hostname);
                let place = d.locate(port).unwrap_or_else(|| panic!("{at}: no place"));
                let child = (place.children > 1).then(|| {
                    let mut row = sku
                        .child(place.panel, place.child, place.children)
                        .unwrap_or_else(|| panic!("{at}: no child row"));
                    row.speed = u64::from(place.speed_gbps) * 1000;
                    row
                });
                let row = match &child {
                    Some(row) => row,
                    None => sku
                        .port(place.panel)
                        .unwrap_or_else(|| panic!("{at}: no row")),
                };
                let e = ports
                    .get(&row.name)
                    .unwrap_or_else(|| panic!("{at}: no PORT {}", row.name));
                assert_eq!(row.name.as_str(), &**name, "{at}: name");
                assert_eq!(field(e, "lanes"), Some(row.lanes.as_str()), "{at}: lanes");
                assert_eq!(field(e, "alias"), Some(row.alias.as_str()), "{at}: alias");
                let index = row.index.to_string();
                assert_eq!(field(e, "index"), Some(index.as_str()), "{at}: index");
                let speed = row.speed.to_string();
                assert_eq!(field(e, "speed"), Some(speed.as_str()), "{at}: speed");
                let fec = sku.fec_of(row).map(|f| f.as_str());
                assert!(fec.is_some(), "{at}: a front-panel port without FEC");
                assert_eq!(field(e, "fec"), fec, "{at}: fec");
                let meta = &db["DEVICE_METADATA"]["localhost"];
                assert_eq!(field(meta, "hwsku"), Some(sku.hwsku.as_str()), "{at}");
                assert_eq!(field(meta, "platform"), Some(sku.platform.as_str()), "{at}");
                assert!(meta.get("mac").is_none(), "{at}: the MAC is per switch");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} SONiC ports rendered");
}

/// `bgp_max_paths` of every SONiC platform is each release's `constants.yml` `bgp.maximum_paths` (the
/// copies tests/it/sonic_frr.rs starts the bgp container with), ipv4 and ipv6 alike; master has the
/// newest entry's.
#[test]
fn bgp_max_paths_are_each_releases_constants() {
    let read = |release: &str| -> (u32, u32) {
        let p = root().join(format!("tests/frr/constants/{release}.yml"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let v: Value = serde_norway::from_str(&text).expect("constants.yml");
        let m = &v["constants"]["bgp"]["maximum_paths"];
        assert_eq!(
            m["enabled"],
            json!(true),
            "{release}: maximum_paths enabled"
        );
        let n = |k: &str| m[k].as_u64().expect("paths") as u32;
        (n("ipv4"), n("ipv6"))
    };
    for (name, _, sku) in sonic_platforms() {
        assert!(!sku.bgp_max_paths.is_empty(), "{name}: no bgp_max_paths");
        for release in ["202405", "202505"] {
            let (v4, v6) = read(release);
            assert_eq!(v4, v6, "{release}");
            assert_eq!(sku.max_paths(release), Some(v4), "{name} on {release}");
        }
        let newest = sku.bgp_max_paths.last().expect("entry").paths;
        assert_eq!(read("master").0, newest, "{name} on master");
    }
}

// ------------------------------------------------------------------------------------------------
// The SKU folders.
// ------------------------------------------------------------------------------------------------

const HOW: &str = "put the project's shared/ folder (sonic-devices/) beside the repository or set \
     AIFAB_SONIC_DEVICES_DIR, and a python3 with jinja2 on PATH (or set AIFAB_PYTHON)";

/// The folder of copied SKU folders, when present.
fn devices_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("AIFAB_SONIC_DEVICES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/sonic-devices"));
    common::prerequisite(
        dir.join("build_templates/buffers_config.j2").is_file(),
        "the SONiC SKU folder tests",
        &format!("no SONiC SKU folders at {}", dir.display()),
        HOW,
    )
    .then_some(dir)
}

/// `<devices>/<vendor>/<platform>/<hwsku>` of a SKU.
fn sku_dir(devices: &Path, sku: &SonicFacts) -> PathBuf {
    let found = std::fs::read_dir(devices)
        .expect("read sonic-devices")
        .flatten()
        .map(|v| v.path().join(&sku.platform).join(&sku.hwsku))
        .find(|p| p.is_dir());
    found.unwrap_or_else(|| panic!("no folder for {}/{}", sku.platform, sku.hwsku))
}

/// Every SONiC platform's breakout facts are its `platform.json` and `hwsku.json`: for every front-panel
/// port, each mode's keyword is one of the port's `breakout_modes`, the child aliases aifab derives are
/// the ones listed for it, and `default_brkout_mode` is the port's in `hwsku.json`.
#[test]
fn breakout_facts_are_the_platform_json() {
    let Some(devices) = devices_dir() else { return };
    let mut checked = 0;
    for (name, pf, sku) in sonic_platforms() {
        if pf.ports.breakout.is_empty() {
            continue;
        }
        let dir = sku_dir(&devices, sku);
        let read = |p: PathBuf| -> Value {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let platform = read(dir.parent().expect("platform dir").join("platform.json"));
        let hwsku = read(dir.join("hwsku.json"));
        for port in 1..=pf.ports.count {
            let row = sku.port(port).expect("row");
            let modes = &platform["interfaces"][&row.name]["breakout_modes"];
            let default = hwsku["interfaces"][&row.name]["default_brkout_mode"].as_str();
            assert_eq!(
                default,
                sku.default_brkout_mode.as_deref(),
                "{name}: {}",
                row.name
            );
            for b in &pf.ports.breakout {
                let listed = modes[&b.keyword]
                    .as_array()
                    .unwrap_or_else(|| panic!("{name}: {}: no mode {}", row.name, b.keyword));
                let derived: Vec<String> = (1..=b.mode.children)
                    .map(|c| sku.child(port, c, b.mode.children).expect("child").alias)
                    .collect();
                let listed: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
                assert_eq!(derived, listed, "{name}: {} as {}", row.name, b.keyword);
                checked += 1;
            }
        }
    }
    assert!(checked >= 64 * 5, "only {checked} port modes checked");
}

/// A SKU whose port table is already broken out (its `hwsku.json` default mode splits each cage, as the
/// O128S2's 2x400G does) keys BREAKOUT_CFG by each cage's first port with that default, a mode its
/// `platform.json` lists for the cage; each row's `subport` is its place among the cage's children.
#[test]
fn broken_out_skus_are_their_hwsku_json() {
    let Some(devices) = devices_dir() else { return };
    let mut cages = 0;
    for (name, pf, sku) in sonic_platforms() {
        let Some(default) = sku.default_brkout_mode.as_deref() else {
            continue;
        };
        if !pf.ports.breakout.is_empty() {
            continue;
        }
        let dir = sku_dir(&devices, sku);
        let read = |p: PathBuf| -> Value {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let platform = read(dir.parent().expect("platform dir").join("platform.json"));
        let hwsku = read(dir.join("hwsku.json"));
        let mut parent = String::new();
        for port in 1..=pf.ports.count {
            let row = sku.port(port).expect("row");
            if sku.opens_cage(port) {
                parent = row.name.clone();
                let mode = hwsku["interfaces"][&row.name]["default_brkout_mode"].as_str();
                assert_eq!(mode, Some(default), "{name}: {}", row.name);
                cages += 1;
            }
            let children = platform["interfaces"][&parent]["breakout_modes"][default]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {parent} has no mode {default}"));
            let place = children
                .iter()
                .position(|a| a.as_str() == Some(row.alias.as_str()))
                .unwrap_or_else(|| panic!("{name}: {} is not a child of {parent}", row.alias));
            let want = if children.len() == 1 { 0 } else { place + 1 };
            assert_eq!(sku.subport(port), Some(want as u32), "{name}: {}", row.name);
        }
    }
    assert!(cages >= 64, "only {cages} broken-out cages checked");
}

/// The data lines of an `.ini` table, split on whitespace, and the column names of its `#` header.
fn ini(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let words = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let header = text
        .lines()
        .find_map(|l| {
            l.strip_prefix('#')
                .filter(|h| h.contains("speed") || h.contains("lanes"))
        })
        .map(words)
        .unwrap_or_default();
    let rows = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(words)
        .collect();
    (header, rows)
}

/// The speed of a `hwsku.json` breakout mode (`1x800G[400G,...]`: 800000 Mbit/s), as SONiC's
/// portconfig.py reads its default speed.
fn mode_speed(mode: &str) -> u64 {
    let (_, rest) = mode.split_once('x').expect("<n>x<speed>G");
    let gbps: u64 = rest[..rest.find('G').expect("G")].parse().expect("speed");
    gbps * 1000
}

/// The FEC SONiC's breakout code gives a port (sonic-config-engine portconfig.py,
/// `BreakoutCfg.get_config`): `rs` when its speed per lane is 50G or more, none below.
fn portconfig_fec(speed: u64, lanes: usize) -> Option<&'static str> {
    (speed / lanes as u64 >= 50_000).then_some("rs")
}

/// Every SONiC platform's port table is its SKU folder's `port_config.ini`, row for row. Where the file
/// has no speed column (NVIDIA's), each row's speed is its `hwsku.json` default mode's, which is what
/// SONiC reads for a SKU with `hwsku.json`; where it has no fec column, `sonic.fec` gives each port
/// (and each broken-out child) the FEC SONiC's breakout code gives it on a SKU with breakout facts.
#[test]
fn port_tables_are_the_skus_port_config_ini() {
    let Some(devices) = devices_dir() else { return };
    for (name, pf, sku) in sonic_platforms() {
        let dir = sku_dir(&devices, sku);
        let (header, rows) = ini(&dir.join("port_config.ini"));
        assert_eq!(header[..4], ["name", "lanes", "alias", "index"], "{name}");
        let has_speed = header.get(4).is_some_and(|c| c == "speed");
        let has_fec = header.get(5).is_some_and(|c| c == "fec");
        let hwsku: Option<Value> = (!has_speed).then(|| {
            let p = dir.join("hwsku.json");
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            serde_json::from_str(&text).expect("hwsku.json")
        });
        assert_eq!(rows.len(), sku.port_table.len(), "{name}: rows");
        for (n, (want, got)) in rows.iter().zip(&sku.port_table).enumerate() {
            let at = format!("{name}: row {}", n + 1);
            assert_eq!(want.len(), header.len(), "{at}: columns");
            assert_eq!(got.name, want[0], "{at}: name");
            assert_eq!(got.lanes, want[1], "{at}: lanes");
            assert_eq!(got.alias, want[2], "{at}: alias");
            assert_eq!(got.index.to_string(), want[3], "{at}: index");
            let speed = match &hwsku {
                None => want[4].clone(),
                Some(h) => {
                    let mode = h["interfaces"][&got.name]["default_brkout_mode"].as_str();
                    mode_speed(mode.unwrap_or_else(|| panic!("{at}: no default mode"))).to_string()
                }
            };
            assert_eq!(got.speed.to_string(), speed, "{at}: speed");
            let fec = got.fec.map(|f| f.as_str().to_string());
            assert_eq!(fec.as_ref(), want.get(5).filter(|_| has_fec), "{at}: fec");
        }
        // FEC from `sonic.fec` only where the file has no fec column.
        assert_eq!(sku.fec.is_empty(), has_fec, "{name}: sonic.fec");
        if has_fec || sku.default_brkout_mode.is_none() {
            continue;
        }
        // A SKU with breakout facts and no fec column: SONiC's breakout code decides FEC.
        for port in 1..=pf.ports.count {
            let row = sku.port(port).expect("row");
            let lanes = row.lanes.split(',').count();
            let ours = sku.fec_of(row).map(|f| f.as_str());
            assert_eq!(
                ours,
                portconfig_fec(row.speed, lanes),
                "{name}: {}",
                row.name
            );
            for b in &pf.ports.breakout {
                let speed = b.mode.speed.mbps();
                let child = sku.child(port, 1, b.mode.children).expect("child");
                let ours = sku.fec.get(&speed).map(|f| f.as_str());
                let lanes = child.lanes.split(',').count();
                assert_eq!(
                    ours,
                    portconfig_fec(speed, lanes),
                    "{name}: {} as {}",
                    row.name,
                    b.mode
                );
            }
        }
    }
}

#[test]
fn headroom_rows_are_the_skus_pg_profile_lookup_ini() {
    let Some(devices) = devices_dir() else { return };
    for (name, _, sku) in sonic_platforms() {
        let (_, rows) = ini(&sku_dir(&devices, sku).join("pg_profile_lookup.ini"));
        let Some(b) = &sku.buffers else {
            assert!(
                rows.is_empty(),
                "{name}: the SKU has headroom rows aifab lacks"
            );
            continue;
        };
        let got: Vec<Vec<String>> = b
            .pg_lookup
            .iter()
            .map(|r| {
                let cable = format!("{}m", r.cable);
                let row = [
                    &r.speed.to_string(),
                    &cable,
                    &r.size,
                    &r.xon,
                    &r.xoff,
                    &r.dynamic_th,
                ];
                let mut row: Vec<String> = row.map(|s| s.to_string()).to_vec();
                row.extend(r.xon_offset.clone());
                row
            })
            .collect();
        assert_eq!(got, rows, "{name}: pg_lookup");
    }
}

// ------------------------------------------------------------------------------------------------
// `config qos reload`: SONiC's buffers_config.j2 against what aifab wrote.
// ------------------------------------------------------------------------------------------------

/// The python that renders: `$AIFAB_PYTHON`, else CI's venv, else `python3`; None when it cannot import jinja2.
fn python() -> Option<PathBuf> {
    let venv = root().join(".ci/venv/bin/python");
    let py = std::env::var_os("AIFAB_PYTHON")
        .map(PathBuf::from)
        .or_else(|| venv.is_file().then_some(venv))
        .unwrap_or_else(|| PathBuf::from("python3"));
    let ok = Command::new(&py)
        .args(["-c", "import jinja2"])
        .output()
        .is_ok_and(|o| o.status.success());
    common::prerequisite(
        ok,
        "the SONiC buffer template tests",
        &format!("{} cannot import jinja2", py.display()),
        HOW,
    )
    .then_some(py)
}

/// The SKU template `config qos reload` renders in a buffer model: `buffers_dynamic.json.j2` in the
/// dynamic model (sonic-utilities config/main.py, on Mellanox and Barefoot), else `buffers.json.j2`.
fn buffer_entry(model: BufferModel) -> &'static str {
    match model {
        BufferModel::Traditional => "buffers.json.j2",
        BufferModel::Dynamic => "buffers_dynamic.json.j2",
    }
}

/// The buffer model of a SKU (traditional without buffer numbers).
fn model_of(sku: &SonicFacts) -> BufferModel {
    sku.buffers
        .as_ref()
        .map_or(BufferModel::Traditional, |b| b.model)
}

/// Renders the SKU's buffer template `entry` for each named config_db: name → buffer tables.
fn render_buffers(
    python: &Path,
    devices: &Path,
    sku: &Path,
    entry: &str,
    configs: Map<String, Value>,
) -> BTreeMap<String, Value> {
    let request = json!({
        "search": [sku, devices.join("build_templates")],
        "entry": entry,
        "devices": configs,
    });
    common::python_json(
        python,
        &root().join("tests/sonic/render_buffers.py"),
        &request,
        &sku.display().to_string(),
    )
}

/// A BUFFER_PROFILE table with the old `[BUFFER_POOL|name]` references written as plain names, as
/// aifab (and the YANG leafref) writes them; PG headroom profiles (`pg_lossless_*`) left out.
fn sku_profiles(table: &Value) -> Value {
    let mut out = Map::new();
    for (name, entry) in table.as_object().into_iter().flatten() {
        if name.starts_with("pg_lossless_") {
            continue;
        }
        let mut e = entry.clone();
        if let Some(pool) = e.get_mut("pool")
            && let Some(p) = pool.as_str()
        {
            let plain = p.trim_start_matches("[BUFFER_POOL|").trim_end_matches(']');
            *pool = Value::String(plain.to_string());
        }
        out.insert(name.clone(), e);
    }
    Value::Object(out)
}

/// The buffer tables `config qos reload` writes carry aifab's pools and profiles: for each type aifab
/// writes on a SKU with buffer numbers, and for every rendered config_db.json. A SKU without numbers
/// renders no pools.
#[test]
fn config_qos_reload_writes_the_pools_and_profiles_aifab_wrote() {
    let Some(devices) = devices_dir() else { return };
    let Some(python) = python() else { return };
    for (name, p, sku) in sonic_platforms() {
        let dir = sku_dir(&devices, sku);
        if !dir.join("buffers.json.j2").is_file() {
            assert!(
                sku.buffers.is_none(),
                "{name}: numbers without a buffers template"
            );
            continue;
        }
        let ports: Map<String, Value> = (1..=p.ports.count)
            .filter_map(|n| sku.port(n))
            .map(|r| {
                (
                    r.name.clone(),
                    json!({"lanes": r.lanes, "speed": r.speed.to_string()}),
                )
            })
            .collect();
        let configs: Map<String, Value> = [Role::Leaf, Role::Spine, Role::SuperSpine]
            .into_iter()
            .map(|role| {
                let meta = json!({"localhost": {"type": device_type(role), "hwsku": sku.hwsku, "platform": sku.platform}});
                (format!("{role:?}"), json!({"DEVICE_METADATA": meta, "PORT": ports}))
            })
            .collect();
        let entry = buffer_entry(model_of(sku));
        for (role, got) in render_buffers(&python, &devices, &dir, entry, configs.clone()) {
            let pools = got.get("BUFFER_POOL").cloned().unwrap_or(json!({}));
            let profiles = sku_profiles(got.get("BUFFER_PROFILE").unwrap_or(&json!({})));
            match &sku.buffers {
                Some(b) => {
                    assert_eq!(pools, json!(b.pools), "{name} as {role}: BUFFER_POOL");
                    assert_eq!(
                        profiles,
                        json!(b.profiles),
                        "{name} as {role}: BUFFER_PROFILE"
                    );
                    dynamic_parameters_agree(b, &got, &format!("{name} as {role}"));
                }
                None => assert_eq!(pools, json!({}), "{name} as {role}: the SKU has pools"),
            }
        }
        if model_of(sku) == BufferModel::Dynamic {
            traditional_pools_differ_by_role(&python, &devices, &dir, name, configs);
        }
    }
    rendered_configs_agree(&devices, &python);
}

/// The dynamic model's DEFAULT_LOSSLESS_BUFFER_PARAMETER and LOSSLESS_TRAFFIC_PATTERN as the SKU's
/// template renders them, and none in the traditional model.
fn dynamic_parameters_agree(b: &aifab::platform::SonicBuffers, got: &Value, at: &str) {
    let (param, pattern) = match &b.dynamic {
        Some(d) => (
            json!({"AZURE": {"default_dynamic_th": d.default_dynamic_th}}),
            json!({"AZURE": {"mtu": d.traffic_mtu, "small_packet_percentage": d.small_packet_percentage}}),
        ),
        None => (Value::Null, Value::Null),
    };
    assert_eq!(
        got["DEFAULT_LOSSLESS_BUFFER_PARAMETER"], param,
        "{at}: DEFAULT_LOSSLESS_BUFFER_PARAMETER"
    );
    assert_eq!(
        got["LOSSLESS_TRAFFIC_PATTERN"], pattern,
        "{at}: LOSSLESS_TRAFFIC_PATTERN"
    );
}

/// Why one pool table is faithful for a dynamic SKU: its traditional template (`buffers.json.j2`) gives
/// leaves (t0) and spines (t1) pools of different sizes, which the dynamic model replaces with pools
/// buffermgrd sizes itself (no `size`, so the same table for every role).
fn traditional_pools_differ_by_role(
    python: &Path,
    devices: &Path,
    dir: &Path,
    name: &str,
    configs: Map<String, Value>,
) {
    let got = render_buffers(python, devices, dir, "buffers.json.j2", configs);
    let (leaf, spine) = (&got["Leaf"]["BUFFER_POOL"], &got["Spine"]["BUFFER_POOL"]);
    assert!(
        leaf.is_object() && spine.is_object(),
        "{name}: traditional pools"
    );
    assert_ne!(
        leaf, spine,
        "{name}: t0 and t1 traditional pools are the same"
    );
}

/// Every rendered config_db.json of a SKU with buffer tables (examples and extra intents), rendered
/// again by its SKU's buffer templates.
fn rendered_configs_agree(devices: &Path, python: &Path) {
    let mut by_sku: BTreeMap<(PathBuf, BufferModel), Map<String, Value>> = BTreeMap::new();
    for path in common::example_and_extra_intents() {
        let (model, files) = common::render(&path);
        for d in model.devices.iter().filter(|d| d.os == Os::Sonic) {
            let (_, pf) = Catalog::builtin().get(&d.platform).expect("platform");
            let f = files
                .iter()
                .find(|f| f.device == d.hostname && f.path.ends_with("config_db.json"))
                .expect("config_db.json");
            let db: Value = serde_json::from_str(&f.content).expect("json");
            let sku = pf.sonic.as_ref().expect("sonic facts");
            if sku.buffers.is_none() {
                continue; // no buffer tables written (the no-numbers case is checked above)
            }
            by_sku
                .entry((sku_dir(devices, sku), model_of(sku)))
                .or_default()
                .insert(format!("{path}: {}", d.hostname), db);
        }
    }
    for ((dir, model), configs) in by_sku {
        let written = configs.clone();
        for (name, got) in render_buffers(python, devices, &dir, buffer_entry(model), configs) {
            let ours = &written[&name];
            assert_eq!(
                got["BUFFER_POOL"], ours["BUFFER_POOL"],
                "{name}: BUFFER_POOL"
            );
            assert_eq!(
                sku_profiles(&got["BUFFER_PROFILE"]),
                sku_profiles(&ours["BUFFER_PROFILE"]),
                "{name}: BUFFER_PROFILE"
            );
            for t in [
                "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
                "LOSSLESS_TRAFFIC_PATTERN",
            ] {
                assert_eq!(got.get(t), ours.get(t), "{name}: {t}");
            }
            ports_agree(&name, &got, ours);
        }
    }
}

/// Per port, what aifab wrote is what the SKU's template gives a port with a neighbor: the same
/// profile lists, PG 0's lossy profile, and on each PG and queue range aifab wrote the profile the
/// template puts on the same kind (lossless: the template's `3-4`; lossy: its `0-2`).
fn ports_agree(name: &str, got: &Value, ours: &Value) {
    let lossless = |key: &str| -> bool {
        let pfc = ours["PORT_QOS_MAP"][key.split('|').next().unwrap_or_default()]["pfc_enable"]
            .as_str()
            .unwrap_or_default()
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>();
        let ids = key.rsplit('|').next().unwrap_or_default();
        let (a, b) = ids.split_once('-').unwrap_or((ids, ids));
        let (a, b): (u8, u8) = (a.parse().expect("id"), b.parse().expect("id"));
        (a..=b).all(|q| pfc.contains(&q.to_string()))
    };
    for t in [
        "BUFFER_PORT_INGRESS_PROFILE_LIST",
        "BUFFER_PORT_EGRESS_PROFILE_LIST",
    ] {
        for (port, entry) in ours[t].as_object().into_iter().flatten() {
            assert_eq!(&got[t][port], entry, "{name}: {t}|{port}");
        }
        let none = got.get(t).is_none() && ours.get(t).is_none();
        assert!(none || ours.get(t).is_some(), "{name}: {t} missing");
    }
    for (t, lossy_ids, lossless_ids) in [("BUFFER_PG", "0", "3-4"), ("BUFFER_QUEUE", "0-2", "3-4")]
    {
        for (key, entry) in ours[t].as_object().into_iter().flatten() {
            let port = key.split('|').next().unwrap_or_default();
            let ids = if lossless(key) {
                lossless_ids
            } else {
                lossy_ids
            };
            let want = &got[t][format!("{port}|{ids}")];
            if t == "BUFFER_PG" && ids == lossless_ids && want.is_null() {
                // Traditional templates write no lossless PG: buffermgrd adds it from the lookup row.
                continue;
            }
            assert_eq!(
                entry, want,
                "{name}: {t}|{key} against the template's {port}|{ids}"
            );
        }
    }
}

/// A switch on the Arista-7060X6-64PE-O128S2, whose every cage is already 2 x 400G, still gets
/// BREAKOUT_CFG: all 64 cages, keyed by their first port, in the SKU's `2x400G`, and `subport` 1 and 2
/// on each cage's two ports; without the table SONiC's dynamic port breakout refuses to run.
#[test]
fn o128s2_switch_gets_breakout_cfg_and_subports() {
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("intent");
    let from = "platform: sonic/dell-z9664f-o64 ";
    assert!(text.contains(from));
    let text = text.replace(from, "platform: sonic/arista-7060x6-64pe-o128s2 ");
    let dir = common::Scratch::new("o128s2-breakout");
    let path = dir.join("o128s2.yaml");
    std::fs::write(&path, text).expect("write intent");
    let (_, files) = common::render(&path.to_string_lossy());
    let db = files
        .iter()
        .find(|f| f.path == "g2-rail8/config_db.json")
        .expect("g2-rail8 config_db.json");
    let v: Value = serde_json::from_str(&db.content).expect("json");
    let cfg = v["BREAKOUT_CFG"].as_object().expect("BREAKOUT_CFG");
    let (_, sku) = Catalog::builtin()
        .get("sonic/arista-7060x6-64pe-o128s2")
        .expect("the SKU");
    assert_eq!(cfg.len() as u32, sku.ports.count / 2, "one entry per cage");
    for (k, n) in [("Ethernet0", 0), ("Ethernet8", 8), ("Ethernet504", 504)] {
        assert_eq!(cfg[k]["brkout_mode"], "2x400G", "{k}");
        assert_eq!(v["PORT"][format!("Ethernet{}", n + 4)]["subport"], "2");
        assert_eq!(v["PORT"][k]["subport"], "1");
    }
    assert!(
        !cfg.contains_key("Ethernet4"),
        "a cage is keyed by its first port"
    );
}
