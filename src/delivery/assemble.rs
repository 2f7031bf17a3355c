//! One device's drift: which sections of its running-config aifab owns (and replaces with the
//! rendered ones) and which it keeps, the lines a push adds and removes, and the replace file that
//! holds both: the rendered config with the kept sections around it.

use crate::platform::owned::matches;
use crate::platform::sections::{Section, collapse, sections};
use crate::platform::{OwnedSections, PortNames};
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

/// What decides which running sections of one device are aifab's: its OS's policy and the names of
/// its platform's front-panel ports.
#[derive(Clone, Copy, Debug)]
pub struct Ownership<'a> {
    /// The OS's `owned_sections`.
    pub sections: &'a OwnedSections,
    /// Every name of the platform's front-panel ports (empty: an `each_rendered` section is aifab's
    /// only by its very first line).
    pub ports: &'a PortNames,
}

/// The front-panel port an `interface <name>` first line configures, if it names one.
fn port_of(top: &str, ports: &PortNames) -> Option<u32> {
    ports.port(top.strip_prefix("interface ")?)
}

/// Whether the running section `top` is aifab's: it matches an `always` pattern, or a
/// `when_rendered` pattern that a rendered section matches too, or the rendered config has a section
/// with this very first line (a site line, a template block, a rendered port), or it matches an
/// `each_rendered` pattern and configures a front-panel port the rendered config configures under
/// another name (`rendered_ports`: a breakout parent or child).
fn owned(top: &str, own: Ownership, rendered: &[Section], rendered_ports: &BTreeSet<u32>) -> bool {
    let policy = own.sections;
    policy.always.iter().any(|p| matches(p, top))
        || policy
            .when_rendered
            .iter()
            .any(|p| matches(p, top) && rendered.iter().any(|r| matches(p, &r.top)))
        || rendered.iter().any(|r| r.top == top)
        || policy.each_rendered.iter().any(|p| matches(p, top))
            && port_of(top, own.ports).is_some_and(|n| rendered_ports.contains(&n))
}

/// Per running section, whether it is aifab's ([`owned`]); then an owned section that a kept one
/// needs (`needed_by`: `feature interface-vlan` while a kept `interface Vlan10` is there) is kept
/// too, unless the rendered config removes it itself (`no feature interface-vlan`).
fn partition(running: &[Section], rendered: &[Section], own: Ownership) -> Vec<bool> {
    let rendered_ports: BTreeSet<u32> = rendered
        .iter()
        .filter_map(|r| port_of(&r.top, own.ports))
        .collect();
    let mut mine: Vec<bool> = running
        .iter()
        .map(|s| owned(&s.top, own, rendered, &rendered_ports))
        .collect();
    let needs = &own.sections.needed_by;
    if needs.is_empty() {
        return mine;
    }
    let kept_lines: Vec<String> = running
        .iter()
        .zip(&mine)
        .filter(|(_, m)| !**m)
        .flat_map(|(s, _)| s.lines.iter().map(|l| collapse(l)))
        .collect();
    for (s, m) in running.iter().zip(mine.iter_mut()) {
        let Some(patterns) = needs.get(&s.top).filter(|_| *m) else {
            continue;
        };
        let removed_by_render = rendered.iter().any(|r| r.top == format!("no {}", s.top));
        let needed = patterns
            .iter()
            .any(|p| kept_lines.iter().any(|l| matches(p, l)));
        if needed && !removed_by_render {
            *m = false;
        }
    }
    mine
}

/// The keys of every line of `secs`.
fn key_set(secs: &[&Section]) -> BTreeSet<String> {
    secs.iter().flat_map(|s| s.keys()).map(|k| k.0).collect()
}

/// The drift of one device: its rendered config against its running-config, under the OS's policy,
/// no secret value known (each placeholder's line matches whatever value the switch has).
pub fn drift(rendered_text: &str, running_text: &str, own: Ownership) -> Drift {
    let nothing = super::secret::Known::nothing(super::secret::type7::Cipher::Ios);
    drift_with(rendered_text, running_text, own, &nothing)
}

/// [`drift`] comparing each secret in the switch's form with what `known` holds.
pub fn drift_with(
    rendered_text: &str,
    running_text: &str,
    own: Ownership,
    known: &super::secret::Known,
) -> Drift {
    let rendered = sections(rendered_text);
    let running = sections(running_text);
    let is_mine = partition(&running, &rendered, own);
    let pick = |want: bool| -> Vec<&Section> {
        running
            .iter()
            .zip(&is_mine)
            .filter(|(_, m)| **m == want)
            .map(|(s, _)| s)
            .collect()
    };
    let (mine, kept) = (pick(true), pick(false));
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
    let first_owned = is_mine.iter().position(|m| *m).unwrap_or(running.len());
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
            always: vec!["hostname".into(), "feature".into()],
            when_rendered: vec!["interface mgmt0".into(), "interface Vlan*".into()],
            each_rendered: vec!["interface Ethernet*".into(), "interface Management*".into()],
            needed_by: [
                (
                    "feature interface-vlan".to_string(),
                    vec!["interface Vlan*".to_string()],
                ),
                (
                    "feature lacp".to_string(),
                    vec!["channel-group".to_string()],
                ),
            ]
            .into(),
            ..OwnedSections::default()
        }
    }

    /// The front-panel port names of the Nexus 9364D-GX2A (`Ethernet1/<port>`, broken out
    /// `Ethernet1/<port>/<child>`; its two 10G ports `Ethernet1/65-66` are not front-panel ports aifab
    /// renders).
    fn ports() -> PortNames {
        let catalog = crate::platform::Catalog::builtin();
        let (_, p) = catalog
            .get("nxos/n9k-c9364d-gx2a")
            .expect("built-in platform");
        p.port_names()
    }

    fn drift(rendered: &str, running: &str, policy: &OwnedSections) -> Drift {
        let none = PortNames::default();
        super::drift(
            rendered,
            running,
            Ownership {
                sections: policy,
                ports: &none,
            },
        )
    }

    #[test]
    fn owned_sections_are_replaced_and_the_rest_kept() {
        let rendered = "! r1 - generated\n!\nhostname r1\n!\ninterface Ethernet1/1\n  mtu 9216\n  no shutdown\ninterface Ethernet1/2\n  shutdown\n";
        let running = "!Command: show running-config\nversion 10.3\nhostname old\ninterface Ethernet1/1\n  mtu 1500\n  no shutdown\ninterface Ethernet1/2\n  description old\n  mtu 1500\ninterface mgmt0\n  ip address 192.0.2.1/24\nline vty\nboot nxos bootflash:/x.bin\n";
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
        assert_eq!((d.added, d.removed), (3, 4), "{:#?}", d.lines);
        assert!(
            d.lines
                .contains(&(Mark::Removed, "  description old".into()))
        );
        assert!(d.lines.contains(&(Mark::Added, "  shutdown".into())));
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

    #[test]
    fn only_the_front_panel_ports_and_management_ports_aifab_renders_are_owned() {
        let rendered = "hostname r1\ninterface Ethernet1/5/1\n  no shutdown\ninterface Ethernet1/6\n  shutdown\ninterface Management0\n  vrf MGMT\n";
        let running = "hostname r1\ninterface Ethernet1/5\n  mtu 9216\ninterface Ethernet1/6/2\n  mtu 9216\ninterface Ethernet1/65\n  description oob-uplink\ninterface Ethernet1/6.100\n  encapsulation dot1q 100\ninterface Management0\n  vrf MGMT\ninterface Management1/1\n  vrf MGMT\n  ip address 198.51.100.11/24\ninterface Management2/1\n  vrf MGMT\n";
        let names = ports();
        let p = policy();
        let d = super::drift(
            rendered,
            running,
            Ownership {
                sections: &p,
                ports: &names,
            },
        );
        let kept: Vec<&str> = d.kept.iter().map(|s| s.top.as_str()).collect();
        assert_eq!(
            kept,
            [
                "interface Ethernet1/65",
                "interface Ethernet1/6.100",
                "interface Management1/1",
                "interface Management2/1"
            ],
            "a port beyond the platform's, a sub-interface and the supervisors' ports stay"
        );
        // The unbroken running port 5 and the running child of rendered port 6 are aifab's: the
        // rendered breakout replaces them.
        for removed in ["interface Ethernet1/5", "interface Ethernet1/6/2"] {
            assert!(
                d.lines.contains(&(Mark::Removed, removed.into())),
                "{removed}: {:#?}",
                d.lines
            );
        }
        // Without the platform's names, a port is aifab's only by its very first line.
        let d = drift(rendered, running, &p);
        assert!(d.kept.iter().any(|s| s.top == "interface Ethernet1/5"));
    }

    #[test]
    fn a_feature_stays_while_a_kept_section_needs_it() {
        let rendered = "feature bgp\nhostname r1\n";
        let running = "feature bgp\nfeature interface-vlan\nfeature lacp\nfeature ospf\nhostname r1\ninterface Vlan10\n  ip address 192.0.2.1/24\ninterface Ethernet1/65\n  channel-group 10 mode active\n";
        let d = drift(rendered, running, &policy());
        let kept: Vec<&str> = d.kept.iter().map(|s| s.top.as_str()).collect();
        assert_eq!(
            kept,
            [
                "feature interface-vlan",
                "feature lacp",
                "interface Vlan10",
                "interface Ethernet1/65"
            ]
        );
        assert_eq!(d.removed, 1, "{:#?}", d.lines);
        assert!(d.lines.contains(&(Mark::Removed, "feature ospf".into())));
        let at = |l: &str| d.assembled.find(l).expect(l);
        assert!(
            at("feature interface-vlan") < at("interface Vlan10"),
            "{}",
            d.assembled
        );
        // Once aifab renders VLAN interfaces, the running one is aifab's and so is its feature (the
        // render has it if it needs it); a render that turns a feature off wins.
        let rendered =
            "feature bgp\nno feature lacp\nhostname r1\ninterface Vlan20\n  no shutdown\n";
        let d = drift(rendered, running, &policy());
        let kept: Vec<&str> = d.kept.iter().map(|s| s.top.as_str()).collect();
        assert_eq!(kept, ["interface Ethernet1/65"]);
    }
}
