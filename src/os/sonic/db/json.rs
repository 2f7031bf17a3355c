//! The pretty JSON printer of [`super::ConfigDb::to_json`]: the layout of `serde_json`'s
//! `PrettyFormatter` with a 4-space indent and its string escaping, printed straight from the typed
//! tables without going through serde (tests compare the two byte for byte).

use super::{ConfigDb, Part, Row, Table, Value};
use crate::spell::{push_decimal, push_ipv4};
use std::fmt::Write as _;
use std::net::IpAddr;

/// Indentation of each nesting level (a config_db nests four deep at most).
const INDENT: [&str; 5] = ["", "    ", "        ", "            ", "                "];

/// The whole file, without its final newline.
pub(super) fn config_db(out: &mut String, db: &ConfigDb<'_>) {
    let mut printed = Printed::default();
    object(
        out,
        0,
        db.tables.iter().map(|(k, t)| (*k, &**t)),
        |out, t| table(out, t, &mut printed),
    );
}

/// Where in the file each shared row was printed first. A row borrowed by every port (a PFC_WD or
/// BUFFER_QUEUE entry) prints the same bytes each time, all rows sitting at one nesting level, so
/// after its first print it is copied from there. A file has a handful of shared rows.
#[derive(Default)]
struct Printed(Vec<(*const (), std::ops::Range<usize>)>);

impl Printed {
    /// Prints row `r` at the table-row level, or copies its earlier print when it is shared.
    fn row(&mut self, out: &mut String, r: &Part<'_, Row<'_>>) {
        let Part::Shared(shared) = r else {
            return row(out, r);
        };
        let id = std::ptr::from_ref(*shared).cast::<()>();
        if let Some((_, at)) = self.0.iter().find(|(p, _)| *p == id) {
            out.extend_from_within(at.clone());
            return;
        }
        let start = out.len();
        row(out, shared);
        self.0.push((id, start..out.len()));
    }
}

fn table(out: &mut String, t: &Table<'_>, printed: &mut Printed) {
    object(
        out,
        1,
        t.0.iter().map(|(k, r)| (k.as_ref(), r)),
        |out, r| printed.row(out, r),
    );
}

fn row(out: &mut String, r: &Row<'_>) {
    object(out, 2, r.0.iter().map(|(k, v)| (k.as_ref(), v)), value);
}

/// `{ "key": value, ... }` whose keys sit at nesting `level + 1`; `{}` when empty.
fn object<'e, V: ?Sized + 'e>(
    out: &mut String,
    level: usize,
    entries: impl Iterator<Item = (&'e str, &'e V)>,
    mut print: impl FnMut(&mut String, &V),
) {
    out.push('{');
    let mut any = false;
    for (k, v) in entries {
        out.push_str(if any { ",\n" } else { "\n" });
        out.push_str(INDENT[level + 1]);
        string(out, k);
        out.push_str(": ");
        print(out, v);
        any = true;
    }
    if any {
        out.push('\n');
        out.push_str(INDENT[level]);
    }
    out.push('}');
}

/// A field value at nesting level 3 (a list's items sit at level 4).
fn value(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Text(t) => string(out, t),
        Value::Num(n) => {
            out.push('"');
            push_decimal(out, *n);
            out.push('"');
        }
        Value::Ip(IpAddr::V4(ip)) => {
            out.push('"');
            push_ipv4(out, *ip);
            out.push('"');
        }
        Value::Ip(ip) => {
            let _ = write!(out, "\"{ip}\"");
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                out.push_str(INDENT[4]);
                string(out, item);
            }
            if !items.is_empty() {
                out.push('\n');
                out.push_str(INDENT[3]);
            }
            out.push(']');
        }
    }
}

/// A JSON string. Text without a quote, a backslash or a control character is copied as it is;
/// anything else is escaped by `serde_json` itself.
fn string(out: &mut String, s: &str) {
    if plain(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else if let Ok(text) = serde_json::to_string(s) {
        out.push_str(&text);
    }
}

/// True when no byte of `b` needs a JSON escape (a quote, a backslash or a control character below
/// 0x20), looked at eight bytes at a time: a file holds millions of strings. The word tests are the
/// "has a byte less than n" and "has a zero byte" bit tricks, exact as to whether any byte matches.
fn plain(b: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let has = |x: u64, c: u8| below(x ^ (ONES * u64::from(c)), 1);
    let clean = |w: [u8; 8]| {
        let x = u64::from_le_bytes(w);
        below(x, 0x20) | has(x, b'"') | has(x, b'\\') == 0
    };
    let Some(last) = b.len().checked_sub(8) else {
        // Shorter than a word: padded with a letter, which needs no escape.
        let mut w = [b'a'; 8];
        w[..b.len()].copy_from_slice(b);
        return clean(w);
    };
    // Whole words, then the last eight bytes (overlapping the words before when the length is not a
    // multiple of eight).
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        w
    };
    (0..last).step_by(8).all(|at| clean(word(at))) && clean(word(last))
}

#[cfg(test)]
mod tests {
    use super::plain;

    /// The word-at-a-time test agrees with the byte test for every byte value at every position of
    /// strings of 0 to 17 bytes, on backgrounds that make the word arithmetic borrow (0x20, 0x21,
    /// 0x80, 0xff) and on plain text.
    #[test]
    fn plain_agrees_with_the_byte_test() {
        let byte_test = |b: &[u8]| b.iter().all(|&c| c >= 0x20 && c != b'"' && c != b'\\');
        for background in [b'a', 0x20, 0x21, 0x80, 0xff] {
            for len in 0..=17usize {
                let base = vec![background; len];
                assert_eq!(plain(&base), byte_test(&base));
                for at in 0..len {
                    for c in 0..=255u8 {
                        let mut b = base.clone();
                        b[at] = c;
                        assert_eq!(plain(&b), byte_test(&b), "{b:?}");
                    }
                }
            }
        }
    }
}
