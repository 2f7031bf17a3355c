//! What `aifab validate` prints: the verdict per intent and the findings in the chosen format.

use super::*;

pub(super) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The line that ends a file's text report: `invalid, N errors[, N warnings]`, or `valid` (with its
/// warnings) unless `quiet`.
pub(super) fn verdict(name: &str, errors: usize, warnings: usize, quiet: bool) -> Option<String> {
    match (errors, warnings) {
        (0, _) if quiet => None,
        (0, 0) => Some(format!("{name}: valid")),
        (0, w) => Some(format!("{name}: valid ({})", plural(w, "warning"))),
        (e, 0) => Some(format!("{name}: invalid, {}", plural(e, "error"))),
        (e, w) => Some(format!(
            "{name}: invalid, {}, {}",
            plural(e, "error"),
            plural(w, "warning")
        )),
    }
}

/// Prints every file's findings as one JSON or SARIF document on stdout (nothing for text); a reader
/// that closed the pipe early is not an error.
pub(super) fn print_report(format: Format, all: &[aifab::diag::Finding]) -> std::io::Result<()> {
    let out = match format {
        Format::Text => return Ok(()),
        Format::Json => render::to_json(all),
        Format::Sarif => render::to_sarif(all),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}
