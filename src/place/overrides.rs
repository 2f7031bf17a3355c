//! Which overrides select which device: each `match` compiled as a glob (`AIF-OVR-001`) and matched
//! against every hostname; an override that selects nothing is an error (`AIF-OVR-002`).

use crate::diag::Finding;
use crate::intent::Override;
use crate::rules::Rule;
use globset::{Glob, GlobMatcher};

/// The overrides' `match` globs, in order (`None` where the glob is invalid, with a finding).
pub(super) fn globs(overrides: &[Override], errs: &mut Vec<Finding>) -> Vec<Option<GlobMatcher>> {
    overrides
        .iter()
        .enumerate()
        .map(|(i, o)| match Glob::new(&o.matches) {
            Ok(g) => Some(g.compile_matcher()),
            Err(e) => {
                errs.push(
                    Finding::new(
                        Rule::OverrideBadGlob,
                        format!("`{}` is not a valid glob: {e}", o.matches),
                    )
                    .at(format!("/overrides/{i}/match"))
                    .hint("use a hostname or a glob such as `su3-r*-leaf`"),
                );
                None
            }
        })
        .collect()
}

/// Indices of the overrides whose glob matches `hostname`, in order (none for an unnamed device).
pub(super) fn matching(globs: &[Option<GlobMatcher>], hostname: &str) -> Vec<usize> {
    if hostname.is_empty() {
        return Vec::new();
    }
    globs
        .iter()
        .enumerate()
        .filter(|(_, g)| g.as_ref().is_some_and(|g| g.is_match(hostname)))
        .map(|(i, _)| i)
        .collect()
}

/// One finding per valid override that selects no device. `used[i]` says whether override `i` selected
/// one; `names` are the device names, in order, for the hint.
pub(super) fn unused(
    overrides: &[Override],
    globs: &[Option<GlobMatcher>],
    used: &[bool],
    names: &[&str],
    errs: &mut Vec<Finding>,
) {
    let example = names
        .iter()
        .rev()
        .take(1)
        .chain(names.first())
        .copied()
        .collect::<Vec<_>>()
        .join("`, `");
    for (i, o) in overrides.iter().enumerate() {
        if globs[i].is_some() && !used[i] {
            errs.push(
                Finding::new(
                    Rule::OverrideMatchesNothing,
                    format!("override `{}` matches no device", o.matches),
                )
                .at(format!("/overrides/{i}/match"))
                .hint(format!("device names look like `{example}`")),
            );
        }
    }
}
