//! The leaf fields of an intent, enumerated from its JSON Schema (`schema/intent.schema.json`, which
//! `tests/it/schema_fresh.rs` keeps equal to the one generated from the Rust types), and valid other
//! values for each: integers within their minimum and maximum, an enum's other variants, booleans
//! flipped, sizes, percentages, durations and addresses with their last number moved, and for a field
//! an example lacks, a value made from the schema (its examples, its bounds) with the required
//! fields of every object that must be added on the way.

use serde_json::{Map, Value};

/// One step from an object or array to what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A named property.
    Key(String),
    /// Any entry of a map (`qos.classes.<name>`).
    Any,
    /// Any item of a list.
    Item,
}

/// One leaf field: its steps from the intent's root, each with the schema of what it reaches.
#[derive(Clone, Debug)]
pub struct Field {
    /// The steps and, for each, the (resolved) schema of the value it reaches; the last is the leaf's.
    pub steps: Vec<(Step, Value)>,
}

impl Field {
    /// `/qos/classes/*/ecn/min`, `/baseline/ntp/[]/address`.
    pub fn path(&self) -> String {
        let mut s = String::new();
        for (step, _) in &self.steps {
            s.push('/');
            match step {
                Step::Key(k) => s.push_str(k),
                Step::Any => s.push('*'),
                Step::Item => s.push_str("[]"),
            }
        }
        s
    }

    /// The leaf's schema.
    pub fn leaf(&self) -> &Value {
        self.steps.last().map_or(&Value::Null, |(_, s)| s)
    }
}

/// Follows `$ref`s and drops a `null` alternative (`anyOf: [X, null]` is X).
fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        if let Some(d) = root.get("$defs").and_then(|d| d.get(name)) {
            return resolve(root, d);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            let real: Vec<&Value> = alts
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if real.len() == 1 && alts.len() == 2 {
                return resolve(root, real[0]);
            }
        }
    }
    s
}

/// The JSON types `s` allows, `null` left out.
fn types(s: &Value) -> Vec<&str> {
    match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `s` is a scalar: a type other than object and array, an enum, or alternatives of those.
fn is_leaf(s: &Value) -> bool {
    if s.get("enum").is_some() || s.get("const").is_some() {
        return true;
    }
    if let Some(alts) = s.get("oneOf").or(s.get("anyOf")).and_then(Value::as_array) {
        return alts.iter().all(is_leaf);
    }
    let t = types(s);
    !t.is_empty() && t.iter().all(|t| *t != "object" && *t != "array")
}

/// Every leaf field of the intent schema `root`.
pub fn fields(root: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    walk(root, root, &mut Vec::new(), &mut out);
    out
}

fn walk(root: &Value, s: &Value, at: &mut Vec<(Step, Value)>, out: &mut Vec<Field>) {
    let s = resolve(root, s);
    if at.len() > 12 {
        return;
    }
    if is_leaf(s) {
        out.push(Field { steps: at.clone() });
        return;
    }
    let mut go = |step: Step, next: &Value| {
        let next = resolve(root, next).clone();
        at.push((step, next.clone()));
        walk(root, &next, at, out);
        at.pop();
    };
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            go(Step::Key(k.clone()), v);
        }
    }
    if let Some(extra) = s.get("additionalProperties").filter(|v| v.is_object()) {
        go(Step::Any, extra);
    }
    if let Some(items) = s.get("items").filter(|v| v.is_object()) {
        go(Step::Item, items);
    }
}

/// The values an enum allows (`enum`, or alternatives each with a `const` or an `enum`).
fn variants(s: &Value) -> Vec<Value> {
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e.iter().filter(|v| !v.is_null()).cloned().collect();
    }
    if let Some(c) = s.get("const") {
        return vec![c.clone()];
    }
    s.get("oneOf")
        .or(s.get("anyOf"))
        .and_then(Value::as_array)
        .map(|alts| alts.iter().flat_map(variants).collect())
        .unwrap_or_default()
}

/// `s`'s last number moved by `by` (`300ms` → `301ms`, `192.0.2.21` → `192.0.2.22`), if it has one.
fn bump(s: &str, by: i64) -> Option<String> {
    let end = s.rfind(|c: char| c.is_ascii_digit())?;
    let start = s[..=end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let n: i64 = s[start..=end].parse().ok()?;
    let m = n.checked_add(by).filter(|m| *m >= 0)?;
    Some(format!("{}{m}{}", &s[..start], &s[end + 1..]))
}

/// Other valid values of leaf `s` than `current` (or, for a field the intent lacks, values other
/// than its default), most likely to compile first.
pub fn candidates(s: &Value, current: Option<&Value>) -> Vec<Value> {
    let default = s.get("default");
    let now = current.or(default);
    let mut out: Vec<Value> = Vec::new();
    let vs = variants(s);
    if !vs.is_empty() {
        out.extend(vs.into_iter().filter(|v| Some(v) != now));
        return out;
    }
    let int = |v: &Value| v.as_i64();
    let (min, max) = (
        s.get("minimum")
            .and_then(int)
            .or_else(|| alt_bound(s, "minimum")),
        s.get("maximum")
            .and_then(int)
            .or_else(|| alt_bound(s, "maximum")),
    );
    let fits = |n: i64| min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
    match now {
        Some(Value::Bool(b)) => out.push(Value::Bool(!b)),
        Some(Value::Number(n)) => {
            if let Some(n) = n.as_i64() {
                for m in [n + 1, n - 1, n * 2, n / 2] {
                    if m != n && fits(m) {
                        out.push(Value::from(m));
                    }
                }
            }
        }
        Some(Value::String(t)) => {
            out.extend(
                [1, -1, 10, 100]
                    .iter()
                    .filter_map(|by| bump(t, *by))
                    .map(Value::String),
            );
        }
        _ => {}
    }
    if current.is_some()
        && let Some(ex) = s.get("examples").and_then(Value::as_array)
    {
        out.extend(ex.iter().cloned());
    }
    // A name or a line of text: its first character another (`netops` → `xetops`; the length kept,
    // a reason may be at its maximum), or a line of its own.
    if types(s).contains(&"string") && s.get("format").is_none() {
        match now.and_then(Value::as_str) {
            Some(t) => {
                let first = if t.starts_with('x') { 'y' } else { 'x' };
                out.push(Value::from(format!(
                    "{first}{}",
                    t.chars().skip(1).collect::<String>()
                )));
            }
            None => out.push(Value::from("aifab-every-field")),
        }
    }
    if current.is_none() {
        if types(s).contains(&"boolean") && now.is_none() {
            out.push(Value::Bool(true));
        }
        if let Some(ex) = s.get("examples").and_then(Value::as_array) {
            out.extend(ex.iter().filter(|e| Some(*e) != now).cloned());
        }
        if s.get("format").and_then(Value::as_str) == Some("ip") {
            out.push(Value::from("192.0.2.77"));
        }
        if types(s).contains(&"integer") {
            for m in [min.map(|m| m + 1), min, max] {
                if let Some(m) = m.filter(|m| fits(*m) && Some(&Value::from(*m)) != now) {
                    out.push(Value::from(m));
                }
            }
        }
    }
    out.retain(|v| Some(v) != current);
    out.dedup();
    out
}

/// A bound of an integer alternative (`Percent`: an integer 0-100 or a string).
fn alt_bound(s: &Value, bound: &str) -> Option<i64> {
    s.get("oneOf")?
        .as_array()?
        .iter()
        .find_map(|a| a.get(bound).and_then(Value::as_i64))
}

/// A value of schema `s` made from its required fields (none when one of them has no candidate).
pub fn sample(root: &Value, s: &Value) -> Option<Value> {
    let s = resolve(root, s);
    if is_leaf(s) {
        return candidates(s, None).into_iter().next();
    }
    if types(s).contains(&"array") {
        return Some(Value::Array(Vec::new()));
    }
    let mut m = Map::new();
    let props = s.get("properties").and_then(Value::as_object);
    for r in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let k = r.as_str()?;
        m.insert(k.to_string(), sample(root, props?.get(k)?)?);
    }
    Some(Value::Object(m))
}

/// JSON pointer escape of one key.
fn esc(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

/// The pointers of every value `field` reaches in `v`.
pub fn instances(v: &Value, field: &Field) -> Vec<String> {
    let mut at = vec![(String::new(), v)];
    for (step, _) in &field.steps {
        let mut next = Vec::new();
        for (p, x) in at {
            match (step, x) {
                (Step::Key(k), Value::Object(m)) => {
                    if let Some(y) = m.get(k).filter(|y| !y.is_null()) {
                        next.push((format!("{p}/{}", esc(k)), y));
                    }
                }
                (Step::Any, Value::Object(m)) => {
                    next.extend(m.iter().map(|(k, y)| (format!("{p}/{}", esc(k)), y)));
                }
                (Step::Item, Value::Array(a)) => {
                    next.extend(a.iter().enumerate().map(|(i, y)| (format!("{p}/{i}"), y)));
                }
                _ => {}
            }
        }
        at = next;
    }
    at.into_iter().map(|(p, _)| p).collect()
}

/// `v` with `field` added where the intent lacks it, as `value`: the deepest existing object or list
/// on its way gets what is missing (objects with their required fields, a list one item); the pointer
/// of the added leaf. `None` when the way goes through a map entry the intent does not have.
pub fn add(root: &Value, v: &Value, field: &Field, value: &Value) -> Option<(Value, String)> {
    let mut out = v.clone();
    let mut cur = &mut out;
    let mut pointer = String::new();
    let last = field.steps.len().checked_sub(1)?;
    for (i, (step, s)) in field.steps.iter().enumerate() {
        let fill = if i == last {
            Some(value.clone())
        } else {
            sample(root, s)
        };
        cur = match step {
            Step::Key(k) => {
                let m = cur.as_object_mut()?;
                match m.get(k) {
                    // The leaf itself is there: nothing to add.
                    Some(x) if !x.is_null() && i == last => return None,
                    Some(x) if !x.is_null() => {}
                    _ => {
                        m.insert(k.clone(), fill?);
                    }
                }
                pointer.push_str(&format!("/{}", esc(k)));
                m.get_mut(k)?
            }
            Step::Any => {
                let m = cur.as_object_mut()?;
                let k = m.keys().next()?.clone();
                pointer.push_str(&format!("/{}", esc(&k)));
                m.get_mut(&k)?
            }
            Step::Item => {
                let a = cur.as_array_mut()?;
                if a.is_empty() {
                    a.push(fill?);
                } else if i == last {
                    return None;
                }
                pointer.push_str("/0");
                a.get_mut(0)?
            }
        };
    }
    Some((out, pointer))
}
