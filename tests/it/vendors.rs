//! The built-in platform profiles (`vendors/*.yaml`): they load, they hold the models the references
//! cover, their port naming matches each OS, and a profile that drops a source is refused.

use aifab::platform::{
    BufferModel, Catalog, Fec, Os, Platform, QpHashMethod, Support, VENDOR_FILES,
};

fn catalog() -> Catalog {
    match Catalog::from_files(&VENDOR_FILES) {
        Ok(c) => c,
        Err(e) => panic!("vendor files are invalid:\n{}", lines(&e).join("\n")),
    }
}

/// Every platform of the catalog with its OS, by name; the catalog has at least one platform of each OS.
fn platforms(cat: &Catalog) -> Vec<(&str, Os, &Platform)> {
    let out: Vec<(&str, Os, &Platform)> = cat
        .platforms
        .iter()
        .map(|(name, entry)| (name.as_str(), entry.0, &entry.1))
        .collect();
    for os in Os::ALL {
        assert!(out.iter().any(|p| p.1 == os), "no {os} platform");
    }
    out
}

/// The numbers of an interface name after its `Ethernet` prefix (`Ethernet3/36/1` -> [3, 36, 1]), or
/// `None` when it is not spelled that way.
fn ethernet_numbers(name: &str) -> Option<Vec<u32>> {
    name.strip_prefix("Ethernet")?
        .split('/')
        .map(|n| n.parse().ok())
        .collect()
}

#[test]
fn builtin_files_load() {
    catalog();
}

/// Every platform's ports, read off the catalog: a port count and native speeds (highest first), and
/// names spelled the way its OS spells them: NX-OS `Ethernet<slot>/<port>`, EOS `Ethernet<port>/1` on a
/// fixed system and `Ethernet<card>/<card port>/1` on a modular chassis (`ports_per_card` ports per
/// card from `first_card`), SONiC `Ethernet<first lane index>` from `Ethernet0` up. Names are distinct
/// and grow with the port number; the management port is the OS's (`mgmt0`; `Management1` on a fixed
/// Arista system, `Management0` on a modular one; `eth0`).
#[test]
fn every_platform_names_its_ports_as_its_os_does() {
    let cat = catalog();
    for (name, os, p) in platforms(&cat) {
        let count = p.ports.count;
        assert!(count > 0, "{name}: no ports");
        let speeds: Vec<u32> = p.ports.speeds.iter().map(|s| s.gbps()).collect();
        assert!(
            !speeds.is_empty() && speeds.windows(2).all(|w| w[0] > w[1]),
            "{name}: speeds {speeds:?}, highest first"
        );
        let names: Vec<String> = (1..=count).map(|port| p.interface_name(port)).collect();
        let numbers: Vec<Vec<u32>> = names
            .iter()
            .map(|n| ethernet_numbers(n).unwrap_or_else(|| panic!("{name}: interface {n}")))
            .collect();
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "{name}: names do not grow with the port number: {names:?}"
        );
        let card = |port: u32| {
            p.ports.ports_per_card.map(|ppc| {
                let first = p.ports.first_card.unwrap_or(1);
                vec![(port - 1) / ppc + first, (port - 1) % ppc + 1]
            })
        };
        for (port, got) in (1..=count).zip(&numbers) {
            let want = match (os, card(port)) {
                (Os::Nxos, None) => vec![1, port],
                (Os::Nxos, Some(c)) => c,
                (Os::Eos, None) => vec![port, 1],
                (Os::Eos, Some(c)) => [c, vec![1]].concat(),
                (Os::Sonic, _) if port == 1 => vec![0],
                (Os::Sonic, _) => got.clone(),
            };
            assert_eq!(
                got,
                &want,
                "{name}: port {port} is {}",
                names[port as usize - 1]
            );
        }
        let management = match os {
            Os::Nxos => "mgmt0",
            Os::Eos if p.ports.ports_per_card.is_some() => "Management0",
            Os::Eos => "Management1",
            Os::Sonic => "eth0",
        };
        assert_eq!(p.management_interface, management, "{name}");
    }
}

/// Every fact a built-in platform states needs its source: dropping the `sources` entry of any field
/// the platform writes out (read off the serialized `Platform`, so a field added later is covered too;
/// `description` and `asic` describe rather than claim) is refused naming that fact, and dropping any
/// other entry (a fact left at its default, such as `ecn_weight: false`) is refused or harmless, never
/// another error.
#[test]
fn every_stated_fact_needs_its_source() {
    let cat = catalog();
    for (name, os, p) in platforms(&cat) {
        let refs = &cat.references[&os];
        assert!(
            p.problems(refs).is_empty(),
            "{name}: {:?}",
            p.problems(refs)
        );
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(p) else {
            panic!("{name}: a platform serializes to an object");
        };
        let stated: Vec<&String> = fields
            .keys()
            .filter(|k| !["description", "asic", "sources", "sonic"].contains(&k.as_str()))
            .collect();
        assert!(!stated.is_empty(), "{name}");
        for fact in p.sources.keys() {
            let mut q = p.clone();
            q.sources.remove(fact);
            let problems = q.problems(refs);
            let want = format!("fact `{fact}` has no entry in `sources`");
            if stated.contains(&fact) {
                assert_eq!(problems, [want], "{name} without the source of {fact}");
            } else {
                assert!(
                    problems.is_empty() || problems == [want],
                    "{name} without the source of {fact}: {problems:?}"
                );
            }
        }
        for fact in stated {
            assert!(p.sources.contains_key(fact), "{name}: {fact} has no source");
        }
    }
}

#[test]
fn z9332f_lanes_match_the_example_config_db() {
    let cat = catalog();
    let (_, p) = cat.get("sonic/dell-z9332f-o32").unwrap();
    let s = p.sonic.as_ref().expect("sonic facts");
    let lanes = |port: u32| s.port(port).map(|r| r.lanes.as_str());
    // sonic-example/config_db.json: Ethernet0 .. Ethernet24.
    assert_eq!(lanes(1), Some("33,34,35,36,37,38,39,40"));
    assert_eq!(lanes(2), Some("41,42,43,44,45,46,47,48"));
    assert_eq!(lanes(3), Some("49,50,51,52,53,54,55,56"));
    assert_eq!(lanes(4), Some("57,58,59,60,61,62,63,64"));
    // The SKU's port_config.ini is not linear after port 8.
    assert_eq!(lanes(9), Some("1,2,3,4,5,6,7,8"));
    assert_eq!(lanes(21), Some("225,226,227,228,229,230,231,232"));
    assert_eq!(lanes(32), Some("217,218,219,220,221,222,223,224"));
    // Rows past the 32 front-panel ports are the 10G ports, never used; past the file, nothing.
    assert_eq!(s.port(33).map(|r| r.speed), Some(10_000));
    assert_eq!(s.port(35), None);
    let row = s.port(1).unwrap();
    assert_eq!((row.alias.as_str(), row.index, row.fec), ("etp1", 1, None));
    assert_eq!(s.fec_of(row), Some(Fec::Rs), "no fec column: sonic.fec");
    assert_eq!(s.hwsku, "DellEMC-Z9332f-O32");
    assert_eq!(s.platform, "x86_64-dellemc_z9332f_d1508-r0");
    let b = s.buffers.as_ref().expect("per-SKU buffers");
    assert_eq!(b.pools["ingress_lossless_pool"]["size"], "66394076");
    assert_eq!(b.pools["ingress_lossless_pool"]["xoff"], "27200352");
    assert_eq!(
        b.profiles["egress_lossless_profile"]["static_th"],
        "67117468"
    );
    let xoffs: Vec<(u32, &str)> = b
        .pg_lookup
        .iter()
        .filter(|r| r.speed == 400_000)
        .map(|r| (r.cable, r.xoff.as_str()))
        .collect();
    assert_eq!(
        xoffs,
        vec![
            (5, "178562"),
            (40, "201930"),
            (300, "373888"),
            (1000, "836676"),
            (2000, "1498092")
        ]
    );
}

/// Only real SKUs; every front-panel port has a FEC; buffer numbers, where a SKU has them, name the
/// profiles they use and, in the traditional model, a PG headroom row for every native speed (that they
/// are exactly where the SKU folder has them is tests/it/sonic_sku.rs's, against the folders).
#[test]
fn sonic_skus_are_real_with_fec_and_whole_buffers() {
    let cat = catalog();
    for (name, os, p) in platforms(&cat) {
        if os != Os::Sonic {
            continue;
        }
        let s = p.sonic.as_ref().expect("sonic facts");
        assert!(
            !s.hwsku.to_lowercase().contains("generic"),
            "{name}: {}",
            s.hwsku
        );
        assert!(s.platform.starts_with("x86_64-"), "{name}: {}", s.platform);
        // Every front-panel port has a FEC: 400G and 800G PAM4 need RS-FEC.
        for port in 1..=p.ports.count {
            let row = s.port(port).expect("row");
            assert_eq!(s.fec_of(row), Some(Fec::Rs), "{name}: port {port}");
        }
        let Some(b) = &s.buffers else { continue };
        assert!(!b.pools.is_empty(), "{name}: buffers without pools");
        for profile in [
            &b.ingress_lossy_profile,
            &b.egress_lossless_profile,
            &b.egress_lossy_profile,
        ] {
            assert!(
                b.profiles.contains_key(profile),
                "{name}: no profile {profile}"
            );
        }
        assert_eq!(
            b.dynamic.is_some(),
            b.model == BufferModel::Dynamic,
            "{name}: dynamic parameters go with the dynamic model"
        );
        if b.model == BufferModel::Traditional {
            for speed in &p.ports.speeds {
                let mbps = u64::from(speed.gbps()) * 1000;
                assert!(
                    b.pg_lookup.iter().any(|r| r.speed == mbps),
                    "{name}: no PG headroom row at {}G",
                    speed.gbps()
                );
            }
        }
    }
}

/// A port table shorter than the port count, or a front-panel row without a FEC, is refused.
#[test]
fn a_broken_port_table_is_refused() {
    let text = VENDOR_FILES
        .iter()
        .find(|(os, _)| *os == Os::Sonic)
        .unwrap()
        .1;
    let fec = "      fec: {400000: rs}\n";
    assert!(text.contains(fec));
    let no_fec = text.replacen(fec, "", 1);
    let files = VENDOR_FILES.map(|(os, t)| {
        if os == Os::Sonic {
            (os, no_fec.as_str())
        } else {
            (os, t)
        }
    });
    let errors =
        lines(&Catalog::from_files(&files).expect_err("ports without FEC must be refused"));
    assert!(
        errors
            .iter()
            .any(|e| e.contains("dell-z9332f-o32") && e.contains("has no FEC")),
        "{errors:?}"
    );
    let row = "        - {name: Ethernet248, lanes: \"217,218,219,220,221,222,223,224\", alias: etp32, index: 32, speed: 400000}\n";
    assert!(text.contains(row));
    let short = text.replacen(row, "", 1);
    let files = VENDOR_FILES.map(|(os, t)| {
        if os == Os::Sonic {
            (os, short.as_str())
        } else {
            (os, t)
        }
    });
    let errors =
        lines(&Catalog::from_files(&files).expect_err("a short port table must be refused"));
    assert!(
        errors
            .iter()
            .any(|e| e.contains("dell-z9332f-o32") && e.contains("runs at 10000 Mbit/s")),
        "{errors:?}"
    );
}

/// Feature support per OS and ASIC family, for every platform of the catalog: NX-OS DLB, QP hashing
/// and watchdog timers unverified; EOS by family (Sand/Jericho: no DLB, the Sand QP-hash profile,
/// `tx-queue`, TC 7 reserved; Strata/Tomahawk: flowlet DLB from 4.24.2F, Trident UDF hashing,
/// `uc-tx-queue`, `weight 0`); SONiC: no DLB, no QP hashing, ECN in bytes.
#[test]
fn feature_support_follows_the_references() {
    let cat = catalog();
    for (n, os, p) in platforms(&cat) {
        let qp = (p.qp_hash.method, p.qp_hash.support);
        let sand = p.asic.starts_with("jericho");
        let refuses_all =
            p.dlb.refused.contains_key("flowlet") && p.dlb.refused.contains_key("per-packet");
        match os {
            Os::Nxos => {
                assert_eq!(p.dlb.support, Support::Unverified, "{n}");
                assert_eq!(qp, (QpHashMethod::NxosUdf, Support::Unverified), "{n}");
                assert_eq!(p.watchdog_timers, Support::Unverified, "{n}");
                assert!(p.qp_hash.replaces_l4_ports, "{n}");
            }
            Os::Eos if sand => {
                assert_eq!(p.dlb.support, Support::No, "{n}");
                assert!(p.dlb.modes.is_empty() && refuses_all, "{n}");
                assert_eq!(qp, (QpHashMethod::EosSandProfile, Support::Yes), "{n}");
                assert_eq!(p.qp_hash.min_os.as_deref(), Some("4.33.1F"), "{n}");
                assert_eq!(p.queue_keyword.as_deref(), Some("tx-queue"), "{n}");
                assert!(!p.ecn_weight, "{n}");
                assert_eq!(p.reserved_traffic_classes, vec![7], "{n}");
            }
            Os::Eos => {
                assert!(p.asic.starts_with("tomahawk"), "{n}: a Strata ASIC");
                assert_eq!(p.dlb.support, Support::Yes, "{n}");
                assert!(p.dlb.refused.contains_key("per-packet"), "{n}");
                assert_eq!(p.dlb.min_os.as_deref(), Some("4.24.2F"), "{n}");
                assert_eq!(
                    qp,
                    (QpHashMethod::EosTridentUdf, Support::Unverified),
                    "{n}"
                );
                assert_eq!(p.queue_keyword.as_deref(), Some("uc-tx-queue"), "{n}");
                assert!(p.ecn_weight, "{n}");
                assert_eq!(p.watchdog_timers, Support::Yes, "{n}");
            }
            Os::Sonic => {
                assert_eq!(p.dlb.support, Support::No, "{n}");
                assert!(refuses_all, "{n}");
                assert_eq!(qp, (QpHashMethod::None, Support::No), "{n}");
                assert_eq!(p.watchdog_timers, Support::Yes, "{n}");
                assert_eq!(
                    (p.ecn_unit.keyword.as_str(), p.ecn_unit.bytes),
                    ("bytes", 1),
                    "{n}"
                );
            }
        }
    }
}

#[test]
fn a_missing_source_is_refused() {
    let nxos = VENDOR_FILES
        .iter()
        .find(|(os, _)| *os == Os::Nxos)
        .unwrap()
        .1;
    // Remove the `ports` line from the `sources` of n9k-c9364d-gx2a (its own: the family's
    // sources do not say how many ports a model has).
    let broken = without_source(
        nxos,
        "\n  n9k-c9364d-gx2a:\n",
        "ports: \"cisco-datasheet-gx2",
    );
    let errors = nxos_errors(&broken);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(e.contains("vendors/nxos.yaml"), "{e}");
    assert!(e.contains("n9k-c9364d-gx2a"), "{e}");
    assert!(e.contains("`ports`"), "{e}");
    assert!(e.contains("no entry in `sources`"), "{e}");
    // Without the family's `max_mtu` source, both models of the family lack it.
    let broken = without_source(
        nxos,
        "\n  cloudscale-gx2:\n",
        "max_mtu: \"cisco-mtu-technote",
    );
    let errors = nxos_errors(&broken);
    assert_eq!(errors.len(), 2, "{errors:?}");
    for (e, model) in errors.iter().zip(["n9k-c9332d-gx2b", "n9k-c9364d-gx2a"]) {
        assert!(e.contains(model) && e.contains("`max_mtu`"), "{e}");
    }
}

/// `text` without the first `sources` line starting with `line` after the key `under`.
fn without_source(text: &str, under: &str, line: &str) -> String {
    let at = text.find(under).expect("the key");
    let sources = at + text[at..].find("\n    sources:\n").expect("sources");
    let start = sources
        + text[sources..]
            .find(&format!("\n      {line}"))
            .expect("the line")
        + 1;
    let end = start + text[start..].find('\n').expect("a line end") + 1;
    let out = format!("{}{}", &text[..start], &text[end..]);
    // A `sources:` left without a line would be null, not the family's: drop it too.
    let header = sources + 1;
    match out[header..].split('\n').nth(1) {
        Some(next) if !next.starts_with("      ") => {
            format!(
                "{}{}",
                &out[..header],
                &out[header + "    sources:\n".len()..]
            )
        }
        _ => out,
    }
}

/// The catalog's problems with `nxos` for the NX-OS file.
fn nxos_errors(nxos: &str) -> Vec<String> {
    let files = VENDOR_FILES.map(|(os, text)| {
        if os == Os::Nxos {
            (os, nxos)
        } else {
            (os, text)
        }
    });
    lines(&Catalog::from_files(&files).expect_err("a fact without a source must be refused"))
}

/// Each problem of a catalog as the text it prints.
fn lines(problems: &[aifab::platform::VendorProblem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

#[test]
fn breakout_children_are_named_per_os() {
    let cat = catalog();
    let pf = |n: &str| cat.get(n).expect("platform").1.clone();
    // EOS: children named by their first lane of 8 (Ethernet1/1, 1/5 as 2x400G; 1/3 as 4x200G).
    let eos = pf("eos/7060x6");
    assert_eq!(eos.child_name(1, 2, 2), "Ethernet1/5");
    assert_eq!(eos.child_name(64, 3, 4), "Ethernet64/5");
    assert_eq!(eos.child_name(7, 8, 8), "Ethernet7/8");
    // NX-OS: Ethernet1/<port>/<child>.
    let nx = pf("nxos/n9k-c9364d-gx2a");
    assert_eq!(nx.child_name(3, 2, 2), "Ethernet1/3/2");
    assert_eq!(nx.child_name(64, 4, 4), "Ethernet1/64/4");
    // SONiC: Ethernet<parent + offset>, the parent's lanes split, aliases as platform.json has them.
    let dx5 = pf("sonic/arista-7060dx5-64s");
    let c = dx5
        .sonic
        .as_ref()
        .expect("sku")
        .child(1, 2, 2)
        .expect("child");
    assert_eq!(
        (c.name.as_str(), c.lanes.as_str()),
        ("Ethernet4", "21,22,23,24")
    );
    assert_eq!(c.alias, "Ethernet1/5");
}

#[test]
fn sonic_2x400g_children_are_the_128_port_skus_rows() {
    // The 128 x 400G SKU of the same platform is the 64 x 800G SKU with every port as 2x400G: deriving
    // the children from the 800G rows must give its port_config.ini rows exactly.
    let cat = catalog();
    let x6 = cat.get("sonic/arista-7060x6-64pe").expect("800G").1.clone();
    let o128 = cat
        .get("sonic/arista-7060x6-64pe-o128s2")
        .expect("400G")
        .1
        .clone();
    assert_eq!(o128.ports.count, 2 * x6.ports.count);
    let (sku, want) = (x6.sonic.expect("sku"), o128.sonic.expect("sku"));
    for port in 1..=x6.ports.count {
        for child in 1..=2u32 {
            let got = sku.child(port, child, 2).expect("child row");
            let row = &want.port_table[((port - 1) * 2 + child - 1) as usize];
            assert_eq!(
                (&got.name, &got.lanes, &got.alias, got.index),
                (&row.name, &row.lanes, &row.alias, row.index),
                "port {port} child {child}"
            );
        }
    }
    let modes: Vec<String> = x6
        .ports
        .breakout
        .iter()
        .map(|b| b.mode.to_string())
        .collect();
    assert_eq!(modes, ["2x400G", "4x200G", "8x100G"]);
}

/// Every built-in platform has its row in the `## Platforms` table of its OS's page
/// (`docs/platforms/<os>.md`): a SKU added to vendors/ without its documentation fails here.
#[test]
fn every_platform_has_a_row_in_its_oss_platform_table() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for name in aifab::platform::Catalog::builtin().names() {
        let Some((os, id)) = name.split_once('/') else {
            missing.push(format!("{name}: no OS prefix"));
            continue;
        };
        let page = format!("docs/platforms/{os}.md");
        let text = std::fs::read_to_string(&page).unwrap_or_default();
        let table = text
            .split_once("\n## Platforms\n")
            .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
            .unwrap_or("");
        seen += 1;
        if !table.contains(&format!("\n| `{id}` |")) {
            missing.push(format!(
                "{name}: no row `| `{id}` |` under `## Platforms` in {page}"
            ));
        }
    }
    assert!(seen >= 10, "only {seen} built-in platforms");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Every built-in platform as the catalog resolves it (a family's values beneath the platform's own),
/// against `tests/vendors/resolved.json`: an edit of `vendors/<os>.yaml`, of a family or of one SKU,
/// shows here as the profiles it changes, to review like a golden (`AIFAB_BLESS=1` rewrites it). It
/// was written before the families were introduced, so the families changed no profile.
#[test]
fn every_platform_resolves_as_its_snapshot() {
    let cat = catalog();
    let resolved: std::collections::BTreeMap<&str, &Platform> = platforms(&cat)
        .into_iter()
        .map(|(name, _, p)| (name, p))
        .collect();
    let fresh = serde_json::to_string_pretty(&resolved).expect("JSON of the platforms") + "\n";
    let path = crate::common::root().join("tests/vendors/resolved.json");
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&path, &fresh).expect("write tests/vendors/resolved.json");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    let first = on_disk
        .lines()
        .zip(fresh.lines())
        .position(|(a, b)| a != b)
        .map(|i| {
            format!(
                "line {}: {:?} is now {:?}",
                i + 1,
                on_disk.lines().nth(i),
                fresh.lines().nth(i)
            )
        });
    assert!(
        on_disk == fresh,
        "tests/vendors/resolved.json differs from the resolved platforms ({}): review, then AIFAB_BLESS=1 cargo test --test it vendors::every_platform_resolves",
        first.unwrap_or_else(|| "a different length".into())
    );
}

/// The built-in vendor files, families and all, follow the platform schema an editor checks them
/// with (`schema/platform.schema.json`), and a platform that names no family must be whole.
#[test]
fn every_vendor_file_follows_the_platform_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&aifab::platform::schema_json()).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for (os, text) in VENDOR_FILES {
        let file: serde_json::Value = serde_norway::from_str(text).expect("YAML");
        let errors: Vec<String> = validator
            .iter_errors(&file)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "vendors/{os}.yaml: {errors:#?}");
    }
    let nxos = VENDOR_FILES
        .iter()
        .find(|(os, _)| *os == Os::Nxos)
        .expect("nxos")
        .1;
    let mut file: serde_json::Value = serde_norway::from_str(nxos).expect("YAML");
    file["platforms"]["n9k-c9364d-gx2a"]
        .as_object_mut()
        .expect("a platform")
        .remove("family");
    assert!(
        !validator.is_valid(&file),
        "a partial platform without its family passes"
    );
}
