//! The `aifab` binary: the command line and the benchmark, over the `aifab` library.

mod bench;
mod cli;

/// Millions of small allocations from several threads: mimalloc takes about a quarter less CPU than
/// the system allocator here, and holds less memory at the peak (README, Dependencies).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_huge_pages();
    cli::main().into()
}

/// Turns transparent huge pages off for this process. A render touches a few hundred MiB once, for
/// about a second: a huge page is zeroed whole (2 MiB) on its first touch, and on a virtual machine
/// whose host backs guest memory lazily each one also costs the host a fault per small page. With
/// small pages a 100K-GPU render took a fifth less wall time there (docs/performance.md). mimalloc is
/// also built not to ask for huge pages (`no_thp`); this covers systems where THP is `always`.
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes a flag of this process only; a
    // failure (an old kernel, a sandbox) leaves the default, which is only slower.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Elsewhere there is nothing to turn off.
#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}
