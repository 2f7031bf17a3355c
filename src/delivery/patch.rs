//! RFC 6902 JSON Patch between two JSON documents: what `config apply-patch` (SONiC's generic config
//! updater) needs to move a switch from the old config_db.json to the new one without a reload.

use serde_json::{Value, json};

/// Escapes one JSON-pointer segment (`~` → `~0`, `/` → `~1`): SONiC keys such as
/// `Ethernet0|10.1.0.0/31` contain `/`.
fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The operations that turn `old` into `new`: `remove` for keys that went away, `add` for new keys,
/// `replace` for changed leaves and arrays. Object keys are visited in sorted order, so the patch is
/// deterministic.
pub fn json_patch(old: &Value, new: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    walk("", old, new, &mut ops);
    ops
}

fn walk(path: &str, old: &Value, new: &Value, ops: &mut Vec<Value>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}/{}", seg(k));
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => walk(&p, x, y, ops),
                    (Some(_), None) => ops.push(json!({"op": "remove", "path": p})),
                    (None, Some(y)) => ops.push(json!({"op": "add", "path": p, "value": y})),
                    (None, None) => {}
                }
            }
        }
        (a, b) if a == b => {}
        (_, b) => ops.push(
            json!({"op": "replace", "path": if path.is_empty() { "" } else { path }, "value": b}),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_ops_and_escaping() {
        let a = json!({"INTERFACE": {"Ethernet0|10.1.0.0/31": {}}, "PORT": {"Ethernet0": {"mtu": "9100", "fec": "rs"}}});
        let b = json!({"INTERFACE": {"Ethernet0|10.1.0.2/31": {}}, "PORT": {"Ethernet0": {"mtu": "9214"}}});
        let ops = json_patch(&a, &b);
        assert_eq!(
            ops,
            vec![
                json!({"op": "remove", "path": "/INTERFACE/Ethernet0|10.1.0.0~131"}),
                json!({"op": "add", "path": "/INTERFACE/Ethernet0|10.1.0.2~131", "value": {}}),
                json!({"op": "remove", "path": "/PORT/Ethernet0/fec"}),
                json!({"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9214"}),
            ]
        );
        assert!(json_patch(&a, &a).is_empty());
    }
}
