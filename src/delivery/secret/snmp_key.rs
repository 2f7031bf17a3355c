//! SNMPv3 user keys as a switch stores them: RFC 3414's password-to-key algorithm (A.2: one MiB of
//! the pass phrase repeated, hashed) and key localization (2.6: `H(Ku | engineID | Ku)`), with the
//! authentication protocol's hash; the privacy key is the privacy pass phrase localized the same way,
//! cut to the cipher's key length (AES-128 and DES: the first 16 bytes) or, for a longer key,
//! extended by hashing what it has (the way AVD's `snmp_hash` filter computes EOS's keys).

use sha2::Digest;

/// An SNMPv3 authentication protocol: the hash of its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// HMAC-MD5-96 (`md5`).
    Md5,
    /// HMAC-SHA-96 (`sha`).
    Sha1,
    /// `sha224` / `sha-224`.
    Sha224,
    /// `sha256` / `sha-256`.
    Sha256,
    /// `sha384` / `sha-384`.
    Sha384,
    /// `sha512` / `sha-512`.
    Sha512,
}

impl Auth {
    /// The protocol a `snmp-server user ... auth <word>` names.
    pub fn parse(word: &str) -> Option<Auth> {
        Some(match word.to_ascii_lowercase().replace('-', "").as_str() {
            "md5" => Auth::Md5,
            "sha" | "sha1" => Auth::Sha1,
            "sha224" => Auth::Sha224,
            "sha256" => Auth::Sha256,
            "sha384" => Auth::Sha384,
            "sha512" => Auth::Sha512,
            _ => return None,
        })
    }

    fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut d = D::new();
            parts.iter().for_each(|p| d.update(p));
            d.finalize().to_vec()
        }
        match self {
            Auth::Md5 => run::<md5::Md5>(parts),
            Auth::Sha1 => run::<sha1::Sha1>(parts),
            Auth::Sha224 => run::<sha2::Sha224>(parts),
            Auth::Sha256 => run::<sha2::Sha256>(parts),
            Auth::Sha384 => run::<sha2::Sha384>(parts),
            Auth::Sha512 => run::<sha2::Sha512>(parts),
        }
    }
}

/// RFC 3414 A.2: the key `Ku` of a pass phrase (`None` for an empty one).
pub fn password_to_key(auth: Auth, pass: &[u8]) -> Option<Vec<u8>> {
    if pass.is_empty() {
        return None;
    }
    const TOTAL: usize = 1_048_576;
    let block: Vec<u8> = pass.iter().copied().cycle().take(64 * pass.len()).collect();
    // 64 copies of the pass phrase are a whole number of 64-byte steps of the RFC's loop.
    let mut stream = Vec::with_capacity(TOTAL);
    while stream.len() < TOTAL {
        let n = (TOTAL - stream.len()).min(block.len());
        stream.extend_from_slice(&block[..n]);
    }
    Some(auth.digest(&[&stream]))
}

/// RFC 3414 2.6: `Ku` localized to an engine.
pub fn localize(auth: Auth, ku: &[u8], engine: &[u8]) -> Vec<u8> {
    auth.digest(&[ku, engine, ku])
}

/// The localized authentication key of `pass` on `engine`.
pub fn auth_key(auth: Auth, pass: &str, engine: &[u8]) -> Option<Vec<u8>> {
    Some(localize(
        auth,
        &password_to_key(auth, pass.as_bytes())?,
        engine,
    ))
}

/// The localized privacy key of `pass` on `engine`, `len` bytes long (16 for AES-128 and DES).
pub fn priv_key(auth: Auth, pass: &str, engine: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut key = auth_key(auth, pass, engine)?;
    while key.len() < len {
        let more = auth.digest(&[&key]);
        key.extend_from_slice(&more);
    }
    key.truncate(len);
    Some(key)
}

/// `text` (hex digits, an optional `0x`, `:` or `.` between bytes) as bytes.
pub fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let t = text.strip_prefix("0x").unwrap_or(text);
    let digits: String = t.chars().filter(|c| *c != ':' && *c != '.').collect();
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `bytes` as lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC_ENGINE: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

    #[test]
    fn rfc3414_a3_1_md5() {
        let ku = password_to_key(Auth::Md5, b"maplesyrup").expect("key");
        assert_eq!(hex(&ku), "9faf3283884e92834ebc9847d8edd963");
        assert_eq!(
            hex(&localize(Auth::Md5, &ku, &RFC_ENGINE)),
            "526f5eed9fcce26f8964c2930787d82b"
        );
    }

    #[test]
    fn rfc3414_a3_2_sha() {
        let ku = password_to_key(Auth::Sha1, b"maplesyrup").expect("key");
        assert_eq!(hex(&ku), "9fb5cc0381497b3793528939ff788d5d79145211");
        assert_eq!(
            hex(&localize(Auth::Sha1, &ku, &RFC_ENGINE)),
            "6695febc9288e36282235fc7151f128497b38f3f"
        );
    }

    #[test]
    fn avd_snmp_hash_vectors() {
        // python-avd tests/pyavd/j2filters/test_snmp_hash.py (the keys EOS takes with `localized`).
        let engine = parse_hex("424242424242424242").expect("hex");
        let cases = [
            (Auth::Md5, "a487532d40f65644034ba50bec29bd90"),
            (Auth::Sha1, "14c3e7d55a9d67b7341e0dafba817bd33d3eb2e4"),
            (
                Auth::Sha256,
                "ca08c9b519c910b678faf598bc33e118272f37fd9a1522d5b4b764fea26fd9ca",
            ),
        ];
        for (auth, want) in cases {
            assert_eq!(
                hex(&auth_key(auth, "testauth", &engine).expect("key")),
                want
            );
        }
        let p = |len| hex(&priv_key(Auth::Sha512, "testpriv", &engine, len).expect("key"));
        assert_eq!(p(16), "ca5e54b5c49e7addba0046c591f8f541");
        assert_eq!(
            p(32),
            "ca5e54b5c49e7addba0046c591f8f5417338cdc1043068abf8c2a7ab751f13dc"
        );
        assert_eq!(password_to_key(Auth::Sha1, b""), None);
    }

    #[test]
    fn hex_forms() {
        assert_eq!(parse_hex("0x0aFF"), Some(vec![10, 255]));
        assert_eq!(parse_hex("80:00:00:09"), Some(vec![0x80, 0, 0, 9]));
        assert_eq!(parse_hex("abc"), None);
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(Auth::parse("SHA-256"), Some(Auth::Sha256));
        assert_eq!(Auth::parse("aes"), None);
    }
}
