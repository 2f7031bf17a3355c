//! The reversible "type 7" forms in which NX-OS and EOS print a key given in clear (`key 0 <value>`):
//! two different ciphers under one name.
//!
//! - EOS (and Cisco IOS): two decimal digits giving an offset into a fixed 53-character key, then per
//!   character of the value two hex digits, the character XOR the key character at the offset, which
//!   grows by one per character (AVD's `eos_cli_config_gen` molecule config `aaa.cfg` prints EOS's
//!   `tacacs-server host ... key 7 071B245F5A`, which is `test` in this cipher).
//! - NX-OS: a rotation of each letter by a fixed sequence of shifts, one per character position,
//!   other characters unchanged (`cisco` prints as `fewhg`, the example of Cisco's Nexus security
//!   configuration guides), printed in double quotes.
//!
//! docs/platforms/nxos.md and eos.md#convergence cite the sources.

/// The key of the IOS/EOS cipher.
const IOS_KEY: &[u8; 53] = b"dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87";

/// The NX-OS shift of the letter at each position (repeating after 26).
const NXOS_SHIFTS: [u8; 26] = [
    3, 22, 4, 5, 18, 0, 21, 5, 18, 3, 10, 5, 16, 22, 4, 16, 24, 17, 12, 5, 21, 18, 5, 22, 19, 7,
];

/// Which type-7 cipher a switch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// EOS (the Cisco IOS cipher): `key 7 <offset><hex>`.
    Ios,
    /// NX-OS: `key 7 "<rotated letters>"`.
    Nxos,
}

/// The clear value of `printed` (quotes around it removed), `None` when it is not in the cipher's form.
pub fn decode(cipher: Cipher, printed: &str) -> Option<String> {
    let text = printed
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(printed);
    match cipher {
        Cipher::Ios => decode_ios(text),
        Cipher::Nxos => Some(rotate(text, false)),
    }
}

/// `value` as the switch prints it (EOS with offset `offset` % 16; NX-OS in quotes).
pub fn encode(cipher: Cipher, value: &str, offset: usize) -> String {
    match cipher {
        Cipher::Ios => {
            let start = offset % 16;
            let mut out = format!("{start:02}");
            for (i, b) in value.bytes().enumerate() {
                out.push_str(&format!("{:02X}", b ^ IOS_KEY[(start + i) % IOS_KEY.len()]));
            }
            out
        }
        Cipher::Nxos => format!("\"{}\"", rotate(value, true)),
    }
}

fn decode_ios(text: &str) -> Option<String> {
    if text.len() < 2 || !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    let start: usize = text[..2].parse().ok()?;
    let mut out = Vec::with_capacity(text.len() / 2);
    for (i, pair) in text.as_bytes()[2..].chunks(2).enumerate() {
        let hex = std::str::from_utf8(pair).ok()?;
        let b = u8::from_str_radix(hex, 16).ok()?;
        out.push(b ^ IOS_KEY[(start + i) % IOS_KEY.len()]);
    }
    String::from_utf8(out).ok()
}

/// Each ASCII letter moved by the shift of its position (forward to encode, back to decode).
fn rotate(text: &str, forward: bool) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            let base = match c {
                'a'..='z' => b'a',
                'A'..='Z' => b'A',
                _ => return c,
            };
            let shift = NXOS_SHIFTS[i % NXOS_SHIFTS.len()];
            let shift = if forward { shift } else { 26 - shift };
            char::from(base + (c as u8 - base + shift) % 26)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_examples_decode() {
        // AVD's EOS molecule config and Cisco's NX-OS guide example.
        assert_eq!(decode(Cipher::Ios, "071B245F5A").as_deref(), Some("test"));
        assert_eq!(decode(Cipher::Nxos, "\"fewhg\"").as_deref(), Some("cisco"));
        assert_eq!(
            decode(Cipher::Nxos, "fewhg123").as_deref(),
            Some("cisco123")
        );
    }

    #[test]
    fn encode_then_decode_is_the_value() {
        for value in [
            "a",
            "Fixture-Key.42",
            "zzzzZZZZ~^=",
            "abcdefghijklmnopqrstuvwxyzABCD",
        ] {
            for cipher in [Cipher::Ios, Cipher::Nxos] {
                for offset in [0, 7, 15] {
                    let printed = encode(cipher, value, offset);
                    assert_ne!(printed.trim_matches('"'), value, "{cipher:?} hides nothing");
                    assert_eq!(
                        decode(cipher, &printed).as_deref(),
                        Some(value),
                        "{printed}"
                    );
                }
            }
        }
        assert_eq!(encode(Cipher::Ios, "test", 7), "071B245F5A");
    }

    #[test]
    fn not_a_type7_form() {
        assert_eq!(decode(Cipher::Ios, "0"), None);
        assert_eq!(decode(Cipher::Ios, "XY1B"), None);
        assert_eq!(decode(Cipher::Ios, "071G"), None);
    }
}
