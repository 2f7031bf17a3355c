//! The Markdown intent reference (`docs/intent-reference.md`), generated from the JSON Schema.

use super::schema_nav::{self, resolve};
use serde_json::Value;
use std::fmt::Write as _;

/// The example intent: where a field has no `examples` in the schema, its value here is shown.
const EXAMPLE_INTENT: &str = include_str!("../../intents/pod1-1024.yaml");

/// The intent reference in Markdown, generated from [`super::schema`]: every field by path
/// (`fabric.topology.leaf.platform`), its type, whether it is required or its default, its description (the
/// doc comments of the intent types) and an example; then the value types (sizes, durations, ...).
/// Ends with a newline.
pub fn markdown_reference() -> String {
    let root = super::schema();
    let example = crate::load::load(&crate::diag::Source::new("example", EXAMPLE_INTENT))
        .map(|d| d.value)
        .unwrap_or(Value::Null);
    let mut out = String::new();
    out.push_str("# Intent reference\n\n");
    out.push_str(
        "<!-- Generated from the intent types by `aifab schema --format markdown`; do not edit by hand.\n     \
         Regenerate: cargo run -q -- schema --format markdown > docs/intent-reference.md -->\n\n",
    );
    if let Some(d) = root.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "{}\n", paragraph(d));
    }
    out.push_str(
        "An intent is one YAML file (YAML 1.2: only `true`/`false` are booleans, a quoted value is always a \
         string). The JSON Schema is `schema/intent.schema.json` (`aifab schema`); `aifab validate` checks a \
         file against it and reports every problem with its line and column.\n\n\
         Fields are listed by path. `<name>` stands for a key you choose (a traffic class name) and `[]` for \
         each item of a list. Value types such as [Size](#size) are described at the end.\n\n",
    );
    out.push_str("## Fields\n\n");
    let mut w = Walker {
        root: &root,
        example: &example,
        out: &mut out,
    };
    w.object(&root, "", "", 0);
    out.push_str("## Value types\n\n");
    if let Some(defs) = root.get("$defs").and_then(Value::as_object) {
        for (name, def) in defs {
            if is_record(&root, def) || is_enum(&root, def) {
                continue;
            }
            let _ = writeln!(out, "### {name}\n");
            if let Some(d) = def.get("description").and_then(Value::as_str) {
                let _ = writeln!(out, "{}\n", paragraph(d));
            }
            let _ = writeln!(out, "- **Accepts:** {}", accepted_forms(&root, def));
            if let Some(ex) = def.get("examples").and_then(Value::as_array) {
                let items: Vec<String> =
                    ex.iter().map(|e| format!("`{}`", inline_yaml(e))).collect();
                let _ = writeln!(out, "- **Examples:** {}", items.join(", "));
            }
            out.push('\n');
        }
    }
    out.push_str("## Problems `aifab validate` reports\n\n");
    out.push_str(
        "Loading and schema checks report these rule ids (the semantic checks that follow have their own, \
         in `docs/checks.md`). Each finding carries the file, line and column, and most a hint.\n\n",
    );
    out.push_str("| Rule | Meaning |\n|---|---|\n");
    use crate::rules::{Rule, Stage};
    for rule in Rule::ALL
        .iter()
        .filter(|r| matches!(r.stage(), Stage::Load | Stage::Schema))
    {
        let what = rule.summary().replace('|', "\\|");
        let _ = writeln!(out, "| `{}` | {what} |", rule.id());
    }
    out.push('\n');
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

struct Walker<'a> {
    root: &'a Value,
    example: &'a Value,
    out: &'a mut String,
}

impl Walker<'_> {
    /// Lists the fields of the object schema `s` found at `path` (example value at `pointer`).
    fn object(&mut self, s: &Value, path: &str, pointer: &str, depth: usize) {
        if depth > 12 {
            return;
        }
        let r = resolve(self.root, s);
        let required: Vec<&str> = r
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = r.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, ps) in props {
            let field_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            let field_pointer = crate::load::child_pointer(pointer, name);
            self.field(
                name,
                ps,
                &field_path,
                &field_pointer,
                required.contains(&name.as_str()),
            );
            self.children(ps, &field_path, &field_pointer, depth);
        }
    }

    /// Recurses into a field's nested fields: a record, a map of records, or a list of records.
    fn children(&mut self, ps: &Value, path: &str, pointer: &str, depth: usize) {
        let Some(target) = non_null(self.root, ps) else {
            return;
        };
        if is_record(self.root, target) {
            self.object(target, path, pointer, depth + 1);
            return;
        }
        let t = resolve(self.root, target);
        if let Some(ap) = t.get("additionalProperties").filter(|a| a.is_object()) {
            if is_record(self.root, ap) {
                let first_key = self
                    .example
                    .pointer(pointer)
                    .and_then(Value::as_object)
                    .and_then(|m| m.keys().next().cloned())
                    .unwrap_or_default();
                let p = crate::load::child_pointer(pointer, &first_key);
                self.object(ap, &format!("{path}.<name>"), &p, depth + 1);
            }
        } else if let Some(items) = t.get("items").filter(|i| i.is_object())
            && is_record(self.root, items)
        {
            self.object(
                items,
                &format!("{path}[]"),
                &format!("{pointer}/0"),
                depth + 1,
            );
        }
    }

    fn field(&mut self, name: &str, ps: &Value, path: &str, pointer: &str, required: bool) {
        let root = self.root;
        let _ = writeln!(self.out, "### `{path}`\n");
        let _ = writeln!(self.out, "- **Type:** {}", md_type(root, ps));
        let req = if required {
            "yes".to_string()
        } else {
            match ps.get("default") {
                Some(d) => format!("no, default `{}`", inline_yaml(d)),
                None => "no".to_string(),
            }
        };
        let _ = writeln!(self.out, "- **Required:** {req}");
        // The field's own example, else the example intent's value, else the value type's example.
        let own = ps
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|a| a.first());
        let example = own
            .or_else(|| self.example.pointer(pointer))
            .or_else(|| schema_nav::example(root, ps))
            .filter(|v| !v.is_object())
            .cloned();
        if let Some(ex) = example {
            let _ = writeln!(self.out, "- **Example:** `{name}: {}`", inline_yaml(&ex));
        }
        self.out.push('\n');
        if let Some(d) = ps.get("description").and_then(Value::as_str) {
            let _ = writeln!(self.out, "{}\n", paragraph(d));
        }
        // Enumerations: each choice with its meaning.
        if let Some(target) = non_null(root, ps)
            && is_enum(root, target)
        {
            let r = resolve(root, target);
            for alt in r
                .get("oneOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(c) = alt.get("const") {
                    let d = alt
                        .get("description")
                        .and_then(Value::as_str)
                        .map(|d| format!(": {}", paragraph(d)))
                        .unwrap_or_default();
                    let _ = writeln!(self.out, "- `{}`{d}", inline_yaml(c));
                }
            }
            self.out.push('\n');
        }
    }
}

/// The non-null alternative of an optional field (`anyOf: [X, null]`), or the field itself.
fn non_null<'a>(root: &'a Value, s: &'a Value) -> Option<&'a Value> {
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array) {
        let real: Vec<&Value> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        return match real.as_slice() {
            [one] => Some(one),
            _ => None,
        };
    }
    let _ = root;
    Some(s)
}

/// An object with named fields.
fn is_record(root: &Value, s: &Value) -> bool {
    resolve(root, s).get("properties").is_some()
}

/// A oneOf of constants (a Rust enum).
fn is_enum(root: &Value, s: &Value) -> bool {
    resolve(root, s)
        .get("oneOf")
        .and_then(Value::as_array)
        .is_some_and(|alts| !alts.is_empty() && alts.iter().all(|a| a.get("const").is_some()))
}

/// A type label for the reference, with links to value types.
fn md_type(root: &Value, s: &Value) -> String {
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array) {
        let labels: Vec<String> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .map(|a| md_type(root, a))
            .collect();
        return labels.join(" or ");
    }
    if let Some(name) = schema_nav::def_name(s) {
        let def = resolve(root, s);
        if is_record(root, def) {
            return "mapping (fields below)".into();
        }
        if is_enum(root, def) {
            return enum_label(def);
        }
        return format!("[{name}](#{})", name.to_ascii_lowercase());
    }
    if is_enum(root, s) {
        return enum_label(s);
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    let labels: Vec<String> = types.into_iter().map(|t| type_label(root, s, t)).collect();
    if labels.is_empty() {
        "any".into()
    } else {
        labels.join(" or ")
    }
}

/// The label of one JSON type `t` that the schema `s` accepts.
fn type_label(root: &Value, s: &Value, t: &str) -> String {
    match t {
        "integer" => {
            let min = s.get("minimum").and_then(Value::as_i64);
            let max = s.get("maximum").and_then(Value::as_i64);
            match (min, max) {
                (Some(a), Some(b)) if a == b => format!("integer, only {a}"),
                (Some(a), Some(b)) => format!("integer {a}–{b}"),
                (Some(a), None) => format!("integer ≥ {a}"),
                (None, Some(b)) => format!("integer ≤ {b}"),
                (None, None) => "integer".into(),
            }
        }
        "boolean" => "boolean (`true` or `false`)".into(),
        "string" => {
            if s.get("format").and_then(Value::as_str) == Some("ip") {
                "IP address (string)".into()
            } else if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                format!("string matching `{p}`")
            } else {
                "string".into()
            }
        }
        "array" => match s.get("items") {
            Some(items) => format!("list of {}", md_type(root, items)),
            None => "list".into(),
        },
        "object" => map_label(root, s),
        other => other.to_string(),
    }
}

/// The label of an object schema: a mapping of chosen names to values, or a plain mapping.
fn map_label(root: &Value, s: &Value) -> String {
    let Some(ap) = s.get("additionalProperties").filter(|a| a.is_object()) else {
        return "mapping".into();
    };
    let names = s
        .get("propertyNames")
        .and_then(|p| p.get("pattern"))
        .and_then(Value::as_str)
        .map(|p| format!(" (names match `{p}`)"))
        .unwrap_or_default();
    let inner = if is_record(root, ap) {
        "mapping (fields below)".to_string()
    } else {
        md_type(root, ap)
    };
    format!("mapping of `<name>`{names} to {inner}")
}

fn enum_label(def: &Value) -> String {
    let items: Vec<String> = def
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("const"))
        .map(|c| format!("`{}`", inline_yaml(c)))
        .collect();
    format!("one of {}", items.join(", "))
}

/// The accepted forms of a value type: its type(s), ranges and patterns.
fn accepted_forms(root: &Value, def: &Value) -> String {
    if let Some(alts) = def.get("oneOf").and_then(Value::as_array) {
        let forms: Vec<String> = alts.iter().map(|a| md_type(root, a)).collect();
        return forms.join("; or ");
    }
    md_type(root, def)
}

/// Doc-comment text on one paragraph (line breaks of the source wrapping become spaces).
fn paragraph(d: &str) -> String {
    d.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A value written as inline (flow) YAML, quoting strings that would not read back as themselves.
fn inline_yaml(v: &Value) -> String {
    match v {
        Value::String(s) => {
            if crate::load::plain_is_string(s) {
                s.clone()
            } else {
                serde_json::to_string(s).unwrap_or_default()
            }
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(inline_yaml).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}: {}", inline_yaml(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}
