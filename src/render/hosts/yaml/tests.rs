//! The writer's style, spelt out, and any value read back by serde_norway as it was written.

use super::{Error, comment, is_plain, push};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

fn text<T: Serialize + ?Sized>(v: &T) -> String {
    let mut o = String::new();
    push(&mut o, v).expect("writes");
    o
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Scope {
    Link,
    #[serde(rename = "on")]
    On,
    #[serde(rename = "two words")]
    TwoWords,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Route {
    to: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    scope: Option<Scope>,
    on_link: bool,
    table: u32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Port {
    addresses: Vec<String>,
    routes: Vec<Route>,
    empty: Vec<u8>,
    none: BTreeMap<String, u8>,
    nothing: Option<u8>,
    ratio: f64,
}

#[test]
fn block_style_quoted_strings_and_plain_identifiers() {
    let port = Port {
        addresses: vec!["10.0.0.1/31".into()],
        routes: vec![
            Route {
                to: "10.0.0.0/31".into(),
                scope: Some(Scope::Link),
                on_link: false,
                table: 100,
            },
            Route {
                to: "a\"b\\c\nd\u{7f}é\u{1F600}".into(),
                scope: None,
                on_link: true,
                table: 7,
            },
        ],
        empty: Vec::new(),
        none: BTreeMap::new(),
        nothing: None,
        ratio: 1.0,
    };
    let mut ports = BTreeMap::new();
    ports.insert("eth0", port);
    let expected = "\"eth0\":
  addresses:
    - \"10.0.0.1/31\"
  routes:
    - to: \"10.0.0.0/31\"
      scope: link
      on-link: false
      table: 100
    - to: \"a\\\"b\\\\c\\nd\\x7F\\xE9\\U0001F600\"
      on-link: true
      table: 7
  empty: []
  none: {}
  nothing: null
  ratio: 1.0
";
    let written = text(&ports);
    assert_eq!(written, expected);
    assert!(written.is_ascii());
    let back: BTreeMap<String, Port> = serde_norway::from_str(&written).expect("reads back");
    assert_eq!(back.get("eth0"), ports.get("eth0"));
}

#[test]
fn identifiers_yaml_would_read_otherwise_are_quoted() {
    assert_eq!(text(&Scope::Link), "link\n");
    assert_eq!(text(&Scope::On), "\"on\"\n");
    assert_eq!(text(&Scope::TwoWords), "\"two words\"\n");
    for s in [Scope::Link, Scope::On, Scope::TwoWords] {
        let back: Scope = serde_norway::from_str(&text(&s)).expect("reads back");
        assert_eq!(back, s);
    }
    for word in [
        "", "true", "NULL", "Yes", "off", "1abc", "a:b", "a b", "-a", "a#b",
    ] {
        assert!(!is_plain(word), "{word}");
    }
    for word in [
        "link",
        "on-link",
        "SpiderIPPool",
        "spiderpool.spidernet.io/v2beta1",
        "a_b",
    ] {
        assert!(is_plain(word), "{word}");
    }
}

#[test]
fn nested_sequences_and_empty_collections_in_items() {
    let v = serde_json::json!([[1, [2, 3]], {}, [], {"a": []}, "x"]);
    let written = text(&v);
    assert_eq!(
        written,
        "- - 1\n  - - 2\n    - 3\n- {}\n- []\n- \"a\": []\n- \"x\"\n"
    );
    assert_eq!(serde_norway::from_str::<Value>(&written).expect("reads"), v);
    assert_eq!(text(&serde_json::json!({})), "{}\n");
    assert_eq!(text(&5u8), "5\n");
}

#[test]
fn floats_read_back_exactly() {
    for f in [
        0.0,
        -1.5,
        1e300,
        1e-7,
        123456.789,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let back: f64 = serde_norway::from_str(&text(&f)).expect("reads");
        assert_eq!(back, f, "{}", text(&f));
    }
    let nan: f64 = serde_norway::from_str(&text(&f64::NAN)).expect("reads");
    assert!(nan.is_nan());
}

#[test]
fn what_cannot_be_written_is_refused() {
    #[derive(Serialize)]
    enum E {
        T(u8, u8),
        S { a: u8 },
    }
    assert_eq!(
        push(&mut String::new(), &E::T(1, 2)),
        Err(Error::Unsupported("a tuple enum variant"))
    );
    assert_eq!(
        push(&mut String::new(), &E::S { a: 1 }),
        Err(Error::Unsupported("a struct enum variant"))
    );
    let mut complex_key = BTreeMap::new();
    complex_key.insert(vec![1u8], 1u8);
    assert_eq!(
        push(&mut String::new(), &complex_key),
        Err(Error::KeyNotScalar)
    );
}

#[test]
fn a_comment_is_one_line() {
    let mut o = String::new();
    comment(&mut o, "eth0: rail 1 to leaf1").expect("one line");
    assert_eq!(o, "# eth0: rail 1 to leaf1\n");
    for bad in ["a\nnetwork: {}", "a\rb", "tab\there", "caf\u{e9}"] {
        assert!(
            matches!(comment(&mut o, bad), Err(Error::Comment(_))),
            "{bad:?}"
        );
    }
}

/// Any JSON-like value: null, booleans, integers, any string (control characters, quotes, non-ASCII),
/// and nested lists and maps with any string keys.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_value_reads_back_as_written(v in value()) {
        let written = text(&v);
        prop_assert!(written.is_ascii(), "{written}");
        let back: Value = serde_norway::from_str(&written)
            .map_err(|e| TestCaseError::fail(format!("{e}: {written}")))?;
        prop_assert_eq!(back, v, "{}", written);
    }
}
