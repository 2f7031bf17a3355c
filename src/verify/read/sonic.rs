//! sonic documents (being written).

use super::Document;

/// The sonic documents of a state folder.
pub const DOCUMENTS: &[Document] = &[];
