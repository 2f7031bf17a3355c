//! SONiC's drift: a rendered `config_db.json` against the switch's running CONFIG_DB as `show
//! runningconfiguration all` prints it (one JSON object of tables, each of rows by key, each of
//! fields), compared only in the tables aifab owns (`config_db.tables` in `vendors/sonic.yaml`):
//! per table, row and field what a push adds, removes or changes. Every other running table is left
//! alone and named. A secret field's value is never printed ([`mask`]), and a rendered secret still
//! a placeholder (`AIFAB_SECRET(name)`: no vault at hand) is not compared but counted.
//!
//! The result is a [`Drift`] like the CLI OSes', so `aifab drift` prints both alike: a changed row's
//! key as the context line, `-`/`+` lines of `field: value`, and a `=` line per table left alone.
//! There is nothing to assemble: `config reload` loads the whole rendered file.

use super::assemble::{Drift, Mark};
use super::mask::{self, SECRET};
use crate::platform::ConfigDbOwnership;
use crate::platform::sections::Section;
use serde_json::Value;
use std::collections::BTreeMap;

/// Rows of one table by key, each its fields by name, values as CONFIG_DB holds them (text).
type Table = BTreeMap<String, BTreeMap<String, String>>;

/// A config_db as tables by name.
type Db = BTreeMap<String, Table>;

/// Why a SONiC running config_db cannot be compared with the rendered one.
#[derive(Debug, thiserror::Error)]
pub enum ConfigDbError {
    /// The rendered config_db does not read (a bug: aifab wrote it).
    #[error("the rendered config_db: {0}")]
    Rendered(Box<ConfigDbError>),
    /// Not JSON.
    #[error("not JSON ({0}): give `show runningconfiguration all` output")]
    NotJson(serde_json::Error),
    /// Not an object of tables.
    #[error("not a JSON object of tables: give `show runningconfiguration all` output")]
    NotTables,
    /// A table that is not an object of rows.
    #[error("table {0}: not an object of rows")]
    NotRows(String),
    /// A row that is not an object of fields (`table|key`).
    #[error("{0}: not an object of fields")]
    NotFields(String),
    /// Another switch's config_db: its hostname, then the intended one.
    #[error(
        "DEVICE_METADATA|localhost hostname is {0:?}, not {1:?}: the running config_db of another switch"
    )]
    OtherSwitch(String, String),
}

/// The drift of one SONiC device in the tables aifab owns, or why the running file cannot be
/// compared (not a config_db object, or another switch's: its `DEVICE_METADATA` hostname differs).
pub fn drift(
    rendered: &str,
    running: &str,
    own: &ConfigDbOwnership,
) -> Result<Drift, ConfigDbError> {
    let want = parse(rendered).map_err(|e| ConfigDbError::Rendered(Box::new(e)))?;
    let have = parse(running)?;
    let host = |db: &Db| {
        db.get("DEVICE_METADATA")
            .and_then(|t| t.get("localhost"))
            .and_then(|r| r.get("hostname"))
            .cloned()
    };
    if let (Some(w), Some(h)) = (host(&want), host(&have))
        && w != h
    {
        return Err(ConfigDbError::OtherSwitch(h, w));
    }
    let mut out = Out::default();
    let empty = Table::new();
    for table in own
        .tables
        .iter()
        .filter(|t| want.contains_key(*t) || have.contains_key(*t))
    {
        let skip = own.switch_fields.get(table).map_or(&[][..], Vec::as_slice);
        let w = want.get(table).unwrap_or(&empty);
        let h = have.get(table).unwrap_or(&empty);
        out.table(table, w, h, skip);
    }
    let kept = have
        .iter()
        .filter(|(t, _)| !own.tables.contains(t))
        .map(|(t, rows)| {
            let line = format!("{t} ({} row(s): not aifab's, left alone)", rows.len());
            Section {
                top: t.clone(),
                lines: vec![line],
            }
        })
        .collect();
    Ok(Drift {
        lines: out.lines,
        added: out.added,
        removed: out.removed,
        unverified: out.secrets,
        kept,
        assembled: rendered.to_string(),
    })
}

/// The comparison being printed.
#[derive(Default)]
struct Out {
    lines: Vec<(Mark, String)>,
    added: usize,
    removed: usize,
    secrets: usize,
}

impl Out {
    /// One owned table: rows only one side has, then the fields of rows both have.
    fn table(&mut self, table: &str, want: &Table, have: &Table, skip: &[String]) {
        let secret_keys = mask::is_secret_name(table);
        for (key, row) in want {
            let shown = format!("{table}|{}", if secret_keys { SECRET } else { key });
            match have.get(key) {
                None => self.row(Mark::Added, &shown, row),
                Some(old) => self.fields(&shown, row, old, skip),
            }
        }
        for (key, row) in have.iter().filter(|(k, _)| !want.contains_key(*k)) {
            let shown = format!("{table}|{}", if secret_keys { SECRET } else { key });
            self.row(Mark::Removed, &shown, row);
        }
    }

    /// A whole row added or removed: its key, then each field.
    fn row(&mut self, mark: Mark, key: &str, row: &BTreeMap<String, String>) {
        self.push(mark.clone(), key.to_string());
        for (f, v) in row {
            self.push(mark.clone(), field(f, v));
        }
    }

    /// The fields of a row both sides have; the row's key first when one differs.
    fn fields(
        &mut self,
        key: &str,
        want: &BTreeMap<String, String>,
        have: &BTreeMap<String, String>,
        skip: &[String],
    ) {
        let mut context = false;
        let mut head = |out: &mut Out| {
            if !std::mem::replace(&mut context, true) {
                out.lines.push((Mark::Context, key.to_string()));
            }
        };
        for (f, v) in want {
            let old = have.get(f);
            if is_placeholder(v) && old.is_some() {
                self.secrets += 1;
                continue;
            }
            if old == Some(v) {
                continue;
            }
            head(self);
            if let Some(o) = old {
                self.push(Mark::Removed, field(f, o));
            }
            self.push(Mark::Added, field(f, v));
        }
        for (f, o) in have.iter().filter(|(f, _)| !want.contains_key(*f)) {
            if skip.contains(f) {
                continue;
            }
            head(self);
            self.push(Mark::Removed, field(f, o));
        }
    }

    fn push(&mut self, mark: Mark, line: String) {
        match mark {
            Mark::Added => self.added += 1,
            Mark::Removed => self.removed += 1,
            Mark::Context => {}
        }
        self.lines.push((mark, line));
    }
}

/// `  field: value`, the value masked under a secret-like field name.
fn field(name: &str, value: &str) -> String {
    let v = if mask::is_secret_name(name) && !is_placeholder(value) {
        SECRET
    } else {
        value
    };
    format!("  {name}: {v}")
}

/// aifab's placeholder for a secret the render did not fill.
fn is_placeholder(v: &str) -> bool {
    v.starts_with("AIFAB_SECRET(") || v.starts_with("AIFAB_ENV(")
}

/// A config_db JSON text as tables; a value that is a list is joined with commas (CONFIG_DB's
/// `field@` form), a number or boolean is its text; the `NULL` field of a row without fields is
/// dropped (CONFIG_DB's placeholder, which `sonic-cfggen` leaves out when it prints).
fn parse(text: &str) -> Result<Db, ConfigDbError> {
    let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(ConfigDbError::NotJson)?;
    let Value::Object(tables) = v else {
        return Err(ConfigDbError::NotTables);
    };
    let mut db = Db::new();
    for (name, rows) in tables {
        let Value::Object(rows) = rows else {
            return Err(ConfigDbError::NotRows(name));
        };
        let mut table = Table::new();
        for (key, fields) in rows {
            let Value::Object(fields) = fields else {
                return Err(ConfigDbError::NotFields(format!("{name}|{key}")));
            };
            let row = fields
                .into_iter()
                .filter(|(f, v)| !(f == "NULL" && v.as_str() == Some("NULL")))
                .map(|(f, v)| (f, text_of(&v)))
                .collect();
            table.insert(key, row);
        }
        db.insert(name, table);
    }
    Ok(db)
}

/// A field's value as CONFIG_DB text.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(","),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> ConfigDbOwnership {
        ConfigDbOwnership {
            tables: vec![
                "PORT".into(),
                "DEVICE_METADATA".into(),
                "TACPLUS".into(),
                "VLAN".into(),
            ],
            switch_fields: [("DEVICE_METADATA".to_string(), vec!["mac".to_string()])].into(),
        }
    }

    const RENDERED: &str = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
        "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up", "lanes": ["1", "2"]}},
        "TACPLUS": {"global": {"passkey": "AIFAB_SECRET(tacacs_key)", "timeout": "5"}},
        "VLAN": {"Vlan10": {"vlanid": "10"}}}"#;

    #[test]
    fn the_same_tables_give_no_drift_and_other_tables_are_left_alone() {
        let running = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "mac": "00:11:22:33:44:55"}},
            "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up", "lanes": "1,2"}},
            "TACPLUS": {"global": {"passkey": "s3cretFixture", "timeout": "5"}},
            "VLAN": {"Vlan10": {"vlanid": "10"}},
            "FEATURE": {"lldp": {"state": "enabled"}, "snmp": {"state": "enabled"}},
            "FLEX_COUNTER_TABLE": {"PORT": {"FLEX_COUNTER_STATUS": "enable"}}}"#;
        let d = drift(RENDERED, running, &own()).expect("compares");
        assert!(d.unchanged(), "{:#?}", d.lines);
        let kept: Vec<&str> = d.kept.iter().map(|s| s.lines[0].as_str()).collect();
        assert_eq!(
            kept,
            [
                "FEATURE (2 row(s): not aifab's, left alone)",
                "FLEX_COUNTER_TABLE (1 row(s): not aifab's, left alone)"
            ]
        );
        assert_eq!(d.unverified, 1, "{:?}", d.lines);
    }

    #[test]
    fn rows_and_fields_added_removed_and_changed_are_listed_masked() {
        let rendered = RENDERED.replace("AIFAB_SECRET(tacacs_key)", "newFixtureKey");
        let running = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
            "PORT": {"Ethernet0": {"mtu": "1500", "admin_status": "up", "lanes": "1,2", "autoneg": "on"},
                     "Ethernet8": {"mtu": "9100"}},
            "TACPLUS": {"global": {"passkey": "oldFixtureKey", "timeout": "5"}}}"#;
        let d = drift(&rendered, running, &own()).expect("compares");
        let text: Vec<String> = d.lines.iter().map(|(m, l)| format!("{m:?} {l}")).collect();
        assert_eq!(
            text,
            [
                "Context PORT|Ethernet0",
                "Removed   mtu: 1500",
                "Added   mtu: 9100",
                "Removed   autoneg: on",
                "Removed PORT|Ethernet8",
                "Removed   mtu: 9100",
                "Context TACPLUS|global",
                "Removed   passkey: <secret>",
                "Added   passkey: <secret>",
                "Added VLAN|Vlan10",
                "Added   vlanid: 10",
            ]
        );
        assert_eq!((d.added, d.removed), (4, 5));
        assert!(!text.iter().any(|l| l.contains("FixtureKey")));
    }

    #[test]
    fn another_switch_or_not_a_config_db_is_refused() {
        let other = r#"{"DEVICE_METADATA": {"localhost": {"hostname": "leaf2"}}}"#;
        let e = drift(RENDERED, other, &own()).expect_err("another switch");
        assert!(matches!(e, ConfigDbError::OtherSwitch(..)), "{e}");
        assert!(e.to_string().contains("another switch"), "{e}");
        for bad in [
            "",
            "[]",
            "{\"PORT\": []}",
            "show runningconfiguration all\n{",
        ] {
            assert!(drift(RENDERED, bad, &own()).is_err(), "{bad:?}");
        }
    }
}
