//! Secrets out of what `aifab drift` prints: the one masking module's [`mask`] (`src/review/mask/`,
//! whose table of secret words the playbooks' `aifab_mask` filter reads too). The files `--write`
//! makes keep every value: the switch needs them.

pub use crate::review::mask::mask;
