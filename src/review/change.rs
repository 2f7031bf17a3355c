//! The change report: what a diff between two compiled fabrics means for a lossless fabric, in counts of
//! switches and ports, and how disruptive each change is. Every rule is declared once, in the
//! `change_rules!` table below (id, the impacts it may report, summary, the function that finds it);
//! the index of `docs/change-report.md` is generated from it, and `tests/it/diff.rs` checks that every
//! rule has a section there and a test.

use crate::lock::build::{Renumbered, from_model, renumbered};
use crate::model::baseline::BaselinePlan;
use crate::model::{Device, Direction, FabricModel, Interface, PortKind, QueuePlan, WatchdogPlan};
use crate::platform::Catalog;
use crate::units::Size;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// How a change affects traffic while it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Applied in place, no traffic loss expected.
    NonDisruptive,
    /// A change no rule classifies (`CHG-CONFIG`): its diff says what it does.
    Unclassified,
    /// Traffic is lost or sessions reset while it applies.
    Disruptive,
    /// Takes effect only after a reload of the switch.
    ReloadRequired,
}

impl Impact {
    /// Label for text and markdown.
    pub fn label(self) -> &'static str {
        match self {
            Impact::NonDisruptive => "non-disruptive",
            Impact::Unclassified => "unclassified: read the diff",
            Impact::Disruptive => "disruptive",
            Impact::ReloadRequired => "reload required",
        }
    }
}

/// Declares [`ChangeRule`] and its table from one list:
/// `Variant = ("CHG-XXX", [impacts it may report], "summary", check)`, where `check` is the function that
/// compares the two models (left out for a rule another module reports: `CHG-SONIC-RELOAD` reads the
/// rendered files, [`crate::delivery::route`]).
macro_rules! change_rules {
    ($($name:ident = ($id:literal, [$($impact:ident),+], $summary:literal $(, $check:ident)?),)*) => {
        /// A rule of the change report. Its id, impacts and summary are in the table
        /// ([`ChangeRule::id`], [`ChangeRule::impacts`], [`ChangeRule::summary`]); each has a section
        /// in `docs/change-report.md`, whose index is generated from the table ([`markdown_index`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum ChangeRule {
            $(
                #[doc = concat!("`", $id, "`: ", $summary, ".")]
                #[serde(rename = $id)]
                $name,
            )*
        }

        impl ChangeRule {
            /// Every rule, in the order of `docs/change-report.md`.
            pub const ALL: &[ChangeRule] = &[$(ChangeRule::$name),*];

            /// The rule id (`CHG-ECN`).
            pub const fn id(self) -> &'static str {
                match self { $(ChangeRule::$name => $id,)* }
            }
            /// The impacts its changes may have, most usual first (`CHG-DEVICES`: an added switch is
            /// non-disruptive, a removed one disruptive).
            pub const fn impacts(self) -> &'static [Impact] {
                match self { $(ChangeRule::$name => &[$(Impact::$impact),+],)* }
            }
            /// What fires it, in one line (the docs index and headings).
            pub const fn summary(self) -> &'static str {
                match self { $(ChangeRule::$name => $summary,)* }
            }
        }

        /// The rules that compare the two compiled models, in table order.
        const MODEL_RULES: &[fn(&Sides) -> Vec<Change>] = &[$($($check,)?)*];
    };
}

change_rules! {
    Devices = ("CHG-DEVICES", [NonDisruptive, Disruptive], "Switches appear or disappear", devices),
    Renumber = ("CHG-RENUMBER", [Disruptive], "A switch on both sides is renumbered or one of its cables moves", renumber),
    Recable = ("CHG-RECABLE", [Disruptive], "A port keeps a cable but plugs into another peer or peer port", recable),
    Ports = ("CHG-PORTS", [Disruptive, NonDisruptive], "Ports lose their cable or gain one", ports),
    Platform = ("CHG-PLATFORM", [Disruptive], "A switch keeps its name but changes platform", platform),
    Breakout = ("CHG-BREAKOUT", [Disruptive], "Front-panel ports run in another breakout mode or speed", breakout),
    Lossless = ("CHG-LOSSLESS", [Disruptive], "The set of PFC no-drop priorities changes", lossless),
    Ecn = ("CHG-ECN", [NonDisruptive], "ECN thresholds or probability on a queue change", ecn),
    Dscp = ("CHG-DSCP", [Disruptive], "The DSCP to priority map changes", dscp),
    Sched = ("CHG-SCHED", [NonDisruptive], "Strict queues or bandwidth shares change", sched),
    Watchdog = ("CHG-WATCHDOG", [NonDisruptive], "PFC watchdog on/off, timers or action change", watchdog),
    Dlb = ("CHG-DLB", [ReloadRequired, NonDisruptive], "DLB mode, MAC, flowlet gap or DLB interfaces change", dlb),
    Hash = ("CHG-HASH", [NonDisruptive], "RoCE QP hashing is turned on or off", hash),
    Mtu = ("CHG-MTU", [Disruptive], "A port's MTU changes", mtu),
    Addr = ("CHG-ADDR", [Disruptive], "A port's address or server VLAN changes", addr),
    Bgp = ("CHG-BGP", [Disruptive], "A switch's ASN or router-id changes", bgp),
    SonicReload = ("CHG-SONIC-RELOAD", [ReloadRequired], "A SONiC switch config apply-patch cannot move is loaded with config reload"),
    Ack = ("CHG-ACK", [NonDisruptive], "An acknowledged error is added, removed or given another reason", ack),
    Baseline = ("CHG-BASELINE", [NonDisruptive], "The device baseline changes: users, AAA, NTP, syslog, SNMP, DNS, banner, SSH or API", baseline),
    Config = ("CHG-CONFIG", [Unclassified], "A switch's config changes where no rule above explains it: the sections that changed"),
}

impl ChangeRule {
    /// Its section heading in `docs/change-report.md`: `CHG-ECN — <summary>`.
    pub fn heading(self) -> String {
        format!("{} — {}", self.id(), self.summary())
    }
}

/// The rule index of `docs/change-report.md`: a Markdown table of every change rule (id linked to its
/// section, the impacts it may report, summary), ending with a newline. `tests/it/diff.rs` checks that
/// the docs hold exactly this.
pub fn markdown_index() -> String {
    let mut out = String::from("| Rule | Impact | Summary |\n|------|--------|---------|\n");
    for r in ChangeRule::ALL {
        let impacts: Vec<&str> = r.impacts().iter().map(|i| i.label()).collect();
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} |\n",
            r.id(),
            crate::rules::slug(&r.heading()),
            impacts.join(" or "),
            r.summary().replace('|', "\\|")
        ));
    }
    out
}

impl fmt::Display for ChangeRule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.pad(self.id())
    }
}

/// Compares with the rule id (`c.rule == "CHG-ECN"`), as the JSON report prints it.
impl PartialEq<&str> for ChangeRule {
    fn eq(&self, other: &&str) -> bool {
        self.id() == *other
    }
}

/// One line of the change report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Rule.
    pub rule: ChangeRule,
    /// Impact.
    pub impact: Impact,
    /// What changed, with counts.
    pub summary: String,
    /// Switches affected.
    pub switches: usize,
    /// Ports affected (0 when the change is per switch).
    pub ports: usize,
    /// Every switch affected, by name (the summary names the first few).
    pub devices: Vec<String>,
}

impl Change {
    /// A change counted in switches only, naming them.
    pub(crate) fn per_switch(
        rule: ChangeRule,
        impact: Impact,
        summary: String,
        names: &[&str],
    ) -> Change {
        Change {
            rule,
            impact,
            summary,
            switches: names.len(),
            ports: 0,
            devices: names.iter().map(|n| n.to_string()).collect(),
        }
    }
}

/// `3 switches (a, b, c)`, `12 switches (a, b, c, … 9 more)`: a count with the first names.
pub(crate) fn named(names: &[&str]) -> String {
    format!(
        "{} ({})",
        plural(names.len(), Counted::Switch),
        preview(names)
    )
}

/// What a count in a summary counts.
#[derive(Clone, Copy)]
enum Counted {
    Switch,
    Device,
    Port,
    Link,
}

/// `1 switch`, `3 switches`.
fn plural(n: usize, what: Counted) -> String {
    let (one, many) = match what {
        Counted::Switch => ("switch", "switches"),
        Counted::Device => ("device", "devices"),
        Counted::Port => ("port", "ports"),
        Counted::Link => ("link", "links"),
    };
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn list(v: &[u8]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
    }
}

/// The two fabrics side by side: devices by hostname, and the pairs with the same hostname.
struct Sides<'a> {
    old: BTreeMap<&'a str, &'a Device>,
    new: BTreeMap<&'a str, &'a Device>,
    /// Devices on both sides, (old, new), in hostname order.
    both: Vec<(&'a Device, &'a Device)>,
    catalog: &'a Catalog,
    /// Devices on both sides whose allocation or cabling moves.
    renumbered: Vec<Renumbered>,
    /// Cables moved, and ports that lost or gained one, on switches on both sides.
    cabling: crate::review::cabling::Cabling,
}

impl<'a> Sides<'a> {
    fn new(
        old_model: &'a FabricModel,
        new_model: &'a FabricModel,
        catalog: &'a Catalog,
    ) -> Sides<'a> {
        let (old, new) = (old_model, new_model);
        let by_name = |m: &'a FabricModel| -> BTreeMap<&'a str, &'a Device> {
            m.devices.iter().map(|d| (d.hostname.as_str(), d)).collect()
        };
        let (old, new) = (by_name(old), by_name(new));
        let both = old
            .iter()
            .filter_map(|(k, a)| new.get(k).map(|b| (*a, *b)))
            .collect();
        let renumbered = renumbered(
            &from_model(old_model, None, false),
            &from_model(new_model, None, false),
        );
        Sides {
            old,
            new,
            both,
            catalog,
            renumbered,
            cabling: crate::review::cabling::compare(old_model, new_model),
        }
    }

    /// Pairs that kept their platform: the only ones whose QoS and features compare meaningfully.
    fn same_platform(&self) -> impl Iterator<Item = (&'a Device, &'a Device)> + '_ {
        self.both
            .iter()
            .copied()
            .filter(|(a, b)| a.platform == b.platform)
    }

    /// The same-platform switches `differ` says changed, by name.
    fn changed(&self, differ: impl Fn(&Device, &Device) -> bool) -> Vec<&'a str> {
        self.same_platform()
            .filter(|(a, b)| differ(a, b))
            .map(|(_, b)| b.hostname.as_str())
            .collect()
    }
}

/// Compares two compiled fabrics device by device and explains the differences, most severe first.
pub fn report(old: &FabricModel, new: &FabricModel, catalog: &Catalog) -> Vec<Change> {
    let sides = Sides::new(old, new, catalog);
    let mut out: Vec<Change> = MODEL_RULES.iter().flat_map(|rule| rule(&sides)).collect();
    sort(&mut out);
    out
}

/// [`report`] on the switches whose rendered files changed (`rendered`, by hostname), as `aifab diff`
/// reports: a model difference a switch's OS does not render (a user's password hash on SONiC, a
/// priority NX-OS maps to the same queue) names no switch whose config stays the same. Switches
/// added or removed are named whatever their files.
pub fn report_rendered(
    old: &FabricModel,
    new: &FabricModel,
    catalog: &Catalog,
    rendered: &BTreeSet<&str>,
) -> Vec<Change> {
    let mut sides = Sides::new(old, new, catalog);
    sides
        .both
        .retain(|(_, b)| rendered.contains(b.hostname.as_str()));
    let mut out: Vec<Change> = MODEL_RULES.iter().flat_map(|rule| rule(&sides)).collect();
    sort(&mut out);
    out
}

/// Orders a report most severe first, then by rule and summary (after adding a change from elsewhere).
/// A change whose impact its rule does not declare is a defect the test suite catches here.
pub fn sort(changes: &mut [Change]) {
    for c in changes.iter() {
        debug_assert!(
            c.rule.impacts().contains(&c.impact),
            "{} reported a {} change; its table row says {:?}",
            c.rule,
            c.impact.label(),
            c.rule.impacts()
        );
    }
    changes.sort_by(|a, b| {
        b.impact
            .cmp(&a.impact)
            .then(a.rule.id().cmp(b.rule.id()))
            .then(a.summary.cmp(&b.summary))
    });
}

/// `CHG-DEVICES`: switches added (non-disruptive) or removed (disruptive).
fn devices(s: &Sides) -> Vec<Change> {
    let added: Vec<&str> = s
        .new
        .keys()
        .filter(|k| !s.old.contains_key(*k))
        .copied()
        .collect();
    let removed: Vec<&str> = s
        .old
        .keys()
        .filter(|k| !s.new.contains_key(*k))
        .copied()
        .collect();
    let mut out = Vec::new();
    if !added.is_empty() {
        // Renumbering is disruptive: CHG-RENUMBER reports it under its own heading, not here.
        let summary = match s.renumbered.len() {
            0 => format!(
                "{} added ({}); no existing switch renumbered",
                plural(added.len(), Counted::Device),
                preview(&added)
            ),
            n => format!(
                "{} added ({}); {n} existing renumbered or re-cabled: see CHG-RENUMBER (disruptive)",
                plural(added.len(), Counted::Device),
                preview(&added)
            ),
        };
        out.push(Change::per_switch(
            ChangeRule::Devices,
            Impact::NonDisruptive,
            summary,
            &added,
        ));
    }
    if !removed.is_empty() {
        let summary = format!(
            "{} removed ({}): their links and BGP sessions go away",
            plural(removed.len(), Counted::Switch),
            preview(&removed)
        );
        out.push(Change::per_switch(
            ChangeRule::Devices,
            Impact::Disruptive,
            summary,
            &removed,
        ));
    }
    out
}

/// `CHG-RENUMBER`: switches on both sides whose loopback, router-id, ASN, management address or server
/// subnet changes, or whose cables move (another port, peer or /31), by name with the first change.
fn renumber(s: &Sides) -> Vec<Change> {
    let list = &s.renumbered;
    let Some(first) = list.first() else {
        return Vec::new();
    };
    let names: Vec<&str> = list.iter().map(|r| r.device.as_str()).collect();
    let ports = list
        .iter()
        .flat_map(|r| &r.changes)
        .filter(|c| c.starts_with("port ") || c.starts_with("server port "))
        .count();
    let summary = format!(
        "{} existing {} renumbered or re-cabled ({}; {}: {}): render needs --allow-renumber",
        list.len(),
        if list.len() == 1 {
            "switch"
        } else {
            "switches"
        },
        preview(&names),
        first.device,
        first.changes.first().map_or("", String::as_str)
    );
    vec![Change {
        rule: ChangeRule::Renumber,
        impact: Impact::Disruptive,
        summary,
        switches: list.len(),
        ports,
        devices: names.iter().map(|n| n.to_string()).collect(),
    }]
}

/// `CHG-RECABLE`: ports of switches on both sides that keep a cable but plug into another peer or peer
/// port: a cable moved on the floor (its link's BGP session goes down until both ends are cabled).
fn recable(s: &Sides) -> Vec<Change> {
    let c = &s.cabling;
    if c.recabled == 0 {
        return Vec::new();
    }
    let names: Vec<&str> = c.recabled_switches.iter().map(String::as_str).collect();
    vec![Change {
        rule: ChangeRule::Recable,
        impact: Impact::Disruptive,
        summary: format!(
            "{} re-cabled on {} (another peer or peer port: move these cables on the floor; each link is down until both ends are done)",
            plural(c.recabled, Counted::Link),
            named(&names)
        ),
        switches: names.len(),
        ports: c.recabled,
        devices: c.recabled_switches.clone(),
    }]
}

/// `CHG-PORTS`: ports of switches on both sides that lose their cable (servers or links removed:
/// disruptive for what was on them) or gain one (non-disruptive).
fn ports(s: &Sides) -> Vec<Change> {
    let c = &s.cabling;
    let mut out = Vec::new();
    let mut push = |n: usize, who: &[String], impact: Impact, what: &str| {
        if n == 0 {
            return;
        }
        let names: Vec<&str> = who.iter().map(String::as_str).collect();
        out.push(Change {
            rule: ChangeRule::Ports,
            impact,
            summary: format!("{} {what} on {}", plural(n, Counted::Port), named(&names)),
            switches: names.len(),
            ports: n,
            devices: who.to_vec(),
        });
    };
    push(
        c.removed,
        &c.removed_switches,
        Impact::Disruptive,
        "lose their cable (servers or links removed; the ports are shut as unused)",
    );
    push(
        c.added,
        &c.added_switches,
        Impact::NonDisruptive,
        "get a cable (servers or links added)",
    );
    out
}

/// `CHG-PLATFORM`: a switch keeps its name on another platform.
fn platform(s: &Sides) -> Vec<Change> {
    let names: Vec<&str> = s
        .both
        .iter()
        .filter(|(a, b)| a.platform != b.platform)
        .map(|(_, b)| b.hostname.as_str())
        .collect();
    switches(ChangeRule::Platform, Impact::Disruptive, &names, |sw| {
        format!("platform changed on {sw} (the switch is replaced and re-provisioned)")
    })
}

/// `CHG-BREAKOUT`: a switch that kept its platform runs front-panel ports in another mode (children or
/// speed): those ports go down while they change, NX-OS drops their configuration, SONiC reloads.
fn breakout(s: &Sides) -> Vec<Change> {
    switches(
        ChangeRule::Breakout,
        Impact::Disruptive,
        &s.changed(|a, b| a.port_groups != b.port_groups),
        |sw| {
            format!(
                "port breakout or speed changed on {sw} (the ports go down while they change; every link on them flaps)"
            )
        },
    )
}

/// `CHG-LOSSLESS`: the no-drop priority set changed, one line per old→new set.
fn lossless(s: &Sides) -> Vec<Change> {
    let mut sets: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for (a, b) in s.same_platform() {
        let (x, y) = (&a.qos.lossless_priorities, &b.qos.lossless_priorities);
        if x != y {
            sets.entry((list(x), list(y)))
                .or_default()
                .push(b.hostname.as_str());
        }
    }
    sets.into_iter()
        .map(|((from, to), names)| {
            let summary = format!("lossless priority set changed {from}→{to} on {} (PFC and buffer re-carve: traffic loss while it applies)", named(&names));
            Change::per_switch(ChangeRule::Lossless, Impact::Disruptive, summary, &names)
        })
        .collect()
}

/// `CHG-ECN`: a queue's ECN thresholds changed, old→new, one line per class and change, counted in
/// ports.
fn ecn(s: &Sides) -> Vec<Change> {
    type Key = (String, String);
    let mut changes: BTreeMap<Key, (BTreeSet<&str>, usize)> = BTreeMap::new();
    for (a, b) in s.same_platform() {
        for (qa, qb) in a.qos.queues.iter().zip(b.qos.queues.iter()) {
            let fa = qa
                .ecn
                .as_ref()
                .map(|e| (e.min_bytes, e.max_bytes, e.probability));
            let fb = qb
                .ecn
                .as_ref()
                .map(|e| (e.min_bytes, e.max_bytes, e.probability));
            if fa != fb {
                // By class, whatever queue each OS gives it.
                let class = match qb.class.as_deref().or(qa.class.as_deref()) {
                    Some(c) => format!("class {c} (queue {})", qb.queue),
                    None => format!("queue {}", qb.queue),
                };
                let e = changes.entry((class, ecn_text(fa, fb))).or_default();
                e.0.insert(b.hostname.as_str());
                e.1 += b.interfaces.len();
            }
        }
    }
    changes
        .into_iter()
        .map(|((class, what), (sw, ports))| {
            let names: Vec<&str> = sw.into_iter().collect();
            Change {
                rule: ChangeRule::Ecn,
                impact: Impact::NonDisruptive,
                summary: format!("ECN on {class} changed {what} on {} of {} (non-disruptive: the queue keeps forwarding)", plural(ports, Counted::Port), named(&names)),
                switches: names.len(),
                ports,
                devices: names.iter().map(|n| n.to_string()).collect(),
            }
        })
        .collect()
}

/// A per-switch change of `rule` when the switches `names` changed (none otherwise); `summary` gets
/// the count with the first names (`3 switches (a, b, c)`).
fn switches(
    rule: ChangeRule,
    impact: Impact,
    names: &[&str],
    summary: impl FnOnce(String) -> String,
) -> Vec<Change> {
    if names.is_empty() {
        return Vec::new();
    }
    let summary = summary(named(names));
    vec![Change::per_switch(rule, impact, summary, names)]
}

/// `CHG-DSCP`: the DSCP → priority map changed, old→new per DSCP (`DSCP 26: priority 3→0`), per set
/// of switches alike.
fn dscp(s: &Sides) -> Vec<Change> {
    grouped(s, |a, b| dscp_text(&a.qos.dscp_to_tc, &b.qos.dscp_to_tc))
        .into_iter()
        .map(|(what, names)| {
            Change::per_switch(
                ChangeRule::Dscp,
                Impact::Disruptive,
                format!(
                    "DSCP classification changed ({what}) on {} (flows move between queues; lossless traffic may drop while ends disagree)",
                    named(&names)
                ),
                &names,
            )
        })
        .collect()
}

/// The DSCPs whose priority differs, old→new, DSCPs that move alike grouped: `DSCP 24,26: priority
/// 3→0`; empty when none.
fn dscp_text(x: &[u8], y: &[u8]) -> String {
    let mut moves: BTreeMap<(Option<u8>, Option<u8>), Vec<u8>> = BTreeMap::new();
    for d in 0..x.len().max(y.len()) {
        let (a, b) = (x.get(d).copied(), y.get(d).copied());
        if a != b {
            moves
                .entry((a, b))
                .or_default()
                .push(u8::try_from(d).unwrap_or(u8::MAX));
        }
    }
    let prio = |p: Option<u8>| p.map_or("none".to_string(), |p| p.to_string());
    moves
        .into_iter()
        .map(|((a, b), ds)| format!("DSCP {}: priority {}→{}", list(&ds), prio(a), prio(b)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `CHG-SCHED`: strict queues, their rate limits (`max_rate`) or bandwidth shares changed.
fn sched(s: &Sides) -> Vec<Change> {
    grouped(s, |a, b| {
        let parts: Vec<String> = a
            .qos
            .queues
            .iter()
            .zip(b.qos.queues.iter())
            .filter_map(|(x, y)| queue_text(x, y))
            .collect();
        // In class order, whatever queue each OS gives a class.
        let parts: BTreeSet<String> = parts.into_iter().collect();
        parts.into_iter().collect::<Vec<_>>().join("; ")
    })
    .into_iter()
    .map(|(what, names)| {
        Change::per_switch(
            ChangeRule::Sched,
            Impact::NonDisruptive,
            format!("queue scheduling changed: {what}, on {}", named(&names)),
            &names,
        )
    })
    .collect()
}

/// What changed in one queue's scheduling, old→new: `class cts: max rate 5%→3%`.
fn queue_text(x: &QueuePlan, y: &QueuePlan) -> Option<String> {
    let mut parts = Vec::new();
    if x.strict != y.strict {
        let on = |b: bool| if b { "strict" } else { "weighted" };
        parts.push(format!("{}→{}", on(x.strict), on(y.strict)));
    }
    if x.max_rate != y.max_rate {
        let rate = |r: Option<u8>| r.map_or("none".to_string(), |r| format!("{r}%"));
        parts.push(format!(
            "max rate {}→{}",
            rate(x.max_rate),
            rate(y.max_rate)
        ));
    }
    if x.bandwidth != y.bandwidth {
        parts.push(format!("bandwidth {}%→{}%", x.bandwidth, y.bandwidth));
    }
    if parts.is_empty() {
        return None;
    }
    // By class: its queue number differs between OSes (CNP on 6 here, on 7 there).
    let name = match y.class.as_deref().or(x.class.as_deref()) {
        Some(c) => format!("class {c}"),
        None => format!("queue {}", y.queue),
    };
    Some(format!("{name}: {}", parts.join(", ")))
}

/// The switches on both sides whose `what` (empty: no change) is not empty, grouped by it.
fn grouped<'a>(
    s: &'a Sides,
    what: impl Fn(&Device, &Device) -> String,
) -> BTreeMap<String, Vec<&'a str>> {
    let mut out: BTreeMap<String, Vec<&'a str>> = BTreeMap::new();
    for (a, b) in s.same_platform() {
        let w = what(a, b);
        if !w.is_empty() {
            out.entry(w).or_default().push(b.hostname.as_str());
        }
    }
    out
}

/// `CHG-WATCHDOG`: PFC watchdog on/off, timers or action changed, old→new.
fn watchdog(s: &Sides) -> Vec<Change> {
    grouped(s, |a, b| watchdog_text(&a.qos.watchdog, &b.qos.watchdog))
        .into_iter()
        .map(|(what, names)| {
            Change::per_switch(
                ChangeRule::Watchdog,
                Impact::NonDisruptive,
                format!("PFC watchdog changed: {what}, on {}", named(&names)),
                &names,
            )
        })
        .collect()
}

/// What changed in the watchdog, old→new: `detect 300ms→400ms, action drop→alert`.
fn watchdog_text(x: &WatchdogPlan, y: &WatchdogPlan) -> String {
    let action = |a: crate::kinds::WatchdogAction| match a {
        crate::kinds::WatchdogAction::Drop => "drop",
        crate::kinds::WatchdogAction::Alert => "alert",
    };
    let mut parts = Vec::new();
    if x.enabled != y.enabled {
        let on = |b: bool| if b { "on" } else { "off" };
        parts.push(format!("{}→{}", on(x.enabled), on(y.enabled)));
    }
    if x.detect_ms != y.detect_ms {
        parts.push(format!("detect {}ms→{}ms", x.detect_ms, y.detect_ms));
    }
    if x.restore_ms != y.restore_ms {
        parts.push(format!("restore {}ms→{}ms", x.restore_ms, y.restore_ms));
    }
    if x.action != y.action {
        parts.push(format!("action {}→{}", action(x.action), action(y.action)));
    }
    parts.join(", ")
}

/// `CHG-DLB`: DLB changed; reload required where the platform says so, else non-disruptive. Where
/// the platform skips egress QoS for DLB flows (NX-OS) and DLB is on after the change, the summary
/// carries that caveat (AIF-LB-005: ECN marking and strict CNP/CTS queues lost on DLB uplinks).
fn dlb(s: &Sides) -> Vec<Change> {
    let same = |a: &Device, b: &Device| match (&a.dlb, &b.dlb) {
        (None, None) => true,
        (Some(x), Some(y)) => x.same_setting(y),
        _ => false,
    };
    let platform = |d: &Device| s.catalog.get(&d.platform).map(|(_, p)| &p.dlb);
    let (mut reload, mut live) = (Vec::new(), Vec::new());
    let mut bypass = false;
    for (a, b) in s.same_platform() {
        if same(a, b) {
            continue;
        }
        let facts = platform(b);
        bypass |= b
            .dlb
            .as_ref()
            .is_some_and(|p| p.mode != crate::intent::DlbMode::Off)
            && facts.is_some_and(|f| f.bypasses_egress_qos);
        if facts.is_some_and(|f| f.reload_required) {
            reload.push(b.hostname.as_str());
        } else {
            live.push(b.hostname.as_str());
        }
    }
    let caveat = if bypass {
        "; DLB flows skip egress QoS there: no ECN marking and no strict CNP/CTS queues on DLB uplinks (AIF-LB-005)"
    } else {
        ""
    };
    let mut out = switches(ChangeRule::Dlb, Impact::ReloadRequired, &reload, |sw| {
        format!("DLB (hardware profile dlb) changed on {sw} (reload required{caveat})")
    });
    out.extend(switches(
        ChangeRule::Dlb,
        Impact::NonDisruptive,
        &live,
        |sw| format!("DLB changed on {sw} (flows are re-spread once{caveat})"),
    ));
    out
}

/// `CHG-HASH`: RoCE QP hashing turned on or off.
fn hash(s: &Sides) -> Vec<Change> {
    switches(
        ChangeRule::Hash,
        Impact::NonDisruptive,
        &s.changed(|a, b| a.qp_hash.is_some() != b.qp_hash.is_some()),
        |sw| {
            format!(
                "RoCE QP hashing turned on or off on {sw} (ECMP rehash: flows move paths once, brief reordering)"
            )
        },
    )
}

/// `CHG-ACK`: an acknowledgement added, removed or re-worded on switches present on both sides, one
/// line per rule and change. The config changes only in a header comment, but the fabric now accepts
/// (or no longer accepts) an exception a reviewer must see.
fn ack(s: &Sides) -> Vec<Change> {
    let mut changes: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (a, b) in &s.both {
        let old: BTreeMap<&str, &str> = a
            .acknowledged
            .iter()
            .map(|x| (x.rule.as_str(), x.reason.as_str()))
            .collect();
        let new: BTreeMap<&str, &str> = b
            .acknowledged
            .iter()
            .map(|x| (x.rule.as_str(), x.reason.as_str()))
            .collect();
        let rules: BTreeSet<&str> = old.keys().chain(new.keys()).copied().collect();
        for rule in rules {
            let text = match (old.get(rule), new.get(rule)) {
                (None, Some(r)) => format!("{rule} newly acknowledged (\"{r}\")"),
                (Some(_), None) => format!("{rule} no longer acknowledged"),
                (Some(x), Some(y)) if x != y => {
                    format!("{rule} acknowledged with a new reason (\"{y}\")")
                }
                _ => continue,
            };
            changes.entry(text).or_default().push(b.hostname.as_str());
        }
    }
    changes
        .into_iter()
        .map(|(text, names)| {
            let summary = format!(
                "{text} on {}: an accepted exception; review the reason",
                named(&names)
            );
            Change::per_switch(ChangeRule::Ack, Impact::NonDisruptive, summary, &names)
        })
        .collect()
}

/// Ports present on both sides of every same-named device where `differ` says they changed, as
/// (links, switches): a link is counted once, by its upper end (server ports count once too).
fn changed_ports<'a>(
    s: &Sides<'a>,
    differ: impl Fn(&Interface, &Interface) -> bool,
) -> (usize, BTreeSet<&'a str>) {
    let mut links = 0;
    let mut sw = BTreeSet::new();
    for &(a, b) in &s.both {
        let ai: BTreeMap<&str, &Interface> =
            a.interfaces.iter().map(|i| (i.name.as_ref(), i)).collect();
        for ib in &b.interfaces {
            let Some(ia) = ai.get(ib.name.as_ref()) else {
                continue;
            };
            if differ(ia, ib) {
                sw.insert(b.hostname.as_str());
                if ib.kind == PortKind::Server || ib.direction == Direction::Down {
                    links += 1;
                }
            }
        }
    }
    (links, sw)
}

/// `3 links of 2 switches (a, b)`, or only the switches when no fabric or server link is among the
/// ports (a loopback, a VLAN interface): never "0 links".
fn ports_of(links: usize, names: &[&str]) -> String {
    if links == 0 {
        format!(
            "ports other than fabric and server links on {}",
            named(names)
        )
    } else {
        format!("{} of {}", plural(links, Counted::Link), named(names))
    }
}

/// `CHG-MTU`: port MTUs changed.
fn mtu(s: &Sides) -> Vec<Change> {
    let (links, sw) = changed_ports(s, |a, b| a.mtu != b.mtu);
    if links == 0 && sw.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = sw.into_iter().collect();
    let summary = format!(
        "MTU changed on {} (BGP sessions flap; both ends must change together)",
        ports_of(links, &names)
    );
    vec![Change {
        rule: ChangeRule::Mtu,
        impact: Impact::Disruptive,
        summary,
        switches: names.len(),
        ports: links,
        devices: names.iter().map(|n| n.to_string()).collect(),
    }]
}

/// `CHG-ADDR`: port addresses or server VLANs changed.
fn addr(s: &Sides) -> Vec<Change> {
    let (links, sw) = changed_ports(s, |a, b| a.address != b.address || a.vlan != b.vlan);
    if links == 0 && sw.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = sw.into_iter().collect();
    let summary = format!(
        "addresses changed on {} (sessions and server routes on them reset)",
        ports_of(links, &names)
    );
    vec![Change {
        rule: ChangeRule::Addr,
        impact: Impact::Disruptive,
        summary,
        switches: names.len(),
        ports: links,
        devices: names.iter().map(|n| n.to_string()).collect(),
    }]
}

/// `CHG-BGP`: a switch's ASN or router-id changed.
fn bgp(s: &Sides) -> Vec<Change> {
    let n: Vec<&str> = s
        .both
        .iter()
        .filter(|(a, b)| a.bgp.asn != b.bgp.asn || a.loopback != b.loopback)
        .map(|(_, b)| b.hostname.as_str())
        .collect();
    switches(ChangeRule::Bgp, Impact::Disruptive, &n, |sw| {
        format!("BGP ASN or router-id changed on {sw} (every session of those switches resets)")
    })
}

fn preview(names: &[&str]) -> String {
    let mut s = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(", … {} more", names.len() - 3));
    }
    s
}

fn ecn_text(a: Option<(u64, u64, u8)>, b: Option<(u64, u64, u8)>) -> String {
    match (a, b) {
        (None, Some((mi, ma, p))) => format!("off→on ({}-{}, {p}%)", Size(mi), Size(ma)),
        (Some(_), None) => "on→off".into(),
        (Some((mi1, ma1, p1)), Some((mi2, ma2, p2))) => {
            let mut parts = Vec::new();
            if mi1 != mi2 {
                parts.push(format!("min {}→{}", Size(mi1), Size(mi2)));
            }
            if ma1 != ma2 {
                parts.push(format!("max {}→{}", Size(ma1), Size(ma2)));
            }
            if p1 != p2 {
                parts.push(format!("probability {p1}%→{p2}%"));
            }
            parts.join(", ")
        }
        (None, None) => String::new(),
    }
}

/// `CHG-BASELINE`.
fn baseline(s: &Sides) -> Vec<Change> {
    baseline_of(&s.both)
}

/// The baseline fields that differ between two plans (`syslog`, `ntp`, ...), by their model names.
fn fields_changed(a: Option<&BaselinePlan>, b: Option<&BaselinePlan>) -> Vec<String> {
    let obj = |p: Option<&BaselinePlan>| match p.map(serde_json::to_value) {
        Some(Ok(serde_json::Value::Object(m))) => m,
        _ => serde_json::Map::new(),
    };
    let (x, y) = (obj(a), obj(b));
    let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
    keys.into_iter()
        .filter(|k| x.get(*k) != y.get(*k))
        .cloned()
        .collect()
}

/// `CHG-BASELINE`: per set of changed fields, the switches on both sides (old, new) whose baseline
/// changed.
fn baseline_of(both: &[(&Device, &Device)]) -> Vec<Change> {
    let mut by_fields: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
    for (a, b) in both {
        let fields = fields_changed(a.baseline.as_deref(), b.baseline.as_deref());
        if !fields.is_empty() {
            by_fields
                .entry(fields)
                .or_default()
                .push(b.hostname.as_str());
        }
    }
    by_fields
        .into_iter()
        .map(|(fields, names)| {
            let summary = format!(
                "device baseline changed ({}) on {}",
                fields.join(", "),
                named(&names)
            );
            Change::per_switch(ChangeRule::Baseline, Impact::NonDisruptive, summary, &names)
        })
        .collect()
}
