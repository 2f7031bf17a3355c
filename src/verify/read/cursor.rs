//! Walking a parsed JSON document with the place of every value at hand, so that a reader's error
//! names it: `/TABLE_nbor_detail/ROW_nbor_detail/3/l_port_id`, a JSON Pointer (RFC 6901: a `/` inside
//! a key is written `~1`, a `~` as `~0`; the document itself is `/`). A [`Node`] keeps a reference to
//! the node it was reached from, and the pointer is spelled only when an error is made, so reading a
//! well-formed document allocates nothing for it. Shared by the NX-OS and EOS readers, with the
//! string escaping their writers use.

use super::ReadError;
use serde_json::Value;
use std::fmt::{self, Write as _};
use std::net::{Ipv4Addr, Ipv6Addr};

/// A value of a document and how it was reached from the document's root.
#[derive(Clone, Copy)]
pub(super) struct Node<'a> {
    /// The value.
    pub v: &'a Value,
    step: Step<'a>,
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Node({})", self.pointer())
    }
}

/// The last step to a node: the key or index it was found at, in its parent.
#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    Key(&'a Node<'a>, &'a str),
    Index(&'a Node<'a>, usize),
    /// NX-OS's `TABLE_x` / `ROW_x` pair, the row indexed when `ROW_x` is a list.
    Row(&'a Node<'a>, &'a str, &'a str, Option<usize>),
}

impl<'a> Node<'a> {
    /// The document's root.
    pub(super) fn root(v: &'a Value) -> Node<'a> {
        Node {
            v,
            step: Step::Root,
        }
    }

    /// The JSON Pointer of this node (`/` for the root).
    pub(super) fn pointer(&self) -> String {
        let mut steps = Vec::new();
        let mut node = self;
        loop {
            match node.step {
                Step::Root => break,
                Step::Key(parent, key) => {
                    steps.push(escape(key));
                    node = parent;
                }
                Step::Index(parent, i) => {
                    steps.push(i.to_string());
                    node = parent;
                }
                Step::Row(parent, table, row, i) => {
                    if let Some(i) = i {
                        steps.push(i.to_string());
                    }
                    steps.push(escape(row));
                    steps.push(escape(table));
                    node = parent;
                }
            }
        }
        if steps.is_empty() {
            return "/".to_string();
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            let _ = write!(out, "/{step}");
        }
        out
    }

    /// An error at this node saying `message`.
    pub(super) fn error(&self, message: impl Into<String>) -> ReadError {
        ReadError::new(self.pointer(), message)
    }

    /// An error at this node: it is not what was expected.
    pub(super) fn wrong(&self, expected: &str) -> ReadError {
        self.error(format!("expected {expected}, found {}", kind(self.v)))
    }

    /// An error at key `key` of this node, which is missing.
    pub(super) fn missing(&self, key: &str, expected: &str) -> ReadError {
        let at = match self.pointer().as_str() {
            "/" => format!("/{}", escape(key)),
            p => format!("{p}/{}", escape(key)),
        };
        ReadError::new(at, format!("expected {expected}, found nothing"))
    }

    /// The key `key` that every output of `command` has at its top; without it the file holds
    /// another command's output.
    pub(super) fn top<'b>(&'b self, key: &'b str, command: &str) -> Result<Node<'b>, ReadError> {
        self.opt(key)?.ok_or_else(|| self.not_from(key, command))
    }

    /// The rows of NX-OS's `TABLE_x` / `ROW_x` pair that every output of `command` has at its top.
    pub(super) fn top_rows<'b>(
        &'b self,
        table: &'b str,
        row: &'b str,
        command: &str,
    ) -> Result<Vec<Node<'b>>, ReadError> {
        self.rows(table, row)?
            .ok_or_else(|| self.not_from(table, command))
    }

    /// The error for a document without `key`, which every output of `command` has.
    pub(super) fn not_from(&self, key: &str, command: &str) -> ReadError {
        let what = format!("`{key}`, which `{command}` prints (is this another command's output?)");
        self.missing(key, &what)
    }

    /// The value at `key` of this object, or `None` when the key is missing or `null`. Errs when this
    /// node is not an object.
    pub(super) fn opt<'b>(&'b self, key: &'b str) -> Result<Option<Node<'b>>, ReadError> {
        let Value::Object(map) = self.v else {
            return Err(self.wrong("an object"));
        };
        Ok(match map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(Node {
                v,
                step: Step::Key(self, key),
            }),
        })
    }

    /// The value at `key` of this object; errs when it is missing (`expected` says what it should be).
    pub(super) fn key<'b>(&'b self, key: &'b str, expected: &str) -> Result<Node<'b>, ReadError> {
        self.opt(key)?.ok_or_else(|| self.missing(key, expected))
    }

    /// The entries of this object, in document order.
    pub(super) fn entries<'b>(
        &'b self,
    ) -> Result<impl Iterator<Item = (&'b str, Node<'b>)> + 'b, ReadError> {
        let Value::Object(map) = self.v else {
            return Err(self.wrong("an object"));
        };
        Ok(map.iter().map(move |(k, v)| {
            let k = k.as_str();
            (
                k,
                Node {
                    v,
                    step: Step::Key(self, k),
                },
            )
        }))
    }

    /// The items of this list.
    pub(super) fn items<'b>(&'b self) -> Result<impl Iterator<Item = Node<'b>> + 'b, ReadError> {
        let Value::Array(list) = self.v else {
            return Err(self.wrong("a list"));
        };
        Ok(list.iter().enumerate().map(move |(i, v)| Node {
            v,
            step: Step::Index(self, i),
        }))
    }

    /// NX-OS's rows `TABLE_x` / `ROW_x` of this object: `None` when `TABLE_x` is missing (NX-OS leaves
    /// an empty table out), else every row, whether `ROW_x` is a list or, for a single row, the row
    /// itself (NX-OS prints a one-element list as its element).
    pub(super) fn rows<'b>(
        &'b self,
        table: &'b str,
        row: &'b str,
    ) -> Result<Option<Vec<Node<'b>>>, ReadError> {
        let Some(t) = self.opt(table)? else {
            return Ok(None);
        };
        let what = || format!("`{row}`: an object or a list of objects");
        let Some(found) = t.opt(row)? else {
            return Err(t.missing(row, &what()));
        };
        let doc: &'a Value = self.v;
        let value = &doc[table][row];
        let at = |v, i| Node {
            v,
            step: Step::Row(self, table, row, i),
        };
        match value {
            Value::Object(_) => Ok(Some(vec![at(value, None)])),
            Value::Array(list) => {
                let rows: Vec<Node<'b>> = list
                    .iter()
                    .enumerate()
                    .map(|(i, v)| at(v, Some(i)))
                    .collect();
                match rows.iter().find(|r| !r.v.is_object()) {
                    Some(bad) => Err(bad.wrong("an object (one row)")),
                    None => Ok(Some(rows)),
                }
            }
            _ => Err(found.wrong(&what())),
        }
    }

    /// Like [`Node::rows`], but `TABLE_x` must be there (`expected` says what it holds).
    pub(super) fn rows_req<'b>(
        &'b self,
        table: &'b str,
        row: &'b str,
        expected: &str,
    ) -> Result<Vec<Node<'b>>, ReadError> {
        self.rows(table, row)?
            .ok_or_else(|| self.missing(table, expected))
    }

    /// This value as a string.
    pub(super) fn str(&self) -> Result<&'a str, ReadError> {
        self.v.as_str().ok_or_else(|| self.wrong("a string"))
    }

    /// The string at `key`, `None` when missing or `null`.
    pub(super) fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ReadError> {
        let Value::Object(map) = self.v else {
            return Err(self.wrong("an object"));
        };
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(Node {
                v,
                step: Step::Key(self, key),
            }
            .wrong("a string")),
        }
    }

    /// This value as an unsigned integer: a JSON number, or a string of digits (NX-OS's `| json`
    /// prints numbers as strings, its `| json native` as numbers).
    pub(super) fn u64(&self) -> Result<u64, ReadError> {
        let n = match self.v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        n.ok_or_else(|| self.wrong("an unsigned integer (a number or a string of digits)"))
    }

    /// This value as an unsigned 32-bit integer.
    pub(super) fn u32(&self) -> Result<u32, ReadError> {
        u32::try_from(self.u64()?).map_err(|_| self.wrong("an integer below 2^32"))
    }

    /// This value as a boolean: `true`/`false`, or the strings `"true"`/`"false"` (NX-OS).
    pub(super) fn boolean(&self) -> Result<bool, ReadError> {
        match self.v {
            Value::Bool(b) => Ok(*b),
            Value::String(s) if s == "true" => Ok(true),
            Value::String(s) if s == "false" => Ok(false),
            _ => Err(self.wrong("true or false")),
        }
    }

    /// This value as an AS number: a number, an asplain string (`"65001"`) or an asdot string
    /// (`"65002.2048"`, which is 65002 × 65536 + 2048).
    pub(super) fn asn(&self) -> Result<u32, ReadError> {
        if self.v.is_number() {
            return self.u32();
        }
        let text = self.str()?;
        parse_asn(text).ok_or_else(|| self.wrong("an AS number (`65001` or `1.10`)"))
    }

    /// This string as an IPv4 address; `None` for an IPv6 address (with or without a `%interface`
    /// scope, as EOS prints a link-local peer), which the observed state has no place for.
    pub(super) fn ipv4_or_v6(&self) -> Result<Option<Ipv4Addr>, ReadError> {
        ip_text(self.str()?).ok_or_else(|| self.wrong("an IPv4 or IPv6 address"))
    }
}

/// `text` as an address: `Some(Some(ip))` for IPv4, `Some(None)` for IPv6 (a `%interface` scope
/// allowed), `None` for anything else.
pub(super) fn ip_text(text: &str) -> Option<Option<Ipv4Addr>> {
    if let Ok(ip) = text.parse::<Ipv4Addr>() {
        return Some(Some(ip));
    }
    let bare = text.split_once('%').map_or(text, |(ip, _scope)| ip);
    bare.parse::<Ipv6Addr>().ok().map(|_| None)
}

/// An AS number in asplain (`65001`) or asdot (`65002.2048`) notation.
pub(super) fn parse_asn(text: &str) -> Option<u32> {
    match text.split_once('.') {
        None => text.parse().ok(),
        Some((high, low)) => {
            let (high, low): (u16, u16) = (high.parse().ok()?, low.parse().ok()?);
            Some(u32::from(high) << 16 | u32::from(low))
        }
    }
}

/// A key as a JSON Pointer step.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// What kind of JSON value this is, in words.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A string written as a JSON string literal, quotes included (for the writers, which print
/// documents directly rather than through `serde_json::Value`, for speed).
pub(super) struct Q<'a>(pub &'a str);

/// A string written escaped for JSON, without the quotes.
pub(super) struct Esc<'a>(pub &'a str);

impl fmt::Display for Q<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", Esc(self.0))
    }
}

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(|c: char| c == '"' || c == '\\' || u32::from(c) < 0x20) {
            f.write_str(&rest[..i])?;
            let c = rest[i..].chars().next().unwrap_or(' ');
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c => write!(f, "\\u{:04x}", u32::from(c))?,
            }
            rest = &rest[i + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_name_keys_indexes_and_rows_escaped() {
        let doc = json!({"a/b": [{"TABLE_x": {"ROW_x": [{"k": 1}, {"k": "x"}]}}]});
        let root = Node::root(&doc);
        let list = root.key("a/b", "a list").unwrap();
        let first = list.items().unwrap().next().unwrap();
        let rows = first.rows("TABLE_x", "ROW_x").unwrap().unwrap();
        let err = rows[1].key("k", "a number").unwrap().u64().unwrap_err();
        assert_eq!(err.at, "/a~1b/0/TABLE_x/ROW_x/1/k");
        assert_eq!(
            err.message,
            "expected an unsigned integer (a number or a string of digits), found a string"
        );
        let err = rows[0].key("j", "the j").unwrap_err();
        assert_eq!(err.at, "/a~1b/0/TABLE_x/ROW_x/0/j");
        assert_eq!(root.pointer(), "/");
    }

    #[test]
    fn a_single_row_is_the_row_itself() {
        let doc = json!({"TABLE_x": {"ROW_x": {"k": "7"}}});
        let root = Node::root(&doc);
        let rows = root.rows("TABLE_x", "ROW_x").unwrap().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].key("k", "k").unwrap().u32().unwrap(), 7);
        assert_eq!(rows[0].pointer(), "/TABLE_x/ROW_x");
        assert!(root.rows("TABLE_y", "ROW_y").unwrap().is_none());
        let bad = json!({"TABLE_x": {"ROW_x": ["text"]}});
        let err = Node::root(&bad).rows("TABLE_x", "ROW_x").unwrap_err();
        assert_eq!(err.at, "/TABLE_x/ROW_x/0");
    }

    #[test]
    fn asns_in_both_notations_and_addresses_of_both_families() {
        assert_eq!(parse_asn("65001"), Some(65001));
        assert_eq!(parse_asn("65002.2048"), Some(65002 * 65536 + 2048));
        assert_eq!(parse_asn("1.2.3"), None);
        assert_eq!(parse_asn("x"), None);
        let doc = json!(["10.0.0.1", "fe80::a8c1:abff:fe94:4171%Et3", "spine1"]);
        let root = Node::root(&doc);
        let v: Vec<_> = root.items().unwrap().map(|n| n.ipv4_or_v6()).collect();
        assert_eq!(v[0], Ok(Some(Ipv4Addr::new(10, 0, 0, 1))));
        assert_eq!(v[1], Ok(None));
        assert_eq!(v[2].as_ref().unwrap_err().at, "/2");
    }

    #[test]
    fn strings_are_escaped_for_json() {
        let out = Q("a\"b\\c\nd\u{1}é").to_string();
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001é\"");
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\"b\\c\nd\u{1}é");
    }
}
