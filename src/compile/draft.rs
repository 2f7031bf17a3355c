//! The fabric while the compiler builds it: the draft types every pass of [`super`] reads and fills
//! ([`Draft`], its devices and cables), apart from the passes so that they depend on it and not on each
//! other ([`super::topology`] builds the draft; ports, addressing, baseline and features fill it in).

use crate::intent::Role;
use crate::model::{Device, FabricModel, Link, LinkTier, Name, NicEnd, Summary};
use crate::place::Overridable;
use rayon::prelude::*;

/// A device while the compiler fills it in: the model's [`Device`] plus the compiler's bookkeeping.
/// It derefs to the `Device`, so passes read and write `d.hostname`, `d.interfaces`, ... directly.
#[derive(Clone, Debug)]
pub struct DraftDevice {
    /// The device being built (its `qos` is a shared placeholder until the QoS pass).
    pub dev: Device,
    /// 0-based position among all devices of the role: the allocation key.
    pub seq: u32,
    /// Override indices that matched this device, in order.
    pub overrides: Vec<usize>,
}

impl std::ops::Deref for DraftDevice {
    type Target = Device;
    fn deref(&self) -> &Device {
        &self.dev
    }
}

impl std::ops::DerefMut for DraftDevice {
    fn deref_mut(&mut self) -> &mut Device {
        &mut self.dev
    }
}

impl Overridable for DraftDevice {
    fn role(&self) -> Role {
        self.dev.role
    }
    fn matched(&self) -> &[usize] {
        &self.overrides
    }
}

/// One end of a cable as the compiler tracks it.
#[derive(Clone, Copy, Debug)]
pub struct End {
    /// Device index.
    pub dev: usize,
    /// Interface index within the device.
    pub iface: usize,
}

/// A cable while the compiler fills it in.
#[derive(Clone, Debug)]
pub struct DraftLink {
    /// Tier name.
    pub tier: LinkTier,
    /// Lower end (None for a server).
    pub lower: Option<End>,
    /// Server name and NIC, for server links.
    pub server: Option<(Name, Name)>,
    /// The NIC and NIC port of a server link.
    pub nic: Option<NicEnd>,
    /// Upper end.
    pub upper: End,
    /// Allocation index within the tier's pool.
    pub seq: u64,
    /// Speed.
    pub speed_gbps: u32,
    /// Cable metres.
    pub cable_m: u32,
    /// Subnet text, once addressed.
    pub subnet: Option<Name>,
    /// The subnet's first address when the lock keeps it (`None`: allocate from `seq`).
    pub pinned: Option<u32>,
}

/// The fabric under construction.
#[derive(Clone, Debug)]
pub struct Draft {
    /// Fabric name.
    pub name: String,
    /// Devices in output order.
    pub devices: Vec<DraftDevice>,
    /// Cables.
    pub links: Vec<DraftLink>,
    /// Counts.
    pub summary: Summary,
    /// Each device's hostname, as the links name it.
    pub hostnames: Vec<Name>,
}

impl Draft {
    /// Freezes the draft into the public model (the links in parallel, in order).
    pub fn finish(self) -> FabricModel {
        let Draft {
            name,
            devices,
            links,
            summary,
            hostnames,
        } = self;
        let names = |e: &End| -> (Name, Name) {
            let d = &devices[e.dev];
            (hostnames[e.dev].clone(), d.interfaces[e.iface].name.clone())
        };
        let links = links
            .into_par_iter()
            .map(|l| {
                let (a, a_port) = match (&l.lower, l.server) {
                    (Some(e), _) => names(e),
                    (None, Some(server)) => server,
                    (None, None) => (Name::from(""), Name::from("")),
                };
                let (b, b_port) = names(&l.upper);
                Link {
                    tier: l.tier,
                    a,
                    a_port,
                    b,
                    b_port,
                    speed_gbps: l.speed_gbps,
                    cable_m: l.cable_m,
                    subnet: l.subnet,
                    nic: l.nic,
                }
            })
            .collect();
        let devices = devices.into_iter().map(|d| d.dev).collect();
        FabricModel {
            name,
            devices,
            links,
            summary,
            hosts: None,
        }
    }
}
