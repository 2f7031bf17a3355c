//! One device's drift: which sections of its running-config aifab owns (and replaces with the
//! rendered ones) and which it keeps, the lines a push adds and removes, and the replace file that
//! holds both: the rendered config with the kept sections around it.

use crate::platform::OwnedSections;
use crate::platform::owned::matches;
use crate::platform::sections::{Section, sections};
use std::collections::BTreeSet;

/// A line of the comparison, as `aifab drift` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The first line of a section some of whose lines change (printed for context).
    Context,
    /// A line the push adds.
    Added,
    /// A line of the running-config the push removes.
    Removed,
}

/// One device's drift.
#[derive(Clone, Debug)]
pub struct Drift {
    /// The changed lines, grouped by section: rendered sections in their order, then the running
    /// sections the push removes.
    pub lines: Vec<(Mark, String)>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Secrets of lines that match but whose value was not at hand to compare ([`super::secret`]).
    pub unverified: usize,
    /// The running sections the push keeps, in running order.
    pub kept: Vec<Section>,
    /// The replace file: the rendered config with the kept sections (before its first section those
    /// that came before every owned section on the switch, the others after its last).
    pub assembled: String,
}

impl Drift {
    /// True when the push changes nothing the switch runs.
    pub fn unchanged(&self) -> bool {
        self.added == 0 && self.removed == 0
    }
}

/// Whether the running section `top` is aifab's: it matches an `always` pattern, or a
/// `when_rendered` pattern that a rendered section matches too, or the rendered config has a section
/// with this very first line (a site line, a template block).
fn owned(top: &str, policy: &OwnedSections, rendered: &[Section]) -> bool {
    policy.always.iter().any(|p| matches(p, top))
        || policy
            .when_rendered
            .iter()
            .any(|p| matches(p, top) && rendered.iter().any(|r| matches(p, &r.top)))
        || rendered.iter().any(|r| r.top == top)
}

/// The keys of every line of `secs`.
fn key_set(secs: &[&Section]) -> BTreeSet<String> {
    secs.iter().flat_map(|s| s.keys()).map(|k| k.0).collect()
}

/// The drift of one device: its rendered config against its running-config, under the OS's policy,
/// no secret value known (each placeholder's line matches whatever value the switch has).
pub fn drift(rendered_text: &str, running_text: &str, policy: &OwnedSections) -> Drift {
    let nothing = super::secret::Known::nothing(super::secret::type7::Cipher::Ios);
    drift_with(rendered_text, running_text, policy, &nothing)
}

/// [`drift`] comparing each secret in the switch's form with what `known` holds.
pub fn drift_with(
    rendered_text: &str,
    running_text: &str,
    policy: &OwnedSections,
    known: &super::secret::Known,
) -> Drift {
    let rendered = sections(rendered_text);
    let running = sections(running_text);
    let (mine, kept): (Vec<&Section>, Vec<&Section>) = running
        .iter()
        .partition(|s| owned(&s.top, policy, &rendered));
    let mut have = key_set(&mine);
    let mut want = key_set(&rendered.iter().collect::<Vec<_>>());
    super::canon::align(&mut want, &mut have);
    let unverified = super::secret::reconcile(&mut want, &mut have, known);
    let mut lines = Vec::new();
    let (mut added, mut removed) = (0, 0);
    let mut compare = |s: &Section, other: &BTreeSet<String>, mark: Mark, n: &mut usize| {
        let changed: Vec<usize> = s
            .keys()
            .into_iter()
            .filter(|(k, _)| !other.contains(k))
            .map(|(_, i)| i)
            .collect();
        if changed.is_empty() {
            return;
        }
        if changed[0] != 0 {
            lines.push((Mark::Context, s.lines[0].clone()));
        }
        for i in changed {
            lines.push((mark.clone(), s.lines[i].clone()));
            *n += 1;
        }
    };
    for s in &rendered {
        compare(s, &have, Mark::Added, &mut added);
    }
    for s in &mine {
        compare(s, &want, Mark::Removed, &mut removed);
    }
    let first_owned = running
        .iter()
        .position(|s| owned(&s.top, policy, &rendered))
        .unwrap_or(running.len());
    let before: Vec<&Section> = running[..first_owned].iter().collect();
    let after: Vec<&Section> = kept
        .iter()
        .copied()
        .filter(|k| !before.iter().any(|b| std::ptr::eq(*b, *k)))
        .collect();
    Drift {
        lines,
        added,
        removed,
        unverified,
        kept: kept.into_iter().cloned().collect(),
        assembled: assemble(rendered_text, &before, &after),
    }
}

/// The rendered text with `before` after its leading comment lines and `after` before its closing
/// `end` (or at its end).
fn assemble(rendered: &str, before: &[&Section], after: &[&Section]) -> String {
    let mut head = String::new();
    let mut body = String::new();
    let mut in_head = true;
    for line in rendered.lines() {
        if in_head && (line.starts_with('!') || line.trim().is_empty()) {
            head.push_str(line);
            head.push('\n');
            continue;
        }
        in_head = false;
        body.push_str(line);
        body.push('\n');
    }
    let ends = body.ends_with("\nend\n") || body == "end\n";
    if ends {
        body.truncate(body.len() - "end\n".len());
    }
    let block = |secs: &[&Section], where_: &str| {
        let mut s = String::new();
        if secs.is_empty() {
            return s;
        }
        s.push_str(&format!(
            "! aifab: {} section(s) kept from the running-config ({where_}; aifab does not own them, docs/push.md)\n",
            secs.len()
        ));
        for sec in secs {
            for l in &sec.lines {
                s.push_str(l);
                s.push('\n');
            }
        }
        s.push_str("!\n");
        s
    };
    let mut out = head;
    out.push_str(&block(before, "before every section aifab owns"));
    out.push_str(&body);
    out.push_str(&block(after, "after"));
    if ends {
        out.push_str("end\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> OwnedSections {
        OwnedSections {
            always: vec!["hostname".into(), "interface Ethernet*".into()],
            when_rendered: vec!["interface mgmt0".into()],
            site_may_add: Vec::new(),
        }
    }

    #[test]
    fn owned_sections_are_replaced_and_the_rest_kept() {
        let rendered = "! r1 - generated\n!\nhostname r1\n!\ninterface Ethernet1/1\n  mtu 9216\n  no shutdown\n";
        let running = "!Command: show running-config\nversion 10.3\nhostname old\ninterface Ethernet1/1\n  mtu 1500\n  no shutdown\ninterface Ethernet1/2\n  shutdown\ninterface mgmt0\n  ip address 192.0.2.1/24\nline vty\nboot nxos bootflash:/x.bin\n";
        let d = drift(rendered, running, &policy());
        let kept: Vec<&str> = d.kept.iter().map(|s| s.top.as_str()).collect();
        assert_eq!(
            kept,
            [
                "version 10.3",
                "interface mgmt0",
                "line vty",
                "boot nxos bootflash:/x.bin"
            ],
            "mgmt0 is kept: aifab renders none"
        );
        assert_eq!((d.added, d.removed), (2, 4), "{:#?}", d.lines);
        assert!(
            d.lines
                .contains(&(Mark::Removed, "interface Ethernet1/2".into()))
        );
        assert!(d.lines.contains(&(Mark::Added, "  mtu 9216".into())));
        assert!(
            d.lines
                .contains(&(Mark::Context, "interface Ethernet1/1".into()))
        );
        assert!(!d.lines.iter().any(|l| l.1.contains("no shutdown")));
        let a = &d.assembled;
        assert!(
            a.starts_with("! r1 - generated\n!\n! aifab: 1 section(s) kept"),
            "{a}"
        );
        let version = a.find("version 10.3").expect("version");
        let host = a.find("hostname r1").expect("hostname");
        let boot = a.find("boot nxos bootflash:/x.bin").expect("boot");
        assert!(version < host && host < boot, "{a}");
        assert!(!a.contains("hostname old") && !a.contains("mtu 1500"));
    }

    #[test]
    fn nothing_changes_when_the_owned_lines_match() {
        let rendered = "hostname r1\n!\nend\n";
        let running = "hostname  r1\ndaemon TerminAttr\n   no shutdown\n";
        let d = drift(rendered, running, &policy());
        assert!(d.unchanged(), "{:#?}", d.lines);
        assert_eq!(
            d.assembled,
            "hostname r1\n!\n! aifab: 1 section(s) kept from the running-config (after; aifab does not own them, docs/push.md)\ndaemon TerminAttr\n   no shutdown\n!\nend\n"
        );
    }

    #[test]
    fn a_section_aifab_renders_is_owned_by_its_first_line() {
        // A site line (`daemon TerminAttr`) makes the running section with that first line aifab's.
        let rendered = "hostname r1\ndaemon TerminAttr\n   no shutdown\n";
        let running =
            "hostname r1\ndaemon TerminAttr\n   exec /usr/bin/TerminAttr -old\n   no shutdown\n";
        let d = drift(rendered, running, &policy());
        assert!(d.kept.is_empty(), "{:?}", d.kept);
        assert_eq!(d.removed, 1);
        assert_eq!(d.assembled.matches("daemon TerminAttr").count(), 1);
    }
}
