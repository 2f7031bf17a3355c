//! A switch that runs exactly what aifab rendered has no drift (docs/push.md "Convergence"): the
//! running-configs here are the rendered goldens of `intents/pod1-1024.yaml` with each secret in the
//! form the switch prints it, built by code of this test (not aifab's) from the test-only values of
//! tests/drift/converge/secrets.yaml and the engine IDs beside them, plus sections the switch has and
//! aifab does not own. The RFC 3414 A.3 vectors are in src/delivery/secret/snmp_key.rs.

use crate::common;
use sha1::{Digest, Sha1};
use std::path::Path;

const INTENT: &str = "intents/pod1-1024.yaml";
const FIXTURES: &str = "tests/drift/converge";
const AUTH: &str = "FixtureAuthPass1";
const PRIV: &str = "FixturePrivPass2";
const AAA: &str = "fixturetacacskey42";
const NXOS_ENGINE: &str = "8000000903001B54C24100";
const EOS_ENGINE: &str = "f5717f444ca8b1c70a00";

/// RFC 3414 A.2.2 as the RFC writes it, then 2.6's localization.
fn localized_sha1(pass: &str, engine_hex: &str) -> Vec<u8> {
    let p = pass.as_bytes();
    let mut h = Sha1::new();
    let (mut index, mut count) = (0, 0);
    while count < 1_048_576 {
        let block: Vec<u8> = (0..64).map(|j| p[(index + j) % p.len()]).collect();
        index += 64;
        h.update(&block);
        count += 64;
    }
    let ku = h.finalize();
    let engine: Vec<u8> = (0..engine_hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&engine_hex[i..i + 2], 16).expect("hex"))
        .collect();
    let mut l = Sha1::new();
    l.update(ku);
    l.update(&engine);
    l.update(ku);
    l.finalize().to_vec()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// NX-OS `key 7`: letters rotated by a per-position shift (networkengineering.stackexchange.com
/// question 27987), e.g. `cisco` -> `fewhg`.
fn nxos7(v: &str) -> String {
    let shifts = [
        3u8, 22, 4, 5, 18, 0, 21, 5, 18, 3, 10, 5, 16, 22, 4, 16, 24, 17, 12, 5, 21, 18, 5, 22, 19,
        7,
    ];
    let s: String = v
        .bytes()
        .enumerate()
        .map(|(i, c)| match c {
            b'a'..=b'z' => (b'a' + (c - b'a' + shifts[i % 26]) % 26) as char,
            _ => c as char,
        })
        .collect();
    format!("\"{s}\"")
}

/// EOS `key 7` (the Cisco IOS cipher) with offset 2.
fn eos7(v: &str) -> String {
    let key = b"dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87";
    let mut out = "02".to_string();
    for (i, c) in v.bytes().enumerate() {
        out.push_str(&format!("{:02X}", c ^ key[(2 + i) % key.len()]));
    }
    out
}

/// The golden config of `host` as the switch prints it after the push, secrets computed from the
/// values `aaa`, `auth`, `privacy`.
fn running(host: &str, aaa: &str, auth: &str, privacy: &str) -> String {
    let golden = std::fs::read_to_string(format!("golden/pod1-1024/{host}.cfg")).expect("golden");
    let nxos = host.ends_with("leaf");
    let mut out = if nxos {
        "!Command: show running-config\n!Time: Thu Nov 26 10:00:00 2026\n\nversion 10.4(3) Bios:version 01.08\n".to_string()
    } else {
        "! Command: show running-config\n! device: spine01 (DCS-7808, EOS-4.33.1F)\n!\n".to_string()
    };
    for line in golden.lines() {
        let l = if line.contains("key 0 AIFAB_SECRET(aaa_key)") {
            let form = if nxos { nxos7(aaa) } else { eos7(aaa) };
            line.replace("key 0 AIFAB_SECRET(aaa_key)", &format!("key 7 {form}"))
        } else if line.starts_with("snmp-server user monitor") && nxos {
            format!(
                "snmp-server user monitor network-operator auth sha 0x{} priv aes-128 0x{} localizedkey",
                hex(&localized_sha1(auth, NXOS_ENGINE)),
                hex(&localized_sha1(privacy, NXOS_ENGINE))
            )
        } else if line.starts_with("snmp-server user monitor") {
            format!(
                "snmp-server user monitor AIFAB-RO v3 localized {EOS_ENGINE} auth sha {} priv aes {}",
                hex(&localized_sha1(auth, EOS_ENGINE)),
                hex(&localized_sha1(privacy, EOS_ENGINE)[..16])
            )
        } else if nxos && line.starts_with("ip name-server ") {
            // Whether NX-OS prints several servers on one line is unverified: drift reads both forms
            // alike (src/delivery/canon.rs), so this fixture prints one line per server.
            let words: Vec<&str> = line.split(' ').collect();
            let servers = &words[2..words.len() - 2];
            servers
                .iter()
                .map(|s| format!("ip name-server {s} use-vrf management"))
                .collect::<Vec<_>>()
                .join("\n")
        } else if line == "end" {
            continue;
        } else {
            line.to_string()
        };
        assert!(!l.contains("AIFAB_"), "{host}: a placeholder left: {l}");
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(if nxos {
        "line console\n  exec-timeout 0\nline vty\nboot nxos bootflash:/nxos64-cs.10.4.3.F.bin\n"
    } else {
        "daemon TerminAttr\n   exec /usr/bin/TerminAttr -cvaddr=192.0.2.90:9910 -cvvrf=MGMT\n   no shutdown\n!\nend\n"
    });
    out
}

/// A running folder for both devices (with the engine ID files when `engineid`).
fn folder(name: &str, aaa: &str, privacy: &str, engineid: bool) -> common::Scratch {
    let dir = common::Scratch::new(name);
    for host in ["su1-r1-leaf", "spine01"] {
        std::fs::write(
            dir.join(format!("{host}.cfg")),
            running(host, aaa, AUTH, privacy),
        )
        .expect("write");
        if engineid {
            std::fs::copy(
                Path::new(FIXTURES).join(format!("{host}.engineid")),
                dir.join(format!("{host}.engineid")),
            )
            .expect("engineid");
        }
    }
    dir
}

/// A private copy of the secrets fixture, with `aaa_key` replaced when `aaa` is given.
fn secrets(dir: &Path, aaa: Option<&str>, mode: u32) -> String {
    let mut text =
        std::fs::read_to_string(Path::new(FIXTURES).join("secrets.yaml")).expect("fixture");
    if let Some(a) = aaa {
        text = text.replace(AAA, a);
    }
    let path = dir.join("secrets.yaml");
    std::fs::write(&path, text).expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    #[cfg(not(unix))]
    let _ = mode;
    path.to_str().expect("utf-8").to_string()
}

fn drift(running: &Path, more: &[&str]) -> (Option<i32>, String, String) {
    let dir = running.to_str().expect("utf-8");
    let mut args = vec![
        "drift",
        INTENT,
        "-q",
        "--running",
        dir,
        "--only",
        "{su1-r1-leaf,spine01}",
    ];
    args.extend_from_slice(more);
    let out = common::aifab(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_switch_running_the_render_is_unchanged_with_the_secrets() {
    let run = folder("converge-ok", AAA, PRIV, true);
    let keys = common::Scratch::new("converge-keys");
    let file = secrets(&keys, None, 0o600);
    let (code, out, err) = drift(&run, &["--secrets", &file]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("2 device(s) compared: 0 change, 2 unchanged"),
        "{err}"
    );
    assert!(
        !out.contains("not compared") && !err.contains("not compared"),
        "{out}\n{err}"
    );
    // Without the values: the same exit, and the secrets it could not compare counted (two TACACS+
    // keys and two SNMPv3 keys per switch).
    let (code, out, err) = drift(&run, &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("su1-r1-leaf (nxos): 0 line(s) added, 0 owned line(s) removed"),
        "{out}"
    );
    assert!(out.contains(", 4 secret value(s) not compared\n"), "{out}");
    assert!(
        err.contains("note: 8 secret value(s) not compared (give --secrets FILE"),
        "{err}"
    );
    // The values on standard input (`--secrets -`), as from `ansible-vault view`.
    let text = std::fs::read(Path::new(FIXTURES).join("secrets.yaml")).expect("fixture");
    let mut cmd = common::aifab_command();
    cmd.args([
        "drift",
        INTENT,
        "-q",
        "--running",
        run.to_str().expect("utf-8"),
    ])
    .args(["--only", "{su1-r1-leaf,spine01}", "--secrets", "-"])
    .current_dir(common::root())
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &text).expect("write");
    let done = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(
        err.contains("0 change, 2 unchanged") && !err.contains("not compared"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&*run);
    let _ = std::fs::remove_dir_all(&*keys);
}

#[test]
fn a_wrong_key_is_a_change_and_stays_masked() {
    let keys = common::Scratch::new("converge-wrong-keys");
    // The switch has another TACACS+ key than the vault's.
    let run = folder("converge-wrong", "otherswitchkey7", PRIV, true);
    let file = secrets(&keys, None, 0o600);
    let (code, out, err) = drift(&run, &["--secrets", &file]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("  - tacacs-server host 192.0.2.11 key 7 <secret>\n"),
        "{out}"
    );
    assert!(
        out.contains("  + tacacs-server host 192.0.2.11 key 0 AIFAB_SECRET(aaa_key)\n"),
        "{out}"
    );
    assert!(
        out.contains("  - tacacs-server host 192.0.2.11 vrf MGMT key 7 <secret>\n"),
        "{out}"
    );
    for secret in [
        AAA,
        "otherswitchkey7",
        &nxos7("otherswitchkey7"),
        &eos7("otherswitchkey7"),
    ] {
        let bare = secret.trim_matches('"');
        assert!(
            !out.contains(bare) && !err.contains(bare),
            "{bare} printed:\n{out}\n{err}"
        );
    }
    // The SNMP lines still match: only the TACACS+ lines change.
    assert!(!out.contains("snmp-server user"), "{out}");
    // A wrong SNMPv3 privacy pass phrase on the NX-OS switch, read with its engine ID.
    let run2 = folder("converge-wrong-priv", AAA, "AnotherPrivPass", true);
    let (code, out, _) = drift(&run2, &["--secrets", &file]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("  - snmp-server user monitor network-operator auth sha <secret> priv aes-128 <secret> localizedkey\n"), "{out}");
    let priv_hex = hex(&localized_sha1("AnotherPrivPass", NXOS_ENGINE));
    assert!(!out.contains(&priv_hex), "a localized key printed");
    let _ = std::fs::remove_dir_all(&*run);
    let _ = std::fs::remove_dir_all(&*run2);
    let _ = std::fs::remove_dir_all(&*keys);
}

#[test]
fn without_the_engine_id_nxos_keys_are_not_compared() {
    // NX-OS's line does not name its engine: without <host>.engineid a wrong privacy key cannot be
    // told, and is counted; EOS's line names its own (`localized <hex>`), so EOS still compares.
    let keys = common::Scratch::new("converge-noeid-keys");
    let run = folder("converge-noeid", AAA, "AnotherPrivPass", false);
    let file = secrets(&keys, None, 0o600);
    let (code, out, err) = drift(&run, &["--secrets", &file]);
    assert_eq!(
        code,
        Some(1),
        "EOS's wrong key is still seen:\n{out}\n{err}"
    );
    assert!(
        out.contains("su1-r1-leaf (nxos): 0 line(s) added, 0 owned line(s) removed"),
        "{out}"
    );
    assert!(out.contains(", 2 secret value(s) not compared\n"), "{out}");
    assert!(
        out.contains("spine01 (eos): 1 line(s) added, 1 owned line(s) removed"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&*run);
    let _ = std::fs::remove_dir_all(&*keys);
}

#[cfg(unix)]
#[test]
fn a_secrets_file_others_can_read_is_refused() {
    let keys = common::Scratch::new("converge-open-keys");
    let run = folder("converge-open", AAA, PRIV, true);
    let file = secrets(&keys, None, 0o644);
    let (code, out, err) = drift(&run, &["--secrets", &file]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("readable by group or others"), "{err}");
    assert!(!err.contains(AAA) && !out.contains(AAA));
    let _ = std::fs::remove_dir_all(&*run);
    let _ = std::fs::remove_dir_all(&*keys);
}
