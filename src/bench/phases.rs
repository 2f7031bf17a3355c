//! The phase timer: runs every phase of the pipeline on a generated fabric in this process and times
//! each (load+validate, check, compile, the deadlock check, render, render+write, `--only` one
//! switch).

use super::intent_yaml;
use aifab::diag::{Finding, Source};
use std::time::Instant;

/// An error of another stage, carried as it came (its `Display` is the message).
type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a phase run stopped: the size, the stage that found errors (its findings), the render or the
/// write, the generated state or its verify.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PhaseError {
    /// No generated fabric has the size.
    #[error("unknown size {size}")]
    UnknownSize {
        /// The size asked for.
        size: String,
    },
    /// A stage (load+validate, check, compile, the deadlock check) found errors: all of them.
    #[error("{0:#?}")]
    Findings(Vec<Finding>),
    /// The renderer could not be built, or a file rendered.
    #[error("{0}")]
    Render(#[source] Cause),
    /// The output could not be written.
    #[error("{0}")]
    Write(#[source] Cause),
    /// The last switch's hostname is no glob.
    #[error("{0}")]
    Glob(#[source] globset::Error),
    /// `--only` rendered no file of the switch.
    #[error("--only rendered nothing")]
    NothingRendered,
    /// The generated state could not be written.
    #[error(transparent)]
    Synth(#[from] aifab::verify::synth::SynthError),
    /// Verify could not read the generated state.
    #[error(transparent)]
    Verify(#[from] aifab::verify::VerifyError),
    /// The generated state did not verify clean: its first findings, as lines.
    #[error("the generated state did not verify clean: {}", first.join("; "))]
    NotClean {
        /// The first findings.
        first: Vec<String>,
    },
}

/// [`PhaseError::Render`] of whatever error the renderer gave.
fn render_error(e: impl Into<Cause>) -> PhaseError {
    PhaseError::Render(e.into())
}

/// Timings of one benchmark run, in milliseconds.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Timings {
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
    /// The deadlock analysis of the compiled fabric (`AIF-ROUTE-*`, src/check/deadlock.rs).
    #[serde(default)]
    pub deadlock_ms: f64,
    /// Render alone (files produced and dropped).
    pub render_ms: f64,
    /// Render streamed to disk with the atomic write, as `aifab render --out` runs.
    pub render_write_ms: f64,
    /// load+validate + check + compile + render+write.
    pub total_ms: f64,
    /// The whole pipeline for one device (`render --only`): load, check, compile, render one.
    pub only_one_ms: f64,
    /// `aifab verify` of a state folder that a fabric running its model gives (generated, every document
    /// of every switch), in this process.
    #[serde(default)]
    pub verify_ms: f64,
    /// Bytes of that state folder.
    #[serde(default)]
    pub state_bytes: u64,
    /// Peak resident set size, MiB.
    pub peak_rss_mib: f64,
    /// Rayon threads.
    pub threads: usize,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Peak RSS of this process in MiB (Linux `VmHWM`), 0 where unknown.
pub(crate) fn peak_rss_mib() -> f64 {
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
pub(crate) fn measure(size: &str, out: &std::path::Path) -> Result<Timings, PhaseError> {
    let yaml = intent_yaml(size, 1).ok_or_else(|| PhaseError::UnknownSize {
        size: size.to_string(),
    })?;
    let source = Source::new(format!("bench-{size}.yaml"), yaml);

    let t = Instant::now();
    let (intent, spans) =
        aifab::validate::load_and_validate(&source).map_err(PhaseError::Findings)?;
    let load_validate_ms = ms(t);

    let t = Instant::now();
    let findings = aifab::check::run(&intent, &spans, &source);
    if aifab::diag::has_errors(&findings) {
        return Err(PhaseError::Findings(findings));
    }
    let check_ms = ms(t);

    let t = Instant::now();
    let catalog = aifab::platform::Catalog::builtin();
    let model = aifab::compile::compile(&intent, catalog).map_err(PhaseError::Findings)?;
    let compile_ms = ms(t);

    let t = Instant::now();
    let route = aifab::check::deadlock_rules(&model);
    if aifab::diag::has_errors(&route) {
        return Err(PhaseError::Findings(route));
    }
    let deadlock_ms = ms(t);

    let renderer = aifab::render::Renderer::new(catalog).map_err(render_error)?;
    let meta = aifab::render::Meta::new(&source.name, &model.name);
    // Render alone: every file is produced and dropped.
    let t = Instant::now();
    renderer
        .fabric_each(&meta, &model, None, &|_| Ok(()), &|| {})
        .map_err(|e| render_error(aifab::render::RenderErrors(e)))?;
    let render_ms = ms(t);

    // What `aifab render --out` does: render and stream every file to disk, atomically.
    let t = Instant::now();
    let mut written = (0, 0);
    aifab::write::write_with(out, |stage| {
        let sink = |f: &aifab::render::OutFile| -> Result<(), aifab::render::SinkError> {
            Ok(stage.put(f)?)
        };
        written = renderer
            .fabric_each(&meta, &model, None, &sink, &|| {})
            .map_err(aifab::render::RenderErrors)?;
        Ok(())
    })
    .map_err(|e| PhaseError::Write(e.into()))?;
    let render_write_ms = ms(t);
    let total_ms = load_validate_ms + check_ms + compile_ms + deadlock_ms + render_write_ms;

    // One device, the way `aifab render --only <host>` runs: the whole front with ports and cables
    // expanded only for that device, then one render.
    let t = Instant::now();
    let (intent1, spans1) =
        aifab::validate::load_and_validate(&source).map_err(PhaseError::Findings)?;
    let _ = aifab::check::run(&intent1, &spans1, &source);
    let host = model
        .devices
        .last()
        .map(|d| d.hostname.clone())
        .unwrap_or_default();
    let glob = globset::Glob::new(&host)
        .map_err(PhaseError::Glob)?
        .compile_matcher();
    let model1 = aifab::compile::compile_only(&intent1, catalog, Some(&glob))
        .map_err(PhaseError::Findings)?;
    let renderer1 = aifab::render::Renderer::new(catalog).map_err(render_error)?;
    let one = renderer1
        .fabric(&meta, &model1, Some(&glob))
        .map_err(|e| render_error(aifab::render::RenderErrors(e)))?;
    let only_one_ms = ms(t);
    if one.len() < 2 {
        return Err(PhaseError::NothingRendered);
    }

    let (verify_ms, state_bytes) = verify_phase(&model, catalog, out)?;

    Ok(Timings {
        size: size.to_string(),
        devices: model.devices.len(),
        gpus: model.summary.gpus,
        files: written.0,
        bytes: written.1,
        load_validate_ms,
        check_ms,
        compile_ms,
        deadlock_ms,
        render_ms,
        render_write_ms,
        total_ms,
        only_one_ms,
        verify_ms,
        state_bytes,
        peak_rss_mib: peak_rss_mib(),
        threads: rayon::current_num_threads(),
    })
}

/// Generates the state folder of `model` running as rendered beside `out` (untimed), then times
/// `aifab verify` of it; the state must verify clean. Returns the time and the folder's size.
fn verify_phase(
    model: &aifab::model::FabricModel,
    catalog: &aifab::platform::Catalog,
    out: &std::path::Path,
) -> Result<(f64, u64), PhaseError> {
    let state = out.with_extension("state");
    let _ = std::fs::remove_dir_all(&state);
    aifab::verify::synth::write_state(model, catalog, &state)?;
    let bytes = folder_bytes(&state);
    let t = Instant::now();
    let report = aifab::verify::verify(model, catalog, &state, &aifab::verify::Options::default())?;
    let verify_ms = ms(t);
    // AIFAB_BENCH_KEEP_STATE=1 keeps the folder for a look (or `aifab verify --state` on it).
    if std::env::var_os("AIFAB_BENCH_KEEP_STATE").is_none() {
        let _ = std::fs::remove_dir_all(&state);
    }
    if !report.holds() {
        let first: Vec<String> = report
            .findings
            .iter()
            .take(3)
            .map(aifab::verify::report::line)
            .collect();
        return Err(PhaseError::NotClean { first });
    }
    Ok((verify_ms, bytes))
}

fn folder_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => folder_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// The results as a Markdown table.
pub(crate) fn table(rows: &[Timings]) -> String {
    let mut s = String::from(
        "| fabric | switches | output | load+validate | check | compile | deadlock check | render | render+write | total | µs/switch | `--only` one switch | verify (state) | peak RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let per = r.total_ms * 1000.0 / r.devices.max(1) as f64;
        s.push_str(&format!(
            "| {} | {} | {:.0} MB | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | **{:.0} ms** | {:.0} | {:.0} ms | {:.0} ms ({:.0} MB) | {:.0} MiB |\n",
            r.size,
            r.devices,
            r.bytes as f64 / 1e6,
            r.load_validate_ms,
            r.check_ms,
            r.compile_ms,
            r.deadlock_ms,
            r.render_ms,
            r.render_write_ms,
            r.total_ms,
            per,
            r.only_one_ms,
            r.verify_ms,
            r.state_bytes as f64 / 1e6,
            r.peak_rss_mib
        ));
    }
    s
}
