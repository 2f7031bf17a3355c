//! Site lines that filter the switch's own logins: an ACL attached to the VTY lines (NX-OS `line
//! vty` / `access-class NAME in`) or to the control plane (EOS `system control-plane` / `ip
//! access-group NAME in`) must admit the management network the playbooks log in from
//! (`fabric.management.subnet`, over SSH: `network_cli`). aifab decides it when the site lines
//! define the ACL (`ip access-list [standard] NAME` and its entries), reading the entries in order as
//! the switch does: the first entry that matches SSH logins (an IPv4 `ip` entry, a `tcp` entry whose
//! destination ports take 22, or a standard entry) from part of the management network decides; a
//! `deny` refuses, a `permit` admits when its source covers the whole network. No such entry refuses
//! (the implicit deny). An ACL the site lines do not define, a permit of part of the network, a
//! wildcard mask that is not a prefix, a source port condition or an intent without
//! `fabric.management` leaves it unproven.

use crate::platform::sections::collapse;
use ipnetwork::{IpNetwork, Ipv4Network};
use std::net::Ipv4Addr;

/// The port SSH logins go to.
const SSH: u16 = 22;

/// Entry conditions besides addresses and ports that aifab does not read.
const OTHER_CONDITIONS: [&str; 6] = ["ttl", "dscp", "fragments", "precedence", "tos", "ip-length"];

/// An ACL a site line attaches to the switch's own logins.
#[derive(Debug)]
pub(super) struct Attachment {
    /// The index of the site line that attaches it.
    pub line: usize,
    /// The ACL's name.
    pub acl: String,
    /// Where it is attached (`line vty`, `system control-plane`).
    pub place: String,
}

/// What an attached ACL does to the management network's logins.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// A permit entry covers the network before any entry denies part of it.
    Admits,
    /// Why it refuses some or all logins from the network.
    Refuses(String),
    /// Why aifab cannot tell.
    Unproven(String),
}

/// The ACL a child line of `parent` attaches to logins, if it attaches one.
fn attached<'a>(parent: &str, words: &[&'a str]) -> Option<&'a str> {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
    match (parent, &lower[..]) {
        ("line vty", ["access-class", _, "in"]) => Some(words[1]),
        ("line vty", ["ip", "access-class", _, "in"])
        | ("system control-plane", ["ip", "access-group", _, "in"])
        | ("system control-plane", ["ip", "access-group", _, "vrf", _, "in"]) => Some(words[2]),
        _ => None,
    }
}

/// The ACLs `lines` (a device's site lines) attach to its logins.
pub(super) fn attachments(lines: &[&str]) -> Vec<Attachment> {
    let mut out = Vec::new();
    let mut parent = String::new();
    for (i, line) in lines.iter().enumerate() {
        let text = collapse(line);
        if !line.starts_with(' ') {
            parent = text.to_ascii_lowercase();
            continue;
        }
        let words: Vec<&str> = text.split(' ').collect();
        if let Some(acl) = attached(&parent, &words) {
            out.push(Attachment {
                line: i,
                acl: acl.to_string(),
                place: parent.clone(),
            });
        }
    }
    out
}

/// The entries of the ACL `name` as `lines` define it (None when they do not).
fn entries(lines: &[&str], name: &str) -> Option<Vec<String>> {
    let mut found: Option<Vec<String>> = None;
    let mut inside = false;
    for line in lines {
        let text = collapse(line);
        if !line.starts_with(' ') {
            let w: Vec<&str> = text.split(' ').collect();
            inside = matches!(&w[..], ["ip", "access-list", n] | ["ip", "access-list", "standard", n] if *n == name);
            if inside {
                found.get_or_insert_with(Vec::new);
            }
            continue;
        }
        if inside && let Some(e) = found.as_mut() {
            e.push(text);
        }
    }
    found
}

/// An IPv4 source or destination: `any`, `host A`, `A/len` or `A WILDCARD`, and the words it took
/// (None for the network when it is no prefix).
fn address(w: &[&str]) -> (Option<Ipv4Network>, usize) {
    match w {
        ["any", ..] => (Ipv4Network::new(Ipv4Addr::UNSPECIFIED, 0).ok(), 1),
        ["host", a, ..] => (a.parse().ok().and_then(|a| Ipv4Network::new(a, 32).ok()), 2),
        [a, ..] if a.contains('/') => (a.parse().ok(), 1),
        [a, m, ..] => {
            let (Ok(a), Ok(m)) = (a.parse::<Ipv4Addr>(), m.parse::<Ipv4Addr>()) else {
                return (None, 1);
            };
            let wild = u32::from(m);
            let prefix = (wild.wrapping_add(1).is_power_of_two() || wild == u32::MAX)
                .then(|| 32 - wild.count_ones() as u8);
            (prefix.and_then(|p| Ipv4Network::new(a, p).ok()), 2)
        }
        _ => (None, 1),
    }
}

/// A port name or number.
fn port(w: &str) -> Option<u16> {
    match w {
        "ssh" => Some(SSH),
        "telnet" => Some(23),
        "www" | "http" => Some(80),
        "https" => Some(443),
        _ => w.parse().ok(),
    }
}

/// Whether the port condition at the start of `w` takes SSH (None: there is none), and the words it
/// took.
fn takes_ssh(w: &[&str]) -> (Option<bool>, usize) {
    let num = |i: usize| w.get(i).and_then(|p| port(p));
    match w.first().copied() {
        Some("eq") => {
            let n = w[1..].iter().take_while(|p| port(p).is_some()).count();
            let any = w[1..=n].iter().any(|p| port(p) == Some(SSH));
            (Some(any), 1 + n)
        }
        Some("neq") => (Some(num(1) != Some(SSH)), 2),
        Some("gt") => (Some(num(1).is_some_and(|p| SSH > p)), 2),
        Some("lt") => (Some(num(1).is_some_and(|p| SSH < p)), 2),
        Some("range") => (
            Some(num(1).is_some_and(|a| a <= SSH) && num(2).is_some_and(|b| SSH <= b)),
            3,
        ),
        _ => (None, 0),
    }
}

/// An entry that matches SSH logins: its action (true for permit) and source (None when aifab
/// cannot read it as a prefix), or `Err` with why aifab cannot read it; `Ok(None)` for an entry that
/// matches no SSH login (another protocol, a remark, other ports).
type Entry<'a> = Result<Option<(bool, Option<Ipv4Network>)>, Unreadable<'a>>;

/// Why aifab cannot tell whether an ACL entry (its text) matches an SSH login.
#[derive(Debug, thiserror::Error)]
enum Unreadable<'a> {
    /// It also matches on a condition aifab does not read.
    #[error("`{text}` also matches on `{condition}`")]
    Condition {
        /// The entry.
        text: &'a str,
        /// The condition.
        condition: &'a str,
    },
    /// It filters on the source port.
    #[error("`{text}` filters on the source port")]
    SourcePort {
        /// The entry.
        text: &'a str,
    },
}

/// One entry of an ACL (see [`Entry`]).
fn entry(text: &str) -> Entry<'_> {
    let mut w: Vec<&str> = text.split(' ').collect();
    if w.first()
        .is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit()))
    {
        w.remove(0);
    }
    let permit = match w.first().copied() {
        Some("permit") => true,
        Some("deny") => false,
        _ => return Ok(None),
    };
    let rest = &w[1..];
    // `tracked` (EOS) and `established` match only connections already open, never a new login.
    if rest.iter().any(|x| matches!(*x, "tracked" | "established")) {
        return Ok(None);
    }
    if let Some(c) = rest.iter().find(|x| OTHER_CONDITIONS.contains(x)) {
        return Err(Unreadable::Condition { text, condition: c });
    }
    let standard = rest.first().is_some_and(|s| {
        *s == "any"
            || *s == "host"
            || s.parse::<Ipv4Network>().is_ok()
            || s.parse::<Ipv4Addr>().is_ok()
    });
    if standard {
        return Ok(Some((permit, address(rest).0)));
    }
    let proto = rest.first().copied().unwrap_or_default();
    if !matches!(proto, "ip" | "tcp") {
        return Ok(None);
    }
    let (source, n) = address(&rest[1..]);
    let mut at = 1 + n;
    if proto == "tcp" {
        let (src_port, n) = takes_ssh(&rest[at..]);
        if src_port.is_some() {
            return Err(Unreadable::SourcePort { text });
        }
        at += n;
        let (_, n) = address(&rest[at..]);
        at += n;
        if takes_ssh(&rest[at..]).0 == Some(false) {
            return Ok(None);
        }
    }
    Ok(Some((permit, source)))
}

/// Whether `a` and `b` share an address.
fn overlap(a: &Ipv4Network, b: &Ipv4Network) -> bool {
    a.contains(b.network()) || b.contains(a.network())
}

/// What the ACL `name`, as `lines` define it, does to SSH logins from `management`.
pub(super) fn verdict(lines: &[&str], name: &str, management: Option<&IpNetwork>) -> Verdict {
    let Some(entries) = entries(lines, name) else {
        return Verdict::Unproven(format!(
            "the site lines do not define `ip access-list {name}`, so aifab cannot prove it admits the management network"
        ));
    };
    let net = match management {
        Some(IpNetwork::V4(n)) => *n,
        Some(IpNetwork::V6(_)) => return Verdict::Admits,
        None => {
            return Verdict::Unproven(
                "the intent has no `fabric.management`, so aifab does not know the network the playbooks log in from".into(),
            );
        }
    };
    for e in &entries {
        match entry(e) {
            Err(why) => return Verdict::Unproven(format!("{why}: aifab cannot read it")),
            Ok(None) => {}
            Ok(Some((_, None))) => {
                return Verdict::Unproven(format!(
                    "`{e}`: aifab cannot read its source as a prefix"
                ));
            }
            Ok(Some((permit, Some(src)))) if overlap(&src, &net) => {
                let covers = src.prefix() <= net.prefix() && src.contains(net.network());
                return match (permit, covers) {
                    (true, true) => Verdict::Admits,
                    (true, false) => Verdict::Unproven(format!(
                        "`{e}` admits only part of the management network {net}, and aifab does not add up the entries after it"
                    )),
                    (false, _) => Verdict::Refuses(format!(
                        "`{e}` denies SSH from the management network {net}"
                    )),
                };
            }
            Ok(Some(_)) => {}
        }
    }
    Verdict::Refuses(format!(
        "no entry of `{name}` permits SSH from the management network {net}: its implicit deny drops the playbooks' logins"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MGMT: &str = "198.51.100.0/24";

    fn judge(lines: &[&str]) -> Verdict {
        let net: IpNetwork = MGMT.parse().expect("net");
        let a = attachments(lines);
        assert_eq!(a.len(), 1, "{lines:?}");
        verdict(lines, &a[0].acl, Some(&net))
    }

    #[test]
    fn an_acl_admits_the_management_network_or_says_why_not() {
        let vty = ["line vty", "  access-class MGMT in"];
        let with = |entries: &[&str]| {
            let mut l: Vec<&str> = vec!["ip access-list MGMT"];
            l.extend_from_slice(entries);
            l.extend_from_slice(&vty);
            judge(&l)
        };
        assert_eq!(
            with(&["  10 permit tcp 198.51.100.0/24 any eq 22"]),
            Verdict::Admits
        );
        assert_eq!(with(&["  10 permit ip 198.51.0.0/16 any"]), Verdict::Admits);
        assert_eq!(with(&["  10 permit ip any any"]), Verdict::Admits);
        assert_eq!(
            with(&[
                "  20 permit ip any any tracked",
                "  80 permit tcp any any eq ssh telnet www snmp bgp https",
            ]),
            Verdict::Admits
        );
        assert!(matches!(
            with(&["  10 permit ip any any tracked"]),
            Verdict::Refuses(_)
        ));
        assert!(matches!(
            with(&["  10 permit tcp any any eq mlag ttl eq 255"]),
            Verdict::Unproven(_)
        ));
        assert_eq!(
            with(&[
                "  10 deny tcp any any eq telnet",
                "  20 permit tcp 198.51.100.0 0.0.0.255 any eq ssh"
            ]),
            Verdict::Admits
        );
        for refused in [
            &["  10 permit tcp 192.0.2.0/24 any eq 22"][..],
            &["  10 deny ip any any", "  20 permit ip 198.51.100.0/24 any"],
            &["  10 permit tcp 198.51.100.0/24 any eq 443"],
        ] {
            assert!(matches!(with(refused), Verdict::Refuses(_)), "{refused:?}");
        }
        let eos = [
            "ip access-list standard CP",
            "   10 permit 198.51.100.0/24",
            "system control-plane",
            "   ip access-group CP vrf MGMT in",
        ];
        assert_eq!(judge(&eos), Verdict::Admits);
        assert!(matches!(
            with(&["  10 permit tcp 198.51.100.0/25 any eq 22"]),
            Verdict::Unproven(_)
        ));
        let undefined = ["line vty", "  ip access-class ELSEWHERE in"];
        assert!(matches!(judge(&undefined), Verdict::Unproven(_)));
        assert!(matches!(
            verdict(&["ip access-list A", "  permit ip any any"], "A", None),
            Verdict::Unproven(_)
        ));
    }
}
