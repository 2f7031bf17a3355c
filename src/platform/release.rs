//! OS releases as each vendor spells them, parsed into comparable numbers: NX-OS `10.5(1)F`, EOS
//! `4.33.1F`, SONiC `202405` (a branch, year and month; an optional `.N` point release). The train
//! letters (`F`, `M`) do not order releases and are ignored.

use crate::kinds::Os;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// A rendered feature that needs a minimum release.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// Dynamic load balancing (`dlb.min_os`).
    Dlb,
    /// RoCEv2 destination-QP hashing (`qp_hash.min_os`).
    QpHash,
    /// The eBGP underlay as rendered (SONiC: IPv4 activation through `default_ipv4_unicast`).
    Bgp,
    /// The PFC watchdog as rendered (SONiC: `pfcwd_sw_enable`).
    PfcWatchdog,
}

impl Feature {
    /// The feature as messages name it.
    pub fn label(self) -> &'static str {
        match self {
            Feature::Dlb => "DLB",
            Feature::QpHash => "QP hashing",
            Feature::Bgp => "the BGP underlay",
            Feature::PfcWatchdog => "the PFC watchdog",
        }
    }
}

/// A parsed release: its numbers, most significant first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(Vec<u32>);

/// The OS as its vendor names it (`NX-OS`), for messages.
pub fn os_name(os: Os) -> &'static str {
    match os {
        Os::Nxos => "NX-OS",
        Os::Eos => "EOS",
        Os::Sonic => "SONiC",
    }
}

/// The release spelling of `os`, for messages (`10.5(1)F`).
pub fn example(os: Os) -> &'static str {
    match os {
        Os::Nxos => "10.5(1)F",
        Os::Eos => "4.33.1F",
        Os::Sonic => "202405",
    }
}

/// A release that is not spelled as its OS spells releases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a {} release like {}", os_name(*os), example(*os))]
pub struct ReleaseError {
    /// The OS.
    pub os: Os,
    /// The release as written.
    pub text: String,
}

impl Release {
    /// Parses `text` as a release of `os`; the error says what the spelling should be.
    pub fn parse(os: Os, text: &str) -> Result<Release, ReleaseError> {
        let nums = match os {
            Os::Nxos => nxos(text),
            Os::Eos => eos(text),
            Os::Sonic => sonic(text),
        };
        nums.map(Release).ok_or_else(|| ReleaseError {
            os,
            text: text.to_string(),
        })
    }

    /// Whether this release is at least `min`.
    pub fn at_least(&self, min: &Release) -> bool {
        self.cmp(min) != Ordering::Less
    }
}

/// Digits only, as a number (at most 9 digits, so no overflow).
fn number(s: &str) -> Option<u32> {
    (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `text` without a trailing train of capital letters (`F`, `M`, none).
fn strip_train(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_ascii_uppercase())
}

/// NX-OS `major.minor(maintenance[rebuild])train`: `10.5(1)F`, `9.3(10)`, `10.3(4a)M` (a rebuild
/// letter orders after the plain maintenance release).
fn nxos(text: &str) -> Option<Vec<u32>> {
    let (head, rest) = text.split_once('(')?;
    let (maint, train) = rest.split_once(')')?;
    if !train.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let (major, minor) = head.split_once('.')?;
    let digits = maint.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let rebuild = match &maint[digits.len()..] {
        "" => 0,
        r if r.len() == 1 => u32::from(r.as_bytes()[0] - b'a') + 1,
        _ => return None,
    };
    Some(vec![
        number(major)?,
        number(minor)?,
        number(digits)?,
        rebuild,
    ])
}

/// EOS `major.minor.patch[.build]train`: `4.33.1F`, `4.30.2.1F`.
fn eos(text: &str) -> Option<Vec<u32>> {
    let parts: Vec<&str> = strip_train(text).split('.').collect();
    if !(3..=4).contains(&parts.len()) {
        return None;
    }
    parts.into_iter().map(number).collect()
}

/// SONiC `YYYYMM[.N]`: `202405`, `202311.3`.
fn sonic(text: &str) -> Option<Vec<u32>> {
    let (branch, point) = match text.split_once('.') {
        Some((b, p)) => (b, Some(p)),
        None => (text, None),
    };
    let month = branch.get(4..)?;
    if branch.len() != 6 || !(1..=12).contains(&number(month)?) {
        return None;
    }
    let mut out = vec![number(branch)?];
    if let Some(p) = point {
        out.push(number(p)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(os: Os, t: &str) -> Release {
        Release::parse(os, t).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn nxos_releases_order_by_major_minor_maintenance() {
        assert!(r(Os::Nxos, "10.5(2)F").at_least(&r(Os::Nxos, "10.5(1)F")));
        assert!(r(Os::Nxos, "10.5(1)F").at_least(&r(Os::Nxos, "10.5(1)F")));
        assert!(!r(Os::Nxos, "10.4(3)F").at_least(&r(Os::Nxos, "10.5(1)F")));
        assert!(!r(Os::Nxos, "9.3(10)").at_least(&r(Os::Nxos, "10.5(1)F")));
        assert!(r(Os::Nxos, "10.10(1)F").at_least(&r(Os::Nxos, "10.5(1)F")));
        assert!(r(Os::Nxos, "10.3(4a)M").at_least(&r(Os::Nxos, "10.3(4)M")));
        assert!(!r(Os::Nxos, "10.3(4a)M").at_least(&r(Os::Nxos, "10.3(5)M")));
    }

    #[test]
    fn eos_releases_compare_numerically_not_as_text() {
        assert!(r(Os::Eos, "4.34.1F").at_least(&r(Os::Eos, "4.33.1F")));
        assert!(!r(Os::Eos, "4.33.0F").at_least(&r(Os::Eos, "4.33.1F")));
        assert!(!r(Os::Eos, "4.9.1F").at_least(&r(Os::Eos, "4.33.1F")));
        assert!(r(Os::Eos, "4.33.1.2F").at_least(&r(Os::Eos, "4.33.1F")));
        assert!(r(Os::Eos, "4.33.1M").at_least(&r(Os::Eos, "4.33.1F")));
    }

    #[test]
    fn sonic_branches_order_by_year_and_month() {
        assert!(r(Os::Sonic, "202505").at_least(&r(Os::Sonic, "202405")));
        assert!(!r(Os::Sonic, "202311").at_least(&r(Os::Sonic, "202405")));
        assert!(r(Os::Sonic, "202405.3").at_least(&r(Os::Sonic, "202405")));
    }

    #[test]
    fn other_spellings_are_refused_with_an_example() {
        for (os, bad) in [
            (Os::Nxos, "10.5.1F"),
            (Os::Nxos, "10.5(1"),
            (Os::Nxos, "10.5(1)f"),
            (Os::Nxos, "10.5(1ab)F"),
            (Os::Eos, "4.33F"),
            (Os::Eos, "4.33.x"),
            (Os::Eos, "10.5(1)F"),
            (Os::Sonic, "2024"),
            (Os::Sonic, "202413"),
            (Os::Sonic, "master"),
            (Os::Sonic, "4.33.1F"),
        ] {
            let e = Release::parse(os, bad).expect_err(bad).to_string();
            assert!(e.contains(example(os)), "{e}");
        }
    }
}
