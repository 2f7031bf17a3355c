//! Password hashes as switches print them (`username ... password 5 $5$...` on NX-OS, `secret sha512
//! $6$...` on EOS): SHA-crypt (`$5$` SHA-256, `$6$` SHA-512, optional `rounds=N$`), checked by
//! computing the hash of a clear value with the printed salt and rounds.

use sha_crypt::{Sha256Params, Sha512Params, sha256_crypt_b64, sha512_crypt_b64};

/// The default number of rounds of SHA-crypt.
const ROUNDS_DEFAULT: usize = 5_000;

/// Whether `value` hashes to `printed` (`$5$[rounds=N$]salt$hash` or `$6$...`); `None` when `printed`
/// is not a SHA-crypt hash.
pub fn verify(value: &str, printed: &str) -> Option<bool> {
    let (id, rest) = printed
        .strip_prefix("$5$")
        .map(|r| (5, r))
        .or_else(|| printed.strip_prefix("$6$").map(|r| (6, r)))?;
    let (rounds, rest) = match rest.strip_prefix("rounds=") {
        Some(r) => {
            let (n, tail) = r.split_once('$')?;
            (n.parse::<usize>().ok()?, tail)
        }
        None => (ROUNDS_DEFAULT, rest),
    };
    let (salt, hash) = rest.rsplit_once('$')?;
    // SHA-crypt uses at most 16 characters of the salt.
    let salt = &salt.as_bytes()[..salt.len().min(16)];
    let computed = if id == 5 {
        sha256_crypt_b64(value.as_bytes(), salt, &Sha256Params::new(rounds).ok()?).ok()?
    } else {
        sha512_crypt_b64(value.as_bytes(), salt, &Sha512Params::new(rounds).ok()?).ok()?
    };
    Some(computed == hash)
}

#[cfg(test)]
mod tests {
    use super::verify;

    #[test]
    fn drepper_vectors() {
        // The test vectors of Ulrich Drepper's SHA-crypt specification.
        let six = "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1";
        assert_eq!(verify("Hello world!", six), Some(true));
        assert_eq!(verify("Hello world?", six), Some(false));
        let five = "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5";
        assert_eq!(verify("Hello world!", five), Some(true));
        let rounds = "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA";
        assert_eq!(verify("Hello world!", rounds), Some(true));
        assert_eq!(verify("x", "$1$abc$def"), None);
        assert_eq!(verify("x", "$6$rounds=ten$s$h"), None);
    }
}
