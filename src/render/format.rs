//! How a template prints a value: strings and non-negative integers, nearly every value the templates
//! print, are written straight into the output; anything else, and everything inside a block that
//! turns auto-escaping on, goes to minijinja's own formatter. The bytes are the same as the default
//! formatter's (a test checks it); what changes is that a string no longer passes through
//! `core::fmt` (about 8% of the instructions of a 24K-GPU render went there).

use minijinja::value::{Value, ValueKind};
use minijinja::{AutoEscape, Error, Output, State};

/// The formatter of every template environment ([`minijinja::Environment::set_formatter`]).
pub(super) fn format(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    if matches!(state.auto_escape(), AutoEscape::None) {
        if value.kind() == ValueKind::String
            && let Some(s) = value.as_str()
        {
            return out.write_str(s).map_err(Error::from);
        }
        if value.is_integer()
            && let Some(n) = value.as_usize()
        {
            let mut buf = [0u8; 20];
            let digits = crate::spell::decimal(n as u64, &mut buf);
            // Only ASCII digits.
            let text = std::str::from_utf8(digits).unwrap_or_default();
            return out.write_str(text).map_err(Error::from);
        }
    }
    minijinja::escape_formatter(out, state, value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::Environment;

    /// Every kind of value, printed plainly and inside an auto-escaping block, gives the bytes the
    /// default formatter gives.
    #[test]
    fn prints_what_the_default_formatter_prints() {
        let template = "{% for v in values %}[{{ v }}]{% endfor %}\
             {% autoescape 'html' %}{% for v in values %}<{{ v }}>{% endfor %}{% endautoescape %}";
        let values = vec![
            Value::from("Ethernet1/1"),
            Value::from(""),
            Value::from("a<b & \"c\""),
            Value::from_safe_string("<safe>".into()),
            Value::from(0u32),
            Value::from(9214u32),
            Value::from(u64::MAX),
            Value::from(-5i64),
            Value::from(1.0f64),
            Value::from(2.5f64),
            Value::from(true),
            Value::from(()),
            Value::from(vec![1, 2]),
            Value::from_iter([("k", "v")]),
            Value::from(i128::MAX),
            Value::from(b"bytes".to_vec()),
        ];
        let render = |custom: bool| {
            let mut env = Environment::new();
            env.set_auto_escape_callback(|_| AutoEscape::None);
            if custom {
                env.set_formatter(format);
            }
            env.render_str(template, minijinja::context! { values => values.clone() })
                .expect("renders")
        };
        let (mine, theirs) = (render(true), render(false));
        assert!(
            mine.contains("[Ethernet1/1][][a<b & \"c\"][<safe>][0][9214]"),
            "{mine}"
        );
        assert_eq!(mine, theirs);
    }
}
