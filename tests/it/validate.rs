//! `aifab validate` run like a user would: the example intent passes, every file in `tests/bad/` fails
//! with the right rule id at the right line and column.
//!
//! Expected locations are not hard-coded: each case names a snippet of the bad file, and the expected
//! line and column are where that snippet sits in the file's text.

use crate::common;
use crate::common::root;

use serde_json::Value;
use std::time::{Duration, Instant};

const EXAMPLE: &str = "intents/pod1-1024.yaml";

use common::aifab;

fn bad(name: &str) -> String {
    format!("tests/bad/{name}.yaml")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// Runs `aifab validate --format json <file>`: the exit code and the parsed findings.
fn validate_json(file: &str) -> (Option<i32>, Vec<Value>) {
    let out = aifab(&["validate", "--format", "json", file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let parsed: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "stdout of `aifab validate --format json {file}` is not JSON ({e}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let findings = parsed
        .as_array()
        .cloned()
        .expect("a JSON array of findings");
    (out.status.code(), findings)
}

/// 1-based line and column (in characters) of the `occurrence`-th (0-based) match of `needle` in `text`,
/// moved right by `shift` characters.
fn position_of(text: &str, needle: &str, occurrence: usize, shift: usize) -> (u64, u64) {
    let mut from = 0;
    let mut at = None;
    for _ in 0..=occurrence {
        let i = text[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` occurs fewer than {} times", occurrence + 1));
        at = Some(from + i);
        from += i + needle.len();
    }
    let at = at.expect("found");
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1 + shift;
    (line as u64, col as u64)
}

fn line_col(f: &Value) -> (u64, u64) {
    (
        f["line"].as_u64().unwrap_or(0),
        f["column"].as_u64().unwrap_or(0),
    )
}

/// Asserts that `findings` hold `code` at the place of `needle` and returns that finding.
fn expect_at<'a>(
    findings: &'a [Value],
    file: &str,
    code: &str,
    needle: &str,
    occurrence: usize,
    shift: usize,
) -> &'a Value {
    let text = read(file);
    let want = position_of(&text, needle, occurrence, shift);
    findings
        .iter()
        .find(|f| f["code"] == code && line_col(f) == want)
        .unwrap_or_else(|| {
            panic!(
                "{file}: expected {code} at line {} column {} (`{needle}`), got:\n{}",
                want.0,
                want.1,
                serde_json::to_string_pretty(findings).unwrap_or_default()
            )
        })
}

fn hint(f: &Value) -> &str {
    f["hint"].as_str().unwrap_or_default()
}

#[test]
fn example_is_valid() {
    let out = aifab(&["validate", EXAMPLE]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    assert!(
        stderr.contains(&format!("{EXAMPLE}: valid")),
        "stderr:\n{stderr}"
    );
    let (code, findings) = validate_json(EXAMPLE);
    assert_eq!(code, Some(0));
    assert!(
        findings.iter().all(|f| f["severity"] != "error"),
        "{findings:?}"
    );
}

/// One case per error class: file, rule id, where (snippet, occurrence, shift), hint text expected.
struct Case {
    name: &'static str,
    code: &'static str,
    needle: &'static str,
    occurrence: usize,
    shift: usize,
    hint: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "unknown-key",
        code: "AIF-SCHEMA-001",
        needle: "bandwith",
        occurrence: 0,
        shift: 0,
        hint: "did you mean `bandwidth`?",
    },
    Case {
        name: "bool-as-int",
        code: "AIF-SCHEMA-003",
        needle: "priority: true",
        occurrence: 0,
        shift: "priority: ".len(),
        hint: "",
    },
    Case {
        name: "quoted-number",
        code: "AIF-SCHEMA-003",
        needle: "\"3\"",
        occurrence: 0,
        shift: 0,
        hint: "remove the quotes",
    },
    Case {
        name: "dscp-out-of-range",
        code: "AIF-SCHEMA-004",
        needle: "64]",
        occurrence: 0,
        shift: 0,
        hint: "",
    },
    Case {
        name: "duplicate-key",
        code: "AIF-YAML-002",
        // the second `priority` key of the `cnp` class
        needle: "priority: 7",
        occurrence: 0,
        shift: 0,
        hint: "",
    },
    Case {
        name: "size-with-space",
        code: "AIF-SCHEMA-005",
        needle: "150 KB",
        occurrence: 0,
        shift: 0,
        hint: "no space between number and unit: write `150KB`",
    },
    Case {
        name: "yaml-syntax",
        code: "AIF-YAML-001",
        needle: "servers: 128",
        occurrence: 0,
        shift: "servers".len(),
        hint: "",
    },
    Case {
        name: "missing-required",
        code: "AIF-SCHEMA-002",
        needle: "pfc_watchdog",
        occurrence: 0,
        shift: 0,
        hint: "add `detect:`",
    },
    Case {
        name: "bad-enum",
        code: "AIF-SCHEMA-006",
        needle: "rail-optimised",
        occurrence: 0,
        shift: 0,
        hint: "did you mean `rail-optimized`?",
    },
];

#[test]
fn each_bad_file_fails_at_its_defect() {
    for case in CASES {
        let file = bad(case.name);
        let (code, findings) = validate_json(&file);
        assert_eq!(code, Some(1), "{file}: exit code");
        let f = expect_at(
            &findings,
            &file,
            case.code,
            case.needle,
            case.occurrence,
            case.shift,
        );
        if case.name == "duplicate-key" {
            // The message names the line of the first `priority` of the class.
            let (first_line, _) = position_of(&read(&file), "priority: 6", 0, 0);
            let msg = f["message"].as_str().unwrap_or_default();
            assert!(
                msg.contains(&format!("line {first_line}")),
                "duplicate-key message should name the first line {first_line}: {msg}"
            );
        }
        assert_eq!(f["severity"], "error", "{file}");
        assert!(
            hint(f).contains(case.hint),
            "{file}: hint should contain {:?}, got {:?}",
            case.hint,
            hint(f)
        );
        assert!(
            f["file"]
                .as_str()
                .is_some_and(|p| p.ends_with(&format!("{}.yaml", case.name))),
            "{file}: file field {}",
            f["file"]
        );
    }
}

#[test]
fn every_bad_file_is_covered_and_fails() {
    let dir = root().join("tests/bad");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/bad")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert!(names.len() >= 11, "{names:?}");
    for n in &names {
        let file = format!("tests/bad/{n}");
        let (code, findings) = validate_json(&file);
        assert_eq!(code, Some(1), "{file} must be rejected");
        assert!(
            findings
                .iter()
                .any(|f| f["severity"] == "error" && f["line"].as_u64().is_some()),
            "{file}: no located error: {findings:?}"
        );
    }
}

#[test]
fn messages_are_plain_english() {
    let (_, findings) = validate_json(&bad("bool-as-int"));
    let f = expect_at(
        &findings,
        &bad("bool-as-int"),
        "AIF-SCHEMA-003",
        "priority: true",
        0,
        10,
    );
    assert_eq!(
        f["message"],
        "`qos.classes.roce.priority` must be an integer 0-7, found `true` (a boolean)"
    );
    let (_, findings) = validate_json(&bad("dscp-out-of-range"));
    let msg = findings[0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("must be an integer 0-63, found `64`"), "{msg}");
    let (_, findings) = validate_json(&bad("quoted-number"));
    let msg = findings[0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("(a quoted string)"), "{msg}");
}

#[test]
fn five_problems_are_reported_in_one_run() {
    let file = bad("five-problems");
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    let unknown = expect_at(&findings, &file, "AIF-SCHEMA-001", "bandwith", 0, 0);
    assert!(hint(unknown).contains("`bandwidth`"));
    let boolean = expect_at(&findings, &file, "AIF-SCHEMA-003", "priority: true", 0, 10);
    let dscp = expect_at(&findings, &file, "AIF-SCHEMA-004", "64]", 0, 0);
    let dup = expect_at(&findings, &file, "AIF-YAML-002", "priority: 7", 0, 0);
    let size = expect_at(&findings, &file, "AIF-SCHEMA-005", "150 KB", 0, 0);
    let mut lines: Vec<u64> = [unknown, boolean, dscp, dup, size]
        .iter()
        .map(|f| line_col(f).0)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(
        lines.len(),
        5,
        "five problems on five distinct lines: {lines:?}"
    );
    let errors: Vec<&Value> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 5, "{findings:#?}");
    // The sections that passed the schema went on through placement and the compiler: the DLB of
    // `load_balancing` (clean) and its acknowledged DLB MAC are all they have to say, as warnings.
    for f in findings.iter().filter(|f| f["severity"] != "error") {
        let code = f["code"].as_str().unwrap_or("");
        let msg = f["message"].as_str().unwrap_or("");
        match code {
            "AIF-LB-006" | "AIF-UNV-001" => assert!(msg.contains("DLB"), "{f:#?}"),
            "AIF-ACK-003" => assert!(msg.starts_with("AIF-LB-009 acknowledged"), "{f:#?}"),
            _ => panic!("unexpected {f:#?}"),
        }
    }

    // The text report says the same, greppable as file:line:col.
    let out = aifab(&["validate", &file]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for f in &findings {
        let loc = format!("{file}:{}:{}", f["line"], f["column"]);
        assert!(stderr.contains(&loc), "text output lacks {loc}:\n{stderr}");
        assert!(stderr.contains(f["code"].as_str().unwrap_or("?")));
    }
    assert!(stderr.contains("5 errors"), "{stderr}");
}

#[test]
fn alias_bomb_fails_fast() {
    let file = bad("alias-bomb");
    let started = Instant::now();
    let (code, findings) = validate_json(&file);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(code, Some(1));
    let f = findings
        .iter()
        .find(|f| f["code"] == "AIF-YAML-004")
        .unwrap_or_else(|| panic!("no AIF-YAML-004: {findings:?}"));
    // It points at an alias (`*x`) inside the bomb.
    let text = read(&file);
    let (line, col) = line_col(f);
    let at_line = text.lines().nth(line as usize - 1).unwrap_or_default();
    let ch = at_line.chars().nth(col as usize - 1);
    assert_eq!(ch, Some('*'), "line {line} col {col}: {at_line}");
    let (bomb_line, _) = position_of(&text, "x-lol:", 0, 0);
    assert!(line > bomb_line);
}

#[test]
fn oversize_file_is_refused_before_parsing() {
    let dir = common::Scratch::new("validate-huge");
    let path = dir.join("huge.yaml");
    let mut text = read(EXAMPLE);
    let filler = format!("# {}\n", "x".repeat(1022));
    while text.len() <= 4 * 1024 * 1024 {
        text.push_str(&filler);
    }
    std::fs::write(&path, &text).expect("write huge file");
    let p = path.to_string_lossy().into_owned();
    let (code, findings) = validate_json(&p);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(1));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "AIF-YAML-005");
    assert_eq!(line_col(&findings[0]), (1, 1));
}

#[test]
fn sarif_output() {
    let file = bad("five-problems");
    let (_, findings) = validate_json(&file);
    let out = aifab(&["validate", "--format", "sarif", &file, EXAMPLE]);
    assert_eq!(out.status.code(), Some(1));
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "aifab");
    let all = run["results"].as_array().expect("results");
    let uri = |r: &Value| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].clone();
    let results: Vec<&Value> = all.iter().filter(|r| uri(r) == file.as_str()).collect();
    assert_eq!(results.len(), findings.len());
    // The example's results, if any, are warnings from the semantic checks.
    assert!(
        all.iter()
            .filter(|r| uri(r) == EXAMPLE)
            .all(|r| r["level"] == "warning")
    );
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    for r in results {
        assert!(rules.contains(&r["ruleId"].as_str().unwrap_or_default()));
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], file);
        assert!(loc["region"]["startLine"].as_u64().is_some_and(|l| l > 0));
        assert!(loc["region"]["startColumn"].as_u64().is_some_and(|c| c > 0));
    }
}

#[test]
fn missing_file_is_a_usage_error() {
    let out = aifab(&["validate", "tests/bad/does-not-exist.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does-not-exist.yaml"), "{stderr}");
    // Still an I/O error when another file is fine.
    let out = aifab(&["validate", EXAMPLE, "tests/bad/does-not-exist.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    // No file at all is a usage error.
    let out = aifab(&["validate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_bad_file_among_good_ones_fails_the_run() {
    let out = aifab(&["validate", EXAMPLE, &bad("unknown-key")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{EXAMPLE}: valid")), "{stderr}");
    assert!(stderr.contains("unknown-key.yaml: invalid"), "{stderr}");
}

#[test]
fn schema_command_prints_the_schema() {
    let out = aifab(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(out.stdout.ends_with(b"}\n"));
    let out = aifab(&["schema", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("### `fabric.topology.leaf.platform`"));
}

#[test]
fn an_acknowledgement_is_checked_when_other_sections_fail_the_schema() {
    let file = bad("schema-and-acknowledge");
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    expect_at(&findings, &file, "AIF-SCHEMA-003", "\"128\"", 0, 0);
    expect_at(&findings, &file, "AIF-ACK-001", "rule: AIF-QOS-013", 0, 6);
}

#[test]
fn schema_and_semantic_problems_are_reported_together() {
    let file = bad("schema-and-semantic");
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    expect_at(&findings, &file, "AIF-SCHEMA-003", "\"128\"", 0, 0);
    expect_at(&findings, &file, "AIF-SCHEMA-006", "leef", 0, 0);
    // The QoS section passed the schema, so its rules ran on it.
    expect_at(&findings, &file, "AIF-QOS-001", "min: 1500KB", 0, 5);
    // The load-balancing section failed it, so its rules did not run (its `flowlet_gap` would be
    // AIF-LB-008 otherwise).
    assert!(
        !findings.iter().any(|f| f["code"] == "AIF-LB-008"),
        "a rule ran on a section that failed the schema: {findings:#?}"
    );
    assert_eq!(findings.len(), 3, "{findings:#?}");
}

/// One mistake in each of four stages (load: a duplicate key; schema: a DLB mode that does not exist;
/// checks: ECN min above max; compile: a server-link pool too small) comes back from one run, each at
/// its line: the schema's failure in `load_balancing` and `baseline` does not stop the rules and the
/// compiler from reading the sections that passed.
#[test]
fn mistakes_in_four_stages_are_all_reported() {
    let file = bad("four-stages");
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    expect_at(
        &findings,
        &file,
        "AIF-YAML-002",
        "syslog: [192.0.2.32]",
        0,
        0,
    );
    expect_at(&findings, &file, "AIF-SCHEMA-006", "per-packett", 0, 0);
    expect_at(&findings, &file, "AIF-QOS-001", "min: 1500KB", 0, 5);
    expect_at(&findings, &file, "AIF-ADDR-002", "10.2.0.0/24", 0, 0);
    let errors = findings.iter().filter(|f| f["severity"] == "error").count();
    assert_eq!(errors, 4, "{findings:#?}");
    let out = aifab(&["validate", &file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid, 4 errors"), "{stderr}");
}

/// Without a schema error the same holds: a rule's error in one section does not hide the compiler's
/// in another, and the compiler's findings in the faulted section (the same mistake again) stay out.
#[test]
fn a_rule_error_does_not_hide_a_compile_error() {
    let text = read(&bad("four-stages"))
        .replace("  syslog: [192.0.2.32]\n", "")
        .replace("per-packett ", "per-packet  ");
    let scratch = common::Scratch::new("validate-two-stages");
    let file = scratch.join("two-stages.yaml");
    std::fs::write(&file, &text).expect("write");
    let file = file.to_str().expect("utf-8").to_string();
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    let codes: Vec<&str> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert_eq!(codes, ["AIF-ADDR-002", "AIF-QOS-001"], "{findings:#?}");
}

/// A value refused by its field's pattern names the character that does not fit: an acknowledgement's
/// reason with `;` says `;`, and nothing else is refused (the acknowledgement section failing the schema
/// does not turn the rule it acknowledges into an error).
#[test]
fn a_refused_character_is_named() {
    let text = read("intents/pod1-1024.yaml").replacen(
        "reason: \"example fabric, untested:",
        "reason: \"example fabric; untested:",
        1,
    );
    let scratch = common::Scratch::new("validate-semicolon");
    let file = scratch.join("semicolon.yaml");
    std::fs::write(&file, &text).expect("write");
    let file = file.to_str().expect("utf-8").to_string();
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    let errors: Vec<&Value> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{findings:#?}");
    let msg = errors[0]["message"].as_str().unwrap_or_default();
    assert_eq!(errors[0]["code"], "AIF-SCHEMA-005");
    assert!(msg.ends_with("it cannot hold `;`"), "{msg}");
    // A tab is named by its code point.
    let text = read("intents/pod1-1024.yaml")
        .replace("reason: \"example fabric,", "reason: \"example\tfabric,");
    std::fs::write(scratch.join("tab.yaml"), &text).expect("write");
    let (_, findings) = validate_json(scratch.join("tab.yaml").to_str().expect("utf-8"));
    assert!(
        findings.iter().any(|f| f["message"]
            .as_str()
            .unwrap_or_default()
            .ends_with("it cannot hold a control character (U+0009)")),
        "{findings:#?}"
    );
}

/// `aifab validate intents/*.yaml`, as a CI job writes it, meets the lock files beside the intents: each
/// is checked as its intent's lock (never as an intent with errors about keys an intent has), `-q`
/// leaves out the exceptions the examples acknowledge, and a lock without its intent is an error.
#[test]
fn a_glob_over_intents_checks_the_locks_as_locks() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("intents"))
        .expect("intents/")
        .filter_map(|e| e.ok())
        .map(|e| format!("intents/{}", e.file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".yaml"))
        .collect();
    files.sort();
    let locks = files.iter().filter(|f| f.ends_with(".lock.yaml")).count();
    assert!(locks >= 5, "{files:?}");
    let args: Vec<&str> = std::iter::once("validate")
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = aifab(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches(", checked with it").count(),
        locks,
        "{stderr}"
    );
    assert!(!stderr.contains("missing the required key"), "{stderr}");
    assert!(
        stderr.contains("AIF-ACK-003"),
        "acknowledged exceptions are shown without -q"
    );
    let mut quiet = args.clone();
    quiet.insert(1, "-q");
    let out = aifab(&quiet);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("AIF-ACK-003") && !stderr.contains("checked with it"),
        "{stderr}"
    );
    // A lock given alone checks its intent; a lock without an intent beside it is an error.
    let out = aifab(&["validate", "intents/pod1-1024.lock.yaml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("checked with its intent intents/pod1-1024.yaml")
            && stderr.contains("intents/pod1-1024.yaml: valid"),
        "{stderr}"
    );
    let dir = common::Scratch::new("validate-orphan-lock");
    std::fs::copy(
        root().join("intents/pod1-1024.lock.yaml"),
        dir.join("gone.lock.yaml"),
    )
    .expect("copy");
    let orphan = dir.join("gone.lock.yaml");
    let out = aifab(&["validate", orphan.to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("without its intent gone.yaml"), "{stderr}");
}

/// A value the schema accepts but that cannot be read (an address with a byte over 255) hides nothing:
/// each such value is reported at its own line, and the rules of the clean sections still run.
#[test]
fn unreadable_values_hide_no_other_problem() {
    let text = std::fs::read_to_string(root().join("intents/pod1-1024.yaml")).expect("read");
    let bad = text
        .replace(
            "{ address: 192.0.2.21, prefer: true }",
            "{ address: 192.0.2.321, prefer: true }",
        )
        .replace("{ address: 192.0.2.22 }", "{ address: 192.0.2.422 }")
        .replace("syslog: [192.0.2.31]", "syslog: [192.0.2.999]")
        .replace("min: 150KB, max: 1500KB", "min: 1600KB, max: 1500KB");
    let dir = common::Scratch::new("validate-unreadable");
    let path = dir.join("x.yaml");
    std::fs::write(&path, &bad).expect("write");
    let out = aifab(&[
        "validate",
        "--no-lock",
        "--format",
        "json",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).expect("json");
    let errors: Vec<(String, u64)> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["code"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let line_of =
        |needle: &str| bad.lines().position(|l| l.contains(needle)).expect(needle) as u64 + 1;
    let want = vec![
        ("AIF-SCHEMA-009".to_string(), line_of("192.0.2.321")),
        ("AIF-SCHEMA-009".to_string(), line_of("192.0.2.422")),
        ("AIF-SCHEMA-009".to_string(), line_of("192.0.2.999")),
        ("AIF-QOS-001".to_string(), line_of("min: 1600KB")),
    ];
    assert_eq!(errors, want, "{findings:#?}");
    assert!(
        findings
            .iter()
            .any(|f| f["message"].as_str().is_some_and(|m| m.contains("ntp[1]"))),
        "the second bad NTP address is named by its own index"
    );
}

/// An intent error does not hide the lock's own problems with the intent: both in one run.
#[test]
fn intent_errors_and_lock_range_errors_come_together() {
    let text = std::fs::read_to_string(root().join("intents/pod1-1024.yaml")).expect("read");
    let bad = text
        .replace("leaf_asn: 65100-65299", "leaf_asn: 65200-65299")
        .replace("min: 150KB, max: 1500KB", "min: 1600KB, max: 1500KB");
    assert_ne!(bad, text);
    let dir = common::Scratch::new("validate-lock-and-intent");
    std::fs::write(dir.join("p.yaml"), &bad).expect("write");
    std::fs::copy(
        root().join("intents/pod1-1024.lock.yaml"),
        dir.join("p.lock.yaml"),
    )
    .expect("copy");
    let out = aifab(&[
        "validate",
        "--format",
        "json",
        dir.join("p.yaml").to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).expect("json");
    let has = |code: &str| findings.iter().any(|f| f["code"] == code);
    assert!(has("AIF-QOS-001") && has("AIF-LOCK-004"), "{findings:#?}");
}

/// A spine count the uplinks do not spread over (the port arithmetic fails) hides neither a server
/// pool nor a leaf ASN range too small for the fabric's device counts: all three come back from one
/// run, each at its line, in `validate` and in `render` (which writes nothing).
#[test]
fn a_wrong_spine_count_hides_no_pool_or_asn_range() {
    let text = read("intents/three-tier-small.yaml")
        .replacen(
            "hostname: \"z{zone}-spine{index}\"\n      count: 2",
            "hostname: \"z{zone}-spine{index}\"\n      count: 3",
            1,
        )
        .replace("server_links: 10.22.0.0/24", "server_links: 10.22.0.0/28")
        .replace("leaf_asn: 65200-65299", "leaf_asn: 65200-65203");
    let scratch = common::Scratch::new("validate-unshaped");
    let file = scratch.join("unshaped.yaml");
    std::fs::write(&file, &text).expect("write");
    let file = file.to_str().expect("utf-8").to_string();
    let (code, findings) = validate_json(&file);
    assert_eq!(code, Some(1));
    expect_at(&findings, &file, "AIF-FAB-004", "count: 3", 0, 7);
    expect_at(&findings, &file, "AIF-ADDR-002", "10.22.0.0/28", 0, 0);
    expect_at(&findings, &file, "AIF-BGP-001", "65200-65203", 0, 0);
    let errors = findings.iter().filter(|f| f["severity"] == "error").count();
    assert_eq!(errors, 3, "{findings:#?}");
    let out = scratch.join("out");
    let r = aifab(&[
        "render",
        &file,
        "--no-lock",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{stderr}");
    for code in ["AIF-FAB-004", "AIF-ADDR-002", "AIF-BGP-001"] {
        assert!(stderr.contains(code), "{code}: {stderr}");
    }
    assert!(!out.exists(), "render wrote {}", out.display());
}

/// A schema error in `qos` (a section the compiler reads past) hides no lock problem: the lock beside
/// the intent is checked against the sections that passed, and `validate` and `render` report both
/// files' errors at their places.
#[test]
fn a_qos_schema_error_hides_no_lock_error() {
    let scratch = common::Scratch::new("validate-qos-lock");
    let intent =
        read("intents/three-tier-small.yaml").replacen("priority: 3\n", "priority: 33\n", 1);
    let lock = read("intents/three-tier-small.lock.yaml").replacen(
        "router_id: 10.20.0.3, asn: 65202,",
        "router_id: 10.20.0.3, asn: 64000,",
        1,
    );
    let file = scratch.join("three-tier-small.yaml");
    std::fs::write(&file, &intent).expect("write");
    std::fs::write(scratch.join("three-tier-small.lock.yaml"), &lock).expect("write");
    let file = file.to_str().expect("utf-8").to_string();
    let out = aifab(&["validate", &file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("AIF-SCHEMA-004"), "{stderr}");
    assert!(
        stderr.contains("AIF-LOCK-004") && stderr.contains("ASN 64000 is outside"),
        "{stderr}"
    );
    let r = aifab(&[
        "render",
        &file,
        "--out",
        scratch.join("out").to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("AIF-SCHEMA-004") && stderr.contains("AIF-LOCK-004"),
        "{stderr}"
    );
    assert!(!scratch.join("out").exists());
}
