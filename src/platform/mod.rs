//! Platform profiles: the facts aifab knows about each switch model, read from `vendors/<os>.yaml`.
//!
//! A profile never holds a number without a source: every optional fact that is present must have an
//! entry in `sources` naming a public document (a key of the file's `references`: vendor guide, TOI,
//! data sheet, SONiC source file), its section, and the `docs/platforms/<os>.md` section that explains
//! it. Features no public source confirms carry `support: unverified`; renderers emit them only with a
//! comment pointing at that section, and `aifab validate` warns about them.

//!
//! One job per module: the profile's types (`types.rs`), the catalog of built-in and site files
//! (`catalog.rs`, `extend.rs`), the per-family defaults they inherit (`family.rs`), the sources every fact needs (`sourcing.rs`) and the other consistency
//! checks (`checks.rs`), interface names and port modes (`naming.rs`), OS releases (`release.rs`),
//! SONiC SKU facts (`sonic.rs`), what a push owns (`owned.rs`, `sections.rs`), which sections each change-report rule explains
//! (`explained.rs`), and the stage's errors (`error.rs`).

mod catalog;
mod checks;
mod error;
mod explained;
mod extend;
mod family;
mod naming;
pub mod owned;
pub mod release;
pub mod sections;
mod sonic;
mod sourcing;
mod types;

pub use crate::kinds::{Os, QpHashMethod, Support};
pub use crate::units::PortMode;
pub use catalog::{Catalog, Entry, VENDOR_FILES, hint_for, schema_json};
pub use error::{OutputError, VendorFileError, VendorProblem};
pub use explained::ChangeSections;
pub use family::FamilyError;
pub use naming::PortNames;
pub use owned::{ConfigDbOwnership, OwnedSections};
pub use sonic::{
    BufferModel, DynamicBuffers, Fec, MaxPaths, PgLookupRow, SonicBuffers, SonicFacts, SonicPort,
};
pub use types::{
    Breakout, Builder, DlbSupport, EcnUnit, OutputSpec, Platform, Ports, Producer, QpHashSupport,
    StrictQueues, TemplateContext, VendorFile, WatchdogLimits,
};
