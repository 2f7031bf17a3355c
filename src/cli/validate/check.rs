//! One intent checked by `aifab validate`: YAML, schema and rules, with the lock beside it.

use super::*;

/// What checking one file gave.
pub(crate) struct Outcome {
    /// The file as it was read (for rendering), when it could be read.
    pub source: Option<Source>,
    /// Every finding, errors and warnings, in file order.
    pub findings: Vec<Finding>,
    /// The I/O error message when the file could not be read.
    pub io_error: Option<String>,
    /// The lock beside the intent and its findings (located in the lock), when it has any.
    pub lock: Option<(Source, Vec<Finding>)>,
}

/// Checks one intent file against the site's catalog (and its `{env: NAME}` names against the site's
/// prefix): YAML, schema, then the semantic rules of
/// [`aifab::check::run`], with the allocation lock beside it (as `render` reads it: whole, inside the
/// intent's pools) unless `no_lock`.
pub(crate) fn check_file(path: &Path, site: &super::super::site::Site, no_lock: bool) -> Outcome {
    let lock_path = aifab::lock::path_for(path);
    let mut lock_findings = None;
    let lock = if no_lock {
        None
    } else {
        match aifab::write::journal::recover(&lock_path) {
            Ok(
                aifab::write::journal::Recovery::Completed(m)
                | aifab::write::journal::Recovery::RolledBack(m),
            ) => eprintln!("note: {m}"),
            // A journal that does not verify is named, and the lock read as it is.
            Err(e) => eprintln!("warning: {e}"),
            Ok(_) => {}
        }
        match aifab::lock::read::read_file(&lock_path) {
            Ok(Some(l)) => {
                // A copied lock is refused as `compile` and `render` refuse it.
                let intent = path.to_string_lossy();
                if let Some(other) = aifab::publish::lock::copied_from(&intent, &l) {
                    return Outcome {
                        source: None,
                        findings: Vec::new(),
                        io_error: Some(aifab::publish::lock::copied_message(
                            &intent,
                            &l.source.name,
                            &other,
                        )),
                        lock: None,
                    };
                }
                Some(l)
            }
            Ok(None) => None,
            Err(aifab::lock::read::LockError::Io(e)) => {
                return Outcome {
                    source: None,
                    findings: Vec::new(),
                    io_error: Some(e),
                    lock: None,
                };
            }
            Err(aifab::lock::read::LockError::Invalid(src, f)) => {
                lock_findings = Some((*src, f));
                None
            }
        }
    };
    let mut outcome = check_with_lock(path, site, lock.as_ref());
    if outcome.lock.is_none() {
        outcome.lock = lock_findings;
    }
    outcome
}

/// [`check_file`] with the lock given.
pub(super) fn check_with_lock(
    path: &Path,
    site: &super::super::site::Site,
    lock: Option<&aifab::lock::read::Loaded>,
) -> Outcome {
    let source = match aifab::pipeline::read_bounded(path) {
        Err(e) => {
            return Outcome {
                source: None,
                findings: Vec::new(),
                io_error: Some(format!("cannot read {}: {e}", path.display())),
                lock: None,
            };
        }
        Ok(Err((source, finding))) => {
            return Outcome {
                source: Some(source),
                findings: vec![finding],
                io_error: None,
                lock: None,
            };
        }
        Ok(Ok(source)) => source,
    };
    // The shared front (load, schema, rules, compile): fabric-arithmetic findings (pools, ports,
    // platform support) and unverified-syntax warnings come from the compile stage.
    let mut lock_findings = None;
    let findings =
        match aifab::pipeline::front_source_locked_in(source.clone(), None, site.catalog, lock) {
            // An `{env: NAME}` outside the project's prefix fails here already, where a pull request's
            // check runs, not only at the render that would read it.
            Ok(front) => {
                let mut refused = aifab::render::secrets::outside_prefix(&front.intent, &site.env);
                aifab::pipeline::locate(&mut refused, &front.spans, &front.source);
                refused.extend(front.warnings);
                refused
            }
            Err(aifab::pipeline::FrontError::Invalid(_, findings)) => findings,
            // The intent's errors and the lock's own problems with it (out of a pool, held twice),
            // in the same run.
            Err(aifab::pipeline::FrontError::Both { intent, lock }) => {
                lock_findings = Some((*lock.0, lock.1));
                intent.1
            }
            Err(aifab::pipeline::FrontError::Lock(src, findings)) => {
                lock_findings = Some((*src, findings));
                Vec::new()
            }
            Err(aifab::pipeline::FrontError::Io(e)) => {
                return Outcome {
                    source: Some(source),
                    findings: Vec::new(),
                    io_error: Some(e),
                    lock: None,
                };
            }
        };
    Outcome {
        source: Some(source),
        findings,
        io_error: None,
        lock: lock_findings,
    }
}
