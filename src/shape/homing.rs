//! Homing: how server NIC ports reach the leaves. From the intent's `nic_ports`, `homing` and
//! `leaf.attachment` it gives how many leaves a group has, how many server ports each takes, which leaf
//! and port every NIC port lands on, and the leaf planes (`AIF-FAB-007`, `-008`).
//!
//! Within a group, leaves are ordered by rail (rail leaves; rack leaves have none), then side (the NIC
//! port the leaf takes, when a NIC's two ports land on two leaves). On a leaf, server ports are ordered
//! by server slot, then rail (rack leaves), then NIC port (`same-leaf`): a server's ports sit together.
//! With one single-port NIC per rail leaf this is the rail-optimized layout of before.

use super::pattern;
use crate::diag::Finding;
use crate::intent::{Attachment, Homing, Topology};
use crate::rules::Rule;

/// Where NIC ports land, resolved from the intent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Homes {
    /// Ports per NIC (1 or 2).
    pub nic_ports: u32,
    /// Where a two-port NIC's ports go (`None`: one port).
    pub homing: Option<Homing>,
    /// Rail or rack leaves.
    pub attachment: Attachment,
    /// NICs per server.
    pub rails: u32,
    /// Servers per group (rack).
    pub servers_per_group: u32,
}

/// One NIC port: which server slot, rail and port (all 0-based) it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NicPort {
    /// Server slot in the group.
    pub slot: u32,
    /// Rail (NIC).
    pub rail: u32,
    /// Port of the NIC.
    pub port: u32,
}

impl Homes {
    /// The homing of a topology, or why it is impossible (`AIF-FAB-007`).
    pub fn of(t: &Topology) -> Result<Homes, Vec<Finding>> {
        let problem = match (t.nic_ports, t.homing) {
            (1, Some(h)) => Some((
                format!(
                    "`homing: {}` needs two-port NICs; `nic_ports` is 1",
                    name(h)
                ),
                "/fabric/topology/homing",
                "remove `homing`, or set `nic_ports: 2`",
            )),
            (2, None) => Some((
                "two-port NICs need `homing`: where does each port go?".to_string(),
                "/fabric/topology/nic_ports",
                "add `homing: two-planes` (HPN dual-plane), `two-leaves` or `same-leaf` under fabric.topology",
            )),
            _ => None,
        };
        let mut errs = Vec::new();
        if let Some((message, at, hint)) = problem {
            errs.push(
                Finding::new(Rule::HomingNicPorts, message)
                    .at(at)
                    .hint(hint),
            );
        }
        if t.nic_ports == 2 && !pattern::missing(&t.server_nic, &["port"]).is_empty() {
            errs.push(
                Finding::new(
                    Rule::NicPortNames,
                    format!(
                        "two-port NICs need a name per port; `{}` gives both ports one name",
                        t.server_nic
                    ),
                )
                .at("/fabric/topology/server_nic")
                .hint("put `{port}` in the NIC pattern, e.g. `eth{nic}p{port}`"),
            );
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(Homes {
            nic_ports: t.nic_ports,
            homing: t.homing,
            attachment: t.leaf.attachment,
            rails: t.rails,
            servers_per_group: t.servers_per_group,
        })
    }

    /// Leaves a NIC's ports spread over: 2 for `two-leaves` and `two-planes`, else 1.
    pub fn sides(&self) -> u32 {
        match self.homing {
            Some(Homing::TwoLeaves | Homing::TwoPlanes) => 2,
            _ => 1,
        }
    }

    /// Leaf planes: 2 for `two-planes`, else 1.
    pub fn leaf_planes(&self) -> u32 {
        if self.homing == Some(Homing::TwoPlanes) {
            2
        } else {
            1
        }
    }

    /// NIC ports of one NIC on one leaf: 2 for `same-leaf`, else 1.
    fn ports_per_nic(&self) -> u32 {
        if self.homing == Some(Homing::SameLeaf) {
            2
        } else {
            1
        }
    }

    /// NICs of one server on one leaf: every rail on a rack leaf, one on a rail leaf.
    fn nics_per_server(&self) -> u32 {
        match self.attachment {
            Attachment::Rack => self.rails,
            Attachment::Rail => 1,
        }
    }

    /// Leaves per group.
    pub fn leaves_per_group(&self) -> u32 {
        self.sides() * self.rails / self.nics_per_server()
    }

    /// Server ports per leaf.
    pub fn ports_per_leaf(&self) -> u32 {
        self.servers_per_group * self.nics_per_server() * self.ports_per_nic()
    }

    /// The rail (rail leaves) and side (two leaves per NIC) of leaf `j` of a group, 1-based.
    pub fn leaf_at(&self, j: u32) -> (Option<u32>, Option<u32>) {
        let sides = self.sides();
        let rail = (self.attachment == Attachment::Rail).then_some(j / sides + 1);
        let side = (sides > 1).then_some(j % sides + 1);
        (rail, side)
    }

    /// The leaf plane of leaf `j` of a group, 1-based (`two-planes` only).
    pub fn plane_of_leaf(&self, j: u32) -> Option<u32> {
        (self.leaf_planes() > 1).then(|| j % self.leaf_planes() + 1)
    }

    /// The NIC port on server port `k` (0-based) of leaf `j` of a group.
    pub fn nic_port(&self, j: u32, k: u32) -> NicPort {
        let (ppn, nps) = (self.ports_per_nic(), self.nics_per_server());
        let rest = k / ppn;
        let rail = match self.attachment {
            Attachment::Rack => rest % nps,
            Attachment::Rail => j / self.sides(),
        };
        let port = if ppn > 1 { k % ppn } else { j % self.sides() };
        NicPort {
            slot: rest / nps,
            rail,
            port,
        }
    }

    /// The leaf of a group (`j`) and its server port (`k`, 0-based) a NIC port lands on: the inverse of
    /// [`Homes::nic_port`].
    pub fn home(&self, n: NicPort) -> (u32, u32) {
        let (ppn, nps) = (self.ports_per_nic(), self.nics_per_server());
        let (rail_leaf, rail_on_leaf) = match self.attachment {
            Attachment::Rack => (0, n.rail),
            Attachment::Rail => (n.rail, 0),
        };
        let (side, port_on_leaf) = if ppn > 1 { (0, n.port) } else { (n.port, 0) };
        let j = rail_leaf * self.sides() + side;
        let k = (n.slot * nps + rail_on_leaf) * ppn + port_on_leaf;
        (j, k)
    }
}

/// The intent's spelling of a homing.
pub fn name(h: Homing) -> &'static str {
    match h {
        Homing::SameLeaf => "same-leaf",
        Homing::TwoLeaves => "two-leaves",
        Homing::TwoPlanes => "two-planes",
    }
}

/// Leaf planes divide the spines of a zone and the super-spine planes, so every plane has its own
/// spines and super-spines (`AIF-FAB-008`).
pub fn planes_fit(t: &Topology, leaf_planes: u32) -> Result<(), Vec<Finding>> {
    if leaf_planes == 1 {
        return Ok(());
    }
    let spine_planes = t.super_spine.as_ref().map(|s| s.planes);
    let (message, at, hint) = if !t.spine.count.is_multiple_of(leaf_planes) {
        (
            format!(
                "`homing: two-planes` splits the spines of a zone into {leaf_planes} planes; {} spines do not split evenly",
                t.spine.count
            ),
            "/fabric/topology/spine/count",
            format!(
                "use a spine count that is a multiple of {leaf_planes}: spine n is in plane ((n-1) mod {leaf_planes})+1"
            ),
        )
    } else if let Some(p) = spine_planes.filter(|p| !p.is_multiple_of(leaf_planes)) {
        (
            format!(
                "`homing: two-planes` needs every super-spine plane inside one leaf plane; {p} super-spine planes cannot split into {leaf_planes}"
            ),
            "/fabric/topology/super_spine/planes",
            format!(
                "set `planes` to a multiple of {leaf_planes} (e.g. {leaf_planes}): a plane's spines then reach only its own super-spines"
            ),
        )
    } else {
        return Ok(());
    };
    Err(vec![
        Finding::new(Rule::LeafPlanesDivide, message)
            .at(at)
            .hint(hint),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn homes(homing: Option<Homing>, attachment: Attachment) -> Homes {
        Homes {
            nic_ports: if homing.is_some() { 2 } else { 1 },
            homing,
            attachment,
            rails: 4,
            servers_per_group: 3,
        }
    }

    #[test]
    fn every_nic_port_has_one_home_and_back() {
        let all = [
            None,
            Some(Homing::SameLeaf),
            Some(Homing::TwoLeaves),
            Some(Homing::TwoPlanes),
        ];
        for h in all {
            for a in [Attachment::Rail, Attachment::Rack] {
                let x = homes(h, a);
                let mut seen = std::collections::BTreeSet::new();
                for j in 0..x.leaves_per_group() {
                    for k in 0..x.ports_per_leaf() {
                        let n = x.nic_port(j, k);
                        assert_eq!(x.home(n), (j, k), "{h:?} {a:?}");
                        assert!(n.slot < 3 && n.rail < 4 && n.port < x.nic_ports);
                        assert!(seen.insert((n.slot, n.rail, n.port)), "{h:?} {a:?} {n:?}");
                    }
                }
                assert_eq!(seen.len() as u32, 3 * 4 * x.nic_ports, "{h:?} {a:?}");
            }
        }
    }

    #[test]
    fn default_layout_is_rail_optimized() {
        let x = homes(None, Attachment::Rail);
        assert_eq!((x.leaves_per_group(), x.ports_per_leaf()), (4, 3));
        assert_eq!(
            x.home(NicPort {
                slot: 2,
                rail: 1,
                port: 0
            }),
            (1, 2)
        );
        let r = homes(Some(Homing::TwoPlanes), Attachment::Rack);
        assert_eq!((r.leaves_per_group(), r.ports_per_leaf()), (2, 12));
        assert_eq!(r.plane_of_leaf(1), Some(2));
        assert_eq!(r.leaf_at(1), (None, Some(2)));
    }
}
