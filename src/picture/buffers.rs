//! The lossless buffer-dependency graph ([`crate::check::buffers`]) as Graphviz dot or JSON
//! (`aifab plan --format buffers|buffers-json`). A small fabric is drawn queue by queue; a larger one
//! collapses, as the topology picture does ([`super::MAX_NODES`], [`super::MAX_EDGES`]): first to
//! one node per switch and side (traffic from below, from above), then per tier, zone and side. A
//! turn from down to up (a valley) is drawn red; the title says whether the graph is acyclic.

use crate::check::buffers::{Buffers, Queue};
use crate::check::paths::Fabric;
use crate::model::FabricModel;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How far the drawing collapses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// One node per queue.
    Queue,
    /// One node per switch and side.
    Switch,
    /// One node per tier, zone and side.
    Tier,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Queue => "queue",
            Level::Switch => "switch and side",
            Level::Tier => "tier, zone and side",
        }
    }
}

/// The graph drawn at one level: node names in order, and edges (from, to) with how many
/// dependencies each stands for and whether any is a down-up turn.
struct Drawn {
    level: Level,
    nodes: Vec<String>,
    edges: BTreeMap<(usize, usize), (u64, bool)>,
}

/// The queue's name at `level`.
fn key(model: &FabricModel, fabric: &Fabric, q: Queue, level: Level) -> String {
    let k = &fabric.links[q.link as usize];
    let from = k.other(q.at);
    let above = fabric.tier[from as usize] > fabric.tier[q.at as usize];
    let side = if above { "from above" } else { "from below" };
    let port = if k.a == q.at { &k.a_port } else { &k.b_port };
    match level {
        Level::Queue => format!(
            "{}:{} ← {}",
            fabric.names[q.at as usize], port, fabric.names[from as usize]
        ),
        Level::Switch => format!("{} {side}", fabric.names[q.at as usize]),
        Level::Tier => {
            let tier = ["leaves", "spines", "super-spines"]
                [usize::from(fabric.tier[q.at as usize].min(2))];
            match model.devices.get(q.at as usize).and_then(|d| d.zone) {
                Some(z) => format!("zone {z} {tier} {side}"),
                None => format!("{tier} {side}"),
            }
        }
    }
}

/// The graph at `level`, or None when it has more nodes or edges than a picture draws (`bounded`).
/// Each queue is named once; the dependencies are then counted by number.
fn draw(
    model: &FabricModel,
    fabric: &Fabric,
    b: &Buffers,
    level: Level,
    bounded: bool,
) -> Option<Drawn> {
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut nodes = Vec::new();
    // Per queue (2 × link + side), its node, where it has a dependency.
    let mut node_of: Vec<Option<usize>> = vec![None; 2 * fabric.links.len()];
    for q in b.queues(fabric) {
        let name = key(model, fabric, q, level);
        let id = *index.entry(name.clone()).or_insert_with(|| {
            nodes.push(name);
            nodes.len() - 1
        });
        node_of[slot(fabric, q)] = Some(id);
        if bounded && nodes.len() > super::MAX_NODES {
            return None;
        }
    }
    let mut edges: BTreeMap<(usize, usize), (u64, bool)> = BTreeMap::new();
    let t = |n: u32| fabric.tier[n as usize];
    for (a, z) in b.dependencies(fabric) {
        let (Some(from), Some(to)) = (node_of[slot(fabric, a)], node_of[slot(fabric, z)]) else {
            continue;
        };
        let came_down = t(fabric.links[a.link as usize].other(a.at)) > t(a.at);
        let e = edges.entry((from, to)).or_default();
        e.0 += 1;
        e.1 |= came_down && t(z.at) > t(a.at);
        if bounded && edges.len() > super::MAX_EDGES {
            return None;
        }
    }
    Some(Drawn {
        level,
        nodes,
        edges,
    })
}

/// A queue's number: 2 × its link, + 1 at the link's second end.
fn slot(fabric: &Fabric, q: Queue) -> usize {
    2 * q.link as usize + usize::from(fabric.links[q.link as usize].a != q.at)
}

/// The first level that fits the picture's bounds (else the most collapsed).
fn fit(model: &FabricModel, fabric: &Fabric, b: &Buffers) -> Drawn {
    [Level::Queue, Level::Switch]
        .into_iter()
        .find_map(|level| draw(model, fabric, b, level, true))
        .or_else(|| draw(model, fabric, b, Level::Tier, false))
        .unwrap_or(Drawn {
            level: Level::Tier,
            nodes: Vec::new(),
            edges: BTreeMap::new(),
        })
}

/// `acyclic`, or the cycle's queues.
fn verdict(fabric: &Fabric, b: &Buffers) -> String {
    match &b.cycle {
        None => "acyclic: no PFC deadlock".to_string(),
        Some(c) => format!("CYCLE (PFC deadlock): {}", queue_path(fabric, c)),
    }
}

fn queue_path(fabric: &Fabric, c: &[Queue]) -> String {
    c.iter()
        .map(|q| {
            let k = &fabric.links[q.link as usize];
            let port = if k.a == q.at { &k.a_port } else { &k.b_port };
            format!("{}:{}", fabric.names[q.at as usize], port)
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

fn failures_text(fabric: &Fabric, b: &Buffers) -> String {
    if b.failures.is_empty() {
        return "every link up".to_string();
    }
    b.failures
        .iter()
        .map(|f| f.text(fabric))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The graph as Graphviz dot.
pub fn dot(model: &FabricModel, fabric: &Fabric, b: &Buffers) -> String {
    let d = fit(model, fabric, b);
    let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let title = format!(
        "{}: lossless buffer dependencies, {} ({} nodes, one per {}); {} dependencies, {} down-up turns; {}",
        model.name,
        failures_text(fabric, b),
        d.nodes.len(),
        d.level.name(),
        b.edges,
        b.down_up.len(),
        verdict(fabric, b)
    );
    let mut s = String::new();
    let _ = writeln!(s, "digraph {} {{", q(&format!("{} buffers", model.name)));
    let _ = writeln!(
        s,
        "  graph [rankdir=BT, fontname=\"Helvetica\", labelloc=t, label={}];",
        q(&title)
    );
    s.push_str("  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
    s.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#666666\"];\n");
    for (i, n) in d.nodes.iter().enumerate() {
        let _ = writeln!(s, "  n{i} [label={}];", q(n));
    }
    for (&(a, z), &(count, down_up)) in &d.edges {
        let mut attrs = Vec::new();
        if d.level != Level::Queue {
            attrs.push(format!("label=\"{count}\""));
        }
        if down_up {
            attrs.push("color=\"#d62728\", penwidth=2".to_string());
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(s, "  n{a} -> n{z}{attrs};");
    }
    s.push_str("}\n");
    s
}

/// The graph as JSON: the verdict, the down-up turns and the drawn (possibly collapsed) graph.
pub fn json(model: &FabricModel, fabric: &Fabric, b: &Buffers) -> String {
    let d = fit(model, fabric, b);
    let link = |l| fabric.link_name(l);
    let turns: Vec<serde_json::Value> = b
        .down_up
        .iter()
        .map(|t| {
            serde_json::json!({
                "switch": &*fabric.names[t.at as usize],
                "from": link(t.from),
                "to": link(t.to),
            })
        })
        .collect();
    let edges: Vec<serde_json::Value> = d
        .edges
        .iter()
        .map(|(&(a, z), &(count, down_up))| {
            serde_json::json!({"from": d.nodes[a], "to": d.nodes[z], "dependencies": count, "down_up": down_up})
        })
        .collect();
    let doc = serde_json::json!({
        "fabric": model.name,
        "failures": b.failures.iter().map(|f| f.text(fabric)).collect::<Vec<_>>(),
        "dependencies": b.edges,
        "acyclic": b.acyclic(),
        "cycle": b.cycle.as_ref().map(|c| queue_path(fabric, c)),
        "down_up": turns,
        "graph": {"level": d.level.name(), "nodes": d.nodes, "edges": edges},
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
