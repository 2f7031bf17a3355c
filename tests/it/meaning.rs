//! One intent, one meaning: for every device of every example intent, read the lossless QoS meaning
//! back out of the *rendered text* with a per-OS reader and compare it with what the intent says.
//! The same assertions run for NX-OS, EOS and SONiC; a fourth reader reads each server's NIC and NCCL
//! settings (`hosts/`) and checks them against the intent and against its rail leaves' read-back, and
//! reads the servers' routing tables (netplan, Spiderpool) to check that every server port reaches
//! exactly the server ports its leaf's part of the fabric (its plane) reaches.
//! The FRR form (`render --os frr`) is read back for its routing: the same BGP as each device's own
//! config, and as the model.

use crate::common;
#[path = "meaning/eos.rs"]
mod eos;
#[path = "meaning/frr.rs"]
mod frr;
use crate::fabrics;
#[path = "meaning/host.rs"]
mod host;
#[path = "meaning/nxos.rs"]
mod nxos;
#[path = "meaning/sonic.rs"]
mod sonic;

use aifab::platform::Os;
use std::collections::{BTreeMap, BTreeSet};

/// What the intent means on a platform: DSCPs to the queue of their class, lossless and watchdog
/// priorities, ECN and strict scheduling per queue. A class's queue is its priority, except where the
/// platform puts strict queues on the top queues (the Cisco guide's rule, derived here from the intent
/// alone): then the strict classes take queues 7, 6, ... in priority order.
fn expected(intent: &aifab::intent::Intent, strict: aifab::platform::StrictQueues) -> Meaning {
    let prio = |c: &aifab::intent::QosClass| c.priority.unwrap_or(0);
    let mut strict_classes: Vec<_> = intent.qos.classes.values().filter(|c| c.strict).collect();
    strict_classes.sort_by_key(|c| std::cmp::Reverse(prio(c)));
    let queue = |c: &aifab::intent::QosClass| match strict {
        aifab::platform::StrictQueues::Top if c.strict => {
            let rank = strict_classes
                .iter()
                .position(|s| std::ptr::eq(*s, c))
                .expect("strict class");
            7 - rank as u8
        }
        _ => prio(c),
    };
    let mut want = Meaning::default();
    let default_queue = intent
        .qos
        .classes
        .values()
        .find(|c| c.dscp.is_none())
        .map(queue)
        .unwrap_or(0);
    for d in 0u8..64 {
        want.dscp.insert(d, default_queue);
    }
    for c in intent.qos.classes.values() {
        for d in c.dscp.iter().flatten() {
            want.dscp.insert(d.0, queue(c));
        }
        if c.lossless {
            want.lossless.insert(prio(c));
            want.watchdog.insert(prio(c));
        }
        if let Some(e) = &c.ecn {
            want.ecn
                .insert(queue(c), (e.min.bytes(), e.max.bytes(), e.probability.0));
        }
        if c.strict {
            want.strict.insert(queue(c));
        }
    }
    want
}

/// What a rendered config says about the lossless fabric, OS-neutral.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Meaning {
    /// PFC no-drop priorities (global/profile level).
    pub lossless: BTreeSet<u8>,
    /// DSCP → priority for all 64 DSCPs: the intent's DSCPs to their class, every other DSCP to the
    /// default class. A DSCP the config leaves to the OS's built-in map is missing here.
    pub dscp: BTreeMap<u8, u8>,
    /// Priorities the PFC watchdog protects.
    pub watchdog: BTreeSet<u8>,
    /// ECN per queue: (min bytes, max bytes, probability %).
    pub ecn: BTreeMap<u8, (u64, u64, u8)>,
    /// Strict-priority queues.
    pub strict: BTreeSet<u8>,
    /// Ports with PFC enabled (interface names).
    pub pfc_ports: BTreeSet<String>,
    /// Shaped queues of each PFC port: queue → the most it may send, kbit/s (from the port's own
    /// speed: a shaper taken of another speed is a different rate).
    pub shapers: BTreeMap<String, BTreeMap<u8, u64>>,
    /// DLB mode if configured (`flowlet`, `per-packet`).
    pub dlb: Option<String>,
    /// The DLB next-hop MAC the switch takes as its own (NX-OS `hardware profile dlb` `mac-address`).
    pub dlb_mac: Option<String>,
    /// QP hashing configured.
    pub qp_hash: bool,
}

#[test]
fn rendered_configs_mean_what_the_intent_says() {
    for path in common::example_intents() {
        let intent = common::intent(&path);
        let (model, files) = common::render(&path);
        check_meaning(&path, &intent, &model, &files);
    }
}

/// The generated 24K-GPU benchmark fabric at 1/8 size: PFC, ECN, DSCP and queues agree with the intent
/// on every one of its 256 switches (EOS, NX-OS and SONiC).
#[test]
fn generated_24k_fabric_at_reduced_size_means_what_it_says() {
    let yaml = fabrics::intent_yaml("24k", 8).expect("24k");
    let intent: aifab::intent::Intent = serde_norway::from_str(&yaml).expect("intent");
    let cat = aifab::platform::Catalog::builtin();
    let model = aifab::compile::compile(&intent, cat).expect("compile");
    let files = aifab::render::Renderer::new(cat)
        .expect("templates")
        .fabric(
            &aifab::render::Meta::new("bench-24k", &model.name),
            &model,
            None,
        )
        .expect("render");
    let oses: std::collections::BTreeSet<_> = model.devices.iter().map(|d| d.os).collect();
    assert_eq!(oses.len(), 3, "the generated fabric mixes all three OSes");
    check_meaning("bench 24k/8", &intent, &model, &files);
}

/// pod1 with NX-OS spines (DLB on the leaves only): the spines take the leaves' DLB next-hop MAC
/// (`hardware profile dlb` with `mac-address` alone), so the DLB flows the leaves send them are theirs.
#[test]
fn nxos_spines_take_the_dlb_mac_of_their_dlb_leaves() {
    let text = std::fs::read_to_string("intents/pod1-1024.yaml")
        .expect("read")
        .replace(
            "      platform: eos/7800r3",
            "      platform: nxos/n9k-c9364d-gx2a",
        )
        .replace("    roce_dest_qp: true ", "    roce_dest_qp: false");
    let intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    let cat = aifab::platform::Catalog::builtin();
    let model = aifab::compile::compile(&intent, cat).expect("compile");
    let spines: Vec<_> = model
        .devices
        .iter()
        .filter(|d| d.role == aifab::intent::Role::Spine)
        .collect();
    assert!(!spines.is_empty());
    for s in &spines {
        let p = s.dlb.as_ref().expect("the spine takes the DLB MAC");
        assert_eq!(p.mode, aifab::intent::DlbMode::Off);
        assert_eq!(p.mac.as_deref(), Some("00:cc:cc:cc:cc:cc"));
    }
    let files = aifab::render::Renderer::new(cat)
        .expect("templates")
        .fabric(
            &aifab::render::Meta::new("pod1-nxos-spines.yaml", &model.name),
            &model,
            None,
        )
        .expect("render");
    check_meaning("pod1 with NX-OS spines", &intent, &model, &files);
    // And with the EOS spines of the example, only its acknowledgement lets it compile.
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let mut intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    intent.acknowledge.retain(|a| a.rule != "AIF-LB-009");
    let errs = aifab::compile::compile(&intent, cat).expect_err("refused");
    assert!(
        errs.iter().any(|f| f.code.id() == "AIF-LB-009"),
        "{errs:#?}"
    );
}

fn check_meaning(
    path: &str,
    intent: &aifab::intent::Intent,
    model: &aifab::model::FabricModel,
    files: &[aifab::render::OutFile],
) {
    {
        // AIFAB_MEANING_OS=nxos narrows the test to one OS while its templates are being written.
        let only = std::env::var("AIFAB_MEANING_OS").ok();
        let catalog = aifab::platform::Catalog::builtin();
        let mut read: BTreeMap<&str, Meaning> = BTreeMap::new();
        for d in &model.devices {
            if only.as_deref().is_some_and(|o| o != d.os.as_str()) {
                continue;
            }
            let (_, platform) = catalog.get(&d.platform).expect("platform");
            let want = expected(intent, platform.strict_queues);
            let mine: Vec<_> = files.iter().filter(|f| f.device == d.hostname).collect();
            assert!(!mine.is_empty(), "{path}: no files for {}", d.hostname);
            let native = platform.ports.speeds.first().map_or(0, |s| s.gbps());
            let mut got = match d.os {
                Os::Nxos => nxos::read(&mine),
                Os::Eos => eos::read(&mine, native),
                Os::Sonic => sonic::read(&mine),
            };
            // A strict queue no DSCP reaches carries no class of the intent: SONiC's queue 7 for the
            // switch's own traffic (tests/it/os_views.rs checks that one on its own).
            let reached: BTreeSet<u8> = got.dscp.values().copied().collect();
            got.strict.retain(|q| reached.contains(q));
            let mut want = want;
            want.pfc_ports = d.interfaces.iter().map(|i| i.name.to_string()).collect();
            want.shapers = shapers(intent, &want, d);
            want.dlb = d
                .dlb
                .as_ref()
                .filter(|p| p.mode != aifab::intent::DlbMode::Off)
                .map(|p| p.mode.as_str().to_string());
            want.dlb_mac = d.dlb.as_ref().and_then(|p| p.mac.clone());
            want.qp_hash = d.qp_hash.is_some();
            assert_eq!(
                got, want,
                "{path}: {} ({}) means something else",
                d.hostname, d.platform
            );
            read.insert(d.hostname.as_str(), got);
        }
        dlb_next_hops_take_the_mac(path, model, &read);
    }
}

/// Every switch on the far end of a DLB interface that sends to a DLB next-hop MAC reads back as
/// taking that MAC as its own (Cisco: the same DLB MAC on every participating switch), unless the
/// sender's intent acknowledges AIF-LB-009 (its neighbours' OS has no such setting).
fn dlb_next_hops_take_the_mac(
    path: &str,
    model: &aifab::model::FabricModel,
    read: &BTreeMap<&str, Meaning>,
) {
    for d in &model.devices {
        let Some(mac) = read
            .get(d.hostname.as_str())
            .and_then(|m| m.dlb_mac.as_ref())
        else {
            continue;
        };
        if d.acknowledged.iter().any(|a| a.rule == "AIF-LB-009") {
            continue;
        }
        for i in d.interfaces.iter().filter(|i| i.dlb) {
            let Some(peer) = read.get(&*i.peer) else {
                continue;
            };
            assert_eq!(
                peer.dlb_mac.as_ref(),
                Some(mac),
                "{path}: {} sends DLB flows on {} to {mac}, which {} does not take",
                d.hostname,
                i.name,
                i.peer
            );
        }
    }
}

/// The servers agree with the switches: for every example intent with a `hosts` section, every
/// server's NIC ports (rail, rack and two-port NICs alike) map each DSCP to the intent's priority, run
/// PFC on exactly the lossless priorities its leaves read back, DCQCN on the lossless priorities whose queue marks ECN on the leaves, strict
/// TCs where the leaves' queues are strict, send CNPs in the switches' CNP class, and NCCL marks its data
/// and CTS with DSCPs the leaves put in a lossless and a strict queue.
#[test]
fn servers_mean_what_their_switches_mean() {
    let mut servers_checked = 0;
    for path in common::example_intents() {
        let intent = common::intent(&path);
        let Some(hosts) = intent.hosts.as_ref().filter(|h| h.enabled) else {
            continue;
        };
        let (model, files) = common::render(&path);
        let catalog = aifab::platform::Catalog::builtin();
        let want_prio = expected(&intent, aifab::platform::StrictQueues::AtPriority);
        let mut leaves: BTreeMap<&str, &aifab::model::Device> = BTreeMap::new();
        for d in &model.devices {
            leaves.insert(d.hostname.as_str(), d);
        }
        let mut server_leaves: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for l in model.links.iter().filter(|l| l.tier == "server-leaf") {
            server_leaves.entry(&l.a).or_default().insert(&l.b);
        }
        assert!(!server_leaves.is_empty(), "{path}: no servers");
        let shared: Vec<_> = files
            .iter()
            .filter(|f| f.path == "hosts/nic-qos.sh" || f.path == "hosts/nccl.env")
            .collect();
        let got = host::read(&shared);
        for (server, its_leaves) in &server_leaves {
            let its_nics: BTreeSet<&str> = model
                .links
                .iter()
                .filter(|l| *l.a == **server)
                .map(|l| &*l.a_port)
                .collect();
            let scripted: BTreeSet<&str> = got.nics.iter().map(String::as_str).collect();
            assert_eq!(scripted, its_nics, "{path}: {server}: the script's NICs");
            let class = |name: &str| &intent.qos.classes[name];
            // The intent's meaning, per priority.
            assert_eq!(got.trust, "dscp", "{path}: {server}");
            assert_eq!(
                got.dscp, want_prio.dscp,
                "{path}: {server}: DSCP -> priority"
            );
            assert_eq!(got.lossless, want_prio.lossless, "{path}: {server}: PFC");
            assert_eq!(got.prio_tc, (0..8).collect::<Vec<u8>>(), "{path}: {server}");
            // One netdev per NIC port, each on its own link (rack leaves take several of a server's
            // ports, two-port NICs reach two leaves): the script runs on every port.
            let ports = model
                .links
                .iter()
                .filter(|l| *l.a == **server && l.tier == "server-leaf")
                .count();
            assert_eq!(
                its_nics.len(),
                ports,
                "{path}: {server}: one netdev per NIC port"
            );
            let cnp = class(hosts.cnp_class.as_deref().expect("cnp class"));
            let cnp_dscp = cnp.dscp.as_ref().expect("cnp dscp")[0].0;
            assert_eq!(
                got.cnp,
                (Some(cnp_dscp), cnp.priority),
                "{path}: {server}: CNP"
            );
            let data_dscp = class(&hosts.data_class).dscp.as_ref().expect("data dscp")[0].0;
            assert_eq!(
                got.nccl_tc,
                Some(u16::from(data_dscp) * 4),
                "{path}: {server}"
            );
            // RDMA CM connections (perftest -R, UCX, MPI, NVMe-oF) default to the same class.
            assert_eq!(
                got.rdma_cm_tos,
                Some(u16::from(data_dscp) * 4),
                "{path}: {server}: RDMA CM default ToS"
            );
            if let Some(cts) = &hosts.cts_class {
                let d = class(cts).dscp.as_ref().expect("cts dscp")[0].0;
                assert_eq!(got.nccl_fifo_tc, Some(u16::from(d) * 4), "{path}: {server}");
            }
            // A strict class's max_rate limits its TC on the NIC as on the switches' queue: whole
            // Gbit/s of the NIC speed, rounded down, at least 1.
            let speed = u64::from(intent.fabric.topology.nic_speed.gbps());
            let mut limits = vec![0u32; 8];
            for c in intent.qos.classes.values().filter(|c| c.strict) {
                if let (Some(p), Some(r)) = (c.priority, c.max_rate) {
                    limits[usize::from(p)] = (speed * u64::from(r.0) / 100).clamp(1, 255) as u32;
                }
            }
            if limits.iter().all(|&l| l == 0) {
                limits.clear();
            }
            assert_eq!(got.ratelimit, limits, "{path}: {server}: strict TC limits");
            // The same, against what each rail leaf's rendered config reads back as.
            for leaf in its_leaves {
                let d = leaves[leaf];
                let (_, platform) = catalog.get(&d.platform).expect("platform");
                let queue_of = prio_to_queue(&intent, platform.strict_queues, &want_prio);
                let leaf_files: Vec<_> = files.iter().filter(|f| f.device == d.hostname).collect();
                let native = platform.ports.speeds.first().map_or(0, |s| s.gbps());
                let sw = match d.os {
                    Os::Nxos => nxos::read(&leaf_files),
                    Os::Eos => eos::read(&leaf_files, native),
                    Os::Sonic => sonic::read(&leaf_files),
                };
                let at = format!("{path}: {server} vs {leaf}");
                assert_eq!(got.lossless, sw.lossless, "{at}: PFC priorities");
                for (dscp, prio) in &got.dscp {
                    assert_eq!(
                        sw.dscp.get(dscp),
                        Some(&queue_of[prio]),
                        "{at}: DSCP {dscp}"
                    );
                }
                let ecn: BTreeSet<u8> = sw
                    .lossless
                    .iter()
                    .copied()
                    .filter(|p| sw.ecn.contains_key(&queue_of[p]))
                    .collect();
                assert_eq!(got.ecn, ecn, "{at}: DCQCN priorities");
                let used: BTreeSet<u8> = got.dscp.values().copied().collect();
                let strict: BTreeSet<u8> = used
                    .iter()
                    .copied()
                    .filter(|p| sw.strict.contains(&queue_of[p]))
                    .collect();
                assert_eq!(got.strict, strict, "{at}: strict TCs");
                let (cd, cp) = (got.cnp.0.expect("cnp dscp"), got.cnp.1.expect("cnp prio"));
                assert_eq!(sw.dscp.get(&cd), Some(&queue_of[&cp]), "{at}: CNP DSCP");
                assert!(sw.strict.contains(&queue_of[&cp]), "{at}: CNP queue strict");
                let tc = got.nccl_tc.expect("NCCL_IB_TC");
                assert_eq!(tc % 4, 0, "{at}: ECN bits in NCCL_IB_TC");
                let data_prio = got.dscp[&((tc / 4) as u8)];
                assert!(
                    sw.lossless.contains(&data_prio),
                    "{at}: NCCL data not lossless"
                );
                let cm = got.rdma_cm_tos.expect("RDMA CM ToS");
                assert_eq!(cm % 4, 0, "{at}: ECN bits in the RDMA CM ToS");
                assert!(
                    sw.lossless.contains(&got.dscp[&((cm / 4) as u8)]),
                    "{at}: RDMA CM traffic not lossless"
                );
                if let Some(f) = got.nccl_fifo_tc {
                    let p = got.dscp[&((f / 4) as u8)];
                    assert!(
                        sw.strict.contains(&queue_of[&p]),
                        "{at}: CTS queue not strict"
                    );
                }
            }
            servers_checked += 1;
        }
    }
    assert!(servers_checked > 0, "no example intent has a hosts section");
}

/// What the intent's `max_rate`s mean on each of `d`'s ports: the strict class's queue (as `want` maps
/// its DSCP) may send that share of the port's own speed, in kbit/s.
fn shapers(
    intent: &aifab::intent::Intent,
    want: &Meaning,
    d: &aifab::model::Device,
) -> BTreeMap<String, BTreeMap<u8, u64>> {
    let shaped: Vec<(u8, u64)> = intent
        .qos
        .classes
        .values()
        .filter(|c| c.strict)
        .filter_map(|c| {
            let dscp = c.dscp.as_ref()?.first()?.0;
            Some((want.dscp[&dscp], u64::from(c.max_rate?.0)))
        })
        .collect();
    if shaped.is_empty() {
        return BTreeMap::new();
    }
    d.interfaces
        .iter()
        .map(|i| {
            let kbps = u64::from(i.speed_gbps) * 1_000_000;
            let rates = shaped.iter().map(|&(q, pct)| (q, kbps * pct / 100));
            (i.name.to_string(), rates.collect())
        })
        .collect()
}

/// Priority → the switch queue of the class on that priority, on a platform: the intent's meaning
/// per queue ([`expected`]) joined with its meaning per priority on the DSCPs.
fn prio_to_queue(
    intent: &aifab::intent::Intent,
    strict: aifab::platform::StrictQueues,
    by_prio: &Meaning,
) -> BTreeMap<u8, u8> {
    let by_queue = expected(intent, strict);
    by_prio
        .dscp
        .iter()
        .map(|(d, p)| (*p, by_queue.dscp[d]))
        .collect()
}

/// The FRR form routes like the vendor configs: for every device of every example intent, the ASN,
/// router-id, neighbors with their ASNs, maximum-paths, multipath-relax and announced prefixes read out
/// of its `frr.conf` equal those read out of its NX-OS, EOS or SONiC config, and the model's; every
/// BGP session's local address, the loopback and every routed server port are on its interfaces.
#[test]
fn frr_configs_route_like_the_vendor_configs() {
    let cat = aifab::platform::Catalog::builtin();
    let renderer = aifab::render::Renderer::new(cat)
        .expect("templates")
        .with_form(aifab::render::Form::Frr);
    for path in common::example_intents() {
        let (model, files) = common::render(&path);
        let meta = aifab::render::Meta::for_intent_path(&path, &model.name);
        let frr_files = renderer.fabric(&meta, &model, None).expect("frr render");
        assert_eq!(
            frr_files.len(),
            model.devices.len(),
            "{path}: one frr.conf per switch"
        );
        for d in &model.devices {
            let mine: Vec<_> = files.iter().filter(|f| f.device == d.hostname).collect();
            let mut native = frr::read_native(&mine);
            // SONiC takes maximum-paths from its release (tests/it/sonic_frr.rs checks the width).
            native.maximum_paths = native.maximum_paths.or(Some(d.bgp.maximum_paths));
            let conf = frr_files
                .iter()
                .find(|f| f.device == d.hostname)
                .expect("frr.conf");
            let (got, addresses) = frr::read_frr(conf);
            assert_eq!(
                got, native,
                "{path}: {}: FRR routes otherwise than {}",
                d.hostname, d.os
            );
            let want = frr::Routing {
                asn: d.bgp.asn,
                router_id: d.loopback.to_string(),
                maximum_paths: Some(d.bgp.maximum_paths),
                multipath_relax: true,
                neighbors: d
                    .bgp
                    .neighbors
                    .iter()
                    .map(|n| (n.ip.to_string(), n.remote_as))
                    .collect(),
                networks: d.bgp.networks.iter().map(|n| n.to_string()).collect(),
            };
            assert_eq!(got, want, "{path}: {}: FRR against the model", d.hostname);
            assert!(
                addresses.contains(&format!("{}/32", d.loopback)),
                "{path}: {}",
                d.hostname
            );
            for n in &d.bgp.neighbors {
                assert!(
                    addresses.contains(&format!("{}/31", n.local_ip)),
                    "{path}: {}: no interface holds {} for neighbor {}",
                    d.hostname,
                    n.local_ip,
                    n.ip
                );
            }
            for i in &d.interfaces {
                if let Some(a) = &i.address {
                    assert!(
                        addresses.contains(&a.to_string()),
                        "{path}: {}: {a}",
                        d.hostname
                    );
                }
            }
            if let Some(s) = &d.server_subnet {
                assert!(
                    addresses.contains(&s.gateway),
                    "{path}: {}: gateway",
                    d.hostname
                );
            }
        }
    }
}

/// Every server port reaches every server port it should, through its own plane, and no other: for
/// every example with host files (as rendered, and without Kubernetes, where the netplan files carry
/// the routes), each routing table a server port or its pods get (netplan, SpiderIPPool) sends through
/// its gateway exactly the server addresses whose leaves that gateway's leaf reaches over the fabric's
/// links. Two planes that share no link are two such parts (hpn-dual-plane), and NCCL is then told to
/// keep a connection on one NIC port, so on one plane (`NCCL_CROSS_NIC=0`).
#[test]
fn every_server_port_reaches_its_own_plane() {
    let mut tables_checked = 0;
    let mut parts_seen = BTreeSet::new();
    for path in common::example_intents() {
        let intent = common::intent(&path);
        if !intent.hosts.as_ref().is_some_and(|h| h.enabled) {
            continue;
        }
        let (model, files) = common::render(&path);
        let mut bare = model.clone();
        if let Some(h) = bare.hosts.as_mut() {
            std::sync::Arc::make_mut(h).kubernetes = None;
        }
        let bare_files = aifab::render::Renderer::new(aifab::platform::Catalog::builtin())
            .expect("templates")
            .fabric(
                &aifab::render::Meta::for_intent_path(&path, &model.name),
                &bare,
                None,
            )
            .expect("render");
        let part = fabric_parts(&model);
        let parts: BTreeSet<usize> = part.values().copied().collect();
        parts_seen.insert(parts.len());
        // Every switch address, to the switch; every server port's address, to its leaf's part.
        let mut owner: BTreeMap<std::net::Ipv4Addr, &str> = BTreeMap::new();
        for d in &model.devices {
            for i in &d.interfaces {
                owner.extend(i.ip.map(|ip| (ip, d.hostname.as_str())));
            }
            if let Some(s) = &d.server_subnet {
                owner.insert(s.gateway_ip, d.hostname.as_str());
            }
        }
        let servers = aifab::hosts::servers(&model).expect("servers");
        let ports: Vec<(std::net::Ipv4Addr, usize)> = servers
            .iter()
            .flat_map(|s| &s.nics)
            .map(|n| (n.ip, part[n.leaf.hostname.as_str()]))
            .collect();
        for (what, files) in [("as rendered", &files), ("without Kubernetes", &bare_files)] {
            let tables = host::routes(files);
            assert!(!tables.is_empty(), "{path} {what}: no routing table");
            for t in &tables {
                let at = format!("{path} {what}: {}", t.at);
                let leaf = owner
                    .get(&t.gateway)
                    .unwrap_or_else(|| panic!("{at}: gateway {} is no switch's", t.gateway));
                let mine = part[leaf];
                for (ip, p) in &ports {
                    let routed = t.destinations.iter().any(|d| d.contains(*ip));
                    assert_eq!(
                        routed,
                        *p == mine,
                        "{at}: server port {ip} (part {p} of the fabric) {} through {leaf} (part {mine})",
                        if routed { "is routed" } else { "is not routed" }
                    );
                }
                tables_checked += 1;
            }
        }
        let got = host::read(&files.iter().collect::<Vec<_>>());
        let want = (parts.len() > 1).then_some(0);
        assert_eq!(got.nccl_cross_nic, want, "{path}: NCCL_CROSS_NIC");
    }
    assert!(tables_checked > 0);
    assert!(
        parts_seen.contains(&2),
        "no example has two planes that share no link"
    );
}

/// Each switch's connected part of the fabric (numbered from 0), over the links between switches.
fn fabric_parts(model: &aifab::model::FabricModel) -> BTreeMap<&str, usize> {
    let switches: BTreeSet<&str> = model.devices.iter().map(|d| d.hostname.as_str()).collect();
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in &model.links {
        if switches.contains(&*l.a) && switches.contains(&*l.b) {
            next.entry(&l.a).or_default().push(&l.b);
            next.entry(&l.b).or_default().push(&l.a);
        }
    }
    let mut part: BTreeMap<&str, usize> = BTreeMap::new();
    for &start in &switches {
        if part.contains_key(start) {
            continue;
        }
        let id = part.values().max().map_or(0, |m| m + 1);
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            if part.insert(s, id).is_none() {
                stack.extend(next.get(s).into_iter().flatten().copied());
            }
        }
    }
    part
}
