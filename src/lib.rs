//! aifab: compile one YAML intent describing a lossless RoCEv2 AI/ML back-end fabric into ready-to-push
//! switch configurations for Cisco NX-OS, Arista EOS and SONiC.
//!
//! Pipeline: [`load`] (YAML with spans) → [`validate`] (JSON Schema) → [`check`] (rules that read only
//! the intent) → [`place`] (every device, its name, overrides and platform) → [`check`] (rules about the
//! platforms placed) → [`compile`] (vendor-neutral [`model`]) → [`os`] (per-OS structured config: typed
//! data for SONiC, a view for the NX-OS/EOS templates) → [`render`] → [`write`](mod@write) / [`review`].
//! Every rule a stage can report is declared once, in the registry [`rules`]. The command line and the
//! benchmark are the binary's (`src/main.rs`), not part of this API.

// A `Finding` is the unit every stage reports; it is returned by value on the (cold) error path, where
// its size does not matter, and boxing it everywhere would only add noise.
#![allow(clippy::result_large_err)]

pub mod boundary;
pub mod check;
pub mod compile;
pub mod dcim;
pub mod delivery;
pub mod diag;
pub mod files;
pub mod git;
pub mod hosts;
pub mod intent;
pub mod kinds;
pub(crate) mod load;
pub mod lock;
pub mod model;
pub mod os;
pub(crate) mod output;
pub mod picture;
pub mod pipeline;
pub mod place;
pub mod platform;
pub mod project;
pub mod publish;
pub mod render;
pub mod review;
pub mod rules;
pub mod shape;
pub(crate) mod spell;
pub mod twin;
pub mod units;
pub mod validate;
pub mod verify;
pub mod write;
