//! `aifab schema` (skeleton).

/// Arguments of `aifab schema`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aifab schema`.
pub fn run(_args: Args) -> i32 {
    eprintln!("aifab schema: not implemented yet");
    super::EXIT_USAGE
}
