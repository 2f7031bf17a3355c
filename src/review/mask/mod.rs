//! The one masking module: secrets kept out of everything aifab prints (`aifab drift`, `render
//! --check`, and the playbooks' diffs through `ansible/filter_plugins/aifab_access.py`, which reads the
//! same table of secret words, [`words::TABLE`]).
//!
//! [`mask`] hides the value after every secret word of a line (docs/push.md#secrets-in-what-aifab-prints).
//! [`Masker`] does more for `render --check`: a folder written by `render --out` holds the secrets
//! filled from the environment in clear, where the render being checked has their placeholders
//! (`AIFAB_ENV(NAME)`, `AIFAB_SECRET(name)`). Before comparing, a line of such a folder that equals a
//! rendered line but for the secrets its placeholders stand for is taken as that line (the secret is
//! not a difference: `--check` cannot know it); in what is printed, every line has the value after a
//! secret word, the value after the text each rendered placeholder follows, and every value of the
//! intent's environment secrets that is set, hidden as [`HIDDEN`].

use crate::model::baseline::{ENV_TOKEN, VAULT_TOKEN};

pub mod words;

pub use words::{HIDDEN, mask};

/// Whether `c` can be part of a filled secret or a placeholder (the characters `check_value` allows,
/// and a placeholder's parentheses).
fn secret_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!%*+-./=?^_~()".contains(c)
}

/// Hides and aligns secrets (see the module doc).
#[derive(Debug, Default)]
pub struct Masker {
    /// The text a secret follows before each placeholder rendered (beside the secret words).
    anchors: Vec<String>,
    /// Values of the intent's environment secrets set in this process (four characters or more: a
    /// shorter value would hide ordinary text; the anchors still hide it).
    values: Vec<String>,
}

impl Masker {
    /// A masker for files rendered as `rendered` (with placeholders), hiding also `values`.
    pub fn new<'a>(rendered: impl Iterator<Item = &'a str>, values: Vec<String>) -> Masker {
        let mut anchors: Vec<String> = Vec::new();
        for text in rendered {
            if !has_token(text) {
                continue;
            }
            for line in text.lines().filter(|l| has_token(l)) {
                let pieces = split_tokens(line);
                for p in &pieces[..pieces.len() - 1] {
                    let a = anchor(p);
                    if !a.trim().is_empty() && !anchors.contains(&a) {
                        anchors.push(a);
                    }
                }
            }
        }
        let mut values: Vec<String> = values.into_iter().filter(|v| v.len() >= 4).collect();
        // Longest first: a value inside another is hidden with it.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        Masker { anchors, values }
    }

    /// `disk` with each line that equals a line of `rendered` but for what stands where `rendered`
    /// has placeholders, replaced by that line of `rendered`.
    pub fn align(&self, disk: &str, rendered: &str) -> String {
        // The usual check: the file is as rendered, placeholders and all.
        if disk == rendered || !has_token(rendered) {
            return disk.to_string();
        }
        let patterns: Vec<(&str, Vec<&str>)> = rendered
            .lines()
            .filter(|l| has_token(l))
            .map(|l| (l, split_tokens(l)))
            .collect();
        let mut out = String::with_capacity(disk.len());
        for line in disk.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            };
            match patterns.iter().find(|(_, p)| matches(body, p)) {
                Some((want, _)) => {
                    out.push_str(want);
                    out.push_str(end);
                }
                None => out.push_str(line),
            }
        }
        out
    }

    /// `diff` (a unified diff whose `-` lines come from the folder) with every secret on its lines
    /// hidden (its `---`/`+++` file names and `@@` hunk heads are kept as they are).
    pub fn hide(&self, diff: &str) -> String {
        let mut out = String::with_capacity(diff.len());
        for line in diff.split_inclusive('\n') {
            let head = line.starts_with("---") || line.starts_with("+++") || line.starts_with("@@");
            match line.chars().next() {
                Some(sign @ ('-' | '+' | ' ')) if !head => {
                    out.push(sign);
                    out.push_str(&self.hide_line(&line[1..]));
                }
                _ => out.push_str(line),
            }
        }
        out
    }

    /// One line with every known value, the value after every anchor and after every secret word
    /// hidden.
    pub fn hide_line(&self, line: &str) -> String {
        let mut s = line.to_string();
        for v in &self.values {
            if s.contains(v.as_str()) {
                s = s.replace(v.as_str(), HIDDEN);
            }
        }
        for a in &self.anchors {
            let mut from = 0;
            while let Some(i) = s[from..].find(a.as_str()) {
                let start = from + i + a.len();
                let run = s[start..]
                    .find(|c: char| !secret_char(c))
                    .unwrap_or(s.len() - start);
                let value = &s[start..start + run];
                let placeholder = value.starts_with(ENV_TOKEN) || value.starts_with(VAULT_TOKEN);
                if run > 0 && !placeholder && value != HIDDEN {
                    s.replace_range(start..start + run, HIDDEN);
                    from = start + HIDDEN.len();
                } else {
                    from = start + run;
                }
                if from >= s.len() {
                    break;
                }
            }
        }
        let (body, end) = match s.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (s.as_str(), ""),
        };
        format!("{}{end}", mask(body))
    }
}

/// Whether `text` holds a placeholder.
fn has_token(text: &str) -> bool {
    text.contains(ENV_TOKEN) || text.contains(VAULT_TOKEN)
}

/// The literal text of `line` around its placeholders: n placeholders give n + 1 pieces.
fn split_tokens(line: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = line;
    loop {
        let next = [ENV_TOKEN, VAULT_TOKEN]
            .iter()
            .filter_map(|t| rest.find(t))
            .min();
        let Some(i) = next else {
            pieces.push(rest);
            return pieces;
        };
        pieces.push(&rest[..i]);
        match rest[i..].find(')') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                pieces.push("");
                return pieces;
            }
        }
    }
}

/// The last two words of `piece` with the blank after them: what a secret follows.
fn anchor(piece: &str) -> String {
    let trimmed = piece.trim_end();
    let tail = &piece[trimmed.len()..];
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let last = &words[words.len().saturating_sub(2)..];
    format!("{}{tail}", last.join(" "))
}

/// Whether `line` is `pieces` with a run of secret characters in place of each placeholder.
fn matches(line: &str, pieces: &[&str]) -> bool {
    let Some(mut rest) = line.strip_prefix(pieces[0]) else {
        return false;
    };
    for (i, p) in pieces[1..].iter().enumerate() {
        let last = i + 2 == pieces.len();
        let run = rest.find(|c: char| !secret_char(c)).unwrap_or(rest.len());
        if run == 0 {
            return false;
        }
        if last {
            // The run may not take the last piece's own secret characters.
            return rest.len() > p.len()
                && rest.ends_with(p)
                && rest[..rest.len() - p.len()].chars().all(secret_char);
        }
        match rest[run..].strip_prefix(p) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filled_line_aligns_and_any_other_is_hidden() {
        let rendered = "hostname a\ntacacs-server host 10.0.0.5 key 0 AIFAB_ENV(TK)\nsnmp-server user m auth sha AIFAB_SECRET(a) priv aes-128 AIFAB_SECRET(p)\n";
        let disk = "hostname a\ntacacs-server host 10.0.0.5 key 0 s3cr3t.Key\nsnmp-server user m auth sha Auth-1 priv aes-128 Priv~2\n";
        let m = Masker::new([rendered].into_iter(), vec!["s3cr3t.Key".into()]);
        assert_eq!(m.align(disk, rendered), rendered);
        // A line that changed besides its secret stays, and is hidden when printed.
        let moved = "tacacs-server host 10.0.0.6 key 0 s3cr3t.Key\n";
        assert_eq!(m.align(moved, rendered), moved);
        let shown = m.hide(&format!(
            "--- a/x\n+++ b/x\n-{moved}+tacacs-server host 10.0.0.6 key 0 AIFAB_ENV(TK)\n"
        ));
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(
            shown.contains("-tacacs-server host 10.0.0.6 key 0 <secret>"),
            "{shown}"
        );
        let other = m.hide("-snmp-server user m auth sha Other1 priv aes-128 Other2\n");
        assert_eq!(
            other,
            "-snmp-server user m auth sha <secret> priv aes-128 <secret>\n"
        );
        // JSON values, and a value anywhere on a removed line.
        let json = m.hide("-    \"passkey\": \"abc.def\",\n-  \"x\": \"s3cr3t.Key\"\n");
        assert!(
            !json.contains("abc.def") && !json.contains("s3cr3t"),
            "{json}"
        );
    }
}
