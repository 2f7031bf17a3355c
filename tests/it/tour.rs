//! The README's tour, run as written in a fresh site repository that holds only intents: the set-up
//! block (folders, an example intent copied in, the schema its `$schema` line points at, the playbooks
//! copied from the clone), then every command of the tour table with each optional flag and each
//! alternative it shows, then the pipeline blocks. The commands are read from README.md itself, so the
//! README cannot show a command or a flag that does not run.
//!
//! The `ansible-playbook` lines of the tour and of docs/push.md's workflow run as written there too,
//! in the same site repository, with what an operator has beside them: the vault file is the examples'
//! (`ansible/examples/secrets.vault.yml`, test values) and `--ask-vault-pass` reads its password from
//! `tests/tour/vault-password` instead of a prompt. Every line passes `--syntax-check`; the push lines
//! (deploy.yml) run as written with `--tags access_check` added, which contacts no switch: the
//! preflight, the assembled folder's manifest, the login user, SSH and management address, and the
//! vault. What `ansible/running.yml` would fetch is the rendered configs (the site has no switch).
//! Needs `ansible-playbook` (`$AIFAB_ANSIBLE_BIN`, as tests/it/ansible.rs finds it); without it those
//! lines are skipped with one line said, and under `CI=true` the test fails.
//!
//! Left out, and why: `aifab bench` (it renders 100K-GPU fabrics: minutes, measured by its own runs, not
//! by a test); `aifab dcim` (it needs a Nautobot server: tests/it/dcim.rs runs its forms against one).

use crate::common;
use crate::common::git;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The README's `## Tour` section, up to the next `## ` heading.
fn tour_section() -> String {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let start = readme.find("\n## Tour\n").expect("a ## Tour section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// The ```sh blocks of a section, in order.
fn sh_blocks(section: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = section;
    while let Some(i) = rest.find("```sh\n") {
        let body = &rest[i + 6..];
        let j = body.find("```").expect("a closed block");
        out.push(body[..j].to_string());
        rest = &body[j + 3..];
    }
    out
}

/// Lines with `\` continuations joined and trailing ` # comments` cut.
fn logical_lines(block: &str) -> Vec<String> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|l| match l.find(" #") {
            Some(i) => l[..i].trim().to_string(),
            None => l.trim().to_string(),
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The commands of the tour table: each backticked `aifab ...` span of a row's first cell.
fn table_commands(section: &str) -> Vec<String> {
    let mut out = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `aifab ")) {
        let cell = row[1..].split(" | ").next().unwrap_or_default();
        for span in cell.split('`').skip(1).step_by(2) {
            if span.starts_with("aifab ") {
                out.push(span.replace("\\|", "|"));
            }
        }
    }
    out
}

/// One token or an optional group of a command pattern: `[-q]`, `[--format json|sarif]`.
#[derive(Debug)]
enum Part {
    Word(String),
    Optional(Vec<String>),
}

/// Splits a pattern into words (single quotes kept together, then stripped) and optional groups.
fn parts(pattern: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in pattern.chars().chain([' ']) {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    let mut group: Option<Vec<String>> = None;
    for w in words {
        match (&mut group, w.strip_prefix('[')) {
            (None, Some(inner)) => {
                let inner = inner.to_string();
                if let Some(done) = inner.strip_suffix(']') {
                    out.push(Part::Optional(vec![done.to_string()]));
                } else {
                    group = Some(vec![inner]);
                }
            }
            (Some(g), _) => {
                if let Some(done) = w.strip_suffix(']') {
                    g.push(done.to_string());
                    out.push(Part::Optional(group.take().unwrap_or_default()));
                } else {
                    g.push(w);
                }
            }
            (None, None) => out.push(Part::Word(w)),
        }
    }
    assert!(group.is_none(), "an unclosed [ in `{pattern}`");
    out
}

/// Every form of a pattern worth running: no optional group, then every group on with each
/// alternative (`a|b|c` in a word) in turn, the other words taking their first.
fn forms(pattern: &str) -> Vec<Vec<String>> {
    let parts = parts(pattern);
    let words = |with_optional: bool, pick: Option<(usize, usize)>| -> Vec<String> {
        let mut out = Vec::new();
        let mut k = 0;
        for p in &parts {
            let ws = match p {
                Part::Word(w) => vec![w.clone()],
                Part::Optional(ws) if with_optional => ws.clone(),
                Part::Optional(_) => Vec::new(),
            };
            for w in ws {
                let alts: Vec<&str> = w.split('|').collect();
                let choice = match pick {
                    Some((at, i)) if at == k => alts[i.min(alts.len() - 1)],
                    _ => alts[0],
                };
                out.push(choice.to_string());
                k += 1;
            }
        }
        out
    };
    let mut out = vec![words(false, None), words(true, None)];
    // Each alternative of each word that has some.
    let all = words(true, None);
    let mut k = 0;
    for p in &parts {
        let ws: Vec<String> = match p {
            Part::Word(w) => vec![w.clone()],
            Part::Optional(ws) => ws.clone(),
        };
        for w in ws {
            for i in 1..w.split('|').count() {
                out.push(words(true, Some((k, i))));
            }
            k += 1;
        }
    }
    out.dedup();
    assert!(all.iter().all(|w| !w.contains('|')), "{all:?}");
    out
}

/// The README's placeholders, as the site repository of this test has them.
fn fill(word: &str) -> String {
    match word {
        "intents/x.yaml" => "intents/pod1-1024.yaml".into(),
        "golden/x" => "golden/pod1-1024".into(),
        "DIR" => "out".into(),
        // The site repository has no switch: the rendered configs stand in for their running ones.
        "RUNNING" => "out".into(),
        "PUSH" => "push".into(),
        // The decrypted vault on standard input: empty here (every secret counted as not compared).
        "SECRETS" => "-".into(),
        // What ansible/collect.yml would fetch: the test writes the state of the fabric as rendered.
        "STATE" => "state".into(),
        "old.yaml" => "intents/old.yaml".into(),
        "new.yaml" => "intents/pod1-1024.yaml".into(),
        w => w.to_string(),
    }
}

/// Runs `aifab` with `args` in `dir`.
fn aifab_in(dir: &Path, args: &[String]) -> Output {
    crate::common::aifab_command()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", common::tmp_root().join("aifab-cache"))
        .output()
        .expect("run aifab")
}

/// `sh -c script` in `dir`, with the built aifab first on the PATH.
fn sh_in(dir: &Path, script: &str) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_aifab"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", common::tmp_root().join("aifab-cache"))
        .output()
        .expect("run sh")
}

/// What a tour command may answer: 0, or 1 for a difference (`diff`, `verify`); never 2 (could not run: an
/// unknown flag is one) and never a usage error.
fn ran(what: &str, o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "`{what}` exited {:?}:\n{err}",
        o.status.code()
    );
    assert!(
        !err.contains("unexpected argument") && !err.contains("cannot be used with"),
        "`{what}`:\n{err}"
    );
}

#[test]
fn the_readme_tour_runs_as_written_in_a_site_repository() {
    let section = tour_section();
    let blocks = sh_blocks(&section);
    assert!(blocks.len() >= 3, "the tour's set-up and pipeline blocks");
    let scratch = common::Scratch::new("tour");
    let clone = env!("CARGO_MANIFEST_DIR");

    // The set-up block, as one script from an empty folder.
    let setup = blocks[0].replace("<aifab clone>", clone);
    let o = sh_in(&scratch, &setup);
    assert!(o.status.success(), "set-up:\n{setup}\n{o:?}");
    let site = scratch.join("fabric");
    let intent = site.join("intents/pod1-1024.yaml");
    assert!(intent.is_file(), "the set-up copies an example intent");
    // The example's `$schema` link resolves in the site repository, to the intent schema.
    let text = std::fs::read_to_string(&intent).expect("intent");
    let link = text
        .lines()
        .find_map(|l| l.split("$schema=").nth(1))
        .expect("a $schema line")
        .trim();
    let schema = site.join("intents").join(link);
    let schema_text = std::fs::read_to_string(&schema)
        .unwrap_or_else(|e| panic!("$schema={link} from intents/: {e}"));
    assert_eq!(schema_text, aifab::validate::schema_json(), "{link}");
    assert!(site.join("ansible/deploy.yml").is_file(), "the playbooks");

    // Git history for --against: the intent as first committed (also on origin/main), then a change.
    git(&site, &["add", "-A"]);
    git(&site, &["commit", "-q", "-m", "first"]);
    std::fs::copy(&intent, site.join("intents/old.yaml")).expect("old.yaml");
    let changed = text.replacen("min: 150KB, max: 1500KB", "min: 300KB, max: 1500KB", 1);
    assert_ne!(changed, text);
    std::fs::write(&intent, changed).expect("change");
    git(&site, &["commit", "-q", "-am", "ECN"]);
    let remote = scratch.join("origin.git");
    git(&scratch, &["init", "-q", "--bare", "origin.git"]);
    git(
        &site,
        &["remote", "add", "origin", remote.to_str().expect("utf-8")],
    );
    git(&site, &["push", "-q", "origin", "HEAD~1:refs/heads/main"]);
    git(&site, &["fetch", "-q", "origin"]);
    // What the table's commands compare with or read: a reviewed folder, a site's (empty) platforms
    // and templates.
    let o = aifab_in(
        &site,
        &[
            "render",
            "intents/pod1-1024.yaml",
            "--out",
            "golden/pod1-1024",
            "-q",
        ]
        .map(String::from),
    );
    assert!(o.status.success(), "{o:?}");
    // The state folder `aifab verify` reads (ansible/collect.yml fetches it from switches): here the
    // state a fabric running its render gives.
    let m = common::model(intent.to_str().expect("utf-8 path"));
    aifab::verify::synth::write_state(&m, aifab::platform::Catalog::builtin(), &site.join("state"))
        .expect("state");
    std::fs::create_dir_all(site.join("site/platforms")).expect("mkdir");
    std::fs::create_dir_all(site.join("site/templates")).expect("mkdir");

    // Every table command in every form.
    let commands = table_commands(&section);
    assert!(commands.len() >= 10, "{commands:?}");
    let mut runs = 0;
    for pattern in &commands {
        if pattern == "aifab render"
            || pattern == "aifab bench"
            || pattern.starts_with("aifab dcim")
        {
            continue; // a row heading, the benchmark and the DCIM sync (see the module doc)
        }
        for form in forms(pattern) {
            let args: Vec<String> = form[1..].iter().map(|w| fill(w)).collect();
            let o = aifab_in(&site, &args);
            ran(&format!("aifab {}", args.join(" ")), &o);
            runs += 1;
        }
    }
    assert!(runs >= 20, "{runs} runs");

    // The pipeline blocks, then docs/push.md's workflow: aifab lines as written, ansible-playbook
    // lines as [`playbook`] runs them.
    std::fs::copy(
        site.join("ansible/examples/secrets.vault.yml"),
        site.join("secrets.vault.yml"),
    )
    .expect("the operator's vault file");
    let ansible = ansible_present();
    let mut pushes = 0;
    for block in blocks[1..].iter().chain(&push_workflow()) {
        for line in logical_lines(block) {
            if line.starts_with("aifab ") {
                let o = sh_in(&site, &line);
                ran(&line, &o);
            } else if line.starts_with("ansible-playbook ") {
                for w in line.split_whitespace() {
                    let named = w.starts_with("ansible/") || w == "out/inventory.yml";
                    assert!(!named || site.join(w).is_file(), "`{line}`: no {w}");
                }
                if ansible {
                    pushes += usize::from(playbook(&site, &line));
                } else if line.contains("ansible/running.yml") {
                    // Without Ansible the later lines still read what the fetch would have written.
                    fetched(&site);
                }
            } else if let Some(rest) = line.strip_prefix("ansible-vault view ") {
                // The vault's secrets piped into `aifab drift --secrets -` (never a file on disk):
                // run with the tour's vault password file where Ansible is there.
                if let (true, Some(vault)) = (ansible, common::find_tool("ansible-vault")) {
                    let password =
                        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tour/vault-password");
                    let cmd = format!(
                        "{} view --vault-password-file={} {rest}",
                        vault.display(),
                        password.display()
                    );
                    let o = sh_in(&site, &cmd);
                    ran(&line, &o);
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert!(
                        !err.contains("not compared"),
                        "`{line}`: the vault's secrets were not read:\n{err}"
                    );
                }
            } else {
                panic!("a tour line the test does not know how to run: {line}");
            }
        }
    }
    assert!(!ansible || pushes >= 3, "{pushes} push lines ran");
    assert!(site.join("comment.md").is_file() && site.join("rollout-plan.yml").is_file());
}

/// The ```sh block under docs/push.md's `## The workflow`.
fn push_workflow() -> Vec<String> {
    let doc = std::fs::read_to_string("docs/push.md").expect("docs/push.md");
    let start = doc
        .find("\n## The workflow\n")
        .expect("a ## The workflow section");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let blocks = sh_blocks(&rest[..end]);
    assert_eq!(blocks.len(), 1, "one workflow block");
    blocks
}

/// Whether `ansible-playbook` is there (else one line says so; under CI=true the test fails).
fn ansible_present() -> bool {
    common::prerequisite(
        common::find_tool("ansible-playbook").is_some(),
        "the tour's ansible-playbook lines",
        "ansible-playbook not found",
        "set AIFAB_ANSIBLE_BIN to the folder holding it (.ci/run does), or put it on PATH",
    )
}

/// Runs one `ansible-playbook` line of the docs in `site` (see the module doc): `--syntax-check`,
/// then, for deploy.yml, the line as written with `--tags access_check`. After ansible/running.yml,
/// `running/` holds what it would fetch. True when the line was a push line run whole.
fn playbook(site: &Path, line: &str) -> bool {
    let password = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tour/vault-password");
    let mut args: Vec<String> = Vec::new();
    for w in line.split_whitespace().skip(1) {
        if w == "--ask-vault-pass" {
            args.push(format!("--vault-password-file={}", password.display()));
        } else {
            args.push(w.to_string());
        }
    }
    let run = |extra: &[&str]| {
        let exe = common::find_tool("ansible-playbook").expect("ansible-playbook");
        let o = Command::new(exe)
            .args(&args)
            .args(extra)
            .current_dir(site)
            .env("ANSIBLE_NOCOLOR", "1")
            .output()
            .expect("run ansible-playbook");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success(), "`{line}` {extra:?}:\n{text}");
        text
    };
    run(&["--syntax-check"]);
    if line.contains("ansible/running.yml") {
        fetched(site);
    }
    if !line.contains("ansible/deploy.yml") {
        return false;
    }
    let text = run(&["--tags", "access_check"]);
    for step in [
        "Access check | the pushed config keeps the login user",
        "Secrets | the vault has every secret the config names",
    ] {
        assert!(text.contains(step), "`{line}`: {step} did not run:\n{text}");
    }
    if line.contains("aifab_assembled=") {
        assert!(
            text.contains("the assembled files are the ones aifab drift wrote"),
            "`{line}`:\n{text}"
        );
    }
    assert!(!text.contains("failed=1"), "`{line}`:\n{text}");
    true
}

/// What ansible/running.yml would write to `running/`: each NX-OS and EOS switch's config (the
/// rendered one, as a switch running it prints it).
fn fetched(site: &Path) {
    let running = site.join("running");
    std::fs::create_dir_all(&running).expect("running/");
    for e in std::fs::read_dir(site.join("out")).expect("out/").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".cfg") {
            std::fs::copy(e.path(), running.join(&name)).expect("copy");
        }
    }
}

#[test]
fn tour_patterns_expand_to_every_flag_shown() {
    let f = forms("aifab plan intents/x.yaml [-q] [--format summary|dot]");
    assert_eq!(
        f,
        [
            vec!["aifab", "plan", "intents/x.yaml"],
            vec![
                "aifab",
                "plan",
                "intents/x.yaml",
                "-q",
                "--format",
                "summary"
            ],
            vec!["aifab", "plan", "intents/x.yaml", "-q", "--format", "dot"],
        ]
    );
    let f = forms("aifab render x --only 'su1-*'");
    assert_eq!(f[0], ["aifab", "render", "x", "--only", "su1-*"]);
}

/// `-q` where the tour shows it: the warnings (and plan's summary) leave stderr, stdout stays the same.
#[test]
fn quiet_silences_warnings_and_keeps_the_output() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for cmd in [
        &["compile", "intents/pod1-1024.yaml"][..],
        &["plan", "intents/pod1-1024.yaml", "--format", "summary"][..],
        &["plan", "intents/pod1-1024.yaml"][..],
        &["validate", "intents/pod1-1024.yaml"][..],
    ] {
        let args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        let loud = aifab_in(&root, &args);
        let mut q = args.clone();
        q.push("-q".into());
        let quiet = aifab_in(&root, &q);
        assert_eq!(loud.status.code(), Some(0), "{cmd:?}: {loud:?}");
        assert_eq!(quiet.status.code(), Some(0), "{cmd:?} -q: {quiet:?}");
        assert!(!loud.stderr.is_empty(), "{cmd:?} says nothing without -q");
        let (loud_err, quiet_err) = (
            String::from_utf8_lossy(&loud.stderr),
            String::from_utf8_lossy(&quiet.stderr),
        );
        if cmd[0] == "validate" {
            // validate's findings are its output; -q drops only the `valid` line.
            let verdict = "intents/pod1-1024.yaml: valid";
            assert!(
                loud_err.contains(verdict) && !quiet_err.contains(verdict),
                "{quiet_err}"
            );
        } else {
            assert_eq!(quiet_err, "", "{cmd:?} -q");
        }
        assert_eq!(quiet.stdout, loud.stdout, "{cmd:?}: -q changed the output");
    }
}
