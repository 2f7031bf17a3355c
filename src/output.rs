//! What a render produces, below every stage that produces it: the files ([`OutFile`], each with its
//! device) and the facts about the run that every file header carries ([`Meta`]). The switch configs
//! ([`crate::render`]) and the server files ([`crate::hosts`]) both emit these, and the writer and the
//! reviewers read them; keeping them here lets each of those depend only forward.

use serde::Serialize;

/// Facts about the run that go into every file header. No aifab version and no path as typed: a
/// header must not change when aifab is upgraded or the intent is named another way (the version is in
/// the output folder's manifest, [`crate::write::MARKER`]).
#[derive(Clone, Debug, Serialize)]
pub struct Meta {
    /// The intent file in a stable form: see [`intent_label`].
    pub intent_file: String,
    /// Fabric name.
    pub fabric: String,
}

impl Meta {
    /// Meta for an intent label and fabric name. The label comes from the command line, not from
    /// the checked intent, so every character that could end a config line (control characters,
    /// Unicode line and paragraph separators) becomes `?`, and anything outside printable ASCII too
    /// (switch CLIs expect plain ASCII).
    pub fn new(intent_label: &str, fabric: &str) -> Meta {
        Meta {
            intent_file: one_line(intent_label),
            fabric: one_line(fabric),
        }
    }

    /// Meta for an intent file as the user named it: the header names it by [`intent_label`].
    pub fn for_intent_path(path: &str, fabric: &str) -> Meta {
        Meta::new(&intent_label(std::path::Path::new(path)), fabric)
    }
}

/// The intent file's name as every header carries it: the file name alone, the same however the path
/// was typed (`intents/x.yaml`, `./intents/x.yaml`, an absolute path, from another folder) and wherever
/// the repository is cloned or unpacked (the fabric name beside it tells two same-named files apart).
pub fn intent_label(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// `text` with anything that could start a new line or a new command replaced by `?`: control and
/// non-ASCII characters, and `;` (NX-OS reads ` ; ` as a command separator even in a pasted comment).
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if !(c == ' ' || c.is_ascii_graphic()) || c == ';' {
                '?'
            } else {
                c
            }
        })
        .collect()
}

/// One rendered file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutFile {
    /// Path relative to the output folder (`su1-r1-leaf.cfg`, `leaf1/config_db.json`).
    pub path: String,
    /// Content.
    pub content: String,
    /// Device it belongs to.
    pub device: String,
}
