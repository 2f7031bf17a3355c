//! Session and exec words in a site line: a word that would end the configuration session the push
//! runs in (`end`, `exit`, `EOF`), commit, abort or roll it back, enter configuration mode again, or
//! run an exec command from it (`copy`, `write`, `reload`, `do ...`), and any `;` (which the CLIs
//! do not take as a separator in a config file, and a line editor or a relay might).
//!
//! NX-OS and EOS take any unique prefix of a command word (`conf t`, `wr`, `rel`). Which prefixes are
//! unique depends on the mode and the release, so aifab refuses a first word that is a
//! case-insensitive prefix of a session word, of any length: no configuration command word is such
//! a prefix (one shares at most a start with them: `copp`, `exec`, `enable`),
//! so this refuses every abbreviation a CLI could run and no line a site needs.

/// Words that end, commit, leave or reopen the configuration session, or run an exec command.
pub(super) const SESSION_WORDS: [&str; 11] = [
    "end",
    "exit",
    "commit",
    "abort",
    "rollback",
    "configure",
    "copy",
    "write",
    "reload",
    "do",
    "EOF",
];

/// Why `line` (any site line, indented or not) could break the session, if it could.
pub(super) fn problem(line: &str) -> Option<String> {
    if line.contains(';') {
        return Some("contains `;`".into());
    }
    let first = line.split_whitespace().next()?;
    let lower = first.to_ascii_lowercase();
    let word = SESSION_WORDS
        .iter()
        .find(|w| w.to_ascii_lowercase().starts_with(&lower))?;
    let spelled = if lower == word.to_ascii_lowercase() {
        format!("`{word}`")
    } else {
        format!("`{first}` (the CLI reads it as `{word}`)")
    };
    Some(format!(
        "starts with {spelled}, a word that ends, commits or leaves the push's configuration session or runs an exec command"
    ))
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn session_words_and_their_prefixes_are_refused() {
        for bad in [
            "end",
            "  exit",
            "commit",
            "abort",
            "rollback running-config checkpoint x",
            "configure terminal",
            "conf t",
            "copy running-config startup-config",
            "wr",
            "write memory",
            "rel",
            "reload",
            "do show version",
            "EOF",
            "eof",
            "END",
            "logging server 192.0.2.1; reload",
        ] {
            assert!(problem(bad).is_some(), "{bad:?}");
        }
        for good in [
            "feature ptp",
            "copp profile strict",
            "   exec /usr/bin/TerminAttr",
            "daemon TerminAttr",
            "   no shutdown",
            "enable secret sha512 $6$x",
            "description endpoint",
        ] {
            assert_eq!(problem(good), None, "{good:?}");
        }
    }
}
