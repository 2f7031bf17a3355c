//! SIGINT, SIGTERM, SIGHUP and SIGQUIT during a render (SIGQUIT, Ctrl-\\, is a request to stop like the
//! others: no core dump, the same clean-up). Before a write starts, nothing of the run exists yet and
//! the process ends at once (status 128 + the signal). While a write runs, the signal is remembered:
//! a write still filling its temporary folder stops at the next file and removes everything the run
//! created (the temporary folder, the staged lock), leaving the output and the lock as they were; a
//! write that has begun its commit (the journal is written) finishes it first, so the output and the
//! lock are always a pair. A second signal ends the process at once; what it leaves behind is removed
//! by the next render (its journal, or the temporary folders of a process that no longer runs).
//!
//! Tests stop a render at named points ([`point`]): `AIFAB_TEST_KILL_AT=<point>` kills the process
//! there (SIGKILL, as a crash or `kill -9` would), `AIFAB_TEST_SIGNAL_AT=<point>` sends it SIGTERM (or
//! the signal `AIFAB_TEST_SIGNAL` names: `INT`, `HUP`, `QUIT`).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Test hook: the point at which the process kills itself with SIGKILL.
pub const KILL_AT_ENV: &str = "AIFAB_TEST_KILL_AT";
/// Test hook: the point at which the process sends itself SIGTERM.
pub const SIGNAL_AT_ENV: &str = "AIFAB_TEST_SIGNAL_AT";
/// Test hook: the signal [`SIGNAL_AT_ENV`] sends, by name without `SIG` (default `TERM`).
pub const SIGNAL_ENV: &str = "AIFAB_TEST_SIGNAL";

/// The signals handled as the module doc says.
#[cfg(unix)]
pub const HANDLED: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The named points of a write, in order: the first file put (`fill`), everything staged and the
/// manifest written (`staged`), the journal written (`journaled`), the folders swapped (`swapped`), the
/// lock renamed over the old one (`locked`), the journal removed (`committed`).
pub const POINTS: [&str; 6] = [
    "fill",
    "staged",
    "journaled",
    "swapped",
    "locked",
    "committed",
];

/// True while a write runs: a signal is remembered instead of ending the process.
static BUSY: AtomicBool = AtomicBool::new(false);
/// The signal received while busy (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Handles SIGINT, SIGTERM, SIGHUP and SIGQUIT as the module doc says, from now on (called once by `aifab
/// render`).
#[cfg(unix)]
pub fn install() {
    // SAFETY: the handler only touches atomics and calls `_exit`, both async-signal-safe; the
    // `sigaction` struct is zeroed, then filled with a valid handler and flags.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        act.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        for sig in HANDLED {
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
pub fn install() {}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    if !BUSY.load(Ordering::SeqCst) || SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
        // SAFETY: `_exit` is async-signal-safe and ends the process without running anything else.
        unsafe { libc::_exit(128 + sig) }
    }
}

/// Marks a write as running (`true`) or done (`false`).
pub(super) fn busy(on: bool) {
    BUSY.store(on, Ordering::SeqCst);
}

/// The signal received during the write, if any.
pub fn pending() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The conventional name of a signal number.
pub fn name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// A named point of the write: the test hooks act here.
pub(super) fn point(name: &str) {
    static HOOKS: std::sync::OnceLock<[Option<String>; 2]> = std::sync::OnceLock::new();
    let hooks = HOOKS.get_or_init(|| [KILL_AT_ENV, SIGNAL_AT_ENV].map(|v| std::env::var(v).ok()));
    let wanted = |var: &str| {
        let i = usize::from(var == SIGNAL_AT_ENV);
        hooks[i].as_deref() == Some(name)
    };
    #[cfg(unix)]
    {
        if wanted(KILL_AT_ENV) {
            // SAFETY: sends a signal to this process.
            unsafe {
                libc::raise(libc::SIGKILL);
            }
        }
        if wanted(SIGNAL_AT_ENV) && pending().is_none() {
            let sig = match std::env::var(SIGNAL_ENV).as_deref() {
                Ok("INT") => libc::SIGINT,
                Ok("HUP") => libc::SIGHUP,
                Ok("QUIT") => libc::SIGQUIT,
                _ => libc::SIGTERM,
            };
            // SAFETY: sends a signal to this process, handled by `on_signal` when installed.
            unsafe {
                libc::raise(sig);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = wanted;
}
