//! Line forms the switch may print otherwise than aifab renders them, where no public source shows
//! which: `aifab drift` reads both sides in one canonical form. `ip name-server A B ... [use-vrf V]`
//! (NX-OS takes several servers on one line; whether `show running-config` keeps them on one line is
//! unverified) is the same as one line per server: the two sides match when they name the same servers
//! with the same tail. (Order inside a section never matters: drift compares sets of line keys.)

use std::collections::BTreeSet;

/// The first words of a line that lists several values.
const LISTS: [&str; 1] = ["ip name-server"];

/// Words that end the list of values and start its tail.
const TAILS: [&str; 2] = ["use-vrf", "priority"];

/// `key` as one key per listed value (`ip name-server A B use-vrf M` -> `ip name-server A use-vrf M`,
/// `ip name-server B use-vrf M`); `None` for a line of no list.
fn atoms(key: &str) -> Option<(&'static str, Vec<String>)> {
    let head = LISTS.iter().find(|h| key.starts_with(&format!("{h} ")))?;
    let words: Vec<&str> = key[head.len()..].split_whitespace().collect();
    // EOS names the VRF before the servers (`ip name-server vrf MGMT A`).
    let (lead, rest) = match words.as_slice() {
        ["vrf", v, rest @ ..] => (format!(" vrf {v}"), rest),
        rest => (String::new(), rest),
    };
    let cut = rest
        .iter()
        .position(|w| TAILS.contains(w))
        .unwrap_or(rest.len());
    let tail: String = rest[cut..].iter().map(|w| format!(" {w}")).collect();
    let out = rest[..cut]
        .iter()
        .map(|v| format!("{head}{lead} {v}{tail}"))
        .collect();
    Some((head, out))
}

/// For each list line whose rendered keys and running keys (those the other side lacks) name the same
/// values, adds each side's keys to the other set, so neither counts as a change.
pub fn align(want: &mut BTreeSet<String>, have: &mut BTreeSet<String>) {
    for head in LISTS {
        let side = |a: &BTreeSet<String>, b: &BTreeSet<String>| {
            let keys: Vec<String> = a
                .difference(b)
                .filter(|k| atoms(k).is_some_and(|(h, _)| h == head))
                .cloned()
                .collect();
            let all: BTreeSet<String> = keys
                .iter()
                .filter_map(|k| atoms(k))
                .flat_map(|a| a.1)
                .collect();
            (keys, all)
        };
        let (mine, mine_atoms) = side(want, have);
        let (theirs, their_atoms) = side(have, want);
        if mine.is_empty() && theirs.is_empty() || mine_atoms != their_atoms {
            continue;
        }
        have.extend(mine);
        want.extend(theirs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_line_or_one_per_server() {
        let mut want = set(&[
            "hostname a",
            "ip name-server 192.0.2.53 198.51.100.53 use-vrf management",
        ]);
        let mut have = set(&[
            "hostname a",
            "ip name-server 192.0.2.53 use-vrf management",
            "ip name-server 198.51.100.53 use-vrf management",
        ]);
        align(&mut want, &mut have);
        assert_eq!(want, have);
        let mut want = set(&["ip name-server vrf MGMT 192.0.2.53 198.51.100.53"]);
        let mut have = set(&["ip name-server vrf MGMT 192.0.2.53"]);
        align(&mut want, &mut have);
        assert_ne!(want, have, "a server missing on the switch is a change");
        let mut want = set(&["ip name-server 192.0.2.53 use-vrf management"]);
        let mut have = set(&["ip name-server 192.0.2.53 use-vrf other"]);
        align(&mut want, &mut have);
        assert_ne!(want, have);
    }
}
