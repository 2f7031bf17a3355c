//! A site's own platform files (`--platforms DIR`, or `platforms:` in the project file): extra
//! `<os>.yaml` files in the `vendors/<os>.yaml` format, merged with the built-in ones and held to the
//! same checks (every fact with a source citing a `references` key, consistent port tables, known
//! minimum releases). Every problem is reported at once, each as `file:line:col: message` with a hint.

use super::{Catalog, Os, VENDOR_FILES, VendorFile, release};
use std::path::Path;

/// The hint every "missing or wrong fact" problem of a site platform carries.
const FACT_HINT: &str = "every fact needs a `sources` entry `<reference id> <section>; see <doc>; \
     <confidence>` citing a key of `references` (this file's or the built-in file's); see docs/extending.md";

impl Catalog {
    /// The built-in catalog plus every `<os>.yaml` in `dir` (see the module doc). Errors are located
    /// `file:line:col` lines, each with a `help:` hint.
    pub fn with_extensions(dir: &Path) -> Result<Catalog, Vec<String>> {
        let mut catalog = Catalog::from_files(&VENDOR_FILES).map_err(|e| {
            e.into_iter()
                .map(|e| format!("built-in: {e}"))
                .collect::<Vec<_>>()
        })?;
        let entries = std::fs::read_dir(dir).map_err(|e| {
            vec![format!(
                "{}: {e}\n  help: give a folder of <os>.yaml files",
                dir.display()
            )]
        })?;
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        paths.sort();
        let mut errors = Vec::new();
        for path in paths {
            match std::fs::read_to_string(&path) {
                Ok(text) => errors.extend(catalog.merge_file(&path, &text)),
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        if errors.is_empty() {
            Ok(catalog)
        } else {
            Err(errors)
        }
    }

    /// Checks one site platform file and merges it; returns its problems (nothing merged on a parse
    /// error).
    fn merge_file(&mut self, path: &Path, text: &str) -> Vec<String> {
        let at = |line: usize, col: usize, msg: &str, hint: &str| {
            format!("{}:{line}:{col}: {msg}\n  help: {hint}", path.display())
        };
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let Some(os) = Os::parse(stem) else {
            return vec![at(
                1,
                1,
                "not a platform file name",
                "name it nxos.yaml, eos.yaml or sonic.yaml, after the OS its platforms run",
            )];
        };
        let file: VendorFile = match serde_norway::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                let (line, col) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
                let msg = e.to_string();
                let msg = msg.split(" at line ").next().unwrap_or(&msg);
                return vec![at(
                    line,
                    col,
                    msg,
                    "the format is that of vendors/<os>.yaml: `aifab schema --platforms` prints its JSON Schema",
                )];
            }
        };
        let mut errors = Vec::new();
        let key = |name: &str| key_position(text, name);
        if file.os != os {
            let (l, c) = key("os");
            errors.push(at(
                l,
                c,
                &format!("says `os: {}` in {stem}.yaml", file.os),
                "a file holds the platforms of the OS it is named after",
            ));
        }
        if !file.outputs.is_empty() {
            let (l, c) = key("outputs");
            errors.push(at(
                l,
                c,
                "outputs come from the built-in file",
                "drop `outputs`; change what is rendered with --templates (docs/extending.md)",
            ));
        }
        let refs = self.references.entry(os).or_default();
        for (id, doc) in &file.references {
            match refs.get(id) {
                Some(old) if old != doc => {
                    let (l, c) = key(id);
                    errors.push(at(
                        l,
                        c,
                        &format!("reference `{id}` is built in with another document"),
                        "cite the built-in one as it is, or choose another id",
                    ));
                }
                _ => {
                    refs.insert(id.clone(), doc.clone());
                }
            }
        }
        let refs = refs.clone();
        self.ansible.entry(os).or_default().extend(file.ansible);
        for (name, p) in file.platforms {
            let full = format!("{os}/{name}");
            let (l, c) = key(&name);
            if self.platforms.contains_key(&full) {
                errors.push(at(
                    l,
                    c,
                    &format!("platform {full} is built in"),
                    "give the site's platform its own name (the intent selects it as <os>/<name>)",
                ));
                continue;
            }
            let problems: Vec<String> = p
                .problems(&refs)
                .into_iter()
                .chain(release::problems(os, &p))
                .collect();
            if problems.is_empty() {
                self.platforms.insert(full, super::Entry::new(os, p));
            }
            for e in problems {
                errors.push(at(l, c, &format!("platform {name}: {e}"), FACT_HINT));
            }
        }
        errors
    }
}

/// Line and column (1-based) of the first mapping key `name` in a YAML text (its first line when absent).
fn key_position(text: &str, name: &str) -> (usize, usize) {
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start();
        let unquoted = body.strip_prefix(name).is_some_and(|r| r.starts_with(':'));
        let quoted = ['"', '\''].iter().any(|q| {
            body.strip_prefix(*q)
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| r.starts_with(*q))
        });
        if unquoted || quoted {
            return (n + 1, line.len() - body.len() + 1);
        }
    }
    (1, 1)
}

#[cfg(test)]
mod tests {
    use super::key_position;

    #[test]
    fn keys_are_found_with_their_column() {
        let text = "os: eos\nplatforms:\n  7804r3:\n    description: x\n  \"a-b\": {}\n";
        assert_eq!(key_position(text, "7804r3"), (3, 3));
        assert_eq!(key_position(text, "a-b"), (5, 3));
        assert_eq!(key_position(text, "missing"), (1, 1));
    }
}
