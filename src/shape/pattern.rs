//! Name patterns: `su{group}-r{rail}-leaf`, `spine{index:02}`.

use std::fmt::Write as _;

/// Expands `{name}` and `{name:0N}` placeholders with the given values. Unknown placeholders, unbalanced
/// braces and empty results are errors.
pub fn expand(pattern: &str, values: &[(&str, u32)]) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut rest = pattern;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("unbalanced `}}` in `{pattern}`"));
        }
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unbalanced `{{` in `{pattern}`"))?;
        let inner = &after[..close];
        let (name, width) = match inner.split_once(':') {
            Some((n, w)) => {
                let digits = w.strip_prefix('0').unwrap_or(w);
                let width: usize = digits.parse().map_err(|_| {
                    format!("bad width `{w}` in `{{{inner}}}`: write e.g. `{{{n}:02}}`")
                })?;
                if width > 9 {
                    return Err(format!("width {width} in `{{{inner}}}` is too large"));
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
                format!(
                    "unknown placeholder `{{{name}}}` in `{pattern}`; this pattern can use {}",
                    names.join(", ")
                )
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
pub fn check_hostname(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 63 {
        return Err(format!(
            "hostname `{name}` has {} characters; RFC 1123 allows 1-63",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return Err(format!(
            "hostname `{}` contains {:?}; only letters, digits and `-` are allowed",
            name.escape_debug(),
            c
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(format!("hostname `{name}` starts or ends with `-`"));
    }
    Ok(())
}

/// Checks a name that ends up in a config line but is not a hostname (server NIC names, descriptions):
/// letters, digits and `-_./:` only, at most 64 characters. No space, quote, comment starter (`!`, `#`)
/// or control character can get through.
pub fn check_token(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "`{}` must have 1-64 characters",
            name.escape_debug()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-_./:".contains(*c)))
    {
        return Err(format!(
            "`{}` contains {:?}; only letters, digits and - _ . / : are allowed",
            name.escape_debug(),
            c
        ));
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
                .contains("unknown placeholder")
        );
        assert!(expand("x{index", &v).is_err());
        assert!(expand("x}", &v).is_err());
        assert_eq!(
            missing("su{group}-leaf", &["group", "rail"]),
            vec!["{rail}"]
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
