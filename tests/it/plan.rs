//! `aifab plan` as a user runs it: the cabling CSV, the summary table and the drawings.

use crate::common::{diff_of, prerequisite};
use std::path::{Path, PathBuf};
use std::process::Command;

fn plan(intent: &str, format: &str) -> (String, String) {
    plan_with(intent, format, &[])
}

fn plan_with(intent: &str, format: &str, more: &[&str]) -> (String, String) {
    let o = crate::common::aifab_command()
        .args(["plan", intent, "--format", format])
        .args(more)
        .output()
        .expect("run");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        String::from_utf8(o.stdout).expect("utf8"),
        String::from_utf8(o.stderr).expect("utf8"),
    )
}

#[test]
fn csv_has_one_row_per_cable_and_the_summary_numbers() {
    let (csv, summary) = plan("intents/pod1-1024.yaml", "csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "device,port,peer,peer_port,speed,cable_length,tier,subnet"
    );
    assert_eq!(
        rows.len() - 1,
        1024 + 1024,
        "1,024 server links + 1,024 leaf-spine links"
    );
    assert_eq!(
        rows.iter()
            .filter(|r| r.ends_with("/31") && r.contains(",leaf-spine,"))
            .count(),
        1024
    );
    assert!(
        rows.contains(&"su1-r1-leaf,Ethernet1/1,server0001,nic1,400G,3m,server-leaf,10.2.0.0/31"),
        "{}",
        rows[1]
    );
    assert!(rows.contains(
        &"spine01,Ethernet3/1/1,su1-r1-leaf,Ethernet1/33,400G,50m,leaf-spine,10.1.0.0/31"
    ));
    // No port appears twice on the same device.
    let mut ports = std::collections::BTreeSet::new();
    for r in &rows[1..] {
        let f: Vec<&str> = r.split(',').collect();
        assert!(ports.insert((f[0].to_string(), f[1].to_string())), "{r}");
        if f[6] != "server-leaf" {
            assert!(ports.insert((f[2].to_string(), f[3].to_string())), "{r}");
        }
    }
    for want in [
        "leaves                             32",
        "spines                             16",
        "server-leaf                      1024",
        "leaf-spine                       1024",
        "leaf                              1:1",
        "leaf ECMP width                      32",
    ] {
        assert!(summary.contains(want), "summary lacks `{want}`:\n{summary}");
    }
}

#[test]
fn summary_counts_every_tier() {
    let (summary, _) = plan("intents/three-tier-small.yaml", "summary");
    assert!(
        summary.contains("spine                             4:1"),
        "{summary}"
    );
    assert!(
        summary.contains("spine-super-spine                  16"),
        "{summary}"
    );
}

/// The block of a dot subgraph `cluster_<id>`, up to its closing brace.
fn cluster<'a>(dot: &'a str, id: &str) -> &'a str {
    let head = format!("subgraph \"cluster_{id}\" {{");
    let at = dot
        .find(&head)
        .unwrap_or_else(|| panic!("no {head} in\n{dot}"));
    let rest = &dot[at..];
    let end = rest.find("\n  }\n").expect("cluster end");
    &rest[..end]
}

/// The line of a dot node statement `"<id>" [label=<...>];`.
fn node_line<'a>(dot: &'a str, id: &str) -> &'a str {
    let head = format!("\"{id}\" [label=");
    dot.lines()
        .find(|l| l.trim_start().starts_with(&head))
        .unwrap_or_else(|| panic!("no node {id} in\n{dot}"))
}

/// The ports (cells) of a node's table, in order.
fn ports(line: &str) -> Vec<String> {
    line.split("port=\"")
        .skip(1)
        .map(|s| s[..s.find('"').expect("port end")].to_string())
        .collect()
}

/// The Bar of issue 39: every leaf of three-tier-small sits in its zone's cluster, framed with its
/// server group, and each group's leaves stand in rail order, groups in order; spines and super-spines
/// in rows.
#[test]
fn three_tier_small_dot_clusters_every_leaf_under_its_zone_in_rail_order() {
    let (dot, _) = plan("intents/three-tier-small.yaml", "dot");
    assert!(dot.starts_with("graph \"zones2\" {"), "{dot}");
    for (zone, groups) in [(1, [1, 2]), (2, [3, 4])] {
        let c = cluster(&dot, &format!("z{zone}"));
        assert!(c.contains(&format!("label=\"zone {zone}\"")), "{c}");
        let leaves = node_line(c, &format!("zone {zone} leaves"));
        let want: Vec<String> = groups
            .iter()
            .flat_map(|g| (1..=4).map(move |r| format!("z{zone}-g{g}-r{r}")))
            .chain(groups.iter().map(|g| format!("servers z{zone} g{g}")))
            .collect();
        let mut got = ports(leaves);
        // Servers sit in their group's frame below its leaves; compare the leaves' order alone.
        let servers: Vec<String> = got
            .iter()
            .filter(|p| p.starts_with("servers"))
            .cloned()
            .collect();
        got.retain(|p| !p.starts_with("servers"));
        assert_eq!(got, want[..8].to_vec(), "{leaves}");
        assert_eq!(servers, want[8..].to_vec(), "{leaves}");
        // Each group is a frame headed `group N` holding its four leaves.
        for g in groups {
            let head = format!("group {g}</font>");
            let at = leaves
                .find(&head)
                .unwrap_or_else(|| panic!("{head}: {leaves}"));
            let frame = &leaves[at..leaves[at..]
                .find("</table>")
                .map_or(leaves.len(), |e| at + e)];
            assert_eq!(
                ports(frame),
                (1..=4)
                    .map(|r| format!("z{zone}-g{g}-r{r}"))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .chain([format!("servers z{zone} g{g}")])
                    .collect::<Vec<_>>(),
                "{frame}"
            );
        }
        assert_eq!(
            ports(node_line(c, &format!("zone {zone} spines"))),
            [format!("z{zone}-spine1"), format!("z{zone}-spine2")]
        );
    }
    // No leaf outside its zone's cluster; super-spines in one row above; the zones' rows share ranks.
    let z1 = cluster(&dot, "z1");
    assert!(!z1.contains("port=\"z2-"), "{z1}");
    assert_eq!(ports(node_line(&dot, "all super-spines")), ["ss1", "ss2"]);
    for row in ["leaves", "spines"] {
        assert!(
            dot.contains(&format!(
                "{{ rank=same; \"zone 1 {row}\"; \"zone 2 {row}\"; }}"
            )),
            "{dot}"
        );
    }
    // Colours per OS and role, labels `count x speed`.
    assert!(
        dot.contains("port=\"z1-g1-r1\" bgcolor=\"#d9ead3\" color=\"#274e13\""),
        "{dot}"
    );
    assert!(
        dot.contains("port=\"ss1\" bgcolor=\"#cfe2f3\" color=\"#741b47\" border=\"3\""),
        "{dot}"
    );
    assert!(dot.contains("2 x 400G to each spine"), "{dot}");
    assert!(dot.contains("4 x 400G to servers"), "{dot}");
    assert!(dot.contains("2 x 400G to each super-spine"), "{dot}");
    assert!(
        dot.contains("\"zone 1 leaves\":\"z1-g1-r1\":n -- \"zone 1 spines\":\"z1-spine1\":s;"),
        "{dot}"
    );
}

/// `<text ... x="X" y="Y" ...>NAME</text>` of the committed SVG: each text's position.
fn svg_texts(svg: &str) -> Vec<(String, f64, f64)> {
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        let at = tag.find(&key).expect("attribute") + key.len();
        tag[at..at + tag[at..].find('"').expect("quote")]
            .parse()
            .expect("number")
    };
    svg.split("<text ")
        .skip(1)
        .map(|t| {
            let (tag, rest) = t.split_once('>').expect("tag");
            let text = rest[..rest.find("</text>").expect("end")]
                .replace("&#45;", "-")
                .replace("&#160;", " ")
                .replace("&amp;", "&");
            (text, attr(tag, "x"), attr(tag, "y"))
        })
        .collect()
}

/// The bounding box (x0, y0, x1, y1) of the cluster `<title>cluster_<id></title>` of an SVG.
fn svg_cluster_box(svg: &str, id: &str) -> (f64, f64, f64, f64) {
    let title = format!("<title>cluster_{id}</title>");
    let at = svg.find(&title).unwrap_or_else(|| panic!("no {title}"));
    let rest = &svg[at..];
    let d = rest
        .find(" d=\"")
        .map(|i| &rest[i + 4..])
        .or_else(|| rest.find("points=\"").map(|i| &rest[i + 8..]))
        .expect("outline");
    let d = &d[..d.find('"').expect("end")];
    let nums: Vec<f64> = d
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    let xs = nums.iter().step_by(2);
    let ys = nums.iter().skip(1).step_by(2);
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
    let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(*y), b.max(*y)));
    (x0, y0, x1, y1)
}

/// The committed drawing (docs/topologies/three-tier-small.svg, as Graphviz laid it out): every leaf
/// inside its zone's box, rails left to right within a group, groups and zones left to right.
#[test]
fn committed_svg_of_three_tier_small_draws_leaves_in_zone_boxes_in_rail_order() {
    let svg = std::fs::read_to_string("docs/topologies/three-tier-small.svg").expect("svg");
    let texts = svg_texts(&svg);
    let at = |name: &str| -> (f64, f64) {
        texts
            .iter()
            .find(|(t, _, _)| t == name)
            .map(|(_, x, y)| (*x, *y))
            .unwrap_or_else(|| panic!("{name} not drawn"))
    };
    let mut last_x = f64::MIN;
    for (zone, groups) in [(1, [1, 2]), (2, [3, 4])] {
        let (x0, y0, x1, y1) = svg_cluster_box(&svg, &format!("z{zone}"));
        for g in groups {
            for r in 1..=4 {
                let name = format!("z{zone}-g{g}-r{r}");
                let (x, y) = at(&name);
                assert!(
                    x > last_x,
                    "{name} at x {x} is not right of the leaf before ({last_x})"
                );
                last_x = x;
                assert!(
                    (x0..=x1).contains(&x) && (y0..=y1).contains(&y),
                    "{name} ({x}, {y}) outside zone {zone} ({x0}, {y0})-({x1}, {y1})"
                );
            }
        }
        // Spines above the leaves, super-spines above the spines (SVG y grows downwards).
        assert!(at(&format!("z{zone}-spine1")).1 < at(&format!("z{zone}-g{}-r1", groups[0])).1);
        assert!(at("ss1").1 < at(&format!("z{zone}-spine1")).1);
    }
}

/// The pictures in docs/topologies.md: for every example intent, the committed .dot is what `aifab
/// plan --format dot` prints now, and the committed .svg draws it. `AIFAB_BLESS=1` rewrites the .dot
/// files, and the .svg files when Graphviz's `dot` is installed (Debian's `graphviz`; CI has it).
#[test]
fn committed_pictures_are_fresh() {
    let bless = std::env::var("AIFAB_BLESS").is_ok_and(|v| v == "1");
    let graphviz = Command::new("dot")
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success());
    let have_dot = prerequisite(
        graphviz.is_some(),
        "plan::committed_pictures_are_fresh (the exact redraw of each .svg)",
        "Graphviz `dot` is not installed",
        "apt-get install graphviz",
    );
    let version = graphviz
        .map(|o| {
            String::from_utf8_lossy(&o.stderr)
                .trim()
                .replace("dot - graphviz version ", "")
        })
        .unwrap_or_default();
    let mut stale = Vec::new();
    for intent in crate::common::example_intents() {
        let name = Path::new(&intent)
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let (dot, _) = plan(&intent, "dot");
        let dot_path = PathBuf::from(format!("docs/topologies/{name}.dot"));
        let svg_path = dot_path.with_extension("svg");
        if bless {
            std::fs::create_dir_all("docs/topologies").expect("mkdir");
            std::fs::write(&dot_path, &dot).expect("write dot");
            if have_dot {
                std::fs::write(&svg_path, svg_of(&dot)).expect("write svg");
            }
        }
        if std::fs::read_to_string(&dot_path).ok().as_deref() != Some(dot.as_str()) {
            stale.push(format!(
                "{} (aifab plan {intent} --format dot)",
                dot_path.display()
            ));
            continue;
        }
        let svg = std::fs::read_to_string(&svg_path).unwrap_or_default();
        // Without Graphviz: every cell of the .dot is drawn in the .svg.
        let texts: Vec<String> = svg_texts(&svg).into_iter().map(|t| t.0).collect();
        let missing: Vec<String> = dot
            .lines()
            .flat_map(ports)
            .filter(|p| !texts.contains(p) && !p.starts_with("servers") && !p.contains(' '))
            .collect();
        if svg.is_empty() || !missing.is_empty() {
            stale.push(format!("{} (lacks {missing:?})", svg_path.display()));
            continue;
        }
        // With the Graphviz that drew it: exactly what it draws from the .dot.
        if have_dot
            && svg.contains(&format!("Generated by graphviz version {version}"))
            && svg_of(&dot) != svg
        {
            stale.push(format!(
                "{} (dot -Tsvg {} differs)",
                svg_path.display(),
                dot_path.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "stale pictures: {stale:#?}\nrerun with AIFAB_BLESS=1 (and Graphviz installed) to redraw them, then review"
    );
}

/// `dot -Tsvg` of a dot text.
fn svg_of(dot: &str) -> String {
    use std::io::Write as _;
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("dot");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(dot.as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("dot");
    assert!(o.status.success(), "dot -Tsvg failed");
    String::from_utf8(o.stdout).expect("utf8")
}

#[test]
fn zone_rail_and_glob_views_draw_a_part_with_its_neighbours() {
    let t = "intents/three-tier-small.yaml";
    // One zone: its leaves and spines; the super-spines as context (dashed, white); no other zone.
    let (dot, _) = plan_with(t, "dot", &["--zone", "2"]);
    assert!(
        dot.contains("zones2 (zone 2): 8 leaves, 2 spines, 2 super-spines, 8 servers"),
        "{dot}"
    );
    assert!(!dot.contains("z1-"), "{dot}");
    assert!(
        dot.contains("port=\"ss1\" bgcolor=\"#ffffff\" color=\"#741b47\" border=\"3\" style=\"rounded,dashed\""),
        "{dot}"
    );
    // One rail: its leaves in every zone, their spines as context, and nothing above.
    let (dot, _) = plan_with(t, "dot", &["--rail", "3"]);
    let leaves: Vec<String> = ["zone 1 leaves", "zone 2 leaves"]
        .iter()
        .flat_map(|n| ports(node_line(&dot, n)))
        .filter(|p| !p.starts_with("servers"))
        .collect();
    assert_eq!(
        leaves,
        ["z1-g1-r3", "z1-g2-r3", "z2-g3-r3", "z2-g4-r3"],
        "{dot}"
    );
    assert!(
        dot.contains("port=\"z1-spine1\" bgcolor=\"#ffffff\""),
        "{dot}"
    );
    assert!(!dot.contains("ss1"), "{dot}");
    // Both, and a glob; the mermaid form takes them too.
    let (mermaid, _) = plan_with(t, "mermaid", &["--zone", "1", "--rail", "1"]);
    assert!(
        mermaid.contains("\"z1-g2-r1<br/>eos/7060x5-64\"]:::eos_leaf"),
        "{mermaid}"
    );
    assert!(!mermaid.contains("z1-g2-r2"), "{mermaid}");
    assert!(mermaid.contains(":::context"), "{mermaid}");
    let (dot, _) = plan_with(t, "dot", &["--only", "z1-spine*"]);
    assert!(dot.contains("(switches z1-spine*)"), "{dot}");
    assert_eq!(
        ports(node_line(&dot, "zone 1 spines")),
        ["z1-spine1", "z1-spine2"]
    );
    // A view that selects nothing, or a view of a format that draws nothing, is refused.
    for args in [
        vec!["plan", t, "--format", "dot", "--zone", "9"],
        vec!["plan", t, "--format", "csv", "--zone", "1"],
        vec!["plan", t, "--format", "mermaid", "--only", "nope*"],
    ] {
        let o = crate::common::aifab_command()
            .args(&args)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error: "), "{args:?}: {err}");
    }
}

#[test]
fn mermaid_clusters_zones_and_groups_with_labels_and_colours() {
    let (m, _) = plan("intents/three-tier-small.yaml", "mermaid");
    assert!(m.starts_with("---\ntitle: \"zones2: 16 leaves, 4 spines, 2 super-spines, 16 servers\"\n---\nflowchart BT\n"), "{m}");
    let z1 = &m[m.find("subgraph c_z1 [\"zone 1\"]").expect("zone 1")
        ..m.find("subgraph c_z2 ").expect("zone 2")];
    let g1 = &z1[z1.find("subgraph c_z1_g1 [\"group 1\"]").expect("group 1")
        ..z1.find("subgraph c_z1_g2").expect("group 2")];
    let order: Vec<usize> = (1..=4)
        .map(|r| {
            g1.find(&format!("\"z1-g1-r{r}<br/>"))
                .unwrap_or_else(|| panic!("rail {r}: {g1}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{g1}");
    assert!(g1.contains("4 servers<br/>server0001 … server0004"), "{g1}");
    for class in ["eos_leaf", "sonic_spine", "nxos_super_spine", "servers"] {
        assert!(m.contains(&format!("classDef {class} ")), "{class}: {m}");
    }
    assert!(m.contains("---|\"2 x 400G\"|"), "{m}");
    assert!(m.contains("---|\"4 x 400G\"|"), "{m}");
}

#[test]
fn large_fabrics_collapse_per_rail_then_per_zone() {
    // pod1-1024: 48 switches but 512 leaf-spine bundles: the leaves of a rail become one node.
    let (dot, _) = plan("intents/pod1-1024.yaml", "dot");
    assert!(
        dot.contains("pod1: 32 leaves, 16 spines, 128 servers; leaves collapsed per rail"),
        "{dot}"
    );
    let cells: Vec<String> = ports(node_line(&dot, "all leaves"))
        .into_iter()
        .filter(|p| !p.starts_with("servers"))
        .collect();
    assert_eq!(
        cells,
        (1..=8)
            .map(|r| format!("rail{r} leaves"))
            .collect::<Vec<_>>()
    );
    assert!(
        dot.contains(
            "<b>4 leaves, rail 1</b><br/><font point-size=\"8\">su1-r1-leaf … su4-r1-leaf</font>"
        ),
        "{dot}"
    );
    assert_eq!(ports(node_line(&dot, "all spines")).len(), 16);
    // The 100K bench fabric, 7 times smaller (224 leaves, 64 spines, 128 super-spines): rails, spines
    // and super-spines collapse, and the picture stays within its limits.
    let yaml = crate::fabrics::intent_yaml("100k", 7).expect("100k");
    let front = aifab::pipeline::front_source(aifab::diag::Source::new("100k.yaml", yaml))
        .unwrap_or_else(|_| panic!("100k compiles"));
    let p = aifab::picture::Picture::of(&front.model, &aifab::picture::View::default());
    assert_eq!(p.level, 2, "{}", p.title());
    assert!(
        p.nodes.len() <= aifab::picture::MAX_NODES && p.edges.len() <= aifab::picture::MAX_EDGES
    );
    let dot = aifab::picture::dot::print(&p);
    assert_eq!(
        ports(node_line(&dot, "zone 1 leaves"))
            .into_iter()
            .filter(|c| !c.contains("servers"))
            .collect::<Vec<_>>(),
        (1..=8)
            .map(|r| format!("z1 rail{r} leaves"))
            .collect::<Vec<_>>()
    );
    assert!(dot.contains("64 spines"), "{dot}");
    assert!(dot.contains("128 super-spines"), "{dot}");
}

/// `aifab diff --format markdown` draws what a topology change adds and removes as Mermaid.
#[test]
fn diff_markdown_draws_the_topology_change() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("aifab-plan-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let base = std::fs::read_to_string("intents/three-tier-small.yaml").expect("read");
    // 8 more servers: zone 1 gets group 3, zone 2 groups 5 and 6 (its old group 3 is renumbered away).
    let grown = dir.join("grown.yaml");
    std::fs::write(
        &grown,
        base.replace("servers: 16", "servers: 24")
            .replace("fabric_links: 10.21.0.0/24", "fabric_links: 10.21.0.0/23"),
    )
    .expect("write");
    let mtu = dir.join("mtu.yaml");
    std::fs::write(&mtu, base.replace("mtu: 9214", "mtu: 9100")).expect("write");
    let diff = |new: &Path| diff_of(&["intents/three-tier-small.yaml"], new, "markdown");
    let md = diff(&grown);
    let at = md.find("#### Topology").expect("topology block");
    let block = &md[at..at + md[at..].find("```\n\n").expect("end of block")];
    assert!(block.contains("```mermaid\n---\ntitle: \"zones2 (changes): 12 switches added, 4 removed; 104 cables added, 32 removed\""), "{block}");
    assert!(
        block.contains("\"z1-g3-r1<br/>eos/7060x5-64<br/>added\"]:::added"),
        "{block}"
    );
    assert!(
        block.contains("\"z2-g3-r4<br/>eos/7060x5-64<br/>removed\"]:::removed"),
        "{block}"
    );
    assert!(
        block.contains("\"z1-spine1<br/>sonic/dell-z9664f-o64\"):::context"),
        "{block}"
    );
    assert!(block.contains("===|\"2 → 3 x 400G\"|"), "{block}");
    assert!(
        !block.contains("z1-g1-r1"),
        "an untouched leaf is drawn: {block}"
    );
    // The table of what it means comes first, the files after.
    assert!(at > md.find("### aifab diff").expect("head"));
    assert!(md.find("#### Files").expect("files") > at);
    // A change that moves no switch and no cable draws nothing.
    assert!(!diff(&mtu).contains("#### Topology"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every example drawn switch by switch: each leaf is one cell of its zone's leaves row, inside the
/// frame of its server group (`rack N` for rack leaves), and a frame's leaves stand in plane, then
/// rail order.
#[test]
fn every_example_frames_each_leaf_in_its_zone_and_group_in_order() {
    use aifab::kinds::Role;
    for intent in crate::common::example_intents() {
        let m = crate::common::model(&intent);
        let p = aifab::picture::Picture::of(&m, &aifab::picture::View::default());
        if p.level > 0 {
            continue;
        }
        let dot = aifab::picture::dot::print(&p);
        for d in m.devices.iter().filter(|d| d.role == Role::Leaf) {
            let row = match d.zone {
                Some(z) => node_line(cluster(&dot, &format!("z{z}")), &format!("zone {z} leaves")),
                None => node_line(&dot, "all leaves"),
            };
            let cell = format!("port=\"{}\"", d.hostname);
            assert_eq!(row.matches(&cell).count(), 1, "{intent}: {}", d.hostname);
            assert_eq!(dot.matches(&cell).count(), 1, "{intent}: {}", d.hostname);
            let word = if d.rail.is_some() { "group" } else { "rack" };
            let g = d.group.expect("leaf group");
            let head = format!(">{word} {g}</font>");
            let at = row
                .find(&head)
                .unwrap_or_else(|| panic!("{intent}: no {head}"));
            let frame = &row[at..at + row[at..].find("</table>").expect("frame end")];
            assert!(
                frame.contains(&cell),
                "{intent}: {} not in {word} {g}",
                d.hostname
            );
        }
        // Within each frame, the leaves' (plane, rail) never go down.
        for g in m
            .devices
            .iter()
            .filter_map(|d| d.group)
            .collect::<std::collections::BTreeSet<_>>()
        {
            let order: Vec<(Option<u32>, Option<u32>)> = m
                .devices
                .iter()
                .filter(|d| d.role == Role::Leaf && d.group == Some(g))
                .map(|d| {
                    (
                        dot.find(&format!("port=\"{}\"", d.hostname)).expect("cell"),
                        (d.plane, d.rail),
                    )
                })
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_values()
                .collect();
            assert!(
                order.windows(2).all(|w| w[0] <= w[1]),
                "{intent}: group {g}: {order:?}"
            );
        }
    }
}
