//! The `aifab` binary: the command line and the benchmark, over the `aifab` library.

mod bench;
mod cli;

fn main() -> std::process::ExitCode {
    cli::main().into()
}
