//! The front of the pipeline, shared by every command: read → load → validate → intent rules → place →
//! platform rules → compile.
//!
//! Every problem comes back located in the intent file (`file:line:col`), errors and warnings together,
//! from every stage that can run: the schema's findings with the rules of the sections that passed it
//! (and placement and the compiler when the failed sections feed neither), the intent rules with the
//! platform rules, placement and the compiler (whose findings in a section an earlier stage already
//! faulted are left out: they would repeat that fault).

use crate::check;
use crate::compile::{addressing, compile_locked};
use crate::diag::{Finding, Source, Span, has_errors};
use crate::intent::Intent;
use crate::load::{self, SpanMap};
use crate::model::{FabricModel, NoteFeature};
use crate::place;
use crate::platform::Catalog;
use crate::rules::Rule;
use crate::shape;
use crate::validate;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// A compiled intent and what aifab has to say about it.
pub struct Front {
    /// The intent file.
    pub source: Source,
    /// The parsed intent.
    pub intent: Intent,
    /// Spans of every node.
    pub spans: SpanMap,
    /// The compiled fabric.
    pub model: FabricModel,
    /// Warnings (never errors: with an error there is no model).
    pub warnings: Vec<Finding>,
}

/// Why the front could not produce a model (the CLI turns it into output and an exit status in one
/// place, `front_failed` in `src/cli/exit.rs`).
pub enum FrontError {
    /// The file could not be read.
    Io(String),
    /// The intent is invalid: every finding, errors and warnings, located.
    Invalid(Box<Source>, Vec<Finding>),
    /// The lock beside the intent is unusable: every finding, located in the lock file.
    Lock(Box<Source>, Vec<Finding>),
    /// The intent is invalid and the lock does not fit it either: both files' findings, so one run
    /// reports every problem (the intent's first: the lock's often follow from them).
    Both {
        /// The intent and its findings.
        intent: (Box<Source>, Vec<Finding>),
        /// The lock and its findings.
        lock: (Box<Source>, Vec<Finding>),
    },
}

impl From<crate::lock::read::LockError> for FrontError {
    fn from(e: crate::lock::read::LockError) -> FrontError {
        match e {
            crate::lock::read::LockError::Io(s) => FrontError::Io(s),
            crate::lock::read::LockError::Invalid(src, f) => FrontError::Lock(src, f),
        }
    }
}

/// The names of standard input an intent may be read from (`aifab validate /dev/stdin < x.yaml`).
const STDIN: [&str; 2] = ["/dev/stdin", "/dev/fd/0"];

/// Reads an intent file, refusing to read more than [`load::MAX_FILE_BYTES`] or a path that leaves the
/// repository around it ([`crate::boundary`]). `Ok(Err(finding))` when
/// the file is too large or not UTF-8; `Err` on an I/O error.
pub fn read_bounded(path: &Path) -> std::io::Result<Result<Source, (Source, Finding)>> {
    let name = path.display().to_string();
    // A path that leaves the repository around it (a link, or a linked folder, to
    // `/proc/self/environ`, say) is not read; standard input, typed as such, is the user's own.
    if !STDIN.iter().any(|s| path == Path::new(s)) {
        crate::files::inside_repository(path).map_err(std::io::Error::other)?;
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    if meta.len() > load::MAX_FILE_BYTES as u64 {
        let src = Source::new(name, "");
        let f = load::file_too_large(&src, usize::try_from(meta.len()).unwrap_or(usize::MAX));
        return Ok(Err((src, f)));
    }
    let mut bytes = Vec::new();
    file.take(load::MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > load::MAX_FILE_BYTES {
        let src = Source::new(name, "");
        let f = load::file_too_large(&src, bytes.len());
        return Ok(Err((src, f)));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Ok(Source::new(name, text))),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let src = Source::new(name, text);
            let f = load::not_utf8(&src, at);
            Ok(Err((src, f)))
        }
    }
}

/// Reads an intent file, reading at most the size limit (a FIFO or `/dev/zero` cannot make it read
/// forever).
pub fn read_source(path: &str) -> Result<Source, FrontError> {
    match read_bounded(Path::new(path)) {
        Err(e) => Err(FrontError::Io(format!("{path}: {e}"))),
        Ok(Err((src, finding))) => Err(FrontError::Invalid(Box::new(src), vec![finding])),
        Ok(Ok(src)) => Ok(src),
    }
}

/// Runs the front of the pipeline on an intent file.
pub fn front(path: &str) -> Result<Front, FrontError> {
    front_with(path, None)
}

/// [`front`], expanding ports and cables only for the devices `only` matches.
pub fn front_with(path: &str, only: Option<&globset::GlobMatcher>) -> Result<Front, FrontError> {
    front_in(path, only, Catalog::builtin())
}

/// [`front_with`] on a given platform catalog (the built-in one plus a site's platforms).
pub fn front_in(
    path: &str,
    only: Option<&globset::GlobMatcher>,
    catalog: &Catalog,
) -> Result<Front, FrontError> {
    let source = read_source(path)?;
    front_source_in(source, only, catalog)
}

/// Runs the front of the pipeline on text already read (e.g. from `git show`).
pub fn front_source(source: Source) -> Result<Front, FrontError> {
    front_source_with(source, None)
}

/// [`front_source`] with a device filter for the compile stage.
pub fn front_source_with(
    source: Source,
    only: Option<&globset::GlobMatcher>,
) -> Result<Front, FrontError> {
    front_source_in(source, only, Catalog::builtin())
}

/// [`front_source_with`] on a given platform catalog.
pub fn front_source_in(
    source: Source,
    only: Option<&globset::GlobMatcher>,
    catalog: &Catalog,
) -> Result<Front, FrontError> {
    front_source_locked_in(source, only, catalog, None)
}

/// [`front_source_with`] keeping what `lock` allocated (`None`: the arithmetic alone, as without a lock
/// file), on the built-in catalog.
pub fn front_source_locked(
    source: Source,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&crate::lock::read::Loaded>,
) -> Result<Front, FrontError> {
    front_source_locked_in(source, only, Catalog::builtin(), lock)
}

/// The pipeline front on a given catalog, keeping what `lock` allocated. The lock is checked against
/// the intent first (pools, ASN ranges); its problems come back as [`FrontError::Lock`].
pub fn front_source_locked_in(
    source: Source,
    only: Option<&globset::GlobMatcher>,
    catalog: &Catalog,
    lock: Option<&crate::lock::read::Loaded>,
) -> Result<Front, FrontError> {
    let (intent, spans) = match validate::load_and_validate_partial(&source) {
        Ok(x) => x,
        Err(invalid) => {
            // A lock is checked against the intent's sections that passed the schema too, when
            // every section that failed is one the compiler reads past (a `qos` mistake hides no
            // lock entry outside its pool).
            let lock_errs = match (lock, &invalid.partial) {
                (Some(l), Some(p)) if p.compilable() => crate::lock::check::against(l, &p.intent),
                _ => Vec::new(),
            };
            let findings = with_partial_rules(invalid, &source, catalog);
            if let (Some(l), false) = (lock, lock_errs.is_empty()) {
                return Err(FrontError::Both {
                    intent: (Box::new(source), findings),
                    lock: (Box::new(l.source.clone()), lock_errs),
                });
            }
            return Err(FrontError::Invalid(Box::new(source), findings));
        }
    };
    if let Some(l) = lock {
        let errs = crate::lock::check::against(l, &intent);
        if !errs.is_empty() {
            // The intent's own errors first: a lock that no longer fits often only follows from them
            // (a pool edited by mistake), and they are what to fix.
            if let Err(mut own) = checked_model(&intent, catalog, only, None)
                && has_errors(&own)
            {
                locate(&mut own, &spans, &source);
                return Err(FrontError::Both {
                    intent: (Box::new(source), own),
                    lock: (Box::new(l.source.clone()), errs),
                });
            }
            return Err(FrontError::Lock(Box::new(l.source.clone()), errs));
        }
    }
    match checked_model(&intent, catalog, only, lock.map(|l| &l.lock)) {
        Ok((model, mut findings)) => {
            findings.extend(note_warnings(&model));
            findings.extend(acknowledged(&model));
            locate(&mut findings, &spans, &source);
            Ok(Front {
                source,
                intent,
                spans,
                model,
                warnings: findings,
            })
        }
        Err(mut findings) => {
            locate(&mut findings, &spans, &source);
            Err(FrontError::Invalid(Box::new(source), findings))
        }
    }
}

/// The load and schema findings of an invalid intent plus what the later stages find in its sections
/// that passed the schema: the intent rules whose sections are clean ([`check::partial_intent_rules`]),
/// and, when every section that failed is one whose stand-in asks for nothing
/// ([`validate::Partial::compilable`]), the platform rules, placement and the compiler too, keeping
/// what they find outside the failed sections. Every problem at once, located.
fn with_partial_rules(
    invalid: validate::Invalid,
    source: &Source,
    catalog: &Catalog,
) -> Vec<Finding> {
    let mut findings = invalid.findings;
    if let (Some(partial), Some(spans)) = (&invalid.partial, &invalid.spans) {
        let mut more = check::partial_intent_rules(partial);
        if partial.compilable() {
            let rules = std::mem::take(&mut more);
            more = match later_stages(&partial.intent, catalog, None, None, rules) {
                Ok((model, mut f)) => {
                    f.extend(note_warnings(&model));
                    f.extend(acknowledged(&model));
                    f
                }
                Err(f) => f,
            };
            more.retain(|f| {
                f.pointer
                    .as_deref()
                    .and_then(validate::section_of)
                    .is_some_and(|s| partial.clean(s))
            });
        }
        locate(&mut more, spans, source);
        findings.extend(more);
        validate::sort_findings(&mut findings);
    }
    findings
}

/// The stages after schema validation: the intent rules, placement, the platform rules on it, and the
/// compiler on the same placement. `Ok` carries the model and the rules' warnings; `Err` every finding
/// (unlocated).
fn checked_model(
    intent: &Intent,
    catalog: &Catalog,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&crate::lock::Lock>,
) -> Result<(FabricModel, Vec<Finding>), Vec<Finding>> {
    later_stages(intent, catalog, only, lock, check::intent_rules(intent))
}

/// Placement, the platform rules on it, the compiler on the same placement and the rules on the
/// compiled model, after the intent rules' `findings`. Every stage runs, errors or not: the compiler's
/// findings are kept except those inside a section (of [`validate::SECTIONS`]) where an earlier stage
/// already found an error, which would be that error again in other words.
fn later_stages(
    intent: &Intent,
    catalog: &Catalog,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&crate::lock::Lock>,
    mut findings: Vec<Finding>,
) -> Result<(FabricModel, Vec<Finding>), Vec<Finding>> {
    let shape = shape::shape(intent);
    let placement = place::for_rules(intent, catalog, shape.as_ref().ok());
    findings.extend(check::platform_rules(intent, catalog, &placement));
    if let Ok(s) = &shape {
        findings.extend(check::ecmp_rules(intent, s));
        findings.extend(shape::warnings(s));
    }
    // Where an earlier stage found an error: a compiler finding at the same place, or around it or
    // inside it, is that error again in other words; one elsewhere in the same section is not.
    let spoiled: Vec<String> = findings
        .iter()
        .filter(|f| f.is_error())
        .filter_map(|f| f.pointer.clone())
        .filter(|p| validate::section_of(p).is_some())
        .collect();
    let fresh = |f: &Finding| {
        f.pointer
            .as_deref()
            .is_none_or(|p| !spoiled.iter().any(|s| nested(s, p) || nested(p, s)))
    };
    let earlier_errors = has_errors(&findings);
    // Port arithmetic that failed hides no pool or ASN range too small for the device counts.
    let unshaped = match &shape {
        Err(_) => shape::counts(intent)
            .map(|c| addressing::without_shape(intent, &addressing::Sizes::of_counts(&c)))
            .unwrap_or_default(),
        Ok(_) => Vec::new(),
    };
    let compiled = shape.and_then(|s| compile_locked(intent, catalog, &s, placement, only, lock));
    match compiled {
        Ok(model) => {
            findings.extend(check::management_rules(intent, &model));
            findings.extend(crate::hosts::name_rules(&model));
            findings.extend(crate::hosts::pool_rules(&model));
            if only.is_none() {
                findings.extend(
                    check::deadlock_rules(&model)
                        .into_iter()
                        .map(|f| crate::place::ack::fabric_finding(&intent.acknowledge, f)),
                );
            }
            if has_errors(&findings) {
                return Err(findings);
            }
            Ok((model, findings))
        }
        Err(errs) => {
            if earlier_errors {
                findings.extend(errs.into_iter().chain(unshaped).filter(fresh));
            } else {
                findings.extend(errs.into_iter().chain(unshaped));
            }
            Err(findings)
        }
    }
}

/// Whether JSON pointer `inner` is `outer` or inside it (`/fabric/bgp/leaf_asn` in `/fabric/bgp`).
fn nested(outer: &str, inner: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Fills in file, span, line and column of findings that only carry a JSON pointer; sorts by position.
pub fn locate(findings: &mut [Finding], spans: &SpanMap, source: &Source) {
    for f in findings.iter_mut() {
        if f.span.is_none() {
            let span = f
                .pointer
                .as_deref()
                .and_then(|p| spans.locate(p))
                .unwrap_or(Span { offset: 0, len: 0 });
            *f = f.clone().with_span(source, span);
        }
    }
    validate::sort_findings(findings);
}

/// One `AIF-ACK-003` per acknowledgement the compiled devices carry: the rule, the reason and how many
/// devices it covers, at the acknowledgement in the intent.
fn acknowledged(model: &FabricModel) -> Vec<Finding> {
    let mut seen: BTreeMap<(&str, &str, &str), u32> = BTreeMap::new();
    for a in model.devices.iter().flat_map(|d| &d.acknowledged) {
        *seen
            .entry((a.rule.as_str(), a.pointer.as_str(), a.reason.as_str()))
            .or_default() += 1;
    }
    seen.into_iter()
        .map(|((rule, pointer, reason), count)| {
            Finding::new(
                Rule::Acknowledged,
                format!(
                    "{rule} acknowledged on {count} device{}: {reason}",
                    if count == 1 { "" } else { "s" }
                ),
            )
            .at(pointer)
            .hint("the configs of these devices carry the acknowledgement in their header; remove it to make the rule an error again")
        })
        .collect()
}

/// One warning per (feature, note text) for the notes compile attached to devices: unverified syntax,
/// assumed lane maps. The count of devices is in the message.
fn note_warnings(model: &FabricModel) -> Vec<Finding> {
    let mut seen: BTreeMap<(NoteFeature, &str, &str), u32> = BTreeMap::new();
    for d in &model.devices {
        for n in &d.notes {
            *seen
                .entry((n.feature, d.platform.as_str(), n.text.as_str()))
                .or_default() += 1;
        }
    }
    seen.into_iter()
        .map(|((feature, platform, text), count)| {
            let text = text.strip_prefix("aifab: ").unwrap_or(text);
            Finding::new(
                Rule::Unverified,
                format!(
                    "{platform}: {text} ({count} device{})",
                    if count == 1 { "" } else { "s" }
                ),
            )
            .at(feature.pointer())
            .hint("the rendered config carries this as a comment; verify the lines on a lab switch before pushing")
        })
        .collect()
}
