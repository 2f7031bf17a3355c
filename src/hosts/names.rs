//! The names host files carry, checked before they reach a file: a server name becomes a folder name,
//! a Kubernetes node name and a pool name; a NIC name a netplan key, a shell word and a sysfs path.

/// A server name usable as a Kubernetes node name and a folder: a lower-case RFC 1123 label (1-63 of
/// `a-z 0-9 -`, starting and ending with a letter or digit).
pub fn check_server(name: &str) -> Result<(), String> {
    let ok = (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "server name `{}` is not a lower-case RFC 1123 label (1-63 of a-z 0-9 -, no - at either end): Kubernetes node names and the hosts/ folders need one",
            name.escape_debug()
        ))
    }
}

/// A Linux interface name (`IFNAMSIZ` 16 with its NUL: 1-15 bytes) that is also a plain shell word and
/// YAML key: letters, digits, `_`, `.` and `-`, not starting with `-` or `.`.
pub fn check_nic(name: &str) -> Result<(), String> {
    let ok = (1..=15).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
        && !name.starts_with(['-', '.']);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "NIC name `{}` is not a Linux interface name (1-15 of letters, digits, _ . -, not starting with - or .)",
            name.escape_debug()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_escape_are_refused() {
        for bad in [
            "",
            "GPU1",
            "gpu/1",
            "gpu 1",
            "-gpu",
            "gpu-",
            "a'b",
            "a\nb",
            &"x".repeat(64),
        ] {
            assert!(check_server(bad).is_err(), "{bad:?}");
        }
        for good in ["gpu001", "g-1", "a"] {
            assert_eq!(check_server(good), Ok(()));
        }
        for bad in [
            "",
            "eth0;reboot",
            "eth 0",
            "$(x)",
            "a/b",
            "-e",
            ".x",
            "ens1f0np0abcdefg",
            "a:b",
        ] {
            assert!(check_nic(bad).is_err(), "{bad:?}");
        }
        for good in ["eth0", "ens1f0np0", "rail_1.100", "enp11s0f0np0"] {
            assert_eq!(check_nic(good), Ok(()));
        }
    }
}
