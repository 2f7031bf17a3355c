//! Benchmark fabrics of published sizes, generated as intent YAML, and the phase timer behind `aifab bench`.
//!
//! - `1k`: 1,024 GPUs, rail-optimized 2-tier (NX-OS leaves, EOS 7800R3 spines, a SONiC group), 48 switches.
//! - `24k`: 24,576 GPUs Meta-style: 8 AI zones of 3,072 GPUs, a rack switch per 2 servers (16 × 400G
//!   down), deep-buffer 7800R3 spines per zone, an aggregation tier across zones at 4:1.
//! - `100k`: 100,000 GPUs xAI-style: 12,500 servers × 8 × 400G, three tiers: 128 × 400G Tomahawk 5
//!   rail leaves, 7800R3 spines in 7 zones, 128 super-spines in 64 planes.
//!
//! Every generated intent turns on each RoCE feature its platforms support: lossless RoCE with ECN, strict
//! CNP and CTS, PFC watchdog, DLB (where the platform has it), QP hashing (where it has it).

use crate::diag::Source;
use std::time::Instant;

/// The benchmark sizes, smallest first.
pub const SIZES: [&str; 3] = ["1k", "24k", "100k"];

const QOS: &str = r#"
qos:
  classes:
    roce: { dscp: [24, 26], priority: 3, lossless: true, ecn: { min: 150KB, max: 1500KB, probability: 10% }, bandwidth: 90% }
    cnp: { dscp: [48], priority: 6, strict: true }
    cts: { dscp: [46], priority: 5, strict: true }
    default: { bandwidth: 10% }
  pfc_watchdog: { detect: 200ms, restore: 1s, action: drop }
"#;

/// The intent YAML of a benchmark size, scaled down by `groups_div` (1 = full size) for tests.
pub fn intent_yaml(size: &str, scale_down: u32) -> Option<String> {
    let k = scale_down.max(1);
    let body = match size {
        "1k" => format!(
            r#"version: 1
fabric:
  name: bench1k
  topology:
    kind: rail-optimized
    servers: {servers}
    rails: 8
    nic_speed: 400G
    servers_per_group: 32
    leaf: {{ platform: nxos/n9k-c9364d-gx2a, hostname: "su{{group}}-r{{rail}}-leaf", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "spine{{index:02}}", count: 16 }}
    cable_length: {{ server: 3m, leaf_spine: 50m }}
  addressing: {{ loopbacks: 10.0.0.0/22, fabric_links: 10.1.0.0/17, server_links: 10.2.0.0/16 }}
  bgp: {{ spine_asn: 65000, leaf_asn: 65100-65299 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: per-packet, roles: [leaf], mac: "00:cc:cc:cc:cc:cc" }}
  hash: {{ roce_dest_qp: true, roles: [spine] }}
overrides:
  - {{ match: "su4-r*-leaf", platform: sonic/generic-th4, dlb: "off" }}
"#,
            servers = 128 / k.min(4)
        ),
        "24k" => {
            let zones = 8 / k.min(8);
            format!(
                r#"version: 1
fabric:
  name: bench24k
  topology:
    kind: three-tier
    servers: {servers}
    rails: 1
    nic_speed: 400G
    servers_per_group: 16
    server_hostname: "gpu{{index:05}}"
    zones: {zones}
    leaf: {{ platform: eos/7060x5-64, hostname: "z{{zone}}-rtsw{{group:04}}", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "z{{zone}}-ctsw{{index:02}}", count: 16, oversubscription: "4:1" }}
    super_spine: {{ platform: sonic/generic-th5-128x400g, hostname: "atsw{{index:03}}", count: 48, planes: 16 }}
    cable_length: {{ server: 3m, leaf_spine: 30m, spine_super_spine: 100m }}
  addressing: {{ loopbacks: 10.0.0.0/21, fabric_links: 10.64.0.0/16, server_links: 10.128.0.0/16 }}
  bgp: {{ spine_asn: 65000-65007, super_spine_asn: 65100, leaf_asn: 4200000000-4200009999 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: flowlet, roles: [leaf], mac: "00:cc:cc:cc:cc:cc" }}
  hash: {{ roce_dest_qp: true, roles: [spine] }}
overrides:
  - {{ match: "z1-rtsw00*", platform: nxos/n9k-c9364d-gx2a }}
"#,
                servers = 3072 * zones
            )
        }
        "100k" => {
            let zones = 7 / k.min(7);
            format!(
                r#"version: 1
fabric:
  name: bench100k
  topology:
    kind: three-tier
    servers: {servers}
    rails: 8
    nic_speed: 400G
    servers_per_group: 64
    server_hostname: "gpu{{index:05}}"
    zones: {zones}
    leaf: {{ platform: sonic/generic-th5-128x400g, hostname: "z{{zone}}-g{{group:03}}-r{{rail}}", uplink_speed: 400G }}
    spine: {{ platform: eos/7800r3, hostname: "z{{zone}}-s{{index:02}}", count: 64, oversubscription: "4:1" }}
    super_spine: {{ platform: eos/7800r3, hostname: "ss{{index:03}}", count: 128, planes: 64 }}
    cable_length: {{ server: 3m, leaf_spine: 30m, spine_super_spine: 100m }}
  addressing: {{ loopbacks: 10.0.0.0/20, fabric_links: 10.64.0.0/14, server_links: 10.128.0.0/14 }}
  bgp: {{ spine_asn: 65000-65009, super_spine_asn: 65100, leaf_asn: 4200000000-4200009999 }}
  mtu: 9214
{QOS}
load_balancing:
  dlb: {{ mode: "off" }}
  hash: {{ roce_dest_qp: true, roles: [spine, super-spine] }}
"#,
                // 28 groups of 64 servers per zone; the full size stops at 12,500 servers (100,000 GPUs).
                servers = if zones == 7 { 12_500 } else { 28 * 64 * zones }
            )
        }
        _ => return None,
    };
    Some(body)
}

/// Timings of one benchmark run, in milliseconds.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Timings {
    /// Size name.
    pub size: String,
    /// Switches rendered.
    pub devices: usize,
    /// GPUs (server NICs).
    pub gpus: u32,
    /// Files written.
    pub files: usize,
    /// Bytes written.
    pub bytes: u64,
    /// YAML load + schema validation.
    pub load_validate_ms: f64,
    /// Semantic checks.
    pub check_ms: f64,
    /// Compile.
    pub compile_ms: f64,
    /// Render alone (files produced and dropped).
    pub render_ms: f64,
    /// Render streamed to disk with the atomic write, as `aifab render --out` runs.
    pub render_write_ms: f64,
    /// load+validate + check + compile + render+write.
    pub total_ms: f64,
    /// The whole pipeline for one device (`render --only`): load, check, compile, render one.
    pub only_one_ms: f64,
    /// Peak resident set size, MiB.
    pub peak_rss_mib: f64,
    /// Rayon threads.
    pub threads: usize,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Peak RSS of this process in MiB (Linux `VmHWM`), 0 where unknown.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Runs every phase once on a generated fabric, writing into `out` (replaced), and times it.
pub fn measure(size: &str, out: &std::path::Path) -> Result<Timings, String> {
    let yaml = intent_yaml(size, 1).ok_or_else(|| format!("unknown size {size}"))?;
    let source = Source::new(format!("bench-{size}.yaml"), yaml);
    let all = Instant::now();

    let t = Instant::now();
    let (intent, spans) =
        crate::validate::load_and_validate(&source).map_err(|f| format!("{f:#?}"))?;
    let load_validate_ms = ms(t);

    let t = Instant::now();
    let findings = crate::check::run(&intent, &spans, &source);
    if crate::diag::has_errors(&findings) {
        return Err(format!("{findings:#?}"));
    }
    let check_ms = ms(t);

    let t = Instant::now();
    let catalog = crate::platform::Catalog::builtin();
    let model = crate::compile::compile(&intent, catalog).map_err(|f| format!("{f:#?}"))?;
    let compile_ms = ms(t);

    let renderer = crate::render::Renderer::new(catalog)?;
    let meta = crate::render::Meta::new(&source.name, &model.name);
    // Render alone: every file is produced and dropped.
    let t = Instant::now();
    renderer
        .fabric_each(&meta, &model, None, &|_| Ok(()), &|| {})
        .map_err(|e| e.join("\n"))?;
    let render_ms = ms(t);

    // What `aifab render --out` does: render and stream every file to disk, atomically.
    let t = Instant::now();
    let mut written = (0, 0);
    crate::write::write_with(out, |tmp| {
        let sink = |f: &crate::render::OutFile| crate::write::write_file(tmp, f);
        written = renderer
            .fabric_each(&meta, &model, None, &sink, &|| {})
            .map_err(|e| e.join("\n"))?;
        Ok(())
    })?;
    let render_write_ms = ms(t);
    let total_ms = load_validate_ms + check_ms + compile_ms + render_write_ms;
    let _ = all;

    // One device, the way `aifab render --only <host>` runs: the whole front with ports and cables
    // expanded only for that device, then one render.
    let t = Instant::now();
    let (intent1, spans1) =
        crate::validate::load_and_validate(&source).map_err(|f| format!("{f:#?}"))?;
    let _ = crate::check::run(&intent1, &spans1, &source);
    let host = model
        .devices
        .last()
        .map(|d| d.hostname.clone())
        .unwrap_or_default();
    let glob = globset::Glob::new(&host)
        .map_err(|e| e.to_string())?
        .compile_matcher();
    let model1 = crate::compile::compile_only(&intent1, catalog, Some(&glob))
        .map_err(|f| format!("{f:#?}"))?;
    let renderer1 = crate::render::Renderer::new(catalog)?;
    let one = renderer1
        .fabric(&meta, &model1, Some(&glob))
        .map_err(|e| e.join("\n"))?;
    let only_one_ms = ms(t);
    if one.len() < 2 {
        return Err("--only rendered nothing".into());
    }

    Ok(Timings {
        size: size.to_string(),
        devices: model.devices.len(),
        gpus: model.summary.gpus,
        files: written.0,
        bytes: written.1,
        load_validate_ms,
        check_ms,
        compile_ms,
        render_ms,
        render_write_ms,
        total_ms,
        only_one_ms,
        peak_rss_mib: peak_rss_mib(),
        threads: rayon::current_num_threads(),
    })
}

/// The results as a Markdown table (the README's table).
pub fn table(rows: &[Timings]) -> String {
    let mut s = String::from(
        "| fabric | GPUs | switches | output | load+validate | check | compile | render | render+write | total | µs/switch | switches/s | `--only` one switch | peak RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let per = r.total_ms * 1000.0 / r.devices.max(1) as f64;
        s.push_str(&format!(
            "| {} | {} | {} | {:.0} MB | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | **{:.0} ms** | {:.0} | {:.0} | {:.0} ms | {:.0} MiB |\n",
            r.size,
            r.gpus,
            r.devices,
            r.bytes as f64 / 1e6,
            r.load_validate_ms,
            r.check_ms,
            r.compile_ms,
            r.render_ms,
            r.render_write_ms,
            r.total_ms,
            per,
            r.devices as f64 / (r.total_ms / 1000.0),
            r.only_one_ms,
            r.peak_rss_mib
        ));
    }
    s
}
