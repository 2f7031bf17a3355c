//! Reading an intent as it was at a git revision, for `diff --against` and `plan --against`.

use aifab::diag::Source;
use std::path::Path;

/// Runs `git -C dir <args>`; its output, or why it could not run.
fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output, String> {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("running git: {e}"))
}

/// Reads `path` as it was at `rev`, through `git show`, from the folder that holds it; `None` when the
/// revision exists but the file did not (an intent added since: every device is new). A revision git
/// does not know is an error.
pub(super) fn git_show(rev: &str, path: &str) -> Result<Option<Source>, String> {
    let p = Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = p
        .file_name()
        .ok_or_else(|| format!("{path}: not a file"))?
        .to_string_lossy();
    if rev.starts_with('-') {
        return Err(format!("revision `{rev}` looks like an option"));
    }
    let commit = git(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    if !commit.status.success() {
        return Err(format!(
            "git: `{rev}` is not a revision of the repository that holds {path}"
        ));
    }
    let spec = format!("{rev}:./{name}");
    if !git(dir, &["cat-file", "-e", &spec])?.status.success() {
        return Ok(None);
    }
    let out = git(dir, &["show", &spec])?;
    if !out.status.success() {
        return Err(format!(
            "git show {rev}:{path}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if out.stdout.len() > aifab::load::MAX_FILE_BYTES {
        return Err(format!(
            "{path} at {rev} is larger than {} bytes",
            aifab::load::MAX_FILE_BYTES
        ));
    }
    let text =
        String::from_utf8(out.stdout).map_err(|_| format!("{path} at {rev} is not UTF-8"))?;
    Ok(Some(Source::new(format!("{path}@{rev}"), text)))
}

/// The path `path` had at `rev` when git sees it renamed since (`git mv`, committed or not), beside
/// `path`'s folder as the caller names it; `None` when git sees no rename.
pub(super) fn renamed_from(rev: &str, path: &str) -> Option<String> {
    let p = Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = p.file_name()?.to_str()?;
    if rev.starts_with('-') {
        return None;
    }
    let out = git(
        dir,
        &["diff", "--name-status", "-M", "--relative", rev, "--", "."],
    )
    .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split('\t');
        let (status, from, to) = (f.next()?, f.next()?, f.next()?);
        (status.starts_with('R') && to == name)
            .then(|| dir.join(from).to_string_lossy().into_owned())
    })
}
