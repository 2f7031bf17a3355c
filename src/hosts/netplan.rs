//! The server's NIC ports as a netplan file: each port's (netdev's) address and MTU, a routing table
//! per port holding the port's own subnet and the whole server pool through the port's leaf, and a
//! rule that sends traffic from the port's address to that table: RDMA from a port leaves through its
//! own leaf, whatever the main table says. The same on rail leaves, rack leaves (one leaf, every NIC
//! its own port on it) and two-port NICs (two netdevs, two tables, no bond: Alibaba HPN's two routed
//! ports).

use super::Server;
use crate::model::hosts::HostsPlan;
use crate::render::Meta;
use std::fmt::Write as _;

/// The routing table of port `port` of rail `rail`'s NIC (both 1-based): rail 1 port 1 first, the
/// ports of one NIC next to each other.
pub fn table(plan: &HostsPlan, rail: u32, port: u32) -> u32 {
    let ports = plan.nic_ports.max(1);
    plan.route_table + rail.saturating_sub(1) * ports + port.saturating_sub(1).min(ports - 1)
}

/// The netplan YAML of one server (`/etc/netplan/60-aifab-rails.yaml`). NIC names are checked Linux
/// interface names, and quoted as well.
pub fn file(meta: &Meta, plan: &HostsPlan, s: &Server) -> String {
    let mut o = String::with_capacity(400 * s.nics.len() + 200);
    let _ = writeln!(
        o,
        "{}",
        super::header(meta, &format!("rail NICs of {}", s.name))
    );
    let _ = writeln!(
        o,
        "# install as /etc/netplan/60-aifab-rails.yaml, then `netplan apply`"
    );
    let _ = writeln!(o, "network:");
    let _ = writeln!(o, "  version: 2");
    let _ = writeln!(o, "  ethernets:");
    for n in &s.nics {
        let t = table(plan, n.rail, n.port);
        let port = if plan.nic_ports > 1 {
            format!(" port {}", n.port)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "    \"{}\": # rail {}{port} to {}",
            n.name, n.rail, n.leaf.hostname
        );
        let _ = writeln!(o, "      addresses: [\"{}/{}\"]", n.ip, n.prefix_len);
        let _ = writeln!(o, "      mtu: {}", plan.mtu);
        let _ = writeln!(o, "      routes:");
        let _ = writeln!(o, "        - to: \"{}/{}\"", n.network, n.prefix_len);
        let _ = writeln!(o, "          scope: link");
        let _ = writeln!(o, "          table: {t}");
        let _ = writeln!(o, "        - to: \"{}\"", plan.server_pool);
        let _ = writeln!(o, "          via: \"{}\"", n.gateway);
        let _ = writeln!(o, "          on-link: true");
        let _ = writeln!(o, "          table: {t}");
        let _ = writeln!(o, "      routing-policy:");
        let _ = writeln!(o, "        - from: \"{}\"", n.ip);
        let _ = writeln!(o, "          table: {t}");
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
            route_table: 100,
            nic_ports,
            server_pool: "10.0.0.0/16".into(),
            mtu: 9100,
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
