//! Typed quantities of the intent: sizes, durations, speeds, lengths, percentages, ratios, ASN ranges.
//!
//! Every unit is parsed once, here, into an exact integer; later conversions to a vendor's unit are exact
//! or fail (see [`Size::in_unit`]). Each type carries its own JSON Schema so editors and `aifab validate`
//! reject a malformed value at its line and column.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Why a quantity of the intent could not be read, or converted exactly; the text names the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// Spaces around the value.
    #[error("no leading or trailing spaces")]
    Spaces,
    /// A space between the number and its unit.
    #[error("no space between number and unit: write `{num}{unit}`")]
    SpaceBeforeUnit {
        /// The number as written.
        num: String,
        /// The unit as written.
        unit: String,
    },
    /// A unit the quantity does not know.
    #[error("unknown unit `{unit}`; use one of {known}")]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The units it knows, comma-separated.
        known: String,
    },
    /// The number part is not a number.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// The number part does not fit.
    #[error("`{0}` is too large")]
    NumberTooLarge(String),
    /// The value in the base unit does not fit.
    #[error("value is too large")]
    TooLarge,
    /// More decimal places than a quantity takes.
    #[error("at most 9 decimal places")]
    Decimals,
    /// A fraction that is no whole number of the base unit.
    #[error("`{0}` is not a whole number of the base unit")]
    NotWhole(String),
    /// A size that is no whole number of a vendor's unit.
    #[error("{bytes} bytes is not a whole number of {unit} ({unit_bytes} bytes each)")]
    NotInUnit {
        /// The size.
        bytes: u64,
        /// The unit's name.
        unit: String,
        /// Bytes per unit.
        unit_bytes: u64,
    },
    /// A duration that is no whole number of milliseconds.
    #[error("{0} is not a whole number of milliseconds")]
    NotWholeMillis(Duration),
    /// Not a speed.
    #[error("`{0}` is not a valid speed")]
    NotASpeed(String),
    /// Not a port mode.
    #[error("`{0}` is not a port mode: write `<ports>x<speed>`, e.g. `2x400G`")]
    NotAPortMode(String),
    /// A breakout into no ports or more than 8.
    #[error("`{0}`: a port breaks out into 1 to 8 ports")]
    Breakout(String),
    /// A length that does not fit.
    #[error("`{0}` is too long")]
    TooLong(String),
    /// A percentage over 100.
    #[error("{0}% is more than 100%")]
    OverHundred(u64),
    /// A percentage without its sign.
    #[error("`{0}` needs a % sign: write e.g. `90%`")]
    NoPercentSign(String),
    /// A percentage that is no whole number.
    #[error("`{0}` is not a whole percentage")]
    NotWholePercent(String),
    /// Not a ratio.
    #[error("`{0}` is not a ratio: write e.g. `1:1` or `4:1`")]
    NotARatio(String),
    /// A side of a ratio that is no whole number.
    #[error("`{0}` is not a whole number")]
    NotWholeNumber(String),
    /// A side of a ratio that is 0.
    #[error("both sides of a ratio must be at least 1")]
    RatioZero,
    /// Not an AS number.
    #[error("`{0}` is not an AS number (1-4294967294)")]
    NotAsn(String),
    /// A number too large for an AS number.
    #[error("{0} is not an AS number")]
    AsnTooLarge(u64),
    /// AS number 0 or 4294967295.
    #[error("AS numbers 0 and 4294967295 are reserved")]
    AsnReserved,
    /// A range whose end comes before its start.
    #[error("range `{0}` ends before it starts")]
    AsnBackwards(String),
    /// A bare number where the quantity needs its unit (the text says how to write it).
    #[error("{0}")]
    NoUnit(&'static str),
}

/// Parses `<decimal><suffix>` into an exact integer count of the base unit, given the multiplier per suffix.
/// Fractions are allowed only when the product is a whole number (`1.5MB` is exact, `1.0000001MB` is not).
fn parse_scaled(text: &str, suffixes: &[(&str, u64)]) -> Result<u64, UnitError> {
    let t = text.trim();
    if t != text || t.is_empty() {
        return Err(UnitError::Spaces);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if suffix.starts_with(' ') {
        return Err(UnitError::SpaceBeforeUnit {
            num: num.to_string(),
            unit: suffix.trim().to_string(),
        });
    }
    let mult = suffixes
        .iter()
        .find(|(s, _)| *s == suffix)
        .map(|(_, m)| *m)
        .ok_or_else(|| {
            let names: Vec<&str> = suffixes
                .iter()
                .map(|(s, _)| *s)
                .filter(|s| !s.is_empty())
                .collect();
            UnitError::UnknownUnit {
                unit: suffix.to_string(),
                known: names.join(", "),
            }
        })?;
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int_part.is_empty() || frac_part.contains('.') || (num.contains('.') && frac_part.is_empty())
    {
        return Err(UnitError::NotANumber(num.to_string()));
    }
    let int: u64 = int_part
        .parse()
        .map_err(|_| UnitError::NumberTooLarge(num.to_string()))?;
    let mut value = int.checked_mul(mult).ok_or(UnitError::TooLarge)?;
    if !frac_part.is_empty() {
        if frac_part.len() > 9 {
            return Err(UnitError::Decimals);
        }
        let frac: u64 = frac_part
            .parse()
            .map_err(|_| UnitError::NotANumber(num.to_string()))?;
        let denom = 10u64.pow(frac_part.len() as u32);
        let scaled = (frac as u128) * (mult as u128);
        if !scaled.is_multiple_of(denom as u128) {
            return Err(UnitError::NotWhole(text.to_string()));
        }
        value = value
            .checked_add((scaled / denom as u128) as u64)
            .ok_or(UnitError::TooLarge)?;
    }
    Ok(value)
}

macro_rules! string_or_int_serde {
    ($ty:ident, $expecting:expr, $from_int:expr, $from_str:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        #[allow(clippy::redundant_closure_call)]
                        ($from_int)(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        u64::try_from(v)
                            .map_err(|_| E::custom("must not be negative"))
                            .and_then(|v| self.visit_u64(v))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        #[allow(clippy::redundant_closure_call)]
                        ($from_str)(v).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// A buffer size in bytes. Written `150KB`, `1.5MB`, `1MiB` or a bare integer of bytes (`153600`).
///
/// `KB`/`KiB` both mean 1024 bytes and `MB`/`MiB` 1024² bytes: the convention of the switch CLIs aifab
/// renders for (NX-OS and EOS `kbytes`, SONiC's own example where 150KB is 153600 bytes). Use a bare
/// integer for an exact byte count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1024),
    ("KiB", 1024),
    ("MB", 1024 * 1024),
    ("MiB", 1024 * 1024),
    ("GB", 1024 * 1024 * 1024),
    ("GiB", 1024 * 1024 * 1024),
];

impl Size {
    /// Parses `150KB`, `1.5MB`, `153600B`.
    pub fn parse(text: &str) -> Result<Size, UnitError> {
        parse_scaled(text, SIZE_UNITS).map(Size)
    }
    /// Bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }
    /// The value as a whole number of `unit_bytes`, or an error naming the remainder: never rounds.
    pub fn in_unit(self, unit_bytes: u64, unit_name: &str) -> Result<u64, UnitError> {
        if unit_bytes == 0 || !self.0.is_multiple_of(unit_bytes) {
            return Err(UnitError::NotInUnit {
                bytes: self.0,
                unit: unit_name.to_string(),
                unit_bytes,
            });
        }
        Ok(self.0 / unit_bytes)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let b = self.0;
        if b >= 1024 * 1024 && b.is_multiple_of(1024 * 1024) {
            write!(f, "{}MB", b / (1024 * 1024))
        } else if b >= 1024 && b.is_multiple_of(1024) {
            write!(f, "{}KB", b / 1024)
        } else {
            write!(f, "{b}B")
        }
    }
}

string_or_int_serde!(
    Size,
    "a size such as 150KB, 1.5MB or a number of bytes",
    |v| Ok::<_, UnitError>(Size(v)),
    Size::parse
);

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl JsonSchema for Size {
    fn schema_name() -> Cow<'static, str> {
        "Size".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A size in bytes: an integer of bytes, or a number with a unit B, KB, KiB, MB, MiB, GB, GiB and no space (`150KB`, `1.5MB`). KB = KiB = 1024 bytes, MB = MiB = 1024² bytes.",
            "oneOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(B|KB|KiB|MB|MiB|GB|GiB)$"}
            ],
            "examples": ["150KB", "1.5MB", 153600]
        })
    }
}

/// A duration, kept in microseconds. Written `500us`, `200ms`, `1s` or `1.5s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub u64);

const DURATION_UNITS: &[(&str, u64)] = &[("us", 1), ("ms", 1000), ("s", 1_000_000)];

impl Duration {
    /// Parses `500us`, `200ms`, `1s`.
    pub fn parse(text: &str) -> Result<Duration, UnitError> {
        parse_scaled(text, DURATION_UNITS).map(Duration)
    }
    /// Microseconds.
    pub fn micros(self) -> u64 {
        self.0
    }
    /// Whole milliseconds, or an error when the duration is not a whole number of milliseconds.
    pub fn millis_exact(self) -> Result<u64, UnitError> {
        if !self.0.is_multiple_of(1000) {
            return Err(UnitError::NotWholeMillis(self));
        }
        Ok(self.0 / 1000)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let u = self.0;
        if u >= 1_000_000 && u.is_multiple_of(1_000_000) {
            write!(f, "{}s", u / 1_000_000)
        } else if u >= 1000 && u.is_multiple_of(1000) {
            write!(f, "{}ms", u / 1000)
        } else {
            write!(f, "{u}us")
        }
    }
}

string_or_int_serde!(
    Duration,
    "a duration such as 500us, 200ms or 1s",
    |_v| Err::<Duration, UnitError>(UnitError::NoUnit(
        "a duration needs a unit: write e.g. `200ms`, `1s` or `500us`"
    )),
    Duration::parse
);

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Duration {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A duration: a number with a unit us, ms or s and no space (`500us`, `200ms`, `1s`).",
            "type": "string",
            "pattern": "^[0-9]+(\\.[0-9]+)?(us|ms|s)$",
            "examples": ["200ms", "1s", "500us"]
        })
    }
}

/// A port or NIC speed in Gbit/s, written `400G`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Speed(pub u32);

impl Speed {
    /// Parses `400G`.
    pub fn parse(text: &str) -> Result<Speed, UnitError> {
        let v = parse_scaled(text, &[("G", 1)])?;
        match u32::try_from(v) {
            Ok(g) if g > 0 => Ok(Speed(g)),
            _ => Err(UnitError::NotASpeed(text.to_string())),
        }
    }
    /// Gbit/s.
    pub fn gbps(self) -> u32 {
        self.0
    }
    /// Mbit/s, as SONiC spells a port speed.
    pub fn mbps(self) -> u64 {
        self.0 as u64 * 1000
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}G", self.0)
    }
}

string_or_int_serde!(
    Speed,
    "a speed such as 400G",
    |_v| Err::<Speed, UnitError>(UnitError::NoUnit(
        "a speed needs its unit: write e.g. `400G`"
    )),
    Speed::parse
);

impl Serialize for Speed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Speed {
    fn schema_name() -> Cow<'static, str> {
        "Speed".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A link speed in Gbit/s with the unit G (`100G`, `400G`, `800G`).",
            "type": "string",
            "pattern": "^[1-9][0-9]*G$",
            "examples": ["400G", "800G"]
        })
    }
}

/// How one front-panel port runs: `children` ports of `speed` each (`1x800G` native, `2x400G` broken
/// out into two 400G ports). Written `<children>x<speed>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortMode {
    /// Ports the front-panel port becomes (1: not broken out).
    pub children: u32,
    /// Speed of each of them.
    pub speed: Speed,
}

impl PortMode {
    /// Parses `2x400G`.
    pub fn parse(text: &str) -> Result<PortMode, UnitError> {
        let bad = || UnitError::NotAPortMode(text.to_string());
        let (n, sp) = text.split_once('x').ok_or_else(bad)?;
        let children: u32 = n.parse().map_err(|_| bad())?;
        if !(1..=8).contains(&children) || n.starts_with('0') {
            return Err(UnitError::Breakout(text.to_string()));
        }
        let speed = Speed::parse(sp).map_err(|_| bad())?;
        Ok(PortMode { children, speed })
    }
}

impl fmt::Display for PortMode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}x{}", self.children, self.speed)
    }
}

string_or_int_serde!(
    PortMode,
    "a port mode such as 2x400G",
    |_v| Err::<PortMode, UnitError>(UnitError::NoUnit(
        "a port mode is `<ports>x<speed>`: write e.g. `2x400G`"
    )),
    PortMode::parse
);

impl Serialize for PortMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for PortMode {
    fn schema_name() -> Cow<'static, str> {
        "PortMode".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A port mode: how many ports one front-panel port runs as, and at what speed each (`1x800G`, `2x400G`, `4x100G`).",
            "type": "string",
            "pattern": "^[1-8]x[1-9][0-9]*G$",
            "examples": ["2x400G", "4x200G"]
        })
    }
}

/// A cable length in whole metres, written `3m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Length(pub u32);

impl Length {
    /// Parses `3m` or `2km`.
    pub fn parse(text: &str) -> Result<Length, UnitError> {
        let v = parse_scaled(text, &[("m", 1), ("km", 1000)])?;
        u32::try_from(v)
            .map(Length)
            .map_err(|_| UnitError::TooLong(text.to_string()))
    }
    /// Metres.
    pub fn metres(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}

string_or_int_serde!(
    Length,
    "a cable length such as 3m",
    |_v| Err::<Length, UnitError>(UnitError::NoUnit(
        "a length needs its unit: write e.g. `3m`"
    )),
    Length::parse
);

impl Serialize for Length {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Length {
    fn schema_name() -> Cow<'static, str> {
        "Length".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A cable length in whole metres (`3m`, `50m`) or kilometres (`2km`).",
            "type": "string",
            "pattern": "^[0-9]+(m|km)$",
            "examples": ["3m", "50m"]
        })
    }
}

/// A whole percentage 0-100, written `90%` or `90`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Percent(pub u8);

fn percent_from_int(v: u64) -> Result<Percent, UnitError> {
    if v > 100 {
        return Err(UnitError::OverHundred(v));
    }
    Ok(Percent(v as u8))
}

string_or_int_serde!(
    Percent,
    "a percentage such as 90%",
    percent_from_int,
    |s: &str| {
        let n = s
            .strip_suffix('%')
            .ok_or_else(|| UnitError::NoPercentSign(s.to_string()))?;
        let v: u64 = n
            .parse()
            .map_err(|_| UnitError::NotWholePercent(s.to_string()))?;
        percent_from_int(v)
    }
);

impl Serialize for Percent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}%", self.0)
    }
}

impl JsonSchema for Percent {
    fn schema_name() -> Cow<'static, str> {
        "Percent".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A whole percentage: `90%`, or the integer 90.",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": 100},
                {"type": "string", "pattern": "^([0-9]|[1-9][0-9]|100)%$"}
            ],
            "examples": ["90%", 10]
        })
    }
}

/// An oversubscription ratio `down:up`, written `1:1` or `4:1` (downstream bandwidth : upstream bandwidth).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    /// Downstream share.
    pub down: u32,
    /// Upstream share.
    pub up: u32,
}

impl Ratio {
    /// Parses `3:1`.
    pub fn parse(text: &str) -> Result<Ratio, UnitError> {
        let (a, b) = text
            .split_once(':')
            .ok_or_else(|| UnitError::NotARatio(text.to_string()))?;
        let down: u32 = a
            .parse()
            .map_err(|_| UnitError::NotWholeNumber(a.to_string()))?;
        let up: u32 = b
            .parse()
            .map_err(|_| UnitError::NotWholeNumber(b.to_string()))?;
        if down == 0 || up == 0 {
            return Err(UnitError::RatioZero);
        }
        Ok(Ratio { down, up })
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}", self.down, self.up)
    }
}

string_or_int_serde!(
    Ratio,
    "a ratio such as 1:1 or 4:1",
    |_v| Err::<Ratio, UnitError>(UnitError::NoUnit(
        "write the ratio in quotes-free form `4:1`"
    )),
    Ratio::parse
);

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for Ratio {
    fn schema_name() -> Cow<'static, str> {
        "Ratio".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Oversubscription as downstream:upstream bandwidth (`1:1` non-blocking, `4:1`).",
            "type": "string",
            "pattern": "^[1-9][0-9]*:[1-9][0-9]*$",
            "examples": ["1:1", "4:1"]
        })
    }
}

/// A range of BGP AS numbers `first-last` (inclusive), or a single ASN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsnRange {
    /// First ASN of the range.
    pub first: u32,
    /// Last ASN of the range (inclusive).
    pub last: u32,
}

impl AsnRange {
    /// Parses `65100-65299` or `65000`.
    pub fn parse(text: &str) -> Result<AsnRange, UnitError> {
        let (a, b) = text.split_once('-').unwrap_or((text, text));
        let first: u32 = a
            .trim()
            .parse()
            .map_err(|_| UnitError::NotAsn(a.to_string()))?;
        let last: u32 = b
            .trim()
            .parse()
            .map_err(|_| UnitError::NotAsn(b.to_string()))?;
        if first == 0 || last == u32::MAX {
            return Err(UnitError::AsnReserved);
        }
        if last < first {
            return Err(UnitError::AsnBackwards(text.to_string()));
        }
        Ok(AsnRange { first, last })
    }
    /// How many ASNs the range holds.
    pub fn len(self) -> u64 {
        (self.last - self.first) as u64 + 1
    }
    /// Never empty: a parsed range holds at least one ASN.
    pub fn is_empty(self) -> bool {
        false
    }
    /// The n-th ASN (0-based), if the range holds it.
    pub fn nth(self, n: u64) -> Option<u32> {
        (n < self.len()).then(|| self.first + n as u32)
    }
}

impl fmt::Display for AsnRange {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

string_or_int_serde!(
    AsnRange,
    "an AS number or a range such as 65100-65299",
    |v: u64| {
        u32::try_from(v)
            .map_err(|_| UnitError::AsnTooLarge(v))
            .and_then(|a| AsnRange::parse(&a.to_string()))
    },
    AsnRange::parse
);

impl Serialize for AsnRange {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl JsonSchema for AsnRange {
    fn schema_name() -> Cow<'static, str> {
        "AsnRange".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A BGP AS number (integer) or an inclusive range `first-last` (`65100-65299`, `4200000000-4200099999`).",
            "oneOf": [
                {"type": "integer", "minimum": 1, "maximum": 4294967294u64},
                {"type": "string", "pattern": "^[0-9]+-[0-9]+$"}
            ],
            "examples": [65000, "65100-65299"]
        })
    }
}

/// Greatest common divisor (Euclid), for reducing ratios and timers.
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_modes_parse_and_print() {
        let m = PortMode::parse("2x400G").unwrap();
        assert_eq!((m.children, m.speed), (2, Speed(400)));
        assert_eq!(m.to_string(), "2x400G");
        for bad in [
            "2x", "x400G", "0x400G", "9x100G", "02x400G", "2x400", "2 x400G",
        ] {
            assert!(PortMode::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_are_exact() {
        assert_eq!(Size::parse("150KB"), Ok(Size(153_600)));
        assert_eq!(Size::parse("1.5MB"), Ok(Size(1_572_864)));
        assert_eq!(Size::parse("1MiB"), Ok(Size(1_048_576)));
        assert_eq!(Size::parse("100B"), Ok(Size(100)));
        assert_eq!(
            Size::parse("150 KB").unwrap_err().to_string(),
            "no space between number and unit: write `150KB`"
        );
        assert_eq!(
            Size::parse("150kb").unwrap_err().to_string(),
            "unknown unit `kb`; use one of B, KB, KiB, MB, MiB, GB, GiB"
        );
        assert!(Size::parse("1.0000001KB").is_err());
        assert!(Size::parse("1.").is_err());
        assert_eq!(Size(153_600).in_unit(1024, "kbytes"), Ok(150));
        assert!(Size(1000).in_unit(1024, "kbytes").is_err());
    }

    #[test]
    fn durations_and_others() {
        assert_eq!(Duration::parse("200ms"), Ok(Duration(200_000)));
        assert_eq!(Duration::parse("1.5s"), Ok(Duration(1_500_000)));
        assert_eq!(Duration::parse("500us"), Ok(Duration(500)));
        assert!(Duration::parse("200").is_err());
        assert_eq!(Duration(1_000_000).to_string(), "1s");
        assert!(Duration(1500).millis_exact().is_err());
        assert_eq!(Speed::parse("400G"), Ok(Speed(400)));
        assert!(Speed::parse("0G").is_err());
        assert_eq!(Length::parse("2km"), Ok(Length(2000)));
        assert_eq!(Ratio::parse("4:1"), Ok(Ratio { down: 4, up: 1 }));
        assert!(Ratio::parse("0:1").is_err());
        let r = AsnRange::parse("65100-65299").unwrap();
        assert_eq!((r.len(), r.nth(199), r.nth(200)), (200, Some(65299), None));
        assert!(AsnRange::parse("10-5").is_err());
    }
}
