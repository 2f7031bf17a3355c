//! The device baseline end to end: every element of each example intent's `baseline` appears on every
//! device of every OS (read back from the rendered files, not compared with a stored text), unsafe
//! values are refused at their place in the intent, and a secret read from the environment never
//! reaches a golden, a diff or a report.

use crate::common;
use crate::common::root;

use aifab::intent::baseline::{AaaProtocol, Baseline, SecretSource};
use aifab::kinds::Os;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const EXAMPLES: [&str; 3] = [
    "intents/pod1-1024.yaml",
    "intents/mixed-sonic-nxos.yaml",
    "intents/three-tier-small.yaml",
];

fn aifab(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = crate::common::aifab_command();
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run aifab")
}

fn tmp(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("baseline-{name}"))
}

/// The lines of `text` between the line `start` and the line `end` (exclusive).
fn block<'a>(text: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != start)
        .skip(1)
        .take_while(|l| *l != end)
        .collect()
}

fn placeholder(s: &SecretSource) -> String {
    match s {
        SecretSource::Vault { vault } => format!("AIFAB_SECRET({vault})"),
        SecretSource::Env { env } => format!("AIFAB_ENV({env})"),
    }
}

/// NX-OS: every user, server, SNMP user and banner line of the baseline, servers in the management
/// VRF when the device has mgmt0.
fn check_nxos(host: &str, text: &str, b: &Baseline, mgmt: bool) {
    let vrf = if mgmt { " use-vrf management" } else { "" };
    let has = |l: &str| assert!(text.lines().any(|x| x == l), "{host}: no line `{l}`");
    let starts = |p: &str| {
        assert!(
            text.lines().any(|x| x.starts_with(p)),
            "{host}: no `{p}...`"
        )
    };
    for u in &b.users {
        starts(&format!(
            "username {} password 5 {} role ",
            u.name, u.password_hash
        ));
    }
    for n in &b.ntp {
        let prefer = if n.prefer { " prefer" } else { "" };
        has(&format!("ntp server {}{prefer}{vrf}", n.address));
    }
    for s in &b.syslog {
        has(&format!("logging server {s} 5{vrf}"));
    }
    for u in b.snmp.iter().flat_map(|s| &s.users) {
        has(&format!(
            "snmp-server user {} network-operator auth sha {} priv aes-128 {}",
            u.name,
            placeholder(&u.auth_key),
            placeholder(&u.priv_key)
        ));
    }
    if let Some(a) = &b.aaa {
        let cmd = match a.protocol {
            AaaProtocol::Tacacs => "tacacs-server",
            AaaProtocol::Radius => "radius-server",
        };
        for s in &a.servers {
            has(&format!(
                "{cmd} host {} key 0 {}",
                s.address,
                placeholder(&s.key)
            ));
            has(&format!("  server {}", s.address));
        }
        has("aaa authentication login default group AIFAB");
    }
    if let Some(d) = &b.dns {
        let servers: Vec<String> = d.servers.iter().map(|s| s.to_string()).collect();
        has(&format!("ip name-server {}{vrf}", servers.join(" ")));
    }
    assert_eq!(
        block(text, "banner motd #", "#"),
        b.banner,
        "{host}: banner"
    );
    if b.api {
        has("feature nxapi");
    }
}

/// EOS: the same, spelt for EOS, in VRF MGMT when the device has Management1.
fn check_eos(host: &str, text: &str, b: &Baseline, mgmt: bool) {
    let vrf = if mgmt { " vrf MGMT" } else { "" };
    let has = |l: &str| assert!(text.lines().any(|x| x == l), "{host}: no line `{l}`");
    for u in &b.users {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("username {} privilege ", u.name)))
            .unwrap_or_else(|| panic!("{host}: no user {}", u.name));
        assert!(
            line.ends_with(&format!(" secret sha512 {}", u.password_hash)),
            "{line}"
        );
    }
    for n in &b.ntp {
        let prefer = if n.prefer { " prefer" } else { "" };
        has(&format!("ntp server{vrf} {}{prefer}", n.address));
    }
    for s in &b.syslog {
        has(&format!("logging{vrf} host {s}"));
    }
    for u in b.snmp.iter().flat_map(|s| &s.users) {
        has(&format!(
            "snmp-server user {} AIFAB-RO v3 auth sha {} priv aes {}",
            u.name,
            placeholder(&u.auth_key),
            placeholder(&u.priv_key)
        ));
    }
    if let Some(a) = &b.aaa {
        let cmd = match a.protocol {
            AaaProtocol::Tacacs => "tacacs-server",
            AaaProtocol::Radius => "radius-server",
        };
        for s in &a.servers {
            has(&format!(
                "{cmd} host {}{vrf} key 0 {}",
                s.address,
                placeholder(&s.key)
            ));
        }
        has("aaa authentication login default group AIFAB local");
    }
    assert_eq!(
        block(text, "banner login", "EOF"),
        b.banner,
        "{host}: banner"
    );
    if mgmt && b.ssh {
        assert_eq!(
            block(text, "management ssh", "!"),
            ["   vrf MGMT", "      no shutdown"],
            "{host}"
        );
    }
    if b.api {
        has("management api http-commands");
    }
}

/// SONiC: the baseline's tables, keyed by the intent's addresses and names.
fn check_sonic(host: &str, text: &str, b: &Baseline, mgmt: bool) {
    let db: Value = serde_json::from_str(text).expect("config_db is JSON");
    let keys = |t: &str| -> Vec<String> {
        db[t]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let sorted = |v: Vec<String>| {
        let mut v = v;
        v.sort();
        v
    };
    let ntp: Vec<String> = b.ntp.iter().map(|n| n.address.to_string()).collect();
    assert_eq!(keys("NTP_SERVER"), sorted(ntp), "{host}: NTP_SERVER");
    let syslog: Vec<String> = b.syslog.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        keys("SYSLOG_SERVER"),
        sorted(syslog),
        "{host}: SYSLOG_SERVER"
    );
    let snmp: Vec<String> = b
        .snmp
        .iter()
        .flat_map(|s| &s.users)
        .map(|u| u.name.clone())
        .collect();
    assert_eq!(keys("SNMP_USER"), sorted(snmp), "{host}: SNMP_USER");
    if let Some(d) = &b.dns {
        let dns: Vec<String> = d.servers.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            keys("DNS_NAMESERVER"),
            sorted(dns),
            "{host}: DNS_NAMESERVER"
        );
    }
    if let Some(a) = &b.aaa {
        let (table, method) = match a.protocol {
            AaaProtocol::Tacacs => ("TACPLUS_SERVER", "tacacs+,local"),
            AaaProtocol::Radius => ("RADIUS_SERVER", "radius,local"),
        };
        let servers: Vec<String> = a.servers.iter().map(|s| s.address.to_string()).collect();
        assert_eq!(keys(table), sorted(servers), "{host}: {table}");
        for s in &a.servers {
            let row = &db[table][s.address.to_string()];
            assert_eq!(row["passkey"], placeholder(&s.key).as_str(), "{host}");
            assert_eq!(row["vrf"].as_str() == Some("mgmt"), mgmt, "{host}");
        }
        assert_eq!(db["AAA"]["authentication"]["login"], method, "{host}");
    }
    assert_eq!(
        db["BANNER_MESSAGE"]["global"]["login"].as_str(),
        Some(b.banner.join("\n").as_str()),
        "{host}"
    );
    assert_eq!(
        db["MGMT_VRF_CONFIG"]["vrf_global"]["mgmtVrfEnabled"].as_str() == Some("true"),
        mgmt,
        "{host}"
    );
}

#[test]
fn every_baseline_element_is_rendered_on_every_os() {
    for path in EXAMPLES {
        let intent = common::intent(path);
        let b = intent
            .baseline
            .as_ref()
            .expect("every example has a baseline");
        let (model, files) = common::render(path);
        let mut seen = std::collections::BTreeSet::new();
        for d in &model.devices {
            let mgmt = d.management.is_some();
            let main = files
                .iter()
                .find(|f| {
                    f.device == d.hostname
                        && (f.path.ends_with(".cfg") || f.path.ends_with(".json"))
                })
                .unwrap_or_else(|| panic!("{}: no config", d.hostname));
            match d.os {
                Os::Nxos => check_nxos(&d.hostname, &main.content, b, mgmt),
                Os::Eos => check_eos(&d.hostname, &main.content, b, mgmt),
                Os::Sonic => check_sonic(&d.hostname, &main.content, b, mgmt),
            }
            seen.insert(d.os);
        }
        assert!(!seen.is_empty(), "{path}");
    }
}

/// An example intent with one line replaced, in a scratch folder that lives as long as the first value.
fn variant(name: &str, from: &str, to: &str) -> (common::Scratch, PathBuf) {
    let text = std::fs::read_to_string(root().join("intents/three-tier-small.yaml")).expect("read");
    assert!(text.contains(from), "{from}");
    let dir = tmp(name);
    let p = dir.join("intent.yaml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    (dir, p)
}

/// The line number (1-based) of the first line of `path` containing `needle`.
fn line_of(path: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("read");
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle")
        + 1
}

#[test]
fn clear_text_passwords_and_banner_injection_are_refused_where_they_stand() {
    let cases = [
        (
            "AIF-BASE-001",
            "password_hash: \"$6$aifabExampleSalt$",
            "password_hash: \"Hunter2-clear$",
            "Hunter2-clear",
        ),
        (
            "AIF-BASE-002",
            "- \"Authorized access only. Activity is logged.\"",
            "- \"Authorized\\nusername evil privilege 15\"",
            "banner line 1",
        ),
        (
            "AIF-BASE-002",
            "- \"Authorized access only. Activity is logged.\"",
            "- \"end; reload\"",
            "`;`",
        ),
        (
            "AIF-BASE-002",
            "- \"Configured by aifab: change the intent, not the switch.\"",
            "- \"EOF\"",
            "EOF",
        ),
        (
            "AIF-SCHEMA-005",
            "- name: noc",
            "- name: \"noc;reload\"",
            "noc;reload",
        ),
    ];
    for (i, (rule, from, to, marker)) in cases.iter().enumerate() {
        let (_dir, p) = variant(&format!("bad{i}"), from, to);
        let line = line_of(
            &p,
            to.split('"')
                .nth(1)
                .unwrap_or(to)
                .split('\\')
                .next()
                .unwrap_or(to),
        );
        let out = aifab(&["validate", p.to_str().expect("utf-8")], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{rule}: accepted:\n{err}");
        assert!(err.contains(rule), "{rule} missing:\n{err}");
        assert!(
            err.contains(&format!("intent.yaml:{line}:")),
            "{rule}: not located at line {line}:\n{err}"
        );
        if *rule == "AIF-BASE-001" {
            // The source snippet quotes the file; the message itself never repeats the value.
            let message = err
                .lines()
                .find(|l| l.contains("password_hash`"))
                .unwrap_or("");
            assert!(
                !message.is_empty() && !message.contains(marker),
                "the clear-text password is echoed:\n{err}"
            );
            assert!(err.contains("mkpasswd"), "no fix hint:\n{err}");
        } else if rule.starts_with("AIF-BASE") {
            assert!(
                err.contains(marker),
                "{rule}: message lacks {marker}:\n{err}"
            );
        }
    }
}

#[test]
fn an_environment_secret_reaches_only_the_written_files() {
    const VALUE: &str = "Env-Secret.v4lue-913";
    let (_dir, p) = variant(
        "env",
        "key: { vault: aaa_key }",
        "key: { env: AIFAB_TEST_AAA_KEY }",
    );
    let ps = p.to_str().expect("utf-8");
    let env = [("AIFAB_TEST_AAA_KEY", VALUE)];

    // Unset: refused at the place the intent names it, nothing written.
    let out_dir = p.parent().expect("dir").join("out");
    let out = aifab(
        &[
            "render",
            ps,
            "--out",
            out_dir.to_str().expect("utf-8"),
            "-q",
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("AIF-BASE-004"),
        "{err}"
    );
    let line = line_of(&p, "AIFAB_TEST_AAA_KEY");
    assert!(err.contains(&format!("intent.yaml:{line}:")), "{err}");
    assert!(!out_dir.exists(), "written without the secret");

    // Set: the written configs carry it, on every OS.
    let out = aifab(
        &[
            "render",
            ps,
            "--out",
            out_dir.to_str().expect("utf-8"),
            "-q",
        ],
        &env,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut carriers = 0;
    for e in walk(&out_dir) {
        let text = std::fs::read_to_string(&e).expect("read");
        assert!(
            !text.contains("AIFAB_ENV("),
            "{}: placeholder left",
            e.display()
        );
        carriers += usize::from(text.contains(VALUE));
    }
    assert!(carriers >= 22, "only {carriers} files carry the secret");

    // Everything a reviewer sees keeps the placeholder: render --check (what golden checks run),
    // diff reports in every format, validate and compile.
    let golden = root().join("golden/three-tier-small");
    let check = aifab(
        &["render", ps, "--check", golden.to_str().expect("utf-8")],
        &env,
    );
    let base = root().join("intents/three-tier-small.yaml");
    let bs = base.to_str().expect("utf-8");
    let mut seen = vec![check];
    for format in ["text", "markdown", "json", "sonic-patch"] {
        seen.push(aifab(&["diff", bs, ps, "--format", format], &env));
    }
    seen.push(aifab(&["validate", ps], &env));
    seen.push(aifab(&["compile", ps, "--format", "json"], &env));
    for o in &seen {
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!all.contains(VALUE), "the secret leaked:\n{all}");
    }
    let diff = String::from_utf8_lossy(&seen[1].stdout).to_string();
    assert!(
        diff.contains("AIFAB_ENV(AIFAB_TEST_AAA_KEY)"),
        "the diff does not show the placeholder"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
