//! A device's files cut into their config areas, for review: the per-feature goldens of
//! `golden/features/<os>/<area>.ref` (tests/it/golden.rs) show one area (QoS, PFC, BGP, ...) of a few
//! devices, so a template change shows in the few files of the area it touches.
//!
//! There is no second way to render: each area is a `{% block %}` of the very template that prints
//! the file, rendered with the context the file gets (minijinja's `render_block`), and a file the
//! per-OS layer builds as a JSON object (SONiC's `config_db.json`) is cut into its top-level tables.
//! A test holds that the areas put together are the file.

use super::RenderError;
use minijinja::{Template, Value};

/// One config area of one device's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Area {
    /// The file it belongs to, as the device's output names it (`spine1.cfg`, `leaf1/config_db.json`).
    pub file: String,
    /// The area: `qos` for the template block `qos_section`, the table name (`PFC_WD`) of a JSON
    /// file, or the template's name without `.j2` (`header`) for a template without blocks.
    pub name: String,
    /// What the area prints, tidied like the file (an area that prints nothing is left out).
    pub text: String,
}

/// The suffix of the device templates' per-area blocks (`qos_section`); the site's empty hooks
/// (`site_top`, `site_bottom`) are not areas.
const SECTION: &str = "_section";

/// The names of the `*_section` blocks `source` declares, in order (comments skipped).
fn block_names(source: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        if let Some(comment) = rest.strip_prefix('#') {
            rest = comment.split_once("#}").map_or("", |(_, after)| after);
            continue;
        }
        let Some(tag) = rest.strip_prefix('%') else {
            continue;
        };
        let tag = tag.trim_start_matches(['-', '+']).trim_start();
        let Some(after) = tag.strip_prefix("block ") else {
            continue;
        };
        let name = after
            .trim_start()
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if name.ends_with(SECTION) && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The areas of a file printed by template `tmpl` (named `template`) with context `ctx`: each
/// `*_section` block alone, or the whole file when the template declares none.
pub(super) fn of_template(
    file: &str,
    template: &str,
    tmpl: &Template<'_, '_>,
    ctx: &Value,
) -> Result<Vec<Area>, RenderError> {
    let names = block_names(tmpl.source());
    let mut captured = tmpl
        .render_captured(ctx.clone())
        .map_err(|source| RenderError::Print {
            name: template.to_string(),
            source,
        })?;
    if names.is_empty() {
        let text = super::tidy_text(captured.into_output());
        let name = template.rsplit('/').next().unwrap_or(template);
        return Ok(area(file, name.trim_end_matches(".j2"), text)
            .into_iter()
            .collect());
    }
    let mut out = Vec::with_capacity(names.len());
    for block in names {
        let text = captured
            .with_state_mut(|state| state.render_block(block))
            .map_err(|source| RenderError::PrintBlock {
                template: template.to_string(),
                block: block.to_string(),
                source,
            })?;
        out.extend(area(file, block.trim_end_matches(SECTION), tidy(text)));
    }
    Ok(out)
}

/// The areas of a file the per-OS layer built: each top-level entry of a JSON object alone, as an
/// object of that one entry (4-space indentation, as SONiC's files are written), or the whole file.
pub(super) fn of_built(file: &str, name: &str, content: String) -> Result<Vec<Area>, RenderError> {
    let Ok(serde_json::Value::Object(tables)) = serde_json::from_str(&content) else {
        return Ok(area(file, name, content).into_iter().collect());
    };
    let mut out = Vec::with_capacity(tables.len());
    for (table, value) in tables {
        let mut one = serde_json::Map::new();
        one.insert(table.clone(), value);
        let mut text = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut text, fmt);
        serde::Serialize::serialize(&one, &mut ser).map_err(|source| RenderError::Areas {
            file: file.to_string(),
            source,
        })?;
        // serde_json writes UTF-8 only: nothing is replaced.
        let text = String::from_utf8_lossy(&text).into_owned();
        out.extend(area(file, &table, text + "\n"));
    }
    Ok(out)
}

/// A block's text tidied like a file: empty when it prints only blank lines.
fn tidy(text: String) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    super::tidy_text(text)
}

/// `Some(area)` unless the text is empty.
fn area(file: &str, name: &str, text: String) -> Option<Area> {
    (!text.is_empty()).then(|| Area {
        file: file.to_string(),
        name: name.to_string(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_names_are_the_section_blocks_in_order() {
        let src = "{# {% block not_a_section %} #}{% block header_section %}\n{% endblock %}{% block site_top %}{% endblock %}\n{%- block qos_section -%}x{% endblock %}{% block header_section %}{% endblock %}";
        assert_eq!(block_names(src), ["header_section", "qos_section"]);
    }
}
