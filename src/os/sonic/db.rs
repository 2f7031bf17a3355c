//! The typed config_db: table name → key → field → value, and its serialization to the exact bytes of
//! a SONiC `config_db.json` as aifab writes it (keys sorted, 4-space indentation, a final newline).
//!
//! Every level is a sorted vector, sorted once when it is built, and a row or table can be borrowed from
//! the per-platform [`super::Parts`] instead of being copied into every device or port. Values that are
//! numbers or addresses stay typed and are printed straight into the output as JSON strings.

mod json;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// A config_db field value. SONiC keeps every scalar as a string: numbers and addresses are written as
/// JSON strings (`"9100"`, `"10.0.0.1"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// A number, written as a string.
    Num(u64),
    /// An IP address, written as a string.
    Ip(IpAddr),
    /// A list of strings (`route_map_in`).
    List(&'a [&'a str]),
}

impl From<&'static str> for Value<'_> {
    fn from(s: &'static str) -> Self {
        Value::Text(Cow::Borrowed(s))
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Text(t) => s.serialize_str(t),
            Value::Num(n) => s.collect_str(n),
            Value::Ip(ip) => s.collect_str(ip),
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in *items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
        }
    }
}

/// Either a value of its own or one borrowed from a part shared by many devices or ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part<'a, T> {
    /// Built for this place.
    Own(T),
    /// Shared (an entry every port has, a table every device of a platform has).
    Shared(&'a T),
}

impl<T> std::ops::Deref for Part<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Part::Own(t) => t,
            Part::Shared(t) => t,
        }
    }
}

impl<T: Serialize> Serialize for Part<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// Sorts `(name, _)` pairs by name. Names are unique by construction; tests check it. The large
/// per-port tables come already in order ([`super::PortOrder`]): one pass finds them so.
fn sorted<K: Ord, V>(mut v: Vec<(K, V)>) -> Vec<(K, V)> {
    if !v.is_sorted_by(|a, b| a.0 <= b.0) {
        #[cfg(test)]
        SORTS.with(|n| n.set(n.get() + 1));
        v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    }
    debug_assert!(v.windows(2).all(|w| w[0].0 != w[1].0), "duplicate name");
    v
}

#[cfg(test)]
thread_local! {
    /// How many tables or rows [`sorted`] had to sort on this thread (tests: the per-port tables and
    /// rows are built in order).
    pub(crate) static SORTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Writes `(name, value)` pairs as a JSON object.
fn serialize_pairs<S: Serializer, K: AsRef<str>, V: Serialize>(
    pairs: &[(K, V)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        map.serialize_entry(k.as_ref(), v)?;
    }
    map.end()
}

/// One entry of a table: field → value, sorted by field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row<'a>(Vec<(Cow<'a, str>, Value<'a>)>);

impl<'a> Row<'a> {
    /// A row of fixed field names.
    pub fn new(fields: impl IntoIterator<Item = (&'static str, Value<'a>)>) -> Row<'a> {
        Row(sorted(
            fields
                .into_iter()
                .map(|(k, v)| (Cow::Borrowed(k), v))
                .collect(),
        ))
    }

    /// A row of any field names.
    pub fn from_fields(fields: Vec<(Cow<'a, str>, Value<'a>)>) -> Row<'a> {
        Row(sorted(fields))
    }

    /// The row with no field (`{}`: an interface that only exists, a route-map set).
    pub fn empty() -> Row<'a> {
        Row(Vec::new())
    }

    /// A field's value.
    pub fn get(&self, field: &str) -> Option<&Value<'a>> {
        self.0.iter().find(|(k, _)| k == field).map(|(_, v)| v)
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for `{}`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_pairs(&self.0, s)
    }
}

/// Keyed rows of one table, in any order (a [`Table`] sorts them).
pub type Entries<'a> = Vec<(Cow<'a, str>, Row<'a>)>;

/// One table: key → row, sorted by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table<'a>(Vec<(Cow<'a, str>, Part<'a, Row<'a>>)>);

impl<'a> Table<'a> {
    /// A table of these entries.
    pub fn new(rows: Vec<(Cow<'a, str>, Part<'a, Row<'a>>)>) -> Table<'a> {
        Table(sorted(rows))
    }

    /// A table of entries of its own.
    pub fn owned(rows: Entries<'a>) -> Table<'a> {
        Table::new(rows.into_iter().map(|(k, r)| (k, Part::Own(r))).collect())
    }

    /// A table of one entry.
    pub fn one(key: &'static str, row: Row<'a>) -> Table<'a> {
        Table(vec![(Cow::Borrowed(key), Part::Own(row))])
    }

    /// An entry by key.
    pub fn get(&self, key: &str) -> Option<&Row<'a>> {
        self.0
            .binary_search_by(|(k, _)| k.as_ref().cmp(key))
            .ok()
            .map(|i| &*self.0[i].1)
    }

    /// Keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_pairs(&self.0, s)
    }
}

/// A device's whole config_db: table name → table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigDb<'a> {
    tables: BTreeMap<&'static str, Part<'a, Table<'a>>>,
}

impl<'a> ConfigDb<'a> {
    /// Adds a table of its own.
    pub fn put(&mut self, name: &'static str, table: Table<'a>) {
        self.tables.insert(name, Part::Own(table));
    }

    /// Adds a table shared with other devices.
    pub fn share(&mut self, name: &'static str, table: &'a Table<'a>) {
        self.tables.insert(name, Part::Shared(table));
    }

    /// A table by name.
    pub fn table(&self, name: &str) -> Option<&Table<'a>> {
        self.tables.get(name).map(|t| &**t)
    }

    /// Table names, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tables.keys().copied()
    }

    /// The file: sorted keys, 4-space indentation, a final newline: `serde_json`'s pretty form of
    /// [`Serialize`], printed without serde.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.lines() * 40);
        json::config_db(&mut out, self);
        out.push('\n');
        out
    }

    /// How many lines [`ConfigDb::to_json`] prints, about: the buffer is sized from it (lines average
    /// about 30 bytes), so that a 270 KB file is not copied as its buffer doubles.
    fn lines(&self) -> usize {
        let rows = |t: &Table| t.0.iter().map(|(_, r)| r.len() + 2).sum::<usize>();
        2 + self.tables.values().map(|t| rows(t) + 2).sum::<usize>()
    }

    /// [`ConfigDb::to_json`] through `serde_json`: the reference the printer is tested against.
    #[cfg(test)]
    fn to_json_serde(&self) -> String {
        let mut buf = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
        self.serialize(&mut ser).expect("serializes");
        buf.push(b'\n');
        String::from_utf8(buf).expect("utf-8")
    }
}

impl Serialize for ConfigDb<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.tables.len()))?;
        for (k, v) in &self.tables {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_sorted_with_four_spaces_and_strings() {
        let mut db = ConfigDb::default();
        db.put(
            "PORT",
            Table::owned(vec![
                (
                    "Ethernet8".into(),
                    Row::new([("mtu", Value::Num(9100)), ("admin_status", "up".into())]),
                ),
                ("Ethernet16".into(), Row::empty()),
            ]),
        );
        db.put(
            "BGP_NEIGHBOR_AF",
            Table::one("x", Row::new([("route_map_in", Value::List(&["RM"]))])),
        );
        db.put("EMPTY", Table::default());
        let want = r#"{
    "BGP_NEIGHBOR_AF": {
        "x": {
            "route_map_in": [
                "RM"
            ]
        }
    },
    "EMPTY": {},
    "PORT": {
        "Ethernet16": {},
        "Ethernet8": {
            "admin_status": "up",
            "mtu": "9100"
        }
    }
}
"#;
        assert_eq!(db.to_json(), want);
        assert_eq!(db.to_json_serde(), want);
    }

    #[test]
    fn shared_rows_print_like_serde_json() {
        let shared = Row::new([("profile", "egress_lossy_profile".into())]);
        let other = Row::new([("a", Value::Num(1)), ("b", "x".into())]);
        let mut db = ConfigDb::default();
        db.put(
            "BUFFER_QUEUE",
            Table::new(vec![
                ("Ethernet0|0-2".into(), Part::Shared(&shared)),
                ("Ethernet0|3".into(), Part::Shared(&other)),
                ("Ethernet0|4-6".into(), Part::Shared(&shared)),
                ("Ethernet8|0-2".into(), Part::Own(Row::empty())),
                ("Ethernet8|3".into(), Part::Shared(&other)),
            ]),
        );
        db.put(
            "PFC_WD",
            Table::new(vec![("Ethernet0".into(), Part::Shared(&shared))]),
        );
        let json = db.to_json();
        assert_eq!(json, db.to_json_serde());
        assert_eq!(json.matches("egress_lossy_profile").count(), 3);
    }

    #[test]
    fn escapes_like_serde_json() {
        let mut db = ConfigDb::default();
        let odd = "a\"b\\c\u{1}é<";
        db.put(
            "T",
            Table::owned(vec![(
                odd.into(),
                Row::new([("f", Value::Text(odd.into()))]),
            )]),
        );
        db.put(
            "U",
            Table::owned(vec![(
                "\t\n\r\u{1f}\u{7f}/".into(),
                Row::new([
                    ("ip6", Value::Ip("fe80::1".parse().expect("ip"))),
                    ("ip4", Value::Ip("10.0.255.1".parse().expect("ip"))),
                    ("n", Value::Num(u64::MAX)),
                    ("z", Value::Num(0)),
                    ("e", Value::List(&[])),
                ]),
            )]),
        );
        let json = db.to_json();
        assert_eq!(json, db.to_json_serde());
        let back: serde_json::Value = serde_json::from_str(&json).expect("valid");
        assert_eq!(back["T"][odd]["f"], odd);
        assert!(json.contains(r#""a\"b\\c\u0001é<""#), "{json}");
    }
}
