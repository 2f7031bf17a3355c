//! The arguments of `aifab render`.

use std::path::PathBuf;

/// Arguments of `aifab render`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file.
    pub intent: String,
    /// Output folder: written atomically (a temporary folder renamed into place).
    #[arg(long, conflicts_with = "check")]
    pub out: Option<PathBuf>,
    /// Compare with this folder instead of writing: exit 1 and print a unified diff per differing file.
    #[arg(long)]
    pub check: Option<PathBuf>,
    /// With --check: rewrite the folder with the new output (review the diff first).
    #[arg(long, requires = "check")]
    pub bless: bool,
    /// Only devices whose hostname matches this glob: their files are rendered (or checked), every
    /// other file of the folder stays as it is, and the inventory lists the devices with a config
    /// there. A glob that matches no device is an error (exit 2).
    #[arg(long)]
    pub only: Option<String>,
    /// No warnings or progress.
    #[arg(long, short)]
    pub quiet: bool,
    /// Render even if it renumbers or re-cables a device the lock holds (the list is printed).
    #[arg(long)]
    pub allow_renumber: bool,
    /// Drop the lock's retired entries (devices and cables that left the fabric): their space may be
    /// reused from this render on.
    #[arg(long)]
    pub release: bool,
    /// Neither read nor write the lock beside the intent: the arithmetic allocation alone.
    #[arg(long)]
    pub no_lock: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::super::site::SiteArgs,
    /// `frr`: every switch's routing as FRR instead of its own OS, `<hostname>/frr.conf` each (the
    /// same ASNs, neighbors, maximum-paths and networks; no inventory, no host files), for FRR-based
    /// switches, labs and `aifab twin` (docs/platforms/frr.md).
    #[arg(long, value_enum, conflicts_with = "only")]
    pub os: Option<OutputForm>,
}

/// An output form other than each device's own OS.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputForm {
    /// FRR (zebra and bgpd) `frr.conf`.
    Frr,
}
