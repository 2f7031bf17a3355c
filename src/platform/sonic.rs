//! SONiC SKU facts: what one HWSKU folder of sonic-buildimage (`device/<vendor>/<platform>/<hwsku>/`)
//! says, copied into `vendors/sonic.yaml` with a source per fact: every row of its `port_config.ini`
//! (name, lanes, alias, index, speed, fec) and the buffer numbers of its `buffers_defaults_t0/t1.j2` and
//! `pg_profile_lookup.ini`. docs/platforms/sonic.md#platforms says which SKU has which.

use super::Os;
use super::release::Release;
use crate::units::Speed;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// SONiC SKU facts.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SonicFacts {
    /// DEVICE_METADATA `hwsku`: the SKU folder's name.
    pub hwsku: String,
    /// DEVICE_METADATA `platform`: the platform folder's name.
    pub platform: String,
    /// Every row of the SKU's `port_config.ini`, in file order. Front-panel port N of the profile
    /// (`ports.count` of them) is row N; rows past `ports.count` (management SFP ports) are never used.
    pub port_table: Vec<SonicPort>,
    /// FEC by port speed (Mbit/s) for rows without a `fec` column (SKUs whose `port_config.ini` has
    /// none), with its own source.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fec: BTreeMap<u64, Fec>,
    /// `hwsku.json` `default_brkout_mode` of the front-panel ports (`1x800G[400G]`): the BREAKOUT_CFG
    /// mode of every port that is not broken out, on a device where some are. Needed with
    /// `ports.breakout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_brkout_mode: Option<String>,
    /// Alias pattern of a broken-out port, as the platform's `platform.json` `breakout_modes` name
    /// them: `{alias}` (the parent's alias), `{letter}` (`a`, `b`, ... by child), `{index}` (the
    /// front-panel port), `{lane}` (the child's first lane, 1-based). Needed with `ports.breakout`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub child_alias: String,
    /// Per-SKU buffer tables, only from a sourced SKU folder. Without them aifab refuses lossless
    /// classes on the SKU (AIF-PFC-006).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffers: Option<SonicBuffers>,
    /// BGP `maximum-paths` of each SONiC release from which it holds, oldest first: the release's
    /// `constants.yml` `bgp.maximum_paths`, which bgpd.main.conf.j2 writes (config_db cannot set it in
    /// the separated routing mode). AIF-BGP-008 refuses an ECMP width above it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bgp_max_paths: Vec<MaxPaths>,
}

/// BGP `maximum-paths` from one SONiC release on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaxPaths {
    /// The first release with this value (`202505`).
    pub release: String,
    /// `maximum-paths` for eBGP and iBGP.
    pub paths: u32,
}

/// One row of a SKU's `port_config.ini`: a PORT entry's SKU-given fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SonicPort {
    /// Port name (`Ethernet0`).
    pub name: String,
    /// Serdes lanes, comma-separated as the file has them (`33,34,35,36,37,38,39,40`).
    pub lanes: String,
    /// Front-panel label (`etp1`, `fourhundredGigE1/1`).
    pub alias: String,
    /// Front-panel port (cage) number; breakout ports share their cage's.
    pub index: u16,
    /// Default speed, Mbit/s.
    pub speed: u64,
    /// The `fec` column, when the file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fec: Option<Fec>,
}

/// A PORT `fec` mode (sonic-port.yang: `rs|fc|none|auto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fec {
    /// Reed-Solomon (RS-FEC; RS(544,514) on PAM4 lanes).
    Rs,
    /// Fire code (BASE-R).
    Fc,
    /// No FEC.
    #[serde(rename = "none")]
    Off,
    /// Negotiated.
    Auto,
}

impl Fec {
    /// The value as config_db spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fec::Rs => "rs",
            Fec::Fc => "fc",
            Fec::Off => "none",
            Fec::Auto => "auto",
        }
    }
}

impl SonicFacts {
    /// The row of front-panel port `port` (1-based).
    pub fn port(&self, port: u32) -> Option<&SonicPort> {
        self.port_table
            .get(usize::try_from(port.checked_sub(1)?).ok()?)
    }

    /// The PORT row of child `child` (1-based) of front-panel port `port` broken out into `children`
    /// ports, derived as the platform's `platform.json` lists breakout ports: the parent's lanes split
    /// in order, name `Ethernet<parent + (child-1) x lanes/children>`, alias the parent's plus `a`, `b`,
    /// ..., the parent's index. Speed and FEC stay the parent's (the caller sets the child speed).
    /// None when the row is missing, its name is not `Ethernet<n>` or its lanes do not split evenly.
    pub fn child(&self, port: u32, child: u32, children: u32) -> Option<SonicPort> {
        let (row, per, k, base) = self.child_place(port, child, children)?;
        let lanes: Vec<&str> = row.lanes.split(',').collect();
        let letter = char::from(b'a' + u8::try_from(k).ok()?);
        let alias = self
            .child_alias
            .replace("{alias}", &row.alias)
            .replace("{letter}", &letter.to_string())
            .replace("{index}", &row.index.to_string())
            .replace("{lane}", &(k * per + 1).to_string());
        Some(SonicPort {
            name: child_port_name(base, k, per),
            lanes: lanes[k * per..(k + 1) * per].join(","),
            alias,
            index: row.index,
            speed: row.speed,
            fec: row.fec,
        })
    }

    /// PORT `subport` of the SKU's row `port` as SONiC's breakout code writes it (sonic-config-engine
    /// portconfig.py `BreakoutCfg.get_config`): 0 for a port that is its cage's only port, else its
    /// place (1-based) among the rows that share its cage's `index`. None for a SKU without breakout
    /// facts (`default_brkout_mode`), whose port_config.ini rows SONiC reads without one.
    pub fn subport(&self, port: u32) -> Option<u32> {
        self.default_brkout_mode.as_ref()?;
        let i = usize::try_from(port.checked_sub(1)?).ok()?;
        let row = self.port_table.get(i)?;
        let cage: Vec<usize> = (0..self.port_table.len())
            .filter(|&j| self.port_table[j].index == row.index)
            .collect();
        match cage.len() {
            1 => Some(0),
            _ => u32::try_from(cage.iter().position(|&j| j == i)? + 1).ok(),
        }
    }

    /// Whether row `port` opens its cage: the first row with its `index`, the parent port BREAKOUT_CFG
    /// keys the cage by (platform.json names a cage by its first port).
    pub fn opens_cage(&self, port: u32) -> bool {
        let Some(i) = port.checked_sub(1).and_then(|p| usize::try_from(p).ok()) else {
            return false;
        };
        match (
            self.port_table.get(i),
            i.checked_sub(1).and_then(|j| self.port_table.get(j)),
        ) {
            (Some(row), Some(prev)) => row.index != prev.index,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// The name alone of [`SonicFacts::child`]'s row (interface names are spelled for every port at
    /// each start; the rest of the row only for the ports a device uses).
    pub fn child_name(&self, port: u32, child: u32, children: u32) -> Option<String> {
        let (_, per, k, base) = self.child_place(port, child, children)?;
        Some(child_port_name(base, k, per))
    }

    /// Where child `child` of `children` sits in port `port`'s row: the row, the lanes per child, the
    /// child's 0-based index and the parent's `Ethernet<n>` number. None as for [`SonicFacts::child`].
    fn child_place(
        &self,
        port: u32,
        child: u32,
        children: u32,
    ) -> Option<(&SonicPort, usize, usize, usize)> {
        let row = self.port(port)?;
        let lanes = row.lanes.split(',').count();
        let per = lanes / children as usize;
        if per == 0 || !lanes.is_multiple_of(children as usize) || child == 0 || child > children {
            return None;
        }
        let base: usize = row.name.strip_prefix("Ethernet")?.parse().ok()?;
        Some((row, per, (child - 1) as usize, base))
    }

    /// The FEC a row runs: its own column, else the SKU's FEC for its speed.
    pub fn fec_of(&self, row: &SonicPort) -> Option<Fec> {
        row.fec.or_else(|| self.fec.get(&row.speed).copied())
    }

    /// BGP `maximum-paths` on SONiC release `release` ([`SonicFacts::bgp_max_paths`]): the value of the
    /// newest entry not newer than it (the oldest entry for an older release). None without entries or
    /// for a release that does not parse.
    pub fn max_paths(&self, release: &str) -> Option<u32> {
        let have = Release::parse(Os::Sonic, release).ok()?;
        let mut out = self.bgp_max_paths.first()?.paths;
        for m in &self.bgp_max_paths {
            if Release::parse(Os::Sonic, &m.release).is_ok_and(|r| have.at_least(&r)) {
                out = m.paths;
            }
        }
        Some(out)
    }

    /// `bgp_max_paths` entries that are not SONiC releases, not oldest first, or of zero paths.
    fn max_paths_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut last: Option<Release> = None;
        for m in &self.bgp_max_paths {
            match Release::parse(Os::Sonic, &m.release) {
                Err(e) => out.push(format!("bgp_max_paths {}: {e}", m.release)),
                Ok(r) => {
                    if last.as_ref().is_some_and(|l| l.at_least(&r)) {
                        out.push(format!(
                            "bgp_max_paths {}: list releases oldest first",
                            m.release
                        ));
                    }
                    last = Some(r);
                }
            }
            if m.paths == 0 {
                out.push(format!("bgp_max_paths {}: at least 1 path", m.release));
            }
        }
        out
    }

    /// Consistency problems of the facts, for a platform with `count` front-panel ports at `speeds`.
    pub fn problems(&self, count: u32, speeds: &[Speed]) -> Vec<String> {
        let mut out = Vec::new();
        // HWSKU and platform are folder names; they reach DEVICE_METADATA and GENERATED.txt.
        for (field, v) in [("hwsku", &self.hwsku), ("platform", &self.platform)] {
            if v.is_empty()
                || !v
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            {
                out.push(format!(
                    "{field} {v:?}: only letters, digits, `.`, `_` and `-`"
                ));
            }
        }
        if self.port_table.len() < count as usize {
            out.push(format!(
                "sonic.port_table has {} rows for {count} ports: copy every row of the SKU's port_config.ini",
                self.port_table.len()
            ));
        }
        for (n, row) in self.port_table.iter().enumerate() {
            out.extend(
                row_problems(row)
                    .into_iter()
                    .map(|e| format!("port_table row {}: {e}", n + 1)),
            );
            if self.port_table[..n].iter().any(|r| r.name == row.name) {
                out.push(format!(
                    "port_table row {}: {} appears twice",
                    n + 1,
                    row.name
                ));
            }
        }
        if let Some(b) = &self.buffers {
            out.extend(b.problems());
        }
        out.extend(self.max_paths_problems());
        for (n, row) in self.port_table.iter().take(count as usize).enumerate() {
            if !speeds.iter().any(|s| s.mbps() == row.speed) {
                out.push(format!(
                    "port {} ({}) runs at {} Mbit/s, which `ports.speeds` lacks",
                    n + 1,
                    row.name,
                    row.speed
                ));
            }
            if self.fec_of(row).is_none() {
                out.push(format!(
                    "port {} ({}) has no FEC: its port_config.ini row has none, so `sonic.fec` needs one for {} Mbit/s",
                    n + 1,
                    row.name,
                    row.speed
                ));
            }
        }
        out
    }
}

/// What is wrong with one port-table row: a name that is unsafe in a config, lanes that are not a
/// comma-separated list of numbers.
fn row_problems(row: &SonicPort) -> Vec<String> {
    let mut out = Vec::new();
    if row.name.is_empty()
        || !row
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_-".contains(c))
    {
        out.push(format!(
            "name {:?}: only letters, digits, `/`, `_` and `-`",
            row.name
        ));
    }
    if row.lanes.split(',').any(|l| l.parse::<u32>().is_err()) {
        out.push(format!(
            "lanes {:?}: comma-separated numbers, no spaces",
            row.lanes
        ));
    }
    if row.alias.is_empty()
        || row.alias.len() > 128
        || !row.alias.chars().all(|c| c.is_ascii_graphic())
    {
        out.push(format!(
            "alias {:?}: 1 to 128 printable ASCII characters, no spaces",
            row.alias
        ));
    }
    out
}

/// Which of SONiC's two buffer models a SKU runs: DEVICE_METADATA `buffer_model`, which buffermgrd
/// reads when swss starts (docs/platforms/sonic.md#buffers).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum BufferModel {
    /// buffermgrd writes each lossless PG's headroom profile from the SKU's `pg_profile_lookup.ini`
    /// row of the port's speed and cable length; pools have fixed sizes (`buffers.json.j2`).
    #[default]
    Traditional,
    /// buffermgrd computes each lossless PG's headroom from the port's speed, cable length and MTU and
    /// the ASIC's parameters, and the pools without a size from what is left (`buffers_dynamic.json.j2`);
    /// a lossless PG names profile `NULL`.
    Dynamic,
}

impl BufferModel {
    /// True for the default model (kept out of serialized profiles).
    pub fn is_traditional(&self) -> bool {
        *self == BufferModel::Traditional
    }

    /// DEVICE_METADATA `buffer_model` as config_db spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            BufferModel::Traditional => "traditional",
            BufferModel::Dynamic => "dynamic",
        }
    }
}

/// Per-SKU buffer tables, copied from the SKU's `buffers_defaults_t0.j2` / `buffers_defaults_t1.j2`
/// (the files the DEVICE_METADATA types aifab writes select; `buffers_dynamic.json.j2` renders them in
/// the dynamic model) and `pg_profile_lookup.ini`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SonicBuffers {
    /// The buffer model the SKU runs (default `traditional`).
    #[serde(default, skip_serializing_if = "BufferModel::is_traditional")]
    pub model: BufferModel,
    /// BUFFER_POOL entries, by pool name, field to value.
    pub pools: BTreeMap<String, BTreeMap<String, String>>,
    /// BUFFER_PROFILE entries other than the lossless PG ones (lossy ingress, egress), by name.
    pub profiles: BTreeMap<String, BTreeMap<String, String>>,
    /// Profile for lossy ingress PG 0.
    pub ingress_lossy_profile: String,
    /// Profile for lossless egress queues.
    pub egress_lossless_profile: String,
    /// Profile for lossy egress queues.
    pub egress_lossy_profile: String,
    /// BUFFER_PORT_INGRESS_PROFILE_LIST `profile_list` of every used port, in the SKU's order
    /// (NVIDIA SKUs bind each port to its ingress pools this way); empty: no such table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ingress_profile_list: Vec<String>,
    /// BUFFER_PORT_EGRESS_PROFILE_LIST `profile_list` of every used port; empty: no such table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub egress_profile_list: Vec<String>,
    /// Dynamic model only: the parameters buffermgrd's headroom calculation reads from config_db.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<DynamicBuffers>,
    /// Rows of `pg_profile_lookup.ini`.
    pub pg_lookup: Vec<PgLookupRow>,
}

/// The config_db parameters of the dynamic buffer model, as the SKU's `buffers_dynamic.json.j2`
/// renders them (SONiC's `buffers_config.j2`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DynamicBuffers {
    /// DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE `default_dynamic_th` (the lossless profiles' threshold).
    pub default_dynamic_th: String,
    /// LOSSLESS_TRAFFIC_PATTERN|AZURE `mtu`: the packet size the headroom's cell occupancy assumes.
    pub traffic_mtu: String,
    /// LOSSLESS_TRAFFIC_PATTERN|AZURE `small_packet_percentage`.
    pub small_packet_percentage: String,
}

impl SonicBuffers {
    /// Consistency problems: profiles that name a missing pool, references to missing profiles, the
    /// dynamic parameters without the dynamic model (or the other way round), and names or values that
    /// could break a config (letters, digits, `_` and `-` only).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let word = |v: &str| {
            !v.is_empty()
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        let tables = [("pool", &self.pools), ("profile", &self.profiles)];
        for (kind, table) in tables {
            for (name, fields) in table {
                for (k, v) in std::iter::once((name, name)).chain(fields) {
                    if !word(k) || !word(v) {
                        out.push(format!(
                            "buffers {kind} {name}: {k:?} = {v:?}: letters, digits, `_` and `-` only"
                        ));
                    }
                }
            }
        }
        for (name, fields) in &self.profiles {
            match fields.get("pool") {
                Some(pool) if self.pools.contains_key(pool) => {}
                other => out.push(format!(
                    "buffers profile {name}: pool {other:?} is not in `pools`"
                )),
            }
        }
        let named = [
            (
                "ingress_lossy_profile",
                std::slice::from_ref(&self.ingress_lossy_profile),
            ),
            (
                "egress_lossless_profile",
                std::slice::from_ref(&self.egress_lossless_profile),
            ),
            (
                "egress_lossy_profile",
                std::slice::from_ref(&self.egress_lossy_profile),
            ),
            ("ingress_profile_list", &self.ingress_profile_list[..]),
            ("egress_profile_list", &self.egress_profile_list[..]),
        ];
        for (field, names) in named {
            for n in names.iter().filter(|n| !self.profiles.contains_key(*n)) {
                out.push(format!("buffers {field}: {n} is not in `profiles`"));
            }
        }
        if (self.model == BufferModel::Dynamic) != self.dynamic.is_some() {
            out.push(
                "buffers: `dynamic` parameters go with `model: dynamic`, and only with it".into(),
            );
        }
        if let Some(d) = &self.dynamic {
            let num = |v: &str| v.parse::<i64>().is_ok();
            let values = [
                &d.default_dynamic_th,
                &d.traffic_mtu,
                &d.small_packet_percentage,
            ];
            if !values.iter().all(|v| num(v)) {
                out.push("buffers dynamic: every parameter is a number".into());
            }
        }
        out
    }
}

/// One row of `pg_profile_lookup.ini`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PgLookupRow {
    /// Port speed, Mbit/s.
    pub speed: u64,
    /// Cable length, metres.
    pub cable: u32,
    /// Fields: size, xon, xoff, dynamic_th, xon_offset.
    pub size: String,
    /// xon.
    pub xon: String,
    /// xoff.
    pub xoff: String,
    /// dynamic_th.
    pub dynamic_th: String,
    /// xon_offset, when the file has the column (buffermgrd then writes it into the profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xon_offset: Option<String>,
}

/// The name of the `k`-th (0-based) child of parent `Ethernet<base>` with `per` lanes each, as the
/// platform's `platform.json` names breakout ports.
fn child_port_name(base: usize, k: usize, per: usize) -> String {
    format!("Ethernet{}", base + k * per)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_paths_are_the_newest_entry_not_newer_than_the_release() {
        let sku = SonicFacts {
            hwsku: "X".into(),
            platform: "x".into(),
            port_table: Vec::new(),
            fec: BTreeMap::new(),
            default_brkout_mode: None,
            child_alias: String::new(),
            buffers: None,
            bgp_max_paths: vec![
                MaxPaths {
                    release: "202405".into(),
                    paths: 64,
                },
                MaxPaths {
                    release: "202411".into(),
                    paths: 514,
                },
            ],
        };
        assert_eq!(sku.max_paths("202311"), Some(64));
        assert_eq!(sku.max_paths("202405"), Some(64));
        assert_eq!(sku.max_paths("202405.3"), Some(64));
        assert_eq!(sku.max_paths("202411"), Some(514));
        assert_eq!(sku.max_paths("202505"), Some(514));
        assert_eq!(sku.max_paths("master"), None);
        assert!(sku.max_paths_problems().is_empty());
        let mut bad = sku.clone();
        bad.bgp_max_paths.reverse();
        assert_eq!(bad.max_paths_problems().len(), 1);
    }
}
