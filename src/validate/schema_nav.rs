//! Reading the generated JSON Schema: the subschema at an instance location, allowed keys, and
//! plain-English descriptions of what a field accepts.

use serde_json::Value;

/// Follows `$ref`s (local `#/...` only) until a schema without one.
pub(crate) fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..32 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(t) => s = t,
                None => return s,
            },
            None => return s,
        }
    }
    s
}

/// The name of the `$defs` entry a schema refers to, if any (`#/$defs/Size` → `Size`).
pub(crate) fn def_name(s: &Value) -> Option<&str> {
    s.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
}

/// The alternatives of `anyOf`/`oneOf`, or none.
fn alternatives(s: &Value) -> &[Value] {
    s.get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// True for a schema that only accepts `null` (the "leave it out" branch of an optional field).
fn is_null_only(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("null")
}

fn step<'a>(root: &'a Value, s: &'a Value, segment: &str) -> Option<&'a Value> {
    let r = resolve(root, s);
    if let Some(p) = r.get("properties").and_then(|p| p.get(segment)) {
        return Some(p);
    }
    if segment.parse::<usize>().is_ok()
        && let Some(items) = r.get("items").filter(|i| i.is_object())
    {
        return Some(items);
    }
    if let Some(ap) = r.get("additionalProperties").filter(|a| a.is_object()) {
        return Some(ap);
    }
    alternatives(r)
        .iter()
        .filter(|a| !is_null_only(a))
        .find_map(|a| step(root, a, segment))
}

/// The schema of the node at `pointer` (RFC 6901), unresolved so that its own `description`, `default` and
/// `examples` are kept. `None` when the schema does not describe that location.
pub(crate) fn at<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut cur = root;
    if pointer.is_empty() {
        return Some(cur);
    }
    for seg in pointer.split('/').skip(1) {
        cur = step(root, cur, &crate::load::unescape_segment(seg))?;
    }
    Some(cur)
}

/// The property names a mapping at `pointer` accepts, in schema order.
pub(crate) fn allowed_keys(root: &Value, pointer: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = at(root, pointer) {
        collect_keys(root, s, &mut out, 0);
    }
    out
}

fn collect_keys(root: &Value, s: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    let r = resolve(root, s);
    if let Some(p) = r.get("properties").and_then(Value::as_object) {
        for k in p.keys() {
            if !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    for a in alternatives(r) {
        collect_keys(root, a, out, depth + 1);
    }
}

/// The accepted constant values (enum variants) of a schema, if it is an enumeration.
pub(crate) fn constants(root: &Value, s: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    collect_constants(root, s, &mut out, 0);
    out
}

fn collect_constants(root: &Value, s: &Value, out: &mut Vec<Value>, depth: usize) {
    if depth > 8 {
        return;
    }
    let r = resolve(root, s);
    if let Some(c) = r.get("const") {
        out.push(c.clone());
    }
    if let Some(e) = r.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().cloned());
    }
    for a in alternatives(r) {
        if !is_null_only(a) {
            collect_constants(root, a, out, depth + 1);
        }
    }
}

/// A noun for the value types defined in `units.rs` and elsewhere, by `$defs` name.
pub(crate) fn def_noun(name: &str) -> Option<&'static str> {
    Some(match name {
        "Size" => "a size",
        "Duration" => "a duration",
        "Speed" => "a speed",
        "Length" => "a cable length",
        "Percent" => "a percentage",
        "Ratio" => "a ratio",
        "AsnRange" => "an AS number or range",
        "Prefix" => "an IP prefix",
        "Mac" => "a MAC address",
        _ => return None,
    })
}

/// A literal for messages: strings in backticks without JSON quotes.
pub(crate) fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn examples_phrase(s: &Value) -> Option<String> {
    let ex = s.get("examples").and_then(Value::as_array)?;
    let items: Vec<String> = ex.iter().take(3).map(literal).collect();
    (!items.is_empty()).then(|| or_list(&items))
}

/// What a schema accepts, in plain English: "an integer 0-63", "one of `drop`, `alert`",
/// "a size such as `150KB`, `1.5MB` or `153600`".
pub(crate) fn describe(root: &Value, s: &Value) -> String {
    let mut phrases = Vec::new();
    describe_into(root, s, &mut phrases, 0);
    let consts = constants(root, s);
    if !consts.is_empty() && phrases.iter().all(|p| p.starts_with('`')) {
        let items: Vec<String> = consts.iter().map(literal).collect();
        return if items.len() == 1 {
            items[0].clone()
        } else {
            format!("one of {}", items.join(", "))
        };
    }
    phrases.dedup();
    if phrases.is_empty() {
        "a valid value".into()
    } else {
        or_list(&phrases)
    }
}

fn describe_into(root: &Value, s: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let Some(noun) = def_name(s).and_then(def_noun) {
        let def = resolve(root, s);
        out.push(match examples_phrase(def) {
            Some(ex) => format!("{noun} such as {ex}"),
            None => noun.to_string(),
        });
        return;
    }
    let r = resolve(root, s);
    if let Some(c) = r.get("const") {
        out.push(literal(c));
        return;
    }
    if let Some(e) = r.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().map(literal));
        return;
    }
    let alts = alternatives(r);
    if !alts.is_empty() {
        for a in alts {
            if !is_null_only(a) {
                describe_into(root, a, out, depth + 1);
            }
        }
        return;
    }
    let types: Vec<&str> = match r.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for t in types {
        let phrase = match t {
            "null" => continue,
            "integer" => integer_phrase(r),
            "number" => "a number".into(),
            "boolean" => "`true` or `false`".into(),
            "object" => "a mapping".into(),
            "array" => match r.get("items") {
                Some(items) => format!("a list of {}", plural(&describe(root, items))),
                None => "a list".into(),
            },
            "string" => {
                if r.get("format").and_then(Value::as_str) == Some("ip") {
                    "an IP address".into()
                } else if let Some(ex) = examples_phrase(r) {
                    format!("a string such as {ex}")
                } else if let Some(p) = r.get("pattern").and_then(Value::as_str) {
                    format!("a string matching `{p}`")
                } else {
                    "a string".into()
                }
            }
            other => format!("a {other}"),
        };
        out.push(phrase);
    }
}

/// "integers 0-63" from "an integer 0-63", for list items.
fn plural(phrase: &str) -> String {
    if let Some(rest) = phrase.strip_prefix("an integer") {
        format!("integers{rest}")
    } else {
        phrase.to_string()
    }
}

fn integer_phrase(r: &Value) -> String {
    let min = r.get("minimum").and_then(Value::as_i64);
    let max = r.get("maximum").and_then(Value::as_i64);
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!("the integer {a}"),
        (Some(a), Some(b)) => format!("an integer {a}-{b}"),
        (Some(a), None) => format!("an integer of at least {a}"),
        (None, Some(b)) => format!("an integer of at most {b}"),
        (None, None) => "an integer".into(),
    }
}

/// The first sentence of a description, on one line.
pub(crate) fn first_sentence(description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.find(". ") {
        Some(i) => one_line[..=i].to_string(),
        None => one_line,
    }
}

/// The `description` of a schema, or of what it refers to.
pub(crate) fn description<'a>(root: &'a Value, s: &'a Value) -> Option<&'a str> {
    s.get("description")
        .and_then(Value::as_str)
        .or_else(|| resolve(root, s).get("description").and_then(Value::as_str))
}

/// The first example of a schema, or of what it refers to.
pub(crate) fn example<'a>(root: &'a Value, s: &'a Value) -> Option<&'a Value> {
    let first = |x: &'a Value| {
        x.get("examples")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
    };
    first(s).or_else(|| first(resolve(root, s))).or_else(|| {
        alternatives(resolve(root, s))
            .iter()
            .filter(|a| !is_null_only(a))
            .find_map(|a| first(resolve(root, a)))
    })
}
