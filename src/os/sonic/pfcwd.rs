//! PFC_WD (sonic-pfcwd.yang; docs/platforms/sonic.md#pfc-watchdog): GLOBAL POLL_INTERVAL and one entry
//! per used port. The priorities watched are the port's `pfcwd_sw_enable` (PORT_QOS_MAP), i.e. the
//! lossless ones. DEVICE_METADATA says `default_pfcwd_status: disable` so that these entries, with the
//! intent's timers, are the watchdog (`enable` would let `pfcwd start_default` apply its own timers).

use super::PortOrder;
use super::db::{ConfigDb, Part, Row, Table, Value};
use crate::intent::WatchdogAction;
use crate::model::WatchdogPlan;
use std::borrow::Cow;

/// The PFC_WD entries of one plan, when the watchdog is on.
#[derive(Debug)]
pub(super) struct WatchdogParts {
    global: Row<'static>,
    port: Row<'static>,
}

/// The action as sonic-pfcwd.yang spells it.
fn action(a: WatchdogAction) -> &'static str {
    match a {
        WatchdogAction::Drop => "drop",
        WatchdogAction::Alert => "alert",
    }
}

impl WatchdogParts {
    /// The entries of a plan; None when the watchdog is off.
    pub(super) fn new(w: &WatchdogPlan) -> Option<WatchdogParts> {
        w.enabled.then(|| WatchdogParts {
            global: Row::new([("POLL_INTERVAL", Value::Num(w.poll_ms))]),
            port: Row::new([
                ("action", action(w.action).into()),
                ("detection_time", Value::Num(w.detect_ms)),
                ("restoration_time", Value::Num(w.restore_ms)),
            ]),
        })
    }

    /// Adds PFC_WD.
    pub(super) fn add<'a>(&'a self, db: &mut ConfigDb<'a>, order: &PortOrder<'a>) {
        let mut rows = Vec::with_capacity(order.plain.len() + 1);
        for i in &order.plain {
            rows.push((Cow::Borrowed(i.name.as_ref()), Part::Shared(&self.port)));
        }
        rows.push((Cow::Borrowed("GLOBAL"), Part::Shared(&self.global)));
        db.put("PFC_WD", Table::new(rows));
    }
}
