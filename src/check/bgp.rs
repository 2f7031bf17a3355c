//! BGP rules (`AIF-BGP-004`, `-005`): private ASNs, and one ASN range per tier. The ASN-count rules run in
//! the compiler, which knows the device counts.

use crate::diag::Finding;
use crate::intent::Intent;
use crate::rules::Rule;

fn private(asn: u32) -> bool {
    (64512..=65534).contains(&asn) || (4_200_000_000..=4_294_967_294).contains(&asn)
}

/// Adds the findings of the ASN range rules.
pub(super) fn rules(intent: &Intent, out: &mut Vec<Finding>) {
    let b = &intent.fabric.bgp;
    let mut ranges = vec![("leaf_asn", b.leaf_asn), ("spine_asn", b.spine_asn)];
    if let Some(s) = b.super_spine_asn {
        ranges.push(("super_spine_asn", s));
    }
    for (name, r) in &ranges {
        if !private(r.first) || !private(r.last) {
            out.push(
                Finding::new(Rule::PublicAsn, format!("`{name}` {r} is outside the private ASN ranges"))
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
                    Finding::new(Rule::AsnOverlap, format!("`{}` {} overlaps `{}` {}", ranges[i].0, a, ranges[j].0, b))
                        .at(format!("/fabric/bgp/{}", ranges[j].0))
                        .hint("give each tier its own ASNs: eBGP between tiers needs different AS numbers"),
                );
            }
        }
    }
}
