//! The two sides of `aifab diff`: the old intent (a file, or its version at a git revision) and the new one, each with its lock, through the pipeline front.

use super::*;

/// The locks of the two sides: with `--against REV` the lock at REV (read with `git show`, none when
/// git has none) and the lock in the work tree; with two intents the lock beside each. The new side
/// falls back to the old side's lock (an edited copy of an intent has none of its own).
pub(super) fn sides_locks(
    args: &Args,
    new_path: &str,
    rev_path: &str,
) -> Result<(Option<Loaded>, Option<Loaded>), FrontError> {
    let old = match (&args.against, args.intents.as_slice()) {
        (Some(rev), _) => {
            let p = lockfile::path(rev_path).to_string_lossy().into_owned();
            match aifab::git::git_show_lock(rev, &p) {
                Ok(Some(src)) => Some(aifab::lock::read::parse(src)?),
                Ok(None) | Err(_) => None,
            }
        }
        (None, [old, _]) => aifab::lock::read::read_file(&lockfile::path(old))?,
        _ => None,
    };
    let new = aifab::lock::read::read_file(&lockfile::path(new_path))?;
    Ok((old, new))
}

/// The old side (an intent read from a file or from git at `--against`, or its absence there) and the
/// new intent's path.
pub(super) fn sides(args: &Args) -> Result<(OldSide, String), Exit> {
    match (&args.against, args.intents.as_slice()) {
        (Some(rev), [path]) => match git_show(rev, path) {
            Ok(Some(s)) => Ok((OldSide::Intent(s), path.clone())),
            // Renamed since (`git mv`): the intent under its name at the revision.
            Ok(None) => match aifab::git::renamed_from(rev, path)
                .and_then(|from| git_show(rev, &from).ok().flatten())
            {
                Some(s) => Ok((OldSide::Intent(s), path.clone())),
                None => Ok((
                    OldSide::Absent(format!("{path}@{rev} (absent)")),
                    path.clone(),
                )),
            },
            Err(e) => {
                eprintln!("error: {e}");
                Err(Exit::Trouble)
            }
        },
        (None, [old, new]) => match pipeline::read_source(old) {
            Ok(s) => Ok((OldSide::Intent(s), new.clone())),
            Err(e) => Err(cannot_diff(e)),
        },
        _ => {
            eprintln!("error: give two intents, or one intent with --against <rev>");
            Err(Exit::Trouble)
        }
    }
}

/// Both sides checked and compiled, each with its own lock (the new side falls back to the old side's
/// lock when it has none); when both are invalid, both are reported.
pub(super) fn fronts(
    args: &Args,
    new_path: &str,
    old_src: &OldSide,
    new_src: Source,
    catalog: &'static Catalog,
) -> Result<(Option<Front>, Front), Exit> {
    // The lock at the revision beside the intent as it was named there (renamed since, or not).
    let rev_path = match (&args.against, old_src) {
        (Some(rev), OldSide::Intent(s)) => s
            .name
            .strip_suffix(&format!("@{rev}"))
            .unwrap_or(new_path)
            .to_string(),
        _ => new_path.to_string(),
    };
    let (old_lock, new_lock) = sides_locks(args, new_path, &rev_path).map_err(cannot_diff)?;
    let new_side = match (new_lock, &old_lock) {
        (Some(own), _) => pipeline::front_source_locked_in(new_src, None, catalog, Some(&own)),
        (None, Some(borrowed)) => {
            new_with_borrowed_lock(new_src, new_path, borrowed, catalog, args.quiet)
        }
        (None, None) => pipeline::front_source_locked_in(new_src, None, catalog, None),
    };
    match (old_src.front(old_lock.as_ref(), catalog), new_side) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (a, b) => {
            for e in [a.err(), b.err()].into_iter().flatten() {
                cannot_diff(e);
            }
            Err(Exit::Trouble)
        }
    }
}

/// The new side with the old side's lock, when it has none of its own (an edited copy of an intent):
/// that keeps what did not change where it was. When the borrowed lock does not fit the new intent (a
/// pool or range the change moved), its problems are the old side's file, not the new intent's: the new
/// side is then compiled without a lock, so the diff shows what the change renumbers, and a note says
/// so (`aifab render` of the new intent would refuse until `--allow-renumber`).
pub(super) fn new_with_borrowed_lock(
    new_src: Source,
    new_path: &str,
    borrowed: &Loaded,
    catalog: &Catalog,
    quiet: bool,
) -> Result<Front, FrontError> {
    match pipeline::front_source_locked_in(new_src.clone(), None, catalog, Some(borrowed)) {
        Err(FrontError::Lock(..)) if quiet => {
            pipeline::front_source_locked_in(new_src, None, catalog, None)
        }
        Err(FrontError::Lock(lock_src, problems)) => {
            let first = problems
                .first()
                .map(|f| format!(", the first: {}", f.message))
                .unwrap_or_default();
            eprintln!(
                "note: {new_path} has no lock of its own and the old side's, {}, does not fit it ({} problem{}{first}): the new side is allocated without it, so the diff shows what the change renumbers; `aifab render` of it would refuse until --allow-renumber",
                lock_src.name,
                problems.len(),
                if problems.len() == 1 { "" } else { "s" },
            );
            pipeline::front_source_locked_in(new_src, None, catalog, None)
        }
        // The borrowed lock is the old side's file: only the new intent's own errors are its problem.
        Err(FrontError::Both { intent, .. }) => Err(FrontError::Invalid(intent.0, intent.1)),
        other => other,
    }
}
