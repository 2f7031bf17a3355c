//! One intent, one meaning: for every device of every example intent, read the lossless QoS meaning
//! back out of the *rendered text* with a per-OS reader and compare it with what the intent says.
//! The same assertions run for NX-OS, EOS and SONiC.

mod common;
#[path = "meaning/eos.rs"]
mod eos;
#[allow(dead_code)] // the benchmark's fabrics; this test uses one
#[path = "../src/bench/fabrics.rs"]
mod fabrics;
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
            // switch's own traffic (tests/os_views.rs checks that one on its own).
            let reached: BTreeSet<u8> = got.dscp.values().copied().collect();
            got.strict.retain(|q| reached.contains(q));
            let mut want = want;
            want.pfc_ports = d.interfaces.iter().map(|i| i.name.clone()).collect();
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
