//! Fuzzer bytes → a list of edits applied to one of the example intents (see `aifab_fuzz::mutate`) →
//! the whole pipeline. Reaches compile and render far more often than random YAML does.
//!
//! `AIFAB_FUZZ_PRINT=1 cargo fuzz run mutate_intent <input>` prints the intent an input decodes to
//! (to stderr) before running it: that is how a crash found here becomes a YAML regression file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn print() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| std::env::var_os("AIFAB_FUZZ_PRINT").is_some())
}

fuzz_target!(|data: &[u8]| {
    let mut u = arbitrary::Unstructured::new(data);
    if let Ok(text) = aifab_fuzz::mutate::generate(&mut u) {
        if print() {
            eprintln!("----- intent -----\n{text}----- end -----");
        }
        aifab_fuzz::exercise(&text);
    }
});
