//! The fabric's switch ports numbered once (each device's interfaces, then its unused ports, device
//! by device), and what LLDP shows at each, resolved to those numbers as each switch is read. The
//! cabling check then compares numbers: a 100K-GPU fabric's 275,000 neighbours are not kept as names
//! until every switch is read (docs/performance.md, "aifab verify at 100K").

use super::expect::{Plan, sent_port_id};
use super::observed::LldpNeighbor;
use crate::kinds::Os;
use crate::model::{Device, FabricModel};
use crate::platform::Catalog;
use rayon::prelude::*;
use std::hash::{DefaultHasher, Hash, Hasher};

/// A switch port of the fabric: its number in [`PortIds`].
pub type Port = u32;

/// No port, no link.
const NONE: u32 = u32::MAX;

/// What LLDP shows at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A port of a switch of the fabric.
    Port(Port),
    /// Something the fabric does not know: entry `k` of the observing switch's [`Lldp::others`].
    Other(u32),
    /// At a server port, the server planned there (its hostname as system name): kept as a mark, not
    /// as its names (100,000 of them at 100K GPUs).
    Host,
}

/// A neighbour the fabric does not know, as it announced itself.
#[derive(Debug)]
pub struct Unknown {
    /// Its system name (absent when it sent none).
    pub sys: Option<Box<str>>,
    /// The port ID it sent.
    pub id: Box<str>,
}

impl Unknown {
    /// The neighbour as the report names it: system name and port ID.
    pub fn text(&self) -> String {
        format!("{} {}", self.sys.as_deref().unwrap_or(""), self.id)
            .trim()
            .to_string()
    }
}

/// One switch's LLDP neighbours, resolved: in the order the switch reported them.
#[derive(Debug, Default)]
pub struct Lldp {
    /// Neighbours at ports of the model (the port's local index on the switch).
    pub at: Vec<(u32, Seen)>,
    /// Neighbours at port names the model does not have.
    pub stray: Vec<(Box<str>, Seen)>,
    /// The neighbours the fabric does not know ([`Seen::Other`]).
    pub others: Vec<Unknown>,
}

impl Lldp {
    /// The first neighbour reported at local port `k`.
    pub fn first_at(&self, k: u32) -> Option<Seen> {
        self.at.iter().find(|(p, _)| *p == k).map(|&(_, s)| s)
    }

    /// The unknown neighbour `k`.
    pub fn other(&self, k: u32) -> &Unknown {
        &self.others[k as usize]
    }
}

/// Every switch port of the fabric numbered, with the lookups the cabling check needs.
pub struct PortIds<'m> {
    model: &'m FabricModel,
    catalog: &'m Catalog,
    /// First port number of each device, then the total.
    base: Vec<u32>,
    /// Per device (segment `base[d]..base[d + 1]`): its ports' local indices sorted by name.
    by_name: Vec<u32>,
    /// Per SONiC device (segment `alias_base[d]..alias_base[d + 1]`): (hash of the port ID the switch
    /// sends, local index), sorted, for the ports whose ID is not their name.
    alias: Vec<(u64, u32)>,
    alias_base: Vec<u32>,
    /// Per port: the far end of its planned fabric cable and the cable's link, or `NONE`.
    far: Vec<(Port, u32)>,
    /// Per link of the model: both switch ends (`NONE` for a server end).
    link_ends: Vec<(Port, Port)>,
}

fn port_names(d: &Device) -> impl Iterator<Item = &str> {
    d.interfaces
        .iter()
        .map(|p| &*p.name)
        .chain(d.unused_ports.iter().map(|u| &*u.name))
}

fn hash(id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl<'m> PortIds<'m> {
    /// Numbers the ports of `plan`'s model and plans their far ends.
    pub fn new(plan: &Plan<'m>, catalog: &'m Catalog) -> PortIds<'m> {
        let model = plan.model;
        let mut base = Vec::with_capacity(model.devices.len() + 1);
        let mut total = 0u32;
        for d in &model.devices {
            base.push(total);
            total += (d.interfaces.len() + d.unused_ports.len()) as u32;
        }
        base.push(total);
        let sorted: Vec<Vec<u32>> = model.devices.par_iter().map(sorted_by_name).collect();
        let aliases: Vec<Vec<(u64, u32)>> = model
            .devices
            .par_iter()
            .map(|d| aliases(catalog, d))
            .collect();
        let mut alias_base = Vec::with_capacity(model.devices.len() + 1);
        let mut n = 0u32;
        for a in &aliases {
            alias_base.push(n);
            n += a.len() as u32;
        }
        alias_base.push(n);
        let mut ids = PortIds {
            model,
            catalog,
            base,
            by_name: sorted.into_iter().flatten().collect(),
            alias: aliases.into_iter().flatten().collect(),
            alias_base,
            far: vec![(NONE, NONE); total as usize],
            link_ends: Vec::with_capacity(model.links.len()),
        };
        ids.plan_cables(plan);
        ids
    }

    fn plan_cables(&mut self, plan: &Plan) {
        for (l, k) in self.model.links.iter().enumerate() {
            let end = |dev: &str, port: &str| {
                let d = *plan.index.get(dev)?;
                self.by_name(d, port)
            };
            let (a, b) = (end(&k.a, &k.a_port), end(&k.b, &k.b_port));
            if let (Some(a), Some(b)) = (a, b) {
                self.far[a as usize] = (b, l as u32);
                self.far[b as usize] = (a, l as u32);
            }
            self.link_ends.push((a.unwrap_or(NONE), b.unwrap_or(NONE)));
        }
    }

    /// How many ports the fabric's switches have.
    pub fn total(&self) -> usize {
        self.by_name.len()
    }

    /// The device that port `g` is on.
    pub fn device(&self, g: Port) -> usize {
        self.base.partition_point(|&b| b <= g) - 1
    }

    /// Port `g`'s name on its device.
    pub fn name(&self, g: Port) -> &'m str {
        let d = self.device(g);
        local_name(&self.model.devices[d], (g - self.base[d]) as usize)
    }

    /// The number of local port `k` of device `d`.
    pub fn id(&self, d: usize, k: u32) -> Port {
        self.base[d] + k
    }

    /// Port `g`'s local index on its device.
    pub fn local(&self, g: Port) -> u32 {
        g - self.base[self.device(g)]
    }

    /// The port of device `d` named `name`.
    pub fn by_name(&self, d: usize, name: &str) -> Option<Port> {
        let (lo, hi) = (self.base[d] as usize, self.base[d + 1] as usize);
        let dev = &self.model.devices[d];
        let seg = &self.by_name[lo..hi];
        let at = seg.partition_point(|&k| local_name(dev, k as usize) < name);
        let k = *seg.get(at)?;
        (local_name(dev, k as usize) == name).then(|| self.id(d, k))
    }

    /// The port of SONiC device `d` that sends `id` as its LLDP port ID (its alias).
    fn by_alias(&self, d: usize, id: &str) -> Option<Port> {
        let (lo, hi) = (self.alias_base[d] as usize, self.alias_base[d + 1] as usize);
        let seg = &self.alias[lo..hi];
        let h = hash(id);
        let dev = &self.model.devices[d];
        let from = seg.partition_point(|&(x, _)| x < h);
        seg[from..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .map(|&(_, k)| k)
            .find(|&k| sent_port_id(self.catalog, dev, &dev.interfaces[k as usize]) == id)
            .map(|k| self.id(d, k))
    }

    /// The far end and link of port `g`'s planned fabric cable.
    pub fn far(&self, g: Port) -> Option<(Port, usize)> {
        let (f, l) = self.far[g as usize];
        (f != NONE).then_some((f, l as usize))
    }

    /// Both switch ends of link `l` of the model (`None` for a server end).
    pub fn link_ends(&self, l: usize) -> (Option<Port>, Option<Port>) {
        let (a, b) = self.link_ends[l];
        ((a != NONE).then_some(a), (b != NONE).then_some(b))
    }

    /// The fabric's port that a neighbour sending system name `sys` and port ID `id` is: a port with a
    /// planned cable by name first, then a SONiC switch's alias, then any port by name.
    fn resolve(&self, plan: &Plan, sys: &str, id: &str) -> Option<Port> {
        let short = sys.split('.').next().unwrap_or(sys);
        let j = *plan.index.get(short)?;
        let named = self.by_name(j, id);
        named
            .filter(|&g| self.far[g as usize].0 != NONE)
            .or_else(|| self.by_alias(j, id))
            .or(named)
    }

    /// Device `i`'s neighbours, resolved.
    pub fn resolve_all(&self, plan: &Plan, i: usize, lldp: &[LldpNeighbor]) -> Lldp {
        let mut out = Lldp::default();
        for n in lldp {
            let sys = n.system_name.as_deref();
            let id = n.port_id.as_deref().unwrap_or("");
            let local = self.by_name(i, &n.local_port);
            let seen = match self.resolve(plan, sys.unwrap_or(""), id) {
                Some(g) => Seen::Port(g),
                None if local.is_some_and(|g| self.planned_host(g, sys)) => Seen::Host,
                None => {
                    out.others.push(Unknown {
                        sys: sys.map(Into::into),
                        id: id.into(),
                    });
                    Seen::Other(out.others.len() as u32 - 1)
                }
            };
            match local {
                Some(g) => out.at.push((g - self.base[i], seen)),
                None => out.stray.push((n.local_port.as_str().into(), seen)),
            }
        }
        out.others.shrink_to_fit();
        out
    }
}

impl PortIds<'_> {
    /// Whether `sys` (a system name, cut at its first dot) is the server planned at server port `g`.
    fn planned_host(&self, g: Port, sys: Option<&str>) -> bool {
        let d = &self.model.devices[self.device(g)];
        let short = sys.map(|s| s.split('.').next().unwrap_or(s));
        d.interfaces
            .get(self.local(g) as usize)
            .is_some_and(|p| p.kind == crate::model::PortKind::Server && short == Some(&*p.peer))
    }
}

fn local_name(d: &Device, k: usize) -> &str {
    match d.interfaces.get(k) {
        Some(p) => &p.name,
        None => &d.unused_ports[k - d.interfaces.len()].name,
    }
}

fn sorted_by_name(d: &Device) -> Vec<u32> {
    let names: Vec<&str> = port_names(d).collect();
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    order.sort_by(|&a, &b| names[a as usize].cmp(names[b as usize]));
    order
}

/// The ports of SONiC device `d` whose LLDP port ID is an alias, by the alias's hash.
fn aliases(catalog: &Catalog, d: &Device) -> Vec<(u64, u32)> {
    if d.os != Os::Sonic {
        return Vec::new();
    }
    let mut out: Vec<(u64, u32)> = d
        .interfaces
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            let sent = sent_port_id(catalog, d, p);
            (sent != *p.name).then(|| (hash(&sent), k as u32))
        })
        .collect();
    out.sort_unstable();
    out
}
