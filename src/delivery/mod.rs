//! Delivery: how rendered configs reach running switches.
//!
//! - What a push replaces and what it keeps (`aifab drift`, docs/push.md): a device's running-config
//!   is split into top-level sections ([`crate::platform::sections`]); those aifab owns on its OS
//!   (`owned_sections:` in `vendors/<os>.yaml`) are replaced by the rendered ones, every other section
//!   is kept as the switch has it, and the replace file the playbooks push holds both ([`assemble`]).
//!   What is printed never shows a secret value of the running-config ([`mask`]); a secret aifab
//!   renders as a placeholder is compared in the form the switch prints it ([`secret`]). On SONiC the
//!   rendered config_db is compared with the running one in the tables aifab owns ([`config_db`]).
//! - In which order switches take a change ([`rollout`]: batches that keep the fabric serving).
//! - Which SONiC switches `config apply-patch` can move live ([`route`], with the RFC 6902 patch of
//!   [`patch`] and the Generic Config Updater's validators per release in [`gcu`]) and which must be
//!   reloaded.

pub mod assemble;
pub mod canon;
pub mod config_db;
pub mod gcu;
pub mod mask;
pub mod patch;
pub mod rollout;
pub mod route;
pub mod running;
pub mod secret;

pub use assemble::{Drift, Mark, Ownership, drift, drift_with};
