//! Name patterns: `su{group}-r{rail}-leaf`, `spine{index:02}`.

use std::fmt::Write as _;

/// Why a name pattern could not be expanded, or a name it gave is refused; the text names both.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// A `}` with no `{` before it.
    #[error("unbalanced `}}` in `{0}`")]
    UnbalancedClose(String),
    /// A `{` with no `}` after it.
    #[error("unbalanced `{{` in `{0}`")]
    UnbalancedOpen(String),
    /// A width that is not a number.
    #[error("bad width `{width}` in `{{{inner}}}`: write e.g. `{{{name}:02}}`")]
    BadWidth {
        /// The width as written.
        width: String,
        /// The placeholder's text inside its braces.
        inner: String,
        /// The placeholder's name.
        name: String,
    },
    /// A width over 9.
    #[error("width {width} in `{{{inner}}}` is too large")]
    WideWidth {
        /// The width.
        width: usize,
        /// The placeholder's text inside its braces.
        inner: String,
    },
    /// A placeholder this pattern cannot use.
    #[error("unknown placeholder `{{{name}}}` in `{pattern}`; this pattern can use {known}")]
    UnknownPlaceholder {
        /// The placeholder's name.
        name: String,
        /// The pattern.
        pattern: String,
        /// The placeholders it can use (`{group}, {rail}`).
        known: String,
    },
    /// A hostname of the wrong length.
    #[error("hostname `{name}` has {} characters; RFC 1123 allows 1-63", name.len())]
    HostnameLength {
        /// The hostname.
        name: String,
    },
    /// A hostname with a character a label cannot hold.
    #[error("hostname `{}` contains {bad:?}; only letters, digits and `-` are allowed", name.escape_debug())]
    HostnameCharacter {
        /// The hostname.
        name: String,
        /// The first character refused.
        bad: char,
    },
    /// A hostname starting or ending with `-`.
    #[error("hostname `{0}` starts or ends with `-`")]
    HostnameDash(String),
    /// A config token of the wrong length.
    #[error("`{}` must have 1-64 characters", .0.escape_debug())]
    TokenLength(String),
    /// A config token with a character it cannot hold.
    #[error("`{}` contains {bad:?}; only letters, digits and - _ . / : are allowed", name.escape_debug())]
    TokenCharacter {
        /// The token.
        name: String,
        /// The first character refused.
        bad: char,
    },
}

/// Expands `{name}` and `{name:0N}` placeholders with the given values. Unknown placeholders, unbalanced
/// braces and empty results are errors.
pub fn expand(pattern: &str, values: &[(&str, u32)]) -> Result<String, PatternError> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut rest = pattern;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(PatternError::UnbalancedClose(pattern.to_string()));
        }
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| PatternError::UnbalancedOpen(pattern.to_string()))?;
        let inner = &after[..close];
        let (name, width) = match inner.split_once(':') {
            Some((n, w)) => {
                let digits = w.strip_prefix('0').unwrap_or(w);
                let width: usize = digits.parse().map_err(|_| PatternError::BadWidth {
                    width: w.to_string(),
                    inner: inner.to_string(),
                    name: n.to_string(),
                })?;
                if width > 9 {
                    return Err(PatternError::WideWidth {
                        width,
                        inner: inner.to_string(),
                    });
                }
                (n, width)
            }
            None => (inner, 0),
        };
        let value = values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<String> = values.iter().map(|(n, _)| format!("{{{n}}}")).collect();
                PatternError::UnknownPlaceholder {
                    name: name.to_string(),
                    pattern: pattern.to_string(),
                    known: names.join(", "),
                }
            })?;
        // Writing to a String cannot fail.
        let _ = write!(out, "{value:0width$}");
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// True when every placeholder of `pattern` is one of `required`... used to check a pattern names each
/// device uniquely: returns the placeholders the pattern lacks.
pub fn missing(pattern: &str, required: &[&str]) -> Vec<String> {
    required
        .iter()
        .filter(|r| !pattern.contains(&format!("{{{r}}}")) && !pattern.contains(&format!("{{{r}:")))
        .map(|r| format!("{{{r}}}"))
        .collect()
}

/// Checks that a generated name is a valid RFC 1123 hostname label: 1-63 characters, letters, digits
/// and `-`, not starting or ending with `-`. Such a name is also safe as a file name and a config token.
pub fn check_hostname(name: &str) -> Result<(), PatternError> {
    if name.is_empty() || name.len() > 63 {
        return Err(PatternError::HostnameLength {
            name: name.to_string(),
        });
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return Err(PatternError::HostnameCharacter {
            name: name.to_string(),
            bad: c,
        });
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(PatternError::HostnameDash(name.to_string()));
    }
    Ok(())
}

/// Checks a name that ends up in a config line but is not a hostname (server NIC names, descriptions):
/// letters, digits and `-_./:` only, at most 64 characters. No space, quote, comment starter (`!`, `#`)
/// or control character can get through.
pub fn check_token(name: &str) -> Result<(), PatternError> {
    if name.is_empty() || name.len() > 64 {
        return Err(PatternError::TokenLength(name.to_string()));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-_./:".contains(*c)))
    {
        return Err(PatternError::TokenCharacter {
            name: name.to_string(),
            bad: c,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_with_padding() {
        let v = [("group", 3), ("rail", 7), ("index", 5)];
        assert_eq!(expand("su{group}-r{rail}-leaf", &v).unwrap(), "su3-r7-leaf");
        assert_eq!(expand("spine{index:02}", &v).unwrap(), "spine05");
        assert!(
            expand("x{zone}", &v)
                .unwrap_err()
                .to_string()
                .contains("unknown placeholder")
        );
        assert!(expand("x{index", &v).is_err());
        assert!(expand("x}", &v).is_err());
        assert_eq!(
            missing("su{group}-leaf", &["group", "rail"]),
            vec!["{rail}"]
        );
    }

    /// The typed errors print what the text errors printed (validate's findings quote them).
    #[test]
    fn errors_print_as_before() {
        let v = [("group", 3), ("index", 5)];
        let text = |r: Result<String, PatternError>| r.unwrap_err().to_string();
        assert_eq!(text(expand("a}", &v)), "unbalanced `}` in `a}`");
        assert_eq!(text(expand("a{group", &v)), "unbalanced `{` in `a{group`");
        assert_eq!(
            text(expand("s{index:x}", &v)),
            "bad width `x` in `{index:x}`: write e.g. `{index:02}`"
        );
        assert_eq!(
            text(expand("s{index:10}", &v)),
            "width 10 in `{index:10}` is too large"
        );
        assert_eq!(
            text(expand("s{rail}", &v)),
            "unknown placeholder `{rail}` in `s{rail}`; this pattern can use {group}, {index}"
        );
        let err = |r: Result<(), PatternError>| r.unwrap_err().to_string();
        assert_eq!(
            err(check_hostname("a\nb")),
            "hostname `a\\nb` contains '\\n'; only letters, digits and `-` are allowed"
        );
        assert_eq!(
            err(check_hostname("-a")),
            "hostname `-a` starts or ends with `-`"
        );
        assert_eq!(
            err(check_hostname("")),
            "hostname `` has 0 characters; RFC 1123 allows 1-63"
        );
        assert_eq!(err(check_token("")), "`` must have 1-64 characters");
        assert_eq!(
            err(check_token("a b")),
            "`a b` contains ' '; only letters, digits and - _ . / : are allowed"
        );
    }

    #[test]
    fn hostnames_and_tokens() {
        assert!(check_hostname("su1-r1-leaf").is_ok());
        assert!(check_hostname("../etc").is_err());
        assert!(check_hostname("a\nhostname x").is_err());
        assert!(check_hostname(&"a".repeat(64)).is_err());
        assert!(check_token("eth0").is_ok());
        assert!(check_token("nic 1").is_err());
        assert!(check_token("nic!").is_err());
    }
}
