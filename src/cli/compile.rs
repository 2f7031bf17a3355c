//! `aifab compile`: print the compiled, vendor-neutral device model.

use super::{Exit, front_or_exit, only_matcher, only_matches_some};

/// Arguments of `aifab compile`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file.
    pub intent: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Only devices whose hostname matches this glob (`su1-*`).
    #[arg(long)]
    pub only: Option<String>,
    /// No warnings on stderr (the output on stdout is the same).
    #[arg(long, short)]
    pub quiet: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// Model output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum Format {
    /// Pretty JSON.
    Json,
    /// YAML.
    Yaml,
}

/// Runs `aifab compile`.
pub(super) fn run(args: Args) -> Exit {
    let only = match only_matcher(args.only.as_deref()) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let site = match super::site::Site::load(args.intent.as_ref(), &args.site) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let front = match front_or_exit(&args.intent, args.quiet, only.as_ref(), site.catalog) {
        Ok(f) => f,
        Err(status) => return status,
    };
    if let Err(status) = only_matches_some(&front.model, args.only.as_deref(), only.as_ref()) {
        return status;
    }
    let mut model = front.model;
    if let Some(g) = &only {
        model.devices.retain(|d| g.is_match(&d.hostname));
        model
            .links
            .retain(|l| g.is_match(&*l.a) || g.is_match(&*l.b));
    }
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&model).map(|mut s| {
            s.push('\n');
            s
        }),
        Format::Yaml => serde_norway::to_string(&model)
            .map_err(|e| serde_json::Error::io(std::io::Error::other(e.to_string()))),
    };
    match text {
        Ok(t) => {
            super::emit(&t);
            Exit::Success
        }
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Trouble
        }
    }
}
