//! nxos documents (being written).

use super::Document;

/// The nxos documents of a state folder.
pub const DOCUMENTS: &[Document] = &[];

/// The documents a switch in state `o` prints (being written).
pub fn write(_o: &crate::verify::observed::Observed) -> Vec<(&'static str, String)> {
    Vec::new()
}
