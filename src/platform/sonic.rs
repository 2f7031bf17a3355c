//! SONiC SKU facts: what one HWSKU folder of sonic-buildimage (`device/<vendor>/<platform>/<hwsku>/`)
//! says, copied into `vendors/sonic.yaml` with a source per fact: every row of its `port_config.ini`
//! (name, lanes, alias, index, speed, fec) and the buffer numbers of its `buffers_defaults_t0/t1.j2` and
//! `pg_profile_lookup.ini`. docs/platforms/sonic.md#platforms says which SKU has which.

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
    /// Per-SKU buffer numbers (traditional model), only from a sourced SKU folder. Without them aifab
    /// refuses lossless classes on the SKU (AIF-PFC-006).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffers: Option<SonicBuffers>,
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

/// Per-SKU buffer tables, copied from the SKU's `buffers_defaults_t0.j2` / `buffers_defaults_t1.j2`
/// (the files the DEVICE_METADATA types aifab writes select) and `pg_profile_lookup.ini`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SonicBuffers {
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
    /// Rows of `pg_profile_lookup.ini`.
    pub pg_lookup: Vec<PgLookupRow>,
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
    /// xon_offset.
    pub xon_offset: String,
}

/// The name of the `k`-th (0-based) child of parent `Ethernet<base>` with `per` lanes each, as the
/// platform's `platform.json` names breakout ports.
fn child_port_name(base: usize, k: usize, per: usize) -> String {
    format!("Ethernet{}", base + k * per)
}
