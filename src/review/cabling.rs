//! Which cables of a fabric move between two compiled models: ports that keep a cable but get another
//! peer (re-cabling on the floor), and ports of switches present on both sides that lose or gain a
//! cable (servers or links removed or added). The change report turns these into CHG-RECABLE and
//! CHG-PORTS.

use crate::model::FabricModel;
use std::collections::{BTreeMap, BTreeSet};

/// One end of a cable: device (or server) and port.
type End<'m> = (&'m str, &'m str);

/// Every cable end of a model with what it plugs into.
fn ends(m: &FabricModel) -> BTreeMap<End<'_>, End<'_>> {
    let mut out = BTreeMap::new();
    for l in &m.links {
        out.insert(
            (l.a.as_ref(), l.a_port.as_ref()),
            (l.b.as_ref(), l.b_port.as_ref()),
        );
        out.insert(
            (l.b.as_ref(), l.b_port.as_ref()),
            (l.a.as_ref(), l.a_port.as_ref()),
        );
    }
    out
}

/// Switch names on both sides.
fn kept<'m>(old: &'m FabricModel, new: &'m FabricModel) -> BTreeSet<&'m str> {
    let before: BTreeSet<&str> = old.devices.iter().map(|d| d.hostname.as_str()).collect();
    new.devices
        .iter()
        .map(|d| d.hostname.as_str())
        .filter(|h| before.contains(h))
        .collect()
}

/// Cables moved and ports that lost or gained a cable, on switches present on both sides.
#[derive(Debug, Default)]
pub struct Cabling {
    /// Cables whose end on a kept switch now plugs into another peer or peer port, counted once.
    pub recabled: usize,
    /// Switches at either end of a moved cable.
    pub recabled_switches: Vec<String>,
    /// Ports of kept switches that had a cable and have none.
    pub removed: usize,
    /// Their switches.
    pub removed_switches: Vec<String>,
    /// Ports of kept switches that had no cable and have one.
    pub added: usize,
    /// Their switches.
    pub added_switches: Vec<String>,
}

/// Compares the cables of two models.
pub fn compare(old: &FabricModel, new: &FabricModel) -> Cabling {
    let kept = kept(old, new);
    let (a, b) = (ends(old), ends(new));
    let mut moved: BTreeSet<(End, End)> = BTreeSet::new();
    let (mut rs, mut gone, mut came) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut c = Cabling::default();
    for (end, before) in a.iter().filter(|(e, _)| kept.contains(e.0)) {
        match b.get(end) {
            Some(after) if after != before => {
                let key = if end < after {
                    (*end, *after)
                } else {
                    (*after, *end)
                };
                moved.insert(key);
                rs.insert(end.0);
                rs.extend([after.0, before.0].into_iter().filter(|d| kept.contains(d)));
            }
            Some(_) => {}
            None => {
                c.removed += 1;
                gone.insert(end.0);
            }
        }
    }
    for end in b
        .keys()
        .filter(|e| kept.contains(e.0) && !a.contains_key(*e))
    {
        c.added += 1;
        came.insert(end.0);
    }
    c.recabled = moved.len();
    let names = |s: BTreeSet<&str>| s.into_iter().map(str::to_string).collect();
    c.recabled_switches = names(rs);
    c.removed_switches = names(gone);
    c.added_switches = names(came);
    c
}
