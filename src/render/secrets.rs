//! Secrets read from the environment (`{env: NAME}` in the intent): only `aifab render --out` reads
//! them, and only there do their values replace the `AIFAB_ENV(NAME)` placeholders. Every other output
//! (golden checks, `render --check`, `diff`, reports) keeps the placeholder, so a value never reaches a
//! review. `{vault: name}` placeholders are left to `ansible/deploy.yml`.

use crate::diag::Finding;
use crate::intent::Intent;
use crate::intent::baseline::SecretSource;
use crate::model::baseline::ENV_TOKEN;
use crate::rules::Rule;
use std::collections::BTreeMap;

/// The longest secret aifab accepts from the environment.
pub const MAX_LEN: usize = 64;

/// The prefix an `{env: NAME}` secret must have unless the project file says otherwise
/// (`secrets: {env_prefix: ...}` in `aifab.yaml`): a pull request that names `GITHUB_TOKEN` or
/// `AWS_SECRET_ACCESS_KEY` in the intent cannot pull it into a config.
pub const DEFAULT_ENV_PREFIX: &str = "AIFAB_";

/// Which environment variables `{env: NAME}` may name: those starting with `prefix`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvPolicy {
    /// The prefix (`""`: any name).
    pub prefix: String,
    /// `file:line:col` of `env_prefix` in the project file; `None` for the default.
    pub set_at: Option<String>,
}

impl Default for EnvPolicy {
    fn default() -> EnvPolicy {
        EnvPolicy {
            prefix: DEFAULT_ENV_PREFIX.to_string(),
            set_at: None,
        }
    }
}

impl EnvPolicy {
    /// Whether `name` may be read.
    pub fn admits(&self, name: &str) -> bool {
        name.starts_with(&self.prefix)
    }

    /// The refusal of `name` at `pointer`: the variable is never read.
    fn refusal(&self, name: &str, pointer: &str) -> Finding {
        let widen = match &self.set_at {
            Some(at) => format!("change `env_prefix` at {at}"),
            None => format!(
                "set `secrets: {{env_prefix: <prefix>}}` in aifab.yaml (the default is `{DEFAULT_ENV_PREFIX}`)"
            ),
        };
        Finding::new(
            Rule::EnvSecretUnusable,
            format!(
                "environment variable `{name}` does not start with `{}`, the prefix the project allows: it is not read",
                self.prefix
            ),
        )
        .at(pointer)
        .hint(format!(
            "export the secret as `{}{name}` and name that, or {widen}; the prefix keeps a pull request from pulling CI's own variables (GITHUB_TOKEN) into a config",
            self.prefix
        ))
    }
}

/// The values of the intent's environment secrets, by variable name.
#[derive(Clone, Debug, Default)]
pub struct EnvSecrets(BTreeMap<String, String>);

impl EnvSecrets {
    /// Reads every `{env: NAME}` of the intent through `lookup` (the process environment in the CLI).
    /// Every unset or unsafe variable, and every name `policy` does not admit (never looked up), is an
    /// `AIF-BASE-004` error at the place the intent names it; the message never shows the value.
    pub fn read(
        intent: &Intent,
        lookup: &dyn Fn(&str) -> Option<String>,
        policy: &EnvPolicy,
    ) -> Result<EnvSecrets, Vec<Finding>> {
        let mut values = BTreeMap::new();
        let mut errs = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (name, pointer) in env_names(intent) {
            // Each variable once, at the first place that names it.
            if !seen.insert(name.clone()) {
                continue;
            }
            if !policy.admits(&name) {
                errs.push(policy.refusal(&name, &pointer));
                continue;
            }
            match lookup(&name).map(|v| check_value(&v).map(|()| v)) {
                Some(Ok(v)) => {
                    values.insert(name, v);
                }
                Some(Err(why)) => errs.push(problem(&name, &pointer, why)),
                None => errs.push(problem(&name, &pointer, "is not set")),
            }
        }
        if errs.is_empty() {
            Ok(EnvSecrets(values))
        } else {
            Err(errs)
        }
    }

    /// `text` with every `AIFAB_ENV(NAME)` this set knows replaced by its value.
    pub fn fill(&self, text: String) -> String {
        // An intent without environment secrets (the common case) has no text to scan.
        if self.0.is_empty() || !text.contains(ENV_TOKEN) {
            return text;
        }
        let mut out = text;
        for (name, value) in &self.0 {
            out = out.replace(&format!("{ENV_TOKEN}{name})"), value);
        }
        out
    }

    /// True when no secret is read (the intent names none): nothing is filled.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values, for tests that look for leaks.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }
}

/// The refusal of every `{env: NAME}` of the intent that `policy` does not admit (each name once, at the
/// first place that names it): what `aifab validate` reports without reading any variable.
pub fn outside_prefix(intent: &Intent, policy: &EnvPolicy) -> Vec<Finding> {
    let mut seen = std::collections::BTreeSet::new();
    env_names(intent)
        .into_iter()
        .filter(|(name, _)| !policy.admits(name) && seen.insert(name.clone()))
        .map(|(name, pointer)| policy.refusal(&name, &pointer))
        .collect()
}

/// The values of the intent's environment secrets that are set (and usable) in `lookup`, the unset ones
/// left out: what `render --check` hides in what it prints.
pub fn set_values(intent: &Intent, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    env_names(intent)
        .into_iter()
        .filter_map(|(name, _)| lookup(&name).filter(|v| check_value(v).is_ok()))
        .collect()
}

fn problem(name: &str, pointer: &str, why: &str) -> Finding {
    Finding::new(
        Rule::EnvSecretUnusable,
        format!("environment variable `{name}` {why}"),
    )
    .at(pointer)
    .hint(format!(
        "export {name} before `aifab render --out` (1-{MAX_LEN} characters: letters, digits and `!%*+-./=?^_~`), or name a vault secret instead: `{{vault: <name>}}`"
    ))
}

/// Whether a value is safe in every OS's config line and in config_db JSON: 1-64 characters, each a
/// letter, digit or one of `!%*+-./=?^_~` (no space, quote, `#`, `,`, `:`, `@`, `;`, brace or
/// backslash). The error never includes the value.
pub fn check_value(v: &str) -> Result<(), &'static str> {
    if v.is_empty() || v.len() > MAX_LEN {
        return Err("must be 1-64 characters long");
    }
    let ok = |c: char| c.is_ascii_alphanumeric() || "!%*+-./=?^_~".contains(c);
    if v.chars().all(ok) {
        Ok(())
    } else {
        Err(
            "holds a character that is not safe in a config line (only letters, digits and `!%*+-./=?^_~` are)",
        )
    }
}

/// Every `{env: NAME}` of the intent with its JSON pointer, in intent order.
fn env_names(intent: &Intent) -> Vec<(String, String)> {
    let Some(b) = &intent.baseline else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |s: &SecretSource, pointer: String| {
        if let SecretSource::Env { env } = s {
            out.push((env.clone(), pointer));
        }
    };
    for (i, s) in b.aaa.iter().flat_map(|a| a.servers.iter().enumerate()) {
        push(&s.key, format!("/baseline/aaa/servers/{i}/key/env"));
    }
    for (i, u) in b.snmp.iter().flat_map(|s| s.users.iter().enumerate()) {
        push(
            &u.auth_key,
            format!("/baseline/snmp/users/{i}/auth_key/env"),
        );
        push(
            &u.priv_key,
            format!("/baseline/snmp/users/{i}/priv_key/env"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_without_echo() {
        assert!(check_value("s3cret.Key-1").is_ok());
        for bad in [
            "",
            "with space",
            "a#b",
            "x,y",
            "q\"",
            "new\nline",
            "semi;colon",
            "{x}",
        ] {
            let e = check_value(bad).unwrap_err();
            assert!(bad.is_empty() || !e.contains(bad), "{e}");
        }
    }

    #[test]
    fn fill_replaces_only_known_tokens() {
        let s = EnvSecrets([("K".to_string(), "v1".to_string())].into());
        assert_eq!(
            s.fill("key 0 AIFAB_ENV(K) AIFAB_ENV(L) AIFAB_SECRET(K)".into()),
            "key 0 v1 AIFAB_ENV(L) AIFAB_SECRET(K)"
        );
    }

    #[test]
    fn the_prefix_admits_its_names_and_says_how_to_widen() {
        let default = EnvPolicy::default();
        assert!(default.admits("AIFAB_KEY") && !default.admits("GITHUB_TOKEN"));
        assert!(
            EnvPolicy {
                prefix: String::new(),
                set_at: None
            }
            .admits("GITHUB_TOKEN")
        );
        let f = default.refusal("GITHUB_TOKEN", "/baseline/aaa/servers/0/key/env");
        assert!(
            f.message
                .contains("`GITHUB_TOKEN` does not start with `AIFAB_`"),
            "{}",
            f.message
        );
        let set = EnvPolicy {
            prefix: "CI_".into(),
            set_at: Some("aifab.yaml:3:3".into()),
        };
        let f = set.refusal("AIFAB_KEY", "/x");
        assert!(
            f.hint
                .as_deref()
                .is_some_and(|h| h.contains("aifab.yaml:3:3")),
            "{f:?}"
        );
    }
}
