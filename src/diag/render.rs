//! Printing findings: as miette reports for people, as JSON for scripts, as SARIF 2.1.0 for code-scanning
//! tools.

use super::{Finding, Severity, Source};
use crate::rules::Rule;
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;

/// One finding as a miette [`Diagnostic`].
struct Report<'a> {
    finding: &'a Finding,
    /// The span to underline: the finding's, cut at the end of its first line so that a whole mapping
    /// does not print as a wall of source.
    label: Option<(usize, usize)>,
    headline: String,
    source: Option<NamedSource<Arc<str>>>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.finding.code.id()))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.finding
            .hint
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.label?;
        self.source.as_ref()?;
        let label = match self.finding.severity {
            Severity::Error => "here",
            Severity::Warning => "this",
        };
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(label.to_string()), span),
        )))
    }
}

/// `file:line:col` of a finding (`file` alone when it has no location).
pub fn location(f: &Finding) -> String {
    match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", f.file),
        _ => f.file.clone(),
    }
}

/// Findings about `source` as miette reports: code, `file:line:col: message`, the source lines with the
/// offending span underlined, and the hint as help. `color` selects ANSI colors.
pub fn to_text(findings: &[Finding], source: &Source, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_wrap_lines(false)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for f in findings {
        let in_range = f
            .span
            .is_some_and(|s| s.offset.saturating_add(s.len) <= source.text.len());
        let label = f.span.filter(|_| in_range).map(|s| {
            let text = source
                .text
                .get(s.offset..s.offset + s.len)
                .unwrap_or_default();
            (s.offset, text.find(['\n', '\r']).unwrap_or(s.len))
        });
        let report = Report {
            finding: f,
            label,
            headline: if f.file.is_empty() {
                f.message.clone()
            } else {
                format!("{}: {}", location(f), f.message)
            },
            source: (in_range && (f.file.is_empty() || f.file == source.name)).then(|| {
                NamedSource::new(&source.name, Arc::clone(&source.text)).with_language("yaml")
            }),
        };
        if handler.render_report(&mut out, &report).is_err() {
            out.push_str(&format!("{}: {}\n", f.code, report.headline));
        }
    }
    out
}

/// Findings as a pretty JSON array (fields in a fixed order: `code`, `severity`, `message`, `file`,
/// `pointer`, `span`, `line`, `column`, `hint`), with a trailing newline.
pub fn to_json(findings: &[Finding]) -> String {
    let mut s = serde_json::to_string_pretty(findings).unwrap_or_else(|_| "[]".into());
    s.push('\n');
    s
}

/// A severity as a SARIF level.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A file path as a SARIF artifact URI (relative paths stay relative; `\` becomes `/`; characters outside
/// the URI set are percent-encoded).
fn artifact_uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:@!$&'()*+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Findings as a SARIF 2.1.0 log: one run of the tool `aifab`, one rule per distinct code (described from
/// the rule registry), one result per finding with its file, start line and start column. Pretty JSON with
/// a trailing newline.
pub fn to_sarif(findings: &[Finding]) -> String {
    let mut codes: Vec<Rule> = findings.iter().map(|f| f.code).collect();
    codes.sort_unstable_by_key(|r| r.id());
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "shortDescription": { "text": r.summary() },
                "defaultConfiguration": { "level": level(r.severity()) },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut text = f.message.clone();
            if let Some(h) = &f.hint {
                text.push_str("\nHint: ");
                text.push_str(h);
            }
            let mut r = json!({
                "ruleId": f.code,
                "ruleIndex": codes.iter().position(|c| *c == f.code).unwrap_or(0),
                "level": level(f.severity),
                "message": { "text": text },
            });
            if !f.file.is_empty() {
                let mut loc = json!({ "artifactLocation": { "uri": artifact_uri(&f.file) } });
                if let (Some(line), Some(col)) = (f.line, f.column) {
                    loc["region"] = json!({ "startLine": line, "startColumn": col });
                }
                let mut location = json!({ "physicalLocation": loc });
                if let Some(p) = &f.pointer {
                    location["logicalLocations"] =
                        json!([{ "fullyQualifiedName": p, "kind": "member" }]);
                }
                r["locations"] = json!([location]);
            }
            r
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "aifab",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn text_names_the_place() {
        let src = Source::new("pod.yaml", "a: 1\nb: true\n");
        let f = Finding::new(Rule::SchemaWrongType, "`b` must be an integer")
            .hint("write a number")
            .with_span(&src, Span { offset: 8, len: 4 });
        let text = to_text(std::slice::from_ref(&f), &src, false);
        assert!(
            text.contains("pod.yaml:2:4: `b` must be an integer"),
            "{text}"
        );
        assert!(text.contains("AIF-SCHEMA-003"));
        assert!(text.contains("write a number"));
        let sarif: Value = serde_json::from_str(&to_sarif(&[f])).unwrap();
        assert_eq!(sarif["version"], "2.1.0");
        let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (region["startLine"].as_u64(), region["startColumn"].as_u64()),
            (Some(2), Some(4))
        );
    }
}
