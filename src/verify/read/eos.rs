//! eos documents (being written).

use super::Document;

/// The eos documents of a state folder.
pub const DOCUMENTS: &[Document] = &[];
