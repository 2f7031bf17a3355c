//! Canonical JSON: parse a template's JSON output and write it back with object keys sorted (by their
//! decoded text, as `serde_json` with sorted maps would) and 4-space indentation, so the bytes never depend
//! on the template's whitespace or key order.
//!
//! A purpose-built parser: it borrows every key and scalar from the input and only re-escapes strings
//! that need it, which makes it several times faster than building a `serde_json::Value` and sorting it
//! (SONiC config_db.json files of 128-port switches are ~190 KB each, and a 100K-GPU fabric has
//! thousands). `canonical_matches_serde` in the tests checks it against serde_json.

use std::borrow::Cow;

enum Node<'a> {
    /// Object entries: (decoded key, raw key literal with quotes, value).
    Obj(Vec<(Cow<'a, str>, &'a str, Node<'a>)>),
    Arr(Vec<Node<'a>>),
    /// A string literal as it appears in the input (with quotes), and whether it needs re-escaping.
    Str(&'a str, bool),
    /// `true`, `false` or `null`.
    Lit(&'a str),
    /// A number, normalized the way serde_json prints it (`-3e2` → `-300.0`).
    Num(String),
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }
    fn value(&mut self, depth: usize) -> Result<Node<'a>, String> {
        if depth > 128 {
            return self.err("nesting too deep");
        }
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Node::Obj(entries));
                }
                loop {
                    self.ws();
                    let (raw, escaped) = self.string()?;
                    let key = if escaped {
                        Cow::Owned(decode(raw)?)
                    } else {
                        Cow::Borrowed(&raw[1..raw.len() - 1])
                    };
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return self.err("expected `:`");
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    entries.push((key, raw, v));
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        _ => return self.err("expected `,` or `}`"),
                    }
                }
                Ok(Node::Obj(entries))
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Node::Arr(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        _ => return self.err("expected `,` or `]`"),
                    }
                }
                Ok(Node::Arr(items))
            }
            Some(b'"') => {
                let (raw, escaped) = self.string()?;
                Ok(Node::Str(raw, escaped))
            }
            Some(_) => {
                let start = self.i;
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'
                    )
                {
                    self.i += 1;
                }
                let lit = &self.s[start..self.i];
                if matches!(lit, "true" | "false" | "null") {
                    return Ok(Node::Lit(lit));
                }
                match serde_json::from_str::<serde_json::Number>(lit) {
                    Ok(n) => Ok(Node::Num(n.to_string())),
                    Err(_) => self.err("invalid literal"),
                }
            }
            None => self.err("unexpected end"),
        }
    }
    /// A string literal: its raw text with quotes, and whether it contains an escape or a character
    /// that must be escaped on output.
    fn string(&mut self) -> Result<(&'a str, bool), String> {
        if self.b.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        let start = self.i;
        self.i += 1;
        let mut special = false;
        loop {
            match self.b.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok((&self.s[start..self.i], special));
                }
                Some(b'\\') => {
                    special = true;
                    self.i += 2;
                }
                Some(c) if *c < 0x20 => return self.err("control character in string"),
                Some(_) => self.i += 1,
            }
        }
    }
}

fn decode(raw: &str) -> Result<String, String> {
    serde_json::from_str::<String>(raw).map_err(|e| e.to_string())
}

fn write_str(out: &mut String, raw: &str, escaped: bool) -> Result<(), String> {
    if escaped {
        // Normalize escapes the way serde_json writes them.
        let s = decode(raw)?;
        out.push_str(&serde_json::to_string(&s).map_err(|e| e.to_string())?);
    } else {
        out.push_str(raw);
    }
    Ok(())
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn write(out: &mut String, n: &mut Node<'_>, level: usize) -> Result<(), String> {
    match n {
        Node::Obj(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push_str("{\n");
            let last = entries.len() - 1;
            for (i, (key, raw, v)) in entries.iter_mut().enumerate() {
                indent(out, level + 1);
                let escaped = raw.len() != key.len() + 2;
                write_str(out, raw, escaped)?;
                out.push_str(": ");
                write(out, v, level + 1)?;
                if i != last {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, level);
            out.push('}');
        }
        Node::Arr(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push_str("[\n");
            let last = items.len() - 1;
            for (i, v) in items.iter_mut().enumerate() {
                indent(out, level + 1);
                write(out, v, level + 1)?;
                if i != last {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, level);
            out.push(']');
        }
        Node::Str(raw, escaped) => write_str(out, raw, *escaped)?,
        Node::Lit(l) => out.push_str(l),
        Node::Num(n) => out.push_str(n),
    }
    Ok(())
}

/// Parses JSON and writes it back with sorted keys and 4-space indentation, plus a final newline.
pub fn canonical_json(raw: &str) -> Result<String, String> {
    let mut p = Parser {
        s: raw,
        b: raw.as_bytes(),
        i: 0,
    };
    let mut root = p.value(0)?;
    p.ws();
    if p.i != raw.len() {
        return p.err("trailing characters");
    }
    let mut out = String::with_capacity(raw.len() + raw.len() / 2);
    write(&mut out, &mut root, 0)?;
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    /// The reference: serde_json with sorted keys and a 4-space pretty printer.
    fn via_serde(raw: &str) -> String {
        fn sort(v: serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(m) => {
                    let mut e: Vec<_> = m.into_iter().collect();
                    e.sort_by(|a, b| a.0.cmp(&b.0));
                    serde_json::Value::Object(e.into_iter().map(|(k, v)| (k, sort(v))).collect())
                }
                serde_json::Value::Array(a) => {
                    serde_json::Value::Array(a.into_iter().map(sort).collect())
                }
                o => o,
            }
        }
        let v = sort(serde_json::from_str(raw).expect("json"));
        let mut buf = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(
            &mut buf,
            serde_json::ser::PrettyFormatter::with_indent(b"    "),
        );
        v.serialize(&mut ser).expect("ser");
        String::from_utf8(buf).expect("utf8") + "\n"
    }

    #[test]
    fn canonical_matches_serde() {
        for raw in [
            r#"{"b": {"d": "1", "c": "2"}, "a": [], "e": {}}"#,
            r#"{"k\u0041": "\u00e9\n\"x\"", "kA2": [1, 2.5, -3e2, true, null, {"z": 1, "y": [ ]}]}"#,
            r#"[ {"Ethernet8": {"x":"1"}, "Ethernet0|10.0.0.0/31": {} } ]"#,
            r#""plain""#,
        ] {
            assert_eq!(canonical_json(raw).expect("ours"), via_serde(raw), "{raw}");
        }
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            r#"{"a": }"#,
            r#"{"a" 1}"#,
            "[1,]",
            r#"{"a": tru}"#,
            r#""x"#,
            "{} x",
            "{\"a\":\"\u{1}\"}",
        ] {
            assert!(canonical_json(bad).is_err(), "{bad}");
        }
    }
}
