//! The `aifab` binary: the command line and the benchmark, over the `aifab` library.

mod bench;
mod cli;

/// Millions of small allocations from several threads: mimalloc takes about a quarter less CPU than
/// the system allocator here, and holds less memory at the peak (README, Dependencies).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_huge_pages();
    exit_when_output_fails();
    let code = cli::main().into();
    // Whatever is still buffered for stdout, and anything `cli::emit` could not write: a full disk or a
    // closed file under stdout is a failure (2: could not run), never a silent 0.
    let flushed = std::io::Write::flush(&mut std::io::stdout());
    if cli::output_failed() || flushed.is_err() {
        return std::process::ExitCode::from(OUTPUT_FAILED);
    }
    code
}

/// The exit code when stdout or stderr cannot be written: the command could not do its job (2).
const OUTPUT_FAILED: u8 = 2;

/// The standard library's print macros (`println!`, `eprintln!`, everywhere in the commands) panic
/// when the stream cannot be written (`aifab render ... 2>/dev/full`, a full disk under a redirected
/// log). This hook turns exactly that panic into exit code 2 with one line on stderr (when stderr
/// can still take it), instead of a panic message and code 101. Every other panic is left to the
/// default hook. Any write already committed stays committed: prints come after the commit, and a
/// render stopped before one leaves what a kill would (the next command settles it).
fn exit_when_output_fails() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload_as_str().unwrap_or_default();
        if let Some(what) = message.strip_prefix("failed printing to ") {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("aifab: cannot write to {what}\n").as_bytes(),
            );
            std::process::exit(i32::from(OUTPUT_FAILED));
        }
        default(info);
    }));
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
