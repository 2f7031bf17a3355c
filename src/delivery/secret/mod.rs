//! Secret-aware comparison of a rendered line with a running one (`aifab drift`, docs/push.md
//! "Convergence"). aifab renders secrets as placeholders (`key 0 AIFAB_SECRET(aaa_key)`), the switch
//! prints them in its own form (`key 7 "..."`, a localized SNMPv3 key, a SHA-crypt hash). Two lines
//! match when every other word is equal and each secret, in the switch's form, is the known value:
//! type 7 decoded ([`type7`]), the SNMPv3 key localized with the switch's engine ID ([`snmp_key`],
//! [`engine`]), the hash recomputed with the printed salt ([`crypt`]). A secret whose value (or engine
//! ID) is not at hand is not compared, and counted.

pub mod crypt;
pub mod engine;
pub mod snmp_key;
pub mod type7;
pub mod values;

use crate::model::baseline::{ENV_TOKEN, VAULT_TOKEN};
use snmp_key::Auth;
use std::collections::{BTreeMap, BTreeSet};

/// What `aifab drift` knows to compare secrets with, for one device.
#[derive(Clone, Debug)]
pub struct Known {
    /// The switch's type-7 cipher.
    pub cipher: type7::Cipher,
    /// Values of `AIFAB_SECRET(name)` by name (`--secrets FILE`).
    pub vault: BTreeMap<String, String>,
    /// Values of `AIFAB_ENV(NAME)` by name (the process environment).
    pub env: BTreeMap<String, String>,
    /// The switch's local SNMP engine ID (`<host>.engineid`).
    pub engine: Option<Vec<u8>>,
}

impl Known {
    /// Nothing known: every secret is left uncompared.
    pub fn nothing(cipher: type7::Cipher) -> Known {
        Known {
            cipher,
            vault: BTreeMap::new(),
            env: BTreeMap::new(),
            engine: None,
        }
    }

    fn value(&self, word: &str) -> Option<Option<&str>> {
        let inner = |token: &str| word.strip_prefix(token)?.strip_suffix(')');
        if let Some(name) = inner(VAULT_TOKEN) {
            return Some(self.vault.get(name).map(String::as_str));
        }
        inner(ENV_TOKEN).map(|name| self.env.get(name).map(String::as_str))
    }
}

/// A word of a running line as compared.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Held {
    Word(String),
    /// A `key 7` value.
    Type7(String),
    /// A form aifab cannot compute (type 6/8a keys, NX-OS `localizedV2key`).
    Opaque,
    /// A SHA-crypt hash.
    Crypt(String),
    /// A localized SNMPv3 key: the privacy key when `privacy`.
    Snmp {
        auth: Option<Auth>,
        key: Vec<u8>,
        privacy: bool,
    },
}

/// The outcome of comparing one line pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Equal, `n` secrets not compared (0: every one compared and equal).
    Equal(usize),
    /// Not the same line, or a secret that differs.
    Differs,
}

/// Words that name a privacy cipher between `priv` and the key.
const PRIV_CIPHERS: [&str; 7] = [
    "des", "3des", "aes", "aes-128", "aes128", "aes192", "aes256",
];

/// A running line read word by word into the form it is compared in.
#[derive(Default)]
struct Reader {
    out: Vec<Held>,
    /// The engine ID the line names (EOS `localized <hex>`, NX-OS `engineID <decimal>`).
    engine: Option<Vec<u8>>,
    /// The authentication protocol of an SNMP user line (its privacy key is hashed with it).
    auth: Option<Auth>,
    /// NX-OS 10's `localizedV2key`: keys aifab cannot compute.
    v2: bool,
}

impl Reader {
    fn word(&mut self, s: &str) {
        self.out.push(Held::Word(s.to_string()));
    }

    /// Reads the words from `w[0]` on that one secret form takes; how many (0: none of them).
    fn secret(&mut self, w: &[&str]) -> usize {
        let held = match w {
            ["key", "7", v, ..] => Held::Type7((*v).into()),
            ["key", "6" | "8a", _, ..] => Held::Opaque,
            ["password" | "secret", _, h, ..] if h.starts_with("$5$") || h.starts_with("$6$") => {
                Held::Crypt((*h).into())
            }
            _ => return 0,
        };
        // The rendered line gives the value in clear: type 0.
        self.word(w[0]);
        self.word("0");
        self.out.push(held);
        3
    }

    /// Reads the words from `w[0]` on of an SNMPv3 user's keys and engine; how many (0: none).
    fn snmp(&mut self, w: &[&str]) -> usize {
        let key = |k: &str| snmp_key::parse_hex(k).unwrap_or_default();
        let (privacy, taken) = match w {
            ["auth", a, k, ..] => {
                self.auth = Auth::parse(a);
                (
                    Held::Snmp {
                        auth: self.auth,
                        key: key(k),
                        privacy: false,
                    },
                    3,
                )
            }
            ["priv", c, k, ..] if PRIV_CIPHERS.contains(c) => (
                Held::Snmp {
                    auth: self.auth,
                    key: key(k),
                    privacy: true,
                },
                3,
            ),
            ["priv", k, ..] => (
                Held::Snmp {
                    auth: self.auth,
                    key: key(k),
                    privacy: true,
                },
                2,
            ),
            ["localized", e, ..] => {
                self.engine = snmp_key::parse_hex(e);
                return 2;
            }
            ["engineID", e, ..] => {
                self.engine = engine::decimal(e);
                return 2;
            }
            ["localizedkey", ..] => return 1,
            ["localizedV2key", ..] => {
                self.v2 = true;
                return 1;
            }
            _ => return 0,
        };
        w[..taken - 1].iter().for_each(|x| self.word(x));
        self.out.push(privacy);
        taken
    }
}

/// A running line's words, each secret in the form it is compared in, and the engine ID the line
/// names itself.
fn switch_form(line: &str) -> (Vec<Held>, Option<Vec<u8>>) {
    let w: Vec<&str> = line.split_whitespace().collect();
    let snmp = line.contains("snmp-server user ");
    let mut r = Reader::default();
    let mut i = 0;
    while i < w.len() {
        let mut n = r.secret(&w[i..]);
        if n == 0 && snmp {
            n = r.snmp(&w[i..]);
        }
        if n == 0 {
            r.word(w[i]);
            n = 1;
        }
        i += n;
    }
    if r.v2 {
        // NX-OS 10's localizedV2key keys are not the RFC 3414 key: not computable here.
        r.out
            .iter_mut()
            .filter(|h| matches!(h, Held::Snmp { .. }))
            .for_each(|h| *h = Held::Opaque);
    }
    (r.out, r.engine)
}

/// Whether `value` is the secret `held` shows: `None` when it cannot be told (no engine ID, a form
/// aifab does not compute).
fn holds(held: &Held, value: &str, cipher: type7::Cipher, engine: Option<&[u8]>) -> Option<bool> {
    match held {
        Held::Word(w) => Some(w == value),
        Held::Type7(t) => type7::decode(cipher, t).map(|clear| clear == value),
        Held::Opaque => None,
        Held::Crypt(h) => crypt::verify(value, h),
        Held::Snmp { auth, key, privacy } => {
            let (auth, engine) = ((*auth)?, engine?);
            if key.len() < 8 {
                return None;
            }
            let computed = if *privacy {
                snmp_key::priv_key(auth, value, engine, key.len())?
            } else {
                snmp_key::auth_key(auth, value, engine)?
            };
            Some(&computed == key)
        }
    }
}

/// Compares the rendered line (or line key) `rendered` with the running one.
pub fn compare(rendered: &str, running: &str, known: &Known) -> Verdict {
    let want: Vec<&str> = rendered.split_whitespace().collect();
    let (have, own_engine) = switch_form(running);
    if want.len() != have.len() {
        return Verdict::Differs;
    }
    // The plain words first: a line that differs there costs no key computation.
    let plain = want.iter().zip(&have).all(|(w, h)| match h {
        Held::Word(x) => known.value(w).is_some() || x == w,
        _ => true,
    });
    if !plain {
        return Verdict::Differs;
    }
    let engine = own_engine.as_deref().or(known.engine.as_deref());
    let mut unchecked = 0;
    for (w, h) in want.iter().zip(&have) {
        let value = match known.value(w) {
            Some(Some(v)) => v,
            Some(None) => {
                unchecked += 1;
                continue;
            }
            None if matches!(h, Held::Word(_)) => continue,
            None => w,
        };
        match holds(h, value, known.cipher, engine) {
            Some(true) => {}
            Some(false) => return Verdict::Differs,
            None => unchecked += 1,
        }
    }
    Verdict::Equal(unchecked)
}

/// Pairs each rendered line key that `have` lacks with a running one that `want` lacks and that is
/// the same line with its secrets in the switch's form ([`compare`]), and adds each to the other set,
/// so that neither counts as added or removed. Returns how many secrets of the paired lines were not
/// compared.
pub fn reconcile(want: &mut BTreeSet<String>, have: &mut BTreeSet<String>, known: &Known) -> usize {
    let rendered: Vec<String> = want.difference(have).cloned().collect();
    let mut running: Vec<String> = have
        .difference(want)
        .filter(|k| switch_form(k).0.iter().any(|h| !matches!(h, Held::Word(_))))
        .cloned()
        .collect();
    let mut unchecked = 0;
    for r in rendered {
        let hit = running
            .iter()
            .enumerate()
            .find_map(|(i, s)| match compare(&r, s, known) {
                Verdict::Equal(n) => Some((i, n)),
                Verdict::Differs => None,
            });
        if let Some((i, n)) = hit {
            let s = running.swap_remove(i);
            unchecked += n;
            have.insert(r);
            want.insert(s);
        }
    }
    unchecked
}

#[cfg(test)]
mod tests;
