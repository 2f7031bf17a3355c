//! The server's NIC ports as a netplan file: each port's (netdev's) address and MTU, a routing table
//! per port holding the port's own subnet and the server addresses the port's leaf reaches through the
//! port's leaf (the whole server pool, or on two planes its own plane's: [`crate::hosts::routes`]), and a
//! rule that sends traffic from the port's address to that table: RDMA from a port leaves through its
//! own leaf, whatever the main table says. The same on rail leaves, rack leaves (one leaf, every NIC
//! its own port on it) and two-port NICs (two netdevs, two tables, no bond: Alibaba HPN's two routed
//! ports).
//!
//! With Kubernetes, a routed port's /31 has one server address, and its SpiderIPPool hands that address to
//! the pod that takes the port (docs/hosts.md): the netplan file then gives the port only its MTU (a VF or
//! macvlan cannot exceed its parent's), so the host never holds the pod's address.

use super::line;
use crate::hosts::Server;
use crate::hosts::routes::Destinations;
use crate::model::hosts::HostsPlan;
use crate::output::Meta;
use crate::spell;

/// The routing table of port `port` of rail `rail`'s NIC (both 1-based): rail 1 port 1 first, the
/// ports of one NIC next to each other.
pub fn table(plan: &HostsPlan, rail: u32, port: u32) -> u32 {
    let ports = plan.nic_ports.max(1);
    plan.route_table + rail.saturating_sub(1) * ports + port.saturating_sub(1).min(ports - 1)
}

/// Whether NIC port `n`'s address belongs to a Kubernetes pod rather than the host: a routed port (its
/// leaf gives no subnet, so the /31 has one server address) when the intent writes Spiderpool pools.
pub fn pod_takes_address(plan: &HostsPlan, n: &crate::hosts::Nic) -> bool {
    plan.kubernetes.is_some() && n.leaf.server_subnet.is_none()
}

/// The netplan YAML of one server (`/etc/netplan/60-aifab-rails.yaml`). NIC names are checked Linux
/// interface names, and quoted as well.
pub fn file(meta: &Meta, plan: &HostsPlan, dest: &Destinations, s: &Server) -> String {
    let mut o = String::with_capacity(420 * s.nics.len() + 240);
    o.push_str(&super::header(meta, &format!("rail NICs of {}", s.name)));
    o.push_str(
        "\n# install as /etc/netplan/60-aifab-rails.yaml, then `netplan apply`\n\
         network:\n  version: 2\n  ethernets:\n",
    );
    // Spelled once per server, pushed once per port (12,500 files of eight ports at 100K GPUs).
    let mtu = plan.mtu.to_string();
    for n in &s.nics {
        o.push_str("    \"");
        o.push_str(n.name);
        o.push_str("\": # rail ");
        spell::push_decimal(&mut o, n.rail.into());
        if plan.nic_ports > 1 {
            o.push_str(" port ");
            spell::push_decimal(&mut o, n.port.into());
        }
        line(&mut o, &[" to ", &n.leaf.hostname]);
        if pod_takes_address(plan, n) {
            o.push_str("      # the pod that takes this port takes its address (hosts/kubernetes/spiderpool.yaml)\n");
            line(&mut o, &["      mtu: ", &mtu]);
            continue;
        }
        let mut t = String::with_capacity(4);
        spell::push_decimal(&mut t, table(plan, n.rail, n.port).into());
        let subnet = n.subnet();
        let address = spell::prefix(n.ip, n.prefix_len);
        let mut ip = String::with_capacity(15);
        spell::push_ipv4(&mut ip, n.ip);
        let mut via = String::with_capacity(15);
        spell::push_ipv4(&mut via, n.gateway);
        line(&mut o, &["      addresses: [\"", &address, "\"]"]);
        line(&mut o, &["      mtu: ", &mtu]);
        o.push_str("      routes:\n");
        line(&mut o, &["        - to: \"", &subnet, "\""]);
        o.push_str("          scope: link\n");
        line(&mut o, &["          table: ", &t]);
        for to in dest.of_plane(n.leaf.plane) {
            line(&mut o, &["        - to: \"", to, "\""]);
            line(&mut o, &["          via: \"", &via, "\""]);
            o.push_str("          on-link: true\n");
            line(&mut o, &["          table: ", &t]);
        }
        o.push_str("      routing-policy:\n");
        line(&mut o, &["        - from: \"", &ip, "\""]);
        line(&mut o, &["          table: ", &t]);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::table;
    use crate::kinds::NicModel;
    use crate::model::hosts::HostsPlan;

    fn plan(nic_ports: u32) -> HostsPlan {
        HostsPlan {
            nic: NicModel::Connectx,
            data_class: "roce".into(),
            cts_class: None,
            cnp_class: None,
            gid_index: 3,
            qps_per_connection: None,
            hca: Vec::new(),
            route_table: 100,
            nic_ports,
            leaf_planes: 1,
            server_pool: "10.0.0.0/16".into(),
            mtu: 9100,
            nic_speed_gbps: 400,
            kubernetes: None,
        }
    }

    #[test]
    fn one_table_per_nic_port() {
        assert_eq!([1, 2, 8].map(|r| table(&plan(1), r, 1)), [100, 101, 107]);
        let two = plan(2);
        let tables: Vec<u32> = (1..=2)
            .flat_map(|r| (1..=2).map(move |p| (r, p)))
            .map(|(r, p)| table(&two, r, p))
            .collect();
        assert_eq!(tables, [100, 101, 102, 103]);
    }
}
