//! IPv4 prefixes as a lock holds them, read fast: the plain `a.b.c.d/len` spelling aifab writes is read
//! without the general parser (a 100K-GPU lock holds hundreds of thousands), anything else is left to
//! `Ipv4Network`'s. Shared by the full reader ([`super::read`]) and the line reader ([`super::fast`]).

use ipnetwork::Ipv4Network;

/// Why a lock's prefix is not usable (the text as written).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    /// Not an IPv4 prefix.
    #[error("`{text}` is not an IPv4 prefix")]
    NotAPrefix {
        /// The text.
        text: String,
    },
    /// Host bits set.
    #[error("`{text}` has host bits set")]
    HostBits {
        /// The text.
        text: String,
    },
    /// Not a /31 where a link's is wanted.
    #[error("`{text}` is not a /31")]
    NotSlash31 {
        /// The text.
        text: String,
    },
}

/// A subnet's first address and size (`None`: not an IPv4 prefix without host bits).
pub fn block(subnet: &str) -> Option<(u32, u64)> {
    if let Some((ip, len)) = plain_prefix(subnet) {
        let size = 1u64 << (32 - len);
        return (u64::from(ip) % size == 0).then_some((ip, size));
    }
    self::subnet(subnet, true)
        .ok()
        .map(|n| (u32::from(n.network()), 1u64 << (32 - n.prefix() as u32)))
}

/// `a.b.c.d/len` in its plain spelling (decimal without leading zeros, `len` at most 32), read
/// without the general parser; anything else is `None` (and left to it).
fn plain_prefix(text: &str) -> Option<(u32, u32)> {
    let (addr, len) = text.split_once('/')?;
    let number = |t: &str, max: u32| -> Option<u32> {
        let plain = !t.is_empty() && t.len() <= 3 && !(t.len() > 1 && t.starts_with('0'));
        let v = t.bytes().try_fold(0u32, |v, b| {
            b.is_ascii_digit().then(|| v * 10 + u32::from(b - b'0'))
        })?;
        (plain && v <= max).then_some(v)
    };
    let mut ip = 0u32;
    let mut octets = 0;
    for part in addr.split('.') {
        ip = (ip << 8) | number(part, 255)?;
        octets += 1;
    }
    (octets == 4).then_some(())?;
    Some((ip, number(len, 32)?))
}

/// A /31 (or, with `any_len`, any prefix) without host bits, or why not.
pub fn subnet(text: &str, any_len: bool) -> Result<Ipv4Network, PrefixError> {
    let text_of = || text.to_string();
    let n = match prefix_as_written(text) {
        Some(n) => n,
        None => text
            .parse()
            .map_err(|_| PrefixError::NotAPrefix { text: text_of() })?,
    };
    if n.ip() != n.network() {
        return Err(PrefixError::HostBits { text: text_of() });
    }
    if !any_len && n.prefix() != 31 {
        return Err(PrefixError::NotSlash31 { text: text_of() });
    }
    Ok(n)
}

/// `a.b.c.d/len` as aifab writes it (a length of one or two digits, no leading zero), read without
/// `Ipv4Network`'s parser, which first tries the length as a dotted netmask (a lock holds hundreds of
/// thousands of prefixes). Anything else is `None` and left to that parser.
pub(super) fn prefix_as_written(text: &str) -> Option<Ipv4Network> {
    let (ip, len) = text.split_once('/')?;
    let plain = matches!(len.as_bytes(), [b'0'..=b'9'] | [b'1'..=b'9', b'0'..=b'9']);
    let len: u8 = len.parse().ok().filter(|_| plain)?;
    Ipv4Network::new(ip.parse().ok()?, len).ok()
}
