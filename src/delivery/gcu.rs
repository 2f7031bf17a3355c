//! What SONiC's `config apply-patch` (the Generic Config Updater) accepts, per ASIC family and release:
//! the field operation validators of sonic-utilities (`generic_config_updater/field_operation_validators.py`
//! and its data, `gcu_field_operation_validators.conf.json`, on branches 202405, 202505 and master, plus
//! the fixed illegal removes of `gu_common.py` `validate_field_operation`). The data files are carried
//! unmodified in `vendors/sonic-gcu/<release>.json` and read as they are, so every ASIC family and HWSKU
//! sonic-utilities knows (Broadcom and NVIDIA Spectrum: the SN5600 is `spc4`) is known here. Documented in
//! `docs/platforms/sonic.md#loading`.

use serde_json::Value;
use std::sync::OnceLock;

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

    /// This release's validator data (parsed once from `vendors/sonic-gcu/<release>.json`).
    fn data(self) -> &'static Data {
        static DATA: [OnceLock<Data>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let (slot, text) = match self {
            Release::R202405 => (
                &DATA[0],
                include_str!("../../vendors/sonic-gcu/202405.json"),
            ),
            Release::R202505 => (
                &DATA[1],
                include_str!("../../vendors/sonic-gcu/202505.json"),
            ),
            Release::Master => (
                &DATA[2],
                include_str!("../../vendors/sonic-gcu/master.json"),
            ),
        };
        slot.get_or_init(|| Data::parse(text))
    }
}

/// The ASIC family `get_asic_name` finds for a HWSKU in `release`: a Mellanox family (`spc1`..)
/// whose list holds the HWSKU itself (case-insensitive, as the validators compare on an NVIDIA switch),
/// else the first Broadcom family with a listed name contained in the HWSKU (case-insensitive). No
/// Mellanox HWSKU contains a Broadcom list entry or the reverse, so trying both gives the family the
/// switch's own `asic_type` would. None is the validators' "unknown", for which every rule-checked
/// operation is rejected.
pub fn asic_family(release: Release, hwsku: &str) -> Option<&'static str> {
    let sku = hwsku.to_ascii_lowercase();
    let data = release.data();
    let exact = data
        .mellanox
        .iter()
        .find(|(_, skus)| skus.iter().any(|s| s.to_ascii_lowercase() == sku));
    let contained = || {
        data.broadcom
            .iter()
            .find(|(_, skus)| skus.iter().any(|s| sku.contains(&s.to_ascii_lowercase())))
    };
    exact.or_else(contained).map(|(family, _)| family.as_str())
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

impl Validator {
    /// The validator a `field_operation_validators` entry names
    /// (`generic_config_updater.field_operation_validators.rdma_config_update_validator`).
    fn named(name: &str) -> Option<Validator> {
        match name.rsplit('.').next()? {
            "rdma_config_update_validator" => Some(Validator::Rdma),
            "buffer_profile_config_update_validator" => Some(Validator::BufferProfile),
            "wred_profile_config_update_validator" => Some(Validator::Wred),
            "port_config_update_validator" => Some(Validator::Port),
            _ => None,
        }
    }
}

/// One scenario of a table: the fields it covers, the operations it allows and, per ASIC family, the
/// first branch stamp that has it ("" = never).
#[derive(Debug)]
struct Scenario {
    fields: Vec<String>,
    ops: Vec<String>,
    min: Vec<(String, String)>,
}

/// A table with a field operation validator. Tables without one are not checked by it.
#[derive(Debug)]
struct TableRule {
    table: String,
    validator: Validator,
    scenarios: Vec<Scenario>,
}

/// One release's `gcu_field_operation_validators.conf.json`: the HWSKU lists per ASIC family and the
/// tables with validators.
#[derive(Debug)]
struct Data {
    /// `helper_data.rdma_config_update_validator.mellanox_asics`: family → HWSKUs (matched whole).
    mellanox: Vec<(String, Vec<String>)>,
    /// `...broadcom_asics`: family → HWSKU name parts (matched as substrings), in file order.
    broadcom: Vec<(String, Vec<String>)>,
    /// `tables`, in file order.
    tables: Vec<TableRule>,
}

/// The strings of a JSON list (an absent or other value gives none).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The families of an `*_asics` object, each with its HWSKU list, in file order.
fn families(v: &Value) -> Vec<(String, Vec<String>)> {
    v.as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), strings(v))).collect())
        .unwrap_or_default()
}

impl Data {
    /// Parses the carried file. It is part of aifab (vendors/sonic-gcu/), tested by
    /// `every_release_parses_with_its_validators`: a file that does not parse is a build defect.
    fn parse(text: &str) -> Data {
        let doc: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let helper = &doc["helper_data"]["rdma_config_update_validator"];
        let tables = doc["tables"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(table, t)| {
                let names = strings(&t["field_operation_validators"]);
                let validator = names.iter().find_map(|n| Validator::named(n))?;
                let scenarios = t["validator_data"]["rdma_config_update_validator"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(_, sc)| Scenario {
                        fields: strings(&sc["fields"]),
                        ops: strings(&sc["operations"]),
                        min: sc["platforms"]
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(f, m)| (f.clone(), m.as_str().unwrap_or_default().to_string()))
                            .collect(),
                    })
                    .collect();
                Some(TableRule {
                    table: table.clone(),
                    validator,
                    scenarios,
                })
            })
            .collect();
        Data {
            mellanox: families(&helper["mellanox_asics"]),
            broadcom: families(&helper["broadcom_asics"]),
            tables,
        }
    }
}

/// Why `config apply-patch` would reject one operation: the path, table, field, ASIC family and
/// release the Generic Config Updater's validators name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GcuError {
    /// A remove `gu_common.py` refuses on every ASIC.
    #[error("removing {path} is never allowed")]
    NeverRemoved {
        /// The JSON pointer.
        path: String,
    },
    /// An operation on the whole document.
    #[error("a whole-document operation")]
    WholeDocument,
    /// The HWSKU is in no ASIC list of the release.
    #[error(
        "the HWSKU is in no ASIC list of {release} (\"unknown\"), so no {table} change is allowed"
    )]
    UnknownAsic {
        /// The release's name.
        release: &'static str,
        /// The table.
        table: String,
    },
    /// No scenario of the table's validator names the field.
    #[error("{table} field `{field}` has no apply-patch rule")]
    NoRule {
        /// The table.
        table: String,
        /// The field.
        field: String,
    },
    /// The field's scenario does not have the ASIC family.
    #[error("{table} `{field}` is not allowed on {family}")]
    NotOnFamily {
        /// The table.
        table: String,
        /// The field.
        field: String,
        /// The ASIC family.
        family: String,
    },
    /// The field's scenario does not allow the operation.
    #[error("{table} `{field}` does not allow `{op}`")]
    NotAllowed {
        /// The table.
        table: String,
        /// The field.
        field: String,
        /// The operation (`add`, `replace`, `remove`).
        op: String,
    },
    /// The build is older than the family's first one with the scenario.
    #[error("{table} `{field}` on {family} needs {min} or later")]
    TooOld {
        /// The table.
        table: String,
        /// The field.
        field: String,
        /// The ASIC family.
        family: String,
        /// The first build (`20221100`).
        min: String,
    },
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
pub fn check(release: Release, family: Option<&str>, op: &Value) -> Result<(), GcuError> {
    let kind = op["op"].as_str().unwrap_or_default();
    let path = op["path"].as_str().unwrap_or_default();
    if kind == "remove" && ILLEGAL_REMOVES.contains(&path) {
        return Err(GcuError::NeverRemoved {
            path: path.to_string(),
        });
    }
    let parts = segments(path);
    let Some(table) = parts.first() else {
        return Err(GcuError::WholeDocument);
    };
    let Some(rule) = release.data().tables.iter().find(|t| t.table == *table) else {
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
) -> Result<(), GcuError> {
    let table = || rule.table.clone();
    let Some(family) = family else {
        return Err(GcuError::UnknownAsic {
            release: release.name(),
            table: table(),
        });
    };
    let kind = op["op"].as_str().unwrap_or_default();
    for field in patch_fields(op, parts, how) {
        let hit = |g: &String| match how {
            Match::Exact => field == g.as_str(),
            Match::Last => field.rsplit('/').next() == Some(g.as_str()),
        };
        let Some(sc) = rule.scenarios.iter().find(|s| s.fields.iter().any(hit)) else {
            return Err(GcuError::NoRule {
                table: table(),
                field,
            });
        };
        let min = sc
            .min
            .iter()
            .find(|(f, _)| f == family)
            .map(|(_, m)| m.as_str());
        let Some(min) = min.filter(|m| !m.is_empty()) else {
            return Err(GcuError::NotOnFamily {
                table: table(),
                field,
                family: family.to_string(),
            });
        };
        if !sc.ops.iter().any(|o| o == kind) {
            return Err(GcuError::NotAllowed {
                table: table(),
                field,
                op: kind.to_string(),
            });
        }
        if release.stamp().is_some_and(|s| s < min) {
            return Err(GcuError::TooOld {
                table: table(),
                field,
                family: family.to_string(),
                min: min.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_parses_with_its_validators() {
        for r in [Release::R202405, Release::R202505, Release::Master] {
            let d = r.data();
            let tables: Vec<&str> = d.tables.iter().map(|t| t.table.as_str()).collect();
            for t in ["PFC_WD", "BUFFER_POOL", "BUFFER_PROFILE", "PORT"] {
                assert!(
                    tables.contains(&t),
                    "{}: {t} missing from {tables:?}",
                    r.name()
                );
            }
            assert!(
                d.mellanox.len() >= 4 && d.broadcom.len() >= 8,
                "{}: {d:?}",
                r.name()
            );
            let wd = &d
                .tables
                .iter()
                .find(|t| t.table == "PFC_WD")
                .map(|t| &t.scenarios[0]);
            let spc4 = wd.and_then(|s| s.min.iter().find(|(f, _)| f == "spc4"));
            assert_eq!(
                spc4.map(|(_, m)| m.as_str()),
                Some("20221100"),
                "{}",
                r.name()
            );
        }
    }
}
