//! A [`Picture`] as Graphviz dot, rows bottom to top (`rankdir=BT`).
//!
//! Each row of a zone (its server groups, leaves, spines) is ONE node whose HTML-like label is a table
//! with a cell per switch (or server group) in [`Place`] order, and the leaves of a server group sit in
//! a framed table of their own, headed `group N` (or `rack N`). Edges join the cells' ports. Graphviz's
//! `dot` does not keep the order of nodes inside a cluster (it ignores the invisible edges that would
//! hold it), so the order is built into the tables: rail 1 is left of rail 2, group 1 left of group 2,
//! whatever the layout does. The rows of a zone sit in a cluster `zone N`; the rows of all zones share
//! a rank, held in zone order by invisible edges between top-level nodes (which `dot` keeps).
//! Cells are filled per OS and bordered per role (per state in a change picture); a legend sits under
//! the title.

use super::{
    Node, Picture, Place, Row, State, edge_label, node_lines, os_fill, os_name, role_border,
    state_colour,
};
use crate::kinds::{Os, Role};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The node that draws one row of one zone (`None`: a fabric without zones, or the super-spines).
type RowKey = (Option<u32>, Row);

/// The picture as dot.
pub fn print(p: &Picture) -> String {
    let mut rows: BTreeMap<RowKey, Vec<&Place>> = BTreeMap::new();
    let mut servers: BTreeMap<(Option<u32>, Option<u32>), &Place> = BTreeMap::new();
    for place in p.nodes.keys() {
        if place.row == Row::Servers {
            servers.insert((place.zone, place.group), place);
        } else {
            rows.entry(row_key(place)).or_default().push(place);
        }
    }
    let lines = Lines::of(p, &servers);
    let mut s = String::new();
    let _ = writeln!(s, "graph {} {{", quote(&p.name));
    let _ = writeln!(
        s,
        "  graph [rankdir=BT, newrank=true, nodesep=0.4, ranksep=1.0, fontname=\"Helvetica\", labelloc=t, label={}];",
        legend(p)
    );
    s.push_str("  node [shape=plain, fontname=\"Helvetica\", fontsize=10];\n");
    s.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#666666\"];\n");
    let mut zone = None;
    for (key, places) in &rows {
        if key.0 != zone {
            if zone.is_some() {
                s.push_str("  }\n");
            }
            zone = key.0;
            if let Some(z) = zone {
                let _ = writeln!(s, "  subgraph \"cluster_z{z}\" {{");
                let _ = writeln!(
                    s,
                    "    label=\"zone {z}\"; style=rounded; color=\"#999999\"; bgcolor=\"#fbfbfb\"; fontname=\"Helvetica\";"
                );
            }
        }
        let indent = if zone.is_some() { "    " } else { "  " };
        let _ = writeln!(
            s,
            "{indent}{} [label=<{}>];",
            quote(&row_id(key)),
            table(p, places, &lines)
        );
    }
    if zone.is_some() {
        s.push_str("  }\n");
    }
    ranks(&mut s, &rows);
    for ((a, b, speed), e) in p
        .edges
        .iter()
        .filter(|((a, _, _), _)| a.row != Row::Servers)
    {
        let state = p.edge_state(e);
        let mut attrs = Vec::new();
        if !lines.summed.contains(a) {
            attrs.push(format!("label={}", quote(&edge_label(*speed, e, p.change))));
        }
        if state != State::Same {
            let c = state_colour(state);
            attrs.push(format!("color=\"{c}\", fontcolor=\"{c}\", penwidth=2"));
        }
        if state == State::Removed || (state == State::Same && (a.context || b.context)) {
            attrs.push("style=dashed".to_string());
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(
            s,
            "  {}:{}:n -- {}:{}:s{attrs};",
            quote(&row_id(&row_key(a))),
            quote(&a.name),
            quote(&row_id(&row_key(b))),
            quote(&b.name)
        );
    }
    s.push_str("}\n");
    s
}

/// The row node a place is drawn in.
fn row_key(p: &Place) -> RowKey {
    (p.zone, p.row)
}

/// A row node's name (with spaces: never a hostname).
fn row_id((zone, row): &RowKey) -> String {
    let row = match row {
        Row::Servers => "servers",
        Row::Leaves => "leaves",
        Row::Spines => "spines",
        Row::SuperSpines => "super-spines",
    };
    match zone {
        Some(z) => format!("zone {z} {row}"),
        None => format!("all {row}"),
    }
}

/// One rank per row across zones, its nodes held in zone order.
fn ranks(s: &mut String, rows: &BTreeMap<RowKey, Vec<&Place>>) {
    let mut by_row: BTreeMap<Row, Vec<String>> = BTreeMap::new();
    for key in rows.keys() {
        by_row.entry(key.1).or_default().push(quote(&row_id(key)));
    }
    for ids in by_row.values().filter(|ids| ids.len() > 1) {
        let _ = writeln!(s, "  {{ rank=same; {}; }}", ids.join("; "));
        for pair in ids.windows(2) {
            let _ = writeln!(s, "  {} -- {} [style=invis];", pair[0], pair[1]);
        }
    }
}

/// What the cells say besides their names: the server groups drawn inside the leaves' tables, a leaf's
/// server links (`4 x 400G to servers`), and a switch's uplinks when they are all alike (`2 x 400G to
/// each spine`, then its edges go unlabelled: a picture of every label between two dense rows is
/// unreadable).
struct Lines<'p> {
    /// Server group by (zone, group).
    servers: &'p BTreeMap<(Option<u32>, Option<u32>), &'p Place>,
    /// Per node, the lines below its name and platform.
    extra: BTreeMap<&'p Place, Vec<String>>,
    /// Nodes whose uplinks are summed up in their cell.
    summed: BTreeSet<&'p Place>,
}

impl<'p> Lines<'p> {
    fn of(
        p: &'p Picture,
        servers: &'p BTreeMap<(Option<u32>, Option<u32>), &'p Place>,
    ) -> Lines<'p> {
        let mut down: BTreeMap<&Place, Vec<String>> = BTreeMap::new();
        let mut up: BTreeMap<&Place, Vec<(String, Row)>> = BTreeMap::new();
        for ((a, b, speed), e) in &p.edges {
            let label = edge_label(*speed, e, p.change);
            if a.row == Row::Servers {
                down.entry(b).or_default().push(label);
            } else if p.edge_state(e) == State::Same {
                up.entry(a).or_default().push((label, b.row));
            } else {
                up.entry(a).or_default().push((String::new(), b.row));
            }
        }
        let mut extra: BTreeMap<&Place, Vec<String>> = BTreeMap::new();
        let mut summed = BTreeSet::new();
        for (node, links) in up {
            let (label, row) = &links[0];
            if links.len() < 2 || label.is_empty() || links.iter().any(|l| l != &links[0]) {
                continue;
            }
            let noun = if *row == Row::SuperSpines {
                "super-spine"
            } else {
                "spine"
            };
            extra
                .entry(node)
                .or_default()
                .push(format!("{label} to each {noun}"));
            summed.insert(node);
        }
        for (leaf, labels) in down {
            extra
                .entry(leaf)
                .or_default()
                .push(format!("{} to servers", labels.join(" + ")));
        }
        Lines {
            servers,
            extra,
            summed,
        }
    }

    /// The extra lines of a node's cell.
    fn of_node(&self, place: &Place) -> Vec<String> {
        self.extra.get(place).cloned().unwrap_or_default()
    }
}

/// A row's table: a cell per node; the leaves of a server group framed together under its name, with
/// the group's servers in a cell below them.
fn table(p: &Picture, places: &[&Place], below: &Lines) -> String {
    let mut t = String::from("<table border=\"0\" cellspacing=\"8\" cellpadding=\"0\"><tr>");
    let mut i = 0;
    while i < places.len() {
        let group = places[i].group;
        let run = places[i..]
            .iter()
            .take_while(|pl| pl.group == group)
            .count();
        let cells: String = places[i..i + run]
            .iter()
            .map(|pl| cell(p, pl, &p.nodes[*pl], below.of_node(pl)))
            .collect();
        let servers = below
            .servers
            .get(&(places[i].zone, group))
            .filter(|_| places[i].row == Row::Leaves)
            .map(|pl| {
                format!(
                    "<tr>{}</tr>",
                    cell(p, pl, &p.nodes[*pl], Vec::new()).replacen(
                        "<td ",
                        &format!("<td colspan=\"{run}\" "),
                        1
                    )
                )
            })
            .unwrap_or_default();
        match group {
            Some(g) if places[i].row == Row::Leaves => {
                let rack = places[i..i + run].iter().all(|pl| p.nodes[*pl].rack);
                let word = if rack { "rack" } else { "group" };
                let _ = write!(
                    t,
                    "<td><table border=\"1\" style=\"rounded\" color=\"#aaaaaa\" cellspacing=\"4\" cellpadding=\"3\"><tr><td colspan=\"{run}\" border=\"0\"><font color=\"#555555\">{word} {g}</font></td></tr><tr>{cells}</tr>{servers}</table></td>"
                );
            }
            _ => {
                let _ = write!(
                    t,
                    "<td><table border=\"0\" cellspacing=\"4\" cellpadding=\"3\"><tr>{cells}</tr>{servers}</table></td>"
                );
            }
        }
        i += run;
    }
    t.push_str("</tr></table>");
    t
}

/// A cell: name in bold, then the platform or what it collapses; filled per OS, bordered per role (per
/// state in a change picture), dashed and white as context.
fn cell(p: &Picture, place: &Place, n: &Node, extra: Vec<String>) -> String {
    let mut lines = node_lines(place, n, p.change);
    lines.extend(extra);
    let mut text = String::new();
    for (i, l) in lines.iter().enumerate() {
        match i {
            0 => {
                let _ = write!(text, "<b>{}</b>", html(l));
            }
            _ => {
                let _ = write!(text, "<br/><font point-size=\"8\">{}</font>", html(l));
            }
        }
    }
    let (mut border, mut width) = role_border(n.role);
    let state = p.node_state(n);
    if state != State::Same {
        border = state_colour(state);
        width = 3;
    }
    let mut style = Vec::new();
    if n.role != Some(Role::Leaf) {
        style.push("rounded");
    }
    if n.role.is_none() || place.context || state == State::Removed {
        style.push("dashed");
    }
    let fill = if place.context {
        "#ffffff"
    } else {
        os_fill(n.os, n.role)
    };
    let style = if style.is_empty() {
        String::new()
    } else {
        format!(" style=\"{}\"", style.join(","))
    };
    let text = if place.context {
        format!("<font color=\"#666666\">{text}</font>")
    } else {
        text
    };
    format!(
        "<td port=\"{}\" bgcolor=\"{fill}\" color=\"{border}\" border=\"{width}\"{style}>{text}</td>",
        html(&place.name)
    )
}

/// The title, and a legend of the OS colours and role borders the picture uses (an HTML-like label).
fn legend(p: &Picture) -> String {
    let mut cells = String::new();
    for os in Os::ALL {
        if p.nodes.values().any(|n| n.os == Some(os)) {
            let _ = write!(
                cells,
                "<td bgcolor=\"{}\" border=\"1\">{}</td>",
                os_fill(Some(os), Some(Role::Leaf)),
                os_name(os)
            );
        }
    }
    for role in [Role::Leaf, Role::Spine, Role::SuperSpine] {
        if p.nodes.values().any(|n| n.role == Some(role)) {
            let (colour, width) = role_border(Some(role));
            let _ = write!(
                cells,
                "<td border=\"{width}\" color=\"{colour}\"><font color=\"{colour}\">{role}</font></td>"
            );
        }
    }
    if p.change {
        for (state, word) in [
            (State::Added, "added"),
            (State::Removed, "removed"),
            (State::Changed, "re-counted"),
        ] {
            let c = state_colour(state);
            let _ = write!(
                cells,
                "<td border=\"3\" color=\"{c}\"><font color=\"{c}\">{word}</font></td>"
            );
        }
    }
    format!(
        "<<table border=\"0\" cellspacing=\"4\"><tr><td colspan=\"9\"><b>{}</b></td></tr><tr>{cells}</tr></table>>",
        html(&p.title())
    )
}

/// A dot ID in quotes.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Text inside an HTML-like label.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
