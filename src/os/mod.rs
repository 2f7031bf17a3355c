//! The per-OS layer: turns the vendor-neutral [`crate::model::Device`] and its platform facts into what
//! one OS needs, already in that OS's spelling and order (the way Arista AVD's eos_designs builds a
//! structured config that templates only print). SONiC's `config_db.json` is data, built as typed values
//! and serialized; NX-OS and EOS get a view their templates print.

pub mod cli_baseline;
pub mod common;
pub mod eos;
mod error;
pub mod frr;
pub mod nxos;
pub mod sonic;

pub use error::OsError;

/// The MTU the rendered config sets on port `i` of a device of `os` on platform `pf`: the model's MTU,
/// except on an NX-OS port in the server VLAN, an L2 port that takes the platform's largest MTU (the
/// SVI carries the IP MTU).
pub fn port_mtu(
    os: crate::kinds::Os,
    pf: &crate::platform::Platform,
    i: &crate::model::Interface,
) -> u32 {
    match os {
        crate::kinds::Os::Nxos => nxos::port_mtu(i, pf),
        crate::kinds::Os::Eos | crate::kinds::Os::Sonic => i.mtu,
    }
}
