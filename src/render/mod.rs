//! Rendering: each device's files, as each OS's `vendors/<os>.yaml` lists them: printed by the
//! minijinja templates of `templates/<os>/`, or built as typed data by the per-OS layer ([`crate::os`]).
//!
//! Templates are compiled into the binary (see `build.rs`) and parsed once per [`Renderer`]. Devices
//! render in parallel and come back in model order, so the output is byte-identical whatever the thread
//! count.

use crate::model::{Device, FabricModel};
use crate::os::sonic;
use crate::platform::{Builder, Catalog, OutputSpec, Platform, Producer, TemplateContext};
use minijinja::value::Serde;
use minijinja::{Environment, UndefinedBehavior, Value, context};
use rayon::prelude::*;

pub use crate::output::{Meta, OutFile, intent_label};
pub use areas::Area;
pub use error::{RenderError, RenderErrors};

/// What a consumer of rendered files (the writer) returns when it cannot take one.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

mod areas;
mod error;
mod format;
pub mod hosts;
pub mod inventory;
pub mod secrets;
mod site;

/// The prefix under which every built-in template stays reachable when a site template overrides it:
/// `{% extends "builtin/eos/device.j2" %}`.
pub const BUILTIN: &str = "builtin/";

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// Which configs a render prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// Each device in its own OS, as its `vendors/<os>.yaml` lists the files, with the inventory and
    /// the host files.
    #[default]
    Native,
    /// Every device's routing as FRR (`<hostname>/frr.conf`, [`crate::os::frr`]), whatever its OS:
    /// for FRR-based switches, labs and `aifab twin`. No inventory and no host files.
    Frr,
}

impl Form {
    /// The path of a device's FRR config in the output folder.
    pub fn frr_path(hostname: &str) -> String {
        format!("{hostname}/frr.conf")
    }
}

/// A parsed template set, the platform catalog and the per-OS builders.
pub struct Renderer {
    env: Environment<'static>,
    catalog: &'static Catalog,
    config_db: sonic::ConfigDbBuilder,
    env_secrets: Option<secrets::EnvSecrets>,
    /// The output folder an `--only` render goes into: its inventory lists the matched devices and the
    /// others whose config the folder holds ([`inventory::Listed`]).
    folder: Option<std::path::PathBuf>,
    form: Form,
}

impl Renderer {
    /// The built-in templates.
    pub fn new(catalog: &'static Catalog) -> Result<Renderer, RenderError> {
        Renderer::with_templates(catalog, None)
    }

    /// The built-in templates, then, with a site's templates from `dir` (`<dir>/<os>/<name>.j2`), each
    /// built-in one also under `builtin/<os>/<name>` (for the site's `{% extends %}`) and the site's,
    /// which override built-in ones of the same name. Templates read only what the built-in ones read (`view`/`generated` and `meta`: values
    /// validated before render), have no loader (no file outside the set), no auto-escaping, and their
    /// output goes through the same control-character check.
    pub fn with_templates(
        catalog: &'static Catalog,
        dir: Option<&std::path::Path>,
    ) -> Result<Renderer, RenderError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_formatter(format::format);
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(RenderError::Syntax)?;
        env.set_syntax(syntax);
        for (name, src) in embedded::TEMPLATES {
            env.add_template(name, src)
                .map_err(|source| RenderError::Template {
                    name: name.to_string(),
                    source,
                })?;
        }
        if let Some(dir) = dir {
            // Only a site's templates can name `builtin/...`: the second copies are compiled for them
            // alone (compiling every template twice was half the renderer's start-up).
            for (name, src) in embedded::TEMPLATES {
                env.add_template_owned(format!("{BUILTIN}{name}"), *src)
                    .map_err(|source| RenderError::Template {
                        name: name.to_string(),
                        source,
                    })?;
            }
            for (name, src) in site::templates(dir)? {
                env.add_template_owned(name.clone(), src)
                    .map_err(|source| RenderError::SiteTemplate {
                        dir: dir.to_path_buf(),
                        name: name.clone(),
                        source,
                    })?;
            }
        }
        Ok(Renderer {
            env,
            catalog,
            config_db: sonic::ConfigDbBuilder::new(),
            env_secrets: None,
            folder: None,
            form: Form::Native,
        })
    }

    /// This renderer, printing `form`.
    pub fn with_form(mut self, form: Form) -> Renderer {
        self.form = form;
        self
    }

    /// This renderer, filling the `AIFAB_ENV(NAME)` placeholders with `values` (`aifab render --out`
    /// only: every other output keeps the placeholders).
    pub fn with_env_secrets(mut self, values: secrets::EnvSecrets) -> Renderer {
        self.env_secrets = Some(values);
        self
    }

    /// This renderer, rendering into (or comparing with) `dir`: a render narrowed by `only` lists in
    /// the inventory only the devices that have a config there after it, the matched ones and those whose
    /// file `dir` already holds (no entry the playbooks would push nothing to).
    pub fn for_folder(mut self, dir: &std::path::Path) -> Renderer {
        self.folder = Some(dir.to_path_buf());
        self
    }

    /// The inventory of a render narrowed by `only` (whole without).
    fn inventory(&self, model: &FabricModel, only: Option<&globset::GlobMatcher>) -> OutFile {
        let listed = inventory::Listed::new(only, self.folder.as_deref(), self.catalog);
        inventory::inventory_of(model, self.catalog, &listed)
    }

    /// Whether this renderer fills secrets from the environment into what it renders (their files hold
    /// the secrets in clear).
    pub fn fills_secrets(&self) -> bool {
        self.env_secrets.as_ref().is_some_and(|s| !s.is_empty())
    }

    /// Template names, for tests.
    pub fn template_names() -> Vec<&'static str> {
        embedded::TEMPLATES.iter().map(|(n, _)| *n).collect()
    }

    /// Renders every file of one device.
    pub fn device(&self, meta: &Meta, d: &Device) -> Result<Vec<OutFile>, RenderError> {
        if self.form == Form::Frr {
            return self.frr_device(meta, d).map(|f| vec![f]);
        }
        let (platform, outputs) = self.outputs_of(d)?;
        let mut files = Vec::with_capacity(outputs.len());
        for o in outputs {
            let content = match o.producer()? {
                Producer::Builder(b) => self.build(b, d, platform)?,
                Producer::Template(template, wants) => {
                    let ctx =
                        Self::context(wants, meta, d, platform).map_err(|e| e.of(&d.hostname))?;
                    self.template(d, template, &ctx)?
                }
            };
            let content = match &self.env_secrets {
                Some(s) => s.fill(content),
                None => content,
            };
            check_lines(&content).map_err(|e| in_file(e, &o.file).of(&d.hostname))?;
            files.push(OutFile {
                path: o.file.replace("{hostname}", &d.hostname),
                content,
                device: d.hostname.clone(),
            });
        }
        Ok(files)
    }

    /// A device's platform and the files its OS renders (`outputs:` of `vendors/<os>.yaml`).
    fn outputs_of(
        &self,
        d: &Device,
    ) -> Result<(&'static Platform, &'static [OutputSpec]), RenderError> {
        let (_, platform) =
            self.catalog
                .get(&d.platform)
                .ok_or_else(|| RenderError::UnknownPlatform {
                    host: d.hostname.to_string(),
                    platform: d.platform.to_string(),
                })?;
        let outputs = self
            .catalog
            .outputs
            .get(&d.os)
            .ok_or(RenderError::NoOutputs(d.os))?;
        Ok((platform, outputs))
    }

    /// Every file of one device cut into its config areas ([`areas`]), in file order: what the
    /// per-feature goldens of `golden/features/` show. Each area comes from the same template (one of
    /// its `*_section` blocks) or builder, with the same context, as the file itself; secrets stay
    /// placeholders. Always the native form ([`Form::Native`]); a site's device template shows the
    /// `*_section` blocks its own source declares.
    pub fn areas(&self, meta: &Meta, d: &Device) -> Result<Vec<Area>, RenderError> {
        let (platform, outputs) = self.outputs_of(d)?;
        let mut out = Vec::new();
        for o in outputs {
            let file = o.file.replace("{hostname}", &d.hostname);
            let found = match o.producer()? {
                Producer::Builder(b) => {
                    let name = match b {
                        Builder::ConfigDb => "config_db",
                    };
                    areas::of_built(&file, name, self.build(b, d, platform)?)
                }
                Producer::Template(template, wants) => {
                    let ctx = Self::context(wants, meta, d, platform)?;
                    let name = format!("{}/{template}", d.os.as_str());
                    let tmpl = self.env.get_template(&name).map_err(RenderError::Jinja)?;
                    areas::of_template(&file, &name, &tmpl, &ctx)
                }
            };
            out.extend(found.map_err(|e| e.of(&d.hostname))?);
        }
        Ok(out)
    }

    /// The FRR config of one device (`templates/frr/frr.conf.j2` printing [`crate::os::frr::view`]).
    fn frr_device(&self, meta: &Meta, d: &Device) -> Result<OutFile, RenderError> {
        let ctx = context! {
            meta => Value::from(Serde(meta)),
            view => Value::from(Serde(crate::os::frr::view(d)?)),
        };
        let tmpl = self
            .env
            .get_template("frr/frr.conf.j2")
            .map_err(|e| RenderError::Jinja(e).of(&d.hostname))?;
        let content = tmpl.render(ctx).map_err(|source| {
            RenderError::Print {
                name: "frr/frr.conf.j2".to_string(),
                source,
            }
            .of(&d.hostname)
        })?;
        let content = tidy_text(content);
        check_lines(&content).map_err(|e| in_file(e, "frr.conf").of(&d.hostname))?;
        Ok(OutFile {
            path: Form::frr_path(&d.hostname),
            content,
            device: d.hostname.clone(),
        })
    }

    /// A file the per-OS layer builds.
    fn build(&self, b: Builder, d: &Device, platform: &Platform) -> Result<String, RenderError> {
        match b {
            Builder::ConfigDb => Ok(self.config_db.file(d, platform)?),
        }
    }

    /// What a template reads: `meta` and the per-OS layer's values for it, nothing else.
    fn context(
        wants: TemplateContext,
        meta: &Meta,
        d: &Device,
        platform: &Platform,
    ) -> Result<Value, RenderError> {
        let meta = Value::from(Serde(meta));
        Ok(match wants {
            TemplateContext::NxosView => context! {
                meta,
                view => Value::from(Serde(crate::os::nxos::view(d, platform))),
            },
            TemplateContext::EosView => context! {
                meta,
                view => Value::from(Serde(crate::os::eos::view(d, platform)?)),
            },
            TemplateContext::SonicGenerated => context! {
                meta,
                generated => Value::from(Serde(sonic::Generated::new(d, platform)?)),
            },
        })
    }

    /// Renders template `templates/<os>/<template>` as text.
    fn template(&self, d: &Device, template: &str, ctx: &Value) -> Result<String, RenderError> {
        let name = format!("{}/{template}", d.os.as_str());
        let tmpl = self
            .env
            .get_template(&name)
            .map_err(|e| RenderError::Jinja(e).of(&d.hostname))?;
        let raw = tmpl
            .render(ctx)
            .map_err(|source| RenderError::Print { name, source }.of(&d.hostname))?;
        Ok(tidy_text(raw))
    }

    /// Renders every device of a fabric, in parallel, in model order. `only` narrows to some devices.
    pub fn fabric(
        &self,
        meta: &Meta,
        model: &FabricModel,
        only: Option<&globset::GlobMatcher>,
    ) -> Result<Vec<OutFile>, Vec<RenderError>> {
        self.fabric_with_progress(meta, model, only, &|| {})
    }

    /// Renders every device in parallel and hands each file to `sink` as soon as it exists (for
    /// streaming writes: the fabric's output is never all in memory); the inventory and the host files
    /// ([`hosts`], not with `only`) are built beside the devices, so that their one-file parts
    /// do not run alone at the end. Calls `tick` after each device. Returns the number of files and
    /// bytes, or every error.
    pub fn fabric_each(
        &self,
        meta: &Meta,
        model: &FabricModel,
        only: Option<&globset::GlobMatcher>,
        sink: &(dyn Fn(&OutFile) -> Result<(), SinkError> + Sync),
        tick: &(dyn Fn() + Sync),
    ) -> Result<(usize, u64), Vec<RenderError>> {
        // Per device, its file count and bytes.
        let devices = || -> Vec<Result<(usize, u64), RenderError>> {
            model
                .devices
                .par_iter()
                .filter(|d| only.is_none_or(|g| g.is_match(&d.hostname)))
                .map(|d| {
                    let files = self.device(meta, d)?;
                    let mut bytes = 0;
                    for f in &files {
                        sink(f).map_err(RenderError::Sink)?;
                        bytes += f.content.len() as u64;
                    }
                    tick();
                    Ok((files.len(), bytes))
                })
                .collect()
        };
        let native = self.form == Form::Native;
        let inventory = || {
            if !native {
                return Ok((0, 0));
            }
            let inv = self.inventory(model, only);
            sink(&inv)
                .map(|()| (1, inv.content.len() as u64))
                .map_err(RenderError::Sink)
        };
        // The host files need every server link: a render narrowed by `only` keeps the old ones.
        let hosts = || match only {
            _ if !native => Ok((0, 0)),
            Some(_) => Ok((0, 0)),
            None => hosts::each(meta, model, sink).map_err(RenderError::Hosts),
        };
        let (devices, (inv, hosts)) = rayon::join(devices, || rayon::join(inventory, hosts));
        let mut errs = Vec::new();
        let (mut n, mut bytes) = (0, 0);
        for r in devices.into_iter().chain([inv, hosts]) {
            match r {
                Ok((a, b)) => {
                    n += a;
                    bytes += b;
                }
                Err(e) => errs.push(e),
            }
        }
        if errs.is_empty() {
            Ok((n, bytes))
        } else {
            Err(errs)
        }
    }

    /// [`Renderer::fabric`], calling `tick` after each device (for a progress bar).
    pub fn fabric_with_progress(
        &self,
        meta: &Meta,
        model: &FabricModel,
        only: Option<&globset::GlobMatcher>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<OutFile>, Vec<RenderError>> {
        let results: Vec<Result<Vec<OutFile>, RenderError>> = model
            .devices
            .par_iter()
            .filter(|d| only.is_none_or(|g| g.is_match(&d.hostname)))
            .map(|d| {
                let r = self.device(meta, d);
                tick();
                r
            })
            .collect();
        let mut files = Vec::new();
        let mut errs = Vec::new();
        for r in results {
            match r {
                Ok(f) => files.extend(f),
                Err(e) => errs.push(e),
            }
        }
        if self.form == Form::Frr {
            return if errs.is_empty() {
                Ok(files)
            } else {
                Err(errs)
            };
        }
        files.push(self.inventory(model, only));
        if only.is_none() {
            match hosts::files(meta, model) {
                Ok(h) => files.extend(h),
                Err(e) => errs.push(RenderError::Hosts(e)),
            }
        }
        if errs.is_empty() {
            Ok(files)
        } else {
            Err(errs)
        }
    }
}

/// `e`, of file `file` of a device.
fn in_file(e: RenderError, file: &str) -> RenderError {
    RenderError::File {
        file: file.to_string(),
        source: Box::new(e),
    }
}

/// Trailing whitespace off every line, exactly one final newline. Templates rarely leave anything to
/// tidy: a text that is already tidy is returned as it is, without a copy.
fn tidy_text(raw: String) -> String {
    if is_tidy(&raw) {
        return raw;
    }
    let mut out = String::with_capacity(raw.len());
    for line in raw.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// True when [`tidy_text`] would change nothing: no line ends in whitespace before its `\n`, and the
/// text ends with exactly one `\n` (or is empty). One branch-free pass over byte pairs that the
/// compiler vectorizes; a line ending in any non-ASCII byte counts as untidy (it may be Unicode
/// whitespace) and takes the careful path.
fn is_tidy(text: &str) -> bool {
    let b = text.as_bytes();
    if b.is_empty() {
        return true;
    }
    if !text.ends_with('\n') || text.ends_with("\n\n") {
        return false;
    }
    let ends_in_space =
        |x: u8| (x == b' ') | (x == b'\t') | (x == 0x0b) | (x == 0x0c) | (x == b'\r') | (x >= 0x80);
    let untidy = (b[..b.len() - 1].iter().zip(&b[1..])).fold(false, |any, (&x, &y)| {
        any | ((y == b'\n') & ends_in_space(x))
    });
    !untidy
}

/// Defence in depth: no control character (C0, DEL, C1) other than newline, tab and the `\r` of a
/// `\r\n` may reach a config. Scans bytes: a C1 control is `0xC2 0x80..=0x9F` in UTF-8.
fn check_lines(content: &str) -> Result<(), RenderError> {
    let b = content.as_bytes();
    if !suspect(b) {
        return Ok(());
    }
    let bad = b.iter().enumerate().position(|(i, &c)| match c {
        b'\n' | b'\t' => false,
        b'\r' => b.get(i + 1) != Some(&b'\n'),
        0..=0x1f | 0x7f => true,
        0xc2 => b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
        _ => false,
    });
    match bad {
        Some(at) => {
            let line = b[..at].iter().filter(|&&c| c == b'\n').count() + 1;
            Err(RenderError::Control(line))
        }
        None => Ok(()),
    }
}

/// False when `b` holds no byte [`check_lines`] needs to look at: no control character other than
/// newline and tab, no DEL, no `0xC2` (the lead byte of a C1 control). One branch-free pass over
/// 64-byte blocks that the compiler vectorizes; text that is suspect takes the careful path.
fn suspect(b: &[u8]) -> bool {
    let odd = |c: u8| ((c < 0x20) & (c != b'\n') & (c != b'\t')) | (c == 0x7f) | (c == 0xc2);
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(false, |any, &c| any | odd(c)) {
            return true;
        }
    }
    blocks.remainder().iter().any(|&c| odd(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_cannot_carry_a_line_break() {
        let m = Meta::new("p\nusername evil privilege 15\r\u{2028}.yaml", "f\u{85}x");
        assert_eq!(m.intent_file, "p?username evil privilege 15??.yaml");
        assert_eq!(m.fabric, "f?x");
        let m = Meta::new("a ; feature nxapi \u{2014} é.yaml", "f");
        assert_eq!(m.intent_file, "a ? feature nxapi ? ?.yaml");
    }

    #[test]
    fn text_is_tidy() {
        assert_eq!(tidy_text("a  \nb\n\n\n".into()), "a\nb\n");
        for text in [
            "",
            "a\n",
            "a\n\n",
            "a",
            "a \nb\n",
            "a\r\nb\n",
            "a\u{a0}\n",
            "\n",
            "x\t\n",
            "é\n",
        ] {
            let slow: String = text
                .lines()
                .map(|l| format!("{}\n", l.trim_end()))
                .collect();
            let slow =
                slow.trim_end_matches('\n').to_string() + if slow.is_empty() { "" } else { "\n" };
            assert!(!is_tidy(text) || text == slow, "{text:?}");
            assert_eq!(tidy_text(text.into()), slow, "{text:?}");
        }
        assert!(is_tidy("a\nb\n") && is_tidy("") && !is_tidy("a \nb\n") && !is_tidy("a\n\n"));
        let long = "interface Ethernet1\n".repeat(10) + "x\u{1}\n";
        assert!(suspect(long.as_bytes()) && check_lines(&long).is_err());
        assert!(!suspect("a\tb é\u{2014}\n".repeat(20).as_bytes()));
        assert_eq!(
            check_lines("ok\nbad\u{7}\n").map_err(|e| e.to_string()),
            Err("line 2 contains a control character".to_string())
        );
        for bad in ["a\rb", "x\n\u{85}", "\u{7f}", "\u{0}", "\r"] {
            assert!(check_lines(bad).is_err(), "{bad:?}");
        }
        for good in ["a\r\nb\tc\n", "é\u{a0}\u{2014}", ""] {
            assert!(check_lines(good).is_ok(), "{good:?}");
        }
    }
}
