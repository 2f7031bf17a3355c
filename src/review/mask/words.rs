//! The secret words: which word of a config line is a secret value, by one table ([`TABLE`]) that
//! both aifab and the playbooks' `aifab_mask` filter read (`ansible/filter_plugins/aifab_mask.json`
//! is this table as JSON, kept fresh by `tests/it/mask.rs`).
//!
//! A line is cut into words at spaces; a word that opens with `"` runs to its closing quote, so a
//! quoted key with spaces (`key 7 "a b c"`) is one word. Then:
//!
//! - after a **keyword** (`key`, `password`, `secret`, `community`, `key-string`, `authentication-key`,
//!   ...) and up to [`Table::max_type_words`] type words (`0`, `7`, `md5`, `sha512`, `aes-128`, ...,
//!   each followed by another word), the next word is the secret, unless it is a word that follows a
//!   keyword without being a value (`no password strength-check`, `key chain NAME`), a placeholder
//!   (`AIFAB_SECRET(name)`, `AIFAB_ENV(NAME)`: not secrets) or already hidden. A keyword after `set` or
//!   `match` (`set community 65000:1`) and `key` as a line's first word (a key chain's `key 1`) take
//!   no secret;
//! - after a **phrase** (`authentication text`; `version 2c` and `version 1` on `snmp-server host`
//!   lines) the next word is the secret (`snmp-server host 192.0.2.1 traps version 2c public`);
//! - a word that starts with a **flag** (`-cvauth=key,`) has the rest hidden (`-cvauth=token,/path`
//!   names a file and stays);
//! - after a **JSON key** (`"passkey":`) the string's content is hidden.
//!
//! A hidden value is printed as [`HIDDEN`]; everything else (spacing included) is kept.

use serde::Serialize;
use std::borrow::Cow;

/// What a hidden secret is printed as.
pub const HIDDEN: &str = "<secret>";

/// Parts of a field or table name whose values are secrets (SONiC's `passkey`,
/// `SNMP_USER_AUTH_PASSWORD`, `SNMP_COMMUNITY`): printed as [`HIDDEN`].
const SECRET_NAMES: [&str; 5] = ["pass", "secret", "community", "key", "psk"];

/// Whether the values under a field (or the keys of a table) named `name` are secrets.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
}

/// A phrase: two words after which a secret follows, on lines that start with `line` (any line when
/// it is empty).
#[derive(Debug, Serialize)]
pub struct Phrase {
    /// The start a line needs (`snmp-server host`), or empty.
    pub line: &'static str,
    /// The two words.
    pub words: [&'static str; 2],
}

/// The rules of the secret words (see the module doc).
#[derive(Debug, Serialize)]
pub struct Table {
    /// What a hidden value is printed as.
    pub hidden: &'static str,
    /// Words after which (past type words) a secret value follows.
    pub keywords: &'static [&'static str],
    /// Two-word phrases after which a secret follows directly.
    pub phrases: &'static [Phrase],
    /// Keywords that take no secret as a line's first word (`key 1` of a key chain).
    pub id_first_words: &'static [&'static str],
    /// Words after which a keyword is no keyword (`set community 65000:1`).
    pub not_after: &'static [&'static str],
    /// Words between a keyword and its value: encryption types and algorithms (and any number of at
    /// most [`Table::type_digits_max`] digits).
    pub type_words: &'static [&'static str],
    /// The most digits a type number has (`0`, `7`, key ids `1`).
    pub type_digits_max: usize,
    /// The most type words skipped after a keyword (`ntp authentication-key 1 md5 7 X`: three).
    pub max_type_words: usize,
    /// Words that follow a keyword without being a value.
    pub not_values: &'static [&'static str],
    /// What a placeholder for a secret starts with (not a secret itself).
    pub placeholders: &'static [&'static str],
    /// Word starts whose rest is a secret.
    pub flags: &'static [&'static str],
    /// JSON keys whose string value is a secret.
    pub json_keys: &'static [&'static str],
}

/// The one table of secret words.
pub const TABLE: Table = Table {
    hidden: HIDDEN,
    keywords: &[
        "key",
        "key-string",
        "password",
        "secret",
        "auth",
        "priv",
        "community",
        "passphrase",
        "passkey",
        "authentication-key",
        "message-digest-key",
    ],
    phrases: &[
        Phrase {
            line: "",
            words: ["authentication", "text"],
        },
        Phrase {
            line: "snmp-server host",
            words: ["version", "1"],
        },
        Phrase {
            line: "snmp-server host",
            words: ["version", "2c"],
        },
    ],
    id_first_words: &["key"],
    not_after: &["set", "match"],
    type_words: &[
        "md5",
        "sha",
        "sha1",
        "sha-1",
        "sha224",
        "sha-224",
        "sha256",
        "sha-256",
        "sha384",
        "sha-384",
        "sha512",
        "sha-512",
        "aes",
        "aes-128",
        "aes128",
        "aes192",
        "aes256",
        "des",
        "3des",
        "encrypted",
    ],
    type_digits_max: 2,
    max_type_words: 3,
    not_values: &[
        "strength-check",
        "encryption",
        "required",
        "chain",
        "minimum",
        "policy",
        "generate",
        "rsa",
        "dsa",
        "ecdsa",
    ],
    placeholders: &["AIFAB_SECRET(", "AIFAB_ENV("],
    flags: &["-cvauth=key,"],
    json_keys: &[
        "passkey",
        "SNMP_USER_AUTH_PASSWORD",
        "SNMP_USER_ENCRYPTION_PASSWORD",
    ],
};

/// The table as the JSON file the playbooks' filter reads (`ansible/filter_plugins/aifab_mask.json`).
pub fn table_json() -> String {
    let mut s = serde_json::to_string_pretty(&TABLE).unwrap_or_default();
    s.push('\n');
    s
}

/// How much of one word is hidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hide {
    /// The whole word.
    Whole,
    /// All after its first `n` bytes (a flag).
    After(usize),
    /// The content of the JSON string it opens.
    JsonString,
}

/// The byte ranges of the words of `line` (see the module doc).
fn spans(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
            continue;
        }
        let start = i;
        if b[i] == b'"' {
            i = match line[i + 1..].find('"') {
                Some(k) => i + 1 + k + 1,
                None => b.len(),
            };
        }
        while i < b.len() && b[i] != b' ' {
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// Whether `w` is a type word (an encryption type, an algorithm, a small number).
fn is_type_word(w: &str) -> bool {
    let digits =
        !w.is_empty() && w.len() <= TABLE.type_digits_max && w.bytes().all(|b| b.is_ascii_digit());
    digits || TABLE.type_words.contains(&w)
}

/// Whether `w` may be hidden as a value: not empty, not a non-value word, not a placeholder, not
/// hidden already.
fn is_value(w: &str) -> bool {
    let bare = w.trim_start_matches('"');
    !w.is_empty()
        && !TABLE.not_values.contains(&w)
        && !TABLE.placeholders.iter().any(|p| bare.starts_with(p))
        && bare.trim_end_matches('"') != HIDDEN
}

/// Where the value after keyword `i` is, past its type words.
fn value_after_keyword(words: &[&str], i: usize) -> usize {
    let mut j = i + 1;
    let mut skipped = 0;
    while skipped < TABLE.max_type_words && j + 1 < words.len() && is_type_word(words[j]) {
        j += 1;
        skipped += 1;
    }
    j
}

/// Whether word `i` ends a phrase that applies to `line`.
fn ends_phrase(line: &str, words: &[&str], i: usize) -> bool {
    i > 0
        && TABLE.phrases.iter().any(|p| {
            p.words == [words[i - 1], words[i]]
                && (p.line.is_empty()
                    || line.trim_start().starts_with(p.line)
                        && line.trim_start()[p.line.len()..].starts_with(' '))
        })
}

/// What to hide of each word of `line` (cut into `words`).
fn hidden(line: &str, words: &[&str]) -> Vec<Option<Hide>> {
    let mut hide = vec![None; words.len()];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if let Some(f) = TABLE.flags.iter().find(|f| w.starts_with(**f)) {
            if w.len() > f.len() && is_value(&w[f.len()..]) {
                hide[i] = Some(Hide::After(f.len()));
            }
        } else if TABLE.keywords.contains(&w) && !(i > 0 && TABLE.not_after.contains(&words[i - 1]))
        {
            // A line's first `key` is a key chain's entry: its id is no secret.
            let id = i == 0 && TABLE.id_first_words.contains(&w);
            let j = if id {
                i + 1
            } else {
                value_after_keyword(words, i)
            };
            if words.get(j).is_some_and(|v| is_value(v)) {
                if !id {
                    hide[j] = Some(Hide::Whole);
                }
                i = j;
            }
        } else if ends_phrase(line, words, i) {
            if words.get(i + 1).is_some_and(|v| is_value(v)) {
                hide[i + 1] = Some(Hide::Whole);
                i += 1;
            }
        } else if json_key(w) && words.get(i + 1).is_some_and(|v| v.starts_with('"')) {
            if is_value(words[i + 1]) {
                hide[i + 1] = Some(Hide::JsonString);
            }
            i += 1;
        }
        i += 1;
    }
    hide
}

/// Whether `w` is `"KEY":` for a secret JSON key.
fn json_key(w: &str) -> bool {
    w.strip_prefix('"')
        .and_then(|k| k.strip_suffix("\":"))
        .is_some_and(|k| TABLE.json_keys.contains(&k))
}

/// `word` as `hide` prints it.
fn hide_word(word: &str, hide: Hide) -> String {
    match hide {
        Hide::Whole => HIDDEN.to_string(),
        Hide::After(n) => format!("{}{HIDDEN}", &word[..n]),
        Hide::JsonString => match word[1..].find('"') {
            Some(k) => format!("\"{HIDDEN}{}", &word[1 + k..]),
            None => format!("\"{HIDDEN}"),
        },
    }
}

/// `line` with every secret value replaced by [`HIDDEN`] (borrowed when there is none).
pub fn mask(line: &str) -> Cow<'_, str> {
    let spans = spans(line);
    let words: Vec<&str> = spans.iter().map(|(s, e)| &line[*s..*e]).collect();
    let hide = hidden(line, &words);
    if hide.iter().all(Option::is_none) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for ((s, e), h) in spans.iter().zip(&hide) {
        if let Some(h) = h {
            out.push_str(&line[at..*s]);
            out.push_str(&hide_word(&line[*s..*e], *h));
            at = *e;
        }
    }
    out.push_str(&line[at..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn secret_field_names() {
        for name in [
            "passkey",
            "SNMP_USER_AUTH_PASSWORD",
            "SNMP_COMMUNITY",
            "secret",
        ] {
            assert!(super::is_secret_name(name), "{name}");
        }
        for name in ["mtu", "SNMP_USER_AUTH_TYPE", "admin_status", "hostname"] {
            assert!(!super::is_secret_name(name), "{name}");
        }
    }
}
