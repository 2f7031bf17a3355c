//! The secret values `aifab drift --secrets FILE` compares with: the decrypted Ansible Vault file
//! (`ansible-vault view secrets.vault.yml | aifab drift ... --secrets -`), a YAML mapping of name to value, either at the top
//! or under `aifab_secrets:` (the dictionary ansible/deploy.yml reads). The file must be private: a
//! regular file (not a link) that neither group nor others can read; `-` reads standard input.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The largest secrets file read.
const MAX_LEN: u64 = 1024 * 1024;

/// Reads and parses `path` (`-`: standard input). The error says why, never a value.
pub fn read(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::stdin()
            .take(MAX_LEN)
            .read_to_string(&mut s)
            .map_err(|e| format!("standard input: {e}"))?;
        s
    } else {
        read_private(path)?
    };
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_private(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.file_type().is_file() {
        return Err(format!(
            "{shown}: not a regular file (a link is not followed)"
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(format!(
                "{shown}: readable by group or others; it holds secrets: chmod 600 it"
            ));
        }
    }
    if meta.len() > MAX_LEN {
        return Err(format!("{shown}: larger than {MAX_LEN} bytes"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))
}

/// The name-to-value mapping of a secrets file's text.
pub fn parse(text: &str) -> Result<BTreeMap<String, String>, String> {
    use serde_norway::Value;
    if text.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    let doc: Value = serde_norway::from_str(text)
        .map_err(|_| "not YAML (the message is left out: it could quote a value)".to_string())?;
    let top = match &doc {
        Value::Mapping(m) => m,
        Value::Null => return Ok(BTreeMap::new()),
        _ => return Err("not a mapping of secret names to values".into()),
    };
    let map = match top.get("aifab_secrets") {
        Some(Value::Mapping(inner)) => inner,
        Some(_) => return Err("aifab_secrets is not a mapping".into()),
        None => top,
    };
    let mut out = BTreeMap::new();
    for (k, v) in map {
        let Some(name) = k.as_str() else {
            return Err("a secret name that is not a string".into());
        };
        let value = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(format!("{name}: not a single value")),
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
        assert!(parse("- a\n").is_err());
        assert!(parse("").expect("empty").is_empty());
        assert!(parse("k: [1, 2]\n").is_err());
        let err = parse("a: 'unclosed value-secret\n").expect_err("bad yaml");
        assert!(!err.contains("value-secret"), "{err}");
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
        assert!(read(&f).expect_err("0644").contains("chmod 600"));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(read(&f).expect("0600")["a"], "b");
        let link = dir.join("l.yaml");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&f, &link).expect("link");
        assert!(
            read(&link)
                .expect_err("link")
                .contains("not a regular file")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
