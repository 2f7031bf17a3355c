//! Shared harness for aifab's fuzz targets (see `docs/fuzzing.md`).
//!
//! [`exercise`] runs one intent text through everything a user can reach with a file: load → schema
//! validate → checks → compile (`aifab::pipeline::front_source`), prints the findings the way the CLI
//! does (text, JSON, SARIF) when the intent is rejected, and renders the model when it compiles (whole
//! when small, otherwise the first and last device of each kind plus the inventory: see `render`).
//! Any panic — including a debug-build overflow — is a bug; so is a compiled model that fails to
//! render (see [`RENDER_ERROR_IS_BUG`]).

pub mod mutate;

use aifab::diag::Source;
use aifab::model::FabricModel;
use aifab::pipeline::{FrontError, front_source};
use aifab::platform::Catalog;
use aifab::render::{Meta, Renderer};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Inputs longer than this are skipped: the interesting structure of an intent fits in a few KiB, and
/// long inputs only slow the fuzzer down (the loader's own 4 MiB limit is covered by unit tests).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

/// Models with at most this many devices are rendered whole (`Renderer::fabric`); larger ones render
/// a sample of devices (see [`render`]): a full render costs ~30 ms a device in an instrumented build.
pub const FULL_RENDER_DEVICES: usize = 8;

/// With `AIFAB_FUZZ_FULL_RENDER=1`, models up to this many devices are rendered whole, larger ones
/// only compiled.
pub const MAX_RENDER_DEVICES: usize = 64;

/// A model that compiled but does not render is an internal error the user cannot fix: treat it as a
/// crash. Set `AIFAB_FUZZ_RENDER_ERRORS=ignore` to turn this oracle off.
pub const RENDER_ERROR_IS_BUG: bool = true;

fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| Renderer::new(Catalog::builtin()).expect("built-in templates must compile"))
}

fn full_render() -> bool {
    static B: OnceLock<bool> = OnceLock::new();
    *B.get_or_init(|| std::env::var("AIFAB_FUZZ_FULL_RENDER").as_deref() == Ok("1"))
}

fn render_errors_are_bugs() -> bool {
    static B: OnceLock<bool> = OnceLock::new();
    *B.get_or_init(|| {
        RENDER_ERROR_IS_BUG && std::env::var("AIFAB_FUZZ_RENDER_ERRORS").as_deref() != Ok("ignore")
    })
}

/// How far one input got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Too long, not run.
    Skipped,
    /// Rejected with findings (load, schema, check or compile).
    Rejected,
    /// Compiled, but too many devices to render.
    Compiled,
    /// Compiled and rendered.
    Rendered,
}

/// Raw fuzzer bytes: lossy UTF-8 (invalid sequences become U+FFFD, as a user's editor might do).
pub fn exercise_bytes(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT_BYTES {
        stats::record(Outcome::Skipped);
        return Outcome::Skipped;
    }
    let text = String::from_utf8_lossy(data);
    exercise(&text)
}

/// One intent text through the whole pipeline.
pub fn exercise(text: &str) -> Outcome {
    let outcome = exercise_inner(text);
    stats::record(outcome);
    outcome
}

/// With `AIFAB_FUZZ_STATS=N` set, every N inputs print how far they got (to stderr).
mod stats {
    use super::Outcome;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    static COUNTS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

    fn every() -> u64 {
        static E: OnceLock<u64> = OnceLock::new();
        *E.get_or_init(|| {
            std::env::var("AIFAB_FUZZ_STATS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        })
    }

    pub fn record(o: Outcome) {
        let n = every();
        if n == 0 {
            return;
        }
        COUNTS[o as usize].fetch_add(1, Relaxed);
        let total: u64 = COUNTS.iter().map(|c| c.load(Relaxed)).sum();
        if total.is_multiple_of(n) {
            let c: Vec<u64> = COUNTS.iter().map(|c| c.load(Relaxed)).collect();
            eprintln!(
                "aifab-fuzz stats: {total} inputs: {} skipped, {} rejected, {} compiled (not rendered), {} rendered",
                c[0], c[1], c[2], c[3]
            );
        }
    }
}

fn exercise_inner(text: &str) -> Outcome {
    if text.len() > MAX_INPUT_BYTES {
        return Outcome::Skipped;
    }
    let source = Source::new("fuzz.yaml", text);
    let front = match front_source(source) {
        Ok(front) => front,
        Err(FrontError::Invalid(source, findings)) => {
            // What `aifab validate` prints: every finding located in the source.
            let _ = aifab::diag::render::to_text(&findings, &source, false);
            let _ = aifab::diag::render::to_json(&findings);
            let _ = aifab::diag::render::to_sarif(&findings);
            return Outcome::Rejected;
        }
        Err(FrontError::Io(e)) => {
            panic!("front_source reported an I/O error on in-memory text: {e}")
        }
        Err(
            FrontError::Lock(_, findings)
            | FrontError::Both {
                lock: (_, findings),
                ..
            },
        ) => {
            panic!("front_source reported a lock problem without a lock: {findings:?}")
        }
    };
    if !front.warnings.is_empty() {
        let _ = aifab::diag::render::to_text(&front.warnings, &front.source, false);
    }
    render(&front.model)
}

/// Renders a compiled model: every device when it is small (or with `AIFAB_FUZZ_FULL_RENDER=1` and at
/// most [`MAX_RENDER_DEVICES`]), otherwise the first and last device of each kind (role, platform,
/// features) — the templates are the same for every device of a kind, and the last one carries the
/// largest port numbers, addresses and ASNs — plus the Ansible inventory of the whole fabric.
fn render(model: &FabricModel) -> Outcome {
    let meta = Meta::new("fuzz", &model.name);
    let r = renderer();
    let n = model.devices.len();
    if n <= FULL_RENDER_DEVICES || (full_render() && n <= MAX_RENDER_DEVICES) {
        // What `aifab render --out` writes: every device, the inventory and the host files.
        if let Err(errs) = r.fabric_each(&meta, model, None, &|_| Ok(()), &|| {}) {
            render_failed(&errs);
        }
        pictures(model);
        return Outcome::Rendered;
    }
    if full_render() {
        // Too large for a full render: compiled only.
        return Outcome::Compiled;
    }
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut last: HashMap<String, usize> = HashMap::new();
    for (i, d) in model.devices.iter().enumerate() {
        let kind = format!(
            "{:?}|{}|{}|{}|{}|{}",
            d.role,
            d.platform,
            d.dlb.is_some(),
            d.qp_hash.is_some(),
            d.management.is_some(),
            d.server_subnet.is_some()
        );
        first.entry(kind.clone()).or_insert(i);
        last.insert(kind, i);
    }
    let mut picks: Vec<usize> = first.into_values().chain(last.into_values()).collect();
    picks.sort_unstable();
    picks.dedup();
    let errs: Vec<aifab::render::RenderError> = picks
        .into_iter()
        .filter_map(|i| r.device(&meta, &model.devices[i]).err())
        .collect();
    if !errs.is_empty() {
        render_failed(&errs);
    }
    let _ = aifab::render::inventory::inventory(model, Catalog::builtin());
    // The host files are per server, each from its leaf's links: all of them (a few per server).
    if model.hosts.is_some()
        && let Err(e) = aifab::render::hosts::each(&meta, model, &|_| Ok(()))
    {
        render_failed(&[e.to_string()]);
    }
    pictures(model);
    Outcome::Rendered
}

/// `aifab plan --format dot|mermaid` of the model (they must not panic on any model that compiles),
/// and the change picture of `aifab diff --format markdown`: a model against itself changes nothing.
fn pictures(model: &FabricModel) {
    use aifab::picture::{Picture, View};
    let p = Picture::of(model, &View::default());
    let _ = aifab::picture::dot::print(&p);
    let _ = aifab::picture::mermaid::print(&p);
    assert!(
        Picture::changes(model, model).is_none(),
        "a model compared with itself draws a change"
    );
}

fn render_failed(errs: &[impl std::fmt::Display]) {
    if render_errors_are_bugs() {
        let lines: Vec<String> = errs.iter().map(ToString::to_string).collect();
        panic!("compiled model failed to render:\n{}", lines.join("\n"));
    }
}
