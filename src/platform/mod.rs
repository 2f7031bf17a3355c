//! Platform profiles: the facts aifab knows about each switch model, read from `vendors/<os>.yaml`.
//!
//! A profile never holds a number without a source: every optional fact that is present must have an
//! entry in `sources` naming a public document (a key of the file's `references`: vendor guide, TOI,
//! data sheet, SONiC source file), its section, and the `docs/platforms/<os>.md` section that explains
//! it. Features no public source confirms carry `support: unverified`; renderers emit them only with a
//! comment pointing at that section, and `aifab validate` warns about them.

mod extend;
pub mod owned;
pub mod release;
pub mod sections;
mod sonic;

pub use crate::kinds::{Os, QpHashMethod, Support};
pub use crate::units::PortMode;
pub use owned::OwnedSections;
pub use sonic::{
    BufferModel, DynamicBuffers, Fec, MaxPaths, PgLookupRow, SonicBuffers, SonicFacts, SonicPort,
};

use crate::kinds::DlbMode;
use crate::units::{Size, Speed};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One `vendors/<os>.yaml` file.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VendorFile {
    /// The OS every platform in this file runs.
    pub os: Os,
    /// Public documents cited by `sources` entries, by short id (e.g. `cisco-qos-10.5`).
    pub references: BTreeMap<String, String>,
    /// Files rendered for each device of this OS (built-in files only: an extension file leaves it out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<OutputSpec>,
    /// Ansible group variables of this OS in the rendered `inventory.yml`
    /// (`ansible_network_os`, `ansible_connection`, ...). An extension file's entries override the
    /// built-in ones.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ansible: BTreeMap<String, String>,
    /// The top-level sections of a running-config aifab owns on this OS; a push keeps the rest
    /// (`aifab drift`, docs/push.md#what-aifab-owns). A site file's patterns are added to the
    /// built-in ones.
    #[serde(default, skip_serializing_if = "OwnedSections::is_empty")]
    pub owned_sections: OwnedSections,
    /// Platforms by name (lowercase model, as used in an intent: `<os>/<name>`).
    pub platforms: BTreeMap<String, Platform>,
}

/// One file rendered per device: printed by a template, or built as typed data by the per-OS layer
/// (`src/os`). Exactly one of `template` and `builder` is given.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Text template under `templates/<os>/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// What the template reads: values the per-OS layer prepared for it (templates compute nothing
    /// and never read the neutral model or raw platform facts). Required with `template`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<TemplateContext>,
    /// A per-OS builder that produces the file itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builder: Option<Builder>,
    /// Output path relative to the output folder; `{hostname}` is replaced.
    pub file: String,
}

/// How an output file is produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer<'a> {
    /// A template under `templates/<os>/`, with what it reads.
    Template(&'a str, TemplateContext),
    /// A builder of the per-OS layer.
    Builder(Builder),
}

impl OutputSpec {
    /// How this file is produced, or why the spec is wrong.
    pub fn producer(&self) -> Result<Producer<'_>, String> {
        match (&self.template, self.builder, self.context) {
            (Some(t), None, Some(c)) => Ok(Producer::Template(t, c)),
            (Some(_), None, None) => Err(format!(
                "{}: a template needs a `context` (what the per-OS layer prepares for it)",
                self.file
            )),
            (None, Some(b), None) => Ok(Producer::Builder(b)),
            (None, Some(_), Some(_)) => {
                Err(format!("{}: `context` goes with a template", self.file))
            }
            _ => Err(format!(
                "{}: give exactly one of `template` and `builder`",
                self.file
            )),
        }
    }
}

/// The values a template reads, besides `meta`: one per-OS layer view each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TemplateContext {
    /// `view`: the NX-OS structured config (`os::nxos::view`).
    NxosView,
    /// `view`: the EOS structured config (`os::eos::view`).
    EosView,
    /// The SONiC `GENERATED.txt` values prepared by `os::sonic` (`os::sonic::Generated`).
    SonicGenerated,
}

/// A file the per-OS layer builds as typed data and serializes itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Builder {
    /// SONiC `config_db.json` (`os::sonic::config_db`).
    ConfigDb,
}

/// Where a platform puts strict-priority queues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StrictQueues {
    /// Each class's queue is its priority (traffic class = queue).
    #[default]
    AtPriority,
    /// Strict queues are the highest-numbered queues, contiguous, the highest-priority strict class on
    /// queue 7 (NX-OS: with more than one priority queue they must be the top ones). A strict class's
    /// switch queue may then differ from its wire priority; a lossless class's never does.
    Top,
}

impl StrictQueues {
    /// True for the default placement (kept out of serialized profiles).
    pub fn is_at_priority(&self) -> bool {
        *self == StrictQueues::AtPriority
    }
}

/// The facts of one switch model.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    /// Human description: vendor model and ASIC.
    pub description: String,
    /// Switching ASIC family (`tomahawk4`, `jericho2`, `cloudscale-gx2`, ...).
    pub asic: String,
    /// Front-panel ports.
    pub ports: Ports,
    /// The out-of-band management port as the OS names it (`mgmt0` on NX-OS, `Management1` on a fixed
    /// Arista system, `Management0` on a modular Arista chassis, `eth0` on SONiC): the management
    /// address goes there, and the push's access check looks for it
    /// (docs/platforms/<os>.md#management).
    pub management_interface: String,
    /// Largest interface MTU the OS accepts on this platform, bytes.
    pub max_mtu: u32,
    /// Packet buffer of the ASIC (total), when a reference gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
    /// Largest number of lossless (PFC no-drop) priorities, when a reference gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lossless_classes: Option<u8>,
    /// Unit of ECN/WRED thresholds in the config: its keyword and size. Conversions must be exact.
    pub ecn_unit: EcnUnit,
    /// EOS only: the queue sub-mode keyword (`uc-tx-queue` on Strata, `tx-queue` on Sand/Jericho).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_keyword: Option<String>,
    /// EOS only: whether `random-detect ecn` takes `weight 0` on this platform (stated only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn_weight: bool,
    /// Traffic classes the user may not use (EOS Sand: TC 7 is reserved for control traffic).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reserved_traffic_classes: Vec<u8>,
    /// Where strict-priority classes sit among the eight egress queues.
    #[serde(default, skip_serializing_if = "StrictQueues::is_at_priority")]
    pub strict_queues: StrictQueues,
    /// Dynamic load balancing.
    pub dlb: DlbSupport,
    /// Hashing on the RoCEv2 BTH destination QP.
    pub qp_hash: QpHashSupport,
    /// Whether the OS's PFC watchdog timer CLI is verified (NX-OS global multipliers are [U]).
    pub watchdog_timers: Support,
    /// Whether a public source shows the OS taking a sha512-crypt hash (`$6$...`, what the intent's
    /// `baseline.users` give) in its local-user line (NX-OS `password 5`, EOS `secret sha512`); an
    /// unverified one renders with a header note and a warning. Absent where users are not rendered
    /// (SONiC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<Support>,
    /// Which PFC watchdog timers the OS can express.
    pub watchdog_limits: WatchdogLimits,
    /// Cables longer than this (metres) need PFC pause-buffer (headroom) settings aifab has no numbers
    /// for (NX-OS: above 100 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_buffer_above_m: Option<u32>,
    /// Minimum OS releases of features that have no section of their own (`bgp`, `pfc_watchdog`), as
    /// the vendor spells them; DLB and QP hashing carry theirs in `dlb.min_os` and `qp_hash.min_os`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub min_os: BTreeMap<release::Feature, String>,
    /// SONiC only: HWSKU, platform, the SKU's port table, FEC and buffer numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sonic: Option<SonicFacts>,
    /// Where each fact above comes from: fact name (`ports`, `max_mtu`, `buffer`, `dlb`, ...) to
    /// `<reference id> <section>; see docs/platforms/<os>.md#<anchor>; <confidence>`. Every present
    /// optional fact needs one.
    pub sources: BTreeMap<String, String>,
}

/// Port layout and naming.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ports {
    /// Number of front-panel ports (on a modular chassis: all line cards together).
    pub count: u32,
    /// Speeds one port can run at without breakout, highest first (`[800G, 400G]`).
    pub speeds: Vec<Speed>,
    /// Interface name pattern. Placeholders: `{port}` (1-based front-panel number), `{card}` and
    /// `{card_port}` (modular). Empty on SONiC, whose names come from the SKU's port table.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub naming: String,
    /// Modular chassis: ports per line card (`{card}` = (port-1)/ports_per_card + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports_per_card: Option<u32>,
    /// Modular: slot number of the first line card (`3` on an Arista 7800R3: slots 1-2 hold supervisors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_card: Option<u32>,
    /// Breakout modes a port runs in besides its native speed (`2x400G`, `4x200G`, `8x100G` on an
    /// 800G OSFP port), each with the OS's word for it. The compiler picks one when a tier's link
    /// speed is below `speeds[0]` (docs/platforms/<os>.md#breakout).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breakout: Vec<Breakout>,
    /// Serdes lanes of one port (8 on an 800G OSFP or a 400G QSFP-DD port): a child port's first lane
    /// is 1 + (child-1) x lanes / children. Needed with `breakout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lanes: Option<u32>,
    /// Name pattern of a broken-out port: the placeholders of `naming` plus `{child}` (1-based) and
    /// `{lane}` (the child's first lane). Empty on SONiC, whose child names come from the SKU's lanes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub child_naming: String,
}

/// One breakout mode of a port.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Breakout {
    /// The mode: ports and speed of each (`2x400G`).
    pub mode: PortMode,
    /// The OS's word for it: NX-OS `interface breakout ... map` value (`400g-2x`), EOS `speed` of
    /// each child port (`400g-4`), SONiC BREAKOUT_CFG `brkout_mode` (`2x400G`).
    pub keyword: String,
    /// How sure the source is: an unverified mode is rendered with a header note.
    pub support: Support,
}

/// An ECN threshold unit.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EcnUnit {
    /// Keyword as the OS spells it (`kbytes`, `bytes`).
    pub keyword: String,
    /// Bytes per unit.
    pub bytes: u64,
}

/// DLB facts.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DlbSupport {
    /// Whether DLB exists and how sure the reference is.
    pub support: Support,
    /// Modes the platform can run.
    #[serde(default)]
    pub modes: Vec<DlbMode>,
    /// Minimum OS release, as the vendor spells it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_os: Option<String>,
    /// Whether the OS needs a DLB virtual MAC (NX-OS).
    #[serde(default)]
    pub needs_mac: bool,
    /// Whether egress QoS (ECN marking, strict queues) is skipped for flows DLB places (NX-OS).
    #[serde(default)]
    pub bypasses_egress_qos: bool,
    /// Whether turning DLB on, off or changing it needs a reload (NX-OS `hardware profile dlb`).
    #[serde(default)]
    pub reload_required: bool,
    /// Why a mode is refused, for the error message (e.g. EOS per-packet RLB CLI not confirmed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refused: BTreeMap<String, String>,
}

/// The PFC watchdog timers an OS accepts.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchdogLimits {
    /// The rule that reports a timer outside these limits (`AIF-PFC-002`; an id the registry lacks is
    /// refused when the profile loads).
    pub rule: crate::rules::Rule,
    /// Detection time range, ms (inclusive).
    pub detect_ms: [u64; 2],
    /// Restoration time range, ms (inclusive).
    pub restore_ms: [u64; 2],
    /// Both timers are whole multiples of this, ms.
    pub step_ms: u64,
    /// When set, both timers are written as multiples of one poll interval in this range (ms), with
    /// at most `max_multiplier` [detect, restore] intervals (NX-OS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<[u64; 2]>,
    /// Largest [detect, restore] multiples of the poll interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_multiplier: Option<[u64; 2]>,
    /// Paused polls the OS needs before it declares a storm (SONiC: 2), so the poll interval is at most
    /// the detection time divided by this and real detection stays within the intent's time.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub polls_to_detect: u64,
    /// Whether the OS renders the `alert` action (log only, keep forwarding); false refuses it
    /// (`AIF-PFC-007`, NX-OS: no public source gives its CLI).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub alert: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// QP-hash facts.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QpHashSupport {
    /// Method.
    pub method: QpHashMethod,
    /// How sure the reference is.
    pub support: Support,
    /// Minimum OS release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_os: Option<String>,
    /// Whether enabling it removes L4 ports from the hash (NX-OS UDF mode).
    #[serde(default)]
    pub replaces_l4_ports: bool,
}

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
}

/// The JSON Schema (draft 2020-12) of a platform file (`vendors/<os>.yaml` and a site's
/// `--platforms` files), pretty-printed with a final newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(VendorFile).to_value();
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
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
}

mod builtin_platforms {
    include!(concat!(env!("OUT_DIR"), "/vendors.rs"));
}

/// Every built-in platform as JSON, by OS and name, as build.rs wrote them: parsed when looked up.
use builtin_platforms::PLATFORMS as BUILTIN_PLATFORMS;

/// Vendor file `os` as `read` reads it; why it cannot be read is one of `errors`.
fn read_vendor<T>(
    os: Os,
    read: impl FnOnce() -> Result<T, String>,
    errors: &mut Vec<String>,
) -> Option<T> {
    read()
        .map_err(|e| errors.push(format!("vendors/{os}.yaml: {e}")))
        .ok()
}

/// What is wrong with vendor file `os` apart from its platforms: it says another OS (`said`), renders
/// no file, names an output that is neither a template nor a builder, or owns a section a push must
/// keep.
fn header_problems(os: Os, said: Os, outputs: &[OutputSpec], owned: &OwnedSections) -> Vec<String> {
    let mut out: Vec<String> = owned
        .problems()
        .into_iter()
        .map(|e| format!("vendors/{os}.yaml: {e}"))
        .collect();
    if said != os {
        out.push(format!("vendors/{os}.yaml: says `os: {said}`"));
    }
    if outputs.is_empty() {
        out.push(format!("vendors/{os}.yaml: outputs: no file is rendered"));
    }
    for o in outputs {
        if let Err(e) = o.producer() {
            out.push(format!("vendors/{os}.yaml: outputs: {e}"));
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
    pub fn from_files(files: &[(Os, &str)]) -> Result<Catalog, Vec<String>> {
        Catalog::parse(files, true)
    }

    /// Parses vendor files as written (YAML), checking every profile's consistency and sources when
    /// `check`. The built-in catalog skips those checks at each start-up ([`Catalog::builtin_json`])
    /// because the test suite runs them ([`Catalog::from_files`] in tests/it/vendors.rs) on exactly the
    /// files compiled in.
    fn parse(files: &[(Os, &str)], check: bool) -> Result<Catalog, Vec<String>> {
        let mut errors = Vec::new();
        let mut platforms = BTreeMap::new();
        let mut references = BTreeMap::new();
        let mut outputs = BTreeMap::new();
        let mut ansible = BTreeMap::new();
        let mut owned = BTreeMap::new();
        for (os, text) in files {
            let read = || serde_norway::from_str::<VendorFile>(text).map_err(|e| e.to_string());
            let Some(file) = read_vendor(*os, read, &mut errors) else {
                continue;
            };
            errors.extend(header_problems(
                *os,
                file.os,
                &file.outputs,
                &file.owned_sections,
            ));
            for (name, p) in file.platforms {
                if check {
                    let release_problems = release::problems(file.os, &p);
                    for e in p
                        .problems(&file.references)
                        .into_iter()
                        .chain(release_problems)
                    {
                        errors.push(format!("vendors/{os}.yaml: platform {name}: {e}"));
                    }
                }
                platforms.insert(format!("{os}/{name}"), Entry::new(*os, p));
            }
            references.insert(*os, file.references);
            outputs.insert(*os, file.outputs);
            ansible.insert(*os, file.ansible);
            owned.insert(*os, file.owned_sections);
        }
        if errors.is_empty() {
            Ok(Catalog {
                platforms,
                references,
                outputs,
                ansible,
                owned,
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
            Err(e) => panic!("built-in vendor profiles are invalid:\n{}", e.join("\n")),
        })
    }

    /// The built-in files as build.rs converted them to JSON, each platform parsed when first
    /// looked up ([`Entry`]); the files' other parts are checked as [`Catalog::parse`] checks them.
    fn builtin_json() -> Result<Catalog, Vec<String>> {
        let mut errors = Vec::new();
        let mut catalog = Catalog {
            platforms: BTreeMap::new(),
            references: BTreeMap::new(),
            outputs: BTreeMap::new(),
            ansible: BTreeMap::new(),
            owned: BTreeMap::new(),
        };
        for (os, text) in VENDOR_JSON {
            let read = || serde_json::from_str::<BuiltinFile>(text).map_err(|e| e.to_string());
            let Some(file) = read_vendor(os, read, &mut errors) else {
                continue;
            };
            errors.extend(header_problems(
                os,
                file.os,
                &file.outputs,
                &file.owned_sections,
            ));
            catalog.references.insert(os, file.references);
            catalog.outputs.insert(os, file.outputs);
            catalog.ansible.insert(os, file.ansible);
            catalog.owned.insert(os, file.owned_sections);
        }
        for (os, name, json) in BUILTIN_PLATFORMS {
            let entry = Entry {
                os: Os::parse(os).ok_or_else(|| vec![format!("built-in platform {os}/{name}")])?,
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

/// Fields of a platform that describe it rather than state a fact a source must back: its name and
/// ASIC, the sources themselves, and the SONiC SKU's identity and naming, which come with the port table
/// (`sonic.port_table`'s source covers them). Every other field needs a `sources` entry when present.
const NOT_FACTS: [&str; 6] = [
    "description",
    "asic",
    "sources",
    "sonic.platform",
    "sonic.default_brkout_mode",
    "sonic.child_alias",
];

impl Platform {
    /// Consistency problems of this profile (missing sources, impossible values).
    pub fn problems(&self, references: &BTreeMap<String, String>) -> Vec<String> {
        let mut out = self.source_problems(references);
        out.extend(self.port_problems());
        out.extend(self.breakout_problems());
        out.extend(self.value_problems());
        out
    }

    /// The facts this platform states, each of which needs a source: every field it serializes (a field
    /// left at its default is not stated), read off the type itself so that a new fact cannot be added
    /// without a source. `ports.breakout` is the fact `breakout`, and each `sonic.<field>` is its own fact;
    /// [`NOT_FACTS`] lists the few fields that describe rather than claim.
    fn sourced_facts(&self) -> Vec<String> {
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self) else {
            return Vec::new();
        };
        let mut need = Vec::new();
        for (name, value) in &fields {
            match (name.as_str(), value) {
                ("sonic", serde_json::Value::Object(sonic)) => need.extend(
                    sonic
                        .keys()
                        .map(|k| format!("sonic.{k}"))
                        .filter(|f| !NOT_FACTS.contains(&f.as_str())),
                ),
                ("ports", serde_json::Value::Object(ports)) => {
                    need.push("ports".to_string());
                    if ports.contains_key("breakout") {
                        need.push("breakout".to_string());
                    }
                }
                (name, _) if !NOT_FACTS.contains(&name) => need.push(name.to_string()),
                _ => {}
            }
        }
        need
    }

    /// A stated fact without a `sources` entry, or whose source cites a reference the file lacks.
    fn source_problems(&self, references: &BTreeMap<String, String>) -> Vec<String> {
        let mut out = Vec::new();
        for fact in self.sourced_facts() {
            match self.sources.get(&fact) {
                None => out.push(format!("fact `{fact}` has no entry in `sources`")),
                Some(src) => {
                    let cited = src.split_whitespace().next().unwrap_or("");
                    if !references.contains_key(cited) {
                        out.push(format!(
                            "source of `{fact}` cites `{cited}`, which is not in `references`"
                        ));
                    }
                }
            }
        }
        out
    }

    /// Port count, speeds and interface naming (SONiC's names come from its port table instead).
    fn port_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.ports.count == 0 || self.ports.speeds.is_empty() {
            out.push("ports need a count and at least one speed".into());
        }
        if let Some(c) = self
            .ports
            .naming
            .chars()
            .chain(self.ports.child_naming.chars())
            .find(|c| !(c.is_ascii_alphanumeric() || "/{}_-".contains(*c)))
        {
            // Interface names go into configs unescaped: letters, digits and `/_-` only.
            out.push(format!(
                "naming contains {c:?}: only letters, digits, `/`, `_`, `-` and placeholders"
            ));
        }
        if let Some(s) = &self.sonic {
            if !self.ports.naming.is_empty() {
                out.push("SONiC names come from sonic.port_table: drop `ports.naming`".into());
            }
            out.extend(s.problems(self.ports.count, &self.ports.speeds));
        } else if self.ports.naming.is_empty() {
            out.push("ports need a `naming` pattern".into());
        }
        if self.ports.naming.contains("{card}") && self.ports.ports_per_card.is_none() {
            out.push("naming uses {card} but ports_per_card is missing".into());
        }
        out
    }

    /// Keywords printed into configs, the ECN unit, and the DLB and QP-hash facts' consistency.
    fn value_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        // Keywords printed into configs: lowercase words and `-` only (no separator or line break).
        let keywords = [
            ("ecn_unit.keyword", Some(&self.ecn_unit.keyword)),
            ("queue_keyword", self.queue_keyword.as_ref()),
        ];
        for (fact, k) in keywords.into_iter().filter_map(|(f, k)| k.map(|k| (f, k))) {
            if k.is_empty() || !k.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                out.push(format!("{fact} {k:?}: only lowercase letters and `-`"));
            }
        }
        let m = &self.management_interface;
        if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphanumeric() || c == '/') {
            out.push(format!(
                "management_interface {m:?}: an interface name, letters, digits and `/` only"
            ));
        }
        if self.ecn_unit.bytes == 0 {
            out.push("ecn_unit.bytes must be at least 1".into());
        }
        if self.dlb.support == Support::No && !self.dlb.modes.is_empty() {
            out.push("dlb lists modes but support is `no`".into());
        }
        if (self.qp_hash.method == QpHashMethod::None) != (self.qp_hash.support == Support::No) {
            out.push("qp_hash: method `none` goes with support `no`, and only with it".into());
        }
        out
    }

    /// The interface name of front-panel port `port` (1-based): the SKU's port table on SONiC, else
    /// the naming pattern.
    pub fn interface_name(&self, port: u32) -> String {
        if let Some(row) = self.sonic.as_ref().and_then(|s| s.port(port)) {
            return row.name.clone();
        }
        self.spell(&self.ports.naming, port, None)
    }

    /// The interface name of child `child` (1-based) of front-panel port `port` broken out into
    /// `children` ports: derived from the SKU's row on SONiC, else the child naming pattern.
    pub fn child_name(&self, port: u32, child: u32, children: u32) -> String {
        if children <= 1 {
            return self.interface_name(port);
        }
        if let Some(s) = &self.sonic {
            return s.child_name(port, child, children).unwrap_or_default();
        }
        let lane = 1 + (child - 1) * self.ports.lanes.unwrap_or(children) / children;
        self.spell(&self.ports.child_naming, port, Some((child, lane)))
    }

    /// Every speed a port of this platform runs at: the native speeds, then the breakout speeds.
    pub fn port_speeds(&self) -> Vec<Speed> {
        let mut out = self.ports.speeds.clone();
        for b in &self.ports.breakout {
            if !out.contains(&b.mode.speed) {
                out.push(b.mode.speed);
            }
        }
        out
    }

    /// The breakout fact of `mode`, when the platform has it.
    pub fn breakout(&self, mode: PortMode) -> Option<&Breakout> {
        self.ports.breakout.iter().find(|b| b.mode == mode)
    }

    /// The modes a port runs in, native speeds first, as `1x800G, 2x400G, ...` for messages.
    pub fn modes_text(&self) -> String {
        let native = self
            .ports
            .speeds
            .iter()
            .map(|&speed| PortMode { children: 1, speed });
        native
            .chain(self.ports.breakout.iter().map(|b| b.mode))
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Problems of the breakout facts: modes that do not divide the lanes or the native speed, keywords
    /// that could break a config line, a missing child naming pattern.
    fn breakout_problems(&self) -> Vec<String> {
        let p = &self.ports;
        let mut out = Vec::new();
        if p.breakout.is_empty() {
            return out;
        }
        let native = p.speeds.first().map_or(0, |s| s.gbps());
        let lanes = p.lanes.unwrap_or(0);
        if lanes == 0 {
            out.push("breakout needs `ports.lanes`".into());
        }
        if self.sonic.is_none()
            && !p.child_naming.contains("{child}")
            && !p.child_naming.contains("{lane}")
        {
            out.push("breakout needs a `child_naming` pattern with {child} or {lane}".into());
        }
        if let Some(sku) = &self.sonic {
            if sku
                .default_brkout_mode
                .as_deref()
                .is_none_or(|m| !keyword_ok(m))
            {
                out.push("breakout needs `sonic.default_brkout_mode` (hwsku.json), letters, digits, `-[],`".into());
            }
            let alias_ok = |c: char| c.is_ascii_alphanumeric() || "{}/_-".contains(c);
            if sku.child_alias.is_empty() || !sku.child_alias.chars().all(alias_ok) {
                out.push(
                    "breakout needs `sonic.child_alias`: letters, digits, `/_-` and placeholders"
                        .into(),
                );
            }
            for b in &p.breakout {
                let bad = (1..=p.count).find(|&port| {
                    (1..=b.mode.children).any(|c| sku.child(port, c, b.mode.children).is_none())
                });
                if let Some(port) = bad {
                    out.push(format!(
                        "breakout {}: port {port}'s row does not split into its ports",
                        b.mode
                    ));
                }
            }
        }
        for b in &p.breakout {
            let m = b.mode;
            if m.children < 2
                || m.children * m.speed.gbps() > native
                || (lanes > 0 && !lanes.is_multiple_of(m.children))
            {
                out.push(format!(
                    "breakout {m}: needs 2+ ports that divide the {lanes} lanes and fit the native {native}G"
                ));
            }
            if !keyword_ok(&b.keyword) {
                out.push(format!(
                    "breakout {m}: keyword {:?}: only letters, digits and `-[],`",
                    b.keyword
                ));
            }
        }
        out
    }

    /// `pattern` with its placeholders filled for port `port` in one pass: `{port}`, and `{card}` and
    /// `{card_port}` on a modular platform; with `child` = (child, lane) also `{child}` and `{lane}`.
    /// Any other brace, and a placeholder the platform does not fill, stays as written. (Names for
    /// every port of every platform a fabric uses are spelled at each start: one pass and one string
    /// each, instead of a string per placeholder.)
    fn spell(&self, pattern: &str, port: u32, child: Option<(u32, u32)>) -> String {
        let p = &self.ports;
        let card = p.ports_per_card.map(|ppc| {
            (
                (port - 1) / ppc + p.first_card.unwrap_or(1),
                (port - 1) % ppc + 1,
            )
        });
        let mut out = String::with_capacity(pattern.len() + 8);
        let mut rest = pattern;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let value = [
                ("{port}", Some(port)),
                ("{card}", card.map(|c| c.0)),
                ("{card_port}", card.map(|c| c.1)),
                ("{child}", child.map(|c| c.0)),
                ("{lane}", child.map(|c| c.1)),
            ]
            .into_iter()
            .find_map(|(key, v)| Some((key.len(), v?)).filter(|_| rest.starts_with(key)));
            match value {
                Some((len, v)) => {
                    crate::spell::push_decimal(&mut out, u64::from(v));
                    rest = &rest[len..];
                }
                None => {
                    out.push('{');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Whether a breakout keyword is safe in a config line: letters, digits and `-[],` (SONiC modes such
/// as `2x200G[100G,40G]`), at most 64 characters (sonic-breakout_cfg.yang).
fn keyword_ok(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 64
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-[],".contains(c))
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

    /// The names as they were spelled before [`super::Platform::spell`]: one `replace` per
    /// placeholder, in order.
    fn replaced(
        p: &super::Platform,
        pattern: &str,
        port: u32,
        child: Option<(u32, u32)>,
    ) -> String {
        let mut s = pattern.replace("{port}", &port.to_string());
        if let Some(ppc) = p.ports.ports_per_card {
            s = s
                .replace(
                    "{card}",
                    &((port - 1) / ppc + p.ports.first_card.unwrap_or(1)).to_string(),
                )
                .replace("{card_port}", &((port - 1) % ppc + 1).to_string());
        }
        match child {
            Some((c, lane)) => s
                .replace("{child}", &c.to_string())
                .replace("{lane}", &lane.to_string()),
            None => s,
        }
    }

    /// Every port and breakout child of every built-in platform, and patterns with stray braces and
    /// placeholders the platform does not fill, are spelled in one pass exactly as the `replace`
    /// chain spelled them; a SONiC child's name is the name of its whole row.
    #[test]
    fn one_pass_names_are_the_replaced_names() {
        let odd = [
            "{port",
            "x{}{port}}{{card}",
            "{lane}{child}{card_port}{other}",
            "",
            "{",
        ];
        for (name, entry) in &Catalog::builtin().platforms {
            let p = &entry.1;
            let patterns = [p.ports.naming.as_str(), p.ports.child_naming.as_str()];
            for port in 1..=p.ports.count {
                for pattern in patterns.iter().copied().chain(odd) {
                    for child in [None, Some((1, 1)), Some((2, 5)), Some((8, 8))] {
                        assert_eq!(
                            p.spell(pattern, port, child),
                            replaced(p, pattern, port, child),
                            "{name} port {port} {pattern:?} {child:?}"
                        );
                    }
                }
                let Some(s) = &p.sonic else { continue };
                for children in [2, 3, 4, 8] {
                    for c in 0..=children + 1 {
                        assert_eq!(
                            s.child_name(port, c, children),
                            s.child(port, c, children).map(|r| r.name),
                            "{name} port {port} child {c}/{children}"
                        );
                    }
                }
            }
        }
    }

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
