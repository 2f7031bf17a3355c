//! Findings: every problem aifab reports about an intent, with its rule id, location and fix hint.
//!
//! Loading, schema validation and semantic checks all produce [`Finding`]s; the CLI prints them as
//! miette diagnostics (`file:line:col`, the source line underlined, a help line), as JSON, or as SARIF.

pub mod render;

use crate::rules::Rule;
pub use crate::rules::Severity;
use serde::Serialize;
use std::sync::Arc;

/// One intent file's name and text, shared by every finding about it.
#[derive(Clone, Debug)]
pub struct Source {
    /// Path as the user gave it.
    pub name: String,
    /// Full text.
    pub text: Arc<str>,
}

impl Source {
    /// Wraps a file's name and text.
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// Byte offset of the start.
    pub offset: usize,
    /// Length in bytes (0 for a point).
    pub len: usize,
}

/// One problem found in an intent.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The rule, serialized as its stable id (`AIF-YAML-002`, `AIF-SCHEMA-001`, `AIF-QOS-003`).
    pub code: Rule,
    /// Error or warning: the rule's severity in the registry.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// File name.
    pub file: String,
    /// JSON pointer of the offending node in the intent (`/qos/classes/roce/ecn/min`), when known.
    pub pointer: Option<String>,
    /// Byte range, when known.
    pub span: Option<Span>,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Finding {
    /// A finding of `rule`, with the rule's severity, without a location yet.
    pub fn new(rule: Rule, message: impl Into<String>) -> Finding {
        Finding {
            code: rule,
            severity: rule.severity(),
            message: message.into(),
            file: String::new(),
            pointer: None,
            span: None,
            line: None,
            column: None,
            hint: None,
        }
    }
    /// Adds a fix hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Finding {
        self.hint = Some(hint.into());
        self
    }
    /// Points at an intent node by JSON pointer; the location is filled in by [`crate::pipeline::locate`].
    pub fn at(mut self, pointer: impl Into<String>) -> Finding {
        self.pointer = Some(pointer.into());
        self
    }
    /// Sets file, byte span, line and column.
    pub fn with_span(mut self, source: &Source, span: Span) -> Finding {
        let (line, col) = source.line_col(span.offset);
        self.file = source.name.clone();
        self.span = Some(span);
        self.line = Some(line);
        self.column = Some(col);
        self
    }
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// True when any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(Finding::is_error)
}
