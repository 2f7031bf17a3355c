//! The fourth reader: the lossless meaning of the servers, read back out of the rendered
//! `hosts/nic-qos.sh` and `hosts/nccl.env` that every server runs (the `mlnx_qos` calls, the DCQCN sysfs
//! writes, the RDMA CM default ToS and the NCCL variables), as the NIC and NCCL would apply them. Every
//! NIC of the loop gets the same settings. [`routes`] reads the routing tables the servers and their
//! pods get: each netplan port's table and each SpiderIPPool's routes.
use aifab::render::OutFile;
use std::collections::{BTreeMap, BTreeSet};

/// What a server's NICs and NCCL do, per priority.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HostMeaning {
    /// The NICs the script configures.
    pub nics: Vec<String>,
    /// `--trust` value.
    pub trust: String,
    /// DSCP → priority, as the `--dscp2prio set,<dscp>,<prio>` calls leave it (later calls win).
    pub dscp: BTreeMap<u8, u8>,
    /// Priorities with PFC on.
    pub lossless: BTreeSet<u8>,
    /// Traffic class of each priority (`--prio_tc`).
    pub prio_tc: Vec<u8>,
    /// Strict traffic classes (`--tsa`).
    pub strict: BTreeSet<u8>,
    /// ETS share per traffic class (`--tcbw`).
    pub tc_bw: Vec<u8>,
    /// Rate limit per traffic class in Gbit/s (`--ratelimit`, 0 unlimited; empty when not set).
    pub ratelimit: Vec<u32>,
    /// Priorities with both DCQCN points enabled.
    pub ecn: BTreeSet<u8>,
    /// CNP DSCP and 802.1p priority.
    pub cnp: (Option<u8>, Option<u8>),
    /// NCCL_IB_TC, NCCL_IB_FIFO_TC.
    pub nccl_tc: Option<u16>,
    /// NCCL_IB_FIFO_TC.
    pub nccl_fifo_tc: Option<u16>,
    /// NCCL_CROSS_NIC.
    pub nccl_cross_nic: Option<u8>,
    /// The ToS byte written to every RDMA device's `default_roce_tos` (RDMA CM connections).
    pub rdma_cm_tos: Option<u16>,
}

/// One routing table of a server port or of the pods on it: what it sends where.
#[derive(Debug)]
pub struct Table {
    /// Where it was read (`netplan/gpu01.yaml eth0p1`, `SpiderIPPool rail01p1-gpu01`).
    pub at: String,
    /// The next hop of its routes (the port's leaf).
    pub gateway: std::net::Ipv4Addr,
    /// The destinations routed through the gateway (the port's own on-link subnet not counted).
    pub destinations: Vec<ipnetwork::Ipv4Network>,
}

/// Every routing table of the render: each netplan port that has routes (a port whose address a
/// pod takes has none) and each SpiderIPPool. Every route of one table goes through one gateway.
pub fn routes(files: &[aifab::render::OutFile]) -> Vec<Table> {
    let mut out = Vec::new();
    let net = |v: &serde_json::Value, at: &str| -> ipnetwork::Ipv4Network {
        v.as_str()
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("{at}: route destination {v}"))
    };
    let ip = |v: &serde_json::Value, at: &str| -> std::net::Ipv4Addr {
        v.as_str()
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("{at}: gateway {v}"))
    };
    for f in files {
        if let Some(server) = f.path.strip_prefix("hosts/netplan/") {
            let doc: serde_json::Value = serde_norway::from_str(&f.content).expect("netplan YAML");
            let eths = doc["network"]["ethernets"].as_object().expect("ethernets");
            for (nic, e) in eths {
                let Some(routes) = e["routes"].as_array() else {
                    continue;
                };
                let at = format!("netplan/{server} {nic}");
                let via: Vec<&serde_json::Value> =
                    routes.iter().filter(|r| r["scope"] != "link").collect();
                let Some(first) = via.first() else {
                    panic!("{at}: no route through the leaf")
                };
                let gateway = ip(&first["via"], &at);
                assert!(
                    via.iter().all(|r| ip(&r["via"], &at) == gateway),
                    "{at}: two gateways"
                );
                out.push(Table {
                    destinations: via.iter().map(|r| net(&r["to"], &at)).collect(),
                    at,
                    gateway,
                });
            }
        } else if f.path == "hosts/kubernetes/spiderpool.yaml" {
            for doc in f.content.split("\n---\n").skip(1) {
                let doc: serde_json::Value = serde_norway::from_str(doc).expect("Spiderpool YAML");
                if doc["kind"] != "SpiderIPPool" {
                    continue;
                }
                let at = format!("SpiderIPPool {}", doc["metadata"]["name"]);
                let routes = doc["spec"]["routes"].as_array().expect("routes");
                let gateway = ip(&doc["spec"]["gateway"], &at);
                assert!(
                    routes.iter().all(|r| ip(&r["gw"], &at) == gateway),
                    "{at}: two gateways"
                );
                out.push(Table {
                    destinations: routes.iter().map(|r| net(&r["dst"], &at)).collect(),
                    at,
                    gateway,
                });
            }
        }
    }
    out
}

fn list(s: &str) -> Vec<u8> {
    s.split(',')
        .map(|x| {
            x.parse()
                .unwrap_or_else(|_| panic!("not a number: {x} in {s}"))
        })
        .collect()
}

/// Reads the servers' shared files.
pub fn read(files: &[&OutFile]) -> HostMeaning {
    let find = |suffix: &str| {
        files
            .iter()
            .find(|f| f.path.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix}"))
    };
    let mut m = HostMeaning::default();
    read_script(&find("/nic-qos.sh").content, &mut m);
    for line in find("/nccl.env").content.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let tc = || -> Option<u16> { Some(v.parse().unwrap_or_else(|_| panic!("{line}"))) };
        match k {
            "NCCL_IB_TC" => m.nccl_tc = tc(),
            "NCCL_IB_FIFO_TC" => m.nccl_fifo_tc = tc(),
            "NCCL_CROSS_NIC" => m.nccl_cross_nic = Some(v.parse().expect("NCCL_CROSS_NIC")),
            _ => {}
        }
    }
    m
}

fn read_script(text: &str, m: &mut HostMeaning) {
    let (mut np, mut rp) = (BTreeSet::new(), BTreeSet::new());
    // Join `\`-continued lines first, as the shell does.
    let joined = text.replace(" \\\n", " ");
    for line in joined.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(rest) = line.strip_prefix("for nic in ") {
            let rest = rest.trim_end_matches("; do");
            m.nics = rest
                .split(' ')
                .map(|w| w.trim_matches('\'').to_string())
                .collect();
        } else if words.first() == Some(&"mlnx_qos") {
            mlnx_qos(&words, m);
        } else if words.first() == Some(&"echo") && line.ends_with("/ports/1/default_roce_tos\"") {
            // `echo <tos> > "$cm/ports/1/default_roce_tos"`, inside the loop over each port's devices.
            m.rdma_cm_tos = Some(words[1].parse().expect("ToS"));
        } else if words.first() == Some(&"echo") {
            let value: u8 = words[1].parse().expect("echo value");
            let path = words[3].trim_matches('"');
            let path = path
                .strip_prefix("/sys/class/net/$nic/ecn/")
                .expect("ecn sysfs");
            if let Some(p) = path.strip_prefix("roce_np/enable/") {
                assert_eq!(value, 1);
                np.insert(p.parse().expect("prio"));
            } else if let Some(p) = path.strip_prefix("roce_rp/enable/") {
                assert_eq!(value, 1);
                rp.insert(p.parse().expect("prio"));
            } else if path == "roce_np/cnp_dscp" {
                m.cnp.0 = Some(value);
            } else if path == "roce_np/cnp_802p_prio" {
                m.cnp.1 = Some(value);
            } else {
                panic!("unknown sysfs write {path}");
            }
        }
    }
    assert_eq!(
        np, rp,
        "DCQCN notification and reaction points on different priorities"
    );
    m.ecn = np;
}

fn mlnx_qos(words: &[&str], m: &mut HostMeaning) {
    assert_eq!(&words[1..3], &["-i", "\"$nic\""]);
    let mut i = 3;
    while i + 1 < words.len() {
        let (flag, value) = (words[i], words[i + 1]);
        i += 2;
        match flag {
            "--trust" => m.trust = value.to_string(),
            "--dscp2prio" => {
                let v: Vec<&str> = value.split(',').collect();
                assert_eq!(v[0], "set");
                m.dscp
                    .insert(v[1].parse().expect("dscp"), v[2].parse().expect("prio"));
            }
            "--pfc" => {
                m.lossless = list(value)
                    .iter()
                    .enumerate()
                    .filter(|(_, on)| **on == 1)
                    .map(|(p, _)| p as u8)
                    .collect();
            }
            "--prio_tc" => m.prio_tc = list(value),
            "--tsa" => {
                m.strict = value
                    .split(',')
                    .enumerate()
                    .filter(|(_, t)| *t == "strict")
                    .map(|(tc, _)| tc as u8)
                    .collect();
            }
            "--tcbw" => m.tc_bw = list(value),
            "--ratelimit" => {
                m.ratelimit = value
                    .split(',')
                    .map(|x| x.parse().unwrap_or_else(|_| panic!("not a rate: {x}")))
                    .collect()
            }
            "#" => break,
            other => panic!("unknown mlnx_qos flag {other}"),
        }
    }
}
