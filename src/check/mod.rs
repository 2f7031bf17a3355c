//! Semantic checks: the rules that catch meanings a schema cannot (ECN min < max, lossless never strict,
//! watchdog timers each OS can express, MTU every platform accepts, ...). Each rule has a stable id and
//! a page in `docs/checks.md`; [`RULES`] lists them. Fabric-arithmetic rules (pools, ports, platform
//! support) run in the compiler with the same kind of ids.

use crate::diag::{Finding, Source};
use crate::intent::{DlbMode, Intent, QosClass, Role};
use crate::load::SpanMap;
use crate::platform::{Catalog, Os, Platform, QpHashMethod};
use std::collections::BTreeMap;

/// IP MTU a RoCEv2 4096-byte path MTU needs: 4096 payload + IP 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4,
/// rounded up to the 4200 NIC vendors recommend.
pub const ROCE_MIN_MTU: u32 = 4200;

/// Every rule id with a one-line summary (the same ids appear in docs/checks.md).
pub const RULES: &[(&str, &str)] = &[
    (
        "AIF-QOS-001",
        "ECN minimum threshold must be below the maximum",
    ),
    (
        "AIF-QOS-002",
        "ECN maximum must fit in the platform's packet buffer",
    ),
    ("AIF-QOS-003", "ECN marking probability must be 1-100%"),
    ("AIF-QOS-004", "a DSCP value belongs to one class only"),
    ("AIF-QOS-005", "a priority belongs to one class only"),
    ("AIF-QOS-006", "a `dscp` list must not be empty"),
    (
        "AIF-QOS-007",
        "exactly one class is the default class (no `dscp`)",
    ),
    (
        "AIF-QOS-008",
        "lossless classes must not exceed the platform's maximum",
    ),
    ("AIF-QOS-009", "a lossless class is never strict"),
    ("AIF-QOS-010", "the CNP and CTS classes must be strict"),
    ("AIF-QOS-011", "a lossless class with ECN needs a CNP class"),
    ("AIF-QOS-012", "a lossless class should have ECN (warning)"),
    (
        "AIF-QOS-013",
        "bandwidth shares of non-strict classes sum to 100%",
    ),
    ("AIF-QOS-014", "a strict class takes no bandwidth share"),
    ("AIF-QOS-015", "a non-strict class needs a bandwidth share"),
    (
        "AIF-QOS-016",
        "a class must not use a traffic class the platform reserves",
    ),
    ("AIF-QOS-017", "the default class is never lossless"),
    ("AIF-QOS-018", "a class with DSCPs needs a priority"),
    ("AIF-PFC-001", "lossless classes need the PFC watchdog"),
    (
        "AIF-PFC-002",
        "SONiC watchdog: detection 100-5000 ms, restoration 100-60000 ms",
    ),
    (
        "AIF-PFC-003",
        "NX-OS watchdog: whole multiples (1-10 detect, 0-100 restore) of a 100-1000 ms interval",
    ),
    ("AIF-PFC-004", "EOS watchdog: 0.01-60 s in steps of 10 ms"),
    ("AIF-PFC-005", "a fabric without lossless classes (warning)"),
    (
        "AIF-MTU-001",
        "MTU must carry RoCE's 4096-byte path MTU plus headers",
    ),
    ("AIF-MTU-002", "MTU must not exceed any platform's maximum"),
    ("AIF-BGP-004", "ASNs outside the private ranges (warning)"),
    (
        "AIF-BGP-005",
        "leaf, spine and super-spine ASNs must not overlap",
    ),
    (
        "AIF-LB-004",
        "the DLB MAC must be a unicast, non-zero address",
    ),
    (
        "AIF-LB-005",
        "NX-OS does not apply egress QoS to DLB flows (warning)",
    ),
    (
        "AIF-LB-006",
        "NX-OS `hardware profile dlb` needs a reload (warning)",
    ),
    (
        "AIF-LB-007",
        "NX-OS UDF QP hashing replaces L4-port hashing (warning)",
    ),
    ("AIF-LB-008", "DLB settings that have no effect (warning)"),
    (
        "AIF-CAB-001",
        "NX-OS cables over 100 m need PFC pause-buffer settings aifab has no numbers for",
    ),
    (
        "AIF-CAB-002",
        "SONiC cable longer than the SKU's headroom table",
    ),
];

/// Every platform an intent uses, with the roles it serves and the pointer that chose it.
fn platforms<'a>(
    intent: &'a Intent,
    catalog: &'a Catalog,
) -> Vec<(&'a str, Os, &'a Platform, Vec<Role>, String)> {
    let t = &intent.fabric.topology;
    let mut out: Vec<(&str, Os, &Platform, Vec<Role>, String)> = Vec::new();
    let mut add = |name: &'a str, role: Option<Role>, ptr: String| {
        let Some((os, p)) = catalog.get(name) else {
            return;
        };
        match out.iter_mut().find(|e| e.0 == name) {
            Some(e) => {
                if let Some(r) = role
                    && !e.3.contains(&r)
                {
                    e.3.push(r);
                }
            }
            None => out.push((name, *os, p, role.into_iter().collect(), ptr)),
        }
    };
    add(
        &t.leaf.platform,
        Some(Role::Leaf),
        "/fabric/topology/leaf/platform".into(),
    );
    add(
        &t.spine.platform,
        Some(Role::Spine),
        "/fabric/topology/spine/platform".into(),
    );
    if let Some(ss) = &t.super_spine {
        add(
            &ss.platform,
            Some(Role::SuperSpine),
            "/fabric/topology/super_spine/platform".into(),
        );
    }
    for (i, o) in intent.overrides.iter().enumerate() {
        if let Some(p) = &o.platform {
            // An override may serve any role; checks treat it as serving every role its glob could match.
            add(p, None, format!("/overrides/{i}/platform"));
        }
    }
    out
}

fn class_ptr(name: &str, field: &str) -> String {
    let seg = crate::load::escape_segment(name);
    if field.is_empty() {
        format!("/qos/classes/{seg}")
    } else {
        format!("/qos/classes/{seg}/{field}")
    }
}

fn is_cnp(name: &str, c: &QosClass) -> bool {
    name.eq_ignore_ascii_case("cnp") || c.dscp.iter().flatten().any(|d| d.0 == 48)
}

/// Runs every rule over a schema-valid intent and returns all findings (located later by the caller, or
/// here when `spans` has the pointer).
pub fn run(intent: &Intent, spans: &SpanMap, source: &Source) -> Vec<Finding> {
    let mut f = run_unlocated(intent, Catalog::builtin());
    for x in f.iter_mut() {
        if let Some(span) = x.pointer.as_deref().and_then(|p| spans.locate(p)) {
            *x = x.clone().with_span(source, span);
        }
    }
    f
}

/// The rules, without source locations (findings carry JSON pointers).
pub fn run_unlocated(intent: &Intent, catalog: &Catalog) -> Vec<Finding> {
    let mut out = Vec::new();
    qos_rules(intent, catalog, &mut out);
    pfc_rules(intent, catalog, &mut out);
    mtu_rules(intent, catalog, &mut out);
    bgp_rules(intent, &mut out);
    lb_rules(intent, catalog, &mut out);
    cable_rules(intent, catalog, &mut out);
    out
}

fn qos_rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
    let classes = &intent.qos.classes;
    let pfs = platforms(intent, catalog);
    let mut dscp_owner: BTreeMap<u8, &str> = BTreeMap::new();
    let mut prio_owner: BTreeMap<u8, &str> = BTreeMap::new();
    let defaults: Vec<&str> = classes
        .iter()
        .filter(|(_, c)| c.dscp.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if defaults.len() != 1 {
        out.push(
            Finding::error(
                "AIF-QOS-007",
                if defaults.is_empty() {
                    "no default class: every class lists DSCPs, so unmatched traffic has no queue".to_string()
                } else {
                    format!("{} classes have no `dscp` ({}); exactly one may be the default", defaults.len(), defaults.join(", "))
                },
            )
            .at(defaults.get(1).map(|n| class_ptr(n, "")).unwrap_or_else(|| "/qos/classes".into()))
            .hint("give every class but one a `dscp` list; the one without is the default class (class-default)"),
        );
    }
    let mut lossless_count = 0u8;
    let mut share_sum = 0u32;
    let has_cnp = classes.iter().any(|(n, c)| is_cnp(n, c));
    for (name, c) in classes {
        let prio = c.priority.unwrap_or(0);
        if let Some(d) = &c.dscp {
            if d.is_empty() {
                out.push(
                    Finding::error("AIF-QOS-006", format!("class `{name}` has an empty `dscp` list"))
                        .at(class_ptr(name, "dscp"))
                        .hint("list the DSCPs the NICs mark (e.g. [26] for RoCE), or remove `dscp` to make this the default class"),
                );
            }
            for (i, v) in d.iter().enumerate() {
                if let Some(other) = dscp_owner.insert(v.0, name)
                    && other != name
                {
                    out.push(
                        Finding::error(
                            "AIF-QOS-004",
                            format!("DSCP {} is in class `{other}` and in class `{name}`", v.0),
                        )
                        .at(class_ptr(name, &format!("dscp/{i}")))
                        .hint("a packet can go to one queue only: keep each DSCP in one class"),
                    );
                }
            }
            if c.priority.is_none() {
                out.push(
                    Finding::error(
                        "AIF-QOS-018",
                        format!("class `{name}` has DSCPs but no `priority`"),
                    )
                    .at(class_ptr(name, ""))
                    .hint("add `priority: <0-7>` (the traffic class, queue and PFC priority)"),
                );
            }
        }
        if (c.priority.is_some() || c.dscp.is_none())
            && let Some(other) = prio_owner.insert(prio, name)
        {
            out.push(
                Finding::error(
                    "AIF-QOS-005",
                    format!("priority {prio} is used by class `{other}` and class `{name}`"),
                )
                .at(class_ptr(name, "priority"))
                .hint("each class needs its own priority: it is also its queue and PFC priority"),
            );
        }
        if c.lossless {
            lossless_count += 1;
            if c.strict {
                out.push(
                    Finding::error("AIF-QOS-009", format!("class `{name}` is both lossless and strict"))
                        .at(class_ptr(name, "strict"))
                        .hint("a strict, no-drop queue can starve every other queue and spread pause storms: make it weighted (`bandwidth`) or drop `lossless`"),
                );
            }
            if c.dscp.is_none() {
                out.push(
                    Finding::error("AIF-QOS-017", format!("the default class `{name}` is lossless"))
                        .at(class_ptr(name, "lossless"))
                        .hint("PFC on the default class pauses all unclassified traffic: make only the RoCE class lossless"),
                );
            }
            match &c.ecn {
                None => out.push(
                    Finding::warning("AIF-QOS-012", format!("lossless class `{name}` has no ECN: congestion is handled by PFC pauses alone"))
                        .at(class_ptr(name, "lossless"))
                        .hint("add `ecn: {min: 150KB, max: 1500KB, probability: 10%}` so DCQCN slows senders before PFC fires"),
                ),
                Some(_) if !has_cnp => out.push(
                    Finding::error("AIF-QOS-011", format!("lossless class `{name}` marks ECN but no class carries CNPs"))
                        .at(class_ptr(name, "ecn"))
                        .hint("add `cnp: {dscp: [48], priority: 6, strict: true}`: DCQCN needs the congestion notifications to travel ahead of data"),
                ),
                Some(_) => {}
            }
        }
        if let Some(e) = &c.ecn {
            if e.min >= e.max {
                out.push(
                    Finding::error("AIF-QOS-001", format!("class `{name}`: ECN min {} is not below max {}", e.min, e.max))
                        .at(class_ptr(name, "ecn/min"))
                        .hint("marking starts at `min` and reaches `probability` at `max`: make min smaller than max"),
                );
            }
            if e.probability.0 == 0 {
                out.push(
                    Finding::error(
                        "AIF-QOS-003",
                        format!("class `{name}`: ECN probability 0% never marks"),
                    )
                    .at(class_ptr(name, "ecn/probability"))
                    .hint("use 1-100% (10% is a common DCQCN starting point)"),
                );
            }
            for (pname, _, p, _, ptr) in &pfs {
                if let Some(buf) = p.buffer
                    && e.max > buf
                {
                    out.push(
                        Finding::error(
                            "AIF-QOS-002",
                            format!(
                                "class `{name}`: ECN max {} exceeds the {} buffer of {pname}",
                                e.max, buf
                            ),
                        )
                        .at(class_ptr(name, "ecn/max"))
                        .hint(format!(
                            "lower `max` below {buf}; the platform is chosen at {ptr}"
                        )),
                    );
                }
            }
        }
        if c.strict && (is_cnp(name, c) || name.eq_ignore_ascii_case("cts")) {
            // fine
        } else if !c.strict && (is_cnp(name, c) || name.eq_ignore_ascii_case("cts")) {
            out.push(
                Finding::error("AIF-QOS-010", format!("class `{name}` carries {} but is not strict", if name.eq_ignore_ascii_case("cts") { "clear-to-send messages" } else { "CNPs" }))
                    .at(class_ptr(name, ""))
                    .hint("add `strict: true`: congestion notifications and clear-to-send must overtake the data they control"),
            );
        }
        match (c.strict, c.bandwidth) {
            (true, Some(_)) => out.push(
                Finding::error("AIF-QOS-014", format!("strict class `{name}` has a bandwidth share"))
                    .at(class_ptr(name, "bandwidth"))
                    .hint("strict queues are served first and take no weighted share: remove `bandwidth`"),
            ),
            (false, None) => out.push(
                Finding::error("AIF-QOS-015", format!("class `{name}` is neither strict nor given a bandwidth share"))
                    .at(class_ptr(name, ""))
                    .hint("add `bandwidth: <n>%` (shares of non-strict classes sum to 100%) or `strict: true`"),
            ),
            (false, Some(b)) => share_sum += b.0 as u32,
            (true, None) => {}
        }
        for (pname, _, p, _, ptr) in &pfs {
            if p.reserved_traffic_classes.contains(&prio) {
                out.push(
                    Finding::error("AIF-QOS-016", format!("class `{name}` uses traffic class {prio}, which {pname} reserves for control traffic"))
                        .at(class_ptr(name, "priority"))
                        .hint(format!("pick another priority (the platform is chosen at {ptr}); keep CNP on 6 and the NICs in step")),
                );
            }
        }
    }
    if share_sum != 100 && classes.values().any(|c| !c.strict) {
        out.push(
            Finding::error(
                "AIF-QOS-013",
                format!("bandwidth shares of the non-strict classes sum to {share_sum}%, not 100%"),
            )
            .at("/qos/classes")
            .hint("adjust the `bandwidth` values so they add up to 100%"),
        );
    }
    for (pname, _, p, _, ptr) in &pfs {
        if let Some(max) = p.max_lossless_classes
            && lossless_count > max
        {
            out.push(
                Finding::error(
                    "AIF-QOS-008",
                    format!("{lossless_count} lossless classes; {pname} supports {max}"),
                )
                .at(ptr.clone())
                .hint("reduce the lossless classes or choose another platform"),
            );
        }
    }
    if lossless_count == 0 {
        out.push(
            Finding::warning(
                "AIF-PFC-005",
                "no class is lossless: this fabric has no PFC",
            )
            .at("/qos/classes")
            .hint("mark the RoCE class `lossless: true` unless the NICs run a lossy RoCE mode"),
        );
    }
}

fn pfc_rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
    let w = &intent.qos.pfc_watchdog;
    let lossless = intent.qos.classes.values().any(|c| c.lossless);
    if lossless && !w.enabled {
        out.push(
            Finding::error("AIF-PFC-001", "lossless classes without the PFC watchdog: a stuck receiver can pause the fabric indefinitely")
                .at("/qos/pfc_watchdog/enabled")
                .hint("set `enabled: true`; the watchdog covers exactly the lossless priorities"),
        );
    }
    if !w.enabled {
        return;
    }
    let (d_us, r_us) = (w.detect.micros(), w.restore.micros());
    for (pname, _, p, _, ptr) in platforms(intent, catalog) {
        if let Some(msg) = watchdog_problem(&p.watchdog_limits, d_us, r_us) {
            out.push(
                Finding::error(&p.watchdog_limits.rule, format!("PFC watchdog detect {} / restore {} on {pname}: {msg}", w.detect, w.restore))
                    .at("/qos/pfc_watchdog")
                    .hint(format!("choose timers the platform can express (platform chosen at {ptr}); detect 200ms, restore 1s works on every profile")),
            );
        }
    }
}

/// Why a platform cannot express the watchdog timers (`None` when it can), from its `watchdog_limits`.
fn watchdog_problem(l: &crate::platform::WatchdogLimits, d_us: u64, r_us: u64) -> Option<String> {
    if !d_us.is_multiple_of(1000) || !r_us.is_multiple_of(1000) {
        return Some("timers must be whole milliseconds".into());
    }
    let (d, r) = (d_us / 1000, r_us / 1000);
    if d < l.detect_ms[0] || d > l.detect_ms[1] || r < l.restore_ms[0] || r > l.restore_ms[1] {
        return Some(format!(
            "detection must be {}-{} ms and restoration {}-{} ms",
            l.detect_ms[0], l.detect_ms[1], l.restore_ms[0], l.restore_ms[1]
        ));
    }
    if !d.is_multiple_of(l.step_ms) || !r.is_multiple_of(l.step_ms) {
        return Some(format!("timers must be multiples of {} ms", l.step_ms));
    }
    if let (Some([lo, hi]), Some([md, mr])) = (l.poll_interval_ms, l.max_multiplier) {
        let g = gcd(d, r);
        let ok = (lo..=hi)
            .rev()
            .any(|p| g.is_multiple_of(p) && d / p >= 1 && d / p <= md && r / p <= mr);
        if !ok {
            return Some(format!(
                "timers must be 1-{md} (detect) and 0-{mr} (restore) multiples of one {lo}-{hi} ms poll interval"
            ));
        }
    }
    None
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn mtu_rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
    let mtu = intent.fabric.mtu;
    if mtu < ROCE_MIN_MTU {
        out.push(
            Finding::error("AIF-MTU-001", format!("MTU {mtu} cannot carry RoCE's 4096-byte path MTU plus headers (needs {ROCE_MIN_MTU})"))
                .at("/fabric/mtu")
                .hint("use a jumbo MTU such as 9214, and make the NICs' RoCE MTU 4096"),
        );
    }
    for (pname, _, p, _, ptr) in platforms(intent, catalog) {
        if mtu > p.max_mtu {
            out.push(
                Finding::error("AIF-MTU-002", format!("MTU {mtu} exceeds the {} that {pname} accepts", p.max_mtu))
                    .at("/fabric/mtu")
                    .hint(format!("set `mtu: {}` (every port of the fabric uses the same MTU, so both ends of every link agree; platform chosen at {ptr})", p.max_mtu)),
            );
        }
    }
}

fn private(asn: u32) -> bool {
    (64512..=65534).contains(&asn) || (4_200_000_000..=4_294_967_294).contains(&asn)
}

fn bgp_rules(intent: &Intent, out: &mut Vec<Finding>) {
    let b = &intent.fabric.bgp;
    let mut ranges = vec![("leaf_asn", b.leaf_asn), ("spine_asn", b.spine_asn)];
    if let Some(s) = b.super_spine_asn {
        ranges.push(("super_spine_asn", s));
    }
    for (name, r) in &ranges {
        if !private(r.first) || !private(r.last) {
            out.push(
                Finding::warning("AIF-BGP-004", format!("`{name}` {r} is outside the private ASN ranges"))
                    .at(format!("/fabric/bgp/{name}"))
                    .hint("a back-end fabric normally uses 64512-65534 or 4200000000-4294967294, so it can never clash with the Internet"),
            );
        }
    }
    for i in 0..ranges.len() {
        for j in i + 1..ranges.len() {
            let (a, b) = (ranges[i].1, ranges[j].1);
            if a.first <= b.last && b.first <= a.last {
                out.push(
                    Finding::error("AIF-BGP-005", format!("`{}` {} overlaps `{}` {}", ranges[i].0, a, ranges[j].0, b))
                        .at(format!("/fabric/bgp/{}", ranges[j].0))
                        .hint("give each tier its own ASNs: eBGP between tiers needs different AS numbers"),
                );
            }
        }
    }
}

fn lb_rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
    let lb = &intent.load_balancing;
    if let Some(mac) = lb.dlb.mac
        && (mac.is_multicast() || mac.0 == [0; 6])
    {
        out.push(
                Finding::error("AIF-LB-004", format!("DLB MAC {mac} is not a unicast address"))
                    .at("/load_balancing/dlb/mac")
                    .hint("use a unicast MAC (first byte even), the same on every switch; NX-OS's default is 00:cc:cc:cc:cc:cc"),
            );
    }
    if lb.dlb.mode != DlbMode::Flowlet && lb.dlb.flowlet_gap.is_some() {
        out.push(
            Finding::warning(
                "AIF-LB-008",
                "`flowlet_gap` is set but DLB mode is not flowlet: it has no effect",
            )
            .at("/load_balancing/dlb/flowlet_gap")
            .hint("remove `flowlet_gap`, or set `mode: flowlet`"),
        );
    }
    if lb.dlb.mode != DlbMode::Off && lb.dlb.roles.is_empty() {
        out.push(
            Finding::warning(
                "AIF-LB-008",
                "DLB has a mode but no roles: it applies nowhere",
            )
            .at("/load_balancing/dlb/roles")
            .hint("add `roles: [leaf]` (the first hop decides the path)"),
        );
    }
    let qos_egress = intent
        .qos
        .classes
        .values()
        .any(|c| c.ecn.is_some() || c.strict);
    for (pname, os, p, roles, ptr) in platforms(intent, catalog) {
        let dlb_here = lb.dlb.mode != DlbMode::Off
            && p.dlb.reload_required
            && roles.iter().any(|r| lb.dlb.roles.contains(r))
            && p.dlb.modes.contains(&lb.dlb.mode);
        if dlb_here {
            if qos_egress && p.dlb.bypasses_egress_qos {
                out.push(
                    Finding::warning("AIF-LB-005", format!("DLB on {pname}: egress QoS (ECN marking, strict CNP/CTS queues) is not applied to DLB flows on this platform"))
                        .at("/load_balancing/dlb/mode")
                        .hint(format!("test DLB with your ECN and CNP settings before production (docs/platforms/{os}.md#dlb); platform chosen at {ptr}")),
                );
            }
            if p.dlb.reload_required {
                out.push(
                    Finding::warning("AIF-LB-006", format!("DLB on {pname} is a hardware profile: the first push and every change need the config saved and a reload"))
                        .at("/load_balancing/dlb/mode")
                        .hint("schedule a reload window for these switches"),
                );
            }
        }
        let qp_here = lb.hash.roce_dest_qp
            && roles.iter().any(|r| lb.hash.roles.contains(r))
            && p.qp_hash.method == QpHashMethod::NxosUdf;
        if qp_here && p.qp_hash.replaces_l4_ports {
            out.push(
                Finding::warning("AIF-LB-007", format!("QP hashing on {pname} replaces L4-port hashing: the UDP source port (the NICs' usual entropy) leaves the ECMP hash"))
                    .at("/load_balancing/hash/roce_dest_qp")
                    .hint("use it only where the NICs reuse source ports across QPs; otherwise leave the role out of `hash.roles`"),
            );
        }
    }
}

fn cable_rules(intent: &Intent, catalog: &Catalog, out: &mut Vec<Finding>) {
    let c = &intent.fabric.topology.cable_length;
    let tiers = [
        ("server", Some(c.server), [Role::Leaf, Role::Leaf]),
        ("leaf_spine", Some(c.leaf_spine), [Role::Leaf, Role::Spine]),
        (
            "spine_super_spine",
            c.spine_super_spine,
            [Role::Spine, Role::SuperSpine],
        ),
    ];
    for (name, len, roles) in tiers {
        let Some(len) = len else { continue };
        for (pname, _, p, proles, _) in platforms(intent, catalog) {
            let touches = proles.is_empty() || proles.iter().any(|r| roles.contains(r));
            if !touches {
                continue;
            }
            if let Some(limit) = p.pause_buffer_above_m.filter(|l| len.metres() > *l) {
                out.push(
                    Finding::error("AIF-CAB-001", format!("{name} cables of {len} on {pname}: above {limit} m the platform needs PFC pause-buffer (headroom) settings, and no reference gives aifab the numbers"))
                        .at(format!("/fabric/topology/cable_length/{name}"))
                        .hint(format!("keep these links at {limit} m or less, or put a platform with sourced headroom numbers there")),
                );
            }
            if let Some(b) = p.sonic.as_ref().and_then(|s| s.buffers.as_ref()) {
                let max = b.pg_lookup.iter().map(|r| r.cable).max().unwrap_or(0);
                if len.metres() > max {
                    out.push(
                        Finding::error("AIF-CAB-002", format!("{name} cables of {len} are longer than the {max} m row of {pname}'s PG headroom table"))
                            .at(format!("/fabric/topology/cable_length/{name}"))
                            .hint("buffermgrd would find no lossless profile: shorten the cable or extend the SKU's pg_profile_lookup.ini"),
                    );
                }
            }
        }
    }
}
