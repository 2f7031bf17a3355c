//! Secrets out of what `aifab drift` prints: the one masking module's [`mask`] (`src/review/mask/`,
//! whose table of secret words the playbooks' `aifab_mask` filter reads too), and its test of a field
//! name whose values are secrets (SONiC's config_db). The files `--write` makes keep every value: the
//! switch needs them.

pub use crate::review::mask::words::is_secret_name;
pub use crate::review::mask::{HIDDEN as SECRET, mask};
