//! The local SNMP engine ID a switch localizes its SNMPv3 keys with, from `show snmp engineID`
//! (fetched beside the running-config as `<host>.engineid` by ansible/running.yml):
//!
//! - NX-OS: `Local SNMP engineID: [Hex] 8000000903001B54C24100` and a `[Dec] 128:000:...` line
//!   (Cisco's NX-OS Software Hardening Guide, "SNMP Version 3");
//! - EOS: `Local SNMP EngineID: <hex>` (the same label; the hex may also stand alone on the line).
//!
//! The first line naming the engine ID gives it; a file holding only the hex digits is taken too.
//! NX-OS's `engineID 128:0:0:9:...` of a `snmp-server user` line (colon-separated decimal) is read by
//! [`decimal`].

use super::snmp_key::parse_hex;

/// The shortest engine ID RFC 3411 allows (5 octets).
const MIN_LEN: usize = 5;

/// The engine ID in `text`, or `None` when no line gives one.
pub fn parse(text: &str) -> Option<Vec<u8>> {
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        let rest = match lower.find("engineid") {
            Some(at) => match line[at..].split_once(':') {
                Some((_, r)) => r,
                None => continue,
            },
            None if line.trim().chars().all(|c| c.is_ascii_hexdigit()) => line,
            None => continue,
        };
        let found = rest
            .split_whitespace()
            .filter(|w| !w.starts_with('['))
            .find_map(parse_hex)
            .filter(|id| id.len() >= MIN_LEN);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// An engine ID written as colon-separated decimal octets (`128:0:0:9:3:12:159:0:0:27:1`).
pub fn decimal(text: &str) -> Option<Vec<u8>> {
    let id: Vec<u8> = text
        .split(':')
        .map(|d| d.parse::<u8>().ok())
        .collect::<Option<_>>()?;
    (id.len() >= MIN_LEN).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nxos_and_eos_forms() {
        let nxos = "Local SNMP engineID: [Hex] 8000000903001B54C24100\n                     [Dec] 128:000:000:009:003:000:027:084:194:065:000\n";
        let want = parse_hex("8000000903001B54C24100");
        assert_eq!(parse(nxos), want);
        assert_eq!(
            parse("Local SNMP EngineID: f5717f444ca8b1c700\n"),
            parse_hex("f5717f444ca8b1c700")
        );
        assert_eq!(parse("8000000903001B54C24100\n"), want);
        assert_eq!(parse("% Invalid command\n"), None);
        assert_eq!(
            parse("Local SNMP engineID: [Hex] 0102\n"),
            None,
            "too short"
        );
        assert_eq!(decimal("128:000:000:009:003:000:027:084:194:065:000"), want);
        assert_eq!(decimal("128:0:300"), None);
    }
}
