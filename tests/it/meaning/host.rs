//! The fourth reader: the lossless meaning of the servers, read back out of the rendered
//! `hosts/nic-qos.sh` and `hosts/nccl.env` that every server runs (the `mlnx_qos` calls, the DCQCN sysfs
//! writes and the NCCL variables), as the NIC and NCCL would apply them. Every NIC of the loop gets the
//! same settings.
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
