//! `aifab plan` as a user runs it: the cabling CSV, the summary table and the drawings.

use std::process::Command;

fn plan(intent: &str, format: &str) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_aifab"))
        .args(["plan", intent, "--format", format])
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
fn drawings_collapse_and_name_every_tier() {
    let (dot, _) = plan("intents/three-tier-small.yaml", "dot");
    assert!(dot.starts_with("graph \"zones2\" {"));
    assert!(dot.contains("\"z1-spine1\" -- \"ss1\""), "{dot}");
    let (mermaid, _) = plan("intents/pod1-1024.yaml", "mermaid");
    // Fabrics of up to 64 switches are drawn switch by switch; larger ones collapse per group.
    assert!(mermaid.starts_with("flowchart BT"));
    assert_eq!(mermaid.lines().filter(|l| l.contains("[\"")).count(), 48);
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
