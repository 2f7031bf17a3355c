//! The rule registry: every rule aifab can report, with its stable id, severity, stage and one-line
//! summary. This table is the one place a rule is declared.
//!
//! A [`Finding`](crate::diag::Finding) is made from a [`Rule`] (`Finding::new(Rule::EcnMinNotBelowMax,
//! ...)`), so a misspelt rule does not compile and a finding's severity is the registry's. The SARIF
//! rule descriptions, the rule index of `docs/checks.md` ([`markdown_index`]), the load and schema table
//! of `docs/intent-reference.md` and the coverage test `tests/it/checks.rs` all read this table.
//!
//! To add a rule: add a line below (its place sets its order in the docs index), report it with
//! `Finding::new(Rule::YourRule, ...)`, and give it a `## <id> — <summary>` section in `docs/checks.md` and
//! a `tests/bad_checks/<id>.yaml` (the coverage test names whatever is missing; run it with
//! `AIFAB_BLESS=1` to rewrite the index).

use serde::Serialize;
use std::fmt;

/// How serious a finding of a rule is (the registry gives each rule one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The intent is rejected.
    Error,
    /// Rendered anyway; the operator should read it.
    Warning,
}

/// The pipeline stage that reports a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Reading the file and parsing YAML (`src/load`).
    Load,
    /// JSON Schema validation (`src/validate`).
    Schema,
    /// Semantic rules on the parsed intent (`src/check`).
    Checks,
    /// Fabric arithmetic, names and platform support while placing and compiling (`src/place`,
    /// `src/compile`, `src/pipeline.rs`).
    Compile,
    /// Reading and checking the allocation lock beside the intent (`src/lock`; docs/lock.md).
    Lock,
}

impl Stage {
    /// The stage as the docs name it (`load`, `schema`, `checks`, `compile`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Load => "load",
            Stage::Schema => "schema",
            Stage::Checks => "checks",
            Stage::Compile => "compile",
            Stage::Lock => "lock",
        }
    }
}

/// Declares [`Rule`] and its table from one list: `Variant = ("AIF-XXX-NNN", severity, stage, "summary")`,
/// with a trailing `acknowledgeable` for an error an `acknowledge` entry may cover.
macro_rules! rules {
    (@ack acknowledgeable) => { true };
    (@ack) => { false };
    ($($name:ident = ($id:literal, $severity:ident, $stage:ident, $summary:literal $(, $ack:ident)?),)*) => {
        /// A rule aifab reports. Its id, severity, stage and summary are in the registry ([`Rule::id`],
        /// [`Rule::severity`], ...).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(
                #[doc = concat!("`", $id, "`: ", $summary, ".")]
                $name,
            )*
        }

        impl Rule {
            /// Every rule, in registry order (load, schema, then by family).
            pub const ALL: &[Rule] = &[$(Rule::$name),*];

            /// The stable id (`AIF-QOS-001`).
            pub const fn id(self) -> &'static str {
                match self { $(Rule::$name => $id,)* }
            }
            /// Error (the intent is rejected) or warning (it renders; the operator should read it).
            pub const fn severity(self) -> Severity {
                match self { $(Rule::$name => Severity::$severity,)* }
            }
            /// True for an error the intent may accept under `acknowledge` (a combination that
            /// drops part of the intent, which the operator may knowingly take).
            pub const fn acknowledgeable(self) -> bool {
                match self { $(Rule::$name => rules!(@ack $($ack)?),)* }
            }
            /// The stage that reports it.
            pub const fn stage(self) -> Stage {
                match self { $(Rule::$name => Stage::$stage,)* }
            }
            /// What the rule asks, in one line (the docs index, headings and SARIF descriptions).
            pub const fn summary(self) -> &'static str {
                match self { $(Rule::$name => $summary,)* }
            }
        }
    };
}

rules! {
    YamlSyntax = ("AIF-YAML-001", Error, Load, "YAML syntax error"),
    YamlDuplicateKey = ("AIF-YAML-002", Error, Load, "Duplicate key in a mapping (the first value is kept and checked)"),
    YamlNonStringKey = ("AIF-YAML-003", Error, Load, "Mapping key that is not a string (number, boolean, null, list or mapping)"),
    YamlAliasLimit = ("AIF-YAML-004", Error, Load, "Aliases expand to more than 10,000 nodes, or an alias is recursive"),
    YamlFileTooLarge = ("AIF-YAML-005", Error, Load, "File larger than 4 MiB"),
    YamlMultipleDocuments = ("AIF-YAML-006", Error, Load, "More than one YAML document in the file"),
    YamlTag = ("AIF-YAML-007", Error, Load, "Explicit YAML tag such as `!!binary`"),
    YamlTooDeep = ("AIF-YAML-008", Error, Load, "Nesting deeper than 64 levels"),
    YamlNotUtf8 = ("AIF-YAML-009", Error, Load, "File is not valid UTF-8"),
    YamlTooMany = ("AIF-YAML-010", Error, Load, "Too many YAML problems; the rest are not shown"),

    SchemaUnknownKey = ("AIF-SCHEMA-001", Error, Schema, "Unknown key (the hint names the closest valid key)"),
    SchemaMissingKey = ("AIF-SCHEMA-002", Error, Schema, "Missing required key"),
    SchemaWrongType = ("AIF-SCHEMA-003", Error, Schema, "Value of the wrong type (a boolean or a quoted string where a number is wanted, ...)"),
    SchemaOutOfRange = ("AIF-SCHEMA-004", Error, Schema, "Number out of range"),
    SchemaBadFormat = ("AIF-SCHEMA-005", Error, Schema, "Value in the wrong format (a size, duration, speed, prefix, pattern, ...)"),
    SchemaNotAllowed = ("AIF-SCHEMA-006", Error, Schema, "Value that is not one of the allowed choices"),
    SchemaBadName = ("AIF-SCHEMA-007", Error, Schema, "Name (a traffic class name, ...) that breaks the naming rule"),
    SchemaOther = ("AIF-SCHEMA-008", Error, Schema, "Other schema violation"),
    SchemaBadValue = ("AIF-SCHEMA-009", Error, Schema, "Value the schema accepts but that cannot be read (host bits set, reversed range, ...)"),
    SchemaTooMany = ("AIF-SCHEMA-010", Error, Schema, "Too many schema problems; the rest are not shown"),

    EcnMinNotBelowMax = ("AIF-QOS-001", Error, Checks, "ECN minimum threshold must be below the maximum"),
    EcnMaxOverBuffer = ("AIF-QOS-002", Error, Checks, "ECN maximum must fit in the platform's packet buffer"),
    EcnProbabilityZero = ("AIF-QOS-003", Error, Checks, "ECN marking probability must be 1-100%"),
    DscpInTwoClasses = ("AIF-QOS-004", Error, Checks, "A DSCP value belongs to one class only"),
    PriorityInTwoClasses = ("AIF-QOS-005", Error, Checks, "A priority belongs to one class only"),
    EmptyDscpList = ("AIF-QOS-006", Error, Checks, "A `dscp` list must not be empty"),
    DefaultClassCount = ("AIF-QOS-007", Error, Checks, "Exactly one class is the default class (no `dscp`)"),
    TooManyLosslessClasses = ("AIF-QOS-008", Error, Checks, "Lossless classes must not exceed the platform's maximum"),
    LosslessStrict = ("AIF-QOS-009", Error, Checks, "A lossless class is never strict"),
    CnpCtsNotStrict = ("AIF-QOS-010", Error, Checks, "The CNP and CTS classes must be strict"),
    EcnWithoutCnp = ("AIF-QOS-011", Error, Checks, "A lossless class with ECN needs a CNP class"),
    LosslessWithoutEcn = ("AIF-QOS-012", Warning, Checks, "A lossless class should have ECN"),
    BandwidthSum = ("AIF-QOS-013", Error, Checks, "Bandwidth shares of non-strict classes sum to 100%"),
    StrictWithBandwidth = ("AIF-QOS-014", Error, Checks, "A strict class takes no bandwidth share"),
    NoBandwidthShare = ("AIF-QOS-015", Error, Checks, "A non-strict class needs a bandwidth share"),
    ReservedTrafficClass = ("AIF-QOS-016", Error, Checks, "A class must not use a traffic class the platform reserves"),
    LosslessDefaultClass = ("AIF-QOS-017", Error, Checks, "The default class is never lossless"),
    DscpWithoutPriority = ("AIF-QOS-018", Error, Checks, "A class with DSCPs needs a priority"),
    EcnThresholdInexact = ("AIF-QOS-020", Error, Compile, "ECN thresholds must be exact in the platform's unit"),
    StrictQueuesNotTop = ("AIF-QOS-021", Error, Compile, "Strict queues must fit on the top queues where the platform puts them there"),
    StrictWithoutRateLimit = ("AIF-QOS-022", Warning, Checks, "A strict class should have a rate limit"),
    RateLimitNotStrict = ("AIF-QOS-023", Error, Checks, "A rate limit belongs to a strict class and is 1-100%"),

    LosslessWithoutWatchdog = ("AIF-PFC-001", Error, Checks, "Lossless classes need the PFC watchdog"),
    WatchdogSonic = ("AIF-PFC-002", Error, Checks, "SONiC watchdog: detection 100-5000 ms, restoration 100-60000 ms"),
    WatchdogNxos = ("AIF-PFC-003", Error, Checks, "NX-OS watchdog: 1-10 (detect) and 1-100 (restore) multiples of one 100-1000 ms interval"),
    WatchdogEos = ("AIF-PFC-004", Error, Checks, "EOS watchdog: 0.01-60 s in steps of 10 ms"),
    NoLosslessClass = ("AIF-PFC-005", Warning, Checks, "A fabric without lossless classes"),
    LosslessWithoutSkuBuffers = ("AIF-PFC-006", Error, Checks, "Lossless classes need the SONiC SKU's sourced buffer numbers"),
    WatchdogActionUnsupported = ("AIF-PFC-007", Error, Checks, "The watchdog action is one every OS of the fabric renders (NX-OS has no `alert`)"),
    WatchdogNotWholeMs = ("AIF-PFC-010", Error, Compile, "Watchdog timers are whole milliseconds"),
    WatchdogNoPollInterval = ("AIF-PFC-011", Error, Compile, "Watchdog timers need a common 100-1000 ms poll interval"),

    MtuBelowRoce = ("AIF-MTU-001", Error, Checks, "MTU must carry RoCE's 4096-byte path MTU plus headers"),
    MtuAbovePlatform = ("AIF-MTU-002", Error, Checks, "MTU must not exceed any platform's maximum"),

    LeafAsnsTooFew = ("AIF-BGP-001", Error, Compile, "The leaf ASN range needs one ASN per leaf"),
    SpineAsnsTooFew = ("AIF-BGP-002", Error, Compile, "A three-tier fabric needs one spine ASN per zone"),
    SuperSpineAsnMissing = ("AIF-BGP-003", Error, Compile, "A three-tier fabric needs `super_spine_asn`"),
    PublicAsn = ("AIF-BGP-004", Warning, Checks, "ASNs outside the private ranges"),
    AsnOverlap = ("AIF-BGP-005", Error, Checks, "Leaf, spine and super-spine ASNs must not overlap"),
    ReservedAsn = ("AIF-BGP-006", Error, Checks, "ASN ranges must not reach reserved ASNs"),
    MaximumPathsBelowEcmp = ("AIF-BGP-007", Error, Checks, "`maximum_paths` must cover every uplink"),
    SonicMaxPathsBelowEcmp = ("AIF-BGP-008", Error, Checks, "A SONiC switch's ECMP width must not exceed its release's BGP maximum-paths"),

    DlbModeUnsupported = ("AIF-LB-001", Error, Compile, "DLB mode the platform does not support"),
    DlbMacMissing = ("AIF-LB-002", Error, Compile, "NX-OS DLB needs a DLB virtual MAC"),
    QpHashUnsupported = ("AIF-LB-003", Error, Compile, "QP hashing on a platform that cannot do it"),
    DlbMacNotUnicast = ("AIF-LB-004", Error, Checks, "The DLB MAC must be a unicast, non-zero address"),
    DlbBypassesEgressQos = ("AIF-LB-005", Error, Checks, "DLB on a platform that does not apply egress QoS to DLB flows (acknowledgeable)", acknowledgeable),
    DlbNeedsReload = ("AIF-LB-006", Warning, Checks, "NX-OS `hardware profile dlb` needs a reload"),
    QpHashReplacesL4Ports = ("AIF-LB-007", Error, Checks, "QP hashing that replaces L4-port hashing for all IPv4 traffic (acknowledgeable)", acknowledgeable),
    DlbNoEffect = ("AIF-LB-008", Warning, Checks, "DLB settings that have no effect"),
    DlbMacNotAccepted = ("AIF-LB-009", Error, Compile, "A DLB next-hop MAC that a neighbour cannot accept (acknowledgeable)", acknowledgeable),

    AckUnknownRule = ("AIF-ACK-001", Error, Checks, "`acknowledge` names a rule that does not exist or cannot be acknowledged"),
    AckDuplicate = ("AIF-ACK-002", Error, Checks, "The same rule acknowledged twice in one list"),
    OsVersionFormat = ("AIF-OS-001", Error, Checks, "`os_version` must be a release of the device's OS (`10.5(1)F`, `4.33.1F`, `202405`)"),
    FeatureNeedsRelease = ("AIF-OS-002", Error, Checks, "A rendered feature needs an OS release at least its minimum"),

    Acknowledged = ("AIF-ACK-003", Warning, Compile, "An acknowledged exception: the rule, its reason and the devices it covers"),

    CableNeedsPauseBuffer = ("AIF-CAB-001", Error, Checks, "NX-OS cables over 100 m need PFC pause-buffer settings aifab has no numbers for"),
    CableBeyondHeadroomTable = ("AIF-CAB-002", Error, Checks, "SONiC cable longer than the SKU's headroom table"),

    TierShape = ("AIF-FAB-001", Error, Compile, "Zones and super-spines belong to three-tier fabrics (and they need both)"),
    GroupsSplitZones = ("AIF-FAB-002", Error, Compile, "Groups must split evenly into zones"),
    OversubscriptionUplinks = ("AIF-FAB-003", Error, Compile, "Oversubscription must give a whole number of uplinks"),
    UplinksUneven = ("AIF-FAB-004", Error, Compile, "Uplinks must spread evenly over the tier above"),
    PlanesDivide = ("AIF-FAB-005", Error, Compile, "Planes must divide the spines per zone and the super-spines"),
    FabricTooLarge = ("AIF-FAB-006", Error, Compile, "The fabric is within aifab's size limits"),
    HomingNicPorts = ("AIF-FAB-007", Error, Compile, "Two-port NICs say where their ports home, and only they do"),
    LeafPlanesDivide = ("AIF-FAB-008", Error, Compile, "Leaf planes divide the spines of a zone and the super-spine planes"),
    PartialLastGroup = ("AIF-FAB-009", Warning, Compile, "The last group is short of servers but gets whole leaves"),
    PlatformPorts = ("AIF-FAB-010", Error, Compile, "The platform has too few ports, or the wrong speed"),
    PortModeMissing = ("AIF-FAB-011", Error, Compile, "Every link speed has a port mode on the platform"),

    PoolNotIpv4 = ("AIF-ADDR-001", Error, Compile, "Pools are IPv4"),
    PoolTooSmall = ("AIF-ADDR-002", Error, Compile, "A pool is too small"),
    PoolsOverlap = ("AIF-ADDR-003", Error, Compile, "Pools must not overlap"),
    ManagementOutsideSubnet = ("AIF-ADDR-004", Error, Compile, "Management addresses must stay inside the management subnet"),
    ManagementOverrideNeedsSubnet = ("AIF-ADDR-005", Error, Compile, "A management override needs `fabric.management`"),
    ManagementCollision = ("AIF-ADDR-006", Error, Compile, "Management addresses are unique and differ from the gateway"),
    ManagementInPools = ("AIF-ADDR-007", Error, Checks, "Management addresses stay out of the fabric and server pools"),
    ServiceInPools = ("AIF-ADDR-008", Error, Checks, "NTP, syslog, DNS and AAA servers stay out of the fabric and server pools"),

    PasswordNotHashed = ("AIF-BASE-001", Error, Checks, "Local user passwords are sha512-crypt hashes (`$6$...`), never clear text"),
    BannerLineUnsafe = ("AIF-BASE-002", Error, Checks, "Banner lines are printable ASCII that can neither end the banner nor start a command"),
    NoLocalAdmin = ("AIF-BASE-003", Error, Checks, "A baseline has a local `admin` user, the fallback when AAA does not answer"),
    EnvSecretUnusable = ("AIF-BASE-004", Error, Compile, "A secret read from the environment is set, and safe in a config, when `aifab render --out` runs"),
    TransportOff = ("AIF-BASE-005", Error, Checks, "The access Ansible pushes over (SSH, or the HTTPS API for httpapi) stays on in the baseline"),
    NoBaseline = ("AIF-BASE-006", Warning, Checks, "An intent without a `baseline`: a full-replace push removes every user, AAA and access setting"),
    PlaceholderOutsideSecret = ("AIF-BASE-007", Error, Checks, "A secret's placeholder stands only in a secret field, never in a banner, description or other text"),
    BaselineDuplicate = ("AIF-BASE-008", Error, Checks, "A baseline names each server and user once"),
    NoManagement = ("AIF-BASE-009", Warning, Checks, "An intent without `fabric.management`: a full-replace push removes the switch's management SSH and API settings"),

    SiteLineUnsafe = ("AIF-SITE-001", Error, Checks, "Site lines are printable lines a CLI OS takes, outside the sections aifab renders itself"),
    SiteAccessUnproven = ("AIF-SITE-002", Warning, Checks, "A login ACL in site lines is one aifab can prove admits the management network"),

    HostnameNotLabel = ("AIF-NAME-001", Error, Compile, "Switch hostnames are RFC 1123 labels"),
    HostnameDuplicate = ("AIF-NAME-002", Error, Compile, "Switch hostnames are unique"),
    ServerNameUnsafe = ("AIF-NAME-003", Error, Compile, "Server hostnames and NIC names are safe tokens"),
    NicPortNames = ("AIF-NAME-004", Error, Compile, "Two-port NICs name each port (`{port}`)"),

    OverrideBadGlob = ("AIF-OVR-001", Error, Compile, "An override `match` must be a valid glob"),
    OverrideMatchesNothing = ("AIF-OVR-002", Error, Compile, "An override must match a device"),

    UnknownPlatform = ("AIF-PLAT-001", Error, Compile, "The platform must be in `vendors/`"),

    HostDataClass = ("AIF-HOST-001", Error, Checks, "NCCL's data class is a lossless class"),
    HostCtsClass = ("AIF-HOST-002", Error, Checks, "A CTS class needs its host traffic class (NCCL_IB_FIFO_TC)"),
    HostCnpClass = ("AIF-HOST-003", Error, Checks, "DCQCN needs the class the NICs send CNPs in"),
    HostNames = ("AIF-HOST-004", Error, Compile, "Host files need lower-case server names and Linux NIC names"),
    HostRouteTables = ("AIF-HOST-005", Error, Checks, "The rails' routing tables avoid the kernel's tables"),
    HostPortResources = ("AIF-HOST-006", Error, Checks, "Each rail and NIC port needs its own RDMA resource"),
    HostHcaNames = ("AIF-HOST-007", Error, Checks, "NCCL's RDMA devices are one per NIC port, each a device name"),
    HostPodAddresses = ("AIF-HOST-008", Error, Compile, "Each leaf's Spiderpool pool has a pod address for every NIC port on it"),

    Unverified = ("AIF-UNV-001", Warning, Compile, "Unverified syntax or assumed facts in the rendered config"),

    ValleyPath = ("AIF-ROUTE-001", Error, Compile, "Every path BGP selects goes up and then down, with every link up and after any single failure (no PFC deadlock)"),
    MixedUpperAsns = ("AIF-ROUTE-002", Warning, Compile, "The switches above each switch share one ASN, so no link failure can turn traffic up again"),
    LeafUnreachable = ("AIF-ROUTE-003", Error, Compile, "Every leaf has a route to every other leaf's servers, with every link up and after any single failure"),
    LoopbackUnreachable = ("AIF-ROUTE-004", Warning, Compile, "Every leaf has a route to the loopback of every spine and super-spine the cabling joins it to, with every link up"),
    RoutingUncovered = ("AIF-ROUTE-005", Error, Compile, "The routing analysis computes every (leaf, failure) case and every choice of equal paths, or the plan is refused (acknowledgeable)", acknowledgeable),

    LockSchema = ("AIF-LOCK-001", Error, Lock, "The lock file follows the lock schema (`aifab schema --lock`)"),
    LockBadValue = ("AIF-LOCK-002", Error, Lock, "Lock entries hold well-formed /31s, subnets and port numbers"),
    LockCollision = ("AIF-LOCK-003", Error, Lock, "No name, address, leaf ASN or port is held twice in the lock"),
    LockOutOfPool = ("AIF-LOCK-004", Error, Lock, "Lock addresses and ASNs stay inside the intent's pools and ranges"),
    LockNeedsFullRender = ("AIF-LOCK-005", Error, Lock, "`--only` needs a lock that already holds every cable it renders"),
    LockNotWhole = ("AIF-LOCK-006", Error, Lock, "A lock is whole: no entry lost or deleted, not cut short, not behind the output rendered with it or its own history"),
}

/// Ids of rules aifab no longer reports or never issued, with what became of each. An id is never
/// given to another rule: a pipeline or an `acknowledge` entry that names it must not silently mean
/// something else. A family's numbers, live and retired, run from 001 without a hole, so a new rule
/// takes the next number (the registry's tests fail on a skipped, reused or retired one).
/// `tests/rule-ids.txt` lists every id ever issued; its test fails when one leaves the registry
/// without being listed here.
pub const RETIRED: &[(&str, &str)] = &[
    (
        "AIF-QOS-019",
        "Never issued: the compiler's first QoS rule took AIF-QOS-020 while the checks ended at AIF-QOS-018, and 019 was skipped",
    ),
    (
        "AIF-PFC-008",
        "Never issued: the compiler's watchdog rules took AIF-PFC-010 and 011 while the checks ended at AIF-PFC-005, and 008 was left between AIF-PFC-007 and 010",
    ),
    (
        "AIF-PFC-009",
        "Never issued: left between AIF-PFC-007 and AIF-PFC-010 as 008 was",
    ),
];

impl Rule {
    /// What became of a retired id (`AIF-QOS-019`), if it is one ([`RETIRED`]).
    pub fn retired(id: &str) -> Option<&'static str> {
        RETIRED.iter().find(|(r, _)| *r == id).map(|(_, why)| *why)
    }

    /// The rule with this id (`AIF-QOS-001`), if there is one.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }

    /// Whether `docs/checks.md` has a section for it (the semantic and compile rules; load and schema
    /// rules are described in `docs/intent-reference.md`).
    pub fn has_section(self) -> bool {
        matches!(self.stage(), Stage::Checks | Stage::Compile)
    }

    /// The heading of its section in `docs/checks.md`: `AIF-QOS-001 — <summary>`.
    pub fn heading(self) -> String {
        format!("{} — {}", self.id(), self.summary())
    }

    /// The anchor of its section in `docs/checks.md` (GitHub's heading slug), when it has one.
    pub fn anchor(self) -> Option<String> {
        self.has_section().then(|| slug(&self.heading()))
    }
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a `-` (the docs
/// link checks use it too).
pub fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> serde::Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rule, D::Error> {
        let id = String::deserialize(d)?;
        Rule::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("no rule `{id}`")))
    }
}

impl schemars::JsonSchema for Rule {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rule".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        schemars::json_schema!({
            "description": "A rule id of the registry (`AIF-PFC-002`).",
            "type": "string",
            "enum": ids,
        })
    }
}

/// The rule index of `docs/checks.md`: a Markdown table of every rule (id linked to its section, severity,
/// stage, summary), ending with a newline.
pub fn markdown_index() -> String {
    let mut out = String::from(
        "| Rule | Severity | Stage | Summary |\n|------|----------|-------|---------|\n",
    );
    for r in Rule::ALL {
        let id = match r.anchor() {
            Some(a) => format!("[{}](#{a})", r.id()),
            None => r.id().to_string(),
        };
        let severity = match r.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.push_str(&format!(
            "| {id} | {severity} | {} | {} |\n",
            r.stage().name(),
            r.summary().replace('|', "\\|")
        ));
    }
    for (id, why) in RETIRED {
        out.push_str(&format!(
            "| {id} | retired | | {} |\n",
            why.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// What is wrong with a registry's numbering: an id twice, a retired id reused, or a family's numbers
    /// (live and retired) with a hole, so that a new rule skipped a number or one left unreserved.
    fn numbering_problems(live: &[&str], retired: &[&str]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut families: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for id in live.iter().chain(retired) {
            if !seen.insert(*id) {
                let what = match retired.contains(id) {
                    true => "is retired and must not be reused: give the rule the next free number",
                    false => "is declared twice",
                };
                problems.push(format!("{id} {what}"));
            }
            let parsed = id
                .strip_prefix("AIF-")
                .and_then(|rest| rest.split_once('-'))
                .and_then(|(family, n)| Some((family, n.parse::<u32>().ok()?)));
            match parsed {
                Some((family, n)) => {
                    families.entry(family).or_default().insert(n);
                }
                None => problems.push(format!("{id}: not AIF-<FAMILY>-<NNN>")),
            }
        }
        for (family, numbers) in families {
            let top = numbers.last().copied().unwrap_or(0);
            let holes: Vec<String> = (1..top)
                .filter(|n| !numbers.contains(n))
                .map(|n| format!("AIF-{family}-{n:03}"))
                .collect();
            if !holes.is_empty() {
                problems.push(format!(
                    "{} neither in the registry nor in RETIRED (src/rules.rs): a new rule takes the next number of its family, and a removed one's id goes to RETIRED with the reason",
                    holes.join(", ")
                ));
            }
        }
        problems
    }

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        for r in Rule::ALL {
            let id = r.id();
            assert!(seen.insert(id), "{id} twice in the registry");
            let (family, number) = id
                .strip_prefix("AIF-")
                .and_then(|rest| rest.split_once('-'))
                .unwrap_or_else(|| panic!("{id}: not AIF-<FAMILY>-<NNN>"));
            assert!(family.bytes().all(|b| b.is_ascii_uppercase()), "{id}");
            assert!(
                number.len() == 3 && number.bytes().all(|b| b.is_ascii_digit()),
                "{id}"
            );
            assert_eq!(Rule::from_id(id), Some(*r));
            assert!(
                !r.summary().ends_with('.'),
                "{id}: a summary has no full stop"
            );
        }
        assert_eq!(Rule::from_id("AIF-QOS-999"), None);
        let live: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        let retired: Vec<&str> = RETIRED.iter().map(|(id, _)| *id).collect();
        assert_eq!(numbering_problems(&live, &retired), Vec::<String>::new());
        for (id, _) in RETIRED {
            assert_eq!(
                Rule::from_id(id),
                None,
                "{id} is retired and must not be reused"
            );
            assert!(Rule::retired(id).is_some());
        }
    }

    #[test]
    fn a_skipped_reused_or_retired_number_is_refused() {
        let live = ["AIF-QOS-001", "AIF-QOS-002", "AIF-QOS-004", "AIF-PFC-001"];
        assert_eq!(
            numbering_problems(&live, &[]),
            [
                "AIF-QOS-003 neither in the registry nor in RETIRED (src/rules.rs): a new rule takes the next number of its family, and a removed one's id goes to RETIRED with the reason"
            ]
        );
        assert!(numbering_problems(&live, &["AIF-QOS-003"]).is_empty());
        assert_eq!(
            numbering_problems(&live, &["AIF-QOS-003", "AIF-PFC-001"]),
            ["AIF-PFC-001 is retired and must not be reused: give the rule the next free number"]
        );
        assert_eq!(
            numbering_problems(&["AIF-BGP-001", "AIF-BGP-001"], &[]),
            ["AIF-BGP-001 is declared twice"]
        );
    }

    #[test]
    fn anchors_follow_github() {
        assert_eq!(
            Rule::EcnProbabilityZero.anchor().as_deref(),
            Some("aif-qos-003--ecn-marking-probability-must-be-1-100")
        );
        assert_eq!(
            Rule::ManagementOverrideNeedsSubnet.anchor().as_deref(),
            Some("aif-addr-005--a-management-override-needs-fabricmanagement")
        );
        assert_eq!(Rule::YamlSyntax.anchor(), None);
    }
}
