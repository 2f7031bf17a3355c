//! The fabric compiler: intent → [`FabricModel`].
//!
//! One module per concern: [`shape`] (counts and port budgets), [`topology`] (devices, ports, links),
//! [`addressing`] (loopbacks, /31s, server subnets, ASNs), [`qos`] (per-platform QoS plans) and
//! [`features`] (DLB, QP hashing, notes for unverified syntax). Allocation is a pure function of the
//! intent, and arithmetic: adding a server group at the end never moves an existing address or port.

pub mod addressing;
pub mod features;
pub mod pattern;
pub mod qos;
pub mod shape;
pub mod topology;

use crate::diag::Finding;
use crate::intent::Intent;
use crate::model::FabricModel;
use crate::platform::Catalog;

/// Compiles a schema-valid intent into the device model, or returns every problem found.
pub fn compile(intent: &Intent, catalog: &Catalog) -> Result<FabricModel, Vec<Finding>> {
    compile_only(intent, catalog, None)
}

/// [`compile`], expanding ports and cables only for the devices `only` matches (every device still
/// gets its name, loopback and ASN, so matched devices come out exactly as in a full compile).
pub fn compile_only(
    intent: &Intent,
    catalog: &Catalog,
    only: Option<&globset::GlobMatcher>,
) -> Result<FabricModel, Vec<Finding>> {
    let shape = shape::shape(intent)?;
    let mut fabric = topology::build(intent, catalog, &shape, only)?;
    addressing::assign(intent, &shape, &mut fabric)?;
    features::resolve(intent, catalog, &mut fabric)?;
    Ok(fabric.finish())
}
