//! How `aifab verify` prints a [`Report`]: text (one line per failing check, then a summary per check
//! kind), JSON, Markdown for a pull request or ticket (within a size budget, as `aifab diff`), and JUnit
//! XML with one test case per switch and check, so a CI system shows each switch.

use super::{Check, Finding, Report};
use std::fmt::Write as _;

/// One finding on one line: `check kind switch port: expected ..., found ...`.
pub fn line(f: &Finding) -> String {
    let port = f
        .port
        .as_deref()
        .map(|p| format!(" {p}"))
        .unwrap_or_default();
    let mut s = format!(
        "{:<9} {:<18} {}{port}: expected {}, found {}",
        f.check.as_str(),
        f.kind.as_str(),
        f.switch,
        f.expected,
        f.found
    );
    for e in &f.explains {
        let _ = write!(s, "\n{:<29}  which explains {e}", "");
    }
    s
}

/// Per check: switches read, findings.
fn summary(r: &Report) -> Vec<(Check, usize, usize)> {
    r.read
        .iter()
        .map(|&(c, n)| (c, n, r.findings.iter().filter(|f| f.check == c).count()))
        .collect()
}

/// The text report.
pub fn text(r: &Report) -> String {
    let mut out = String::new();
    for f in &r.findings {
        let _ = writeln!(out, "{}", line(f));
    }
    if !r.findings.is_empty() {
        out.push('\n');
    }
    for (c, n, k) in summary(r) {
        let verdict = if k == 0 {
            "holds".to_string()
        } else {
            format!("{k} finding(s)")
        };
        let _ = writeln!(
            out,
            "{:<9} {n} of {} switch(es) read: {verdict}",
            c.as_str(),
            r.switches
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let verdict = if r.holds() {
        "the fabric runs as intended".to_string()
    } else {
        format!("{} finding(s)", r.findings.len())
    };
    let _ = writeln!(out, "{}: {verdict}", r.fabric);
    out
}

/// The JSON report.
pub fn json(r: &Report) -> String {
    serde_json::to_string_pretty(r).unwrap_or_default() + "\n"
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report, at most `max_chars` long: findings that do not fit are left out whole and
/// counted.
pub fn markdown(r: &Report, max_chars: usize) -> String {
    let mut head = format!("## aifab verify: {}\n\n", md_cell(&r.fabric));
    head.push_str("| check | switches read | findings |\n|---|---|---|\n");
    for (c, n, k) in summary(r) {
        let _ = writeln!(head, "| {} | {n} of {} | {k} |", c.as_str(), r.switches);
    }
    for n in &r.notes {
        let _ = writeln!(head, "\n> {}", md_cell(n));
    }
    if r.holds() {
        head.push_str("\nEvery check holds: the fabric runs as intended.\n");
        return head;
    }
    head.push_str(
        "\n| check | kind | switch | port | expected | found |\n|---|---|---|---|---|---|\n",
    );
    let mut body = String::new();
    let mut left = 0;
    for f in &r.findings {
        let mut found = md_cell(&f.found);
        for e in &f.explains {
            let _ = write!(found, "<br>explains {}", md_cell(e));
        }
        let row = format!(
            "| {} | {} | {} | {} | {} | {found} |\n",
            f.check.as_str(),
            f.kind.as_str(),
            md_cell(&f.switch),
            md_cell(f.port.as_deref().unwrap_or("")),
            md_cell(&f.expected)
        );
        if head.len() + body.len() + row.len() + 120 > max_chars {
            left += 1;
            continue;
        }
        body.push_str(&row);
    }
    let mut out = head + &body;
    if left > 0 {
        let _ = writeln!(
            out,
            "\n{left} more finding(s) left out to stay within {max_chars} characters: run `aifab verify` for all."
        );
    }
    out
}

fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c if c.is_control() && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: a test suite per check, a test case per switch (`hosts` in model order, those verified);
/// a switch's findings of that check are its failure.
pub fn junit(r: &Report, hosts: &[&str]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"aifab verify {}\" tests=\"{}\" failures=\"{}\">",
        xml(&r.fabric),
        hosts.len() * r.checks.len(),
        r.findings.len()
    );
    for &c in &r.checks {
        let of = |h: &str| -> Vec<&Finding> {
            r.findings
                .iter()
                .filter(|f| f.check == c && f.switch == h)
                .collect()
        };
        let failing = hosts.iter().filter(|h| !of(h).is_empty()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failing}\">",
            c.as_str(),
            hosts.len()
        );
        for h in hosts {
            let fs = of(h);
            if fs.is_empty() {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"{}\" name=\"{}\"/>",
                    c.as_str(),
                    xml(h)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\">",
                c.as_str(),
                xml(h)
            );
            let text: Vec<String> = fs.iter().map(|f| line(f)).collect();
            let _ = writeln!(
                out,
                "      <failure message=\"{} finding(s)\">{}</failure>",
                fs.len(),
                xml(&text.join("\n"))
            );
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
