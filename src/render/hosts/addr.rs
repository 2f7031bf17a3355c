//! The addresses of the host files as values: [`Cidr`] (`a.b.c.d/len`, a netplan address, a pool's
//! subnet) and [`IpRange`] (`a.b.c.d` or `a.b.c.d-e.f.g.h`, a SpiderIPPool's `ips`), written as
//! strings and parsed back from them, so a file read back yields the same values.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

/// An IPv4 address with a prefix length (`10.12.0.2/26`): an interface address or a subnet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    /// The address (for a subnet, its network address).
    pub ip: Ipv4Addr,
    /// The prefix length, 0-32.
    pub len: u8,
}

/// A range of IPv4 addresses, both ends included (one address when they are equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpRange {
    /// The first address.
    pub first: Ipv4Addr,
    /// The last address.
    pub last: Ipv4Addr,
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.ip, self.len)
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

/// Text that is not the address it should be (as read back from a file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddrError {
    /// Not `a.b.c.d/len` with a length of 0-32.
    #[error("`{0}` is not an IPv4 address with a prefix length")]
    NotCidr(String),
    /// Not `a.b.c.d` or `a.b.c.d-e.f.g.h` with the first not after the last.
    #[error("`{0}` is not an IPv4 address or range")]
    NotRange(String),
}

impl FromStr for Cidr {
    type Err = AddrError;
    fn from_str(s: &str) -> Result<Self, AddrError> {
        let bad = || AddrError::NotCidr(s.to_string());
        let (ip, len) = s.split_once('/').ok_or_else(bad)?;
        let len: u8 = len.parse().map_err(|_| bad())?;
        if len > 32 {
            return Err(bad());
        }
        Ok(Cidr {
            ip: ip.parse().map_err(|_| bad())?,
            len,
        })
    }
}

impl FromStr for IpRange {
    type Err = AddrError;
    fn from_str(s: &str) -> Result<Self, AddrError> {
        let bad = || AddrError::NotRange(s.to_string());
        let (a, b) = s.split_once('-').unwrap_or((s, s));
        let (first, last): (Ipv4Addr, Ipv4Addr) =
            (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if first > last {
            return Err(bad());
        }
        Ok(IpRange { first, last })
    }
}

impl Serialize for Cidr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for IpRange {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Cidr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for IpRange {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::{Cidr, IpRange};
    use std::net::Ipv4Addr;

    #[test]
    fn spelt_and_parsed_back() {
        let c = Cidr {
            ip: Ipv4Addr::new(10, 12, 0, 2),
            len: 26,
        };
        assert_eq!(c.to_string(), "10.12.0.2/26");
        assert_eq!("10.12.0.2/26".parse(), Ok(c));
        let one = IpRange {
            first: Ipv4Addr::new(10, 0, 0, 1),
            last: Ipv4Addr::new(10, 0, 0, 1),
        };
        assert_eq!(one.to_string(), "10.0.0.1");
        assert_eq!("10.0.0.1".parse(), Ok(one));
        let r = IpRange {
            last: Ipv4Addr::new(10, 0, 0, 9),
            ..one
        };
        assert_eq!(r.to_string(), "10.0.0.1-10.0.0.9");
        assert_eq!("10.0.0.1-10.0.0.9".parse(), Ok(r));
        for bad in ["10.0.0.1", "10.0.0.1/33", "10.0.0/8", "x/8"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
        for bad in ["10.0.0.9-10.0.0.1", "10.0.0.1-", "a-b", "10.0.0.1/31"] {
            assert!(bad.parse::<IpRange>().is_err(), "{bad}");
        }
    }
}
