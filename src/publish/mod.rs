//! The render transaction (filled in by the next commit).
