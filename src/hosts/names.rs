//! The names host files carry, checked before they reach a file: a server name becomes a folder name,
//! a Kubernetes node name and a pool name; a NIC name a netplan key, a shell word and a sysfs path.

use crate::shape::pattern::PatternError;

/// Why a name the host files carry is refused; the text names it and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostNameError {
    /// A server name that is no lower-case RFC 1123 label.
    #[error("server name `{}` is not a lower-case RFC 1123 label (1-63 of a-z 0-9 -, no - at either end): Kubernetes node names and the hosts/ folders need one", .0.escape_debug())]
    Server(String),
    /// A NIC name that is no Linux interface name.
    #[error("NIC name `{}` is not a Linux interface name ({rule})", name.escape_debug())]
    Nic {
        /// The name.
        name: String,
        /// The rule it breaks.
        rule: PlainWord,
    },
    /// An RDMA device name that is no plain word.
    #[error("RDMA device name `{}` is not one ({rule})", name.escape_debug())]
    Rdma {
        /// The name.
        name: String,
        /// The rule it breaks.
        rule: PlainWord,
    },
    /// The `hosts.nccl.hca` pattern could not be expanded.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// Two NIC ports named the same RDMA device.
    #[error(
        "`{pattern}` names RDMA device `{name}` for two NIC ports: each port is its own device"
    )]
    SameDevice {
        /// The pattern.
        pattern: String,
        /// The device named twice.
        name: String,
    },
    /// A Kubernetes resource name that is none.
    #[error("hosts.kubernetes.resource gives `{}` for rail {rail}: not a resource name like spidernet.io/rail1", name.escape_debug())]
    Resource {
        /// The name the pattern gave.
        name: String,
        /// The rail.
        rail: u32,
    },
}

/// The rule of a plain device name a name breaks: 1 to `max` of letters, digits, `_ . -`, not starting
/// with `-` or `.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("1-{max} of letters, digits, _ . -, not starting with - or .")]
pub struct PlainWord {
    /// The longest name allowed.
    pub max: usize,
}

/// A server name usable as a Kubernetes node name and a folder: a lower-case RFC 1123 label (1-63 of
/// `a-z 0-9 -`, starting and ending with a letter or digit).
pub fn check_server(name: &str) -> Result<(), HostNameError> {
    let ok = (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(HostNameError::Server(name.to_string()))
    }
}

/// A Linux interface name (`IFNAMSIZ` 16 with its NUL: 1-15 bytes) that is also a plain shell word and
/// YAML key: letters, digits, `_`, `.` and `-`, not starting with `-` or `.`.
pub fn check_nic(name: &str) -> Result<(), HostNameError> {
    plain_word(name, 15).map_err(|rule| HostNameError::Nic {
        name: name.to_string(),
        rule,
    })
}

/// An RDMA device name (`IB_DEVICE_NAME_MAX` 64 with its NUL: 1-63 bytes) that is also a plain shell
/// word and an `NCCL_IB_HCA` item: letters, digits, `_`, `.` and `-` (none of NCCL's `,` `:` `^` `=`),
/// not starting with `-` or `.`.
pub fn check_rdma(name: &str) -> Result<(), HostNameError> {
    plain_word(name, 63).map_err(|rule| HostNameError::Rdma {
        name: name.to_string(),
        rule,
    })
}

/// A device name that is a plain shell word: 1-`max` of letters, digits, `_ . -`, not starting with `-`
/// or `.`. The error is that rule, in words.
fn plain_word(name: &str, max: usize) -> Result<(), PlainWord> {
    let ok = (1..=max).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
        && !name.starts_with(['-', '.']);
    if ok { Ok(()) } else { Err(PlainWord { max }) }
}

/// The RDMA device of every NIC port of a server, rail by rail and port by port (the order of the
/// netdevs), from the `hosts.nccl.hca` pattern: each a checked device name, no two the same.
pub fn hca_names(pattern: &str, rails: u32, nic_ports: u32) -> Result<Vec<String>, HostNameError> {
    let mut names: Vec<String> = Vec::new();
    for rail in 0..rails {
        for port in 0..nic_ports {
            let values = [
                ("rail", rail + 1),
                ("nic", rail),
                ("port", port + 1),
                ("index", rail * nic_ports + port),
            ];
            let name = crate::shape::pattern::expand(pattern, &values)?;
            check_rdma(&name)?;
            if names.contains(&name) {
                return Err(HostNameError::SameDevice {
                    pattern: pattern.to_string(),
                    name,
                });
            }
            names.push(name);
        }
    }
    Ok(names)
}

/// The RDMA resource name of NIC port `port` of rail `rail`: the pattern `kubernetes.resource` with
/// `{rail}` and `{port}` filled in, checked (a placeholder left over is refused with the rest).
pub fn resource(pattern: &str, rail: u32, port: u32) -> Result<String, HostNameError> {
    let r = pattern
        .replace("{rail}", &rail.to_string())
        .replace("{port}", &port.to_string());
    let ok = r.split_once('/').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b".-".contains(&c))
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(&c))
    });
    if ok {
        Ok(r)
    } else {
        Err(HostNameError::Resource { name: r, rail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_port_gets_its_own_rdma_device() {
        assert_eq!(
            hca_names("mlx5_{index}", 2, 2),
            Ok(vec![
                "mlx5_0".to_string(),
                "mlx5_1".into(),
                "mlx5_2".into(),
                "mlx5_3".into()
            ])
        );
        assert_eq!(
            hca_names("mlx5_{rail}", 3, 1),
            Ok(vec!["mlx5_1".to_string(), "mlx5_2".into(), "mlx5_3".into()])
        );
        let shared = hca_names("mlx5_{nic}", 2, 2).unwrap_err().to_string();
        assert!(shared.contains("two NIC ports"), "{shared}");
        assert!(
            hca_names("mlx5_{gpu}", 2, 1)
                .unwrap_err()
                .to_string()
                .contains("{gpu}")
        );
        for bad in [
            "mlx5,0",
            "mlx5:{index}",
            "=mlx5_{index}",
            "-m{index}",
            "a b{index}",
            "",
        ] {
            assert!(hca_names(bad, 1, 1).is_err(), "{bad:?}");
        }
        assert!(check_rdma(&"m".repeat(64)).is_err());
        assert_eq!(check_rdma(&"m".repeat(63)), Ok(()));
    }

    /// The typed errors print what the text errors printed.
    #[test]
    fn errors_print_as_before() {
        assert_eq!(
            check_nic("a b").unwrap_err().to_string(),
            "NIC name `a b` is not a Linux interface name (1-15 of letters, digits, _ . -, not starting with - or .)"
        );
        assert_eq!(
            check_rdma("").unwrap_err().to_string(),
            "RDMA device name `` is not one (1-63 of letters, digits, _ . -, not starting with - or .)"
        );
        assert_eq!(
            resource("x/{rail}", 1, 1).map(drop),
            Ok(()),
            "a plain resource name"
        );
        assert_eq!(
            resource("X/{rail}", 2, 1).unwrap_err().to_string(),
            "hosts.kubernetes.resource gives `X/2` for rail 2: not a resource name like spidernet.io/rail1"
        );
    }

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
