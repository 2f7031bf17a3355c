//! Site lines (`AIF-SITE-001`): lines the intent asks aifab to render verbatim (docs/push.md#site-lines)
//! cannot inject anything (no control character, brace or secret placeholder), do not start indented,
//! go to a CLI OS only, and never fight a section aifab renders itself on the device's OS (its
//! `owned_sections`, except the list-like ones a site may add an entry to: `site_may_add`).

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::platform::owned::matches;
use crate::platform::{Catalog, Os};
use crate::rules::Rule;
use std::collections::BTreeSet;

/// The longest site line aifab renders.
const LINE_MAX: usize = 400;

const LINE_HINT: &str =
    "write the line as the switch prints it, printable ASCII without braces or placeholders";
const SONIC_HINT: &str =
    "limit the override's site lines to NX-OS and EOS devices with its `match`";
const INDENT_HINT: &str =
    "start with a line at the left margin; indented lines belong to the line above them";
const OWNED_HINT: &str = "change the intent field that renders it instead, or keep the line on the switch outside what aifab owns (docs/push.md#what-aifab-owns)";

/// What makes one site line unsafe in any config, if anything.
pub fn line_problem(line: &str) -> Option<String> {
    if let Some(c) = line.chars().find(|c| !(' '..='~').contains(c)) {
        return Some(format!(
            "contains {c:?}: site lines are printable ASCII, one list item per line"
        ));
    }
    if let Some(c) = line.chars().find(|c| "{}".contains(*c)) {
        return Some(format!(
            "contains `{c}`, which the push's Jinja2 would read as a template"
        ));
    }
    if line.contains("AIFAB_SECRET(") || line.contains("AIFAB_ENV(") {
        return Some("holds a secret placeholder: secrets go in the baseline's secret fields, which the push fills (a site line is printed as it is)".into());
    }
    if line.trim().is_empty() {
        return Some("is empty".into());
    }
    (line.len() > LINE_MAX).then(|| format!("is longer than {LINE_MAX} characters"))
}

/// AIF-SITE-001 for every device of every platform in use.
pub(super) fn rules(intent: &Intent, catalog: &Catalog, uses: &Uses, out: &mut Vec<Finding>) {
    if intent.site_lines.is_empty() && intent.overrides.iter().all(|o| o.site_lines.is_empty()) {
        return;
    }
    // One finding per site line and kind of problem, naming the first device it concerns.
    let mut seen: BTreeSet<(String, &'static str)> = BTreeSet::new();
    let mut report = |pointer: &str, kind: &'static str, why: String, hint: &str| {
        if seen.insert((pointer.to_string(), kind)) {
            out.push(
                Finding::new(Rule::SiteLineUnsafe, why)
                    .at(pointer.to_string())
                    .hint(hint.to_string()),
            );
        }
    };
    for u in uses {
        let owned = catalog.owned.get(&u.os).cloned().unwrap_or_default();
        for d in &u.devices {
            let lines = crate::place::site_lines(intent, *d);
            for (i, (line, pointer)) in lines.iter().enumerate() {
                let host = &d.hostname;
                if let Some(why) = line_problem(line) {
                    let why = format!("site line {line:?} {why}");
                    report(pointer, "line", why, LINE_HINT);
                    continue;
                }
                if u.os == Os::Sonic {
                    // The fabric's own site lines go to the CLI OSes only; an override that gives a
                    // SONiC device some is a mistake.
                    if pointer.starts_with("/overrides/") {
                        let why = format!(
                            "site lines for {host} ({}): SONiC has no CLI config, its config_db.json is built as data",
                            u.name
                        );
                        report(pointer, "sonic", why, SONIC_HINT);
                    }
                    continue;
                }
                if line.starts_with(' ') {
                    if i == 0 {
                        let why = format!(
                            "site line {line:?} on {host} is indented, but no line comes before it to hold it"
                        );
                        report(pointer, "indent", why, INDENT_HINT);
                    }
                    continue;
                }
                let top = crate::platform::sections::collapse(line);
                let clash = owned
                    .patterns()
                    .find(|p| matches(p, &top))
                    .filter(|_| !owned.site_may_add.iter().any(|p| matches(p, &top)));
                if let Some(p) = clash {
                    let why = format!(
                        "site line {line:?} falls under `{p}`, a section aifab renders itself on {} ({host}), and would fight it",
                        u.os
                    );
                    report(pointer, "owned", why, OWNED_HINT);
                }
            }
        }
    }
}
