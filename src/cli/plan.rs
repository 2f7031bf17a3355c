//! `aifab plan` (skeleton).

/// Arguments of `aifab plan`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aifab plan`.
pub fn run(_args: Args) -> i32 {
    eprintln!("aifab plan: not implemented yet");
    super::EXIT_USAGE
}
