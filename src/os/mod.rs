//! Per-OS layer: turns the vendor-neutral [`crate::model::Device`] and its platform facts into the
//! structured config one OS's templates print, already in that OS's spelling and order (the way
//! Arista AVD's eos_designs builds structured config for templates that only print it).

pub mod common;
pub mod eos;
pub mod nxos;
