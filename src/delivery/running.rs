//! A `show running-config` text checked before `aifab drift` reads it: line ends made plain (a
//! capture through some terminals or Windows tools ends lines with CRLF), and refused when it is
//! empty, cut short (the rendered config ends with `end`, as EOS prints its running-config, and this
//! one has none), or another switch's (its `hostname`/`switchname` line names another device).

use std::borrow::Cow;

/// Why a running-config cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing but blank lines.
    Empty,
    /// The last line is not `end` where the OS prints one: the capture was cut short.
    Incomplete,
    /// The config names another switch (its hostname as the config says it).
    OtherSwitch(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Empty => f.write_str("an empty running-config: fetch it again"),
            Refusal::Incomplete => f.write_str(
                "an incomplete running-config (no `end` line after the last section, which the switch prints): the capture was cut short; fetch it again",
            ),
            Refusal::OtherSwitch(h) => write!(
                f,
                "the running-config of another switch (`hostname {h}`): each file must be the switch's own, named <hostname>.cfg"
            ),
        }
    }
}

/// `text` with CRLF line ends made LF, or why it cannot be compared with `rendered`, the config
/// aifab rendered for `host`.
pub fn check<'a>(text: &'a str, rendered: &str, host: &str) -> Result<Cow<'a, str>, Refusal> {
    let text: Cow<str> = if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    };
    if text.trim().is_empty() {
        return Err(Refusal::Empty);
    }
    let last = |t: &str| {
        t.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::trim_end)
            .map(str::to_string)
    };
    if last(rendered).as_deref() == Some("end") && last(&text).as_deref() != Some("end") {
        return Err(Refusal::Incomplete);
    }
    let named = text.lines().find_map(|l| {
        let rest = l
            .strip_prefix("hostname ")
            .or_else(|| l.strip_prefix("switchname "))?;
        Some(rest.trim().to_string())
    });
    match named {
        Some(h) if h != host => Err(Refusal::OtherSwitch(h)),
        _ => Ok(text),
    }
}

#[cfg(test)]
mod tests {
    use super::{Refusal, check};

    #[test]
    fn a_capture_is_made_plain_or_refused_with_the_reason() {
        let eos = "hostname leaf1\n!\nend\n";
        assert_eq!(
            check("hostname leaf1\r\n!\r\nend\r\n", eos, "leaf1").as_deref(),
            Ok("hostname leaf1\n!\nend\n")
        );
        assert!(check("! Time: x\nhostname leaf1\nend\n", eos, "leaf1").is_ok());
        assert_eq!(check(" \n\n", eos, "leaf1"), Err(Refusal::Empty));
        assert_eq!(
            check("hostname leaf1\ninterface Ethernet1\n", eos, "leaf1"),
            Err(Refusal::Incomplete)
        );
        assert_eq!(
            check("hostname leaf2\nend\n", eos, "leaf1"),
            Err(Refusal::OtherSwitch("leaf2".into()))
        );
        // NX-OS prints no `end`: nothing is missing without one.
        let nxos = "hostname leaf1\ninterface Ethernet1/1\n";
        assert!(check("!Time: Fri\nswitchname leaf1\nfeature bgp\n", nxos, "leaf1").is_ok());
        assert_eq!(
            check("switchname spine9\n", nxos, "leaf1"),
            Err(Refusal::OtherSwitch("spine9".into()))
        );
    }
}
