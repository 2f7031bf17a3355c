//! `aifab render`: write every device's configuration, or check it against golden files.

mod args;
mod print;
mod progress;

use super::lockfile::{failed, refused, say};
use super::{Exit, front_locked_or_exit, only_matcher, only_matches_some};
use aifab::publish::{LockPolicy, Plan, Render, Target};
use aifab::render::Meta;
pub(super) use args::{Args, OutputForm};
use progress::Progress;

/// What every `aifab render` works from once the intent has passed: the checked front, the renderer
/// and the transaction's plan.
struct Prepared<'a> {
    front: aifab::pipeline::Front,
    renderer: aifab::render::Renderer,
    plan: Plan<'a>,
}

/// Runs `aifab render`.
pub(super) fn run(args: Args) -> Exit {
    let target = match (&args.out, &args.check) {
        (Some(out), _) => Target::Out(out),
        (None, Some(dir)) => Target::Check {
            dir,
            bless: args.bless,
        },
        (None, None) => {
            eprintln!("error: give --out DIR to write, or --check DIR to compare");
            return Exit::Trouble;
        }
    };
    let only = match only_matcher(args.only.as_deref()) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let site = match super::site::Site::load(args.intent.as_ref(), &args.site) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let render = Render {
        intent: &args.intent,
        target,
        only: only.as_ref(),
        lock: LockPolicy {
            no_lock: args.no_lock,
            allow_renumber: args.allow_renumber,
            release: args.release,
        },
        catalog: site.catalog,
    };
    let p = match prepare(&args, &site, render) {
        Ok(p) => p,
        Err(status) => return status,
    };
    match target {
        Target::Out(out) => write_out(&args, p, out),
        Target::Check { dir, .. } => check_folder(&args, p, dir),
    }
}

/// Opens the transaction (journals settled, the lock read under its policy), checks and compiles the
/// intent while the templates compile and the lock is compared with its history, and (for `--out`)
/// reads the environment secrets the intent names. Every refusal is printed here.
fn prepare<'a>(
    args: &Args,
    site: &super::site::Site,
    render: Render<'a>,
) -> Result<Prepared<'a>, Exit> {
    site.admit(render.target.folder())?;
    let mut prev = render.open(&say).map_err(failed)?;
    // The templates compile (1-2 ms) on a second thread while this one reads and checks the intent;
    // their error, if any, is printed only for an intent that passed.
    let ((front, renderer), floor) = rayon::join(
        || {
            rayon::join(
                || {
                    let only = render.only;
                    front_locked_or_exit(
                        &args.intent,
                        args.quiet,
                        only,
                        prev.as_ref(),
                        site.catalog,
                    )
                },
                || site.build_renderer(),
            )
        },
        || render.history(prev.as_ref(), &say),
    );
    let floor = floor.map_err(refused)?;
    let front = front?;
    only_matches_some(&front.model, args.only.as_deref(), render.only)?;
    if let Some(p) = &mut prev {
        p.forget_text();
    }
    let renderer = renderer.map_err(|e| super::site::renderer_failed(&e))?;
    let renderer = match args.os {
        Some(OutputForm::Frr) => renderer.with_form(aifab::render::Form::Frr),
        None => renderer,
    };
    // Secrets named `{env: NAME}` are read only when writing: --check compares with placeholders.
    let renderer = match render.target {
        Target::Out(_) => super::site::with_secrets(renderer, &front, &args.intent, &site.env)?,
        Target::Check { .. } => renderer,
    };
    // An --only inventory lists the devices with a config in the folder (src/render/inventory.rs).
    let renderer = renderer.for_folder(render.target.folder());
    let plan = render.plan(prev, floor);
    Ok(Prepared {
        front,
        renderer,
        plan,
    })
}

/// `--out`: commits the transaction (every device's files streamed into the folder, the lock with
/// them) and says what it wrote.
fn write_out(args: &Args, p: Prepared, out: &std::path::Path) -> Exit {
    let Prepared {
        front,
        renderer,
        plan,
    } = p;
    let only = plan.render.only;
    let meta = Meta::for_intent_path(&args.intent, &front.model.name);
    let progress = Progress::new(front.model.devices.len() as u64, args.quiet);
    let result = plan.commit(&renderer, (&meta, &front.model), &|| progress.tick(), &say);
    progress.done();
    let devices = front
        .model
        .devices
        .iter()
        .filter(|d| only.is_none_or(|g| g.is_match(&d.hostname)))
        .count();
    let writes_hosts = front.model.hosts.is_some();
    // The process ends next: freeing a large model node by node (half a million interfaces at
    // 100K GPUs) would only delay the exit.
    std::mem::forget(front);
    match result {
        Ok(w) => print::written(args.quiet, out, &w, (devices, only.is_some(), writes_hosts)),
        Err(e) => failed(e),
    }
}

/// `--check`: decides the lock, renders into memory and compares with the folder (printing a unified
/// diff per differing file, no secret shown); with `--bless`, rewrites the folder and the lock
/// together instead.
fn check_folder(args: &Args, p: Prepared, dir: &std::path::Path) -> Exit {
    let Prepared {
        front,
        renderer,
        plan,
    } = p;
    let only = plan.render.only;
    let checking = match plan.checking(&front.model, &say) {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    let meta = Meta::for_intent_path(&args.intent, &front.model.name);
    let progress = Progress::new(front.model.devices.len() as u64, args.quiet);
    let files = renderer.fabric_with_progress(&meta, &front.model, only, &|| progress.tick());
    progress.done();
    let files = match files {
        Ok(f) => f,
        Err(errors) => return failed(aifab::publish::PublishError::Render { errors }),
    };
    match checking.check(&front.intent, &files) {
        Ok(checked) => print::checked(&args.intent, args.quiet, dir, &checked),
        Err(e) => failed(e),
    }
}
