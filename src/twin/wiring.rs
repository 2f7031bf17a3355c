//! The lab's cables: a veth pair per fabric link of the planned fabric, each end named as the FRR
//! config names the port (`swp<port>`), with a fixed MAC; the faults' crossings and downs applied
//! ([`super::faults`]). What each port's lldpd should hear follows from it.

use super::faults::Planted;
use super::lldp::{Heard, Identities};
use crate::check::paths::{Fabric, LinkId, Node};
use crate::model::{FabricModel, Name};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;

/// One end of a veth pair: a switch's port.
#[derive(Clone, Debug)]
pub struct End {
    /// The switch.
    pub node: Node,
    /// The port's OS name in the model (`Ethernet1/5`).
    pub port: Name,
    /// Its Linux name in the lab (`swp5`).
    pub ifname: String,
    /// Its MAC address.
    pub mac: String,
    /// Its address on its planned link.
    pub ip: Ipv4Addr,
}

/// One veth pair.
#[derive(Clone, Debug)]
pub struct Wire {
    /// Its two ends.
    pub ends: [End; 2],
    /// Its ends are not those of one planned cable (`--swap`).
    pub crossed: bool,
    /// Left down at both ends (`--down`).
    pub down: bool,
}

/// Every veth pair of the lab.
#[derive(Clone, Debug)]
pub struct Wiring {
    /// In planned link order, crossed pairs where their first cable was.
    pub wires: Vec<Wire>,
}

/// The MAC of end `end` (0 or 1) of the `l`-th planned link: locally administered, unique in the lab.
pub fn mac(l: LinkId, end: usize) -> String {
    let b = l.to_be_bytes();
    format!("02:af:{:02x}:{:02x}:{:02x}:{end:02x}", b[1], b[2], b[3])
}

/// Why the lab's cables could not be laid: a cable end names a port its switch does not use.
#[derive(Debug, thiserror::Error)]
pub enum WiringError {
    /// The switch has no such port in use.
    #[error("{device}: no port {port}")]
    NoPort {
        /// The switch's hostname.
        device: String,
        /// The port.
        port: Name,
    },
}

impl Wiring {
    /// The cables of `fabric` (the planned fabric of `model`) with `planted`'s faults: a swap joins
    /// each named port to the other cable's far end.
    pub fn new(
        model: &FabricModel,
        fabric: &Fabric,
        planted: &Planted,
    ) -> Result<Wiring, WiringError> {
        let mut wires = Vec::with_capacity(fabric.links.len());
        for (l, k) in fabric.links.iter().enumerate() {
            let end =
                |node: Node, port: &Name, ip: Ipv4Addr, side: usize| -> Result<End, WiringError> {
                    let d = &model.devices[node as usize];
                    let i = d
                        .interfaces
                        .iter()
                        .find(|i| i.name == *port)
                        .ok_or_else(|| WiringError::NoPort {
                            device: d.hostname.clone(),
                            port: port.clone(),
                        })?;
                    Ok(End {
                        node,
                        port: port.clone(),
                        ifname: crate::os::frr::port_name(i.port),
                        mac: mac(l as LinkId, side),
                        ip,
                    })
                };
            wires.push(Wire {
                ends: [
                    end(k.a, &k.a_port, k.a_ip, 0)?,
                    end(k.b, &k.b_port, k.b_ip, 1)?,
                ],
                crossed: false,
                down: false,
            });
        }
        for &[(x, sx), (y, sy)] in &planted.swaps {
            let far_x = wires[x as usize].ends[1 - sx].clone();
            let far_y = std::mem::replace(&mut wires[y as usize].ends[1 - sy], far_x);
            wires[x as usize].ends[1 - sx] = far_y;
            wires[x as usize].crossed = true;
            wires[y as usize].crossed = true;
        }
        for &l in &planted.downs {
            wires[l as usize].down = true;
        }
        Ok(Wiring { wires })
    }

    /// The uncrossed wire with an end at `node`'s port `port`.
    pub fn planned(&self, node: Node, port: &str) -> Option<&Wire> {
        self.wires
            .iter()
            .filter(|w| !w.crossed)
            .find(|w| w.ends.iter().any(|e| e.node == node && *e.port == *port))
    }

    /// `ip -batch` lines: the veth pairs (in the root namespace, `ns` naming each switch's namespace)
    /// and, per switch, its ends brought up with a permanent neighbor entry for the far end (a
    /// crossed pair gets none: on a miscabled switch ARP finds no one; a down pair stays down).
    pub fn ip_lines(&self, ns: &[String]) -> (String, Vec<String>) {
        let mut links = String::new();
        let mut per_ns = vec![String::new(); ns.len()];
        for w in &self.wires {
            let [a, b] = &w.ends;
            links.push_str(&format!(
                "link add {} netns {} address {} type veth peer name {} netns {} address {}\n",
                a.ifname, ns[a.node as usize], a.mac, b.ifname, ns[b.node as usize], b.mac
            ));
            if w.down {
                continue;
            }
            for (near, far) in [(a, b), (b, a)] {
                let lines = &mut per_ns[near.node as usize];
                lines.push_str(&format!("link set {} up\n", near.ifname));
                if !w.crossed {
                    lines.push_str(&pin(near, far));
                }
            }
        }
        (links, per_ns)
    }

    /// What each switch's lldpd should hear: on each end of a wire that is up, the far end's
    /// hostname and port ID.
    pub fn heard(&self, names: &[Name], ids: &Identities) -> Vec<BTreeSet<Heard>> {
        let mut out = vec![BTreeSet::new(); names.len()];
        for w in self.wires.iter().filter(|w| !w.down) {
            let [a, b] = &w.ends;
            for (near, far) in [(a, b), (b, a)] {
                let port_id = ids[far.node as usize]
                    .get(&*far.port)
                    .map(|p| p.id.clone())
                    .unwrap_or_default();
                out[near.node as usize].insert(Heard {
                    ifname: near.ifname.clone(),
                    system: names[far.node as usize].to_string(),
                    port_id,
                });
            }
        }
        out
    }

    /// The Linux names of `node`'s ends, with their model names (without the ends left down unless
    /// `down`).
    pub fn ports_of(&self, node: Node, down: bool) -> Vec<(String, &str)> {
        self.wires
            .iter()
            .filter(|w| down || !w.down)
            .flat_map(|w| w.ends.iter())
            .filter(|e| e.node == node)
            .map(|e| (e.ifname.clone(), &*e.port))
            .collect()
    }
}

/// The `ip -batch` line that pins `far`'s address to its MAC on `near`'s port: the kernel's ARP table
/// is one for every namespace and holds 1,024 learned entries by default (gc_thresh3), which a lab of
/// more than 512 links would outgrow; permanent entries do not count.
pub fn pin(near: &End, far: &End) -> String {
    format!(
        "neigh replace {} lladdr {} dev {} nud permanent\n",
        far.ip, far.mac, near.ifname
    )
}
