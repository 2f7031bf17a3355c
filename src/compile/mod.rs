//! The fabric compiler: a placed intent → [`FabricModel`].
//!
//! One module per concern ([`crate::shape`] counted the fabric before), over the fabric under construction
//! ([`draft`], which depends on no pass): [`topology`] (ports and links of the
//! placed devices), [`addressing`] (loopbacks, /31s, server subnets, ASNs), [`qos`] (per-platform QoS
//! plans) and [`features`] (DLB, QP hashing, notes for unverified syntax). Which devices exist, their
//! names and platforms come from [`crate::place`]. Without a lock, allocation is a pure function of the
//! intent (arithmetic); with the lock beside the intent ([`crate::lock`]), [`stable`] keeps what the lock
//! holds, so growing the fabric never renumbers or re-cables what already runs.

pub mod addressing;
pub mod baseline;
pub mod draft;
pub mod features;
pub mod ports;
pub mod qos;
pub mod stable;
pub mod topology;

use crate::diag::Finding;
use crate::intent::Intent;
use crate::lock::Lock;
use crate::model::FabricModel;
use crate::place::{self, Placement};
use crate::platform::Catalog;
use crate::shape::{self, Shape};

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
    let placement = place::place(intent, catalog, &shape.counts());
    compile_placed(intent, catalog, &shape, placement, only)
}

/// [`compile_only`] on a fabric already shaped and placed (`placement` from [`place::place`] or
/// [`place::for_rules`] with this `shape`). A placement with errors is refused with them.
pub fn compile_placed(
    intent: &Intent,
    catalog: &Catalog,
    shape: &Shape,
    placement: Placement,
    only: Option<&globset::GlobMatcher>,
) -> Result<FabricModel, Vec<Finding>> {
    compile_locked(intent, catalog, shape, placement, only, None)
}

/// [`compile_placed`] keeping what `lock` already allocated ([`stable`]): devices and cables the lock
/// holds keep their addresses, ASNs and ports; new ones take free space. `None` is the arithmetic alone.
pub fn compile_locked(
    intent: &Intent,
    catalog: &Catalog,
    shape: &Shape,
    placement: Placement,
    only: Option<&globset::GlobMatcher>,
    lock: Option<&Lock>,
) -> Result<FabricModel, Vec<Finding>> {
    // A stand-in holds one device per tier, for the platform rules only: place the real fabric.
    let placement = if placement.stand_in {
        place::place(intent, catalog, &shape.counts())
    } else {
        placement
    };
    if !placement.errors.is_empty() {
        return Err(placement.errors);
    }
    let mut ix = lock.map(stable::Index::new);
    let mut fabric = topology::build(intent, catalog, shape, placement, only, ix.as_ref())?;
    addressing::assign(intent, shape, &mut fabric, ix.as_mut())?;
    features::resolve(intent, catalog, &mut fabric)?;
    baseline::resolve(intent, &mut fabric);
    let mut model = fabric.finish();
    model.hosts = crate::hosts::plan(intent).map(std::sync::Arc::new);
    Ok(model)
}
