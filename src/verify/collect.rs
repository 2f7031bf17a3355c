//! What `ansible/collect.yml` runs on each switch: the documents of [`super::read`] per OS, as the
//! Ansible vars file `ansible/vars/collect-documents.yml` (generated from the table, committed, and
//! checked fresh by `tests/it/verify_anta.rs`). The playbook loops over its OS's list, runs each
//! `command` and writes the output to `<aifab_state>/<host>/<file>`.
//!
//! Every command is written `!unsafe`: Ansible runs it exactly as the table has it, never as a
//! template (a `{{` in a command stays text). SONiC's commands run through `ansible.builtin.command`,
//! without a shell: arguments are split as a shell would quote them, and a pipe or a redirection would
//! be passed on as an argument ([`shell_free`] says which commands are safe to run that way).

use super::read::{self, Document};
use crate::kinds::Os;
use std::fmt::Write as _;

/// The vars file of the documents table aifab reads ([`read::documents`]), for every OS.
pub fn documents_vars() -> String {
    documents_vars_of(read::documents)
}

/// The vars file of a documents table: `aifab_collect_documents`, per OS (in [`Os::ALL`] order) the
/// list of `{file, command}` in the table's order, an empty list for an OS without documents. A
/// command with `{prefix}` gets `per_prefix: true`: the playbook runs it once per prefix of the
/// inventory's `aifab_route_samples` and writes the JSON list of the outputs. A command with `{key}`
/// gets `per_key:`, its key globs: the playbook runs it once per glob and writes one JSON object with
/// the members of every output.
pub fn documents_vars_of(table: impl Fn(Os) -> &'static [Document]) -> String {
    let mut out = String::from(
        "---\n\
         # The documents `aifab verify` reads from a state folder, per OS: ansible/collect.yml runs each\n\
         # command on every switch of that OS and writes its output to <aifab_state>/<host>/<file>.\n\
         # Generated from aifab's table (src/verify/read/): do not edit. After a change of the table,\n\
         # `AIFAB_BLESS=1 cargo test --test it verify_anta::` rewrites it.\n\
         # Commands are !unsafe: Ansible runs them as written, never as templates.\n\
         aifab_collect_documents:\n",
    );
    for os in Os::ALL {
        let docs = table(os);
        if docs.is_empty() {
            let _ = writeln!(out, "  {os}: []");
            continue;
        }
        let _ = writeln!(out, "  {os}:");
        for d in docs {
            let _ = writeln!(out, "    - file: {}", quoted(d.file));
            let _ = writeln!(out, "      command: !unsafe {}", quoted(d.command));
            if d.command.contains("{prefix}") {
                // Run once per prefix of the inventory's aifab_route_samples; the file holds the list.
                let _ = writeln!(out, "      per_prefix: true");
            }
            if d.command.contains("{key}") {
                // Run once per key glob; the file holds one object with every output's members.
                let _ = writeln!(out, "      per_key:");
                for k in d.keys {
                    let _ = writeln!(out, "        - !unsafe {}", quoted(k));
                }
            }
        }
    }
    out
}

/// Whether `file` is a plain file name the playbook may write under a host's folder: letters, digits,
/// `.`, `_` and `-`, not starting with a dot (no `/`, no `..`, no hidden file).
pub fn plain_file_name(file: &str) -> bool {
    !file.is_empty()
        && !file.starts_with('.')
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Whether `command` runs the same through `ansible.builtin.command` (no shell: Python's `shlex` splits
/// it) as in a shell: outside quotes no pipe, redirection, separator, grouping, substitution, glob,
/// tilde, comment, escape or newline; inside double quotes no `$`, backtick or `\`; quotes balanced.
/// Inside single quotes anything goes (`jq '.[] | .name'` is one argument either way).
pub fn shell_free(command: &str) -> bool {
    #[derive(PartialEq)]
    enum In {
        Plain,
        Single,
        Double,
    }
    let mut state = In::Plain;
    for c in command.chars() {
        state = match (state, c) {
            (In::Plain, '\'') => In::Single,
            (In::Plain, '"') => In::Double,
            (In::Single, '\'') | (In::Double, '"') => In::Plain,
            (In::Plain, c) if "|&;<>()$`\\*?[]{}~#\n\r".contains(c) => return false,
            (In::Double, '$' | '`' | '\\') => return false,
            (s, _) => s,
        };
    }
    state == In::Plain
}

/// A YAML double-quoted scalar of `s` (`"leaf1"`): `"`, `\` and control characters escaped, so
/// no name is read as a number, a boolean or null, and none breaks the line.
pub fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_has_a_plain_file_name_unique_in_its_os() {
        for os in Os::ALL {
            let docs = read::documents(os);
            for (k, d) in docs.iter().enumerate() {
                assert!(plain_file_name(d.file), "{os}: file {:?}", d.file);
                assert!(
                    docs[..k].iter().all(|e| e.file != d.file),
                    "{os}: {} twice",
                    d.file
                );
                assert!(!d.command.trim().is_empty(), "{os} {}: no command", d.file);
            }
        }
    }

    #[test]
    fn key_globs_go_with_a_key_command_and_keep_it_shell_free() {
        for os in Os::ALL {
            for d in read::documents(os) {
                let per_key = d.command.contains("{key}");
                assert_eq!(
                    per_key,
                    !d.keys.is_empty(),
                    "{os} {}: {{key}} without globs or globs without {{key}}",
                    d.file
                );
                for k in d.keys {
                    let one = d.command.replace("{key}", k);
                    assert!(
                        shell_free(&one) || os != Os::Sonic,
                        "{os} {}: `{one}`",
                        d.file
                    );
                    assert!(!k.contains('\''), "{os} {}: a quote in {k}", d.file);
                }
            }
        }
        let vars = documents_vars();
        assert!(
            vars.contains("      per_key:\n        - !unsafe \"DEVICE_METADATA|localhost\"\n"),
            "{vars}"
        );
        assert!(
            !vars.contains("sonic-db-dump -n CONFIG_DB -y"),
            "the whole CONFIG_DB is never collected"
        );
    }

    #[test]
    fn sonic_commands_need_no_shell() {
        for d in read::documents(Os::Sonic) {
            assert!(
                shell_free(d.command),
                "{}: `{}` needs a shell, but collect.yml runs SONiC commands without one",
                d.file,
                d.command
            );
        }
    }

    #[test]
    fn names_and_commands_are_told_apart() {
        assert!(plain_file_name("lldp.json"));
        for bad in ["", ".hidden", "../x", "a/b", "a b"] {
            assert!(!plain_file_name(bad), "{bad:?}");
        }
        assert!(shell_free("docker exec lldp lldpctl -f json"));
        assert!(shell_free("vtysh -c 'show ip bgp summary json'"));
        assert!(shell_free("sonic-db-dump -n APPL_DB -k 'PORT_TABLE:*' -y"));
        assert!(shell_free("vtysh -c \"show bgp summary json\""));
        for bad in [
            "a | b",
            "a > f",
            "a; b",
            "echo $HOME",
            "a\nb",
            "ls *",
            "echo \"$HOME\"",
            "echo 'open",
        ] {
            assert!(!shell_free(bad), "{bad:?}");
        }
    }

    #[test]
    fn quoting_keeps_yaml_scalars_whole() {
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted("x\ty"), "\"x\\u0009y\"");
    }
}
