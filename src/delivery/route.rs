//! Which SONiC switches of a diff `config apply-patch` can move, and which must be loaded with
//! `config reload` (then `config save`): a new switch, a patch with an operation the Generic Config
//! Updater would reject for that switch's ASIC and release ([`super::gcu`]), or a change aifab knows
//! takes effect only when services start ([`reload_reason`]). Documented in `docs/change-report.md`
//! (`CHG-SONIC-RELOAD`) and `docs/platforms/sonic.md#loading`.

use super::gcu::{self, Release};
use super::patch::json_patch;
use crate::review::change::{Change, ChangeRule, Impact};
use serde_json::Value;
use std::fmt;

/// Why a switch is reloaded instead of patched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The switch is new: a patch from an empty document would add whole tables and replace what the
    /// switch filled in itself (its MAC, platform and ports).
    New,
    /// An operation aifab routes to a reload on its own rule.
    NeedsReload {
        /// JSON pointer of the operation.
        path: String,
        /// Why.
        why: &'static str,
    },
    /// An operation `config apply-patch` would reject.
    Rejected {
        /// JSON pointer of the operation.
        path: String,
        /// The validator's reason.
        why: gcu::GcuError,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Reason::New => f.write_str("new switch: a patch from an empty document would replace its MAC, platform and ports"),
            Reason::NeedsReload { path, why } => write!(f, "{path}: {why}"),
            Reason::Rejected { path, why } => write!(f, "apply-patch rejects {path}: {why}"),
        }
    }
}

/// One SONiC switch of a diff: its patch, and why it must be reloaded instead (empty: patch it).
#[derive(Clone, Debug)]
pub struct Plan {
    /// Hostname.
    pub host: String,
    /// ASIC family of its HWSKU in the release (None: the validators' "unknown").
    pub family: Option<&'static str>,
    /// The RFC 6902 operations from the old config_db.json to the new one.
    pub ops: Vec<Value>,
    /// Why not to patch it; empty when `config apply-patch` can apply `ops`.
    pub reasons: Vec<Reason>,
}

impl Plan {
    /// Whether `config apply-patch` can move this switch.
    pub fn patchable(&self) -> bool {
        self.reasons.is_empty()
    }
}

/// Plans one switch from its old config_db.json (None: the switch is new) to the new one. The HWSKU
/// is read from the running side (`DEVICE_METADATA|localhost`), as the validators read it.
pub fn plan(host: &str, old: Option<&Value>, new: &Value, release: Release) -> Plan {
    let running = old.unwrap_or(new);
    let hwsku = running["DEVICE_METADATA"]["localhost"]["hwsku"]
        .as_str()
        .unwrap_or_default();
    let family = gcu::asic_family(release, hwsku);
    let ops = json_patch(old.unwrap_or(&Value::Null), new);
    let mut reasons = Vec::new();
    if old.is_none() {
        reasons.push(Reason::New);
    } else {
        for op in &ops {
            let path = op["path"].as_str().unwrap_or_default().to_string();
            if let Some(why) = reload_reason(op) {
                reasons.push(Reason::NeedsReload { path, why });
            } else if let Err(why) = gcu::check(release, family, op) {
                reasons.push(Reason::Rejected { path, why });
            }
        }
    }
    Plan {
        host: host.to_string(),
        family,
        ops,
        reasons,
    }
}

/// `CHG-SONIC-RELOAD`: the switches of `plans` that must be loaded with `config reload` and
/// `config save`, up to three by name and the first reason of the first (None when every switch can be patched). `assumed`
/// says the release was not named by the intent.
pub fn change(plans: &[Plan], release: Release, assumed: bool) -> Option<Change> {
    let routed: Vec<&Plan> = plans.iter().filter(|p| !p.patchable()).collect();
    if routed.is_empty() {
        return None;
    }
    let shown: Vec<&str> = routed.iter().take(3).map(|p| p.host.as_str()).collect();
    let more = match routed.len() {
        n if n > 3 => format!(" and {} more", n - 3),
        _ => String::new(),
    };
    let first = format!("{}: {}", routed[0].host, routed[0].reasons[0]);
    let n = routed.len();
    let switches = if n == 1 {
        "1 SONiC switch".to_string()
    } else {
        format!("{n} SONiC switches")
    };
    let release = if assumed {
        format!("SONiC {} assumed", release.name())
    } else {
        format!("SONiC {}", release.name())
    };
    Some(Change {
        rule: ChangeRule::SonicReload,
        impact: Impact::ReloadRequired,
        summary: format!(
            "config reload + config save on {switches}, not config apply-patch ({release}): {}{more} ({first})",
            shown.join(", ")
        ),
        switches: n,
        ports: 0,
        devices: routed.iter().map(|p| p.host.clone()).collect(),
    })
}

/// PORT fields that follow the SKU's port map (`lanes`, `alias`, `index`) or that apply-patch checks
/// against the running switch's STATE_DB (`speed`, `fec`), which aifab cannot see.
const PORT_MAP_FIELDS: [&str; 5] = ["lanes", "alias", "index", "speed", "fec"];

/// aifab's own reload rule for one operation, whatever the validators say: None when a patch may
/// carry it.
pub fn reload_reason(op: &Value) -> Option<&'static str> {
    let path = op["path"].as_str().unwrap_or_default();
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    match parts.as_slice() {
        [] | [_] => Some("a whole-table operation replaces what the switch filled in itself"),
        ["DEVICE_METADATA", ..] => {
            Some("DEVICE_METADATA (HWSKU, type, ASN, buffer model) is read when services start")
        }
        ["PORT", _] => Some("ports are created from the SKU's port map when the switch starts"),
        ["PORT", _, field, ..] if PORT_MAP_FIELDS.contains(field) => {
            Some("port lanes, alias, index, speed and FEC follow the SKU's port map")
        }
        ["BREAKOUT_CFG", ..] => Some(
            "a breakout mode splits or joins ports: dynamic port breakout or a reload, never a patch",
        ),
        ["BUFFER_POOL", ..] => {
            Some("buffer pool sizes carve the shared buffer when the switch starts")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(hwsku: &str, wred_min: &str, detect: &str) -> Value {
        json!({
            "DEVICE_METADATA": {"localhost": {"hwsku": hwsku, "mac": "00:11:22:33:44:55"}},
            "PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": detect, "restoration_time": "1500"}},
            "WRED_PROFILE": {"ROCE_LOSSLESS": {"green_min_threshold": wred_min}},
            "PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000"}},
        })
    }

    #[test]
    fn new_switch_is_never_patched() {
        let p = plan(
            "a",
            None,
            &doc("Arista-7060X6-64PE", "1", "300"),
            Release::Master,
        );
        assert_eq!(p.reasons, vec![Reason::New]);
        assert!(!p.patchable());
    }

    #[test]
    fn watchdog_patch_depends_on_sku_and_release() {
        let (a, b) = (
            doc("Arista-7060X6-64PE", "1", "300"),
            doc("Arista-7060X6-64PE", "1", "200"),
        );
        // 202405 lists no Arista-7060X6 SKU: "unknown", rejected.
        let p = plan("x", Some(&a), &b, Release::R202405);
        assert_eq!(p.family, None);
        assert!(
            matches!(p.reasons.as_slice(), [Reason::Rejected { .. }]),
            "{p:?}"
        );
        // 202505 and master list it under th5 (from 20240500 on).
        for r in [Release::R202505, Release::Master] {
            let p = plan("x", Some(&a), &b, r);
            assert_eq!(p.family, Some("th5"));
            assert!(p.patchable(), "{r:?}: {:?}", p.reasons);
        }
        // The NVIDIA SN5600 (Spectrum-4, HWSKU ACS-SN5600) is spc4 in every release, whose PFC
        // watchdog rule starts at 20221100: a timer change is a patch, not a reload.
        let (a, b) = (doc("ACS-SN5600", "1", "300"), doc("ACS-SN5600", "1", "200"));
        for r in [Release::R202405, Release::R202505, Release::Master] {
            let p = plan("x", Some(&a), &b, r);
            assert_eq!(p.family, Some("spc4"), "{r:?}");
            assert!(p.patchable(), "{r:?}: {:?}", p.reasons);
        }
        // The Z9664F (TH4) is in no list of any release.
        let (a, b) = (
            doc("DellEMC-Z9664f-O64", "1", "300"),
            doc("DellEMC-Z9664f-O64", "1", "200"),
        );
        assert!(!plan("x", Some(&a), &b, Release::Master).patchable());
    }

    #[test]
    fn wred_rules_per_release() {
        let sku = "Arista-7060X6-64PE-O128S2";
        let (a, b) = (doc(sku, "1", "300"), doc(sku, "2", "300"));
        // 202405 allows only azure_lossless/…; 202505 any profile's green_*; master has no WRED rule.
        assert!(!plan("x", Some(&a), &b, Release::R202405).patchable());
        assert!(plan("x", Some(&a), &b, Release::R202505).patchable());
        assert!(plan("x", Some(&a), &b, Release::Master).patchable());
        let red = json!({"op": "replace", "path": "/WRED_PROFILE/ROCE_LOSSLESS/red_min_threshold", "value": "2"});
        assert!(gcu::check(Release::R202505, Some("th5"), &red).is_err());
        assert!(gcu::check(Release::Master, Some("th5"), &red).is_ok());
    }

    #[test]
    fn validator_field_matching() {
        let th5 = Some("th5");
        let op =
            |op: &str, path: &str, value: Value| json!({"op": op, "path": path, "value": value});
        // The GLOBAL key of an object value is not lowercased: only the replace form matches.
        let add = op("add", "/PFC_WD/GLOBAL", json!({"POLL_INTERVAL": "200"}));
        assert!(gcu::check(Release::Master, th5, &add).is_err());
        let rep = op("replace", "/PFC_WD/GLOBAL/POLL_INTERVAL", json!("200"));
        assert!(gcu::check(Release::Master, th5, &rep).is_ok());
        let rm = json!({"op": "remove", "path": "/PFC_WD/GLOBAL"});
        assert!(gcu::check(Release::Master, th5, &rm).is_err());
        // A whole port entry: its keys are the fields.
        let port = op(
            "add",
            "/PFC_WD/Ethernet8",
            json!({"action": "drop", "detection_time": "200"}),
        );
        assert!(gcu::check(Release::R202505, th5, &port).is_ok());
        // BUFFER_POOL: no field allowed on master; xoff replace on 202405.
        let pool = op(
            "replace",
            "/BUFFER_POOL/ingress_lossless_pool/xoff",
            json!("1"),
        );
        assert!(gcu::check(Release::Master, th5, &pool).is_err());
        assert!(gcu::check(Release::R202405, Some("th4"), &pool).is_ok());
        // Tables without a validator are not checked; th3 has PFC_WD from 202405 on.
        assert!(
            gcu::check(
                Release::R202405,
                None,
                &op("add", "/SCHEDULER/s", json!({}))
            )
            .is_ok()
        );
        assert!(gcu::check(Release::R202405, Some("th3"), &rep).is_ok());
    }

    #[test]
    fn asic_families_of_aifab_skus() {
        use Release::*;
        for (sku, r405, r505) in [
            ("DellEMC-Z9332f-O32", None, None),
            ("DellEMC-Z9664f-O64", None, None),
            ("Arista-7060DX5-64S", None, None),
            ("Arista-7060X6-64PE", None, Some("th5")),
            ("Arista-7060X6-64PE-O128S2", None, Some("th5")),
        ] {
            assert_eq!(gcu::asic_family(R202405, sku), r405, "{sku}");
            assert_eq!(gcu::asic_family(R202505, sku), r505, "{sku}");
            assert_eq!(gcu::asic_family(Master, sku), r505, "{sku}");
        }
        assert_eq!(
            gcu::asic_family(Master, "nokia-ixr7220-h4-64d"),
            Some("th4")
        );
        // NVIDIA HWSKUs are matched whole: a longer name is not the listed one.
        for r in [R202405, R202505, Master] {
            assert_eq!(gcu::asic_family(r, "acs-sn5600"), Some("spc4"));
            assert_eq!(gcu::asic_family(r, "ACS-SN5600-custom"), None);
        }
        assert_eq!(gcu::asic_family(R202405, "Mellanox-SN5610N-C256S2"), None);
        assert_eq!(
            gcu::asic_family(R202505, "Mellanox-SN5610N-C256S2"),
            Some("spc4")
        );
    }

    #[test]
    fn reload_rules_and_release_names() {
        let op = |path: &str| json!({"op": "replace", "path": path, "value": "x"});
        assert!(reload_reason(&op("/DEVICE_METADATA/localhost/type")).is_some());
        assert!(reload_reason(&op("/PORT/Ethernet0/fec")).is_some());
        assert!(reload_reason(&op("/PORT/Ethernet0/mtu")).is_none());
        assert!(reload_reason(&op("/BUFFER_POOL/p/size")).is_some());
        assert!(reload_reason(&op("/BREAKOUT_CFG/Ethernet0/brkout_mode")).is_some());
        assert!(reload_reason(&op("/WRED_PROFILE")).is_some());
        assert_eq!(Release::parse("202411.1"), Some(Release::R202405));
        assert_eq!(Release::parse("SONiC.20250510.03"), Some(Release::R202505));
        assert_eq!(Release::parse("master"), Some(Release::Master));
        assert_eq!(Release::parse("201911"), None);
        assert_eq!(Release::parse("latest"), None);
    }
}
