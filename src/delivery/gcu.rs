//! What SONiC's `config apply-patch` (the Generic Config Updater) accepts, per ASIC family and release:
//! the field operation validators of sonic-utilities (`generic_config_updater/field_operation_validators.py`
//! and `gcu_field_operation_validators.conf.json` on branches 202405, 202505 and master, plus the fixed
//! illegal removes of `gu_common.py` `validate_field_operation`), kept here as data. Only the Broadcom ASIC
//! families are carried: every SONiC SKU aifab ships is Broadcom (`asic_type: broadcom`), so the
//! Mellanox, Cisco 8000 and Marvell entries of those files can never apply. Documented in
//! `docs/platforms/sonic.md#loading`.

use serde_json::Value;

/// A SONiC release branch whose apply-patch validators aifab carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    /// 202405: the oldest release aifab supports (the `config reload` YANG check was backported there).
    R202405,
    /// 202505.
    R202505,
    /// master (a build version without an 8-digit branch stamp: no minimum-release check).
    Master,
}

impl Release {
    /// The release assumed when the intent names none.
    pub const DEFAULT: Release = Release::R202405;

    /// `202405`, `202505` or `master`: as the output and the docs print it.
    pub fn name(self) -> &'static str {
        match self {
            Release::R202405 => "202405",
            Release::R202505 => "202505",
            Release::Master => "master",
        }
    }

    /// A release from a SONiC version (`202405`, `202411.1`, `SONiC.20250510.03`, `master`): a `YYYYMM`
    /// branch maps to the newest carried release not newer than it (202411 → 202405: its validators are
    /// not carried, and 202405's are the stricter guess); None for text with no such branch.
    pub fn parse(version: &str) -> Option<Release> {
        let v = version.trim().to_ascii_lowercase();
        if v == "master" {
            return Some(Release::Master);
        }
        let ym: u32 = v
            .split(|c: char| !c.is_ascii_digit())
            .find(|s| s.len() == 6 || s.len() == 8)
            .and_then(|s| s[..6].parse().ok())?;
        match ym {
            ..202405 => None,
            202405..202505 => Some(Release::R202405),
            _ => Some(Release::R202505),
        }
    }

    /// The 8-digit branch stamp such a build carries in `build_version` (`SONiC.20240510.25`), compared
    /// as text with each rule's minimum; None on master.
    fn stamp(self) -> Option<&'static str> {
        match self {
            Release::R202405 => Some("20240510"),
            Release::R202505 => Some("20250510"),
            Release::Master => None,
        }
    }

    fn broadcom(self) -> &'static [(&'static str, &'static [&'static str])] {
        match self {
            Release::R202405 => BROADCOM_R202405,
            Release::R202505 => BROADCOM_R202505,
            Release::Master => BROADCOM_MASTER,
        }
    }

    fn tables(self) -> &'static [TableRule] {
        match self {
            Release::R202405 => TABLES_R202405,
            Release::R202505 => TABLES_R202505,
            Release::Master => TABLES_MASTER,
        }
    }
}

/// The ASIC family `get_asic_name` finds for a Broadcom HWSKU in `release`: the first family with a
/// listed name contained in the HWSKU (case-insensitive); None is the validators' "unknown", for which
/// every rule-checked operation is rejected.
pub fn asic_family(release: Release, hwsku: &str) -> Option<&'static str> {
    let sku = hwsku.to_ascii_lowercase();
    release
        .broadcom()
        .iter()
        .find(|(_, skus)| skus.iter().any(|s| sku.contains(&s.to_ascii_lowercase())))
        .map(|(family, _)| *family)
}

/// Which validator function of `field_operation_validators.py` a table names.
#[derive(Clone, Copy, Debug)]
enum Validator {
    /// `rdma_config_update_validator`: exact field match, path elements with digits (ports, profile
    /// names with numbers) dropped.
    Rdma,
    /// `buffer_profile_config_update_validator` (master): a whole profile may be added, replaced or
    /// removed; a field is matched on its last element.
    BufferProfile,
    /// `wred_profile_config_update_validator` (202505): fields matched on their last element.
    Wred,
    /// `port_config_update_validator`: speed and FEC against the STATE_DB lists of the running switch,
    /// which aifab cannot see; aifab routes those fields to a reload itself ([`reload_reason`]).
    Port,
}

/// One scenario of a table: the fields it covers, the operations it allows and, per ASIC family, the
/// first branch stamp that has it ("" = never).
struct Scenario {
    #[allow(dead_code)]
    name: &'static str,
    fields: &'static [&'static str],
    ops: &'static [&'static str],
    min: &'static [(&'static str, &'static str)],
}

/// A table with a field operation validator. Tables without one are not checked by it.
struct TableRule {
    table: &'static str,
    validator: Validator,
    scenarios: &'static [Scenario],
}

/// Removes `gu_common.py` refuses whatever the ASIC.
const ILLEGAL_REMOVES: [&str; 3] = [
    "/PFC_WD/GLOBAL/POLL_INTERVAL",
    "/PFC_WD/GLOBAL",
    "/LOOPBACK_INTERFACE/Loopback0",
];

/// The unescaped segments of a JSON pointer (`/a~1b/c` → `["a/b", "c"]`).
fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Whether `config apply-patch` on a switch of ASIC `family` (None = unknown) running `release` accepts
/// one RFC 6902 operation; Err says why not.
pub fn check(release: Release, family: Option<&str>, op: &Value) -> Result<(), String> {
    let kind = op["op"].as_str().unwrap_or_default();
    let path = op["path"].as_str().unwrap_or_default();
    if kind == "remove" && ILLEGAL_REMOVES.contains(&path) {
        return Err(format!("removing {path} is never allowed"));
    }
    let parts = segments(path);
    let Some(table) = parts.first() else {
        return Err("a whole-document operation".into());
    };
    let Some(rule) = release.tables().iter().find(|t| t.table == table) else {
        return Ok(());
    };
    match rule.validator {
        Validator::Port => Ok(()),
        Validator::Rdma => scenarios(release, family, rule, op, &parts, Match::Exact),
        Validator::Wred => scenarios(release, family, rule, op, &parts, Match::Last),
        Validator::BufferProfile if parts.len() == 2 => Ok(()),
        Validator::BufferProfile => scenarios(release, family, rule, op, &parts, Match::Last),
    }
}

/// How a patch field is compared with a scenario's fields.
#[derive(Clone, Copy, PartialEq)]
enum Match {
    /// Equal, after dropping path elements with digits.
    Exact,
    /// The patch field's last element equals the scenario field.
    Last,
}

/// The fields an operation touches, as `rdma_config_update_validator_common` cleans them: path after
/// the table, lowercased (elements with digits dropped for [`Match::Exact`]); an object value adds
/// each of its keys (not lowercased).
fn patch_fields(op: &Value, parts: &[String], how: Match) -> Vec<String> {
    let kept: Vec<&str> = parts[1..]
        .iter()
        .map(String::as_str)
        .filter(|e| how == Match::Last || !e.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let base = kept.join("/").to_lowercase();
    match op.get("value").and_then(Value::as_object) {
        Some(obj) => obj
            .keys()
            .map(|k| {
                if base.is_empty() {
                    k.clone()
                } else {
                    format!("{base}/{k}")
                }
            })
            .collect(),
        None => vec![base],
    }
}

/// `rdma_config_update_validator_common`: every touched field needs a scenario that has the ASIC
/// family (from the build's branch on) and allows the operation.
fn scenarios(
    release: Release,
    family: Option<&str>,
    rule: &TableRule,
    op: &Value,
    parts: &[String],
    how: Match,
) -> Result<(), String> {
    let Some(family) = family else {
        return Err(format!(
            "the HWSKU is in no ASIC list of {} (\"unknown\"), so no {} change is allowed",
            release.name(),
            rule.table
        ));
    };
    let kind = op["op"].as_str().unwrap_or_default();
    for field in patch_fields(op, parts, how) {
        let hit = |g: &&str| match how {
            Match::Exact => field == *g,
            Match::Last => field.rsplit('/').next() == Some(*g),
        };
        let Some(sc) = rule.scenarios.iter().find(|s| s.fields.iter().any(hit)) else {
            return Err(format!(
                "{} field `{field}` has no apply-patch rule",
                rule.table
            ));
        };
        let min = sc.min.iter().find(|(f, _)| *f == family).map(|(_, m)| *m);
        let Some(min) = min.filter(|m| !m.is_empty()) else {
            return Err(format!(
                "{} `{field}` is not allowed on {family}",
                rule.table
            ));
        };
        if !sc.ops.contains(&kind) {
            return Err(format!("{} `{field}` does not allow `{kind}`", rule.table));
        }
        if release.stamp().is_some_and(|s| s < min) {
            return Err(format!(
                "{} `{field}` on {family} needs {min} or later",
                rule.table
            ));
        }
    }
    Ok(())
}

// Generated from the three releases' gcu_field_operation_validators.conf.json (Broadcom families only).
/// `broadcom_asics` of release 202405: ASIC family → HWSKU names (matched as case-insensitive substrings).
#[rustfmt::skip]
const BROADCOM_R202405: &[(&str, &[&str])] = &[
    ("th", &["Force10-S6100", "Arista-7060CX-32S-C32", "Arista-7060CX-32S-C32-T1", "Arista-7060CX-32S-D48C8", "Celestica-DX010-C32", "Seastone-DX010"]),
    ("th2", &["Arista-7260CX3-D108C10", "Arista-7260CX3-D108C8", "Arista-7260CX3-C64", "Arista-7260CX3-Q64"]),
    ("th3", &["Nokia-IXR7220-H3"]),
    ("th4", &["Nokia-IXR7220-H4-64D", "Nokia-IXR7220-H4-32D"]),
    ("th5", &["Nokia-IXR7220-H5-64D"]),
    ("td2", &["Force10-S6000", "Force10-S6000-Q24S32", "Arista-7050-QX32", "Arista-7050-QX-32S", "Nexus-3164", "Arista-7050QX32S-Q32"]),
    ("td3", &["Arista-7050CX3-32S-C32", "Arista-7050CX3-32S-D48C8", "Arista-7050CX3-32S-C28S4"]),
    ("j2c+", &["Nokia-IXR7250E-36x100G", "Nokia-IXR7250E-36x400G"]),
];
/// `tables` of release 202405, Broadcom families only.
#[rustfmt::skip]
const TABLES_R202405: &[TableRule] = &[
    TableRule { table: "PFC_WD", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "PFCWD enable/disable", fields: &["restoration_time", "detection_time", "action", "global/poll_interval", ""], ops: &["remove", "add", "replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "BUFFER_POOL", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "Shared/headroom pool size changes", fields: &["ingress_lossless_pool/xoff", "ingress_lossless_pool/size", "egress_lossy_pool/size"], ops: &["replace"],
            min: &[("td2", ""), ("th", "20221100"), ("th2", "20221100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20221100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "BUFFER_PROFILE", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "Dynamic threshold tuning", fields: &["dynamic_th"], ops: &["replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("j2c+", "20220500")] },
        Scenario { name: "PG headroom modification", fields: &["xoff"], ops: &["replace"],
            min: &[("td2", ""), ("th", "20221100"), ("th2", "20221100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20221100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "WRED_PROFILE", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "ECN tuning", fields: &["azure_lossless/green_min_threshold", "azure_lossless/green_max_threshold", "azure_lossless/green_drop_probability"], ops: &["replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "PORT", validator: Validator::Port, scenarios: &[
    ] },
];
/// `broadcom_asics` of release 202505: ASIC family → HWSKU names (matched as case-insensitive substrings).
#[rustfmt::skip]
const BROADCOM_R202505: &[(&str, &[&str])] = &[
    ("th", &["Force10-S6100", "Arista-7060CX-32S-C32", "Arista-7060CX-32S-C32-T1", "Arista-7060CX-32S-D48C8", "Celestica-DX010-C32", "Seastone-DX010"]),
    ("th2", &["Arista-7260CX3-D108C10", "Arista-7260CX3-D108C8", "Arista-7260CX3-C64", "Arista-7260CX3-Q64"]),
    ("th3", &["Nokia-IXR7220-H3"]),
    ("th4", &["Nokia-IXR7220-H4-64D", "Nokia-IXR7220-H4-32D"]),
    ("th5", &["Nokia-IXR7220-H5-64D", "Arista-7060X6-64DE", "Arista-7060X6-64PE", "Arista-7060X6-64PE-C224O8", "Arista-7060X6-64PE-C256S2", "Nokia-IXR7220-H5-64O", "Nokia-IXR7220-H5-32D", "Arista-7060X6-64PE-B-C512S2", "Arista-7060X6-64PE-B-C448O16", "Arista-7060X6-64PE-B-O128", "Arista-7060X6-64PE-B-O128S2", "Arista-7060X6-16PE-384C-B-O128S2"]),
    ("td2", &["Force10-S6000", "Force10-S6000-Q24S32", "Arista-7050-QX32", "Arista-7050-QX-32S", "Nexus-3164", "Arista-7050QX32S-Q32"]),
    ("td3", &["Arista-7050CX3-32C-C32", "Arista-7050CX3-32S-C32", "Arista-7050CX3-32S-D48C8", "Arista-7050CX3-32S-C28S4"]),
    ("td4", &["Nokia-IXR7220-D4-36D"]),
    ("j2c+", &["Nokia-IXR7250E-36x100G", "Nokia-IXR7250E-36x400G", "Nokia-IXR7250-X3B"]),
    ("q2c+", &["Nokia-IXR7250-X1B"]),
];
/// `tables` of release 202505, Broadcom families only.
#[rustfmt::skip]
const TABLES_R202505: &[TableRule] = &[
    TableRule { table: "PFC_WD", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "PFCWD enable/disable", fields: &["restoration_time", "detection_time", "action", "global/poll_interval", ""], ops: &["remove", "add", "replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "BUFFER_POOL", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "Shared/headroom pool size changes", fields: &["ingress_lossless_pool/xoff", "ingress_lossless_pool/size", "egress_lossy_pool/size"], ops: &["replace"],
            min: &[("td2", ""), ("th", "20221100"), ("th2", "20221100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20221100"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "BUFFER_PROFILE", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "Dynamic threshold tuning", fields: &["dynamic_th"], ops: &["replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500")] },
        Scenario { name: "PG headroom modification", fields: &["xoff"], ops: &["replace"],
            min: &[("td2", ""), ("th", "20221100"), ("th2", "20221100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20221100"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "WRED_PROFILE", validator: Validator::Wred, scenarios: &[
        Scenario { name: "ECN tuning", fields: &["green_min_threshold", "green_max_threshold", "green_drop_probability"], ops: &["replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("td3", "20201200"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500")] },
    ] },
    TableRule { table: "PORT", validator: Validator::Port, scenarios: &[
    ] },
];
/// `broadcom_asics` of release master: ASIC family → HWSKU names (matched as case-insensitive substrings).
#[rustfmt::skip]
const BROADCOM_MASTER: &[(&str, &[&str])] = &[
    ("th", &["Force10-S6100", "Arista-7060CX-32S-C32", "Arista-7060CX-32S-C32-T1", "Arista-7060CX-32S-D48C8", "Celestica-DX010-C32", "Seastone-DX010"]),
    ("th2", &["Arista-7260CX3-D108C10", "Arista-7260CX3-D108C8", "Arista-7260CX3-C64", "Arista-7260CX3-Q44", "Arista-7260CX3-Q64"]),
    ("th3", &["Nokia-IXR7220-H3"]),
    ("th4", &["Nokia-IXR7220-H4-64D", "Nokia-IXR7220-H4-32D"]),
    ("th5", &["Nokia-IXR7220-H5-64D", "Arista-7060X6-64DE", "Arista-7060X6-64PE", "Arista-7060X6-64PE-C224O8", "Arista-7060X6-64PE-C256S2", "Nokia-IXR7220-H5-64O", "Nokia-IXR7220-H5-32D", "Arista-7060X6-64PE-B-C512S2", "Arista-7060X6-64PE-B-C448O16", "Arista-7060X6-64PE-B-O128", "Arista-7060X6-64PE-B-O128S2", "Arista-7060X6-16PE-384C-B-O128S2", "Arista-7060X6-64PE-B-P32O64", "Arista-7060X6-64PE-B-P64", "Arista-7060X6-64PE-B-P32V128", "Arista-7060X6-64PE-O128", "Arista-7060X6-64PE-O128S2", "Arista-7060X6-64PE-P32O64", "Arista-7060X6-64PE-P64", "Arista-7060X6-64PE-P32V128"]),
    ("th6", &["Nokia-IXR7220-H6-64", "Nokia-IXR7220-H6-P128", "Nokia-IXR7220-H6-O256"]),
    ("td2", &["Force10-S6000", "Force10-S6000-Q24S32", "Arista-7050-QX32", "Arista-7050-QX-32S", "Nexus-3164", "Arista-7050QX32S-Q32"]),
    ("td3", &["Arista-7050CX3-32C-C32", "Arista-7050CX3-32S-C32", "Arista-7050CX3-32S-D48C8", "Arista-7050CX3-32S-C28S4", "Arista-7050CX3-32C-C28S4"]),
    ("td4", &["Nokia-IXR7220-D4-36D"]),
    ("j2c+", &["Nokia-IXR7250E-36x100G", "Nokia-IXR7250E-36x400G", "Nokia-IXR7250-X3B", "Arista-7800R3A-36DM2-D36"]),
    ("q2c+", &["Nokia-IXR7250-X1B"]),
    ("jr2", &["Arista-7800R3-48CQ2-C48", "Arista-7800R3-48CQM2-C48", "Arista-7808R3A-FM"]),
    ("q3d", &["Arista-7280R4-32QF-32DF-64O", "Arista-7280R4K-32QF-32DF-64O"]),
];
/// `tables` of release master, Broadcom families only.
#[rustfmt::skip]
const TABLES_MASTER: &[TableRule] = &[
    TableRule { table: "PFC_WD", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "PFCWD enable/disable", fields: &["restoration_time", "detection_time", "action", "global/poll_interval", "pfc_stat_history", ""], ops: &["remove", "add", "replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("th6", "20251100"), ("td3", "20201200"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500"), ("q3d", "20251100")] },
    ] },
    TableRule { table: "BUFFER_POOL", validator: Validator::Rdma, scenarios: &[
        Scenario { name: "Shared/headroom pool size changes", fields: &[], ops: &[],
            min: &[] },
    ] },
    TableRule { table: "BUFFER_PROFILE", validator: Validator::BufferProfile, scenarios: &[
        Scenario { name: "Dynamic threshold tuning", fields: &["dynamic_th"], ops: &["replace"],
            min: &[("td2", "20181100"), ("th", "20181100"), ("th2", "20181100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("th6", "20251100"), ("td3", "20201200"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500"), ("q3d", "20251100")] },
        Scenario { name: "PG headroom modification", fields: &["xoff"], ops: &["replace"],
            min: &[("td2", ""), ("th", "20221100"), ("th2", "20221100"), ("th3", "20240500"), ("th4", "20240500"), ("th5", "20240500"), ("th6", "20251100"), ("td3", "20221100"), ("td4", "20241100"), ("q2c+", "20241100"), ("j2c+", "20220500"), ("q3d", "20251100")] },
        Scenario { name: "Packet trimming eligibility modification", fields: &["packet_discard_action"], ops: &["add", "replace"],
            min: &[("th5", "20241200"), ("th6", "20251100")] },
    ] },
    TableRule { table: "PORT", validator: Validator::Port, scenarios: &[
    ] },
];
