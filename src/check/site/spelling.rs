//! How an OS reads the first line of a site section: NX-OS and EOS take keywords in any case and
//! abbreviated to a unique prefix (`int`, `rou b`), and interface names in any case, abbreviated, with
//! or without a space before the number (`Eth1/1`, `ethernet 1/1`, `lo0`, `Ma1`). A site line is
//! checked against the owned patterns (vendors/<os>.yaml) in every reading it could have
//! ([`readings`]), so no spelling reopens a section aifab renders.
//!
//! The words read are those the patterns themselves spell: a first word of two characters or more
//! that begins the first word of an owned pattern is read as that word (each one it begins: a
//! prefix the CLI finds ambiguous is refused as well, which is safe); after `router`, a word that
//! begins a routing protocol an owned pattern names (`router b 65001`); after `interface`, each
//! comma-separated name whose letters begin an owned interface type (`Ethernet`, `loopback`,
//! `mgmt`, `Management`, `Vlan`, as the OS spells them in its patterns), joined to its number.

/// The shortest abbreviation of a first word that is read as an owned pattern's first word.
const ABBREVIATION_MIN: usize = 2;

/// The readings of `top` (a top-level site line, whitespace collapsed) against `patterns`: `top`
/// itself, then each spelling of it in the patterns' words.
pub(super) fn readings(top: &str, patterns: &[&str]) -> Vec<String> {
    let words: Vec<&str> = top.split(' ').collect();
    let mut out = vec![top.to_string()];
    let Some(first) = words.first().map(|w| w.to_ascii_lowercase()) else {
        return out;
    };
    let rest = &words[1..];
    let mut firsts: Vec<&str> = patterns
        .iter()
        .filter_map(|p| p.split(' ').next())
        .map(|w| w.trim_end_matches('*'))
        .filter(|f| *f == first || first.len() >= ABBREVIATION_MIN && f.starts_with(first.as_str()))
        .collect();
    firsts.sort_unstable();
    firsts.dedup();
    for f in firsts {
        match f {
            "interface" => out.extend(interfaces(&rest.join(" "), patterns)),
            "router" => out.extend(routers(rest, patterns)),
            _ => {}
        }
        out.push(join(f, rest));
        out.push(join(f, rest).to_ascii_lowercase());
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `first` and `rest` as one line.
fn join(first: &str, rest: &[&str]) -> String {
    std::iter::once(first)
        .chain(rest.iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `router <protocol> ...` for each protocol of an owned `router` pattern that `rest`'s first word
/// begins.
fn routers(rest: &[&str], patterns: &[&str]) -> Vec<String> {
    let Some(word) = rest.first().map(|w| w.to_ascii_lowercase()) else {
        return Vec::new();
    };
    patterns
        .iter()
        .filter_map(|p| p.strip_prefix("router "))
        .filter_map(|p| p.split(' ').next())
        .filter(|proto| proto.starts_with(word.as_str()))
        .map(|proto| join(&format!("router {proto}"), &rest[1..]))
        .collect()
}

/// The leading letters (and `-`) of an interface name.
fn letters(name: &str) -> &str {
    let end = name
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '-'))
        .unwrap_or(name.len());
    &name[..end]
}

/// `interface <Type><number>` for each comma-separated name of `names` and each owned interface
/// type its letters begin.
fn interfaces(names: &str, patterns: &[&str]) -> Vec<String> {
    let types: Vec<&str> = patterns
        .iter()
        .filter_map(|p| p.strip_prefix("interface "))
        .map(letters)
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    for name in names.split(',').map(str::trim) {
        let given = letters(name);
        if given.is_empty() {
            continue;
        }
        let tail = name[given.len()..].trim_start();
        let sep = if tail.is_empty() || tail.starts_with(|c: char| c.is_ascii_digit()) {
            ""
        } else {
            " "
        };
        let given = given.to_ascii_lowercase();
        for t in &types {
            if t.to_ascii_lowercase().starts_with(&given) {
                out.push(format!("interface {t}{sep}{tail}"));
            }
        }
        out.push(format!("interface {name}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::readings;
    use crate::platform::owned::matches;

    const NXOS: [&str; 7] = [
        "interface Ethernet*",
        "interface loopback*",
        "interface mgmt0",
        "interface breakout",
        "router bgp",
        "feature",
        "ip routing",
    ];
    const EOS: [&str; 4] = [
        "interface Ethernet*",
        "interface Loopback*",
        "interface Management*",
        "router bgp",
    ];

    fn owned(line: &str, patterns: &[&str]) -> bool {
        readings(line, patterns)
            .iter()
            .any(|r| patterns.iter().any(|p| matches(p, r)))
    }

    #[test]
    fn every_spelling_of_an_owned_section_is_read_as_it() {
        for line in [
            "int Eth1/1",
            "interface ethernet1/1",
            "interface Ethernet 1/1",
            "in e1/1",
            "interface loopback0",
            "int lo0",
            "interface Loopback 0",
            "interface mgmt 0",
            "int m0",
            "interface port-channel10, Ethernet1/2",
            "router bgp 65001",
            "rou b 65001",
            "Router BGP 65001",
            "feat ptp",
            "interface breakout module 1 port 1-4 map 100g-4x",
        ] {
            assert!(owned(line, &NXOS), "NX-OS {line:?}");
        }
        for line in ["int Et1", "interface ma1", "int Management 1", "int lo 0"] {
            assert!(owned(line, &EOS), "EOS {line:?}");
        }
        for line in [
            "interface port-channel10",
            "interface nve1",
            "ip route 0.0.0.0/0 192.0.2.1",
            "router ospf 1",
            "daemon TerminAttr",
            "i x",
        ] {
            assert!(!owned(line, &NXOS), "NX-OS {line:?}");
        }
        assert!(!owned("interface Port-Channel10", &EOS));
    }
}
