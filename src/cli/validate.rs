//! `aifab validate` (skeleton).

/// Arguments of `aifab validate`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aifab validate`.
pub fn run(_args: Args) -> i32 {
    eprintln!("aifab validate: not implemented yet");
    super::EXIT_USAGE
}
