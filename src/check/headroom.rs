//! AIF-PFC-006: a lossless class needs PFC headroom, and on SONiC aifab writes it only from the SKU's
//! sourced buffer numbers (`sonic.buffers` in `vendors/sonic.yaml`). A SKU whose folder has none (no
//! `buffers_defaults_*.j2` pools, no `pg_profile_lookup.ini` rows) would get PFC on a priority group
//! buffermgrd cannot give headroom, so pause frames come too late and lossless traffic drops.

use super::Uses;
use crate::diag::Finding;
use crate::intent::Intent;
use crate::platform::Catalog;
use crate::rules::Rule;

/// Reports every SONiC platform without buffer numbers that a fabric with a lossless class uses, at the
/// field that chose it.
pub(super) fn rules(intent: &Intent, catalog: &Catalog, uses: &Uses, out: &mut Vec<Finding>) {
    let Some(class) = intent
        .qos
        .classes
        .iter()
        .find_map(|(name, c)| c.lossless.then_some(name))
    else {
        return;
    };
    for u in uses {
        let (pname, p, ptr) = (u.name, u.profile, u.origin.pointer());
        let Some(sku) = p.sonic.as_ref().filter(|s| s.buffers.is_none()) else {
            continue;
        };
        out.push(
            Finding::new(
                Rule::LosslessWithoutSkuBuffers,
                format!(
                    "class {class} is lossless, but {pname} (HWSKU {}) has no sourced buffer numbers: its SKU folder gives no pools and no pg_profile_lookup.ini rows, so no priority group would get PFC headroom",
                    sku.hwsku
                ),
            )
            .at(ptr)
            .hint(format!(
                "use a SONiC SKU with buffer numbers ({}), or make every class lossy",
                with_buffers(catalog).join(", ")
            )),
        );
    }
}

/// The SONiC platforms that carry buffer numbers, for the hint.
fn with_buffers(catalog: &Catalog) -> Vec<&str> {
    catalog
        .platforms
        .iter()
        .filter(|(_, e)| e.1.sonic.as_ref().is_some_and(|s| s.buffers.is_some()))
        .map(|(name, _)| name.as_str())
        .collect()
}
