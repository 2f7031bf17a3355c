//! Why a DCIM store could not read or write: the errors of the Nautobot store ([`super::nautobot`]),
//! which the sync ([`super::store`]) passes on, and the Nautobot version aifab speaks.

use super::Kind;
use super::http::HttpError;

/// The Nautobot major version whose REST API aifab speaks.
pub const MAJOR: u64 = 2;
/// The release the tests run against (`.ci/nautobot.sh`).
pub const TESTED: &str = "2.4.44";

/// Why the Nautobot store could not read or write (its `Display` is the message).
#[derive(Debug, thiserror::Error)]
pub enum NautobotError {
    /// A request failed.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// `/api/status/` names no Nautobot version.
    #[error("{base}/api/status/ does not name a Nautobot version: is it Nautobot?")]
    NotNautobot {
        /// The server.
        base: String,
    },
    /// Another major version than [`MAJOR`].
    #[error(
        "{base} runs Nautobot {version}; aifab speaks the Nautobot {MAJOR}.x REST API (tested with {TESTED}): nothing read or written"
    )]
    Major {
        /// The server.
        base: String,
        /// The version it runs.
        version: String,
    },
    /// A bulk create answered without an id per object.
    #[error("creating {kind}s: the server's answer lacks their ids")]
    NoIds {
        /// The kind created.
        kind: Kind,
    },
    /// An object refers to one that is neither in the DCIM nor was created.
    #[error(
        "{kind} {key}: {to_kind} {to_key} is not in the DCIM (it was neither found nor created); nothing more written"
    )]
    Unresolved {
        /// The referring object's kind.
        kind: Kind,
        /// Its key.
        key: String,
        /// The kind referred to.
        to_kind: Kind,
        /// The key referred to.
        to_key: String,
    },
    /// A primary IP of a device that is not there.
    #[error("primary IP of {device}: the device is not in the DCIM")]
    NoDevice {
        /// The device.
        device: String,
    },
}
