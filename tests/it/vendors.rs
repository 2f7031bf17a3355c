//! The built-in platform profiles (`vendors/*.yaml`): they load, they hold the models the references
//! cover, their port naming matches each OS, and a profile that drops a source is refused.

use aifab::platform::{Catalog, Fec, Os, QpHashMethod, Support, VENDOR_FILES};

fn catalog() -> Catalog {
    match Catalog::from_files(&VENDOR_FILES) {
        Ok(c) => c,
        Err(e) => panic!("vendor files are invalid:\n{}", e.join("\n")),
    }
}

/// (name, os, port count, speeds in Gbit/s, [(port, expected interface name)])
type Expect = (
    &'static str,
    Os,
    u32,
    &'static [u32],
    &'static [(u32, &'static str)],
);

const EXPECTED: &[Expect] = &[
    (
        "nxos/n9k-c9364d-gx2a",
        Os::Nxos,
        64,
        &[400],
        &[(1, "Ethernet1/1"), (64, "Ethernet1/64")],
    ),
    (
        "nxos/n9k-c9332d-gx2b",
        Os::Nxos,
        32,
        &[400],
        &[(1, "Ethernet1/1"), (32, "Ethernet1/32")],
    ),
    (
        "eos/7060x5-64",
        Os::Eos,
        64,
        &[400],
        &[(1, "Ethernet1/1"), (64, "Ethernet64/1")],
    ),
    (
        "eos/7060x6",
        Os::Eos,
        64,
        &[800],
        &[(1, "Ethernet1/1"), (64, "Ethernet64/1")],
    ),
    (
        "eos/7800r3",
        Os::Eos,
        288,
        &[400],
        &[
            (1, "Ethernet3/1/1"),
            (36, "Ethernet3/36/1"),
            (37, "Ethernet4/1/1"),
            (288, "Ethernet10/36/1"),
        ],
    ),
    (
        "sonic/dell-z9332f-o32",
        Os::Sonic,
        32,
        &[400],
        &[(1, "Ethernet0"), (2, "Ethernet8"), (32, "Ethernet248")],
    ),
    (
        "sonic/dell-z9664f-o64",
        Os::Sonic,
        64,
        &[400],
        &[(1, "Ethernet0"), (2, "Ethernet4"), (64, "Ethernet252")],
    ),
    (
        "sonic/arista-7060dx5-64s",
        Os::Sonic,
        64,
        &[400],
        &[(1, "Ethernet0"), (2, "Ethernet8"), (64, "Ethernet504")],
    ),
    (
        "sonic/arista-7060x6-64pe",
        Os::Sonic,
        64,
        &[800],
        &[(1, "Ethernet0"), (2, "Ethernet8"), (64, "Ethernet504")],
    ),
    (
        "sonic/arista-7060x6-64pe-o128s2",
        Os::Sonic,
        128,
        &[400],
        &[(1, "Ethernet0"), (2, "Ethernet4"), (128, "Ethernet508")],
    ),
    (
        "sonic/nvidia-sn5600",
        Os::Sonic,
        64,
        &[800],
        &[(1, "Ethernet0"), (2, "Ethernet8"), (64, "Ethernet504")],
    ),
];

#[test]
fn builtin_files_load() {
    catalog();
}

#[test]
fn every_expected_platform_exists_with_its_ports() {
    let cat = catalog();
    for (name, os, count, speeds, names) in EXPECTED {
        let (got_os, p) = cat
            .get(name)
            .unwrap_or_else(|| panic!("platform {name} is missing"));
        assert_eq!(got_os, os, "{name}: os");
        assert_eq!(p.ports.count, *count, "{name}: port count");
        let got: Vec<u32> = p.ports.speeds.iter().map(|s| s.gbps()).collect();
        assert_eq!(got, speeds.to_vec(), "{name}: speeds");
        for (port, want) in names.iter() {
            assert_eq!(
                p.interface_name(*port),
                *want,
                "{name}: interface_name({port})"
            );
        }
        // The last port is always among the checked names.
        assert!(
            names.iter().any(|(port, _)| port == count),
            "{name}: test must check the last port"
        );
    }
    assert_eq!(
        cat.platforms.len(),
        EXPECTED.len(),
        "unexpected extra platforms: {:?}",
        cat.names().collect::<Vec<_>>()
    );
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

/// Only real SKUs, and buffer numbers exactly where the SKU folder has them: the 7060DX5-64S folder
/// has no buffer files, the 7060X6-64PE files write no pools and an empty pg_profile_lookup.ini.
#[test]
fn sonic_skus_are_real_and_buffers_follow_their_folders() {
    let cat = catalog();
    let mut sonic = 0;
    for (name, entry) in &cat.platforms {
        let (os, p) = &**entry;
        if *os != Os::Sonic {
            continue;
        }
        sonic += 1;
        let s = p.sonic.as_ref().expect("sonic facts");
        assert!(
            !s.hwsku.to_lowercase().contains("generic"),
            "{name}: {}",
            s.hwsku
        );
        assert!(s.platform.starts_with("x86_64-"), "{name}: {}", s.platform);
        let without = ["sonic/arista-7060dx5-64s", "sonic/arista-7060x6-64pe"];
        assert_eq!(
            s.buffers.is_none(),
            without.contains(&name.as_str()),
            "{name}: buffers"
        );
        // Every front-panel port has a FEC: 400G and 800G PAM4 need RS-FEC.
        for port in 1..=p.ports.count {
            let row = s.port(port).expect("row");
            assert_eq!(s.fec_of(row), Some(Fec::Rs), "{name}: port {port}");
        }
    }
    assert_eq!(sonic, 6);
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
    let errors = Catalog::from_files(&files).expect_err("ports without FEC must be refused");
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
    let errors = Catalog::from_files(&files).expect_err("a short port table must be refused");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("dell-z9332f-o32") && e.contains("runs at 10000 Mbit/s")),
        "{errors:?}"
    );
}

#[test]
fn feature_support_follows_the_references() {
    let cat = catalog();
    let dlb = |n: &str| cat.get(n).unwrap().1.dlb.support;
    let qp = |n: &str| {
        let q = &cat.get(n).unwrap().1.qp_hash;
        (q.method, q.support)
    };
    let wd = |n: &str| cat.get(n).unwrap().1.watchdog_timers;

    for n in ["nxos/n9k-c9364d-gx2a", "nxos/n9k-c9332d-gx2b"] {
        assert_eq!(dlb(n), Support::Unverified, "{n}");
        assert_eq!(qp(n), (QpHashMethod::NxosUdf, Support::Unverified), "{n}");
        assert_eq!(wd(n), Support::Unverified, "{n}");
        assert!(cat.get(n).unwrap().1.qp_hash.replaces_l4_ports, "{n}");
    }
    for n in ["eos/7060x5-64", "eos/7060x6"] {
        let p = &cat.get(n).unwrap().1;
        assert_eq!(dlb(n), Support::Yes, "{n}");
        assert!(p.dlb.refused.contains_key("per-packet"), "{n}");
        assert_eq!(p.dlb.min_os.as_deref(), Some("4.24.2F"), "{n}");
        assert_eq!(
            qp(n),
            (QpHashMethod::EosTridentUdf, Support::Unverified),
            "{n}"
        );
        assert_eq!(p.queue_keyword.as_deref(), Some("uc-tx-queue"), "{n}");
        assert!(p.ecn_weight, "{n}");
        assert_eq!(wd(n), Support::Yes, "{n}");
    }
    let r3 = &cat.get("eos/7800r3").unwrap().1;
    assert_eq!(r3.dlb.support, Support::No);
    assert!(r3.dlb.modes.is_empty());
    assert!(r3.dlb.refused.contains_key("flowlet") && r3.dlb.refused.contains_key("per-packet"));
    assert_eq!(
        qp("eos/7800r3"),
        (QpHashMethod::EosSandProfile, Support::Yes)
    );
    assert_eq!(r3.qp_hash.min_os.as_deref(), Some("4.33.1F"));
    assert_eq!(r3.queue_keyword.as_deref(), Some("tx-queue"));
    assert!(!r3.ecn_weight);
    assert_eq!(r3.reserved_traffic_classes, vec![7]);

    for n in [
        "sonic/dell-z9332f-o32",
        "sonic/dell-z9664f-o64",
        "sonic/arista-7060dx5-64s",
        "sonic/arista-7060x6-64pe",
        "sonic/arista-7060x6-64pe-o128s2",
    ] {
        let p = &cat.get(n).unwrap().1;
        assert_eq!(dlb(n), Support::No, "{n}");
        assert!(p.dlb.refused.contains_key("flowlet") && p.dlb.refused.contains_key("per-packet"));
        assert_eq!(qp(n), (QpHashMethod::None, Support::No), "{n}");
        assert_eq!(wd(n), Support::Yes, "{n}");
        assert_eq!(
            (p.ecn_unit.keyword.as_str(), p.ecn_unit.bytes),
            ("bytes", 1)
        );
    }
}

#[test]
fn a_missing_source_is_refused() {
    let nxos = VENDOR_FILES
        .iter()
        .find(|(os, _)| *os == Os::Nxos)
        .unwrap()
        .1;
    // Remove the `max_mtu` line from the `sources` of n9k-c9364d-gx2a (not the `max_mtu: 9216` fact).
    let platform = nxos.find("\n  n9k-c9364d-gx2a:\n").expect("platform key");
    let sources = platform + nxos[platform..].find("\n    sources:\n").expect("sources");
    let line_start = sources
        + nxos[sources..]
            .find("\n      max_mtu: ")
            .expect("source line")
        + 1;
    let line_end = line_start + nxos[line_start..].find('\n').unwrap() + 1;
    let line = &nxos[line_start..line_end];
    assert!(
        line.trim_start()
            .starts_with("max_mtu: \"cisco-mtu-technote"),
        "{line}"
    );
    let broken = format!("{}{}", &nxos[..line_start], &nxos[line_end..]);
    assert_eq!(broken.len(), nxos.len() - line.len());
    // The same line in the other NX-OS platform must survive: only one fact goes missing.
    assert!(broken.contains(line));

    let files = VENDOR_FILES.map(|(os, text)| {
        if os == Os::Nxos {
            (os, broken.as_str())
        } else {
            (os, text)
        }
    });
    let errors = Catalog::from_files(&files).expect_err("a fact without a source must be refused");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(e.contains("vendors/nxos.yaml"), "{e}");
    assert!(e.contains("n9k-c9364d-gx2a"), "{e}");
    assert!(e.contains("`max_mtu`"), "{e}");
    assert!(e.contains("no entry in `sources`"), "{e}");
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
    let (sku, want) = (x6.sonic.expect("sku"), o128.sonic.expect("sku"));
    for port in 1..=64u32 {
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
