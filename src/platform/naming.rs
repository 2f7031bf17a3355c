//! What a platform's ports are called and run at: the interface name of a front-panel port and of a
//! breakout child (the naming pattern, or the SKU's port table on SONiC), its speeds and modes.

use super::types::{Breakout, Platform};
use crate::units::{PortMode, Speed};
use std::collections::HashMap;

/// Every name a platform's front-panel ports go by, unbroken and broken out, with the port each
/// names: how `aifab drift` knows that a running `interface Ethernet1/5/1` is the same port as a
/// rendered `interface Ethernet1/5` (and so aifab's), while a port beyond the platform's list is not.
#[derive(Clone, Debug, Default)]
pub struct PortNames(HashMap<String, u32>);

impl PortNames {
    /// The front-panel port `name` is a name of (`Ethernet1/5/2` -> 5), if any.
    pub fn port(&self, name: &str) -> Option<u32> {
        self.0.get(name).copied()
    }
}

impl Platform {
    /// The interface name of front-panel port `port` (1-based): the SKU's port table on SONiC, else
    /// the naming pattern.
    pub fn interface_name(&self, port: u32) -> String {
        if let Some(row) = self.sonic.as_ref().and_then(|s| s.port(port)) {
            return row.name.clone();
        }
        self.spell(&self.ports.naming, port, None)
    }

    /// The interface name of child `child` (1-based) of front-panel port `port` broken out into
    /// `children` ports: derived from the SKU's row on SONiC, else the child naming pattern.
    pub fn child_name(&self, port: u32, child: u32, children: u32) -> String {
        if children <= 1 {
            return self.interface_name(port);
        }
        if let Some(s) = &self.sonic {
            return s.child_name(port, child, children).unwrap_or_default();
        }
        let lane = 1 + (child - 1) * self.ports.lanes.unwrap_or(children) / children;
        self.spell(&self.ports.child_naming, port, Some((child, lane)))
    }

    /// Every name of every front-panel port ([`PortNames`]): the port's own name and its children's
    /// in each breakout mode the platform lists, and in 2, 4 and 8 children up to its lanes (a
    /// switch may run a mode aifab does not render).
    pub fn port_names(&self) -> PortNames {
        let mut counts: Vec<u32> = self
            .ports
            .breakout
            .iter()
            .map(|b| b.mode.children)
            .collect();
        if let Some(lanes) = self.ports.lanes {
            counts.extend([2, 4, 8].into_iter().filter(|c| *c <= lanes));
        }
        counts.sort_unstable();
        counts.dedup();
        let mut names = HashMap::new();
        for port in 1..=self.ports.count {
            names.insert(self.interface_name(port), port);
            for &n in &counts {
                for child in 1..=n {
                    let name = self.child_name(port, child, n);
                    if !name.is_empty() {
                        names.insert(name, port);
                    }
                }
            }
        }
        PortNames(names)
    }

    /// Every speed a port of this platform runs at: the native speeds, then the breakout speeds.
    pub fn port_speeds(&self) -> Vec<Speed> {
        let mut out = self.ports.speeds.clone();
        for b in &self.ports.breakout {
            if !out.contains(&b.mode.speed) {
                out.push(b.mode.speed);
            }
        }
        out
    }

    /// The breakout fact of `mode`, when the platform has it.
    pub fn breakout(&self, mode: PortMode) -> Option<&Breakout> {
        self.ports.breakout.iter().find(|b| b.mode == mode)
    }

    /// The modes a port runs in, native speeds first, as `1x800G, 2x400G, ...` for messages.
    pub fn modes_text(&self) -> String {
        let native = self
            .ports
            .speeds
            .iter()
            .map(|&speed| PortMode { children: 1, speed });
        native
            .chain(self.ports.breakout.iter().map(|b| b.mode))
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `pattern` with its placeholders filled for port `port` in one pass: `{port}`, and `{card}` and
    /// `{card_port}` on a modular platform; with `child` = (child, lane) also `{child}` and `{lane}`.
    /// Any other brace, and a placeholder the platform does not fill, stays as written. (Names for
    /// every port of every platform a fabric uses are spelled at each start: one pass and one string
    /// each, instead of a string per placeholder.)
    fn spell(&self, pattern: &str, port: u32, child: Option<(u32, u32)>) -> String {
        let p = &self.ports;
        let card = p.ports_per_card.map(|ppc| {
            (
                (port - 1) / ppc + p.first_card.unwrap_or(1),
                (port - 1) % ppc + 1,
            )
        });
        let mut out = String::with_capacity(pattern.len() + 8);
        let mut rest = pattern;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let value = [
                ("{port}", Some(port)),
                ("{card}", card.map(|c| c.0)),
                ("{card_port}", card.map(|c| c.1)),
                ("{child}", child.map(|c| c.0)),
                ("{lane}", child.map(|c| c.1)),
            ]
            .into_iter()
            .find_map(|(key, v)| Some((key.len(), v?)).filter(|_| rest.starts_with(key)));
            match value {
                Some((len, v)) => {
                    crate::spell::push_decimal(&mut out, u64::from(v));
                    rest = &rest[len..];
                }
                None => {
                    out.push('{');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::Catalog;

    /// The names as they were spelled before [`super::Platform::spell`]: one `replace` per
    /// placeholder, in order.
    fn replaced(
        p: &super::Platform,
        pattern: &str,
        port: u32,
        child: Option<(u32, u32)>,
    ) -> String {
        let mut s = pattern.replace("{port}", &port.to_string());
        if let Some(ppc) = p.ports.ports_per_card {
            s = s
                .replace(
                    "{card}",
                    &((port - 1) / ppc + p.ports.first_card.unwrap_or(1)).to_string(),
                )
                .replace("{card_port}", &((port - 1) % ppc + 1).to_string());
        }
        match child {
            Some((c, lane)) => s
                .replace("{child}", &c.to_string())
                .replace("{lane}", &lane.to_string()),
            None => s,
        }
    }

    /// Every port and breakout child of every built-in platform, and patterns with stray braces and
    /// placeholders the platform does not fill, are spelled in one pass exactly as the `replace`
    /// chain spelled them; a SONiC child's name is the name of its whole row.
    #[test]
    fn one_pass_names_are_the_replaced_names() {
        let odd = [
            "{port",
            "x{}{port}}{{card}",
            "{lane}{child}{card_port}{other}",
            "",
            "{",
        ];
        for (name, entry) in &Catalog::builtin().platforms {
            let p = &entry.1;
            let patterns = [p.ports.naming.as_str(), p.ports.child_naming.as_str()];
            for port in 1..=p.ports.count {
                for pattern in patterns.iter().copied().chain(odd) {
                    for child in [None, Some((1, 1)), Some((2, 5)), Some((8, 8))] {
                        assert_eq!(
                            p.spell(pattern, port, child),
                            replaced(p, pattern, port, child),
                            "{name} port {port} {pattern:?} {child:?}"
                        );
                    }
                }
                let Some(s) = &p.sonic else { continue };
                for children in [2, 3, 4, 8] {
                    for c in 0..=children + 1 {
                        assert_eq!(
                            s.child_name(port, c, children),
                            s.child(port, c, children).map(|r| r.name),
                            "{name} port {port} child {c}/{children}"
                        );
                    }
                }
            }
        }
    }
}
