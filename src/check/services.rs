//! Out-of-band services (`AIF-ADDR-008`): the NTP, syslog, DNS and AAA servers the baseline names are
//! reached through the management VRF, so none may be an address of the fabric's own pools (a leaf's
//! loopback, a fabric /31, a server link). Such an address answers in the default VRF, if at all, and
//! the switch's management VRF has no route to it: time, logs, names and logins would silently stop.

use super::management::{POOLS, pool};
use crate::diag::Finding;
use crate::intent::Intent;
use crate::rules::Rule;
use std::net::IpAddr;

/// AIF-ADDR-008 on every server of the baseline.
pub(super) fn rules(intent: &Intent, out: &mut Vec<Finding>) {
    let Some(b) = &intent.baseline else {
        return;
    };
    let mut servers: Vec<(String, &str, IpAddr)> = Vec::new();
    for (i, n) in b.ntp.iter().enumerate() {
        servers.push((
            format!("/baseline/ntp/{i}/address"),
            "NTP server",
            n.address,
        ));
    }
    for (i, s) in b.syslog.iter().enumerate() {
        servers.push((format!("/baseline/syslog/{i}"), "syslog server", *s));
    }
    for (i, s) in b.dns.iter().flat_map(|d| d.servers.iter().enumerate()) {
        servers.push((format!("/baseline/dns/servers/{i}"), "DNS server", *s));
    }
    for (i, s) in b.aaa.iter().flat_map(|a| a.servers.iter().enumerate()) {
        servers.push((
            format!("/baseline/aaa/servers/{i}/address"),
            "AAA server",
            s.address,
        ));
    }
    for (at, what, ip) in servers {
        for p in POOLS.into_iter().filter(|p| pool(intent, *p).contains(ip)) {
            out.push(
                Finding::new(
                    Rule::ServiceInPools,
                    format!(
                        "{what} {ip} is inside pool `{p}` ({}): the switches reach it through the management VRF, which has no route into the fabric's own addresses",
                        pool(intent, p)
                    ),
                )
                .at(at.clone())
                .hint("give the server's out-of-band address, in the management network or beyond its gateway"),
            );
        }
    }
}
