//! The `aifab` binary: parses arguments and hands over to the library.

fn main() {
    std::process::exit(aifab::cli::main());
}
