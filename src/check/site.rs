//! Site lines (`AIF-SITE-001`, `AIF-SITE-002`): lines the intent asks aifab to render verbatim
//! (docs/push.md#site-lines) cannot inject anything (no control character, brace or secret
//! placeholder), do not start indented, go to a CLI OS only, cannot break the push's session
//! (`session.rs`: `end`, `commit`, `;`, ...), never fight a section aifab renders itself on the
//! device's OS in any spelling the OS reads (`spelling.rs`, against its `owned_sections`, except the
//! list-like ones a site may add an entry to: `site_may_add`), hold no clear-text secret and redefine
//! no baseline user (`secrets.rs`), and attach no login ACL that would shut out the management
//! network the playbooks log in from (`access.rs`; AIF-SITE-002 when aifab cannot prove it either way).
//! Every problem of every line is reported at once, at the line.

mod access;
mod secrets;
mod session;
mod spelling;

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::platform::owned::{OwnedSections, matches};
use crate::platform::{Catalog, Os};
use crate::rules::Rule;
use ipnetwork::IpNetwork;
use std::collections::BTreeSet;

/// The longest site line aifab renders.
const LINE_MAX: usize = 400;

/// The kinds of problem a site line can have: one finding per line and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Not printable, a brace, a placeholder, empty or too long.
    Text,
    /// Given to a SONiC device.
    Sonic,
    /// The first line indented.
    Indent,
    /// A session or exec word, or `;`.
    Session,
    /// Under a section aifab owns.
    Owned,
    /// A `username` of a baseline user.
    BaselineUser,
    /// A clear-text secret.
    Cleartext,
    /// A login ACL that shuts out the management network.
    Access,
    /// A login ACL aifab cannot read.
    AccessUnproven,
}

impl Kind {
    /// The rule a finding of this kind reports.
    fn rule(self) -> Rule {
        match self {
            Kind::AccessUnproven => Rule::SiteAccessUnproven,
            _ => Rule::SiteLineUnsafe,
        }
    }

    /// How to fix it.
    fn hint(self) -> &'static str {
        match self {
            Kind::Text => {
                "write the line as the switch prints it, printable ASCII without braces or placeholders"
            }
            Kind::Sonic => {
                "limit the override's site lines to NX-OS and EOS devices with its `match`"
            }
            Kind::Indent => {
                "start with a line at the left margin; indented lines belong to the line above them"
            }
            Kind::Session => {
                "leave the session to the push (it enters, commits and saves itself); write configuration lines only, one command per line"
            }
            Kind::Owned => {
                "change the intent field that renders it instead, or keep the line on the switch outside what aifab owns (docs/push.md#what-aifab-owns)"
            }
            Kind::BaselineUser => {
                "change the user in the intent's `baseline.users` instead: the push logs in as one of them"
            }
            Kind::Cleartext => {
                "put the secret in a baseline secret field (`vault:`/`env:`), or write the switch's own encrypted form (`key 7 ...`, a `$6$` hash)"
            }
            Kind::Access => {
                "add a permit entry for the `fabric.management` subnet before any deny (e.g. `10 permit tcp <subnet> any eq 22`), or attach another ACL"
            }
            Kind::AccessUnproven => {
                "define the ACL in the same site lines with a permit entry that covers `fabric.management`, or check on the switch that it admits the playbooks' logins"
            }
        }
    }
}

/// One problem of one site line.
struct Problem {
    kind: Kind,
    /// The line's pointer in the intent.
    pointer: String,
    why: String,
}

/// What the checks of one device's site lines need.
struct Device<'a> {
    os: Os,
    platform: &'a str,
    host: &'a str,
    owned: &'a OwnedSections,
    users: &'a [String],
    management: Option<&'a IpNetwork>,
}

/// What makes one site line unsafe in any config, if anything.
pub(super) fn line_problem(line: &str) -> Option<String> {
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

/// AIF-SITE-001 and AIF-SITE-002 for every device of every platform in use.
pub(super) fn rules(intent: &Intent, catalog: &Catalog, uses: &Uses, out: &mut Vec<Finding>) {
    if intent.site_lines.is_empty() && intent.overrides.iter().all(|o| o.site_lines.is_empty()) {
        return;
    }
    let users: Vec<String> = intent
        .baseline
        .iter()
        .flat_map(|b| &b.users)
        .map(|u| u.name.clone())
        .collect();
    let management = intent.fabric.management.as_ref().map(|m| &m.subnet.0);
    // One finding per site line and kind of problem, naming the first device it concerns.
    let mut seen: BTreeSet<(String, Kind)> = BTreeSet::new();
    for u in uses {
        let owned = catalog.owned.get(&u.os).cloned().unwrap_or_default();
        for d in &u.devices {
            let device = Device {
                os: u.os,
                platform: u.name,
                host: &d.hostname,
                owned: &owned,
                users: &users,
                management,
            };
            let lines = crate::place::site_lines(intent, *d);
            for p in problems(&device, &lines) {
                if seen.insert((p.pointer.clone(), p.kind)) {
                    out.push(
                        Finding::new(p.kind.rule(), p.why)
                            .at(p.pointer)
                            .hint(p.kind.hint()),
                    );
                }
            }
        }
    }
}

/// Every problem of one device's site lines (`lines`: each with its pointer).
fn problems(d: &Device, lines: &[(&str, String)]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (i, (line, pointer)) in lines.iter().enumerate() {
        let mut add = |kind: Kind, why: String| {
            out.push(Problem {
                kind,
                pointer: pointer.clone(),
                why,
            })
        };
        if let Some(why) = line_problem(line) {
            add(Kind::Text, format!("site line {line:?} {why}"));
        }
        if d.os == Os::Sonic {
            // The fabric's own site lines go to the CLI OSes only; an override that gives a SONiC
            // device some is a mistake.
            if pointer.starts_with("/overrides/") {
                let why = format!(
                    "site lines for {} ({}): SONiC has no CLI config, its config_db.json is built as data",
                    d.host, d.platform
                );
                add(Kind::Sonic, why);
            }
            continue;
        }
        for (kind, why) in line_problems(d, line, i == 0) {
            add(kind, why);
        }
    }
    if d.os != Os::Sonic {
        out.extend(access_problems(d, lines));
    }
    out
}

/// The problems of one site line on a CLI device (`first`: the device's first site line).
fn line_problems(d: &Device, line: &str, first: bool) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    if let Some(why) = session::problem(line) {
        out.push((Kind::Session, format!("site line {line:?} {why}")));
    }
    if let Some(why) = secrets::cleartext(line) {
        out.push((Kind::Cleartext, format!("site line {line:?} {why}")));
    }
    if line.starts_with(' ') {
        if first {
            let why = format!(
                "site line {line:?} on {} is indented, but no line comes before it to hold it",
                d.host
            );
            out.push((Kind::Indent, why));
        }
        return out;
    }
    let top = crate::platform::sections::collapse(line);
    if let Some((p, reading)) = owned_clash(d.owned, &top) {
        let read = if reading == top {
            String::new()
        } else {
            format!(" (the switch reads it as `{reading}`)")
        };
        let why = format!(
            "site line {line:?} falls under `{p}`{read}, a section aifab renders itself on {} ({}), and would fight it",
            d.os, d.host
        );
        out.push((Kind::Owned, why));
    }
    if let Some(user) = secrets::baseline_user(&top, d.users) {
        let why = format!(
            "site line {line:?} redefines `{user}`, a user the baseline renders (the push's own login may depend on it)"
        );
        out.push((Kind::BaselineUser, why));
    }
    out
}

/// The entries of list-like owned sections (`site_may_add`) that aifab renders itself, whatever the
/// intent says: the router-id loopback (templates/nxos/interfaces.j2, templates/eos/interfaces.j2)
/// and EOS's management VRF. A site line may add another entry, never reopen one of these.
const RENDERED_ENTRIES: [&str; 3] = [
    "interface loopback0",
    "interface Loopback0",
    "vrf instance MGMT",
];

/// The owned pattern a top-level line falls under in some reading, and that reading, unless the
/// reading is one more entry of a list-like section. A `no` line clashes with every owned section it
/// would remove, list entries included (`no interface loopback0`, `no router bgp 65001`).
fn owned_clash<'o>(owned: &'o OwnedSections, top: &str) -> Option<(&'o str, String)> {
    let patterns: Vec<&str> = owned.patterns().collect();
    let removed = top
        .split_once(' ')
        .filter(|(no, _)| no.eq_ignore_ascii_case("no"))
        .map(|(_, rest)| rest);
    if let Some(rest) = removed {
        let hit = spelling::readings(rest, &patterns)
            .into_iter()
            .find_map(|r| {
                let p = owned.patterns().find(|p| matches(p, &r))?;
                Some((p, format!("no {r}")))
            });
        if hit.is_some() {
            return hit;
        }
    }
    spelling::readings(top, &patterns)
        .into_iter()
        .find_map(|r| {
            let p = owned.patterns().find(|p| matches(p, &r))?;
            let rendered = RENDERED_ENTRIES.iter().any(|e| matches(e, &r));
            let added = owned.site_may_add.iter().any(|m| matches(m, &r));
            (rendered || !added).then_some((p, r))
        })
}

/// The login ACLs of one device's site lines that shut out, or may shut out, the management network.
fn access_problems(d: &Device, lines: &[(&str, String)]) -> Vec<Problem> {
    let text: Vec<&str> = lines.iter().map(|(l, _)| *l).collect();
    access::attachments(&text)
        .into_iter()
        .filter_map(|a| {
            let (kind, why) = match access::verdict(&text, &a.acl, d.management) {
                access::Verdict::Admits => return None,
                access::Verdict::Refuses(why) => (Kind::Access, why),
                access::Verdict::Unproven(why) => (Kind::AccessUnproven, why),
            };
            let line = text[a.line];
            Some(Problem {
                kind,
                pointer: lines[a.line].1.clone(),
                why: format!(
                    "site line {line:?} attaches `{}` to `{}` on {}: {why}",
                    a.acl, a.place, d.host
                ),
            })
        })
        .collect()
}
