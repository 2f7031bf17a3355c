//! The secret values `aifab drift --secrets FILE` compares with: the decrypted Ansible Vault file
//! (`ansible-vault view secrets.vault.yml | aifab drift ... --secrets -`), a YAML mapping of name to value, either at the top
//! or under `aifab_secrets:` (the dictionary ansible/deploy.yml reads). The file must be private: a
//! regular file (not a link) that neither group nor others can read; `-` reads standard input.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest secrets file read.
const MAX_LEN: u64 = 1024 * 1024;

/// Why a secrets file could not be used, naming it (never a value).
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// Standard input could not be read.
    #[error("standard input: {0}")]
    Stdin(std::io::Error),
    /// The file could not be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Not a regular file (a link is not followed).
    #[error("{}: not a regular file (a link is not followed)", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// Group or others may read it.
    #[error("{}: readable by group or others; it holds secrets: chmod 600 it", path.display())]
    Readable {
        /// The file.
        path: PathBuf,
    },
    /// Larger than [`MAX_LEN`].
    #[error("{}: larger than {MAX_LEN} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// Its text is not a mapping of names to values.
    #[error("{}: {why}", path.display())]
    Malformed {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// What is wrong with it.
        why: Malformed,
    },
}

/// What is wrong with a secrets file's text (never quoting it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    /// Not YAML.
    #[error("not YAML (the message is left out: it could quote a value)")]
    NotYaml,
    /// Not a mapping.
    #[error("not a mapping of secret names to values")]
    NotAMapping,
    /// `aifab_secrets` is not a mapping.
    #[error("aifab_secrets is not a mapping")]
    InnerNotAMapping,
    /// A name that is not a string.
    #[error("a secret name that is not a string")]
    NameNotAString,
    /// A value that is a list or a mapping (its name).
    #[error("{0}: not a single value")]
    NotSingle(String),
}

/// Reads and parses `path` (`-`: standard input). The error says why, never a value.
pub fn read(path: &Path) -> Result<BTreeMap<String, String>, SecretsError> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin()
            .take(MAX_LEN)
            .read_to_string(&mut s)
            .map_err(SecretsError::Stdin)?;
        s
    } else {
        read_private(path)?
    };
    parse(&text).map_err(|why| SecretsError::Malformed {
        path: path.to_path_buf(),
        why,
    })
}

/// The text of a private regular file.
fn read_private(path: &Path) -> Result<String, SecretsError> {
    let owned = || path.to_path_buf();
    let io = |error| SecretsError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(SecretsError::NotAFile { path: owned() });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(SecretsError::Readable { path: owned() });
        }
    }
    if meta.len() > MAX_LEN {
        return Err(SecretsError::TooLarge { path: owned() });
    }
    std::fs::read_to_string(path).map_err(io)
}

/// The name-to-value mapping of a secrets file's text.
pub fn parse(text: &str) -> Result<BTreeMap<String, String>, Malformed> {
    use serde_norway::Value;
    if text.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    let doc: Value = serde_norway::from_str(text).map_err(|_| Malformed::NotYaml)?;
    let top = match &doc {
        Value::Mapping(m) => m,
        Value::Null => return Ok(BTreeMap::new()),
        _ => return Err(Malformed::NotAMapping),
    };
    let map = match top.get("aifab_secrets") {
        Some(Value::Mapping(inner)) => inner,
        Some(_) => return Err(Malformed::InnerNotAMapping),
        None => top,
    };
    let mut out = BTreeMap::new();
    for (k, v) in map {
        let Some(name) = k.as_str() else {
            return Err(Malformed::NameNotAString);
        };
        let value = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(Malformed::NotSingle(name.to_string())),
        };
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_and_bad_ones() {
        let flat = parse("aaa_key: abc\nsnmp_auth: 12345678\n").expect("flat");
        assert_eq!(flat.get("aaa_key").map(String::as_str), Some("abc"));
        assert_eq!(flat.get("snmp_auth").map(String::as_str), Some("12345678"));
        let vault = parse("aifab_secrets:\n  aaa_key: xyz\n").expect("vault");
        assert_eq!(vault.len(), 1);
        assert_eq!(vault["aaa_key"], "xyz");
        assert_eq!(parse("- a\n"), Err(Malformed::NotAMapping));
        assert!(parse("").expect("empty").is_empty());
        assert_eq!(parse("k: [1, 2]\n"), Err(Malformed::NotSingle("k".into())));
        let err = parse("a: 'unclosed value-secret\n").expect_err("bad yaml");
        assert_eq!(err, Malformed::NotYaml);
        assert!(!err.to_string().contains("value-secret"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_readable_file_or_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("aifab-secrets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join("s.yaml");
        std::fs::write(&f, "a: b\n").expect("write");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let e = read(&f).expect_err("0644");
        assert!(matches!(e, SecretsError::Readable { .. }), "{e}");
        assert!(e.to_string().contains("chmod 600"), "{e}");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(read(&f).expect("0600")["a"], "b");
        let link = dir.join("l.yaml");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&f, &link).expect("link");
        let e = read(&link).expect_err("link");
        assert!(matches!(e, SecretsError::NotAFile { .. }), "{e}");
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
