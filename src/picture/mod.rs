//! Topology pictures an operator reads (`aifab plan --format dot|mermaid`, and the topology block of
//! `aifab diff --format markdown`).
//!
//! A [`Picture`] is the fabric as rows, bottom to top: servers (one node per server group), leaves,
//! spines, super-spines. Within a row the nodes stand in [`Place`] order: zone, server group, plane,
//! rail, index, so rail 1 is left of rail 2 and group 1 left of group 2; the printers ([`dot`],
//! [`mermaid`]) cluster the leaves and servers of a group inside their zone, and keep each row in that
//! order. Every link between two nodes at one speed is one edge, labelled `count x speed`.
//!
//! A picture of many switches collapses ([`Picture::fit`]): first the leaves of one rail of a zone into
//! one node, then the spines of a zone and the super-spines, then the leaves of a zone, until it has at
//! most [`MAX_NODES`] nodes and [`MAX_EDGES`] edges. A [`View`] draws one zone, rail or glob of switches
//! with their neighbours as context; [`Picture::changes`] draws what a change adds, removes or
//! re-counts between two models.

pub mod buffers;
pub mod dot;
pub mod mermaid;

use crate::kinds::{Os, Role};
use crate::model::{FabricModel, LinkTier};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Most nodes a picture draws before it collapses a level.
pub const MAX_NODES: usize = 100;

/// Most edges a picture draws before it collapses a level (mermaid draws at most 500 by default).
pub const MAX_EDGES: usize = 300;

/// A row of the picture, bottom to top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Row {
    /// Server groups.
    Servers,
    /// Leaves.
    Leaves,
    /// Spines.
    Spines,
    /// Super-spines.
    SuperSpines,
}

impl Row {
    fn of(role: Role) -> Row {
        match role {
            Role::Leaf => Row::Leaves,
            Role::Spine => Row::Spines,
            Role::SuperSpine => Row::SuperSpines,
        }
    }
}

/// Where a node stands: its row, then its order within the row. `name` is the switch's hostname, or the
/// name of a server group or of a collapsed node.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    /// Row.
    pub row: Row,
    /// Zone (three-tier).
    pub zone: Option<u32>,
    /// Server group (leaves and servers).
    pub group: Option<u32>,
    /// Plane.
    pub plane: Option<u32>,
    /// Rail (rail leaves).
    pub rail: Option<u32>,
    /// Index within the role.
    pub index: u32,
    /// A node drawn only as a neighbour of a [`View`]'s switches, or a switch a change does not touch.
    pub context: bool,
    /// Node name, unique in the picture.
    pub name: String,
}

/// A node: one switch, a server group, or switches collapsed into one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Role; `None` for servers.
    pub role: Option<Role>,
    /// OS; `None` for servers and for switches of several OSes.
    pub os: Option<Os>,
    /// Platform (`eos/7060x5-64`) when every switch of the node has the same.
    pub platform: Option<String>,
    /// The switches or servers the node stands for, in order.
    pub members: Vec<String>,
    /// How many of them the old side has (a change picture; otherwise the same as `new`).
    pub old: usize,
    /// How many of them the new side has.
    pub new: usize,
    /// Leaves of this node attach whole racks (rack leaves, no rail).
    pub rack: bool,
    /// Switches (or server groups) collapsed into this node; 0 when it is one switch or group.
    pub collapsed: usize,
}

/// An edge: the cables between two nodes at one speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bundle {
    /// Cables on the old side.
    pub old: usize,
    /// Cables on the new side.
    pub new: usize,
}

/// What a change did to a node or an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    /// Unchanged (every node and edge of a plain picture).
    Same,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
    /// On both sides, with other counts.
    Changed,
}

impl State {
    fn of(old: usize, new: usize) -> State {
        match (old, new) {
            (a, b) if a == b => State::Same,
            (0, _) => State::Added,
            (_, 0) => State::Removed,
            _ => State::Changed,
        }
    }
}

/// An edge's key: lower node, upper node, speed in Gbit/s.
pub type EdgeKey = (Place, Place, u32);

/// A topology picture.
#[derive(Clone, Debug)]
pub struct Picture {
    /// Fabric name.
    pub name: String,
    /// What the picture shows besides the whole fabric (`zone 1, rail 2`), empty for all of it.
    pub view: String,
    /// Nodes in drawing order.
    pub nodes: BTreeMap<Place, Node>,
    /// Edges, each between two nodes of `nodes`.
    pub edges: BTreeMap<EdgeKey, Bundle>,
    /// A change picture: nodes and edges carry a [`State`].
    pub change: bool,
    /// How far it is collapsed (0: every switch drawn).
    pub level: u8,
}

/// Which switches a picture draws (every given filter must match), with their neighbours as context.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// Only this zone.
    pub zone: Option<u32>,
    /// Only leaves of this rail.
    pub rail: Option<u32>,
    /// Only switches whose hostname matches.
    pub only: Option<globset::GlobMatcher>,
    /// The glob as the user gave it (for the title).
    pub only_text: Option<String>,
}

impl View {
    /// No filter: the whole fabric.
    pub fn is_all(&self) -> bool {
        self.zone.is_none() && self.rail.is_none() && self.only.is_none()
    }

    fn matches(&self, d: &crate::model::Device) -> bool {
        self.zone.is_none_or(|z| d.zone == Some(z))
            && self.rail.is_none_or(|r| d.rail == Some(r))
            && self.only.as_ref().is_none_or(|g| g.is_match(&d.hostname))
    }

    fn title(&self) -> String {
        let mut parts = Vec::new();
        if let Some(z) = self.zone {
            parts.push(format!("zone {z}"));
        }
        if let Some(r) = self.rail {
            parts.push(format!("rail {r}"));
        }
        if let Some(g) = &self.only_text {
            parts.push(format!("switches {g}"));
        }
        parts.join(", ")
    }
}

/// Every switch and server group of a model as a node (all of them counted on both sides), and every
/// cable bundle as an edge.
fn elements(m: &FabricModel) -> (BTreeMap<Place, Node>, BTreeMap<EdgeKey, Bundle>) {
    let mut nodes = BTreeMap::new();
    let mut by_host: HashMap<&str, Place> = HashMap::with_capacity(m.devices.len());
    for d in &m.devices {
        let place = Place {
            row: Row::of(d.role),
            zone: d.zone,
            group: if d.role == Role::Leaf { d.group } else { None },
            plane: d.plane,
            rail: d.rail,
            index: d.index,
            context: false,
            name: d.hostname.clone(),
        };
        by_host.insert(&d.hostname, place.clone());
        nodes.insert(
            place,
            Node {
                role: Some(d.role),
                os: Some(d.os),
                platform: Some(d.platform.clone()),
                members: vec![d.hostname.clone()],
                old: 1,
                new: 1,
                rack: d.role == Role::Leaf && d.rail.is_none(),
                collapsed: 0,
            },
        );
    }
    let mut edges: BTreeMap<EdgeKey, Bundle> = BTreeMap::new();
    let mut servers: BTreeMap<Place, BTreeSet<&str>> = BTreeMap::new();
    for l in &m.links {
        let Some(b) = by_host.get(&*l.b) else {
            continue;
        };
        let a = if l.tier == LinkTier::ServerLeaf {
            let p = server_group(b);
            servers.entry(p.clone()).or_default().insert(&l.a);
            p
        } else {
            match by_host.get(&*l.a) {
                Some(a) => a.clone(),
                None => continue,
            }
        };
        let e = edges
            .entry((a, b.clone(), l.speed_gbps))
            .or_insert(Bundle { old: 0, new: 0 });
        e.old += 1;
        e.new += 1;
    }
    for (place, names) in servers {
        let members: Vec<String> = names.into_iter().map(str::to_string).collect();
        let n = members.len();
        nodes.insert(
            place,
            Node {
                role: None,
                os: None,
                platform: None,
                members,
                old: n,
                new: n,
                rack: false,
                collapsed: 0,
            },
        );
    }
    (nodes, edges)
}

/// The server-group node below a leaf: one per (zone, group).
fn server_group(leaf: &Place) -> Place {
    // A space: never in a hostname (RFC 1123), so no switch has this name.
    let name = match (leaf.zone, leaf.group) {
        (Some(z), Some(g)) => format!("servers z{z} g{g}"),
        (None, Some(g)) => format!("servers g{g}"),
        (Some(z), None) => format!("servers z{z}"),
        (None, None) => "servers".to_string(),
    };
    Place {
        row: Row::Servers,
        zone: leaf.zone,
        group: leaf.group,
        plane: None,
        rail: None,
        index: 0,
        context: leaf.context,
        name,
    }
}

impl Picture {
    /// The whole fabric, or the part `view` selects, collapsed to fit.
    pub fn of(m: &FabricModel, view: &View) -> Picture {
        let (nodes, edges) = elements(m);
        let mut p = Picture {
            name: m.name.clone(),
            view: view.title(),
            nodes,
            edges,
            change: false,
            level: 0,
        };
        if !view.is_all() {
            let focus: BTreeSet<String> = m
                .devices
                .iter()
                .filter(|d| view.matches(d))
                .map(|d| d.hostname.clone())
                .collect();
            p.keep(|place, _| place.row == Row::Servers || focus.contains(&place.name));
        }
        p.fit()
    }

    /// Does `view` select any switch of `m`?
    pub fn view_matches_some(m: &FabricModel, view: &View) -> bool {
        m.devices.iter().any(|d| view.matches(d))
    }

    /// What changes between `old` and `new`: added, removed and re-counted switches and links, with the
    /// switches at their other ends as context. `None` when the topology is the same.
    pub fn changes(old: &FabricModel, new: &FabricModel) -> Option<Picture> {
        let (mut nodes, mut edges) = elements(new);
        let (old_nodes, old_edges) = elements(old);
        for n in nodes.values_mut() {
            n.old = 0;
        }
        for e in edges.values_mut() {
            e.old = 0;
        }
        // A switch is the same node on both sides when its name is (its zone, plane or index may move).
        let by_name: HashMap<String, Place> =
            nodes.keys().map(|p| (p.name.clone(), p.clone())).collect();
        let rename = |p: Place| by_name.get(&p.name).cloned().unwrap_or(p);
        for (place, n) in old_nodes {
            let place = rename(place);
            match nodes.get_mut(&place) {
                Some(mine) if mine.role.is_none() => {
                    // A server group: its servers on either side.
                    mine.old = n.members.len();
                    let have: BTreeSet<String> = mine.members.iter().cloned().collect();
                    mine.members
                        .extend(n.members.into_iter().filter(|s| !have.contains(s)));
                }
                Some(mine) => mine.old = 1,
                None => {
                    let mut n = n;
                    n.new = 0;
                    nodes.insert(place, n);
                }
            }
        }
        for ((a, b, s), e) in old_edges {
            edges
                .entry((rename(a), rename(b), s))
                .and_modify(|m| m.old = e.old)
                .or_insert(Bundle { old: e.old, new: 0 });
        }
        let mut p = Picture {
            name: new.name.clone(),
            view: "changes".to_string(),
            nodes,
            edges,
            change: true,
            level: 0,
        };
        let moved: BTreeSet<Place> = p
            .nodes
            .iter()
            .filter(|(_, n)| State::of(n.old, n.new) != State::Same)
            .map(|(k, _)| k.clone())
            .collect();
        p.edges.retain(|(a, b, _), e| {
            State::of(e.old, e.new) != State::Same || moved.contains(a) || moved.contains(b)
        });
        if p.edges.is_empty() && moved.is_empty() {
            return None;
        }
        let changed: BTreeSet<&Place> = moved.iter().collect();
        let ends: BTreeSet<Place> = p
            .edges
            .keys()
            .flat_map(|(a, b, _)| [a.clone(), b.clone()])
            .collect();
        p.nodes
            .retain(|k, _| changed.contains(k) || ends.contains(k));
        let context: BTreeSet<Place> = p
            .nodes
            .iter()
            .filter(|(_, n)| State::of(n.old, n.new) == State::Same)
            .map(|(k, _)| k.clone())
            .collect();
        p.mark_context(&context);
        Some(p.fit())
    }

    /// Keeps the nodes `focus` accepts and the edges with a focus end; a kept edge's other end stays as
    /// context. Server groups stay only below a kept leaf.
    fn keep(&mut self, focus: impl Fn(&Place, &Node) -> bool) {
        let is_focus = |p: &Place, n: &Node| p.row != Row::Servers && focus(p, n);
        let focused: BTreeSet<Place> = self
            .nodes
            .iter()
            .filter(|(p, n)| is_focus(p, n))
            .map(|(p, _)| p.clone())
            .collect();
        self.edges.retain(|(a, b, _), _| {
            focused.contains(b) || (a.row != Row::Servers && focused.contains(a))
        });
        let ends: BTreeSet<Place> = self
            .edges
            .keys()
            .flat_map(|(a, b, _)| [a.clone(), b.clone()])
            .collect();
        self.nodes
            .retain(|p, _| focused.contains(p) || ends.contains(p));
        let context: BTreeSet<Place> = self
            .nodes
            .keys()
            .filter(|p| p.row != Row::Servers && !focused.contains(p))
            .cloned()
            .collect();
        self.mark_context(&context);
    }

    /// Marks `context` nodes as context (they move after the others of their row).
    fn mark_context(&mut self, context: &BTreeSet<Place>) {
        let mark = |p: &Place| {
            let mut p = p.clone();
            p.context = context.contains(&p);
            p
        };
        self.nodes = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(|(p, n)| (mark(&p), n))
            .collect();
        self.edges = std::mem::take(&mut self.edges)
            .into_iter()
            .map(|((a, b, s), e)| ((mark(&a), mark(&b), s), e))
            .collect();
    }

    /// This picture, collapsed level by level until it has at most [`MAX_NODES`] nodes and
    /// [`MAX_EDGES`] edges (or cannot collapse further).
    pub fn fit(self) -> Picture {
        let mut p = self;
        while (p.nodes.len() > MAX_NODES || p.edges.len() > MAX_EDGES) && p.level < LEVELS {
            p = p.collapse(p.level + 1);
        }
        p
    }

    /// This picture at collapse `level` (see [`collapsed_place`]).
    fn collapse(&self, level: u8) -> Picture {
        let mut nodes: BTreeMap<Place, Node> = BTreeMap::new();
        let mut map: HashMap<&Place, Place> = HashMap::with_capacity(self.nodes.len());
        for (p, n) in &self.nodes {
            let to = collapsed_place(p, level);
            map.insert(p, to.clone());
            match nodes.get_mut(&to) {
                Some(m) => merge(m, n),
                None => {
                    let mut m = n.clone();
                    if to != *p {
                        m.collapsed = n.collapsed.max(1);
                    }
                    nodes.insert(to, m);
                }
            }
        }
        let mut edges: BTreeMap<EdgeKey, Bundle> = BTreeMap::new();
        for ((a, b, s), e) in &self.edges {
            let key = (map[a].clone(), map[b].clone(), *s);
            let m = edges.entry(key).or_insert(Bundle { old: 0, new: 0 });
            m.old += e.old;
            m.new += e.new;
        }
        Picture {
            name: self.name.clone(),
            view: self.view.clone(),
            nodes,
            edges,
            change: self.change,
            level,
        }
    }

    /// What the picture holds, for its title: `16 leaves, 4 spines, 2 super-spines, 16 servers`.
    pub fn counts(&self) -> String {
        let mut by_row: BTreeMap<Row, usize> = BTreeMap::new();
        for (p, n) in &self.nodes {
            *by_row.entry(p.row).or_default() += n.new.max(n.old);
        }
        let word = |r: Row, n: usize| -> String {
            let w = match r {
                Row::Servers => "server",
                Row::Leaves => "leaf",
                Row::Spines => "spine",
                Row::SuperSpines => "super-spine",
            };
            match (n, r) {
                (1, _) => format!("1 {w}"),
                (_, Row::Leaves) => format!("{n} leaves"),
                _ => format!("{n} {w}s"),
            }
        };
        [Row::Leaves, Row::Spines, Row::SuperSpines, Row::Servers]
            .into_iter()
            .filter_map(|r| by_row.get(&r).map(|n| word(r, *n)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What a change picture's change adds and removes: `12 switches added, 4 removed; 48 cables
    /// added, 16 removed`.
    pub fn change_counts(&self) -> String {
        let (mut added, mut removed) = (0, 0);
        for n in self.nodes.values().filter(|n| n.role.is_some()) {
            added += n.new.saturating_sub(n.old);
            removed += n.old.saturating_sub(n.new);
        }
        let (mut more, mut fewer) = (0, 0);
        for e in self.edges.values() {
            more += e.new.saturating_sub(e.old);
            fewer += e.old.saturating_sub(e.new);
        }
        let plural = |n: usize, w: &str| {
            if n == 1 {
                format!("1 {w}")
            } else {
                format!("{n} {w}s")
            }
        };
        format!(
            "{} added, {removed} removed; {} added, {fewer} removed",
            plural(added, "switch").replace("switchs", "switches"),
            plural(more, "cable")
        )
    }

    /// The picture's title: fabric, view, counts, and the collapse level when there is one.
    pub fn title(&self) -> String {
        let mut t = self.name.clone();
        if !self.view.is_empty() {
            t.push_str(&format!(" ({})", self.view));
        }
        t.push_str(": ");
        if self.change {
            t.push_str(&self.change_counts());
        } else {
            t.push_str(&self.counts());
        }
        match self.level {
            0 => {}
            1 => t.push_str("; leaves collapsed per rail"),
            2 => t.push_str("; leaves per rail, spines per zone, super-spines collapsed"),
            _ => t.push_str("; collapsed per zone"),
        }
        t
    }

    /// State of a node.
    pub fn node_state(&self, n: &Node) -> State {
        if self.change {
            State::of(n.old, n.new)
        } else {
            State::Same
        }
    }

    /// State of an edge.
    pub fn edge_state(&self, e: &Bundle) -> State {
        if self.change {
            State::of(e.old, e.new)
        } else {
            State::Same
        }
    }
}

/// Collapse levels above 0 (see [`collapsed_place`]).
const LEVELS: u8 = 3;

/// Where a node goes at a collapse level. 1: leaves of one rail and plane of a zone become one node, and
/// the server groups of a zone. 2: also the spines of a zone and all super-spines. 3: also all leaves of
/// a zone.
fn collapsed_place(p: &Place, level: u8) -> Place {
    // Names with spaces: never a hostname (RFC 1123), so never a switch's.
    let ctx = if p.context { " context" } else { "" };
    let zone = p.zone.map(|z| format!("z{z} ")).unwrap_or_default();
    let plane = p.plane.map(|n| format!(" p{n}")).unwrap_or_default();
    let keep = |name: String, plane: Option<u32>, rail: Option<u32>| Place {
        row: p.row,
        zone: p.zone,
        group: None,
        plane,
        rail,
        index: 0,
        context: p.context,
        name,
    };
    match (p.row, level) {
        (_, 0) => p.clone(),
        (Row::Servers, _) => keep(format!("{zone}servers{ctx}"), None, None),
        (Row::Leaves, 1 | 2) => match p.rail {
            Some(r) => keep(format!("{zone}rail{r}{plane} leaves{ctx}"), p.plane, p.rail),
            None => keep(format!("{zone}leaves{plane}{ctx}"), p.plane, None),
        },
        (Row::Leaves, _) => keep(format!("{zone}leaves{ctx}"), None, None),
        (_, 1) => p.clone(),
        (Row::Spines, _) => keep(format!("{zone}spines{ctx}"), None, None),
        (Row::SuperSpines, _) => keep(format!("super-spines{ctx}"), None, None),
    }
}

/// Adds node `n` to the collapsed node `m`.
fn merge(m: &mut Node, n: &Node) {
    if m.os != n.os {
        m.os = None;
    }
    if m.platform != n.platform {
        m.platform = None;
    }
    m.members.extend(n.members.iter().cloned());
    m.old += n.old;
    m.new += n.new;
    m.rack &= n.rack;
    m.collapsed += n.collapsed.max(1);
}

/// The lines of a node's label: its name (or what it collapses) and its platform or members.
pub fn node_lines(p: &Place, n: &Node, change: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let count = n.new.max(n.old);
    if n.role.is_none() {
        lines.push(match count {
            1 => "1 server".to_string(),
            c => format!("{c} servers"),
        });
        lines.push(span(&n.members));
    } else if n.collapsed == 0 {
        lines.push(p.name.clone());
        lines.push(n.platform.clone().unwrap_or_default());
    } else {
        let noun = match (p.row, count) {
            (Row::Leaves, 1) => "leaf",
            (Row::Leaves, _) => "leaves",
            (Row::Spines, 1) => "spine",
            (Row::Spines, _) => "spines",
            (_, 1) => "super-spine",
            _ => "super-spines",
        };
        let mut what = format!("{count} {}{noun}", if n.rack { "rack " } else { "" });
        if let Some(r) = p.rail {
            what.push_str(&format!(", rail {r}"));
        }
        if let Some(pl) = p.plane {
            what.push_str(&format!(", plane {pl}"));
        }
        lines.push(what);
        lines.push(span(&n.members));
        if let Some(pl) = &n.platform {
            lines.push(pl.clone());
        }
    }
    if change && n.old != n.new {
        lines.push(match (n.old, n.new) {
            (0, _) => "added".to_string(),
            (_, 0) => "removed".to_string(),
            (a, b) => format!("{a} → {b}"),
        });
    }
    lines.retain(|l| !l.is_empty());
    lines
}

/// `first … last` of a list of names (the one name when there is one).
fn span(members: &[String]) -> String {
    match members {
        [] => String::new(),
        [one] => one.clone(),
        [first, .., last] => format!("{first} … {last}"),
    }
}

/// An edge's label: `count x speed`, or `old → new x speed` when a change re-counts it.
pub fn edge_label(speed_gbps: u32, e: &Bundle, change: bool) -> String {
    let speed = if speed_gbps >= 1000 && speed_gbps.is_multiple_of(100) {
        format!("{}T", f64::from(speed_gbps) / 1000.0)
    } else {
        format!("{speed_gbps}G")
    };
    if change && e.old != e.new && e.old != 0 && e.new != 0 {
        format!("{} → {} x {speed}", e.old, e.new)
    } else {
        format!("{} x {speed}", e.new.max(e.old))
    }
}

/// Fill colour of an OS (a server node: grey).
pub fn os_fill(os: Option<Os>, role: Option<Role>) -> &'static str {
    match (os, role) {
        (_, None) => "#eeeeee",
        (Some(Os::Nxos), _) => "#cfe2f3",
        (Some(Os::Eos), _) => "#d9ead3",
        (Some(Os::Sonic), _) => "#fce5cd",
        (None, _) => "#ffffff",
    }
}

/// Border colour and width of a role.
pub fn role_border(role: Option<Role>) -> (&'static str, u8) {
    match role {
        None => ("#999999", 1),
        Some(Role::Leaf) => ("#274e13", 1),
        Some(Role::Spine) => ("#1c4587", 2),
        Some(Role::SuperSpine) => ("#741b47", 3),
    }
}

/// Colour of a changed node or edge.
pub fn state_colour(s: State) -> &'static str {
    match s {
        State::Same => "#666666",
        State::Added => "#38761d",
        State::Removed => "#cc0000",
        State::Changed => "#b45f06",
    }
}

/// The OS as people write it.
pub fn os_name(os: Os) -> &'static str {
    match os {
        Os::Nxos => "NX-OS",
        Os::Eos => "EOS",
        Os::Sonic => "SONiC",
    }
}
