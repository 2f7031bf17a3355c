//! The per-OS layer: each OS's own spelling of a device of the neutral model, built as typed data
//! where the OS's config is data (SONiC `config_db.json`) rather than text a template prints.

pub mod sonic;
