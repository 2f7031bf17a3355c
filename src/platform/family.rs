//! Per-family defaults of a built-in vendor file: `families:` holds the values the switch models of one
//! family share (their ASIC's facts, with their sources), and a platform that names `family: <name>`
//! states only what is its own (description, port count, the source of its port count); its own
//! values win, key by key, at every depth (a family's `sources` and a platform's are merged the same
//! way). Resolved on the file as data, before the platform types read it, by the catalog and by
//! build.rs (which includes this file), so both read the same profiles.
//!
//! This module uses nothing of the crate: build.rs compiles it on its own.

use serde_json::{Map, Value};

/// Why the `families` of a vendor file could not be resolved, naming the platform. (Display and Error
/// are written out: build.rs compiles this file alone, without the crate's dependencies.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FamilyError {
    /// `families` is not a mapping.
    NotAMapping,
    /// A platform's `family` is not a name.
    NotAName {
        /// The platform.
        platform: String,
    },
    /// A platform names a family neither this file nor the built-in one defines.
    Unknown {
        /// The platform.
        platform: String,
        /// The family it names.
        family: String,
        /// The families there are.
        known: Vec<String>,
    },
}

impl FamilyError {
    /// The platform the error is about, if any.
    pub fn platform(&self) -> Option<&str> {
        match self {
            FamilyError::NotAMapping => None,
            FamilyError::NotAName { platform } | FamilyError::Unknown { platform, .. } => {
                Some(platform)
            }
        }
    }
}

impl std::fmt::Display for FamilyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FamilyError::NotAMapping => f.write_str("families: not a mapping of family names"),
            FamilyError::NotAName { platform } => {
                write!(f, "platform {platform}: family: not a name")
            }
            FamilyError::Unknown {
                platform,
                family,
                known,
            } => write!(
                f,
                "platform {platform}: family `{family}` is not in `families` (this file has: {})",
                known.join(", ")
            ),
        }
    }
}

impl std::error::Error for FamilyError {}

/// Resolves the `families` of a vendor file read as data: each platform naming a `family` gets that
/// family's values beneath its own; `families` and each `family` key are removed. The error names
/// the platform and what is wrong.
pub(super) fn inherit(file: &mut Value) -> Result<(), FamilyError> {
    inherit_with(file, &Map::new())
}

/// [`inherit`], where a family the file does not define may be one of `known` (a site file's
/// platform of a built-in family: the built-in file's `families`).
pub(super) fn inherit_with(
    file: &mut Value,
    known: &Map<String, Value>,
) -> Result<(), FamilyError> {
    let Some(top) = file.as_object_mut() else {
        return Ok(()); // not a mapping: the types say what is wrong
    };
    let mut families = known.clone();
    match top.remove("families") {
        None => {}
        Some(Value::Object(f)) => families.extend(f),
        Some(_) => return Err(FamilyError::NotAMapping),
    }
    let Some(Value::Object(platforms)) = top.get_mut("platforms") else {
        return Ok(());
    };
    for (name, platform) in platforms.iter_mut() {
        let Some(own) = platform.as_object_mut() else {
            continue;
        };
        let family = match own.remove("family") {
            None => continue,
            Some(Value::String(f)) => f,
            Some(_) => {
                return Err(FamilyError::NotAName {
                    platform: name.clone(),
                });
            }
        };
        let Some(base) = families.get(&family) else {
            return Err(FamilyError::Unknown {
                platform: name.clone(),
                family,
                known: families.keys().cloned().collect(),
            });
        };
        let own = std::mem::take(own);
        *platform = beneath(base.clone(), Value::Object(own));
    }
    Ok(())
}

/// The `families` a vendor file defines (none when it has no such mapping).
pub(super) fn families_of(file: &Value) -> Map<String, Value> {
    match file.get("families") {
        Some(Value::Object(f)) => f.clone(),
        _ => Map::new(),
    }
}

/// Whether a vendor file uses families at all (defines one, or a platform names one).
pub(super) fn uses_families(file: &Value) -> bool {
    file.get("families").is_some()
        || file
            .get("platforms")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(|v| v.get("family").is_some()))
}

/// `own` over `base`: mappings merged key by key at every depth, any other value `own`'s.
fn beneath(base: Value, own: Value) -> Value {
    match (base, own) {
        (Value::Object(mut base), Value::Object(own)) => {
            for (key, value) in own {
                match base.get_mut(&key) {
                    Some(b) => *b = beneath(std::mem::take(b), value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
            Value::Object(base)
        }
        (_, own) => own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_platform_states_only_its_own_values() {
        let mut file = json!({
            "families": {"gx2": {"asic": "gx2", "ports": {"count": 64, "lanes": 8}, "sources": {"asic": "a", "ports": "p"}}},
            "platforms": {
                "small": {"family": "gx2", "ports": {"count": 32}, "sources": {"ports": "q"}},
                "plain": {"asic": "x"}
            }
        });
        inherit(&mut file).expect("resolves");
        assert_eq!(
            file,
            json!({"platforms": {
                "small": {"asic": "gx2", "ports": {"count": 32, "lanes": 8}, "sources": {"asic": "a", "ports": "q"}},
                "plain": {"asic": "x"}
            }})
        );
    }

    #[test]
    fn a_site_file_may_name_a_known_family() {
        let known = families_of(&json!({"families": {"gx2": {"asic": "gx2", "max_mtu": 9216}}}));
        let mut file = json!({"platforms": {"s": {"family": "gx2", "max_mtu": 9000}}});
        assert!(uses_families(&file));
        inherit_with(&mut file, &known).expect("resolves");
        assert_eq!(
            file,
            json!({"platforms": {"s": {"asic": "gx2", "max_mtu": 9000}}})
        );
        assert!(!uses_families(&file));
    }

    #[test]
    fn an_unknown_family_is_named() {
        let mut file = json!({"families": {"gx2": {}}, "platforms": {"s": {"family": "gx3"}}});
        let e = inherit(&mut file).expect_err("an unknown family");
        assert_eq!(e.platform(), Some("s"));
        assert_eq!(
            e.to_string(),
            "platform s: family `gx3` is not in `families` (this file has: gx2)"
        );
    }
}
