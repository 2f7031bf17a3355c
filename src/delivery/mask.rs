//! Secrets out of what `aifab drift` prints: a running-config holds password hashes, reversible
//! type-7 keys, SNMP keys and communities. Each value after a secret keyword (`key`, `password`,
//! `secret`, `auth`, `priv`, `community`, ...), past an optional type or algorithm word (`7`, `sha512`,
//! `md5`, `aes-128`), is printed as `<secret>`. aifab's own placeholders (`AIFAB_SECRET(name)`,
//! `AIFAB_ENV(NAME)`) are not secrets and stay. The files `--write` makes keep every value: the switch
//! needs them.

use std::borrow::Cow;

/// Words after which a secret value follows.
const KEYWORDS: [&str; 10] = [
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
];

/// Words that follow a keyword without being a value (`no password strength-check`).
const NOT_VALUES: [&str; 3] = ["strength-check", "encryption", "required"];

/// Words between a keyword and its value: an encryption type or an algorithm.
fn is_type_word(w: &str) -> bool {
    w.bytes().all(|b| b.is_ascii_digit()) && w.len() <= 2
        || matches!(
            w,
            "md5"
                | "sha"
                | "sha1"
                | "sha-1"
                | "sha224"
                | "sha-224"
                | "sha256"
                | "sha-256"
                | "sha384"
                | "sha-384"
                | "sha512"
                | "sha-512"
                | "aes"
                | "aes-128"
                | "aes128"
                | "aes192"
                | "aes256"
                | "des"
                | "3des"
                | "encrypted"
        )
}

/// `line` with every secret value replaced by `<secret>` (borrowed when there is none).
pub fn mask(line: &str) -> Cow<'_, str> {
    let words: Vec<&str> = line.split(' ').collect();
    let mut hide = vec![false; words.len()];
    let mut i = 0;
    while i < words.len() {
        if KEYWORDS.contains(&words[i]) {
            let mut j = i + 1;
            if words.get(j).is_some_and(|w| is_type_word(w)) && j + 1 < words.len() {
                j += 1;
            }
            if let Some(w) = words
                .get(j)
                .filter(|w| !w.is_empty() && !NOT_VALUES.contains(w))
            {
                if !w.starts_with("AIFAB_SECRET(") && !w.starts_with("AIFAB_ENV(") {
                    hide[j] = true;
                }
                i = j;
            }
        }
        i += 1;
    }
    if !hide.contains(&true) {
        return Cow::Borrowed(line);
    }
    let out: Vec<&str> = words
        .iter()
        .zip(&hide)
        .map(|(w, h)| if *h { "<secret>" } else { w })
        .collect();
    Cow::Owned(out.join(" "))
}

/// Parts of a field or table name whose values are secrets (SONiC's `passkey`,
/// `SNMP_USER_AUTH_PASSWORD`, `SNMP_COMMUNITY`): printed as [`SECRET`].
const SECRET_NAMES: [&str; 5] = ["pass", "secret", "community", "key", "psk"];

/// What a masked value is printed as.
pub const SECRET: &str = "<secret>";

/// Whether the values under a field (or the keys of a table) named `name` are secrets.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
}

#[cfg(test)]
mod tests {
    use super::mask;

    #[test]
    fn values_after_secret_words_are_hidden() {
        let cases = [
            (
                "username admin password 5 $5$abc$def  role network-admin",
                "username admin password 5 <secret>  role network-admin",
            ),
            (
                "tacacs-server host 192.0.2.1 key 7 \"070C285F4D06\"",
                "tacacs-server host 192.0.2.1 key 7 <secret>",
            ),
            (
                "snmp-server user admin network-admin auth md5 0xabc priv 0xdef localizedkey",
                "snmp-server user admin network-admin auth md5 <secret> priv <secret> localizedkey",
            ),
            (
                "username netops privilege 15 role network-admin secret sha512 $6$x$y",
                "username netops privilege 15 role network-admin secret sha512 <secret>",
            ),
            (
                "snmp-server community public group network-operator",
                "snmp-server community <secret> group network-operator",
            ),
            (
                "tacacs-server host 192.0.2.11 key 0 AIFAB_SECRET(aaa_key)",
                "tacacs-server host 192.0.2.11 key 0 AIFAB_SECRET(aaa_key)",
            ),
            ("hostname leaf1", "hostname leaf1"),
            ("no password strength-check", "no password strength-check"),
        ];
        for (line, want) in cases {
            assert_eq!(mask(line), want, "{line}");
        }
    }

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
