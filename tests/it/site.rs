//! A site's own platforms and templates, without rebuilding aifab (docs/extending.md): the folder
//! tests/site adds an EOS SKU aifab does not ship (the 4-slot 7804R3) and fills a block of the EOS
//! device template, found through its project file; the same works with --platforms/--templates; a
//! broken platform file is refused with its location; a site template reads nothing but the view.

use crate::common;

use std::path::Path;

fn temp(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("site-{name}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Renders and returns spine01.cfg, asserting success.
fn render_spine(args: &[&str], out: &Path) -> String {
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().expect("utf-8"), "-q"]);
    let o = common::aifab(&all);
    assert!(o.status.success(), "{all:?}: {}", text(&o.stderr));
    std::fs::read_to_string(out.join("spine01.cfg")).expect("spine01.cfg")
}

fn check_spine(cfg: &str) {
    let ports: Vec<&str> = cfg
        .lines()
        .filter_map(|l| l.strip_prefix("interface Ethernet"))
        .collect();
    // 4 line cards from slot 3: Ethernet3/1/1 .. Ethernet6/36/1, every port used or shut.
    assert_eq!(ports.len(), 144, "the 7804R3 has 144 ports");
    assert_eq!(ports.first(), Some(&"3/1/1"));
    assert_eq!(ports.last(), Some(&"6/36/1"));
    // The site block sits where the built-in template declares it: after BGP, before `end`.
    assert!(
        cfg.ends_with(
            "!\nbanner motd\nManaged by aifab: spine01. Changes outside the intent are overwritten.\nEOF\n!\nend\n"
        ),
        "{}",
        &cfg[cfg.len().saturating_sub(300)..]
    );
    assert!(
        cfg.contains("\nrouter bgp 65000\n"),
        "built-in sections still render"
    );
}

#[test]
fn the_project_file_adds_a_sku_and_a_template_block() {
    let out = temp("project");
    check_spine(&render_spine(&["tests/site/pod.yaml"], &out));
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn flags_do_the_same_from_anywhere() {
    // An intent outside the repository has no project file: without flags the SKU is unknown.
    let dir = temp("flags");
    let intent = dir.join("pod.yaml");
    std::fs::copy("tests/site/pod.yaml", &intent).expect("copy intent");
    let intent = intent.to_str().expect("utf-8");
    let o = common::aifab(&["validate", intent]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("eos/7804r3"),
        "{}",
        text(&o.stderr)
    );
    let flags = [
        intent,
        "--platforms",
        "tests/site/platforms",
        "--templates",
        "tests/site/templates",
    ];
    let o = common::aifab(&[&["validate"][..], &flags[..]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = common::aifab(&[&["compile"][..], &flags[..]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("\"eos/7804r3\""));
    check_spine(&render_spine(&flags, &dir.join("out")));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_platform_without_a_source_is_refused_with_its_location() {
    let dir = temp("bad");
    let good = std::fs::read_to_string("tests/site/platforms/eos.yaml").expect("read");
    let bad: String = good
        .lines()
        .filter(|l| !l.trim_start().starts_with("max_mtu: \"avd"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        bad.lines().count() + 1,
        good.lines().count(),
        "one source line dropped"
    );
    std::fs::write(dir.join("eos.yaml"), &bad).expect("write");
    let key_line = bad.lines().position(|l| l == "  7804r3:").expect("key") + 1;
    let o = common::aifab(&[
        "render",
        "tests/site/pod.yaml",
        "--out",
        dir.join("out").to_str().expect("utf-8"),
        "--platforms",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    let at =
        format!("eos.yaml:{key_line}:3: platform 7804r3: fact `max_mtu` has no entry in `sources`");
    assert!(err.contains(&at), "{err}");
    assert!(err.contains("help: "), "{err}");
    assert!(!dir.join("out").exists(), "nothing written");

    // A fact stated without a source is refused, whichever field it is: the list of sourced facts is
    // read off the platform type, so `ecn_weight: true` (which renders `weight 0`) needs one too.
    let unsourced: String = good
        .lines()
        .filter(|l| !l.trim_start().starts_with("ecn_weight: \"avd"))
        .map(|l| l.replace("ecn_weight: false", "ecn_weight: true") + "\n")
        .collect();
    assert!(unsourced.contains("ecn_weight: true") && !unsourced.contains("ecn_weight: \""));
    std::fs::write(dir.join("eos.yaml"), &unsourced).expect("write");
    let o = common::aifab(&[
        "validate",
        "tests/site/pod.yaml",
        "--platforms",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("platform 7804r3: fact `ecn_weight` has no entry in `sources`"),
        "{err}"
    );

    // A keyword that reaches the config carries no separator or line break.
    let injected = good.replace(
        "queue_keyword: tx-queue",
        "queue_keyword: \"tx-queue ; reload\"",
    );
    assert_ne!(injected, good);
    std::fs::write(dir.join("eos.yaml"), &injected).expect("write");
    let o = common::aifab(&[
        "validate",
        "tests/site/pod.yaml",
        "--platforms",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "eos.yaml:{key_line}:3: platform 7804r3: queue_keyword"
        )),
        "{err}"
    );

    // A shape error points at the offending key.
    std::fs::write(
        dir.join("eos.yaml"),
        "os: eos\nplatforms:\n  x:\n    bogus: 1\n",
    )
    .expect("write");
    let o = common::aifab(&[
        "validate",
        "tests/site/pod.yaml",
        "--platforms",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("eos.yaml:4:5: ") && err.contains("unknown field `bogus`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_site_template_reads_only_the_view() {
    for (name, body) in [
        ("intent", "{{ intent }}"),
        ("model", "{{ device.hostname }}"),
        ("file", "{% include \"/etc/passwd\" %}"),
        ("escape", "{% include \"../../../etc/passwd\" %}"),
    ] {
        let dir = temp(&format!("tpl-{name}"));
        std::fs::create_dir_all(dir.join("eos")).expect("mkdir");
        let tpl = format!(
            "{{% extends \"builtin/eos/device.j2\" %}}\n{{% block site_top %}}{body}\n{{% endblock %}}\n"
        );
        std::fs::write(dir.join("eos/device.j2"), tpl).expect("write");
        let o = common::aifab(&[
            "render",
            "tests/site/pod.yaml",
            "--check",
            "golden/pod1-1024",
            "--templates",
            dir.to_str().expect("utf-8"),
            "-q",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        let why = ["is undefined", "not found"];
        assert!(
            err.contains("eos/device.j2") && why.iter().any(|w| err.contains(w)),
            "{name}: {err}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn the_platform_schema_is_printed() {
    let o = common::aifab(&["schema", "--platforms"]);
    assert!(o.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let props = &schema["properties"];
    for key in ["os", "references", "platforms"] {
        assert!(props.get(key).is_some(), "{key}");
    }
    assert_eq!(schema["additionalProperties"], false);
}

/// The GX2 has no sourced packet buffer: an ECN class gets a warning and a config comment, not a
/// check. A site platform that copies it with a `buffer` fact from the site's data sheet gets the
/// check (AIF-QOS-002) and no warning.
#[test]
fn a_site_buffer_fact_bounds_ecn_where_no_public_source_does() {
    let dir = temp("buffer");
    // The built-in GX2B as the catalog resolves it (its family's facts and its own), as YAML.
    let (_, gx2b) = aifab::platform::Catalog::builtin()
        .get("nxos/n9k-c9332d-gx2b")
        .expect("the built-in GX2B");
    assert!(
        gx2b.buffer.is_none(),
        "the built-in GX2B has no buffer fact"
    );
    let mut value: serde_json::Value = serde_json::to_value(gx2b).expect("a platform as data");
    value["buffer"] = "40MB".into();
    value["sources"]["buffer"] =
        "site-datasheet packet buffer; see docs/extending.md; verified".into();
    let file = serde_json::json!({
        "os": "nxos",
        "references": {"site-datasheet": "Our copy of the vendor data sheet"},
        "platforms": {"gx2b-site": value},
    });
    let site = serde_norway::to_string(&file).expect("YAML");
    let platforms = dir.join("platforms");
    std::fs::create_dir_all(&platforms).expect("mkdir");
    std::fs::write(platforms.join("nxos.yaml"), site).expect("write site platform");
    let intent = std::fs::read_to_string("intents/three-tier-small.yaml").expect("intent");
    let deep = intent.replace("max: 2MB", "max: 100MB");
    assert_ne!(deep, intent, "the example's ECN max is rewritten");
    let built_in = dir.join("built-in.yaml");
    std::fs::write(&built_in, &deep).expect("write");
    let site_intent = dir.join("site.yaml");
    std::fs::write(
        &site_intent,
        deep.replace("platform: nxos/n9k-c9332d-gx2b", "platform: nxos/gx2b-site"),
    )
    .expect("write");

    let o = common::aifab(&["validate", built_in.to_str().expect("utf-8")]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("nxos/n9k-c9332d-gx2b: ECN max not checked against the packet buffer"),
        "{err}"
    );

    let o = common::aifab(&[
        "validate",
        site_intent.to_str().expect("utf-8"),
        "--platforms",
        platforms.to_str().expect("utf-8"),
    ]);
    let err = text(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("AIF-QOS-002") && err.contains("exceeds the 40MB buffer of nxos/gx2b-site"),
        "{err}"
    );
    assert!(!err.contains("ECN max not checked"), "{err}");
}

/// A site's new SKU of a built-in family is a few lines: the family's facts (and their sources) come
/// from the built-in `vendors/<os>.yaml`, the site states its own; an unknown family is refused at
/// its line.
#[test]
fn a_site_sku_of_a_built_in_family_states_only_its_own_facts() {
    let dir = temp("family");
    let sku = "os: nxos\nreferences:\n  site-datasheet: \"Our copy of the vendor data sheet\"\nplatforms:\n  \
               n9k-c9348d-gx2a:\n    family: cloudscale-gx2\n    description: \"A 48-port GX2 model\"\n    \
               ports:\n      count: 48\n    sources:\n      ports: \"site-datasheet ports; see docs/extending.md; verified\"\n";
    std::fs::write(dir.join("nxos.yaml"), sku).expect("write");
    let catalog =
        aifab::platform::Catalog::with_extensions(&dir).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, own) = catalog.get("nxos/n9k-c9348d-gx2a").expect("the site SKU");
    let (_, sibling) = catalog
        .get("nxos/n9k-c9364d-gx2a")
        .expect("the built-in SKU");
    let mut want = serde_json::to_value(sibling).expect("data");
    want["description"] = "A 48-port GX2 model".into();
    want["ports"]["count"] = 48.into();
    want["sources"]["ports"] = "site-datasheet ports; see docs/extending.md; verified".into();
    assert_eq!(serde_json::to_value(own).expect("data"), want);

    std::fs::write(
        dir.join("nxos.yaml"),
        sku.replace("cloudscale-gx2", "cloudscale-gx9"),
    )
    .expect("write");
    let errors: Vec<String> = aifab::platform::Catalog::with_extensions(&dir)
        .expect_err("an unknown family")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(
            "nxos.yaml:5:3: platform n9k-c9348d-gx2a: family `cloudscale-gx9` is not in `families`"
        ),
        "{errors:?}"
    );
}
