//! Device baseline rules (`AIF-BASE-001` to `-003`, `-005` to `-008`): local passwords are sha512-crypt
//! hashes, banner lines cannot inject config, a local admin remains when AAA does not answer, the access
//! Ansible pushes over stays on, an intent without a baseline is named (a full replace removes every
//! user), a secret's placeholder stands only where a secret field puts it, and no server or user is
//! listed twice.

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::intent::baseline::{Baseline, UserRole};
use crate::platform::{Catalog, Os};
use crate::rules::Rule;

/// The longest banner line aifab renders.
const BANNER_LINE_MAX: usize = 200;

/// Runs the baseline rules.
pub(super) fn rules(intent: &Intent, out: &mut Vec<Finding>) {
    placeholders(intent, out);
    let Some(b) = &intent.baseline else {
        return;
    };
    passwords(b, out);
    banner(b, out);
    local_admin(b, out);
    duplicates(b, out);
}

/// AIF-BASE-008: each NTP, syslog, DNS and AAA server and each local and SNMP user once. A server or user
/// is a keyed row in SONiC's config_db (the second would overwrite the first: `config_db.json` with a
/// duplicate key), and a second line of the same server on NX-OS and EOS overwrites the first's options.
/// Found by the fuzzer (tests/fuzz_regressions/ntp-server-twice.yaml).
fn duplicates(b: &Baseline, out: &mut Vec<Finding>) {
    let lists: [(&str, &str, Vec<String>); 6] = [
        (
            "users",
            "user",
            b.users.iter().map(|u| u.name.clone()).collect(),
        ),
        (
            "ntp",
            "NTP server",
            b.ntp.iter().map(|n| n.address.to_string()).collect(),
        ),
        (
            "syslog",
            "syslog server",
            b.syslog.iter().map(ToString::to_string).collect(),
        ),
        (
            "aaa/servers",
            "AAA server",
            b.aaa
                .iter()
                .flat_map(|a| &a.servers)
                .map(|s| s.address.to_string())
                .collect(),
        ),
        (
            "snmp/users",
            "SNMP user",
            b.snmp
                .iter()
                .flat_map(|s| &s.users)
                .map(|u| u.name.clone())
                .collect(),
        ),
        (
            "dns/servers",
            "DNS server",
            b.dns
                .iter()
                .flat_map(|d| &d.servers)
                .map(ToString::to_string)
                .collect(),
        ),
    ];
    for (pointer, what, names) in lists {
        for (i, name) in names.iter().enumerate() {
            if let Some(first) = names[..i].iter().position(|n| n == name) {
                out.push(
                    Finding::new(
                        Rule::BaselineDuplicate,
                        format!(
                            "{what} {name} is listed twice (entries {} and {})",
                            first + 1,
                            i + 1
                        ),
                    )
                    .at(format!("/baseline/{pointer}/{i}"))
                    .hint("remove the second entry, or merge its options into the first"),
                );
            }
        }
    }
}

/// AIF-BASE-006: an intent without a baseline (on a whole intent only: a file with schema errors
/// elsewhere gets no warning about what it lacks).
pub(super) fn presence(intent: &Intent, out: &mut Vec<Finding>) {
    if intent.baseline.is_none() {
        out.push(
            Finding::new(
                Rule::NoBaseline,
                "the intent has no `baseline`: its configs name no user, AAA server or SSH/API access, and a full-replace push (NX-OS configure replace, EOS replace: config, SONiC config reload) removes every user the switch has",
            )
            .at("/fabric")
            .hint("add a `baseline` with at least one `admin` user (sha512-crypt hash) and `ssh: true` (docs/push.md); the playbooks' access check refuses to push a config without the login user"),
        );
    }
}

/// AIF-BASE-001: every password is a sha512-crypt hash. The message never repeats the value: it may
/// be a real password typed in the wrong field.
fn passwords(b: &Baseline, out: &mut Vec<Finding>) {
    for (i, u) in b.users.iter().enumerate() {
        if let Err(why) = sha512_crypt_shape(&u.password_hash) {
            out.push(
                Finding::new(
                    Rule::PasswordNotHashed,
                    format!("user `{}`: `password_hash` {why}", u.name),
                )
                .at(format!("/baseline/users/{i}/password_hash"))
                .hint("give the sha512-crypt hash, not the password: `mkpasswd -m sha-512` (Debian package whois) or `openssl passwd -6` prints it; a hash is `$6$<salt>$<86 characters>`"),
            );
        }
    }
}

/// Whether `h` has the shape of a sha512-crypt hash: `$6$`, an optional `rounds=N$`, a salt of 1-16
/// characters of `./0-9A-Za-z`, `$`, then 86 of them. The error says what is wrong, without `h`.
pub fn sha512_crypt_shape(h: &str) -> Result<(), &'static str> {
    let crypt = |s: &str| {
        s.bytes()
            .all(|c| c == b'.' || c == b'/' || c.is_ascii_alphanumeric())
    };
    let Some(rest) = h.strip_prefix("$6$") else {
        return Err(
            "is not a sha512-crypt hash (it does not start with `$6$`; clear text is refused)",
        );
    };
    let rest = match rest.strip_prefix("rounds=") {
        Some(r) => {
            let (n, after) = r
                .split_once('$')
                .ok_or("has `rounds=` without a `$` after it")?;
            match n.parse::<u32>() {
                Ok(1000..=999_999_999) => after,
                _ => return Err("has a `rounds=` count outside 1000-999999999"),
            }
        }
        None => rest,
    };
    let (salt, hash) = rest
        .split_once('$')
        .ok_or("has no `$` between the salt and the hash")?;
    if salt.is_empty() || salt.len() > 16 || !crypt(salt) {
        return Err("has a salt that is not 1-16 characters of `./0-9A-Za-z`");
    }
    if hash.len() != 86 || !crypt(hash) {
        return Err("has a hash part that is not 86 characters of `./0-9A-Za-z`");
    }
    Ok(())
}

/// AIF-BASE-002: each banner line is printable ASCII without the NX-OS delimiter `#`, the command
/// separator `;`, braces (Jinja in older ansible-core) or a line `EOF` (which ends an EOS banner).
fn banner(b: &Baseline, out: &mut Vec<Finding>) {
    for (i, line) in b.banner.iter().enumerate() {
        if let Some(why) = banner_line_problem(line) {
            out.push(
                Finding::new(Rule::BannerLineUnsafe, format!("banner line {}: {why}", i + 1))
                    .at(format!("/baseline/banner/{i}"))
                    .hint("one list item per line, printable ASCII only, without `#`, `;`, `{` or `}`, and no line reading `EOF`"),
            );
        }
    }
}

/// What makes a banner line unsafe, if anything.
pub fn banner_line_problem(line: &str) -> Option<String> {
    if let Some(c) = line.chars().find(|c| !(' '..='~').contains(c)) {
        return Some(if c == '\n' || c == '\r' {
            "contains a line break (give each line as its own list item)".into()
        } else {
            format!("contains {c:?}, which is not printable ASCII")
        });
    }
    if let Some(c) = line.chars().find(|c| "#;{}".contains(*c)) {
        return Some(format!(
            "contains `{c}`, which could end the banner or start a command"
        ));
    }
    if line.trim().eq_ignore_ascii_case("EOF") {
        return Some("reads `EOF`, which ends a banner on EOS".into());
    }
    (line.len() > BANNER_LINE_MAX).then(|| format!("is longer than {BANNER_LINE_MAX} characters"))
}

/// AIF-BASE-007: no string of the intent holds a secret's placeholder (`AIFAB_ENV(...)`,
/// `AIFAB_SECRET(...)`, in any letter case). Only a secret field (`{env: NAME}`, `{vault: name}`) puts one
/// in a config, where the key goes; one typed into a banner, a description or a name would be filled
/// with the secret by `render --out` or the playbook, and shown where the secret does not belong (a
/// banner before login). The message never repeats the string.
fn placeholders(intent: &Intent, out: &mut Vec<Finding>) {
    let Ok(value) = serde_json::to_value(intent) else {
        return;
    };
    let mut found = Vec::new();
    strings_with_token(&value, String::new(), &mut found);
    for pointer in found {
        out.push(
            Finding::new(
                Rule::PlaceholderOutsideSecret,
                "holds a secret's placeholder (`AIFAB_ENV(...)` or `AIFAB_SECRET(...)`) outside a secret field: it would be filled with the secret wherever this text is printed",
            )
            .at(pointer)
            .hint("name a secret only in a secret field, as `{ env: NAME }` or `{ vault: name }` (AAA and SNMP keys); write this text without the placeholder"),
        );
    }
}

/// The JSON pointers of every string under `v` that holds a placeholder.
fn strings_with_token(v: &serde_json::Value, at: String, found: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let upper = s.to_ascii_uppercase();
            let tokens = [
                crate::model::baseline::ENV_TOKEN,
                crate::model::baseline::VAULT_TOKEN,
            ];
            if tokens.iter().any(|t| upper.contains(t)) {
                found.push(at);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings_with_token(x, format!("{at}/{i}"), found);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let key = k.replace('~', "~0").replace('/', "~1");
                strings_with_token(x, format!("{at}/{key}"), found);
            }
        }
        _ => {}
    }
}

/// AIF-BASE-003: at least one local admin.
fn local_admin(b: &Baseline, out: &mut Vec<Finding>) {
    if !b.users.iter().any(|u| u.role == UserRole::Admin) {
        out.push(
            Finding::new(Rule::NoLocalAdmin, "the baseline has no local user with role `admin`")
                .at("/baseline/users")
                .hint("add one `admin` user with a sha512-crypt `password_hash`: AAA falls back to it, and a full-replace push (EOS, SONiC) must not remove every way in"),
        );
    }
}

/// The transport an OS's inventory connection rides on, read from its Ansible `ansible_connection`
/// (`vendors/<os>.yaml`, or a site's platform file): SSH for `network_cli` and `ssh`, the HTTPS API for
/// `httpapi`; `None` for anything else (a local or console connection needs neither).
fn transport(connection: &str) -> Option<Transport> {
    let name = connection.rsplit('.').next().unwrap_or(connection);
    match name {
        "network_cli" | "ssh" | "paramiko_ssh" | "libssh" => Some(Transport::Ssh),
        "httpapi" => Some(Transport::Api),
        _ => None,
    }
}

/// What an inventory connection needs on the switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    /// The SSH server (`baseline.ssh`).
    Ssh,
    /// The HTTPS API (`baseline.api`: EOS eAPI, NX-OS NX-API).
    Api,
}

/// AIF-BASE-005: the baseline keeps on the access Ansible connects over: `ssh: false` is refused when an
/// OS of the fabric is pushed over SSH, `api: false` when over httpapi. The finding names the devices.
pub(super) fn transport_rules(
    intent: &Intent,
    catalog: &Catalog,
    uses: &Uses,
    out: &mut Vec<Finding>,
) {
    let Some(b) = &intent.baseline else {
        return;
    };
    let mut seen: Vec<Os> = Vec::new();
    for u in uses {
        if seen.contains(&u.os) {
            continue;
        }
        seen.push(u.os);
        let Some(conn) = catalog
            .ansible
            .get(&u.os)
            .and_then(|a| a.get("ansible_connection"))
        else {
            continue;
        };
        let (field, on) = match transport(conn) {
            Some(Transport::Ssh) => ("ssh", b.ssh),
            Some(Transport::Api) => ("api", b.api),
            None => continue,
        };
        if on {
            continue;
        }
        let hosts: Vec<&str> = uses
            .iter()
            .filter(|v| v.os == u.os)
            .flat_map(|v| v.devices.iter().map(|d| d.hostname.as_str()))
            .collect();
        let shown = hosts.iter().take(3).copied().collect::<Vec<_>>().join(", ");
        let more = hosts.len().saturating_sub(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push(
            Finding::new(
                Rule::TransportOff,
                format!(
                    "`{field}: false`, but Ansible pushes the {} devices ({shown}{more}) over `{conn}`: the pushed config would turn off the access the push itself runs over, and the next run could not log in",
                    u.os
                ),
            )
            .at(format!("/baseline/{field}"))
            .hint(format!("set `{field}: true` (or remove the line), or give these devices an inventory connection that does not need it in a site platform file (docs/extending.md)")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_shapes() {
        let h86 = "a".repeat(86);
        assert!(sha512_crypt_shape(&format!("$6$salt$${h86}")).is_err());
        assert!(sha512_crypt_shape(&format!("$6$salt${h86}")).is_ok());
        assert!(sha512_crypt_shape(&format!("$6$rounds=5000$salt${h86}")).is_ok());
        for bad in [
            "hunter2",
            "$1$abc$def",
            "$6$$x",
            "$6$salt$short",
            "$6$rounds=5$s$x",
        ] {
            assert!(sha512_crypt_shape(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn transports() {
        assert_eq!(
            transport("ansible.netcommon.network_cli"),
            Some(Transport::Ssh)
        );
        assert_eq!(transport("ssh"), Some(Transport::Ssh));
        assert_eq!(transport("ansible.netcommon.httpapi"), Some(Transport::Api));
        assert_eq!(transport("local"), None);
    }

    #[test]
    fn banner_lines() {
        assert_eq!(banner_line_problem("Authorized use only."), None);
        for bad in [
            "a\nb",
            "x # y",
            "end; reload",
            "EOF",
            " eof ",
            "{{ x }}",
            "tab\there",
        ] {
            assert!(banner_line_problem(bad).is_some(), "{bad:?}");
        }
    }
}
