//! The per-OS layer: turns the vendor-neutral [`crate::model::Device`] and its platform facts into what
//! one OS needs, already in that OS's spelling and order (the way Arista AVD's eos_designs builds a
//! structured config that templates only print). SONiC's `config_db.json` is data, built as typed values
//! and serialized; NX-OS and EOS get a view their templates print.

pub mod cli_baseline;
pub mod common;
pub mod eos;
pub mod frr;
pub mod nxos;
pub mod sonic;
