//! Why the per-OS layer could not build a device's view or file: a platform fact the OS needs is
//! missing, or the device asks for what the platform cannot give. Each names the device where the
//! message always did.

/// Why a device's per-OS view or file could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OsError {
    /// An EOS platform without its tx-queue keyword.
    #[error("EOS platform profile has no queue_keyword")]
    NoQueueKeyword,
    /// A SONiC device on a platform without SONiC facts.
    #[error("{host}: platform {platform} has no `sonic` facts")]
    NoSonicFacts {
        /// The device.
        host: String,
        /// Its platform.
        platform: String,
    },
    /// A port of the device that is not in its SKU's port table.
    #[error("{host}: {name}: port {port} is not in the port table of HWSKU {hwsku}")]
    PortNotInSku {
        /// The device.
        host: String,
        /// The port's name.
        name: String,
        /// The port's number.
        port: u32,
        /// The SKU.
        hwsku: String,
    },
    /// A front-panel port of the platform that is not in its SKU's port table.
    #[error("{host}: port {panel} is not in the port table of HWSKU {hwsku}")]
    PanelNotInSku {
        /// The device.
        host: String,
        /// The front-panel port.
        panel: u32,
        /// The SKU.
        hwsku: String,
    },
    /// A breakout the platform has no BREAKOUT_CFG mode for.
    #[error("{host}: no BREAKOUT_CFG mode for {children}x{speed_gbps}G")]
    NoBreakoutMode {
        /// The device.
        host: String,
        /// Ports per cage.
        children: u32,
        /// Speed of each, Gbit/s.
        speed_gbps: u32,
    },
    /// More BGP paths than FRR installs.
    #[error(
        "{host}: maximum-paths {paths} is more than FRR's {max} (Debian's FRR is built with --enable-multipath={max}); see docs/platforms/frr.md#bgp"
    )]
    FrrPaths {
        /// The device.
        host: String,
        /// The paths the model asks for.
        paths: u32,
        /// FRR's most.
        max: u32,
    },
}
