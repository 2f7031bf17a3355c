//! The integration tests, one module per feature, in one test binary (`cargo test --test it`; one
//! module: `cargo test --test it golden::`). Helpers every module shares are in `common`; test data
//! (intents that must fail, SONiC fixtures, site files) stays in the folders beside this one under `tests/`.

// The 100-line limit (Cargo.toml [lints], clippy.toml) is for src/: a test that walks a whole table
// or playbook reads better in one piece.
#![allow(clippy::too_many_lines)]
// `unreachable_pub` (Cargo.toml [lints]) keeps src/'s internals `pub(crate)`; the test crate has no
// API, and its shared helpers in `common` are `pub` for the modules beside it.
#![allow(unreachable_pub)]

mod common;
#[allow(dead_code)] // the benchmark's fabrics; the compile and meaning tests use some
#[path = "../../src/bench/fabrics.rs"]
mod fabrics;
// The fuzz harness (fuzz/src/lib.rs and mutate.rs), built here so that `cargo test` breaks when an API
// it calls changes; tests/it/fuzz_regressions.rs runs it on the seeds and the regressions.
#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod fuzz_harness;

mod ansible;
mod baseline;
mod boundary;
mod breakout;
mod checks;
mod compile;
mod converge;
mod dcim;
mod deadlock;
mod delivery;
mod diff;
mod drift;
mod durable;
mod ecmp_buffers;
mod every_field;
mod field_walk;
mod fuzz_regressions;
mod generated;
mod golden;
mod homing;
mod hosts;
mod journal;
mod layers;
mod lock;
mod lock_history;
mod mask;
mod matrix;
mod meaning;
mod only_fast;
mod os_views;
mod plan;
mod push;
mod render_cli;
mod rollout;
mod safety;
mod schema_fresh;
mod site;
mod sonic_frr;
mod sonic_patch;
mod sonic_sku;
mod sonic_yang;
mod stable;
mod standalone;
mod tour;
mod transaction;
mod twin;
mod unused_ports;
mod validate;
mod vendors;
mod verify;
mod verify_anta;
