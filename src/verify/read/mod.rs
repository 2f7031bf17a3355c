//! The documents aifab reads from a switch's state folder (`DIR/<hostname>/`), per OS: the file name,
//! the command that produces it on the switch (what `ansible/collect.yml` runs), the checks it serves,
//! and the reader that turns it into [`Observed`]. Each OS's documents are the machine-readable forms
//! that OS prints itself: NX-OS and EOS `show ... | json` (eAPI's and NX-API's JSON is the same
//! document), SONiC's lldpd (`lldpctl -f json`), FRR (`vtysh -c '... json'`) and its Redis databases
//! (`sonic-db-dump`).

mod cursor;
pub mod eos;
pub mod nxos;
pub mod sonic;

use super::Check;
use super::observed::Observed;
use crate::kinds::Os;
use std::fmt;

/// One document of a switch's state folder.
#[derive(Clone, Copy, Debug)]
pub struct Document {
    /// File name inside `DIR/<hostname>/` (`lldp.json`).
    pub file: &'static str,
    /// The command that prints it on the switch, as `ansible/collect.yml` runs it. A command with
    /// `{prefix}` runs once per prefix of the inventory's `aifab_route_samples`, and the file holds the
    /// JSON list of their outputs.
    pub command: &'static str,
    /// Key patterns for a command with `{key}`: it runs once per pattern (`sonic-db-dump -k` takes one
    /// glob), and the file holds one JSON object with the members of all their outputs. Empty for
    /// every other command.
    pub keys: &'static [&'static str],
    /// The checks that need it: when it is missing, each reports "not collected" for the switch.
    pub serves: &'static [Check],
    /// Reads the document's text into the switch's [`Observed`] (filling the fields it reports).
    pub read: fn(&str, &mut Observed) -> Result<(), ReadError>,
}

/// Why a document could not be read: where in it, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The place in the document: `line L column C` for a JSON syntax error, else the JSON path of the
    /// value (`/TABLE_nbor_detail/ROW_nbor_detail/3/l_port_id`).
    pub at: String,
    /// What was wrong, in words.
    pub message: String,
}

impl ReadError {
    /// An error at `at` saying `message`.
    pub fn new(at: impl Into<String>, message: impl Into<String>) -> ReadError {
        ReadError {
            at: at.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.at, self.message)
        }
    }
}

/// Parses JSON text, locating a syntax error (a truncated document: "line 40 column 3: EOF while
/// parsing an object").
pub fn json(text: &str) -> Result<serde_json::Value, ReadError> {
    serde_json::from_str(text).map_err(|e| {
        ReadError::new(
            format!("line {} column {}", e.line(), e.column()),
            format!("not valid JSON ({e}); is the file cut short?"),
        )
    })
}

/// The documents of `os`, in the order `ansible/collect.yml` fetches them.
pub fn documents(os: Os) -> &'static [Document] {
    match os {
        Os::Nxos => nxos::DOCUMENTS,
        Os::Eos => eos::DOCUMENTS,
        Os::Sonic => sonic::DOCUMENTS,
    }
}

/// The documents (file, text) a switch of `os` in state `o` prints: the inverse of the readers, for
/// generated state folders (tests, `aifab bench`).
pub fn write(os: Os, o: &Observed) -> Vec<(&'static str, String)> {
    match os {
        Os::Nxos => nxos::write(o),
        Os::Eos => eos::write(o),
        Os::Sonic => sonic::write(o),
    }
}

/// Reads a route document that is either one document of the OS's route command or a JSON list of
/// them (`ansible/collect.yml` runs the command once per sampled prefix and writes the list): the
/// routes of every item, in order. A wrong item names its place in the list.
pub fn routes_list(
    text: &str,
    o: &mut Observed,
    one: fn(&str, &mut Observed) -> Result<(), ReadError>,
) -> Result<(), ReadError> {
    if !text.trim_start().starts_with('[') {
        return one(text, o);
    }
    let items = match json(text)? {
        serde_json::Value::Array(items) => items,
        _ => return Err(ReadError::new("", "expected a list of route documents")),
    };
    let mut all = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let mut each = Observed::default();
        one(&item.to_string(), &mut each)
            .map_err(|e| ReadError::new(format!("/{n}{}", e.at), e.message))?;
        all.extend(each.routes.unwrap_or_default());
    }
    o.routes = Some(all);
    Ok(())
}
