//! The `aifab` binary: the command line and the benchmark, over the `aifab` library.

mod bench;
mod cli;

/// Millions of small allocations from several threads: mimalloc takes about a quarter less CPU than
/// the system allocator here, and holds less memory at the peak (README, Dependencies).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main().into()
}
