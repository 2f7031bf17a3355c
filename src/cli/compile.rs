//! `aifab compile` (skeleton).

/// Arguments of `aifab compile`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aifab compile`.
pub fn run(_args: Args) -> i32 {
    eprintln!("aifab compile: not implemented yet");
    super::EXIT_USAGE
}
