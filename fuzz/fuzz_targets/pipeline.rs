//! Arbitrary bytes → lossy UTF-8 → the whole pipeline (load, schema, checks, compile, diagnostics,
//! render). Seed it with `intents/*.yaml` and `tests/bad/*.yaml` (see docs/fuzzing.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    aifab_fuzz::exercise_bytes(data);
});
