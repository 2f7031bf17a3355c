//! `aifab plan --format rollout`: the rollout batches of the switches whose configs differ from the intent at a git revision.

use super::*;

/// `--format rollout`: every switch, or with `--against` the switches whose configs change, in
/// batches.
pub(super) fn rollout(
    args: &Args,
    new: &aifab::pipeline::Front,
    catalog: &'static Catalog,
) -> Exit {
    let old = match &args.against {
        None => None,
        Some(rev) => match old_front(rev, &args.intent, catalog) {
            Ok(o) => Some(o),
            Err(status) => return status,
        },
    };
    let changed = match &old {
        None => None,
        Some(old) => match changed_devices(old.as_ref(), new, &args.intent, catalog) {
            Ok(c) => Some(c),
            Err(status) => return status,
        },
    };
    let m = &new.model;
    let devices: Vec<&aifab::model::Device> = m
        .devices
        .iter()
        .filter(|d| changed.as_ref().is_none_or(|c| c.contains(&d.hostname)))
        .collect();
    let old_model = old.as_ref().and_then(|o| o.as_ref()).map(|f| &f.model);
    let reload = rollout::needing_reload(old_model, m, catalog);
    let plan = rollout::plan(m, &devices, &reload, args.uplink_percent);
    super::super::emit(&plan.to_yaml());
    Exit::Success
}

/// The intent at `rev` through the pipeline front; `Ok(None)` when it did not exist there.
pub(super) fn old_front(
    rev: &str,
    path: &str,
    catalog: &Catalog,
) -> Result<Option<aifab::pipeline::Front>, Exit> {
    let src = aifab::git::git_show(rev, path).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Trouble
    })?;
    let Some(src) = src else { return Ok(None) };
    // The lock as it was at `rev`, when git has one: the old side's allocation.
    let lock_path = super::super::lockfile::path(path)
        .to_string_lossy()
        .into_owned();
    let lock = match aifab::git::git_show_lock(rev, &lock_path) {
        Ok(Some(l)) => Some(aifab::lock::read::parse(l)),
        Ok(None) | Err(_) => None,
    };
    let lock = match lock.transpose() {
        Ok(l) => l,
        Err(e) => {
            return Err(super::super::exit::front_failed(
                e.into(),
                Exit::Trouble,
                "cannot plan",
            ));
        }
    };
    aifab::pipeline::front_source_locked_in(src, None, catalog, lock.as_ref())
        .map(Some)
        .map_err(|e| super::super::exit::front_failed(e, Exit::Trouble, "cannot plan"))
}

/// Hostnames whose rendered files differ between the two sides (every new device when `old` is
/// `None`).
pub(super) fn changed_devices(
    old: Option<&aifab::pipeline::Front>,
    new: &aifab::pipeline::Front,
    label: &str,
    catalog: &'static Catalog,
) -> Result<BTreeSet<String>, Exit> {
    let r = Renderer::new(catalog).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Trouble
    })?;
    let before = match old {
        Some(f) => super::super::diff::render(&r, f, label)?,
        None => Vec::new(),
    };
    let after = super::super::diff::render(&r, new, label)?;
    Ok(diff_files(&before, &after)
        .into_iter()
        .filter(|f| !f.device.is_empty())
        .map(|f| f.device)
        .collect())
}
