//! What a push replaces and what it keeps (`aifab drift`, docs/push.md): a device's running-config is
//! split into top-level sections ([`config`]); those aifab owns on its OS (`owned_sections:` in
//! `vendors/<os>.yaml`) are replaced by the rendered ones, every other section is kept as the switch
//! has it, and the replace file the playbooks push holds both ([`assemble`]). What is printed never
//! shows a secret value of the running-config ([`mask`]).

pub mod assemble;
pub mod config;
pub mod mask;

pub use assemble::{Drift, Mark, drift};
