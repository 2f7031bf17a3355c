//! Numbers and IPv4 addresses spelled into a `String` as `Display` spells them, without the formatting
//! machinery: the compiler names hundreds of thousands of /31s and the SONiC printer writes millions of
//! numbers at 100K GPUs.

use std::net::Ipv4Addr;

/// Appends `n` in decimal.
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    for &d in decimal(n, &mut buf) {
        out.push(char::from(d));
    }
}

/// The ASCII digits of `n` in decimal, written at the end of `buf`.
pub(crate) fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[at..]
}

/// Appends `ip` in dotted decimal.
pub(crate) fn push_ipv4(out: &mut String, ip: Ipv4Addr) {
    for (i, octet) in ip.octets().into_iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_decimal(out, u64::from(octet));
    }
}

/// `a.b.c.d/len`, as `format!("{ip}/{len}")` spells it.
pub(crate) fn prefix(ip: Ipv4Addr, len: u8) -> String {
    let mut s = String::with_capacity(18);
    push_ipv4(&mut s, ip);
    s.push('/');
    push_decimal(&mut s, u64::from(len));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spells_like_display() {
        for n in [0u64, 7, 10, 99, 100, 65535, 4_200_000_000, u64::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        for ip in [
            0u32,
            1,
            9,
            10,
            99,
            100,
            255,
            0x0a00_0001,
            0xc0a8_6405,
            0xffff_ffff,
            0x6464_0a63,
        ] {
            let ip = Ipv4Addr::from(ip);
            for len in [0u8, 8, 31, 32] {
                assert_eq!(prefix(ip, len), format!("{ip}/{len}"));
            }
        }
    }
}
