//! `hosts/sysctl-arp.conf`: the ARP settings a server needs when several of its NIC ports sit in one
//! subnet (rail-subnet mode on rack leaves, or both ports of a NIC on one leaf).
//!
//! Linux answers ARP by default for any local address on any netdev, so a leaf may learn one port's MAC
//! for another port's address and send that port's traffic to the wrong port. `arp_ignore = 1` answers
//! only on the netdev that holds the asked address; `arp_announce = 2` sources ARP requests from the
//! outgoing netdev's own address. The kernel uses the larger of `all` and the interface's value for
//! both, so the `all` lines cover every port. Source: the kernel's ip-sysctl documentation
//! (<https://docs.kernel.org/networking/ip-sysctl.html>).

use crate::hosts::Server;
use crate::output::Meta;

/// Where the file goes under the output folder.
pub const PATH: &str = "hosts/sysctl-arp.conf";

/// True when one of `servers` has two NIC ports in one subnet.
pub fn needed(servers: &[Server]) -> bool {
    servers.iter().any(|s| {
        s.nics.iter().enumerate().any(|(i, a)| {
            s.nics[i + 1..]
                .iter()
                .any(|b| (a.network, a.prefix_len) == (b.network, b.prefix_len))
        })
    })
}

/// The file: a sysctl.d drop-in for every server.
pub fn file(meta: &Meta) -> String {
    format!(
        "{}\n\
         # Install as /etc/sysctl.d/90-aifab-arp.conf on every server and apply it with\n\
         # `sysctl -p /etc/sysctl.d/90-aifab-arp.conf` (before `netplan apply`):\n\
         # several NIC ports share a subnet, so each must answer ARP for its own address only.\n\
         net.ipv4.conf.all.arp_ignore = 1\n\
         net.ipv4.conf.all.arp_announce = 2\n",
        super::header(meta, "ARP settings for NIC ports that share a subnet")
    )
}
