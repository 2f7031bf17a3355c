//! What keeps a push from locking the operator out (docs/push.md): the management address goes on the
//! platform's own management port, `validate` refuses or warns about a baseline a full replace cannot
//! survive, and every rendered line is one aifab owns.

use crate::common;
use aifab::platform::Catalog;

/// The management address goes on the platform's `management_interface`: Management0 on the modular
/// 7800R3 (AVD's platform settings), Management1 on the fixed 7060X systems, mgmt0 on NX-OS.
#[test]
fn management_address_is_on_the_platforms_management_port() {
    let catalog = Catalog::builtin();
    for intent in common::example_intents() {
        let (model, files) = common::render(&intent);
        for d in model.devices.iter().filter(|d| d.management.is_some()) {
            let (os, pf) = catalog.get(&d.platform).expect("platform");
            let Some(f) = files
                .iter()
                .find(|f| f.path == format!("{}.cfg", d.hostname))
            else {
                continue; // SONiC: config_db.json (MGMT_INTERFACE on eth0, tests/it/sonic_yang.rs)
            };
            let text = &f.content;
            let line = format!("\ninterface {}\n", pf.management_interface);
            assert!(
                text.contains(&line),
                "{intent}: {} ({os}): no `{}`",
                d.hostname,
                line.trim()
            );
            let others = ["mgmt0", "Management0", "Management1"]
                .into_iter()
                .filter(|m| *m != pf.management_interface);
            for m in others {
                assert!(
                    !text.contains(&format!("\ninterface {m}\n")),
                    "{intent}: {}: {m} besides {}",
                    d.hostname,
                    pf.management_interface
                );
            }
        }
    }
    // Which port each platform names is tests/it/vendors.rs's (every_platform_names_its_ports_as_its_os_does).
}

/// Every top-level line aifab renders on NX-OS and EOS falls under the OS's `owned_sections`, so a
/// section `aifab drift` keeps from a running-config can never repeat one; and docs/push.md's table
/// lists exactly the vendors files' patterns.
#[test]
fn every_rendered_section_is_owned_and_the_docs_list_the_patterns() {
    let catalog = Catalog::builtin();
    for intent in common::example_intents() {
        let (model, files) = common::render(&intent);
        for d in &model.devices {
            let Some(policy) = catalog.owned.get(&d.os).filter(|o| !o.is_empty()) else {
                continue;
            };
            let Some(f) = files
                .iter()
                .find(|f| f.path == format!("{}.cfg", d.hostname))
            else {
                continue;
            };
            for s in aifab::platform::sections::sections(&f.content) {
                assert!(
                    policy
                        .patterns()
                        .any(|p| aifab::platform::owned::matches(p, &s.top)),
                    "{intent}: {}: `{}` is rendered but no owned_sections pattern covers it",
                    d.hostname,
                    s.top
                );
                // aifab renders nothing the switch must keep as its own.
                let never = policy
                    .never
                    .iter()
                    .find(|n| aifab::platform::owned::matches(n, &s.top));
                assert!(
                    never.is_none(),
                    "{intent}: {}: `{}` is rendered but `never` lists {never:?}",
                    d.hostname,
                    s.top
                );
            }
        }
    }
    let docs = std::fs::read_to_string("docs/push.md").expect("docs/push.md");
    for (os, label) in [
        (aifab::platform::Os::Nxos, "| NX-OS |"),
        (aifab::platform::Os::Eos, "| EOS |"),
    ] {
        let row = docs
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("docs/push.md: no row {label}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let listed = |cell: &str| -> Vec<String> {
            cell.split(", ")
                .map(|p| p.trim_matches('`').to_string())
                .collect()
        };
        let owned = &catalog.owned[&os];
        assert_eq!(listed(cells[2]), owned.always, "{label} always");
        assert_eq!(
            listed(cells[3]),
            owned.when_rendered,
            "{label} when rendered"
        );
        assert_eq!(
            listed(cells[4]),
            owned.each_rendered,
            "{label} each rendered"
        );
        assert_eq!(listed(cells[5]), owned.never, "{label} never");
        assert!(!owned.never.is_empty(), "{label}: no never-owned sections");
    }
}

/// An intent with site lines: the fabric's lines and an override's, verbatim, at the end of the NX-OS
/// (before its management section) and EOS (before `end`) configs, never in SONiC's; AIF-SITE-001
/// refuses a line with a control character, a brace or a placeholder, and one under a section aifab
/// renders; a list-like one (`feature ptp`) may add an entry.
#[test]
fn site_lines_render_verbatim_and_unsafe_ones_are_refused() {
    let base = std::fs::read_to_string("intents/three-tier-small.yaml").expect("intent");
    let dir = common::Scratch::new("push-site-lines");
    let with = |extra: &str, name: &str| {
        let i = base.find("\nqos:\n").expect("qos");
        let text = format!("{}\n{extra}{}", &base[..i], &base[i..]);
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(&path, text).expect("write");
        path.to_string_lossy().into_owned()
    };
    let good = with(
        "site_lines:\n  - \"feature ptp\"\n  - \"ptp source 10.255.0.1\"\n",
        "good",
    );
    let text = std::fs::read_to_string(&good).expect("read");
    assert!(
        !text.contains("\noverrides:"),
        "the example has no overrides of its own"
    );
    let text = format!(
        "{text}\noverrides:\n  - match: \"z1-g1-*\"\n    site_lines:\n      - \"daemon TerminAttr\"\n      - \"   no shutdown\"\n"
    );
    std::fs::write(&good, &text).expect("write");
    let out = dir.join("out");
    let o = common::aifab(&["render", &good, "--out", out.to_str().expect("utf-8"), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let eos = std::fs::read_to_string(out.join("z1-g1-r1.cfg")).expect("eos");
    assert!(
        eos.ends_with("!\n! aifab: site lines from the intent\nfeature ptp\nptp source 10.255.0.1\ndaemon TerminAttr\n   no shutdown\n!\nend\n"),
        "{eos}"
    );
    let other = std::fs::read_to_string(out.join("z1-g2-r1.cfg")).expect("eos");
    assert!(other.contains("ptp source 10.255.0.1\n") && !other.contains("TerminAttr"));
    let nxos = std::fs::read_to_string(out.join("ss1.cfg")).expect("nxos");
    let site = nxos.find("\nfeature ptp\n").expect("site lines on NX-OS");
    let mgmt = nxos.find("\ninterface mgmt0\n").expect("mgmt0");
    assert!(site < mgmt, "the management section stays last");
    let sonic = std::fs::read_to_string(out.join("z1-spine1/config_db.json")).expect("sonic");
    assert!(!sonic.contains("ptp"), "site lines on SONiC");

    for (name, line, why) in [
        ("ctl", "\"logging console\\u0007\"", "not printable"),
        ("brace", "\"description {{ x }}\"", "contains `{`"),
        (
            "secret",
            "\"key AIFAB_SECRET(aaa_key)\"",
            "secret placeholder",
        ),
        (
            "owned",
            "\"interface Ethernet1/1\"",
            "falls under `interface Ethernet*`",
        ),
        ("indent", "\"   no shutdown\"", "is indented"),
    ] {
        let path = with(&format!("site_lines:\n  - {line}\n"), name);
        let o = common::aifab(&["validate", &path, "--format", "json"]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{name}: {text}");
        assert!(text.contains("AIF-SITE-001"), "{name}: {text}");
        let msgs: serde_json::Value = serde_json::from_str(&text).expect("json");
        let hit = msgs
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["code"] == "AIF-SITE-001")
            .any(|f| {
                let m = f["message"].as_str().unwrap_or_default();
                m.contains(why) || (why == "not printable" && m.contains("printable ASCII"))
            });
        assert!(hit, "{name}: {text}");
    }
    let _ = std::fs::remove_dir_all(&*dir);
}

/// A site platform file cannot own what the switch needs: a pattern that could own a section of the
/// built-in `never` list (`daemon TerminAttr`, `boot ...`) is refused at its own line, and nothing is
/// rendered.
#[test]
fn a_site_file_cannot_own_a_never_owned_section() {
    let dir = common::Scratch::new("push-site-never");
    let good = std::fs::read_to_string("tests/site/platforms/eos.yaml").expect("read");
    let bad = good.replacen(
        "platforms:\n",
        "owned_sections:\n  always:\n    - hostname\n    - daemon TerminAttr\n  each_rendered:\n    - \"boot*\"\nplatforms:\n",
        1,
    );
    assert_ne!(bad, good);
    std::fs::write(dir.join("eos.yaml"), &bad).expect("write");
    let line_of = |item: &str| bad.lines().position(|l| l.trim() == item).expect("item") + 1;
    let o = common::aifab(&[
        "validate",
        "tests/site/pod.yaml",
        "--platforms",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for (item, pattern, never) in [
        (
            "- daemon TerminAttr",
            "daemon TerminAttr",
            "daemon TerminAttr",
        ),
        ("- \"boot*\"", "boot*", "boot"),
    ] {
        let at = format!(
            "eos.yaml:{}:5: owned_sections: {pattern:?} could own `{never}`",
            line_of(item)
        );
        assert!(err.contains(&at), "{at}\n{err}");
    }
    assert!(!err.contains("\"hostname\" could own"), "{err}");
}

/// Site lines that could break the push (issue 44): each kind is refused (AIF-SITE-001) at its own
/// line with its reason, all at once, and a login ACL aifab cannot read is a warning (AIF-SITE-002);
/// the lines around them that are fine report nothing.
#[test]
fn site_lines_that_could_break_the_push_are_refused_at_their_line() {
    let base = std::fs::read_to_string("intents/three-tier-small.yaml").expect("intent");
    // (site line, the rule it trips or "" for none, a piece of the message)
    let cases: [(&str, &str, &str); 27] = [
        ("daemon TerminAttr", "", ""),
        (
            "   exec /usr/bin/TerminAttr -cvauth=token,/tmp/token",
            "",
            "",
        ),
        ("end", "AIF-SITE-001", "starts with `end`"),
        (
            "conf t",
            "AIF-SITE-001",
            "`conf` (the CLI reads it as `configure`)",
        ),
        ("wr", "AIF-SITE-001", "`wr` (the CLI reads it as `write`)"),
        ("do show version", "AIF-SITE-001", "starts with `do`"),
        ("EOF", "AIF-SITE-001", "starts with `EOF`"),
        (
            "logging server 192.0.2.9; reload",
            "AIF-SITE-001",
            "contains `;`",
        ),
        ("   exit", "AIF-SITE-001", "starts with `exit`"),
        (
            "int Eth1/1",
            "AIF-SITE-001",
            "falls under `interface Ethernet*` (the switch reads it as `interface Ethernet1/1`)",
        ),
        (
            "interface ethernet1/1",
            "AIF-SITE-001",
            "falls under `interface Ethernet*`",
        ),
        (
            "interface Ethernet 1/1",
            "AIF-SITE-001",
            "falls under `interface Ethernet*`",
        ),
        (
            "interface loopback0",
            "AIF-SITE-001",
            "falls under `interface ",
        ),
        ("int lo0", "AIF-SITE-001", "oopback0`"),
        (
            "rou b 65000",
            "AIF-SITE-001",
            "falls under `router bgp` (the switch reads it as `router bgp 65000`)",
        ),
        (
            "username netops role network-operator",
            "AIF-SITE-001",
            "redefines `netops`, a user the baseline renders",
        ),
        (
            "username extra password 0 Tst-clear",
            "AIF-SITE-001",
            "clear-text secret (`password 0 ...`)",
        ),
        (
            "enable secret Tst-clear",
            "AIF-SITE-001",
            "clear-text secret (`secret` with no type",
        ),
        ("ip access-list VTY", "", ""),
        ("  10 permit tcp 192.0.2.0/24 any eq 22", "", ""),
        ("line vty", "", ""),
        (
            "  ip access-class VTY in",
            "AIF-SITE-001",
            "no entry of `VTY` permits SSH from the management network 198.51.100.0/24",
        ),
        ("system control-plane", "", ""),
        (
            "   ip access-group ELSEWHERE in",
            "AIF-SITE-002",
            "do not define `ip access-list ELSEWHERE`",
        ),
        ("feature ptp", "", ""),
        ("no int lo0", "AIF-SITE-001", "oopback0`"),
        ("  description password reset lab", "", ""),
    ];
    let site: String = cases
        .iter()
        .map(|(l, _, _)| format!("  - \"{l}\"\n"))
        .collect();
    let i = base.find("\nqos:\n").expect("qos");
    let text = format!("{}\nsite_lines:\n{site}{}", &base[..i], &base[i..]);
    let dir = common::Scratch::new("push-site-break");
    let path = dir.join("intent.yaml");
    std::fs::write(&path, &text).expect("write");
    let o = common::aifab(&[
        "validate",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let findings: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json");
    let site_findings: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| {
            f["code"]
                .as_str()
                .is_some_and(|c| c.starts_with("AIF-SITE-"))
        })
        .collect();
    for (line, code, why) in cases {
        let at = text.find(&format!("  - \"{line}\"\n")).expect("line") + 1;
        let number = text[..at].lines().count();
        let here: Vec<&&serde_json::Value> = site_findings
            .iter()
            .filter(|f| f["line"].as_u64() == Some(number as u64))
            .collect();
        if code.is_empty() {
            assert!(
                here.is_empty(),
                "{line:?} (line {number}) is fine: {here:?}"
            );
            continue;
        }
        assert!(
            here.iter().any(|f| f["code"] == code
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(line) && m.contains(why))
                && f["hint"].as_str().is_some_and(|h| !h.is_empty())),
            "{line:?} (line {number}): want {code} with {why:?}, got {here:#?}"
        );
    }
    let _ = std::fs::remove_dir_all(&*dir);
}
