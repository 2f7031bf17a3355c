//! Loading an intent: strict YAML 1.2 parsing with source spans for every node.
//! (skeleton: to be completed — see the module's owner)

use crate::diag::Span;
use std::collections::HashMap;

/// Source spans of every node of a loaded document, by JSON pointer (`/qos/classes/roce/ecn/min`).
#[derive(Clone, Debug, Default)]
pub struct SpanMap {
    /// Value span per pointer.
    pub values: HashMap<String, Span>,
    /// Key span per pointer (mapping entries only).
    pub keys: HashMap<String, Span>,
}

impl SpanMap {
    /// The span of the value at `pointer`; for a pointer that does not exist (a missing key), the span of
    /// its closest existing ancestor.
    pub fn locate(&self, pointer: &str) -> Option<Span> {
        let mut p = pointer;
        loop {
            if let Some(s) = self.values.get(p) {
                return Some(*s);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.values.get("").copied(),
            }
        }
    }
}
