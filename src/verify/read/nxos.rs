//! nxos documents (being written).

use super::Document;

/// The nxos documents of a state folder.
pub const DOCUMENTS: &[Document] = &[];
