//! The semantic rules (`src/check`) and the compile rules (`src/compile`), run like a user would.
//!
//! Every file in `tests/bad_checks/` is a copy of an example intent with one defect. Its first line says
//! what must happen:
//!
//! - `# expect: AIF-XXX-NNN at <snippet>`: `aifab validate --format json` reports that rule on the line
//!   where `<snippet>` occurs (the line is found in the file's text, never hard-coded); an error file exits
//!   1 and `aifab render` exits 2 and writes nothing, a warning file (no error at all) exits 0 and renders;
//! - `# render-out: AIF-XXX-NNN at <snippet>`: a rule only `aifab render --out` checks (a secret read
//!   from the environment, which the test leaves unset): `validate` passes without it, and `render --out`
//!   exits 2 reporting it on the snippet's line and writes nothing;
//! - `# unreachable: AIF-XXX-NNN at <snippet>`: the rule cannot fire with the built-in platform profiles
//!   (they lack the number it compares with). The file is a tripwire: the day a profile gains that number
//!   and the rule fires, this test fails and the header must become `# expect:`.
//!
//! `harden-*.yaml` files try to get a path, a newline or a comment character into a rendered config; each
//! names the rule that stops it.
//!
//! The last tests tie the rule registry (`src/rules.rs`) to the tests and docs: every checks or compile
//! rule needs a file here and a `## <id> — <summary>` section in `docs/checks.md` that states the
//! registry's severity and stage, and the rule index of `docs/checks.md` is the registry's.

use crate::common;
use crate::common::root;

use aifab::diag::Severity;
use aifab::rules::Rule;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

const DIR: &str = "tests/bad_checks";
const DOCS: &str = "docs/checks.md";

use common::aifab;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Expect,
    RenderOut,
    Unreachable,
}

struct Case {
    /// Path relative to the crate root.
    rel: String,
    /// File name without `.yaml`.
    stem: String,
    text: String,
    kind: Kind,
    code: String,
    snippet: String,
}

impl Case {
    /// 1-based line of the snippet, searched after the header line (which repeats it). The snippet must
    /// occur exactly once there, so the expected line is unambiguous.
    fn line(&self) -> Result<u64, String> {
        let start = self.text.find('\n').map_or(self.text.len(), |i| i + 1);
        let body = &self.text[start..];
        let count = body.matches(self.snippet.as_str()).count();
        if count != 1 {
            return Err(format!(
                "{}: the snippet `{}` occurs {count} times after the header; it must occur once",
                self.rel, self.snippet
            ));
        }
        let at = start + body.find(self.snippet.as_str()).unwrap_or(0);
        Ok(self.text[..at].matches('\n').count() as u64 + 1)
    }
}

fn parse_header(rel: &str, text: &str) -> Result<(Kind, String, String), String> {
    let first = text.lines().next().unwrap_or_default();
    let (kind, spec) = if let Some(s) = first.strip_prefix("# expect: ") {
        (Kind::Expect, s)
    } else if let Some(s) = first.strip_prefix("# render-out: ") {
        (Kind::RenderOut, s)
    } else if let Some(s) = first.strip_prefix("# unreachable: ") {
        (Kind::Unreachable, s)
    } else {
        return Err(format!(
            "{rel}: the first line must be `# expect: AIF-XXX-NNN at <snippet>` (or `# unreachable: ...`), not `{first}`"
        ));
    };
    let (code, snippet) = spec
        .split_once(" at ")
        .ok_or_else(|| format!("{rel}: header `{first}` has no ` at <snippet>`"))?;
    if !is_rule_id(code) {
        return Err(format!("{rel}: `{code}` is not a rule id"));
    }
    if snippet.trim().is_empty() {
        return Err(format!("{rel}: empty snippet"));
    }
    Ok((kind, code.to_string(), snippet.to_string()))
}

/// Every `tests/bad_checks/*.yaml`, sorted by name.
fn cases() -> Vec<Case> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(DIR))
        .unwrap_or_else(|e| panic!("read {DIR}: {e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "{DIR} holds no .yaml file");
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for p in paths {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let rel = format!("{DIR}/{name}");
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {rel}: {e}"));
        match parse_header(&rel, &text) {
            Ok((kind, code, snippet)) => out.push(Case {
                stem: name.trim_end_matches(".yaml").to_string(),
                rel,
                text,
                kind,
                code,
                snippet,
            }),
            Err(e) => problems.push(e),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    out
}

/// `AIF-` + upper-case letters + `-` + digits.
fn is_rule_id(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("AIF-") else {
        return false;
    };
    let Some((family, number)) = rest.split_once('-') else {
        return false;
    };
    !family.is_empty()
        && family.bytes().all(|b| b.is_ascii_uppercase())
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// A crash is never an acceptable answer to a bad intent.
fn panic_problem(what: &str, out: &Output) -> Option<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(101) || stderr.contains("panicked") || stdout.contains("panicked")
    {
        return Some(format!(
            "{what}: aifab panicked (exit {:?}):\n{stderr}",
            out.status.code()
        ));
    }
    if out.status.code().is_none() {
        return Some(format!("{what}: aifab was killed by a signal:\n{stderr}"));
    }
    None
}

/// Runs `aifab validate --format json`: the exit code and the findings, or a problem.
fn validate(case: &Case) -> Result<(i32, Vec<Value>), String> {
    let out = aifab(&["validate", "--format", "json", &case.rel]);
    let what = format!("aifab validate --format json {}", case.rel);
    if let Some(p) = panic_problem(&what, &out) {
        return Err(p);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let parsed: Value = serde_json::from_str(&stdout)
        .map_err(|e| format!("{what}: stdout is not JSON ({e}):\n{stdout}"))?;
    let findings = parsed
        .as_array()
        .cloned()
        .ok_or_else(|| format!("{what}: stdout is not a JSON array"))?;
    Ok((out.status.code().unwrap_or(-1), findings))
}

fn is_error(f: &Value) -> bool {
    f["severity"] == "error"
}

fn summary(findings: &[Value]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "  {} {} line {} {}: {}",
                f["severity"].as_str().unwrap_or("?"),
                f["code"].as_str().unwrap_or("?"),
                f["line"],
                f["pointer"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks one case with `aifab validate`; returns whether the file has errors.
fn check_validate(case: &Case) -> Result<bool, String> {
    let line = case.line()?;
    let (code, findings) = validate(case)?;
    let errors = findings.iter().any(is_error);
    let same_code: Vec<&Value> = findings.iter().filter(|f| f["code"] == case.code).collect();
    for f in &findings {
        for field in ["code", "severity", "message", "line", "column", "pointer"] {
            if f[field].is_null() {
                return Err(format!(
                    "{}: a finding has no `{field}`:\n{}",
                    case.rel,
                    summary(&findings)
                ));
            }
        }
    }
    match case.kind {
        Kind::RenderOut => {
            if !same_code.is_empty() || errors || code != 0 {
                return Err(format!(
                    "{}: `validate` must pass without {} (only `render --out` checks it), exit {code}:\n{}",
                    case.rel,
                    case.code,
                    summary(&findings)
                ));
            }
            // `render --out` must refuse it (checked by check_render and check_render_finding).
            return Ok(true);
        }
        Kind::Unreachable => {
            if !same_code.is_empty() {
                return Err(format!(
                    "{}: {} now fires; make the header `# expect: {} at {}` and give the rule a failing snippet in {DOCS}:\n{}",
                    case.rel,
                    case.code,
                    case.code,
                    case.snippet,
                    summary(&findings)
                ));
            }
            let want = if errors { 1 } else { 0 };
            if code != want {
                return Err(format!(
                    "{}: exit {code}, expected {want}:\n{}",
                    case.rel,
                    summary(&findings)
                ));
            }
        }
        Kind::Expect => {
            let Some(hit) = same_code.iter().find(|f| f["line"].as_u64() == Some(line)) else {
                return Err(format!(
                    "{}: expected {} at line {line} (`{}`), got:\n{}",
                    case.rel,
                    case.code,
                    case.snippet,
                    summary(&findings)
                ));
            };
            let warning = hit["severity"] == "warning";
            if warning && errors {
                return Err(format!(
                    "{}: a warning case must have no error (one defect per file):\n{}",
                    case.rel,
                    summary(&findings)
                ));
            }
            let want = if errors { 1 } else { 0 };
            if code != want {
                return Err(format!(
                    "{}: exit {code}, expected {want}:\n{}",
                    case.rel,
                    summary(&findings)
                ));
            }
        }
    }
    Ok(errors)
}

/// A fresh scratch folder for one case, removed when dropped.
fn scratch(case: &Case) -> common::Scratch {
    common::Scratch::new(&format!("checks-{}", case.stem))
}

/// `aifab render <f> --out <tmp>/out -q`: an invalid intent exits 2 and creates nothing; a valid one
/// (warnings only) exits 0 and writes its files inside the output folder.
fn check_render(case: &Case, has_errors: bool) -> Result<(), String> {
    let dir = scratch(case);
    let out_dir = dir.join("out");
    let out_arg = out_dir.to_string_lossy().into_owned();
    // --no-lock: a lock would be written beside the case, in the source tree.
    let out = aifab(&["render", &case.rel, "--out", &out_arg, "-q", "--no-lock"]);
    let what = format!("aifab render {} --out {out_arg} -q --no-lock", case.rel);
    let result = (|| {
        if let Some(p) = panic_problem(&what, &out) {
            return Err(p);
        }
        let code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if has_errors {
            // render cannot run on an invalid intent: 2 (1 is a difference found by --check or diff).
            if code != 2 {
                return Err(format!("{what}: exit {code}, expected 2:\n{stderr}"));
            }
            if out_dir.exists() {
                return Err(format!("{what}: an invalid intent created {out_arg}"));
            }
        } else if code != 0 {
            return Err(format!("{what}: exit {code}, expected 0:\n{stderr}"));
        } else if !out_dir.is_dir() {
            return Err(format!("{what}: exit 0 but no {out_arg}"));
        }
        // Nothing may appear next to the output folder (a `../` in a file name).
        let stray: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("read {}: {e}", dir.display()))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "out")
            .collect();
        if !stray.is_empty() {
            return Err(format!(
                "{what}: wrote outside the output folder: {stray:?}"
            ));
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// For a `# render-out:` case: `aifab render --out` reports the rule on the snippet's line.
fn check_render_finding(case: &Case) -> Result<(), String> {
    let line = case.line()?;
    let dir = scratch(case);
    let out_arg = dir.join("out").to_string_lossy().into_owned();
    let out = aifab(&["render", &case.rel, "--out", &out_arg]);
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let located = format!("{}:{line}:", case.rel);
    if stderr.contains(&case.code) && stderr.contains(&located) {
        Ok(())
    } else {
        Err(format!(
            "{}: `render --out` did not report {} at {located}:\n{stderr}",
            case.rel, case.code
        ))
    }
}

#[test]
fn every_bad_check_is_reported_at_its_line_and_renders_nothing() {
    let cases = cases();
    let problems: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|case| {
                s.spawn(move || {
                    let mut problems = Vec::new();
                    match check_validate(case) {
                        Ok(has_errors) => {
                            if let Err(e) = check_render(case, has_errors) {
                                problems.push(e);
                            }
                            if case.kind == Kind::RenderOut
                                && let Err(e) = check_render_finding(case)
                            {
                                problems.push(e);
                            }
                        }
                        Err(e) => problems.push(e),
                    }
                    problems
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("case thread"))
            .collect()
    });
    assert!(
        problems.is_empty(),
        "{} of {} files in {DIR} failed:\n\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
}

#[test]
fn hardening_cases_are_rejected() {
    // Every attempt to get a path, a line break or a comment character into a rendered config must be
    // an error (the case above then also checks that `render` writes nothing).
    let harden: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.stem.starts_with("harden-"))
        .collect();
    assert!(!harden.is_empty(), "no harden-*.yaml in {DIR}");
    for case in &harden {
        assert_eq!(
            case.kind,
            Kind::Expect,
            "{}: a hardening case must be rejected",
            case.rel
        );
        let (code, findings) = validate(case).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            code,
            1,
            "{}: a hardening case must be an error:\n{}",
            case.rel,
            summary(&findings)
        );
    }
}

/// The rules with a section in docs/checks.md and a file here: the semantic checks and the compiler's,
/// from the registry.
fn documented_rules() -> Vec<Rule> {
    Rule::ALL
        .iter()
        .copied()
        .filter(|r| r.has_section())
        .collect()
}

/// The rule index of docs/checks.md: the table after `## Rules`, as (start, end) byte offsets.
fn index_range(md: &str) -> Option<(usize, usize)> {
    let heading = md.find("\n## Rules\n")?;
    let start = heading + md[heading..].find("\n|")? + 1;
    let end = md[start..].find("\n\n").map_or(md.len(), |i| start + i + 1);
    Some((start, end))
}

#[test]
fn the_docs_index_is_the_registry() {
    // With AIFAB_BLESS=1 the index is rewritten from the registry instead.
    let path = root().join(DOCS);
    let md = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{DOCS}: {e}"));
    let (start, end) =
        index_range(&md).unwrap_or_else(|| panic!("{DOCS}: no table after `## Rules`"));
    let fresh = aifab::rules::markdown_index();
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        let text = format!("{}{fresh}{}", &md[..start], &md[end..]);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {DOCS}: {e}"));
        return;
    }
    let on_disk = &md[start..end];
    if on_disk != fresh {
        let first = on_disk
            .lines()
            .zip(fresh.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("\n  docs:     {a}\n  registry: {b}"))
            .unwrap_or_default();
        panic!(
            "the rule index of {DOCS} differs from src/rules.rs{first}\nrun `AIFAB_BLESS=1 cargo test --test it checks::the_docs_index` to regenerate it"
        );
    }
}

/// Rule ids of the `## AIF-XXX-NNN — summary` headings of docs/checks.md, each with its section text.
fn doc_sections(md: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            let id = h.split_whitespace().next().unwrap_or_default();
            if is_rule_id(id) {
                out.push((id.to_string(), String::new()));
                continue;
            }
        }
        if line.starts_with("## ") || line.starts_with("# ") {
            out.push((String::new(), String::new()));
            continue;
        }
        if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    out.retain(|(id, _)| !id.is_empty());
    out
}

#[test]
fn every_rule_has_a_test_file_and_a_docs_section() {
    let rules = documented_rules();
    let cases = cases();
    let md = std::fs::read_to_string(root().join(DOCS)).unwrap_or_else(|e| panic!("{DOCS}: {e}"));
    let sections = doc_sections(&md);
    let headings: BTreeSet<&str> = md.lines().filter_map(|l| l.strip_prefix("## ")).collect();

    let mut problems = Vec::new();
    for rule in &rules {
        let id = rule.id();
        let lower = id.to_ascii_lowercase();
        if !cases
            .iter()
            .any(|c| c.code == id && c.stem.to_ascii_lowercase().starts_with(&lower))
        {
            problems.push(format!(
                "{id}: no {DIR}/{lower}.yaml whose header names {id}"
            ));
        }
        if !headings.contains(rule.heading().as_str()) {
            problems.push(format!(
                "{id}: no `## {}` section in {DOCS}",
                rule.heading()
            ));
        }
    }
    // No stale or duplicated sections; each says what the registry says.
    let mut seen = BTreeSet::new();
    for (id, body) in &sections {
        if !seen.insert(id.as_str()) {
            problems.push(format!("{id}: two sections in {DOCS}"));
        }
        let Some(rule) = Rule::from_id(id).filter(|r| r.has_section()) else {
            problems.push(format!(
                "{id}: documented in {DOCS} but not a checks or compile rule of src/rules.rs"
            ));
            continue;
        };
        let severity = match rule.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let stated = format!(
            "**Severity:** {severity}. **Stage:** {}.",
            rule.stage().name()
        );
        if !body.contains(&stated) {
            problems.push(format!(
                "{id}: its section in {DOCS} does not say `{stated}` (the registry's severity and stage)"
            ));
        }
        if rule.acknowledgeable() != body.contains("**Acknowledgeable:** yes.") {
            problems.push(format!(
                "{id}: its section in {DOCS} must say `**Acknowledgeable:** yes.` exactly when the registry marks it acknowledgeable"
            ));
        }
        let yaml_blocks = body.matches("```yaml").count();
        let lower = body.to_ascii_lowercase();
        if yaml_blocks < 2 || !lower.contains("failing") || !lower.contains("passing") {
            problems.push(format!(
                "{id}: its section in {DOCS} needs a failing and a passing ```yaml snippet"
            ));
        }
    }
    // Every expected code is a real rule (no typo in a header).
    for c in &cases {
        if Rule::from_id(&c.code).is_none() {
            problems.push(format!("{}: `{}` is not a rule aifab has", c.rel, c.code));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_examples_stay_valid() {
    // The bad files are copies of these; if an example stops validating, every case above is suspect.
    let dir = root().join("intents");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("intents/").flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "yaml") || p.to_string_lossy().ends_with(".lock.yaml")
        {
            continue; // not an intent, or the allocation lock beside one (docs/lock.md)
        }
        n += 1;
        let rel = Path::new("intents").join(p.file_name().unwrap_or_default());
        let out = aifab(&["validate", "--format", "json", &rel.to_string_lossy()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            rel.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert!(n > 0, "no example intents");
}

/// Every id aifab has issued (tests/rule-ids.txt) is in the registry or retired: a rule that leaves
/// the registry keeps its id reserved. With AIFAB_BLESS=1 new registry ids are added to the file.
#[test]
fn issued_rule_ids_stay_reserved() {
    let path = root().join("tests/rule-ids.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let issued: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let live: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    let gone: Vec<&&str> = issued
        .iter()
        .filter(|id| !live.contains(**id) && Rule::retired(id).is_none())
        .collect();
    assert!(
        gone.is_empty(),
        "{gone:?} left the registry without a RETIRED entry in src/rules.rs: an id is never reused"
    );
    let new: Vec<&&str> = live.iter().filter(|id| !issued.contains(**id)).collect();
    if !new.is_empty() && std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        let mut all: std::collections::BTreeSet<&str> = issued.clone();
        all.extend(live.iter().copied());
        let head: String = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let body: String = all.iter().map(|id| format!("{id}\n")).collect();
        std::fs::write(&path, head + &body).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    assert!(
        new.is_empty(),
        "{new:?} are not in tests/rule-ids.txt: run `AIFAB_BLESS=1 cargo test --test it checks::issued_rule_ids` to add them"
    );
    for (id, _) in aifab::rules::RETIRED {
        assert!(
            issued.contains(id),
            "retired {id} is not in tests/rule-ids.txt"
        );
        let md = std::fs::read_to_string(root().join(DOCS)).expect("docs");
        assert!(md.contains(id), "{DOCS} does not list retired {id}");
    }
}
