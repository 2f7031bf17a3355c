//! `aifab bench`: generate fabrics of published sizes and time every phase (load+validate, check,
//! compile, render, write), with switches per second and peak RSS. Each size runs in its own process so
//! its peak RSS is its own. Build with `--release` for meaningful numbers.

use super::Exit;
use crate::bench::{SIZES, Timings, measure, table};

/// Arguments of `aifab bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Sizes to run: 1k, 24k, 100k (default: all).
    #[arg(long, value_delimiter = ',')]
    pub size: Vec<String>,
    /// Folder for the rendered output (one sub-folder per size; default: a temporary folder, removed).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Print the generated intent of one size and exit.
    #[arg(long)]
    pub print_intent: Option<String>,
    /// Internal: run one size in this process and print its timings as JSON.
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

/// Runs `aifab bench`.
pub fn run(args: Args) -> Exit {
    if let Some(size) = &args.print_intent {
        return match crate::bench::intent_yaml(size, 1) {
            Some(y) => {
                super::emit(&y);
                Exit::Success
            }
            None => {
                eprintln!(
                    "error: unknown size {size}; use one of {}",
                    SIZES.join(", ")
                );
                Exit::Trouble
            }
        };
    }
    let base = args.out.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("aifab-bench-{}", std::process::id()))
    });
    if let Some(size) = &args.child {
        return match measure(size, &base.join(size)) {
            Ok(t) => {
                super::emit(&format!(
                    "{}\n",
                    serde_json::to_string(&t).unwrap_or_default()
                ));
                Exit::Success
            }
            Err(e) => {
                eprintln!("error: {e}");
                Exit::Trouble
            }
        };
    }
    let sizes: Vec<String> = if args.size.is_empty() {
        SIZES.iter().map(|s| s.to_string()).collect()
    } else {
        args.size.clone()
    };
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("error: cannot find the aifab binary to run each size");
        return Exit::Trouble;
    };
    if cfg!(debug_assertions) {
        eprintln!(
            "note: this is a debug build; run `cargo run --release -- bench` for real numbers"
        );
    }
    let mut rows: Vec<Timings> = Vec::new();
    for s in &sizes {
        eprintln!("bench {s} ...");
        let out = std::process::Command::new(&exe)
            .args(["bench", "--child", s, "--out"])
            .arg(&base)
            .output();
        match out {
            Ok(o) if o.status.success() => match serde_json::from_slice::<Timings>(&o.stdout) {
                Ok(t) => rows.push(t),
                Err(e) => {
                    eprintln!("error: {s}: {e}");
                    return Exit::Trouble;
                }
            },
            Ok(o) => {
                eprintln!("error: {s}: {}", String::from_utf8_lossy(&o.stderr));
                return Exit::Trouble;
            }
            Err(e) => {
                eprintln!("error: {s}: {e}");
                return Exit::Trouble;
            }
        }
    }
    if args.out.is_none() {
        let _ = std::fs::remove_dir_all(&base);
    }
    super::emit(&table(&rows));
    Exit::Success
}
