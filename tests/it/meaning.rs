//! One intent, one meaning: for every device of every example intent, read the lossless QoS meaning
//! back out of the *rendered text* with a per-OS reader and compare it with what the intent says.
//! The same assertions run for NX-OS, EOS and SONiC; a fourth reader reads each server's NIC and NCCL
//! settings (`hosts/`) and checks them against the intent and against its rail leaves' read-back.
//! The FRR form (`render --os frr`) is read back for its routing: the same BGP as each device's own
//! config, and as the model.

use crate::common;
#[path = "meaning/eos.rs"]
mod eos;
use crate::fabrics;
#[path = "meaning/frr.rs"]
mod frr;
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
    /// DLB mode if configured (`flowlet`, `per-packet`).
    pub dlb: Option<String>,
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
        for d in &model.devices {
            if only.as_deref().is_some_and(|o| o != d.os.as_str()) {
                continue;
            }
            let (_, platform) = catalog.get(&d.platform).expect("platform");
            let want = expected(intent, platform.strict_queues);
            let mine: Vec<_> = files.iter().filter(|f| f.device == d.hostname).collect();
            assert!(!mine.is_empty(), "{path}: no files for {}", d.hostname);
            let mut got = match d.os {
                Os::Nxos => nxos::read(&mine),
                Os::Eos => eos::read(&mine),
                Os::Sonic => sonic::read(&mine),
            };
            // A strict queue no DSCP reaches carries no class of the intent: SONiC's queue 7 for the
            // switch's own traffic (tests/it/os_views.rs checks that one on its own).
            let reached: BTreeSet<u8> = got.dscp.values().copied().collect();
            got.strict.retain(|q| reached.contains(q));
            let mut want = want;
            want.pfc_ports = d.interfaces.iter().map(|i| i.name.to_string()).collect();
            want.dlb = d.dlb.as_ref().map(|p| p.mode.as_str().to_string());
            want.qp_hash = d.qp_hash.is_some();
            assert_eq!(
                got, want,
                "{path}: {} ({}) means something else",
                d.hostname, d.platform
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
                let sw = match d.os {
                    Os::Nxos => nxos::read(&leaf_files),
                    Os::Eos => eos::read(&leaf_files),
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
            let native = frr::read_native(&mine);
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
                maximum_paths: d.bgp.maximum_paths,
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
