//! `aifab schema`: prints the intent JSON Schema or the Markdown reference generated from it, the
//! lock file's JSON Schema (`--lock`), or the JSON Schema of a platform file (`--platforms`).

use super::Exit;
use std::io::Write;

/// Output format of `aifab schema`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// JSON Schema (draft 2020-12), pretty-printed: `schema/intent.schema.json`.
    #[default]
    Json,
    /// The intent reference in Markdown: `docs/intent-reference.md`.
    Markdown,
}

/// Arguments of `aifab schema`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// The lock file's JSON Schema instead (`<intent>.lock.yaml`, docs/lock.md).
    #[arg(long, conflicts_with_all = ["format", "platforms"])]
    pub lock: bool,
    /// Print the JSON Schema of a platform file (`vendors/<os>.yaml`, or a site's `--platforms` file)
    /// instead of the intent's.
    #[arg(long, conflicts_with = "format")]
    pub platforms: bool,
}

/// The text `aifab schema --format <format>` prints (ends with a newline).
pub(super) fn text(format: Format) -> String {
    match format {
        Format::Json => aifab::validate::schema_json(),
        Format::Markdown => aifab::validate::markdown_reference(),
    }
}

/// Runs `aifab schema`.
pub(super) fn run(args: Args) -> Exit {
    let out = if args.lock {
        aifab::lock::schema_json()
    } else if args.platforms {
        aifab::platform::schema_json()
    } else {
        text(args.format)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Exit::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Success,
        Err(e) => {
            eprintln!("aifab schema: cannot write to stdout: {e}");
            Exit::Trouble
        }
    }
}
