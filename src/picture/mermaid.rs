//! A [`Picture`] as a Mermaid flowchart (GitHub draws it in a pull-request comment): the same rows,
//! clusters (subgraphs per zone and group), labels and colours as the dot form. Mermaid has no ranks,
//! so the order within a row is the declaration order, which its layout mostly keeps.

use super::{
    Node, Picture, Place, Row, State, edge_label, node_lines, os_fill, role_border, state_colour,
};
use crate::kinds::{Os, Role};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The nodes of one zone (or of none): outside any server group, then per group.
type Zone<'p> = (Vec<&'p Place>, BTreeMap<u32, Vec<&'p Place>>);

/// The picture as a Mermaid flowchart.
pub fn print(p: &Picture) -> String {
    let ids: BTreeMap<&Place, String> = p
        .nodes
        .keys()
        .enumerate()
        .map(|(i, pl)| (pl, format!("n{i}")))
        .collect();
    let mut s = String::new();
    let title = p.title().replace('\\', "\\\\").replace('"', "\\\"");
    let _ = writeln!(s, "---\ntitle: \"{title}\"\n---");
    s.push_str("flowchart BT\n");
    let mut zones: BTreeMap<Option<u32>, Zone> = BTreeMap::new();
    for place in p.nodes.keys() {
        let z = zones.entry(place.zone).or_default();
        match place.group {
            Some(g) => z.1.entry(g).or_default().push(place),
            None => z.0.push(place),
        }
    }
    let mut classes = BTreeSet::new();
    for (zone, (loose, groups)) in &zones {
        let indent = if zone.is_some() { "    " } else { "  " };
        if let Some(z) = zone {
            let _ = writeln!(s, "  subgraph c_z{z} [\"zone {z}\"]");
        }
        for place in loose {
            let n = &p.nodes[*place];
            let class = class(p, place, n);
            let _ = writeln!(s, "{indent}{}:::{class}", node(p, place, n, &ids[place]));
            classes.insert(class);
        }
        for (g, places) in groups {
            let id = match zone {
                Some(z) => format!("c_z{z}_g{g}"),
                None => format!("c_g{g}"),
            };
            let rack = places
                .iter()
                .any(|pl| pl.row == Row::Leaves && p.nodes[*pl].rack);
            let word = if rack { "rack" } else { "group" };
            let _ = writeln!(s, "{indent}subgraph {id} [\"{word} {g}\"]");
            let _ = writeln!(s, "{indent}  direction LR");
            for place in places {
                let n = &p.nodes[*place];
                let class = class(p, place, n);
                let _ = writeln!(s, "{indent}  {}:::{class}", node(p, place, n, &ids[place]));
                classes.insert(class);
            }
            let _ = writeln!(s, "{indent}end");
        }
        if zone.is_some() {
            s.push_str("  end\n");
        }
    }
    let mut styled: BTreeMap<State, Vec<usize>> = BTreeMap::new();
    for (i, ((a, b, speed), e)) in p.edges.iter().enumerate() {
        let state = p.edge_state(e);
        let line = match state {
            State::Same if a.context || b.context => "-.-",
            State::Same => "---",
            State::Removed => "-.-",
            State::Added | State::Changed => "===",
        };
        let label = text(&edge_label(*speed, e, p.change));
        let _ = writeln!(s, "  {} {line}|\"{label}\"| {}", ids[a], ids[b]);
        if state != State::Same {
            styled.entry(state).or_default().push(i);
        }
    }
    for class in &classes {
        let _ = writeln!(s, "  classDef {class} {}", class_style(class));
    }
    for (state, edges) in styled {
        let list: Vec<String> = edges.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "  linkStyle {} stroke:{},stroke-width:2px,color:{1}",
            list.join(","),
            state_colour(state)
        );
    }
    s
}

/// A node statement (without its class).
fn node(p: &Picture, place: &Place, n: &Node, id: &str) -> String {
    let lines: Vec<String> = node_lines(place, n, p.change)
        .iter()
        .map(|l| text(l))
        .collect();
    let label = lines.join("<br/>");
    match n.role {
        None => format!("{id}[/\"{label}\"/]"),
        Some(Role::Leaf) => format!("{id}[\"{label}\"]"),
        Some(_) => format!("{id}(\"{label}\")"),
    }
}

/// A node's class: its state in a change picture (unchanged nodes are context), otherwise `context`
/// for a view's neighbours and `<os>_<role>` for the rest.
fn class(p: &Picture, place: &Place, n: &Node) -> String {
    if p.change {
        return match p.node_state(n) {
            State::Same => "context",
            State::Added => "added",
            State::Removed => "removed",
            State::Changed => "changed",
        }
        .to_string();
    }
    if place.context {
        return "context".to_string();
    }
    let os = n.os.map_or("mixed", Os::as_str);
    match n.role {
        None => "servers".to_string(),
        Some(r) => format!("{os}_{}", r.as_str().replace('-', "_")),
    }
}

/// The style of a class.
fn class_style(class: &str) -> String {
    let state = |s: State| format!("fill:#ffffff,stroke:{},stroke-width:3px", state_colour(s));
    match class {
        "context" => "fill:#ffffff,stroke:#999999,stroke-dasharray:4 3,color:#666666".to_string(),
        "added" => state(State::Added),
        "removed" => format!("{},stroke-dasharray:6 3", state(State::Removed)),
        "changed" => state(State::Changed),
        "servers" => "fill:#eeeeee,stroke:#999999,stroke-dasharray:4 3".to_string(),
        _ => {
            let (os, role) = class.split_once('_').unwrap_or((class, ""));
            let os = Os::ALL.into_iter().find(|o| o.as_str() == os);
            let role = [Role::Leaf, Role::Spine, Role::SuperSpine]
                .into_iter()
                .find(|r| r.as_str().replace('-', "_") == role);
            let (border, width) = role_border(role);
            format!(
                "fill:{},stroke:{border},stroke-width:{width}px",
                os_fill(os, role.or(Some(Role::Leaf)))
            )
        }
    }
}

/// Text inside a quoted Mermaid label: quotes and angle brackets as entities.
fn text(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}
