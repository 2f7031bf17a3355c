//! The host plan: the servers' half of the fabric as the compiler stores it in the model.
//!
//! With an enabled `hosts` section the model carries a [`HostsPlan`](crate::model::hosts::HostsPlan)
//! ([`plan`]), and the rules that catch host-side mistakes (`AIF-HOST-*`) run on the intent and the
//! compiled model ([`rules`], [`name_rules`], [`pool_rules`]). Read off the compiled model's server
//! links, [`servers`] gives each server's NIC ports (rail, port, name, address, gateway) and [`routes`]
//! which server addresses each port's leaf reaches. Every name that reaches a host file is checked
//! here first ([`names`]).
//!
//! The files themselves (netplan, NIC QoS script, NCCL environment, sysctl, Spiderpool) are printed
//! from this plan by the render stage: `crate::render::hosts`.

pub mod names;
pub mod plan;
pub mod routes;
pub mod servers;

pub use plan::{name_rules, plan, pool_rules, rules};
pub use servers::{Nic, Server, servers};

/// The folder under the output folder that holds every host file.
pub const DIR: &str = "hosts";

/// Whether a path of the output folder is a host file (no switch owns it).
pub fn is_host_path(path: &str) -> bool {
    path.strip_prefix(DIR).is_some_and(|r| r.starts_with('/'))
}
