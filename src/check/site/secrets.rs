//! Secrets in site lines: a site line is printed as written into files that reviews, goldens and
//! `aifab drift` show, so it may hold no clear-text password (`password 0 ...`, `secret 0 ...`,
//! `key 0 ...`, `key-string 0 ...`, or a `password`/`secret` value with no type before it), and it may
//! not redefine a user the baseline renders (`username netops ...`: two definitions of the push's own
//! login user, the later one winning).

/// Words a secret value follows.
const KEYWORDS: [&str; 5] = [
    "password",
    "secret",
    "key",
    "key-string",
    "authentication-key",
];

/// Keywords whose value is clear text when no type comes before it.
const TYPED: [&str; 3] = ["password", "secret", "key-string"];

/// Words after a keyword that are options, not values (`no password strength-check`).
const NOT_VALUES: [&str; 8] = [
    "strength-check",
    "encryption",
    "required",
    "minimum",
    "policy",
    "secure-mode",
    "chain",
    "config-key",
];

/// Whether `w` names how a secret is encrypted or hashed (a type number or an algorithm), so the
/// value after it is not clear text.
fn is_type(w: &str) -> bool {
    w.len() <= 2 && w.bytes().all(|b| b.is_ascii_digit()) && w != "0"
        || matches!(
            w,
            "sha512" | "sha256" | "md5" | "sha" | "sha1" | "nopassword" | "encrypted"
        )
}

/// First words of lines that hold free text, where `password` is a word and not a keyword.
const TEXT_LINES: [&str; 4] = ["description", "remark", "comment", "alias"];

/// Why `line` holds a clear-text secret, if it does.
pub(super) fn cleartext(line: &str) -> Option<String> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words
        .first()
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
    {
        words.remove(0);
    }
    if words
        .first()
        .is_some_and(|w| TEXT_LINES.contains(&w.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_ascii_lowercase();
        if !KEYWORDS.contains(&lower.as_str()) || i == 0 && lower == "key" {
            continue;
        }
        let (Some(next), after) = (words.get(i + 1), words.get(i + 2)) else {
            continue;
        };
        if *next == "0" && after.is_some() {
            return Some(format!("holds a clear-text secret (`{w} 0 ...`)"));
        }
        let option = NOT_VALUES.contains(next) || is_type(next) || *next == "0";
        if TYPED.contains(&lower.as_str()) && !option {
            return Some(format!(
                "holds a clear-text secret (`{w}` with no type before its value)"
            ));
        }
    }
    None
}

/// The baseline user `line` (a top-level site line) defines, if it is one of `users`.
pub(super) fn baseline_user<'u>(line: &str, users: &'u [String]) -> Option<&'u str> {
    let mut words = line.split_whitespace();
    let first = words.next()?.to_ascii_lowercase();
    if first.len() < 4 || !"username".starts_with(&first) {
        return None;
    }
    let name = words.next()?;
    users.iter().find(|u| *u == name).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_text_secrets_are_found_and_typed_ones_are_not() {
        for bad in [
            "username x password 0 Tst",
            "enable secret 0 Tst",
            "tacacs-server key 0 Tst",
            "    key-string 0 Tst",
            "username x password Tst role network-admin",
            "   neighbor 10.0.0.1 password Tst",
            "enable secret Tst",
            "    key-string Tst",
        ] {
            assert!(cleartext(bad).is_some(), "{bad:?}");
        }
        for good in [
            "username x password 5 $5$a$b role network-admin",
            "enable secret sha512 $6$a$b",
            "tacacs-server key 7 \"0A0B\"",
            "no password strength-check",
            "key chain K",
            "  key 1",
            "    key-string 7 0A0B",
            "username x nopassword",
            "username x secret nopassword",
            "  description password reset lab",
            "  10 remark secret sauce",
        ] {
            assert_eq!(cleartext(good), None, "{good:?}");
        }
    }

    #[test]
    fn a_baseline_users_line_is_found() {
        let users = vec!["netops".to_string()];
        assert_eq!(
            baseline_user("username netops role network-operator", &users),
            Some("netops")
        );
        assert_eq!(
            baseline_user("user netops password 5 x", &users),
            Some("netops")
        );
        assert_eq!(baseline_user("username other role x", &users), None);
    }
}
