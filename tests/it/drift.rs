//! `aifab drift` against full `show running-config` texts (tests/drift/README.md says where each comes
//! from): it keeps the boot, CoPP, VDC, line and CloudVision sections, lists what a push removes and
//! adds without printing a secret, writes the replace files the playbooks push (mode 0600, with the
//! running-config they were assembled from), and a switch that runs that file has no drift left.

use crate::common;
use std::path::Path;

const RUNNING: &str = "tests/drift/running";
const INTENT: &str = "intents/pod1-1024.yaml";

fn drift(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["drift", INTENT, "-q"];
    all.extend_from_slice(args);
    let out = common::aifab(&all);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of `file` in tests/drift/running whose first word is one of `starts`.
fn fixture_lines(file: &str, starts: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(RUNNING).join(file)).expect("fixture");
    text.lines()
        .filter(|l| starts.iter().any(|s| l.starts_with(s)))
        .map(str::to_string)
        .collect()
}

#[test]
fn nxos_keeps_boot_copp_vdc_and_lines_and_lists_what_it_removes() {
    let (code, out, err) = drift(&["--running", RUNNING, "--only", "su1-r1-leaf"]);
    assert_eq!(
        code,
        Some(1),
        "a first push changes the switch:\n{out}\n{err}"
    );
    for kept in [
        "  = boot nxos bootflash:/nxos64-cs.10.4.3.F.bin",
        "  = copp profile strict",
        "  = vdc su1-r1-leaf id 1 (+5 lines)",
        "  = line console (+1 lines)",
        "  = line vty (+1 lines)",
        "  = version 10.4(3) Bios:version 01.08",
        "  = no password strength-check",
        // A port beyond the platform's 64 that aifab does not render stays as the switch has it,
        // and so do the SVI and port channel aifab does not render, and the features they need
        // (`no feature lacp` would remove the channel-group line of a kept port).
        "  = interface Ethernet1/65 (+2 lines)",
        "  = interface Ethernet1/66",
        "  = interface Vlan10 (+2 lines)",
        "  = interface port-channel10 (+1 lines)",
        "  = feature interface-vlan",
        "  = feature lacp",
    ] {
        assert!(
            out.contains(&format!("{kept}\n")),
            "not kept: {kept}\n{out}"
        );
    }
    for removed in [
        "  - username admin password 5 <secret>  role network-admin",
        "  - tacacs-server host 192.0.2.99 key 7 <secret>",
        "  - ntp server 192.0.2.21 use-vrf management",
        "  -   mtu 1500",
        "  -   description old-server",
        // No kept section needs OSPF: its feature line is aifab's and goes.
        "  - feature ospf",
    ] {
        assert!(
            out.contains(&format!("{removed}\n")),
            "not removed: {removed}\n{out}"
        );
    }
    assert!(out.contains("  + username netops password 5 "), "{out}");
    // The file copy of the push needs the SCP server: aifab renders it, so the push keeps it.
    assert!(!out.contains("- feature scp-server"), "{out}");
    assert!(
        out.starts_with("su1-r1-leaf (nxos): "),
        "one device, summary first:\n{out}"
    );
    // Nothing secret of the running-config is printed.
    for secret in ["$5$FIXTUREs", "fewhg123FixtureOnly", "0x0123456789abcdef"] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{secret} printed"
        );
    }
    assert!(
        err.contains("1 device(s) compared: 1 change, 0 unchanged"),
        "{err}"
    );
}

#[test]
fn eos_keeps_the_cloudvision_agent_and_control_plane() {
    let (code, out, _) = drift(&["--running", RUNNING, "--only", "spine01"]);
    assert_eq!(code, Some(1), "{out}");
    for kept in [
        "  = daemon TerminAttr (+2 lines)",
        "  = system control-plane (+1 lines)",
        "  = ip access-list CPP-ACL-FIXTURE (+1 lines)",
        "  = no aaa root",
    ] {
        assert!(
            out.contains(&format!("{kept}\n")),
            "not kept: {kept}\n{out}"
        );
    }
    // Only the rendered Management0 is aifab's on the chassis: the supervisors' own management
    // ports keep their VRF and addresses (a replace without them would cut the supervisors' access).
    for kept in [
        "  = interface Management1/1 (+2 lines)",
        "  = interface Management1/2",
        "  = interface Management2/1 (+2 lines)",
    ] {
        assert!(
            out.contains(&format!("{kept}\n")),
            "not kept: {kept}\n{out}"
        );
    }
    assert!(!out.contains("- interface Management"), "{out}");
    assert!(
        out.contains("  - username admin privilege 15 role network-admin secret sha512 <secret>\n"),
        "{out}"
    );
    assert!(!out.contains("$6$FixtureOnly"), "a hash printed");
    // The management address stays on Management0: no line of it is removed.
    assert!(!out.contains("-    ip address 198.51.100.10/24"), "{out}");
}

#[test]
fn written_replace_files_keep_the_switch_sections_and_converge() {
    let dir = common::Scratch::new("drift-write");
    let _ = std::fs::remove_dir(&*dir);
    let d = dir.to_str().expect("utf-8");
    let (code, _, err) = drift(&[
        "--running",
        RUNNING,
        "--only",
        "{su1-r1-leaf,spine01}",
        "--write",
        d,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("wrote 2 replace file(s)"), "{err}");
    for (host, keep) in [
        (
            "su1-r1-leaf",
            &[
                "boot nxos",
                "copp profile",
                "vdc ",
                "  limit-resource",
                "line ",
                "version ",
                "feature lacp",
                "interface Ethernet1/65",
                "  channel-group 10",
            ][..],
        ),
        (
            "spine01",
            &[
                "daemon TerminAttr",
                "   exec /usr/bin/TerminAttr",
                "system control-plane",
                "no aaa root",
                "interface Management1/1",
                "   ip address 198.51.100.11/24",
            ][..],
        ),
    ] {
        let path = dir.join(format!("{host}.cfg"));
        let text = std::fs::read_to_string(&path).expect("replace file");
        for line in fixture_lines(&format!("{host}.cfg"), keep) {
            assert!(text.lines().any(|l| l == line), "{host}: `{line}` not kept");
        }
        let rendered =
            std::fs::read_to_string(format!("golden/pod1-1024/{host}.cfg")).expect("golden");
        for line in rendered
            .lines()
            .filter(|l| !l.trim_start().starts_with('!') && *l != "end")
        {
            assert!(
                text.lines().any(|l| l == line),
                "{host}: rendered `{line}` missing"
            );
        }
        let base = std::fs::read_to_string(dir.join(format!("{host}.base.cfg"))).expect("base");
        let fixture = std::fs::read_to_string(Path::new(RUNNING).join(format!("{host}.cfg")))
            .expect("fixture");
        assert_eq!(
            base, fixture,
            "{host}: the base is the running-config it kept sections from"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
            assert_eq!(
                mode, 0o600,
                "{host}: replace files hold the switch's secrets"
            );
        }
    }
    // A switch that runs the replace file has nothing left to change, and keeps what it kept.
    let after = common::Scratch::new("drift-after");
    for host in ["su1-r1-leaf", "spine01"] {
        std::fs::copy(
            dir.join(format!("{host}.cfg")),
            after.join(format!("{host}.cfg")),
        )
        .expect("copy");
    }
    let (code, out, err) = drift(&[
        "--running",
        after.to_str().expect("utf-8"),
        "--only",
        "{su1-r1-leaf,spine01}",
    ]);
    assert_eq!(code, Some(0), "drift after the push:\n{out}\n{err}");
    assert!(
        out.contains("= boot nxos bootflash:/nxos64-cs.10.4.3.F.bin"),
        "{out}"
    );
    // A second --write into the folder it made is accepted; a folder it did not make is refused.
    let (code, _, err) = drift(&["--running", RUNNING, "--only", "spine01", "--write", d]);
    assert_eq!(code, Some(1), "{err}");
    let (code, _, err) = drift(&[
        "--running",
        RUNNING,
        "--only",
        "spine01",
        "--write",
        after.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("did not make"), "{err}");
    let _ = std::fs::remove_dir_all(&*dir);
    let _ = std::fs::remove_dir_all(&*after);
}

#[test]
fn no_running_config_or_a_linked_one_cannot_run() {
    let empty = common::Scratch::new("drift-empty");
    let (code, _, err) = drift(&["--running", empty.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no device has a running-config"), "{err}");
    #[cfg(unix)]
    {
        let target = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(RUNNING)
            .join("spine01.cfg");
        std::os::unix::fs::symlink(&target, empty.join("spine01.cfg")).expect("link");
        let (code, _, err) = drift(&[
            "--running",
            empty.to_str().expect("utf-8"),
            "--only",
            "spine01",
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&*empty);
}

/// Every file of a folder (names and bytes), sorted; the entries beside it whose name starts with
/// `.<name>.` (what a write in progress stages there).
fn folder(dir: &Path) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("folder")
        .flatten()
        .map(|e| {
            let bytes = std::fs::read(e.path()).expect("file");
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    files.sort();
    let name = dir
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let mut beside: Vec<String> = std::fs::read_dir(dir.parent().expect("parent"))
        .expect("parent")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.")))
        .collect();
    beside.sort();
    (files, beside)
}

/// The hex SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `aifab drift --write` swaps its folder in whole: killed after its first file or after its
/// manifest (before the swap), the folder is the previous run's, byte for byte; the next run removes
/// what the killed one left beside it and writes a folder whose manifest names the SHA-256 of the
/// rendered file (as `aifab render --out` wrote it), the replace file and the base.
#[test]
fn a_killed_write_leaves_the_previous_folder_whole() {
    let scratch = common::Scratch::new("drift-kill");
    let out = scratch.join("out");
    let o = common::aifab(&[
        "render",
        INTENT,
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
    ]);
    assert!(o.status.success(), "{o:?}");
    let dir = scratch.join("assembled");
    let d = dir.to_str().expect("utf-8");
    let (code, _, err) = drift(&["--running", RUNNING, "--only", "su1-r1-leaf", "--write", d]);
    assert_eq!(code, Some(1), "{err}");
    let before = folder(&dir);
    assert_eq!(
        before.1,
        Vec::<String>::new(),
        "a finished write leaves nothing beside"
    );
    for point in ["drift-fill", "drift-staged"] {
        let o = common::aifab_command()
            .args(["drift", INTENT, "-q", "--running", RUNNING])
            .args(["--only", "{su1-r1-leaf,spine01}", "--write", d])
            .current_dir(common::root())
            .env("AIFAB_TEST_KILL_AT", point)
            .output()
            .expect("run aifab");
        #[cfg(unix)]
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&o.status),
            Some(9),
            "{point}: {o:?}"
        );
        let after = folder(&dir);
        assert_eq!(after.0, before.0, "{point}: the folder changed");
        assert_eq!(
            after.1.len(),
            1,
            "{point}: the staging folder: {:?}",
            after.1
        );
    }
    let (code, _, err) = drift(&[
        "--running",
        RUNNING,
        "--only",
        "{su1-r1-leaf,spine01}",
        "--write",
        d,
    ]);
    assert_eq!(code, Some(1), "{err}");
    let (files, beside) = folder(&dir);
    assert_eq!(
        beside,
        Vec::<String>::new(),
        "the killed runs' folders are removed"
    );
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            ".aifab-drift",
            "spine01.base.cfg",
            "spine01.cfg",
            "su1-r1-leaf.base.cfg",
            "su1-r1-leaf.cfg"
        ]
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&files[0].1).expect("the manifest is JSON");
    for host in ["spine01", "su1-r1-leaf"] {
        let entry = &manifest["hosts"][host];
        let rendered = std::fs::read(out.join(format!("{host}.cfg"))).expect("rendered");
        assert_eq!(entry["rendered"]["file"], format!("{host}.cfg"));
        assert_eq!(entry["rendered"]["sha256"], sha256(&rendered), "{host}");
        let assembled = std::fs::read(dir.join(format!("{host}.cfg"))).expect("assembled");
        assert_eq!(entry["assembled"]["sha256"], sha256(&assembled), "{host}");
        let base = std::fs::read(dir.join(format!("{host}.base.cfg"))).expect("base");
        assert_eq!(entry["base"]["sha256"], sha256(&base), "{host}");
        assert_ne!(
            rendered, assembled,
            "{host}: the kept sections are in the replace file"
        );
    }
    let _ = std::fs::remove_dir_all(&*scratch);
}

const SONIC_INTENT: &str = "intents/sonic-lossless-breakout.yaml";
const SONIC_RUNNING: &str = "tests/drift/sonic";

fn sonic_drift(running: &str) -> (Option<i32>, String, String) {
    let out = common::aifab(&[
        "drift",
        SONIC_INTENT,
        "-q",
        "--running",
        running,
        "--only",
        "g1-r1-leaf",
    ]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// SONiC: the running config_db (tests/drift/README.md) is the rendered golden with the tables the
/// switch adds, the secrets filled, a list printed as a JSON array, and three changes in owned tables.
/// `aifab drift` lists exactly those changes, names the tables it left alone and prints no secret.
#[test]
fn sonic_compares_the_owned_tables_and_leaves_the_others_alone() {
    let (code, out, err) = sonic_drift(SONIC_RUNNING);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let want = [
        "    PORT|Ethernet0",
        "  -   mtu: 1500",
        "  +   mtu: 9100",
        "  - BGP_NEIGHBOR|10.61.9.9",
        "  -   asn: 65999",
        "  + VLAN_MEMBER|Vlan3001|Ethernet0",
        "  +   tagging_mode: untagged",
        "  = CRM (1 row(s): not aifab's, left alone)",
        "  = FEATURE (3 row(s): not aifab's, left alone)",
        "  = FLEX_COUNTER_TABLE (2 row(s): not aifab's, left alone)",
        "  = VERSIONS (1 row(s): not aifab's, left alone)",
    ];
    for line in want {
        assert!(
            out.contains(&format!("{line}\n")),
            "missing `{line}`:\n{out}"
        );
    }
    assert!(
        out.starts_with(
            "g1-r1-leaf (sonic): 3 line(s) added, 5 owned line(s) removed, 4 section(s) kept"
        ),
        "{out}"
    );
    // Five placeholders of the render (no vault given) are counted, not compared; nothing else of
    // the filled secrets, the mac the switch fills or the list printed as an array is drift.
    assert!(out.contains("5 secret value(s) not compared"), "{out}");
    assert!(
        !out.contains("FixtureOnly") && !err.contains("FixtureOnly"),
        "{out}"
    );
    assert!(
        !out.contains("mac:") && !out.contains("profile_list"),
        "{out}"
    );
}

/// SONiC converges: a running config_db that is the render plus the switch's own tables exits 0; a
/// running file of another switch or not JSON cannot be compared (exit 2).
#[test]
fn sonic_running_the_render_has_no_drift() {
    let text =
        std::fs::read_to_string(Path::new(SONIC_RUNNING).join("g1-r1-leaf.json")).expect("fixture");
    let mut db: serde_json::Value = serde_json::from_str(&text).expect("json");
    db["PORT"]["Ethernet0"]["mtu"] = "9100".into();
    db["BGP_NEIGHBOR"]
        .as_object_mut()
        .expect("table")
        .remove("10.61.9.9");
    db["VLAN_MEMBER"]["Vlan3001|Ethernet0"] = serde_json::json!({"tagging_mode": "untagged"});
    let dir = common::Scratch::new("drift-sonic");
    let put = |v: &str| std::fs::write(dir.join("g1-r1-leaf.json"), v).expect("write");
    put(&serde_json::to_string_pretty(&db).expect("json"));
    let d = dir.to_str().expect("utf-8");
    let (code, out, err) = sonic_drift(d);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("0 line(s) added, 0 owned line(s) removed"),
        "{out}"
    );
    db["DEVICE_METADATA"]["localhost"]["hostname"] = "g1-r2-leaf".into();
    put(&serde_json::to_string(&db).expect("json"));
    let (code, _, err) = sonic_drift(d);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another switch"), "{err}");
    put("show runningconfiguration all\n");
    let (code, _, err) = sonic_drift(d);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not JSON"), "{err}");
    let _ = std::fs::remove_dir_all(&*dir);
}

/// Every table the config_db builder writes for an example is one `vendors/sonic.yaml` lists as
/// aifab's, so `aifab drift` compares it.
#[test]
fn every_rendered_sonic_table_is_owned() {
    let owned = &aifab::platform::Catalog::builtin().owned_tables[&aifab::platform::Os::Sonic];
    let mut seen = 0;
    for intent in common::example_intents() {
        let (_, files) = common::render(&intent);
        for f in files.iter().filter(|f| f.path.ends_with("/config_db.json")) {
            let db: serde_json::Value = serde_json::from_str(&f.content).expect("json");
            for table in db.as_object().expect("object").keys() {
                assert!(
                    owned.tables.contains(table),
                    "{intent}: {}: {table} is not in vendors/sonic.yaml config_db.tables",
                    f.path
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "no SONiC example rendered");
}

/// Bad captures: an empty file, an EOS running-config cut short (no `end`), another switch's file, each
/// refused with the file and the reason (exit 2); a CRLF capture with `!Time:` headers reads as the
/// plain one.
#[test]
fn bad_captures_are_refused_and_crlf_reads_as_plain() {
    let dir = common::Scratch::new("drift-bad-captures");
    let d = dir.to_str().expect("utf-8");
    let fixture = |host: &str| {
        std::fs::read_to_string(Path::new(RUNNING).join(format!("{host}.cfg"))).expect("fixture")
    };
    let (_, plain, _) = drift(&["--running", RUNNING, "--only", "spine01"]);
    let crlf = fixture("spine01").replace('\n', "\r\n");
    std::fs::write(dir.join("spine01.cfg"), crlf).expect("write");
    let (code, out, err) = drift(&["--running", d, "--only", "spine01"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out, plain, "a CRLF capture drifts as the plain one");
    for (host, text, why) in [
        ("spine01", String::from("\n \n"), "an empty running-config"),
        (
            "spine01",
            fixture("spine01").replace("\nend\n", "\n"),
            "an incomplete running-config",
        ),
        (
            "su1-r1-leaf",
            fixture("su1-r1-leaf").replace("hostname su1-r1-leaf", "hostname su1-r2-leaf"),
            "the running-config of another switch (`hostname su1-r2-leaf`)",
        ),
    ] {
        std::fs::write(dir.join(format!("{host}.cfg")), &text).expect("write");
        let (code, _, err) = drift(&["--running", d, "--only", host]);
        assert_eq!(code, Some(2), "{host}: {err}");
        assert!(err.contains(&format!("{host}.cfg: {why}")), "{host}: {err}");
    }
    let _ = std::fs::remove_dir_all(&*dir);
}

/// `--write` replaces its folder whole, so a folder that also holds a file it did not write (a note
/// the operator put there) is refused, and the file stays.
#[test]
fn a_write_folder_with_a_foreign_file_is_refused_and_kept() {
    let scratch = common::Scratch::new("drift-foreign");
    let dir = scratch.join("assembled");
    let d = dir.to_str().expect("utf-8");
    let (code, _, err) = drift(&["--running", RUNNING, "--only", "spine01", "--write", d]);
    assert_eq!(code, Some(1), "{err}");
    std::fs::write(dir.join("NOTES.txt"), "mine\n").expect("write");
    let (code, _, err) = drift(&["--running", RUNNING, "--only", "spine01", "--write", d]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("did not write (NOTES.txt)"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("NOTES.txt")).expect("kept"),
        "mine\n"
    );
    assert!(dir.join("spine01.cfg").is_file(), "the folder is as it was");
    let _ = std::fs::remove_dir_all(&*scratch);
}
