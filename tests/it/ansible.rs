//! The Ansible side of `aifab render`: the inventory it writes parses with `ansible-inventory` and puts
//! every device in its OS and role groups with the right connection settings, and `ansible/deploy.yml`
//! passes `ansible-playbook --syntax-check` against it; `ansible/hosts.yml` installs the host files on
//! servers (run locally, each server under a root of its own).
//!
//! Needs `ansible-playbook` and `ansible-inventory`: from `$AIFAB_ANSIBLE_BIN` (a folder, as `.ci/run`
//! sets it) or else from PATH. Without them the tests print one line and skip; under `CI=true` they
//! fail.

use crate::common;
use crate::common::root;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const INSTALL_HINT: &str = "`python3 -m venv .ci/venv && .ci/venv/bin/pip install 'ansible==12.3.0'` \
     then `export AIFAB_ANSIBLE_BIN=$PWD/.ci/venv/bin` (what .ci/run does), or put ansible-playbook and \
     ansible-inventory on PATH (`pip install ansible`)";

/// True when the Ansible tools are missing (after printing the one skip line; under CI it fails).
fn skip() -> bool {
    let missing: Vec<&str> = ["ansible-playbook", "ansible-inventory"]
        .into_iter()
        .filter(|t| common::find_tool(t).is_none())
        .collect();
    !common::prerequisite(
        missing.is_empty(),
        "the Ansible inventory and playbook tests",
        &format!("{} not found", missing.join(" and ")),
        INSTALL_HINT,
    )
}

/// [`find_tool`], failing with the install hint when it is missing.
fn tool(name: &str) -> PathBuf {
    match common::find_tool(name) {
        Some(p) => p,
        None => {
            let place = match std::env::var("AIFAB_ANSIBLE_BIN") {
                Ok(d) => format!("in AIFAB_ANSIBLE_BIN={d}"),
                Err(_) => "on PATH (and AIFAB_ANSIBLE_BIN is not set)".to_string(),
            };
            panic!("`{name}` not found {place}: {INSTALL_HINT}")
        }
    }
}

fn run(tool_name: &str, args: &[&str]) -> Output {
    let exe = tool(tool_name);
    let out = Command::new(&exe)
        .args(args)
        .current_dir(root())
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_FORCE_COLOR", "0")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL_HINT}", exe.display()));
    assert!(
        out.status.success(),
        "{tool_name} {} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `aifab render <intent> --out <tmp>`; returns the folder.
fn render(intent: &str, name: &str) -> common::Scratch {
    let dir = common::Scratch::new(&format!("ansible-{name}"));
    // aifab makes the folder: the scratch only names it and removes it after.
    let _ = std::fs::remove_dir(&*dir);
    let out = crate::common::aifab_command()
        .args(["render", intent, "--out"])
        .arg(&dir)
        .arg("-q")
        .current_dir(root())
        .env("AIFAB_CACHE_DIR", common::tmp_root().join("aifab-cache"))
        .output()
        .expect("run aifab render");
    assert!(
        out.status.success(),
        "aifab render {intent} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// A rendered device as `aifab compile` describes it.
struct Device {
    os: String,
    role: String,
    /// The rollout groups it must be in, after the fabric prefix (`zone1`, `group2`, `rail3`, `plane1`).
    rollout: Vec<String>,
}

/// The fabric's group prefix: its name with `-` as `_` (the example names need nothing else).
fn prefix(intent: &str) -> String {
    fabric_name(intent).replace('-', "_")
}

/// `fabric.name` of an intent, from `aifab compile`.
fn fabric_name(intent: &str) -> String {
    compiled(intent)["name"].as_str().expect("name").to_string()
}

fn compiled(intent: &str) -> Value {
    let out = crate::common::aifab_command()
        .args(["compile", intent, "--format", "json"])
        .current_dir(root())
        .output()
        .expect("run aifab compile");
    assert!(
        out.status.success(),
        "aifab compile {intent} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("compile prints JSON")
}

/// hostname → device, from the compiled model (independent of the inventory writer).
fn devices(intent: &str) -> BTreeMap<String, Device> {
    let model = compiled(intent);
    let s = |d: &Value, k: &str| {
        d[k].as_str()
            .unwrap_or_else(|| panic!("device without {k}: {d}"))
            .to_string()
    };
    model["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| {
            (
                s(d, "hostname"),
                Device {
                    os: s(d, "os"),
                    role: s(d, "role"),
                    rollout: ["zone", "group", "rail", "plane"]
                        .iter()
                        .filter_map(|k| d[*k].as_u64().map(|n| format!("{k}{n}")))
                        .collect(),
                },
            )
        })
        .collect()
}

fn group_hosts<'a>(inv: &'a Value, group: &str) -> Vec<&'a str> {
    inv[group]["hosts"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Renders `intent`, then checks the inventory with ansible-inventory and the playbook with
/// ansible-playbook --syntax-check. Returns the hostvars per host for intent-specific checks.
fn check(intent: &str, name: &str) -> BTreeMap<String, Value> {
    if skip() {
        return BTreeMap::new();
    }

    let dir = render(intent, name);
    let inventory = dir.join("inventory.yml");
    let (inv_s, dir_s) = (
        inventory.to_str().expect("utf-8 path"),
        dir.to_str().expect("utf-8 path"),
    );

    let out = run(
        "ansible-playbook",
        &[
            "-i",
            inv_s,
            "ansible/deploy.yml",
            "--syntax-check",
            "-e",
            &format!("aifab_out={dir_s}"),
        ],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("playbook: ansible/deploy.yml"),
        "syntax check printed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let out = run("ansible-inventory", &["-i", inv_s, "--list"]);
    let inv: Value =
        serde_json::from_slice(&out.stdout).expect("ansible-inventory --list prints JSON");
    let hostvars = inv["_meta"]["hostvars"]
        .as_object()
        .expect("_meta.hostvars");

    let devs = devices(intent);
    assert!(!devs.is_empty(), "{intent}: no devices");
    let mut all_inventory_hosts: Vec<&str> = hostvars.keys().map(String::as_str).collect();
    all_inventory_hosts.sort_unstable();
    assert_eq!(
        all_inventory_hosts,
        devs.keys().map(String::as_str).collect::<Vec<_>>(),
        "{intent}: inventory hosts vs rendered devices"
    );

    let f = prefix(intent);
    for (host, d) in &devs {
        let hv = &hostvars[host];
        let groups = [d.os.clone(), d.role.replace('-', "_")];
        for g in groups.iter().chain(&d.rollout) {
            let g = format!("{f}_{g}");
            assert!(
                group_hosts(&inv, &g).contains(&host.as_str()),
                "{intent}: {host} not in group {g}"
            );
        }
        let network_os = hv.get("ansible_network_os").and_then(Value::as_str);
        let connection = hv.get("ansible_connection").and_then(Value::as_str);
        match d.os.as_str() {
            "nxos" => {
                assert_eq!(network_os, Some("cisco.nxos.nxos"), "{intent}: {host}");
                assert_eq!(
                    connection,
                    Some("ansible.netcommon.network_cli"),
                    "{intent}: {host}"
                );
            }
            "eos" => {
                assert_eq!(network_os, Some("arista.eos.eos"), "{intent}: {host}");
                assert_eq!(
                    connection,
                    Some("ansible.netcommon.network_cli"),
                    "{intent}: {host}"
                );
                assert_eq!(
                    hv.get("ansible_become_method").and_then(Value::as_str),
                    Some("enable"),
                    "{intent}: {host}"
                );
            }
            "sonic" => {
                assert_eq!(
                    network_os, None,
                    "{intent}: {host}: SONiC is a Linux host, no ansible_network_os"
                );
                assert_eq!(connection, Some("ssh"), "{intent}: {host}");
                assert_eq!(
                    hv.get("ansible_become"),
                    Some(&Value::Bool(true)),
                    "{intent}: {host}: copying to /etc/sonic needs become"
                );
            }
            other => panic!("{intent}: {host}: unknown os {other}"),
        }
        // The playbook pushes aifab_out/aifab_config: it must be this device's rendered file.
        let config = hv["aifab_config"]
            .as_str()
            .unwrap_or_else(|| panic!("{intent}: {host}: no aifab_config"));
        let expected = if d.os == "sonic" {
            format!("{host}/config_db.json")
        } else {
            format!("{host}.cfg")
        };
        assert_eq!(config, expected, "{intent}: {host}");
        let text = std::fs::read_to_string(dir.join(config))
            .unwrap_or_else(|e| panic!("{intent}: {host}: {config}: {e}"));
        // nxos_config / eos_config `src:` files go through Jinja2 on ansible-core <= 2.18 (deploy.yml).
        if d.os != "sonic" {
            assert!(
                !text.contains("{{") && !text.contains("{%") && !text.contains("{#"),
                "{intent}: {host}: Jinja2 delimiters in {config}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    hostvars
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
fn pod1_inventory_and_playbook() {
    check("intents/pod1-1024.yaml", "pod1");
}

#[test]
fn mixed_sonic_nxos_inventory_and_playbook() {
    if skip() {
        return;
    }
    let hostvars = check("intents/mixed-sonic-nxos.yaml", "mixed");
    for (host, hv) in &hostvars {
        let ip = hv
            .get("ansible_host")
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{host}: no ansible_host"));
        assert!(
            ip.parse::<std::net::IpAddr>().is_ok(),
            "{host}: ansible_host {ip} is not an address"
        );
    }
}

/// Vault values for the examples' `{vault: ...}` secrets (test values, not secrets), as an extra-vars
/// file.
fn test_vault(dir: &Path, name: &str, values: &[(&str, &str)]) -> PathBuf {
    let mut text = String::from("aifab_secrets:\n");
    for (k, v) in values {
        text.push_str(&format!("  {k}: \"{v}\"\n"));
    }
    let path = dir.join(format!("{name}.yml"));
    std::fs::write(&path, text).expect("write test vault");
    path
}

const EXAMPLE_VAULT: &[(&str, &str)] = &[
    ("aaa_key", "Tst-aaa.key9"),
    ("snmp_auth", "Tst-snmp.auth9"),
    ("snmp_priv", "Tst-snmp.priv9"),
];

/// `ansible-playbook deploy.yml --tags access_check` against a rendered folder, logging in as `netops`
/// (an admin user of every example's baseline): only the preflight, access and vault checks run (they
/// need no switch). Returns the output and whether it succeeded.
fn access_check(dir: &Path, vault: &Path) -> (bool, String) {
    access_check_with(dir, vault, &["ansible_user=netops"])
}

/// [`access_check`] with the extra variables `extra` (`key=value` each) instead of the login user; an
/// item `--limit=<pattern>` limits the run instead (a play whose hosts all fail ends the playbook),
/// `--check` runs it in check mode.
fn access_check_with(dir: &Path, vault: &Path, extra: &[&str]) -> (bool, String) {
    let exe = tool("ansible-playbook");
    let mut c = Command::new(&exe);
    c.args(["-i"])
        .arg(dir.join("inventory.yml"))
        .args(["ansible/deploy.yml", "--tags", "access_check", "-e"])
        .arg(format!("aifab_out={}", dir.display()))
        .arg("-e")
        .arg(format!("@{}", vault.display()));
    for e in extra {
        match e.strip_prefix("--limit=") {
            Some(l) => c.args(["--limit", l]),
            None if *e == "--check" => c.arg(e),
            None => c.args(["-e", e]),
        };
    }
    let out = c
        .current_dir(root())
        .env("ANSIBLE_NOCOLOR", "1")
        .output()
        .expect("run ansible-playbook");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The access check (EOS users and management address, SONiC MGMT_INTERFACE) and the vault check pass
/// on every golden folder without `aifab_skip_access_check`: the goldens are complete configs.
#[test]
fn access_check_passes_on_the_goldens() {
    if skip() {
        return;
    }
    let tmp = common::Scratch::new("ansible-vault");
    let vault = test_vault(&tmp, "vault", EXAMPLE_VAULT);
    for g in ["pod1-1024", "mixed-sonic-nxos", "three-tier-small"] {
        let dir = root().join("golden").join(g);
        let (ok, text) = access_check(&dir, &vault);
        assert!(ok, "{g}: access check failed:\n{text}");
        assert!(!text.contains("failed=1"), "{g}:\n{text}");
        assert!(
            text.contains("Access check"),
            "{g}: the access check did not run:\n{text}"
        );
    }
}

/// The checks still refuse what they should: an EOS config without `username` lines, and a vault
/// without a secret the configs name.
#[test]
fn access_check_refuses_a_config_without_users_or_secrets() {
    if skip() {
        return;
    }
    let dir = render("intents/three-tier-small.yaml", "access");
    let vault = test_vault(&dir, "vault", EXAMPLE_VAULT);
    let (ok, text) = access_check(&dir, &vault);
    assert!(ok, "freshly rendered folder fails:\n{text}");

    let short = test_vault(&dir, "short-vault", &EXAMPLE_VAULT[..2]);
    let (ok, text) = access_check(&dir, &short);
    assert!(!ok && text.contains("needs snmp_priv"), "{text}");

    let cfg = dir.join("z1-g1-r1.cfg");
    let kept: String = std::fs::read_to_string(&cfg)
        .expect("read config")
        .lines()
        .filter(|l| !l.starts_with("username "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&cfg, kept).expect("write config");
    let (ok, text) = access_check(&dir, &vault);
    assert!(!ok, "a config without users passed:\n{text}");
    assert!(
        text.contains("z1-g1-r1: z1-g1-r1.cfg: the login user `netops` is not a local user with a role that can configure (the file has none)"),
        "{text}"
    );
}

/// A folder an `aifab render --only` is writing into, or was killed writing into (its journal
/// `.NAME.aifab-journal` beside it), may mix old and new files: every OS's preflight refuses to push it,
/// naming the journal, and pushes again once the journal is gone.
#[test]
fn preflight_refuses_a_folder_with_an_unfinished_write() {
    if skip() {
        return;
    }
    let dir = render("intents/three-tier-small.yaml", "journal");
    let vault = test_vault(&dir, "vault", EXAMPLE_VAULT);
    let (ok, text) = access_check(&dir, &vault);
    assert!(ok, "freshly rendered folder fails:\n{text}");
    let name = dir
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let journal = dir
        .parent()
        .expect("parent")
        .join(format!(".{name}.aifab-journal"));
    std::fs::write(&journal, "aifab in-place journal 1\nstate: commit\n").expect("plant journal");
    // One host of each OS (a play whose hosts all fail ends the playbook before the next OS).
    for host in ["z1-g1-r1", "z1-spine1", "ss1"] {
        let limit = format!("--limit={host}");
        let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=netops", &limit]);
        assert!(!ok, "{host}: a folder with a journal passed:\n{text}");
        assert!(
            text.contains(&format!(".{name}.aifab-journal is there")),
            "{host}:\n{text}"
        );
    }
    std::fs::remove_file(&journal).expect("remove journal");
    let (ok, text) = access_check(&dir, &vault);
    assert!(ok, "the folder fails once the journal is gone:\n{text}");
}

/// The login user is checked on every OS, by `--tags access_check` without a switch: a user the
/// NX-OS and EOS files do not have (`admin`) is refused there, naming the device, the user and the
/// fix, unless the operator says AAA knows it; SONiC's Linux account is refused only when the file's
/// AAA login leaves out `local`; a file that turns SSH off is refused where Ansible connects over SSH.
#[test]
fn access_check_looks_for_the_login_user_on_every_os() {
    if skip() {
        return;
    }
    let dir = render("intents/three-tier-small.yaml", "login-user");
    let vault = test_vault(&dir, "vault", EXAMPLE_VAULT);
    // One host of each OS (a play whose hosts all fail ends the playbook before the next OS).
    for host in ["z1-g1-r1", "ss1"] {
        let limit = format!("--limit={host}");
        let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=admin", &limit]);
        assert!(!ok, "{host}: admin passed:\n{text}");
        assert!(
            text.contains(&format!("{host}: {host}.cfg: the login user `admin` is not a local user with a role that can configure (netops)")),
            "{host} not refused:\n{text}"
        );
        assert!(text.contains("-e aifab_login_via_aaa=true"), "{text}");
    }
    let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=admin", "--limit=z1-spine1"]);
    assert!(
        ok,
        "SONiC keeps Linux accounts, and AAA falls back to them:\n{text}"
    );
    assert!(text.contains("Access check"), "{text}");
    // The read-only user cannot configure: refused too.
    let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=noc", "--limit=z1-g1-r1"]);
    assert!(
        !ok && text.contains("the login user `noc` is not a local user"),
        "{text}"
    );
    // AAA login is in every file: the operator may say the servers know the user.
    let (ok, text) = access_check_with(
        &dir,
        &vault,
        &["ansible_user=admin", "aifab_login_via_aaa=true"],
    );
    assert!(ok, "{text}");

    // SONiC: AAA without the local fallback.
    let db_path = dir.join("z1-spine1/config_db.json");
    let mut db: Value =
        serde_json::from_str(&std::fs::read_to_string(&db_path).expect("config_db")).expect("json");
    db["AAA"]["authentication"]["login"] = Value::String("radius".into());
    std::fs::write(&db_path, serde_json::to_string_pretty(&db).expect("json")).expect("write");
    // NX-OS: SSH turned off.
    let nx = dir.join("ss1.cfg");
    let text = std::fs::read_to_string(&nx)
        .expect("nxos")
        .replace("feature ssh\n", "no feature ssh\n");
    std::fs::write(&nx, text).expect("write");
    let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=netops", "--limit=z1-spine1"]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("z1-spine1: z1-spine1/config_db.json: its AAA login methods (`radius`) leave out `local`"),
        "{text}"
    );
    let (ok, text) = access_check_with(&dir, &vault, &["ansible_user=netops", "--limit=ss1"]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("ss1: ss1.cfg: the file turns SSH off (`no feature ssh`) while Ansible connects over SSH"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every host under `group`, through its children, in an `ansible-inventory --list` document.
fn hosts_under(inv: &Value, group: &str) -> std::collections::BTreeSet<String> {
    let mut out: std::collections::BTreeSet<String> = group_hosts(inv, group)
        .into_iter()
        .map(str::to_string)
        .collect();
    for child in inv[group]["children"].as_array().into_iter().flatten() {
        out.extend(hosts_under(inv, child.as_str().expect("child name")));
    }
    out
}

#[test]
fn two_fabrics_inventories_merge_apart() {
    if skip() {
        return;
    }
    let intents = ["intents/pod1-1024.yaml", "intents/three-tier-small.yaml"];
    let dirs: Vec<common::Scratch> = intents
        .iter()
        .zip(["merge-a", "merge-b"])
        .map(|(i, n)| render(i, n))
        .collect();
    let invs: Vec<String> = dirs
        .iter()
        .map(|d| d.join("inventory.yml").to_str().expect("utf-8").to_string())
        .collect();
    let out = run(
        "ansible-inventory",
        &["-i", &invs[0], "-i", &invs[1], "--list"],
    );
    let inv: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let hostvars = inv["_meta"]["hostvars"].as_object().expect("hostvars");
    let groups: Vec<&String> = inv.as_object().expect("object").keys().collect();
    let mut total = 0;
    for intent in intents {
        let (f, name) = (prefix(intent), fabric_name(intent));
        let devs = devices(intent);
        let want: std::collections::BTreeSet<String> = devs.keys().cloned().collect();
        total += want.len();
        assert_eq!(hosts_under(&inv, &f), want, "{intent}: hosts of group {f}");
        // Every group of this fabric holds only its hosts, and each host knows its fabric.
        for g in groups.iter().filter(|g| g.starts_with(&format!("{f}_"))) {
            let hosts = hosts_under(&inv, g);
            assert!(!hosts.is_empty(), "{intent}: empty group {g}");
            assert!(
                hosts.is_subset(&want),
                "{intent}: {g} holds another fabric's hosts"
            );
        }
        for h in &want {
            assert_eq!(hostvars[h]["aifab_fabric"], name.as_str(), "{intent}: {h}");
            let os = &devs[h].os;
            assert_eq!(hostvars[h]["aifab_os"], os.as_str(), "{intent}: {h}");
        }
    }
    assert_eq!(hostvars.len(), total, "hosts of both fabrics, none shared");
    // The playbook takes the merged inventories as they are.
    let out = run(
        "ansible-playbook",
        &[
            "-i",
            &invs[0],
            "-i",
            &invs[1],
            "ansible/deploy.yml",
            "--syntax-check",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("playbook: ansible/deploy.yml"));
    grouping_play_finds_each_hosts_folder(&invs, &dirs);
}

/// Runs deploy.yml's first play (group by `aifab_os`, on the control node only) and a play on the
/// group it makes, on the merged inventories: every SONiC host of both fabrics lands in `aifab_sonic`
/// and resolves its rendered folder to its own inventory's folder.
fn grouping_play_finds_each_hosts_folder(invs: &[String], dirs: &[common::Scratch]) {
    let deploy = std::fs::read_to_string(root().join("ansible/deploy.yml")).expect("deploy.yml");
    let start = deploy
        .find("- name: Group the hosts by OS")
        .expect("grouping play");
    let end = start
        + deploy[start..]
            .find("\n# ---")
            .expect("end of the grouping play");
    let play = format!(
        "---\n{}\n- name: show\n  hosts: aifab_sonic\n  gather_facts: false\n  vars:\n    \
         aifab_dir: \"{{{{ aifab_out | default(inventory_dir) }}}}\"\n  tasks:\n    \
         - ansible.builtin.debug:\n        msg: \"AIFAB {{{{ inventory_hostname }}}} {{{{ aifab_dir }}}}\"\n",
        &deploy[start..end]
    );
    let path = dirs[0].join("grouping.yml");
    std::fs::write(&path, play).expect("write play");
    let out = run(
        "ansible-playbook",
        &[
            "-i",
            &invs[0],
            "-i",
            &invs[1],
            path.to_str().expect("utf-8"),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut seen = 0;
    for line in text
        .lines()
        .filter_map(|l| l.split("\"msg\": \"AIFAB ").nth(1))
    {
        let (host, dir) = line
            .trim_end_matches('"')
            .split_once(' ')
            .expect("host dir");
        let want = if host.starts_with('z') {
            &dirs[1]
        } else {
            &dirs[0]
        };
        assert_eq!(Path::new(dir), want.path(), "{host}");
        seen += 1;
    }
    // three-tier-small has four SONiC spines; pod1-1024 has none.
    assert_eq!(seen, 4, "SONiC hosts grouped:\n{text}");
}

/// The batches `ansible/rollout.yml` walks (`--tags plan` prints each batch and contacts no switch):
/// exactly the plan's batches, in its order; a plan naming a host the inventory lacks is refused.
#[test]
fn rollout_walks_the_plan_batches_in_order() {
    if skip() {
        return;
    }
    for (intent, name) in [
        ("intents/mixed-sonic-nxos.yaml", "rollout-mixed"),
        ("intents/three-tier-small.yaml", "rollout-3tier"),
    ] {
        let dir = render(intent, name);
        let plan = crate::common::aifab_command()
            .args(["plan", intent, "--format", "rollout"])
            .current_dir(root())
            .output()
            .expect("run aifab plan");
        assert!(
            plan.status.success(),
            "{}",
            String::from_utf8_lossy(&plan.stderr)
        );
        let plan_file = dir.join("rollout-plan.yml");
        std::fs::write(&plan_file, &plan.stdout).expect("write plan");
        let v: serde_norway::Value = serde_norway::from_slice(&plan.stdout).expect("plan YAML");
        let mut want: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for h in v["aifab_rollout_hosts"].as_sequence().expect("hosts") {
            let h = h.as_str().expect("host name");
            let n = v["aifab_rollout_batch_of"][h].as_u64().expect("batch");
            want.entry(n).or_default().push(h.to_string());
        }
        let inv = dir.join("inventory.yml");
        let (inv_s, plan_s) = (
            inv.to_str().expect("utf-8"),
            format!("@{}", plan_file.display()),
        );
        run(
            "ansible-playbook",
            &[
                "-i",
                inv_s,
                "ansible/rollout.yml",
                "--syntax-check",
                "-e",
                &plan_s,
            ],
        );
        let out = run(
            "ansible-playbook",
            &[
                "-i",
                inv_s,
                "ansible/rollout.yml",
                "-e",
                &plan_s,
                "--tags",
                "plan",
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let mut got: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        let mut order = Vec::new();
        for line in text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("\"msg\": \"batch "))
        {
            let (n, hosts) = line
                .trim_end_matches('"')
                .split_once(": ")
                .expect("batch line");
            let n: u64 = n.parse().expect("batch number");
            order.push(n);
            got.insert(n, hosts.split(", ").map(str::to_string).collect());
        }
        assert_eq!(got, want, "{intent}: batches walked\n{text}");
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "{intent}: order {order:?}"
        );
    }
    // A plan for hosts this inventory does not have stops before anything runs.
    let dir = render("intents/mixed-sonic-nxos.yaml", "rollout-foreign");
    let foreign = dir.join("foreign-plan.yml");
    std::fs::write(
        &foreign,
        "aifab_rollout_serial: [1]\naifab_rollout_hosts: [not-a-switch]\n",
    )
    .expect("write");
    let out = Command::new(tool("ansible-playbook"))
        .arg("-i")
        .arg(dir.join("inventory.yml"))
        .args(["ansible/rollout.yml", "--tags", "plan", "-e"])
        .arg(format!("@{}", foreign.display()))
        .current_dir(root())
        .env("ANSIBLE_NOCOLOR", "1")
        .output()
        .expect("run ansible-playbook");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("hosts the inventory lacks: not-a-switch"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A SONiC switch with a patch from `aifab diff --format sonic-patch` takes `config apply-patch`, one
/// without takes the reload path: deploy.yml in check mode, run on the control node itself
/// (`ansible_connection=local`), so no switch is needed.
#[test]
fn sonic_patch_replaces_the_reload_where_a_patch_exists() {
    if skip() {
        return;
    }
    let dir = render("intents/mixed-sonic-nxos.yaml", "sonic-patch-path");
    let vault = test_vault(&dir, "vault", EXAMPLE_VAULT);
    let patches = dir.join("patches.json");
    std::fs::write(
        &patches,
        r#"{"g1-rail1": [{"op": "replace", "path": "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold", "value": "204800"}]}"#,
    )
    .expect("write patches");
    let python = common::find_tool("python").or_else(|| common::find_tool("python3"));
    let check = |host: &str| {
        let mut c = Command::new(tool("ansible-playbook"));
        c.arg("-i")
            .arg(dir.join("inventory.yml"))
            .args(["ansible/deploy.yml", "--check", "--limit", host])
            .args([
                "-e",
                "ansible_connection=local",
                "-e",
                "ansible_become=false",
            ])
            .arg("-e")
            .arg(format!("aifab_patches={}", patches.display()))
            .arg("-e")
            .arg(format!("@{}", vault.display()))
            .current_dir(root())
            .env("ANSIBLE_NOCOLOR", "1");
        if let Some(p) = &python {
            c.arg("-e")
                .arg(format!("ansible_python_interpreter={}", p.display()));
        }
        let out = c.output().expect("run ansible-playbook");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{host}:\n{text}");
        text
    };
    let patched = check("g1-rail1");
    assert!(
        patched.contains("would run `config apply-patch` with 1 operations"),
        "{patched}"
    );
    assert!(!patched.contains("would run `config reload"), "{patched}");
    let reloaded = check("g1-rail2");
    assert!(reloaded.contains("would run `config reload"), "{reloaded}");
    assert!(
        !reloaded.contains("would run `config apply-patch`"),
        "{reloaded}"
    );
}

/// `ansible localhost -m copy` writing the value of the Jinja2 expression `expr` to `out`, with the
/// playbooks' filter plugins (ansible/filter_plugins) loaded, as the playbooks load them.
fn ansible_expr(expr: &str, out: &Path) -> Output {
    let mut c = Command::new(tool("ansible"));
    c.args([
        "localhost",
        "-c",
        "local",
        "-m",
        "ansible.builtin.copy",
        "-a",
    ])
    .arg(format!("content={{{{ {expr} }}}} dest={}", out.display()))
    .current_dir(root())
    .env(
        "ANSIBLE_FILTER_PLUGINS",
        root().join("ansible/filter_plugins"),
    )
    .env("ANSIBLE_NOCOLOR", "1");
    if let Some(p) = common::find_tool("python").or_else(|| common::find_tool("python3")) {
        c.arg("-e")
            .arg(format!("ansible_python_interpreter={}", p.display()));
    }
    c.output().expect("run ansible")
}

/// The EOS timed commit (tasks/push-eos.yml) sends what filter_plugins/aifab_eos.py makes of a rendered
/// config: the session, a clean config, every config line in the file's order (no comment, blank or
/// `end`; banner text without waiting for a prompt), then `commit timer`. Run through ansible itself,
/// so the filter is found the way the playbooks find it; a bad timer is refused.
#[test]
fn eos_timed_commit_sends_the_whole_file_in_a_session() {
    if skip() {
        return;
    }
    let dir = render("intents/three-tier-small.yaml", "eos-session");
    let cfg = dir.join("z1-g1-r1.cfg");
    let text = std::fs::read_to_string(&cfg).expect("rendered EOS config");
    let session = |timer: &str, out: &Path| {
        ansible_expr(
            &format!(
                "lookup('ansible.builtin.file', '{}') | aifab_eos_session('aifab_test', '{timer}') | to_json",
                cfg.display()
            ),
            out,
        )
    };
    let out = dir.join("session.json");
    let o = session("00:05:00", &out);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let cmds: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("session.json")).expect("json");
    let command = |v: &Value| v["command"].as_str().expect("command").to_string();
    let sent: Vec<String> = cmds.iter().map(command).collect();
    assert_eq!(sent[0], "configure session aifab_test");
    assert_eq!(sent[1], "rollback clean-config");
    assert_eq!(
        sent.last().map(String::as_str),
        Some("commit timer 00:05:00")
    );
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('!') && t != "end"
        })
        .collect();
    assert_eq!(
        &sent[2..sent.len() - 1],
        lines.as_slice(),
        "the file's lines, in order"
    );
    assert!(lines.iter().any(|l| l.starts_with("username ")));
    let banner = sent
        .iter()
        .position(|c| c == "banner login")
        .expect("banner");
    let eof = sent.iter().position(|c| c == "EOF").expect("EOF");
    for (i, c) in cmds.iter().enumerate() {
        let sendonly = c["sendonly"].as_bool().unwrap_or(false);
        assert_eq!(sendonly, (banner..eof).contains(&i), "{i}: {}", command(c));
    }
    let o = session("5 minutes", &dir.join("bad.json"));
    assert!(!o.status.success(), "a malformed timer is refused");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("commit timer must be hh:mm:ss"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// The rollout's PFC watchdog check (drain-/verify-bgp-{eos,nxos}.yml) counts events with
/// filter_plugins/aifab_pfcwd.py: EOS sums `stuckCount` (a port without events is absent), NX-OS sums
/// the counters of every ROW_qosgrp_stats_entry (one row prints as a dict, several as a list), never
/// the entry's type or the qos-group number. Run through ansible so the filter loads as the playbooks
/// load it.
#[test]
fn pfc_watchdog_events_are_counted_from_each_os_json() {
    if skip() {
        return;
    }
    let eos_none = r#"{"interfaces": {}}"#;
    let eos_two = r#"{"interfaces": {"Ethernet1/1": {"txQueues": {"3": {"stuckCount": 2, "recoveryCount": 2}}}, "Ethernet2/1": {"txQueues": {}}}}"#;
    let nxos_one_row = r#"{"TABLE_module": {"ROW_module": {"TABLE_queuing_interface": {"ROW_queuing_interface": {"if_name_str": "Ethernet1/1 Interface PFC watchdog", "TABLE_qosgrp_stats": {"ROW_qosgrp_stats": {"eq-qosgrp": 3, "TABLE_qosgrp_stats_entry": {"ROW_qosgrp_stats_entry": {"q-stat-type": "Shutdown", "q-stat-count": "0"}}}}}}}}}"#;
    let nxos_rows = r#"{"TABLE_module": {"ROW_module": {"TABLE_queuing_interface": {"ROW_queuing_interface": [{"if_name_str": "Ethernet1/1 Interface PFC watchdog", "TABLE_qosgrp_stats": {"ROW_qosgrp_stats": {"eq-qosgrp": 3, "TABLE_qosgrp_stats_entry": {"ROW_qosgrp_stats_entry": [{"q-stat-type": "Shutdown", "q-stat-count": "1"}, {"q-stat-type": "Restored", "q-stat-count": 1}]}}}}, {"if_name_str": "Ethernet1/2 Interface PFC watchdog", "TABLE_qosgrp_stats": {"ROW_qosgrp_stats": {"eq-qosgrp": 3, "TABLE_qosgrp_stats_entry": {"ROW_qosgrp_stats_entry": {"q-stat-type": "Dropped", "q-stat-count": "5"}}}}}]}}}}"#;
    let dir = common::Scratch::new("ansible-pfcwd");
    let count = |json: &str, os: &str| -> String {
        let input = dir.join(format!("{os}-{}.json", json.len()));
        let out = dir.join(format!("{os}-{}.out", json.len()));
        std::fs::write(&input, json).expect("write");
        let o = ansible_expr(
            &format!(
                "lookup('ansible.builtin.file', '{}') | from_json | aifab_pfcwd_events('{os}')",
                input.display()
            ),
            &out,
        );
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::read_to_string(&out).expect("count")
    };
    assert_eq!(count(eos_none, "eos"), "0");
    assert_eq!(count(eos_two, "eos"), "2");
    assert_eq!(count(nxos_one_row, "nxos"), "0");
    assert_eq!(count(nxos_rows, "nxos"), "7");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An inventory `<name>.yml` in `roots` whose group `aifab_servers` holds `servers`, each reached through
/// the local connection and installed under `roots/<server>`.
fn servers_inventory(roots: &Path, name: &str, servers: &[&str]) -> PathBuf {
    let mut inv = String::from("aifab_servers:\n  hosts:\n");
    for s in servers {
        inv.push_str(&format!(
            "    {s}: {{ ansible_connection: local, aifab_root: \"{}\" }}\n",
            roots.join(s).display()
        ));
    }
    let path = roots.join(format!("{name}.yml"));
    std::fs::write(&path, inv).expect("write inventory");
    path
}

/// The folders a server has that the playbook writes into, under `root`.
fn make_server_folders(root: &Path) {
    for d in [
        "etc/netplan",
        "usr/local/sbin",
        "etc/systemd/system/multi-user.target.wants",
        "etc/sysctl.d",
    ] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
}

/// The interfaces of a netplan file (`network.ethernets`), in its order.
fn netplan_nics(netplan: &str) -> Vec<String> {
    let doc: Value = serde_norway::from_str(netplan).expect("netplan YAML");
    doc["network"]["ethernets"]
        .as_object()
        .expect("network.ethernets")
        .keys()
        .cloned()
        .collect()
}

/// The variables nccl.env sets, as NCCL reads them: each line's text before its first `=`.
fn nccl_vars(env: &str) -> Vec<&str> {
    env.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect()
}

/// `ansible-playbook ansible/hosts.yml` against `inventory` (extra vars `vars`, with `--check --diff`
/// when `check`); its output and whether it succeeded. The servers run through the local connection with the controller's Python.
fn hosts_playbook(inventory: &Path, vars: &[String], check: bool) -> (bool, String) {
    let mut c = Command::new(tool("ansible-playbook"));
    c.arg("-i")
        .arg(inventory)
        .arg("ansible/hosts.yml")
        .args(if check {
            &["--check", "--diff"][..]
        } else {
            &[]
        })
        .current_dir(root())
        .env("ANSIBLE_NOCOLOR", "1");
    for v in vars {
        c.arg("-e").arg(v);
    }
    if let Some(p) = common::find_tool("python").or_else(|| common::find_tool("python3")) {
        c.arg("-e")
            .arg(format!("ansible_python_interpreter={}", p.display()));
    }
    let out = c.output().expect("run ansible-playbook");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `ansible/hosts.yml` installs each server's files where docs/hosts.md says (two servers of the
/// mixed example, each under a root of its own): its netplan file (mode 0600), the NIC script (0755)
/// and the unit that runs it, enabled (its `multi-user.target.wants/` link, with applying off: the
/// image boots with the QoS set), ordered before kubelet and slurmd and after the rail netdevs but not
/// network-online.target; nccl.env as a marked block at the top of /etc/nccl.conf that keeps the file's
/// other lines but drops an older line setting one of its variables (NCCL keeps a variable's first
/// value). The rendered servers left out of the play are listed. A second run changes nothing; a host
/// that is not a server of the fabric, and a root with applying on, are refused before anything is
/// written.
#[cfg(unix)]
#[test]
fn hosts_playbook_installs_each_servers_files() {
    use std::os::unix::fs::PermissionsExt as _;
    if skip() {
        return;
    }
    let out = render("intents/mixed-sonic-nxos.yaml", "hosts");
    let roots = common::Scratch::new("ansible-hosts-roots");
    let servers = ["gpu001", "gpu017"];
    let inventory = servers_inventory(&roots, "servers", &servers);
    std::fs::create_dir_all(roots.join("gpu001/etc")).expect("mkdir");
    // An older NCCL_IB_TC above: NCCL would keep it and ignore aifab's.
    std::fs::write(
        roots.join("gpu001/etc/nccl.conf"),
        "NCCL_IB_TC=96\nNCCL_DEBUG=WARN\n",
    )
    .expect("write");
    let vars = vec![
        format!("aifab_out={}", out.display()),
        "aifab_apply=false".to_string(),
        "aifab_become=false".to_string(),
    ];
    let (ok, text) = hosts_playbook(&inventory, &vars, false);
    assert!(ok, "{text}");
    // The rendered servers the play leaves out are listed (a warning: partial rollouts are normal).
    let warning = text
        .lines()
        .find(|l| l.contains("WARNING: ") && l.contains("not in this play"))
        .unwrap_or_else(|| panic!("no warning about the servers left out:\n{text}"));
    assert!(
        warning.contains("gpu002, gpu003")
            && !warning.contains("gpu001")
            && !warning.contains("gpu017,"),
        "{warning}"
    );
    let hosts = out.join("hosts");
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    for s in servers {
        let r = roots.join(s);
        let netplan = r.join("etc/netplan/60-aifab-rails.yaml");
        assert_eq!(
            read(&netplan),
            read(&hosts.join(format!("netplan/{s}.yaml"))),
            "{s}"
        );
        assert_eq!(mode(&netplan), 0o600, "{s}");
        let script = r.join("usr/local/sbin/aifab-nic-qos");
        assert_eq!(read(&script), read(&hosts.join("nic-qos.sh")), "{s}");
        assert_eq!(mode(&script), 0o755, "{s}");
        let unit = read(&r.join("etc/systemd/system/aifab-nic-qos.service"));
        assert!(
            unit.contains("ExecStart=/usr/local/sbin/aifab-nic-qos\n"),
            "{unit}"
        );
        assert!(
            unit.contains("\nBefore=kubelet.service slurmd.service\n"),
            "{unit}"
        );
        // After the rail netdevs (their device units) and network.target; not network-online.target,
        // which a rail without carrier would hold back for the wait-online timeout.
        let devices: Vec<String> = netplan_nics(&read(&netplan))
            .iter()
            .map(|n| format!("sys-subsystem-net-devices-{n}.device"))
            .collect();
        assert!(!devices.is_empty(), "{s}: no NIC in its netplan file");
        assert!(
            unit.contains(&format!("\nWants={}\n", devices.join(" "))),
            "{unit}"
        );
        assert!(
            unit.contains(&format!("\nAfter=network.target {}\n", devices.join(" "))),
            "{unit}"
        );
        assert!(
            unit.lines()
                .all(|l| l.starts_with('#') || !l.contains("network-online")),
            "{unit}"
        );
        assert!(unit.contains("\nWantedBy=multi-user.target\n"), "{unit}");
        // Enabled, as `systemctl enable` would: the image starts it at boot.
        let wants = r.join("etc/systemd/system/multi-user.target.wants/aifab-nic-qos.service");
        assert_eq!(
            std::fs::read_link(&wants).unwrap_or_else(|e| panic!("{}: {e}", wants.display())),
            Path::new("/etc/systemd/system/aifab-nic-qos.service"),
            "{s}"
        );
        let conf = read(&r.join("etc/nccl.conf"));
        assert!(
            conf.starts_with("# BEGIN aifab (hosts/nccl.env)\n"),
            "{s}: the block is not first:\n{conf}"
        );
        let block: Vec<&str> = conf
            .lines()
            .skip_while(|l| *l != "# BEGIN aifab (hosts/nccl.env)")
            .skip(1)
            .take_while(|l| *l != "# END aifab (hosts/nccl.env)")
            .collect();
        let env = read(&hosts.join("nccl.env"));
        assert_eq!(block, env.lines().collect::<Vec<_>>(), "{s}: {conf}");
        assert!(
            conf.contains("\n# END aifab (hosts/nccl.env)\n"),
            "{s}: {conf}"
        );
        // NCCL keeps each variable's first line (setenv without overwrite): only aifab's sets it.
        for var in nccl_vars(&env) {
            let set: Vec<&str> = conf
                .lines()
                .filter(|l| l.split_once('=').is_some_and(|(k, _)| k == var))
                .collect();
            let ours: Vec<&str> = env
                .lines()
                .filter(|l| l.split_once('=').is_some_and(|(k, _)| k == var))
                .collect();
            assert_eq!(set, ours, "{s}: {var} in\n{conf}");
        }
        assert!(
            !r.join("etc/sysctl.d/90-aifab-arp.conf").exists(),
            "{s}: no ARP file was rendered"
        );
    }
    let conf = read(&roots.join("gpu001/etc/nccl.conf"));
    assert!(
        conf.ends_with("# END aifab (hosts/nccl.env)\nNCCL_DEBUG=WARN\n") && !conf.contains("=96"),
        "the file's own line is kept, its older NCCL_IB_TC is not:\n{conf}"
    );

    let (ok, again) = hosts_playbook(&inventory, &vars, false);
    assert!(ok, "{again}");
    let recap: Vec<&str> = again.lines().filter(|l| l.contains(" : ok=")).collect();
    assert_eq!(recap.len(), servers.len(), "{again}");
    assert!(
        recap.iter().all(|l| l.contains("changed=0")),
        "second run changed something:\n{again}"
    );

    // An inventory of FQDNs names each server's intent name in `aifab_server`.
    let fqdn = roots.join("fqdn.yml");
    std::fs::write(
        &fqdn,
        format!(
            "aifab_servers:\n  hosts:\n    gpu003.example.net: {{ ansible_connection: local, aifab_server: gpu003, aifab_root: \"{}\" }}\n",
            roots.join("gpu003").display()
        ),
    )
    .expect("write inventory");
    let (ok, text) = hosts_playbook(&fqdn, &vars, false);
    assert!(ok, "{text}");
    assert_eq!(
        read(&roots.join("gpu003/etc/netplan/60-aifab-rails.yaml")),
        read(&hosts.join("netplan/gpu003.yaml"))
    );

    let stranger = servers_inventory(&roots, "stranger", &["gpu999"]);
    let (ok, text) = hosts_playbook(&stranger, &vars, false);
    assert!(
        !ok && text.contains("hosts/netplan/gpu999.yaml there"),
        "{text}"
    );
    assert!(!roots.join("gpu999").exists(), "a refused host got files");
    let mut applying = vars.clone();
    applying[1] = "aifab_apply=true".to_string();
    let (ok, text) = hosts_playbook(&inventory, &applying, false);
    assert!(
        !ok && text.contains("aifab_apply=false when aifab_root is set"),
        "{text}"
    );

    // A preview with applying on, of a server that has nothing yet: the four files show as changes,
    // nothing is written and no apply step runs.
    let fresh = servers_inventory(&roots, "fresh", &["gpu002"]);
    make_server_folders(&roots.join("gpu002"));
    let (ok, text) = hosts_playbook(&fresh, &applying, true);
    assert!(ok, "{text}");
    let recap = text
        .lines()
        .find(|l| l.starts_with("gpu002") && l.contains(" : ok="))
        .unwrap_or_else(|| panic!("no recap:\n{text}"));
    // The four files and the unit's wants/ link.
    assert!(
        recap.contains("changed=5") && recap.contains("failed=0"),
        "{text}"
    );
    // The netplan and unit handlers are notified (their files change) and each is skipped.
    let handlers: Vec<&str> = text.split("RUNNING HANDLER [").skip(1).collect();
    assert!(handlers.len() >= 2, "no apply step was notified:\n{text}");
    for h in &handlers {
        let outcome = h.lines().skip(1).find(|l| l.contains("[gpu002]"));
        assert!(
            outcome.is_some_and(|l| l.starts_with("skipping:")),
            "an apply step ran in check mode:\n{h}"
        );
    }
    assert_eq!(
        common::paths_under(&roots.join("gpu002")),
        Vec::<PathBuf>::new()
    );
}

/// Two hosts of the play that name one server (the same `aifab_server`) would get the same addresses:
/// the play as a whole is refused before any host gets a file.
#[test]
fn hosts_playbook_refuses_two_hosts_for_one_server() {
    if skip() {
        return;
    }
    let out = render("intents/mixed-sonic-nxos.yaml", "hosts-dup");
    let roots = common::Scratch::new("ansible-hosts-dup-roots");
    let inventory = roots.join("dup.yml");
    let host = |name: &str, server: &str| {
        format!(
            "    {name}: {{ ansible_connection: local, aifab_server: {server}, aifab_root: \"{}\" }}\n",
            roots.join(name).display()
        )
    };
    std::fs::write(
        &inventory,
        format!(
            "aifab_servers:\n  hosts:\n{}{}{}",
            host("a.example.net", "gpu001"),
            host("gpu002", "gpu002"),
            host("b.example.net", "gpu001")
        ),
    )
    .expect("write inventory");
    let vars = vec![
        format!("aifab_out={}", out.display()),
        "aifab_apply=false".to_string(),
        "aifab_become=false".to_string(),
    ];
    let (ok, text) = hosts_playbook(&inventory, &vars, false);
    assert!(
        !ok && text.contains("a.example.net, b.example.net are all gpu001"),
        "{text}"
    );
    for h in ["a.example.net", "b.example.net", "gpu002"] {
        assert!(!roots.join(h).exists(), "{h} got files:\n{text}");
    }
}

/// hosts/sysctl-arp.conf is installed as /etc/sysctl.d/90-aifab-arp.conf and removed once the render
/// no longer has it. Applying, the ARP settings come first, then netplan, then the NIC QoS (handlers
/// run in the order they are defined: the preview lists each one it skips), and the ARP step reapplies
/// that file alone (`sysctl --system` would fail on another file's bad key).
#[cfg(unix)]
#[test]
fn hosts_playbook_applies_the_arp_settings_first_and_removes_them() {
    if skip() {
        return;
    }
    let out = render("intents/mixed-sonic-nxos.yaml", "hosts-arp");
    // The mixed example's servers share no subnet: give the render the file an intent with rack
    // leaves in rail-subnet mode would have (tests/it/hosts.rs checks when aifab writes it).
    let arp_src = out.join("hosts/sysctl-arp.conf");
    let arp_text = "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.conf.all.arp_announce = 2\n";
    std::fs::write(&arp_src, arp_text).expect("write");
    let roots = common::Scratch::new("ansible-hosts-arp-roots");
    let inventory = servers_inventory(&roots, "servers", &["gpu001"]);
    let vars = vec![
        format!("aifab_out={}", out.display()),
        "aifab_apply=false".to_string(),
        "aifab_become=false".to_string(),
    ];
    let installed = roots.join("gpu001/etc/sysctl.d/90-aifab-arp.conf");
    let (ok, text) = hosts_playbook(&inventory, &vars, false);
    assert!(ok, "{text}");
    assert_eq!(
        std::fs::read_to_string(&installed).expect("installed"),
        arp_text
    );

    // A preview with applying on, of a server that has nothing yet: every handler is notified.
    let fresh = servers_inventory(&roots, "fresh", &["gpu002"]);
    make_server_folders(&roots.join("gpu002"));
    let mut applying = vars.clone();
    applying[1] = "aifab_apply=true".to_string();
    let (ok, text) = hosts_playbook(&fresh, &applying, true);
    assert!(ok, "{text}");
    let handlers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("RUNNING HANDLER ["))
        .filter_map(|l| l.split_once(']').map(|(name, _)| name))
        .collect();
    assert_eq!(
        handlers,
        [
            "Apply the ARP settings",
            "Netplan apply",
            "Restart the NIC QoS unit"
        ],
        "{text}"
    );

    // The step reapplies the file the play installs, and only that one.
    let playbook: Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join("ansible/hosts.yml")).expect("read playbook"),
    )
    .expect("playbook YAML");
    let play = playbook
        .as_array()
        .expect("plays")
        .iter()
        .find(|p| p["handlers"].is_array())
        .expect("a play with handlers");
    let copy = play["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["notify"] == "Apply the ARP settings")
        .expect("the task that installs the ARP file");
    let dest = copy["ansible.builtin.copy"]["dest"]
        .as_str()
        .expect("dest")
        .strip_prefix("{{ aifab_prefix }}")
        .expect("dest under aifab_prefix");
    let handler = play["handlers"]
        .as_array()
        .expect("handlers")
        .iter()
        .find(|h| h["name"] == "Apply the ARP settings")
        .expect("the ARP handler");
    assert_eq!(
        handler["ansible.builtin.command"].as_str(),
        Some(format!("sysctl -p {dest}").as_str())
    );

    // The render no longer has the file: the installed one goes, and nothing else changes.
    std::fs::remove_file(&arp_src).expect("remove");
    let (ok, text) = hosts_playbook(&inventory, &vars, false);
    assert!(ok, "{text}");
    assert!(!installed.exists(), "{text}");
    let recap = text
        .lines()
        .find(|l| l.starts_with("gpu001") && l.contains(" : ok="))
        .unwrap_or_else(|| panic!("no recap:\n{text}"));
    assert!(recap.contains("changed=1 "), "{text}");
}

/// On a live server (no aifab_root) that applies, the play first makes sure `netplan` and `mlnx_qos`
/// are there, and fails naming the missing ones, even in --check. Runs only where one of them is
/// missing from PATH (on a server that has both, the preview would go on to read this machine's /etc).
#[test]
fn hosts_playbook_needs_netplan_and_mlnx_qos_to_apply() {
    if skip() {
        return;
    }
    let on_path = |t: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    };
    let missing: Vec<&str> = ["netplan", "mlnx_qos"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    if missing.is_empty() {
        eprintln!(
            "skipped the live preflight check: netplan and mlnx_qos are both on this machine's PATH"
        );
        return;
    }
    let out = render("intents/mixed-sonic-nxos.yaml", "hosts-live");
    let dir = common::Scratch::new("ansible-hosts-live-roots");
    let inventory = dir.join("live.yml");
    std::fs::write(
        &inventory,
        "aifab_servers:\n  hosts:\n    gpu003: { ansible_connection: local }\n",
    )
    .expect("write inventory");
    let vars = vec![
        format!("aifab_out={}", out.display()),
        "aifab_become=false".to_string(),
    ];
    let (ok, text) = hosts_playbook(&inventory, &vars, true);
    assert!(
        !ok && text.contains(&format!("gpu003: {} not found", missing.join(" and "))),
        "{text}"
    );
    assert!(
        !text.contains("TASK [Netplan rails"),
        "the play went on past the preflight:\n{text}"
    );
}

/// Every task of the playbooks and task files, through blocks, rescues and always sections, with the
/// file it is in and whether it sits in an `always:` section (and the enclosing block's tasks).
fn all_tasks() -> Vec<(String, serde_norway::Value, bool)> {
    fn walk(
        file: &str,
        tasks: &serde_norway::Value,
        in_always: bool,
        out: &mut Vec<(String, serde_norway::Value, bool)>,
    ) {
        for t in tasks.as_sequence().into_iter().flatten() {
            for (key, always) in [
                ("block", false),
                ("rescue", false),
                ("always", true),
                ("tasks", false),
            ] {
                if let Some(inner) = t.get(key) {
                    walk(file, inner, in_always || always, out);
                }
            }
            out.push((file.to_string(), t.clone(), in_always));
        }
    }
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("ansible/tasks"))
        .expect("ansible/tasks")
        .flatten()
        .map(|e| e.path())
        .collect();
    for p in ["deploy.yml", "rollout.yml", "running.yml", "hosts.yml"] {
        files.push(root().join("ansible").join(p));
    }
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read playbook");
        let doc: serde_norway::Value = serde_norway::from_str(&text).expect("YAML");
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        walk(&name, &doc, false, &mut out);
    }
    out
}

/// The task's module name (the first key that is not a task keyword).
fn module(t: &serde_norway::Value) -> String {
    const KEYWORDS: &[&str] = &[
        "name",
        "when",
        "vars",
        "register",
        "no_log",
        "tags",
        "delegate_to",
        "check_mode",
        "diff",
        "changed_when",
        "failed_when",
        "ignore_errors",
        "block",
        "rescue",
        "always",
        "run_once",
        "loop",
        "notify",
        "become",
        "hosts",
        "gather_facts",
        "serial",
        "tasks",
        "vars_files",
        "any_errors_fatal",
        "environment",
        "until",
        "retries",
        "delay",
        "loop_control",
        "listen",
        "handlers",
    ];
    t.as_mapping()
        .into_iter()
        .flat_map(|m| m.keys())
        .filter_map(|k| k.as_str())
        .find(|k| !KEYWORDS.contains(k))
        .unwrap_or("")
        .to_string()
}

/// Every Ansible task that sees a filled file (vault secrets in it) or a running-config is `no_log:
/// true`: the config modules (eos_config, nxos_config, nxos_file_copy), any task whose arguments name
/// the filled copy (`aifab_push_src`, `aifab_filled`, the fill templates) except the removals, and
/// every `show running-config`. No Ansible needed: the playbooks are read as YAML.
#[test]
fn every_task_that_sees_a_filled_file_has_no_log() {
    let mut seen_config_modules = 0;
    let mut problems = Vec::new();
    for (file, t, _) in all_tasks() {
        let m = module(&t);
        let args = serde_norway::to_string(t.get(m.as_str()).unwrap_or(&serde_norway::Value::Null))
            .unwrap_or_default();
        let removal = m.ends_with(".file") && args.contains("state: absent");
        let config_module = [
            "arista.eos.eos_config",
            "cisco.nxos.nxos_config",
            "cisco.nxos.nxos_file_copy",
        ]
        .contains(&m.as_str());
        seen_config_modules += usize::from(config_module);
        let shows_running = t
            .get(m.as_str())
            .and_then(|a| a.get("commands"))
            .and_then(|c| c.as_sequence())
            .is_some_and(|c| c.iter().any(|x| x.as_str() == Some("show running-config")));
        let sees = config_module
            || shows_running
            || (!removal
                && [
                    "aifab_push_src",
                    "aifab_filled",
                    "fill-secrets.j2",
                    "fill-patch.j2",
                ]
                .iter()
                .any(|w| args.contains(w)));
        let no_log = t.get("no_log").and_then(serde_norway::Value::as_bool) == Some(true);
        if sees && !no_log {
            let name = t.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            problems.push(format!("{file}: `{name}` ({m}) has no `no_log: true`"));
        }
    }
    assert!(
        seen_config_modules >= 5,
        "the walk found {seen_config_modules} config-module tasks"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The timers on the task level: `configure replace` and every EOS session command run under
/// `ansible_command_timeout` = aifab_command_timeout, whose default (600 s) is longer than the NX-OS
/// commit timeout (300 s) and than network_cli's 30 s; the replace carries the commit timeout, the EOS
/// session the commit timer; and the NX-OS replace file leaves bootflash in an `always:` section, as
/// the filled private copy leaves the control node and the SONiC load file the switch.
#[test]
fn replace_timers_and_cleanup_are_on_the_tasks() {
    let vars: serde_norway::Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join("ansible/vars/push.yml")).expect("vars"),
    )
    .expect("YAML");
    let timeout = vars["aifab_command_timeout"]
        .as_u64()
        .expect("aifab_command_timeout");
    assert!(
        timeout > 300,
        "{timeout}: not above the 300 s commit timeout"
    );
    let tasks = all_tasks();
    let args_of = |t: &serde_norway::Value| {
        serde_norway::to_string(
            t.get(module(t).as_str())
                .unwrap_or(&serde_norway::Value::Null),
        )
        .unwrap_or_default()
    };
    let timed = |t: &serde_norway::Value| {
        t.get("vars")
            .and_then(|v| v.get("ansible_command_timeout"))
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.contains("aifab_command_timeout"))
    };
    let replace = tasks
        .iter()
        .find(|(_, t, _)| {
            args_of(t).contains("configure replace bootflash:")
                && args_of(t).contains("commit-timeout")
        })
        .expect("the configure replace task");
    let verify = tasks
        .iter()
        .find(|(_, t, _)| args_of(t).contains("verify-only"))
        .expect("check mode's configure replace verify-only");
    assert!(
        timed(&verify.1),
        "verify-only runs under the default 30 s timeout"
    );
    assert!(
        args_of(&replace.1)
            .contains("commit-timeout {{ aifab_commit_timeout | default(300) | int }}")
    );
    assert!(
        timed(&replace.1),
        "configure replace runs under the default 30 s timeout"
    );
    for (file, t, _) in &tasks {
        let a = args_of(t);
        if file == "push-eos.yml"
            && (a.contains("aifab_eos_session")
                || a.contains("commit\n")
                || module(t) == "arista.eos.eos_config")
        {
            assert!(
                timed(t),
                "{file}: {:?} runs under the default timeout",
                t.get("name")
            );
        }
    }
    let cleanups = [
        (
            "push-nxos.yml",
            "delete bootflash:{{ aifab_replace_file }} no-prompt",
        ),
        ("push-nxos.yml", "{{ aifab_filled.path }}"),
        ("push-eos.yml", "{{ aifab_filled.path }}"),
        ("push-sonic.yml", "{{ aifab_load_file }}"),
        ("push-sonic.yml", "{{ aifab_filled.path }}"),
        ("push-sonic.yml", "path: /etc/sonic/aifab-patch.json"),
    ];
    for (file, what) in cleanups {
        let found = tasks
            .iter()
            .filter(|(f, t, _)| {
                f == file && args_of(t).contains(what) && args_of(t).contains("absent")
                    || f == file && module(t).ends_with("nxos_command") && args_of(t).contains(what)
            })
            .collect::<Vec<_>>();
        assert!(!found.is_empty(), "{file}: no task with {what}");
        assert!(
            found.iter().all(|(_, _, always)| *always),
            "{file}: {what} not in an always: section"
        );
    }
}

/// Access is proven before every commit (tasks/access-proof.yml): in the task order of each push, the
/// connection is reset and a new login runs a read-only command after the change is loaded (NX-OS
/// `configure replace ... commit-timeout`, EOS `commit timer`, SONiC `config reload`) and before it
/// is kept (`configure replace commit`, `configure session ... commit`, `config save -y`); the NX-OS
/// replace is read for Cisco's success line; the include carries its own `when` (a block's would
/// reach `meta: reset_connection`, which takes none).
#[test]
fn access_is_proven_by_a_new_login_before_every_commit() {
    let proof: serde_norway::Value = serde_norway::from_str(
        &std::fs::read_to_string(root().join("ansible/tasks/access-proof.yml")).expect("proof"),
    )
    .expect("YAML");
    let steps: Vec<String> = proof
        .as_sequence()
        .expect("tasks")
        .iter()
        .map(module)
        .collect();
    assert_eq!(steps[0], "ansible.builtin.meta", "{steps:?}");
    assert!(proof[0]["ansible.builtin.meta"].as_str() == Some("reset_connection"));
    assert!(proof[0].get("when").is_none());
    for os in ["nxos", "eos", "sonic"] {
        let found = proof.as_sequence().expect("tasks").iter().any(|t| {
            t.get("when").and_then(|w| w.as_str()) == Some(&format!("aifab_os == '{os}'"))
                && serde_norway::to_string(t)
                    .unwrap_or_default()
                    .contains("show clock")
        });
        assert!(found, "{os}: no read-only command after the new login");
    }
    let tasks = all_tasks();
    let text = |t: &serde_norway::Value| serde_norway::to_string(t).unwrap_or_default();
    for (file, load, keep) in [
        (
            "push-nxos.yml",
            "commit-timeout",
            "configure replace commit",
        ),
        ("push-eos.yml", "aifab_eos_session", "commit\n"),
        (
            "push-sonic.yml",
            "cmd: config reload -y",
            "persist CONFIG_DB",
        ),
    ] {
        // all_tasks lists a block's tasks before the block itself: the leaves, in file order.
        let leaves: Vec<&serde_norway::Value> = tasks
            .iter()
            .filter(|(f, t, _)| f == file && t.get("block").is_none())
            .map(|(_, t, _)| t)
            .collect();
        let at = |pred: &dyn Fn(&serde_norway::Value) -> bool, what: &str| {
            leaves
                .iter()
                .position(|t| pred(t))
                .unwrap_or_else(|| panic!("{file}: no {what}"))
        };
        let loaded = at(&|t| text(t).contains(load), load);
        let proven = at(
            &|t| {
                module(t) == "ansible.builtin.include_tasks" && text(t).contains("access-proof.yml")
            },
            "access proof",
        );
        let kept = at(
            &|t| {
                module(t) != "ansible.builtin.debug"
                    && text(t).contains(keep)
                    && !text(t).contains("abort")
            },
            keep,
        );
        assert!(
            loaded < proven && proven < kept,
            "{file}: {loaded} {proven} {kept}"
        );
        assert!(
            leaves[proven].get("when").is_some(),
            "{file}: the include has no when"
        );
    }
    let took = tasks
        .iter()
        .find(|(_, t, _)| text(t).contains("the switch took the file"))
        .expect("the replace's answer");
    assert!(text(&took.1).contains("Configure replace completed successfully"));
}

/// The playbooks mask secrets (filter_plugins/aifab_access.py `aifab_mask`) as `aifab drift` does
/// (src/delivery/mask.rs): the same lines come out of both, run through ansible itself.
#[test]
fn playbook_masking_matches_aifab_drift() {
    if skip() {
        return;
    }
    let dir = common::Scratch::new("ansible-mask");
    let mut lines: Vec<String> = ["su1-r1-leaf.cfg", "spine01.cfg"]
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(root().join("tests/drift/running").join(f))
                .expect("fixture")
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    lines.push("tacacs-server host 192.0.2.11 key 0 Tst-aaa.key9".into());
    lines.push(
        "snmp-server user monitor AIFAB-RO v3 auth sha Tst-snmp.auth9 priv aes Tst-snmp.priv9"
            .into(),
    );
    let input = dir.join("lines.json");
    std::fs::write(&input, serde_json::to_string(&lines).expect("json")).expect("write");
    let out = dir.join("masked.json");
    let o = ansible_expr(
        &format!(
            "lookup('ansible.builtin.file', '{}') | from_json | aifab_mask | to_json",
            input.display()
        ),
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let masked: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("out")).expect("json");
    let want: Vec<String> = lines
        .iter()
        .map(|l| aifab::delivery::mask::mask(l).into_owned())
        .collect();
    assert_eq!(masked, want);
    assert!(!masked.iter().any(|l| l.contains("Tst-")), "{masked:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `aifab <args>` from the repository root; its exit code and signal, and its stderr.
fn aifab_run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Option<i32>, String) {
    let mut c = crate::common::aifab_command();
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("run aifab");
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&o.status);
    #[cfg(not(unix))]
    let signal = None;
    (
        o.status.code(),
        signal,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The push refuses an assembled folder that was not written from the rendered folder it pushes
/// (`ansible/tasks/assembled.yml`, `--tags access_check`, no switch): the fabric rendered again after
/// `aifab drift --write` (the ECN thresholds changed), a `drift --write` of the new render killed
/// mid-way (the folder stays the old render's, whole), a replace file edited by hand. The same folder
/// written again from the new render passes.
#[test]
fn a_push_refuses_an_assembled_folder_of_another_render() {
    if skip() {
        return;
    }
    let tmp = common::Scratch::new("ansible-assembled");
    let vault = test_vault(&tmp, "vault", EXAMPLE_VAULT);
    let intent = tmp.join("pod1-1024.yaml");
    let original = std::fs::read_to_string(root().join("intents/pod1-1024.yaml")).expect("intent");
    std::fs::write(&intent, &original).expect("intent");
    std::fs::copy(
        root().join("intents/pod1-1024.lock.yaml"),
        tmp.join("pod1-1024.lock.yaml"),
    )
    .expect("lock");
    let (out, asm) = (tmp.join("out"), tmp.join("assembled"));
    let s = |p: &Path| p.to_str().expect("utf-8").to_string();
    let (intent_s, out_s, asm_s) = (s(&intent), s(&out), s(&asm));
    let render = || {
        let (code, _, err) = aifab_run(&["render", &intent_s, "--out", &out_s, "-q"], &[]);
        assert_eq!(code, Some(0), "{err}");
    };
    let drift_args = [
        "drift",
        &intent_s,
        "-q",
        "--running",
        "tests/drift/running",
        "--only",
        "{su1-r1-leaf,spine01}",
        "--write",
        &asm_s,
    ];
    let push_check = || {
        let assembled = format!("aifab_assembled={asm_s}");
        let mut all = Vec::new();
        for host in ["su1-r1-leaf", "spine01"] {
            let limit = format!("--limit={host}");
            let (ok, text) = access_check_with(
                &out,
                &vault,
                &["ansible_user=netops", &assembled, "--check", &limit],
            );
            all.push((host, ok, text));
        }
        all
    };
    render();
    let (code, _, err) = aifab_run(&drift_args, &[]);
    assert_eq!(code, Some(1), "{err}");
    for (host, ok, text) in push_check() {
        assert!(
            ok,
            "{host}: a folder drift wrote from this render fails:\n{text}"
        );
        assert!(
            text.contains("the assembled files are the ones aifab drift wrote"),
            "{text}"
        );
    }
    // The fabric changes and is rendered again: the assembled folder is the old render's.
    let changed = original.replacen("min: 150KB, max: 1500KB", "min: 300KB, max: 1500KB", 1);
    assert_ne!(changed, original);
    std::fs::write(&intent, changed).expect("change");
    render();
    let refused = |why: &str| {
        for (host, ok, text) in push_check() {
            assert!(!ok, "{host}: {why}: pushed:\n{text}");
            assert!(
                text.contains(&format!(
                    "{host}: {asm_s}/{host}.cfg was assembled from another render than"
                )) && text.contains("run `aifab drift <intent> --running <folder> --write"),
                "{host}: {why}:\n{text}"
            );
        }
    };
    refused("rendered again");
    // A drift of the new render killed after its first file, and after its manifest.
    for point in ["drift-fill", "drift-staged"] {
        let (_, signal, err) = aifab_run(&drift_args, &[("AIFAB_TEST_KILL_AT", point)]);
        assert_eq!(signal, Some(9), "{point}: {err}");
        refused(point);
    }
    // Written again from the new render: pushed; a replace file changed by hand after: refused.
    let (code, _, err) = aifab_run(&drift_args, &[]);
    assert_eq!(code, Some(1), "{err}");
    for (host, ok, text) in push_check() {
        assert!(ok, "{host}:\n{text}");
    }
    let edited = asm.join("spine01.cfg");
    let text = std::fs::read_to_string(&edited).expect("replace file") + "ip routing\n";
    std::fs::write(&edited, text).expect("edit");
    let (ok, text) = access_check_with(
        &out,
        &vault,
        &[
            "ansible_user=netops",
            &format!("aifab_assembled={asm_s}"),
            "--limit=spine01",
        ],
    );
    assert!(!ok, "{text}");
    assert!(
        text.contains("spine01.cfg or spine01.base.cfg in"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&*tmp);
}
