//! A site's own platform files (`--platforms DIR`, or `platforms:` in the project file): extra
//! `<os>.yaml` files in the `vendors/<os>.yaml` format, merged with the built-in ones and held to the
//! same checks (every fact with a source citing a `references` key, consistent port tables, known
//! minimum releases). Every problem is reported at once, each as `file:line:col: message` with a hint.

use super::error::VendorProblem;
use super::{Catalog, Os, VENDOR_FILES, VendorFile};
use std::path::Path;

/// The hint every "missing or wrong fact" problem of a site platform carries.
const FACT_HINT: &str = "every fact needs a `sources` entry `<reference id> <section>; see <doc>; \
     <confidence>` citing a key of `references` (this file's or the built-in file's); see docs/extending.md";

impl Catalog {
    /// The built-in catalog plus every `<os>.yaml` in `dir` (see the module doc). Errors are located
    /// `file:line:col` lines, each with a `help:` hint.
    pub fn with_extensions(dir: &Path) -> Result<Catalog, Vec<VendorProblem>> {
        let mut catalog = Catalog::from_files(&VENDOR_FILES).map_err(|e| {
            e.into_iter()
                .map(|e| VendorProblem::BuiltIn(Box::new(e)))
                .collect::<Vec<_>>()
        })?;
        let entries = std::fs::read_dir(dir).map_err(|source| {
            vec![VendorProblem::Folder {
                dir: dir.to_path_buf(),
                source,
            }]
        })?;
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        paths.sort();
        let mut errors = Vec::new();
        for path in paths {
            match crate::files::read_text(&path, crate::files::SITE_FILE_BYTES) {
                Ok(text) => errors.extend(catalog.merge_file(&path, &text)),
                Err(error) => errors.push(VendorProblem::SiteFile { path, error }),
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
    fn merge_file(&mut self, path: &Path, text: &str) -> Vec<VendorProblem> {
        let (os, file) = match parse_file(path, text) {
            Ok(x) => x,
            Err(e) => return vec![e],
        };
        let mut errors = header_problems(path, text, os, &file);
        errors.extend(self.merge_references(path, text, os, &file));
        let refs = self.references.entry(os).or_default().clone();
        self.ansible.entry(os).or_default().extend(file.ansible);
        let never = self
            .owned
            .get(&os)
            .map(|o| o.never.clone())
            .unwrap_or_default();
        for (pattern, e) in file.owned_sections.problems(&never) {
            errors.push(located(
                path,
                item_position(text, &pattern).unwrap_or_else(|| key_position(text, "owned_sections")),
                &e,
                "own only what aifab renders; what the switch needs (the `never` list of the built-in vendors/<os>.yaml) stays the switch's (docs/push.md#what-aifab-owns)",
            ));
        }
        self.owned
            .entry(os)
            .or_default()
            .extend(file.owned_sections.clone());
        self.owned_tables
            .entry(os)
            .or_default()
            .extend(file.config_db.clone());
        for e in file.change_sections.problems() {
            errors.push(located(
                path,
                key_position(text, "change_sections"),
                &e,
                "name a rule of docs/change-report.md and the sections it explains as the rendered config spells them",
            ));
        }
        self.change_sections
            .entry(os)
            .or_default()
            .extend(file.change_sections.clone());
        for (name, p) in file.platforms {
            let full = format!("{os}/{name}");
            let (l, c) = key_position(text, &name);
            if self.platforms.contains_key(&full) {
                errors.push(located(
                    path,
                    (l, c),
                    &format!("platform {full} is built in"),
                    "give the site's platform its own name (the intent selects it as <os>/<name>)",
                ));
                continue;
            }
            let problems: Vec<String> = p
                .problems(&refs)
                .into_iter()
                .chain(p.release_problems(os))
                .collect();
            if problems.is_empty() {
                self.platforms.insert(full, super::Entry::new(os, p));
            }
            for e in problems {
                errors.push(located(
                    path,
                    (l, c),
                    &format!("platform {name}: {e}"),
                    FACT_HINT,
                ));
            }
        }
        errors
    }

    /// Adds the file's references to its OS's; a reference id the built-in file (or an earlier site
    /// file) gives another document is refused.
    fn merge_references(
        &mut self,
        path: &Path,
        text: &str,
        os: Os,
        file: &VendorFile,
    ) -> Vec<VendorProblem> {
        let refs = self.references.entry(os).or_default();
        let mut errors = Vec::new();
        for (id, doc) in &file.references {
            match refs.get(id) {
                Some(old) if old != doc => errors.push(located(
                    path,
                    key_position(text, id),
                    &format!("reference `{id}` is built in with another document"),
                    "cite the built-in one as it is, or choose another id",
                )),
                _ => {
                    refs.insert(id.clone(), doc.clone());
                }
            }
        }
        errors
    }
}

/// `path: line:col: msg` with its help line.
fn located(path: &Path, (line, col): (usize, usize), msg: &str, hint: &str) -> VendorProblem {
    VendorProblem::Located {
        path: path.to_path_buf(),
        line,
        col,
        what: msg.to_string(),
        hint: hint.to_string(),
    }
}

/// A site file that uses families (its own, or the built-in file's of its OS, docs/extending.md),
/// resolved and read; an error is located at the platform (or key) it is about.
fn with_families(
    path: &Path,
    text: &str,
    os: Os,
    value: &mut serde_json::Value,
) -> Result<VendorFile, VendorProblem> {
    let builtin = VENDOR_FILES
        .iter()
        .find(|(o, _)| *o == os)
        .and_then(|(_, t)| serde_norway::from_str::<serde_json::Value>(t).ok())
        .map(|v| super::family::families_of(&v))
        .unwrap_or_default();
    const HINT: &str = "a platform's `family` is one of this file's `families` or of the built-in vendors/<os>.yaml; `aifab schema --platforms` prints the format";
    super::family::inherit_with(value, &builtin).map_err(|e| {
        let at = e.platform().map_or((1, 1), |name| key_position(text, name));
        located(path, at, &e.to_string(), HINT)
    })?;
    serde_path_to_error::deserialize(value.take()).map_err(|e| {
        let segments = e.path().to_string();
        let at = segments
            .split('.')
            .filter(|s| !s.is_empty() && *s != "?")
            .map(|s| key_position(text, s))
            .rfind(|p| *p != (1, 1))
            .unwrap_or((1, 1));
        located(path, at, &format!("{segments}: {}", e.into_inner()), HINT)
    })
}

/// The OS a site platform file is named after, and the file parsed; or the one error that stops it.
fn parse_file(path: &Path, text: &str) -> Result<(Os, VendorFile), VendorProblem> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let Some(os) = Os::parse(stem) else {
        return Err(located(
            path,
            (1, 1),
            "not a platform file name",
            "name it nxos.yaml, eos.yaml or sonic.yaml, after the OS its platforms run",
        ));
    };
    if let Ok(mut value) = serde_norway::from_str::<serde_json::Value>(text)
        && super::family::uses_families(&value)
    {
        return with_families(path, text, os, &mut value).map(|f| (os, f));
    }
    match serde_norway::from_str(text) {
        Ok(f) => Ok((os, f)),
        Err(e) => {
            let at = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg);
            Err(located(
                path,
                at,
                msg,
                "the format is that of vendors/<os>.yaml: `aifab schema --platforms` prints its JSON Schema",
            ))
        }
    }
}

/// A site file that names another OS than its file name, or sets `outputs` (built in only).
fn header_problems(path: &Path, text: &str, os: Os, file: &VendorFile) -> Vec<VendorProblem> {
    let mut errors = Vec::new();
    if file.os != os {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        errors.push(located(
            path,
            key_position(text, "os"),
            &format!("says `os: {}` in {stem}.yaml", file.os),
            "a file holds the platforms of the OS it is named after",
        ));
    }
    if !file.outputs.is_empty() {
        errors.push(located(
            path,
            key_position(text, "outputs"),
            "outputs come from the built-in file",
            "drop `outputs`; change what is rendered with --templates (docs/extending.md)",
        ));
    }
    errors
}

/// Line and column (1-based) of the first list item whose value is `value` (`- boot`, `- "boot"`).
fn item_position(text: &str, value: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(n, line)| {
        let body = line.trim_start();
        let item = body.strip_prefix('-')?.trim_start();
        let item = item.split(" #").next().unwrap_or(item).trim_end();
        let bare = ['"', '\'']
            .iter()
            .find_map(|q| item.strip_prefix(*q)?.strip_suffix(*q));
        let col = line.len() - body.len() + 1;
        (bare.unwrap_or(item) == value).then_some((n + 1, col))
    })
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
    use crate::platform::Catalog;

    /// A folder of site files under target/tmp, removed again.
    fn site(files: &[(&str, &str)]) -> Result<Catalog, Vec<String>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp")
            .join(format!("site-{}-{}", std::process::id(), files.len()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("site folder");
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("site file");
        }
        let catalog = Catalog::with_extensions(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        catalog.map_err(|e| e.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn every_refusal_of_a_site_file_is_located() {
        // The built-in EOS file as a site file, under the wrong OS and with one reference changed:
        // it names another OS, sets outputs, redefines a reference and every platform is built in.
        let builtin = include_str!("../../vendors/eos.yaml");
        let eos = builtin.replacen("\nos: eos\n", "\nos: nxos\n", 1).replacen(
            "\n  docs: \"",
            "\n  docs: \"another document; ",
            1,
        );
        assert_ne!(eos, builtin);
        let line_of = |start: &str| {
            eos.lines()
                .position(|l| l.starts_with(start))
                .map(|n| n + 1)
                .expect("line in the file")
        };
        let errs = site(&[("eos.yaml", &eos), ("junos.yaml", "os: eos\n")]).expect_err("refused");
        let at = |needle: &str| {
            errs.iter()
                .find(|e| e.contains(needle))
                .unwrap_or_else(|| panic!("no error with {needle:?} in {errs:#?}"))
                .split(": ")
                .next()
                .and_then(|p| p.rsplit('/').next())
                .map(str::to_string)
        };
        let os = format!("eos.yaml:{}:1", line_of("os: "));
        assert_eq!(at("says `os: nxos` in eos.yaml"), Some(os));
        let outputs = format!("eos.yaml:{}:1", line_of("outputs:"));
        assert_eq!(at("outputs come from the built-in file"), Some(outputs));
        let docs = format!("eos.yaml:{}:3", line_of("  docs: "));
        assert_eq!(
            at("reference `docs` is built in with another document"),
            Some(docs)
        );
        let platform = format!("eos.yaml:{}:3", line_of("  7060x5-64:"));
        assert_eq!(at("platform eos/7060x5-64 is built in"), Some(platform));
        assert_eq!(
            at("not a platform file name").as_deref(),
            Some("junos.yaml:1:1")
        );
        assert!(errs.iter().all(|e| e.contains("\n  help: ")), "{errs:#?}");
    }

    #[test]
    fn keys_are_found_with_their_column() {
        let text = "os: eos\nplatforms:\n  7804r3:\n    description: x\n  \"a-b\": {}\n";
        assert_eq!(key_position(text, "7804r3"), (3, 3));
        assert_eq!(key_position(text, "a-b"), (5, 3));
        assert_eq!(key_position(text, "missing"), (1, 1));
    }
}
