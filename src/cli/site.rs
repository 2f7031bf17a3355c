//! `--platforms DIR` and `--templates DIR` (render, validate, compile, diff), merged with the project
//! file (`aifab.yaml`, see [`aifab::project`]) into the catalog and renderer a command uses.

use super::Exit;
use aifab::platform::Catalog;
use aifab::render::Renderer;
use std::path::{Path, PathBuf};

/// The extension flags, flattened into each command's arguments.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct SiteArgs {
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
pub struct Site {
    /// Built-in platforms plus the site's.
    pub catalog: &'static Catalog,
    /// The site's templates, if any.
    pub templates: Option<PathBuf>,
}

impl Site {
    /// The site for `intent`: flags first, then the project file. Prints every problem and returns the
    /// exit status on failure.
    pub fn load(intent: &Path, args: &SiteArgs) -> Result<Site, Exit> {
        let ext =
            aifab::project::extensions(intent, args.platforms.clone(), args.templates.clone())
                .map_err(|e| {
                    eprintln!("error: {e}");
                    Exit::Trouble
                })?;
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
        })
    }

    /// The renderer with the site's templates.
    pub fn renderer(&self) -> Result<Renderer, Exit> {
        self.build_renderer().map_err(|e| renderer_failed(&e))
    }

    /// [`Site::renderer`] without printing its error: for a renderer built beside another step, whose
    /// error is printed only when that step succeeded ([`renderer_failed`]).
    pub fn build_renderer(&self) -> Result<Renderer, String> {
        Renderer::with_templates(self.catalog, self.templates.as_deref())
    }
}

/// Prints why the renderer could not be built; the command could not run.
pub fn renderer_failed(e: &str) -> Exit {
    eprintln!("error: {e}");
    Exit::Trouble
}
