//! ASN reservation and ECMP width (`AIF-BGP-006`, `-007`): no tier's ASN range reaches an ASN that
//! must never be configured, and `maximum_paths` is at least the ECMP width the topology gives.

use crate::diag::Finding;
use crate::intent::Intent;
use crate::rules::Rule;
use crate::shape::Shape;
use crate::units::AsnRange;

/// ASN ranges no router may use: each with its RFC.
const RESERVED: &[(u32, u32, &str)] = &[
    (0, 0, "AS 0 (RFC 7607)"),
    (23456, 23456, "AS_TRANS (RFC 6793)"),
    (64496, 64511, "documentation ASNs (RFC 5398)"),
    (65535, 65535, "the last 16-bit ASN (RFC 7300)"),
    (65536, 65551, "documentation ASNs (RFC 5398)"),
    (
        4_294_967_295,
        4_294_967_295,
        "the last 32-bit ASN (RFC 7300)",
    ),
];

/// The tiers' ASN ranges with their field names.
fn ranges(intent: &Intent) -> Vec<(&'static str, AsnRange)> {
    let b = &intent.fabric.bgp;
    let mut out = vec![("leaf_asn", b.leaf_asn), ("spine_asn", b.spine_asn)];
    if let Some(s) = b.super_spine_asn {
        out.push(("super_spine_asn", s));
    }
    out
}

/// AIF-BGP-006: no ASN range reaches a reserved ASN.
pub(super) fn reserved_rules(intent: &Intent, out: &mut Vec<Finding>) {
    for (field, r) in ranges(intent) {
        for &(lo, hi, what) in RESERVED {
            if r.first <= hi && lo <= r.last {
                out.push(
                    Finding::new(
                        Rule::ReservedAsn,
                        format!("`{field}` {r} reaches {what}, which no router may use"),
                    )
                    .at(format!("/fabric/bgp/{field}"))
                    .hint("keep the range inside 64512-65534 or 4200000000-4294967294 (private ASNs, RFC 6996)"),
                );
            }
        }
    }
}

/// AIF-BGP-007: `maximum_paths` covers every uplink of a leaf (and of a spine in a three-tier fabric),
/// so BGP installs one path per uplink and none stays unused.
pub fn ecmp_rules(intent: &Intent, shape: &Shape) -> Vec<Finding> {
    let paths = intent.fabric.bgp.maximum_paths;
    let mut widths = vec![("leaf", shape.leaf_up)];
    if shape.three_tier {
        widths.push(("spine", shape.spine_up));
    }
    widths
        .into_iter()
        .filter(|&(_, width)| paths < width)
        .map(|(role, width)| {
            Finding::new(
                Rule::MaximumPathsBelowEcmp,
                format!("`maximum_paths: {paths}` is below the {width} uplinks of each {role}: {} uplinks would carry no traffic", width - paths),
            )
            .at("/fabric/bgp/maximum_paths")
            .hint(format!("set `maximum_paths: {width}` or more"))
        })
        .collect()
}
