//! `aifab render` (skeleton).

/// Arguments of `aifab render`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aifab render`.
pub fn run(_args: Args) -> i32 {
    eprintln!("aifab render: not implemented yet");
    super::EXIT_USAGE
}
