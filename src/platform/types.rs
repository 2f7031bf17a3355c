//! The platform profile's types: one `vendors/<os>.yaml` file ([`VendorFile`]), the files rendered per
//! device ([`OutputSpec`]), and the facts of one switch model ([`Platform`]) with their parts. The
//! JSON Schema of a platform file is generated from these types ([`super::schema_json`]).

use super::explained::ChangeSections;
use super::owned::{ConfigDbOwnership, OwnedSections};
use super::release;
use super::sonic::SonicFacts;
use crate::kinds::{DlbMode, Os, QpHashMethod, Support};
use crate::units::{PortMode, Size, Speed};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// The CONFIG_DB tables aifab owns (SONiC): what `aifab drift` compares of a running config_db
    /// (docs/push.md#sonic). A site file's tables are added to the built-in ones.
    #[serde(default, skip_serializing_if = "ConfigDbOwnership::is_empty")]
    pub config_db: ConfigDbOwnership,
    /// The config sections (CLI first lines, config_db tables) each change-report rule explains, by
    /// rule id: `CHG-CONFIG` names every changed section no rule that fired on the switch explains
    /// (docs/change-report.md, CHG-CONFIG). A site file's patterns are added to the built-in ones.
    #[serde(default, skip_serializing_if = "ChangeSections::is_empty")]
    pub change_sections: ChangeSections,
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
    pub fn producer(&self) -> Result<Producer<'_>, super::error::OutputError> {
        match (&self.template, self.builder, self.context) {
            (Some(t), None, Some(c)) => Ok(Producer::Template(t, c)),
            (Some(_), None, None) => Err(super::error::OutputError::NoContext(self.file.clone())),
            (None, Some(b), None) => Ok(Producer::Builder(b)),
            (None, Some(_), Some(_)) => Err(super::error::OutputError::ContextWithBuilder(
                self.file.clone(),
            )),
            _ => Err(super::error::OutputError::NotOne(self.file.clone())),
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

impl EcnUnit {
    /// `bytes` in this unit, or why it is not a whole number of them (the compiler refuses such a
    /// threshold, located: `AIF-QOS-020`).
    pub fn exact(&self, bytes: u64) -> Result<u64, crate::units::UnitError> {
        crate::units::Size(bytes).in_unit(self.bytes, &self.keyword)
    }

    /// `bytes` in this unit, for a threshold the compiler already found exact ([`EcnUnit::exact`]):
    /// the per-OS layer's conversion.
    pub fn count(&self, bytes: u64) -> u64 {
        bytes / self.bytes.max(1)
    }
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
