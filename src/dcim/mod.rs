//! `aifab dcim`: the compiled fabric published into Nautobot, its DCIM source of truth (docs/dcim.md).
//!
//! Everything here works on DCIM objects named by a natural key (a device's name, an interface's
//! `device:name`, an address's `10.0.0.1/32`) with their fields as [`Value`]s, references to other
//! objects included as the other object's key, never its server id. So one comparison serves the
//! dry run, `check` and the sync itself:
//!
//! - [`plan`]: the objects the compiled model asks for ([`Object`]s, in [`Kind`] order);
//! - [`diff`]: those against what the DCIM holds ([`Existing`]), with the ownership rule (only objects
//!   tagged for the fabric are updated or deleted; an untagged one in the way is a conflict, unless
//!   adopted), into a [`diff::Changes`];
//! - [`store`]: what a DCIM must answer (read, bulk create, update, delete), a fake in-memory one for
//!   the tests and the sync's order of reads and writes ([`store::sync`]);
//! - [`nautobot`] and [`http`]: the Nautobot 2.x REST store;
//! - [`report`]: what changed, or would, per object type, as text, Markdown or JSON.

pub mod diff;
mod errors;
pub mod http;
pub mod nautobot;
pub mod plan;
pub mod report;
pub mod servers;
pub mod store;
pub mod templates;
pub mod vlans;

use std::collections::BTreeMap;

pub use plan::Settings;

/// The tag of a fabric's objects: `aifab:<fabric>`.
pub fn tag(fabric: &str) -> String {
    format!("aifab:{fabric}")
}

/// The status of devices, interfaces, VLANs, prefixes and addresses.
pub(crate) const ACTIVE: &str = "Active";

/// Every object the fabric needs in the DCIM, in [`Kind`] order: [`plan::plan`]'s, and with
/// `settings.servers` (`--servers`) the servers, their ports, addresses and cables ([`servers::plan`]).
pub fn desired(
    model: &crate::model::FabricModel,
    catalog: &crate::platform::Catalog,
    settings: &plan::Settings,
) -> Result<Vec<Object>, plan::PlanError> {
    let mut out = plan::plan(model, catalog, settings)?;
    if settings.servers {
        servers::plan(model, settings, &mut out);
        out.sort_by_key(|o| o.kind);
    }
    Ok(out)
}

/// The kinds of DCIM object aifab manages, in the order they are created (each refers only to kinds
/// before it); deletions run in the reverse order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A status (`Active`, `Connected`): looked up, never written.
    Status,
    /// The IPAM namespace of the fabric's prefixes and addresses (`Global` by default).
    Namespace,
    /// The fabric's ownership tag (`aifab:<fabric>`).
    Tag,
    /// The custom field holding a device's ASN.
    CustomField,
    /// A hardware vendor.
    Manufacturer,
    /// A platform profile of aifab's catalog, as a device type.
    DeviceType,
    /// A port of a device type (`<model>:<name>`): a device made of the type gets it as an interface.
    InterfaceTemplate,
    /// A network OS with its network driver.
    Platform,
    /// A device role (leaf, spine, super-spine).
    Role,
    /// The location type of the fabric's location.
    LocationType,
    /// The fabric's location.
    Location,
    /// A rail leaf's VLAN group (`<fabric>/<leaf>`, rail-subnet mode): the scope of its server VLAN.
    VlanGroup,
    /// A rail leaf's server VLAN (`<fabric>/<leaf>:<vid>`), its server ports' untagged VLAN.
    Vlan,
    /// A switch.
    Device,
    /// A switch port, loopback or management interface.
    Interface,
    /// An address pool or the management subnet.
    Prefix,
    /// An address.
    IpAddress,
    /// An address on an interface (`ip-address-to-interface`).
    IpAssignment,
    /// A device's management address as its primary IP.
    PrimaryIp,
    /// A planned cable between two switch ports.
    Cable,
}

impl Kind {
    /// Every kind, in creation order.
    pub const ALL: [Kind; 20] = [
        Kind::Status,
        Kind::Namespace,
        Kind::Tag,
        Kind::CustomField,
        Kind::Manufacturer,
        Kind::DeviceType,
        Kind::InterfaceTemplate,
        Kind::Platform,
        Kind::Role,
        Kind::LocationType,
        Kind::Location,
        Kind::VlanGroup,
        Kind::Vlan,
        Kind::Device,
        Kind::Interface,
        Kind::Prefix,
        Kind::IpAddress,
        Kind::IpAssignment,
        Kind::PrimaryIp,
        Kind::Cable,
    ];

    /// The kind as reports name it (`device`, `ip-address`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Status => "status",
            Kind::Namespace => "namespace",
            Kind::Tag => "tag",
            Kind::CustomField => "custom-field",
            Kind::Manufacturer => "manufacturer",
            Kind::DeviceType => "device-type",
            Kind::InterfaceTemplate => "interface-template",
            Kind::Platform => "platform",
            Kind::Role => "role",
            Kind::LocationType => "location-type",
            Kind::Location => "location",
            Kind::VlanGroup => "vlan-group",
            Kind::Vlan => "vlan",
            Kind::Device => "device",
            Kind::Interface => "interface",
            Kind::Prefix => "prefix",
            Kind::IpAddress => "ip-address",
            Kind::IpAssignment => "ip-assignment",
            Kind::PrimaryIp => "primary-ip",
            Kind::Cable => "cable",
        }
    }

    /// Who may change objects of this kind ([`Ownership`]).
    pub fn ownership(self) -> Ownership {
        match self {
            Kind::Status => Ownership::Lookup,
            Kind::Namespace
            | Kind::Tag
            | Kind::CustomField
            | Kind::Manufacturer
            | Kind::DeviceType
            | Kind::InterfaceTemplate
            | Kind::Platform
            | Kind::Role
            | Kind::LocationType
            | Kind::Location => Ownership::Shared,
            Kind::VlanGroup
            | Kind::Vlan
            | Kind::Device
            | Kind::Interface
            | Kind::Prefix
            | Kind::IpAddress
            | Kind::Cable => Ownership::Tagged,
            Kind::IpAssignment => Ownership::Derived(Kind::IpAddress),
            Kind::PrimaryIp => Ownership::Derived(Kind::Device),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Who may change the objects of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Objects every Nautobot has (statuses): used as they are; a missing one is an error, never
    /// created.
    Lookup,
    /// Objects other fabrics and people share (a manufacturer, a role, a platform): used whoever made
    /// them, created (tagged) when missing, never updated or deleted.
    Shared,
    /// The fabric's own objects: created tagged, updated and deleted only when they carry the fabric's
    /// tag; an untagged one of the same key is a conflict, left alone unless adopted.
    Tagged,
    /// Objects without tags, owned with the object of the named kind they hang off (an address's
    /// assignment with the address, a primary IP with its device).
    Derived(Kind),
}

/// A field's value, references given by the key of the object referred to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// Text.
    Str(String),
    /// A whole number.
    Int(i64),
    /// Yes or no.
    Bool(bool),
    /// A list of words (a tag's or role's content types).
    List(Vec<String>),
    /// Another object, by kind and key.
    Ref(Kind, String),
    /// No value.
    Null,
}

impl Value {
    /// A text value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// A reference to the object of `kind` with key `key`.
    pub fn r(kind: Kind, key: impl Into<String>) -> Value {
        Value::Ref(kind, key.into())
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::List(l) => write!(f, "[{}]", l.join(", ")),
            Value::Ref(k, key) => write!(f, "{k} {key}"),
            Value::Null => f.write_str("none"),
        }
    }
}

/// Fields by name; a dotted name is a nested field (`custom_fields.aifab_asn`).
pub type Fields = BTreeMap<String, Value>;

/// One object the fabric needs in the DCIM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its kind.
    pub kind: Kind,
    /// Its natural key, unique within the kind.
    pub key: String,
    /// Fields a sync keeps equal (an update sets those that differ).
    pub fields: Fields,
    /// Fields sent only when the object is created (those that make its key: a cable's ends).
    pub create_only: Fields,
}

impl Object {
    /// An object of `kind` and `key` with no fields yet.
    pub fn new(kind: Kind, key: impl Into<String>) -> Object {
        Object {
            kind,
            key: key.into(),
            fields: Fields::new(),
            create_only: Fields::new(),
        }
    }

    /// Adds a compared field.
    pub fn with(mut self, name: &str, value: Value) -> Object {
        self.fields.insert(name.to_string(), value);
        self
    }

    /// Adds a field sent only on creation.
    pub fn with_create(mut self, name: &str, value: Value) -> Object {
        self.create_only.insert(name.to_string(), value);
        self
    }

    /// Every reference among its fields, compared or not.
    pub fn refs(&self) -> impl Iterator<Item = (Kind, &str)> {
        self.fields
            .values()
            .chain(self.create_only.values())
            .filter_map(|v| match v {
                Value::Ref(k, key) => Some((*k, key.as_str())),
                _ => None,
            })
    }
}

/// One object the DCIM holds, read back into the same terms as an [`Object`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Existing {
    /// Its kind.
    pub kind: Kind,
    /// Its natural key.
    pub key: String,
    /// The server's id.
    pub id: String,
    /// Its fields (the ones aifab compares), references as keys.
    pub fields: Fields,
    /// Whether it carries the fabric's tag.
    pub tagged: bool,
    /// The ids of the tags it carries (kept when aifab adopts it).
    pub tag_ids: Vec<String>,
}
