//! The catalog: every platform of every OS, from the vendor files compiled into the binary (as the JSON
//! build.rs converts them to, each platform parsed when first looked up) or from YAML files checked
//! fact by fact ([`Catalog::from_files`]); the JSON Schema of a platform file; "did you mean" hints.

use super::error::{VendorFileError, VendorProblem};
use super::explained::ChangeSections;
use super::owned::{ConfigDbOwnership, OwnedSections};
use super::types::{OutputSpec, Platform, VendorFile};
use crate::kinds::Os;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Every platform of every OS, loaded once from the embedded `vendors/*.yaml`.
#[derive(Debug)]
pub struct Catalog {
    /// By `<os>/<name>`.
    pub platforms: BTreeMap<String, Entry>,
    /// The references each OS file cites.
    pub references: BTreeMap<Os, BTreeMap<String, String>>,
    /// Files rendered per device, per OS.
    pub outputs: BTreeMap<Os, Vec<OutputSpec>>,
    /// Ansible group variables per OS.
    pub ansible: BTreeMap<Os, BTreeMap<String, String>>,
    /// The sections aifab owns per OS (none for an OS `aifab drift` does not assemble).
    pub owned: BTreeMap<Os, OwnedSections>,
    /// The CONFIG_DB tables aifab owns per OS (SONiC's; none for the CLI OSes).
    pub owned_tables: BTreeMap<Os, ConfigDbOwnership>,
    /// The config sections each change-report rule explains, per OS.
    pub change_sections: BTreeMap<Os, ChangeSections>,
}

/// The JSON Schema (draft 2020-12) of a platform file (`vendors/<os>.yaml` and a site's
/// `--platforms` files), pretty-printed with a final newline.
pub fn schema_json() -> String {
    let mut schema = schemars::schema_for!(VendorFile).to_value();
    with_families(&mut schema);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}

/// The file's `families` and a platform's `family` ([`super::family`]), which are resolved before
/// the types read the file and so are not fields of them: a platform is a whole profile, or names a
/// family and states what is its own.
fn with_families(schema: &mut serde_json::Value) {
    let families = serde_json::json!({
        "type": "object",
        "description": "Values the switch models of one family share (a partial platform, with its sources), by family name; a platform naming `family` takes them beneath its own (src/platform/family.rs).",
        "additionalProperties": {"type": "object"}
    });
    let of_family = serde_json::json!({
        "type": "object",
        "required": ["family"],
        "properties": {"family": {"type": "string", "description": "A family of `families` (this file's, or for a site file the built-in file's): its values are taken beneath this platform's own, key by key at every depth."}}
    });
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        props.insert("families".into(), families);
        if let Some(each) = props
            .get_mut("platforms")
            .and_then(|p| p.get_mut("additionalProperties"))
        {
            let whole = each.take();
            *each = serde_json::json!({"anyOf": [whole, of_family]});
        }
    }
}

/// One platform of a [`Catalog`], with its OS. A built-in platform is parsed when it is first looked
/// up: a fabric uses a handful of the built-in platforms, and parsing all of them (the SONiC ones
/// carry their SKUs' port tables) took 1.8 M instructions at every start.
pub struct Entry {
    os: Os,
    json: &'static str,
    parsed: OnceLock<(Os, Platform)>,
}

impl Entry {
    /// A platform already read (a site's, or the built-in files read as YAML).
    pub fn new(os: Os, platform: Platform) -> Entry {
        Entry {
            os,
            json: "",
            parsed: OnceLock::from((os, platform)),
        }
    }

    /// The OS and the platform, parsed on first use.
    pub fn get(&self) -> &(Os, Platform) {
        self.parsed.get_or_init(|| {
            match serde_json::from_str(self.json) {
                Ok(p) => (self.os, p),
                // The files are compiled in and checked by the test suite: a build defect.
                Err(e) => panic!("a built-in {} platform is invalid: {e}", self.os),
            }
        })
    }
}

impl std::ops::Deref for Entry {
    type Target = (Os, Platform);
    fn deref(&self) -> &(Os, Platform) {
        self.get()
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A built-in vendor file as build.rs wrote it, without its platforms (see [`BUILTIN_PLATFORMS`]).
#[derive(Deserialize)]
struct BuiltinFile {
    os: Os,
    references: BTreeMap<String, String>,
    #[serde(default)]
    outputs: Vec<OutputSpec>,
    #[serde(default)]
    ansible: BTreeMap<String, String>,
    #[serde(default)]
    owned_sections: OwnedSections,
    #[serde(default)]
    config_db: ConfigDbOwnership,
    #[serde(default)]
    change_sections: ChangeSections,
}

mod builtin_platforms {
    include!(concat!(env!("OUT_DIR"), "/vendors.rs"));
}

/// Every built-in platform as JSON, by OS and name, as build.rs wrote them: parsed when looked up.
use builtin_platforms::PLATFORMS as BUILTIN_PLATFORMS;

/// Vendor file `os` as `read` reads it; why it cannot be read is one of `errors`.
fn read_vendor<T>(
    os: Os,
    read: impl FnOnce() -> Result<T, VendorFileError>,
    errors: &mut Vec<VendorProblem>,
) -> Option<T> {
    read()
        .map_err(|source| errors.push(VendorProblem::Unreadable { os, source }))
        .ok()
}

/// A vendor file's YAML as its types read it, the per-family defaults resolved first
/// ([`super::family`]); an error names the path of the value it is about
/// (`platforms.n9k-c9364d-gx2a.ports: missing field \`count\``).
fn read_yaml(text: &str) -> Result<VendorFile, VendorFileError> {
    let mut value: serde_json::Value = serde_norway::from_str(text)?;
    super::family::inherit(&mut value)?;
    serde_path_to_error::deserialize(value).map_err(|e| VendorFileError::Field {
        at: e.path().to_string(),
        source: e.into_inner(),
    })
}

/// What is wrong with vendor file `os` apart from its platforms: it says another OS (`said`), renders
/// no file, names an output that is neither a template nor a builder, or owns a section a push must
/// keep.
fn header_problems(
    os: Os,
    said: Os,
    outputs: &[OutputSpec],
    owned: &OwnedSections,
    explained: &ChangeSections,
) -> Vec<VendorProblem> {
    let mut out: Vec<VendorProblem> = owned
        .problems(&[])
        .into_iter()
        .map(|(_, e)| e)
        .chain(explained.problems())
        .map(|what| VendorProblem::Section { os, what })
        .collect();
    if said != os {
        out.push(VendorProblem::OtherOs { os, said });
    }
    if outputs.is_empty() {
        out.push(VendorProblem::NoOutputs { os });
    }
    for o in outputs {
        if let Err(source) = o.producer() {
            out.push(VendorProblem::Output { os, source });
        }
    }
    out
}

/// The vendor files compiled into the binary.
pub const VENDOR_FILES: [(Os, &str); 3] = [
    (Os::Nxos, include_str!("../../vendors/nxos.yaml")),
    (Os::Eos, include_str!("../../vendors/eos.yaml")),
    (Os::Sonic, include_str!("../../vendors/sonic.yaml")),
];

/// The same files as JSON, converted by build.rs when aifab is built: the built-in catalog reads
/// these (at every start, a JSON file is read faster than its YAML, and each platform is parsed only
/// when looked up, see [`Entry`]); a test checks that both give the same catalog.
const VENDOR_JSON: [(Os, &str); 3] = [
    (
        Os::Nxos,
        include_str!(concat!(env!("OUT_DIR"), "/vendors/nxos.json")),
    ),
    (
        Os::Eos,
        include_str!(concat!(env!("OUT_DIR"), "/vendors/eos.json")),
    ),
    (
        Os::Sonic,
        include_str!(concat!(env!("OUT_DIR"), "/vendors/sonic.json")),
    ),
];

impl Catalog {
    /// The device an output file belongs to, read from the `{hostname}` patterns of every OS's
    /// outputs (`spine1.cfg`, `leaf1/config_db.json`); `None` for a file no device owns (the
    /// inventory, a file someone else put in the folder).
    pub fn device_of<'p>(&self, path: &'p str) -> Option<&'p str> {
        self.outputs.values().flatten().find_map(|o| {
            let (pre, post) = o.file.split_once("{hostname}")?;
            let host = path.strip_prefix(pre)?.strip_suffix(post)?;
            (!host.is_empty() && !host.contains('/')).then_some(host)
        })
    }

    /// Parses and checks the given vendor files: schema shape, matching OS, and a source for every fact.
    pub fn from_files(files: &[(Os, &str)]) -> Result<Catalog, Vec<VendorProblem>> {
        Catalog::parse(files, true)
    }

    /// Parses vendor files as written (YAML), checking every profile's consistency and sources when
    /// `check`. The built-in catalog skips those checks at each start-up ([`Catalog::builtin_json`])
    /// because the test suite runs them ([`Catalog::from_files`] in tests/it/vendors.rs) on exactly the
    /// files compiled in.
    fn parse(files: &[(Os, &str)], check: bool) -> Result<Catalog, Vec<VendorProblem>> {
        let mut errors = Vec::new();
        let mut platforms = BTreeMap::new();
        let mut references = BTreeMap::new();
        let mut outputs = BTreeMap::new();
        let mut ansible = BTreeMap::new();
        let mut owned = BTreeMap::new();
        let mut owned_tables = BTreeMap::new();
        let mut change_sections = BTreeMap::new();
        for (os, text) in files {
            let read = || read_yaml(text);
            let Some(file) = read_vendor(*os, read, &mut errors) else {
                continue;
            };
            errors.extend(header_problems(
                *os,
                file.os,
                &file.outputs,
                &file.owned_sections,
                &file.change_sections,
            ));
            for (name, p) in file.platforms {
                if check {
                    let release_problems = p.release_problems(file.os);
                    for what in p
                        .problems(&file.references)
                        .into_iter()
                        .chain(release_problems)
                    {
                        errors.push(VendorProblem::Platform {
                            os: *os,
                            platform: name.clone(),
                            what,
                        });
                    }
                }
                platforms.insert(format!("{os}/{name}"), Entry::new(*os, p));
            }
            references.insert(*os, file.references);
            outputs.insert(*os, file.outputs);
            ansible.insert(*os, file.ansible);
            owned.insert(*os, file.owned_sections);
            owned_tables.insert(*os, file.config_db);
            change_sections.insert(*os, file.change_sections);
        }
        if errors.is_empty() {
            Ok(Catalog {
                platforms,
                references,
                outputs,
                ansible,
                owned,
                owned_tables,
                change_sections,
            })
        } else {
            Err(errors)
        }
    }

    /// The catalog built into this binary, loaded once.
    pub fn builtin() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| match Catalog::builtin_json() {
            Ok(c) => c,
            // The files are compiled in and checked by the test suite; a broken one is a build defect.
            Err(e) => panic!(
                "built-in vendor profiles are invalid:\n{}",
                e.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        })
    }

    /// The built-in files as build.rs converted them to JSON, each platform parsed when first
    /// looked up ([`Entry`]); the files' other parts are checked as [`Catalog::parse`] checks them.
    fn builtin_json() -> Result<Catalog, Vec<VendorProblem>> {
        let mut errors = Vec::new();
        let mut catalog = Catalog {
            platforms: BTreeMap::new(),
            references: BTreeMap::new(),
            outputs: BTreeMap::new(),
            ansible: BTreeMap::new(),
            owned: BTreeMap::new(),
            owned_tables: BTreeMap::new(),
            change_sections: BTreeMap::new(),
        };
        for (os, text) in VENDOR_JSON {
            let read = || serde_json::from_str::<BuiltinFile>(text).map_err(VendorFileError::from);
            let Some(file) = read_vendor(os, read, &mut errors) else {
                continue;
            };
            errors.extend(header_problems(
                os,
                file.os,
                &file.outputs,
                &file.owned_sections,
                &file.change_sections,
            ));
            catalog.references.insert(os, file.references);
            catalog.outputs.insert(os, file.outputs);
            catalog.ansible.insert(os, file.ansible);
            catalog.owned.insert(os, file.owned_sections);
            catalog.owned_tables.insert(os, file.config_db);
            catalog.change_sections.insert(os, file.change_sections);
        }
        for (os, name, json) in BUILTIN_PLATFORMS {
            let entry = Entry {
                os: Os::parse(os).ok_or_else(|| {
                    vec![VendorProblem::BuiltinOs {
                        os: os.to_string(),
                        name: name.to_string(),
                    }]
                })?,
                json,
                parsed: OnceLock::new(),
            };
            catalog.platforms.insert(format!("{os}/{name}"), entry);
        }
        if errors.is_empty() {
            Ok(catalog)
        } else {
            Err(errors)
        }
    }

    /// Looks a platform up by `<os>/<name>`.
    pub fn get(&self, name: &str) -> Option<&(Os, Platform)> {
        self.platforms.get(name).map(Entry::get)
    }

    /// All platform names, for "did you mean" hints.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.platforms.keys().map(String::as_str)
    }
}

/// A fix hint for an unknown platform name: the closest known names.
pub fn hint_for(catalog: &Catalog, name: &str) -> String {
    let mut scored: Vec<(f64, &str)> = catalog
        .names()
        .map(|n| (strsim::jaro_winkler(n, name), n))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let best: Vec<&str> = scored.iter().take(3).map(|(_, n)| *n).collect();
    format!("known platforms include: {}", best.join(", "))
}

#[cfg(test)]
mod tests {
    use super::{Catalog, VENDOR_FILES};

    /// The JSON build.rs makes from `vendors/*.yaml` gives the very catalog the YAML gives: every
    /// platform, fact, reference, output and Ansible variable (a YAML scalar that JSON would type
    /// differently, such as an unquoted `10.30`, shows up here).
    #[test]
    fn the_built_in_json_is_the_yaml() {
        let yaml = Catalog::parse(&VENDOR_FILES, false).expect("YAML parses");
        let json = Catalog::builtin();
        assert!(!yaml.platforms.is_empty());
        assert_eq!(format!("{yaml:#?}"), format!("{json:#?}"));
    }
}
