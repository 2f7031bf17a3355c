//! `aifab diff`'s SONiC part: which switches `config apply-patch` can move live, and the patches.

use super::*;

/// `--sonic-release`, or the default release (then `true`: the report says it assumed one).
pub(super) fn sonic_release(args: &Args) -> Result<(Release, bool), Exit> {
    match args.sonic_release.as_deref().map(Release::parse) {
        Some(Some(r)) => Ok((r, false)),
        Some(None) => {
            eprintln!("error: --sonic-release: give 202405, 202505 or master");
            Err(Exit::Trouble)
        }
        None => Ok((Release::DEFAULT, true)),
    }
}

/// The config_db.json of `host` in `files`, if it has one.
pub(super) fn config_db(files: &[OutFile], host: &str) -> Option<serde_json::Value> {
    files
        .iter()
        .find(|f| f.device == host && f.path.ends_with("config_db.json"))
        .and_then(|f| serde_json::from_str(&f.content).ok())
}

/// A patch-or-reload plan for every SONiC switch of the new side whose config_db.json is new or
/// changed.
pub(super) fn sonic_plans(
    new: &Front,
    old_files: &[OutFile],
    new_files: &[OutFile],
    release: Release,
) -> Vec<Plan> {
    let mut out = Vec::new();
    for d in new.model.devices.iter().filter(|d| d.os == Os::Sonic) {
        let Some(b) = config_db(new_files, &d.hostname) else {
            continue;
        };
        let a = config_db(old_files, &d.hostname);
        if a.as_ref() != Some(&b) {
            out.push(route::plan(&d.hostname, a.as_ref(), &b, release));
        }
    }
    out
}

/// `{ "<host>": [ops] }` for every SONiC switch `config apply-patch` can move; each switch routed to
/// `config reload` instead gets a `note:` on stderr saying why (stdout stays one JSON document).
pub(super) fn sonic_patches(plans: &[Plan], release: Release, assumed: bool) -> String {
    if assumed && !plans.is_empty() {
        eprintln!(
            "note: SONiC {} assumed for what config apply-patch accepts (--sonic-release to choose)",
            release.name()
        );
    }
    let mut out = BTreeMap::new();
    for p in plans {
        if p.patchable() {
            out.insert(p.host.clone(), p.ops.clone());
        } else {
            let more = match p.reasons.len() {
                n if n > 3 => format!(" (and {} more)", n - 3),
                _ => String::new(),
            };
            eprintln!(
                "note: {}: no patch; load it with config reload + config save: {}{more}",
                p.host,
                p.reasons
                    .iter()
                    .take(3)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
    }
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_default();
    s.push('\n');
    s
}
