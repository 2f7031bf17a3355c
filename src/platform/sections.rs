//! A CLI config (NX-OS or EOS, rendered or as `show running-config` prints it) split into its
//! top-level sections: a line at the left margin and every indented line under it. Comment lines
//! (`!`), blank lines and `end` are not part of any section; a banner's text is, up to its closing
//! delimiter (`banner motd #` ... `#` on NX-OS, `banner login` ... `EOF` on EOS).

/// One top-level section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its first line with runs of whitespace collapsed to one space (what ownership patterns and the
    /// comparison read).
    pub top: String,
    /// Every line of the section as written, trailing whitespace removed; the first line first.
    pub lines: Vec<String>,
}

/// How a banner's text ends.
enum BannerEnd {
    /// A line `EOF` (EOS).
    Eof,
    /// A line holding this delimiter (NX-OS `banner motd #`).
    Delimiter(char),
}

/// The banner a top line opens, if it opens one whose text follows on later lines.
fn banner_end(top: &str) -> Option<BannerEnd> {
    let rest = top.strip_prefix("banner ")?;
    let (_kind, after) = match rest.split_once(' ') {
        Some((k, a)) => (k, a.trim_start()),
        None => return Some(BannerEnd::Eof),
    };
    let d = after.chars().next()?;
    // `banner motd #text#` closes on its own line.
    (!after[d.len_utf8()..].contains(d)).then_some(BannerEnd::Delimiter(d))
}

/// Where one line of a CLI config belongs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// It opens a section: its first line, whitespace collapsed.
    Opens(String),
    /// It continues the section opened last (an indented line, a banner's text).
    Continues,
    /// A comment, a blank line or `end`: no section's.
    Outside,
}

/// Reads a CLI config line by line ([`Splitter::place`]), as [`sections`] splits it.
#[derive(Default)]
pub struct Splitter {
    banner: Option<BannerEnd>,
    opened: bool,
}

impl Splitter {
    /// Where `raw`, the next line, belongs.
    pub fn place(&mut self, raw: &str) -> Place {
        let line = raw.trim_end();
        if let Some(end) = &self.banner {
            let closes = match end {
                BannerEnd::Eof => line == "EOF",
                BannerEnd::Delimiter(d) => line.contains(*d),
            };
            if closes {
                self.banner = None;
            }
            return Place::Continues;
        }
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('!') || line == "end" {
            return Place::Outside;
        }
        if line.starts_with(char::is_whitespace) && self.opened {
            return Place::Continues;
        }
        let top = collapse(t);
        self.banner = banner_end(&top);
        self.opened = true;
        Place::Opens(top)
    }
}

/// The sections of `text`, in order.
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut splitter = Splitter::default();
    for raw in text.lines() {
        let line = raw.trim_end();
        match splitter.place(raw) {
            Place::Opens(top) => out.push(Section {
                top,
                lines: vec![line.trim_start().to_string()],
            }),
            Place::Continues => {
                if let Some(s) = out.last_mut() {
                    s.lines.push(line.to_string());
                }
            }
            Place::Outside => {}
        }
    }
    out
}

/// `s` with runs of whitespace collapsed to one space and no leading or trailing space.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Section {
    /// One key per line, for comparing two versions of a section: the first line alone, then each
    /// later line behind the lines it sits under (`router bgp 65001 > address-family ipv4 > network
    /// ...`), whitespace collapsed. A comment line inside a section (`  ! aifab: ...`) has no key.
    pub fn keys(&self) -> Vec<(String, usize)> {
        let mut out = vec![(self.top.clone(), 0)];
        let mut stack: Vec<(usize, String)> = Vec::new();
        for (i, line) in self.lines.iter().enumerate().skip(1) {
            let text = line.trim_start();
            if text.starts_with('!') && !self.top.starts_with("banner ") {
                continue;
            }
            let indent = line.len() - text.len();
            while stack.last().is_some_and(|(d, _)| *d >= indent) {
                stack.pop();
            }
            let mut key = self.top.clone();
            for (_, parent) in &stack {
                key.push_str(" > ");
                key.push_str(parent);
            }
            key.push_str(" > ");
            key.push_str(&collapse(text));
            out.push((key, i));
            stack.push((indent, collapse(text)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_children_comments_and_banners() {
        let text = "!Command: show running-config\n\nversion 10.3(4a)\nhostname  sw1\nvdc sw1 id 1\n  limit-resource vlan minimum 16 maximum 4094\n\nbanner motd #\nHello\n! not a comment here\n#\nbanner login\nText\nEOF\nbanner exec ^CInline^C\nline vty\nend\n";
        let s = sections(text);
        let tops: Vec<&str> = s.iter().map(|x| x.top.as_str()).collect();
        assert_eq!(
            tops,
            [
                "version 10.3(4a)",
                "hostname sw1",
                "vdc sw1 id 1",
                "banner motd #",
                "banner login",
                "banner exec ^CInline^C",
                "line vty"
            ]
        );
        assert_eq!(s[2].lines.len(), 2);
        assert_eq!(
            s[3].lines,
            ["banner motd #", "Hello", "! not a comment here", "#"]
        );
        assert_eq!(s[4].lines, ["banner login", "Text", "EOF"]);
    }

    #[test]
    fn keys_follow_nesting() {
        let s = &sections(
            "router bgp 1\n   neighbor A remote-as 2\n   address-family ipv4\n      network N\n   ! aifab: note\n   router-id R\n",
        )[0];
        let keys: Vec<String> = s.keys().into_iter().map(|k| k.0).collect();
        assert_eq!(
            keys,
            [
                "router bgp 1",
                "router bgp 1 > neighbor A remote-as 2",
                "router bgp 1 > address-family ipv4",
                "router bgp 1 > address-family ipv4 > network N",
                "router bgp 1 > router-id R",
            ]
        );
    }
}
