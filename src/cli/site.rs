//! `--platforms DIR` and `--templates DIR` (render, validate, compile, diff), merged with the project
//! file (`aifab.yaml`, see [`aifab::project`]) into the catalog and renderer a command uses; and the
//! repository root of the run ([`aifab::boundary`]), which every folder a command reads or writes is
//! checked against.

use super::Exit;
use aifab::boundary::{Origin, Root};
use aifab::platform::Catalog;
use aifab::render::Renderer;
use std::path::{Path, PathBuf};

/// The extension flags, flattened into each command's arguments.
#[derive(clap::Args, Debug, Default, Clone)]
pub(crate) struct SiteArgs {
    /// Folder of extra platform files (`<os>.yaml` in the vendors/ format), merged with the built-in
    /// ones; overrides `platforms:` of the project file aifab.yaml.
    #[arg(long, value_name = "DIR")]
    pub platforms: Option<PathBuf>,
    /// Folder of templates (`<os>/<name>.j2`) that override or extend the built-in ones; overrides
    /// `templates:` of the project file aifab.yaml.
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
}

/// What a command renders with: the platform catalog and the site's template folder.
pub(super) struct Site {
    /// Built-in platforms plus the site's.
    pub catalog: &'static Catalog,
    /// The site's templates, if any.
    pub templates: Option<PathBuf>,
    /// The repository root around the intent: nothing outside it is read or written.
    pub root: Root,
    /// Which environment variables `{env: NAME}` secrets may name.
    pub env: aifab::render::secrets::EnvPolicy,
}

impl Site {
    /// The site for `intent`: flags first, then the project file. Prints every problem and returns the
    /// exit status on failure.
    pub(super) fn load(intent: &Path, args: &SiteArgs) -> Result<Site, Exit> {
        let ext =
            aifab::project::extensions(intent, args.platforms.clone(), args.templates.clone())
                .map_err(|e| {
                    eprintln!("error: {e}");
                    Exit::Trouble
                })?;
        let root = Root::of(intent);
        // A folder typed as a flag may lie outside the repository; one the project file names may not.
        let origin = |flag: &Option<PathBuf>| match flag {
            Some(_) => Origin::CommandLine,
            None => Origin::Repository,
        };
        for (dir, flag) in [
            (&ext.platforms, &args.platforms),
            (&ext.templates, &args.templates),
        ] {
            if let Some(dir) = dir {
                admit(&root, dir, origin(flag))?;
            }
        }
        let catalog = match &ext.platforms {
            None => Catalog::builtin(),
            Some(dir) => match Catalog::with_extensions(dir) {
                // One catalog per process, for the whole run (the renderer borrows it for 'static).
                Ok(c) => Box::leak(Box::new(c)),
                Err(errors) => {
                    for e in errors {
                        eprintln!("error: {e}");
                    }
                    return Err(Exit::Trouble);
                }
            },
        };
        Ok(Site {
            catalog,
            templates: ext.templates,
            root,
            env: ext.env_prefix,
        })
    }

    /// Refuses (exit 2, the refusal printed) a folder typed on the command line that leaves the
    /// repository through a link of it ([`Root::admit`]).
    pub(super) fn admit(&self, path: &Path) -> Result<(), Exit> {
        admit(&self.root, path, Origin::CommandLine)
    }

    /// The renderer with the site's templates.
    pub(super) fn renderer(&self) -> Result<Renderer, Exit> {
        self.build_renderer().map_err(|e| renderer_failed(&e))
    }

    /// [`Site::renderer`] without printing its error: for a renderer built beside another step, whose
    /// error is printed only when that step succeeded ([`renderer_failed`]).
    pub(super) fn build_renderer(&self) -> Result<Renderer, String> {
        Renderer::with_templates(self.catalog, self.templates.as_deref()).map_err(|e| e.to_string())
    }
}

/// [`Root::admit`], the refusal printed: nothing is read or written.
fn admit(root: &Root, path: &Path, origin: Origin) -> Result<(), Exit> {
    root.admit(path, origin).map_err(|e| {
        eprintln!("error: {e}; nothing read or written");
        Exit::Trouble
    })
}

/// Prints why the renderer could not be built; the command could not run.
pub(super) fn renderer_failed(e: &str) -> Exit {
    eprintln!("error: {e}");
    Exit::Trouble
}

/// The renderer with the values of the environment secrets the intent names (`{env: NAME}`); an unset
/// or unusable one, or one outside the prefix the project allows (`policy`, never read), is refused,
/// located in the intent. (`aifab drift --write` fills them the same way.)
pub(super) fn with_secrets(
    renderer: aifab::render::Renderer,
    front: &aifab::pipeline::Front,
    intent: &str,
    policy: &aifab::render::secrets::EnvPolicy,
) -> Result<aifab::render::Renderer, Exit> {
    let lookup = |k: &str| std::env::var(k).ok();
    match aifab::render::secrets::EnvSecrets::read(&front.intent, &lookup, policy) {
        Ok(values) => Ok(renderer.with_env_secrets(values)),
        Err(mut findings) => {
            aifab::pipeline::locate(&mut findings, &front.spans, &front.source);
            super::exit::print_findings(&front.source, &findings);
            eprintln!("{intent}: an environment secret is unset or unusable; nothing written");
            Err(Exit::Trouble)
        }
    }
}
