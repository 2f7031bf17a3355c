//! The crate's module tree and every path its code names, read with a real Rust parser (`syn`), so a
//! use cannot hide after a `#[cfg(test)]` item, in a macro's arguments, inside a function or an
//! inline module. `src/lib.rs` and `src/main.rs` are read as one tree: the binary's `aifab::x` is the
//! library's `crate::x`.
//!
//! Test code is left out on purpose, and only test code: an item under `#[cfg(test)]` (a `mod tests`,
//! a helper) is compiled into the test build alone, where it may build its fixture with a later stage
//! (a unit test of `check` reading a compiled model) without making the shipped stages depend on each
//! other. Everything after it in the same file is read as any other code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path from the crate root (`["render", "hosts", "nccl"]`; the root is empty).
pub type ModPath = Vec<String>;

/// One dependency: code of module `from` (in `file` at `line`) names something of module `to`.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The module whose code names the other.
    pub from: ModPath,
    /// The module named (the deepest module of the path).
    pub to: ModPath,
    /// The file the code is in, as read (`src/render/hosts/nccl.rs`).
    pub file: PathBuf,
    /// Its line.
    pub line: usize,
}

/// The crate as read: its modules and the edges between them.
#[derive(Debug, Default)]
pub struct Crate {
    /// Every module, the root included.
    pub modules: BTreeSet<ModPath>,
    /// The file each module's own code starts in (`mod.rs` for a folder; an inline module its file's).
    pub files: BTreeMap<ModPath, PathBuf>,
    /// Every edge to another module, in file order.
    pub edges: Vec<Edge>,
    /// How many `#[cfg(test)]` items were left out (a reader that skips everything reports 0 here).
    pub test_items: usize,
}

/// A path as the code wrote it, before resolution.
struct Named {
    module: ModPath,
    segments: Vec<String>,
    file: PathBuf,
    line: usize,
}

/// A `use` as written: the name it binds in `module` (None for a glob) and the path it binds.
struct Import {
    module: ModPath,
    name: Option<String>,
    segments: Vec<String>,
}

#[derive(Default)]
struct Reader {
    modules: BTreeSet<ModPath>,
    files: BTreeMap<ModPath, PathBuf>,
    named: Vec<Named>,
    imports: Vec<Import>,
    test_items: usize,
    problems: Vec<String>,
}

/// Reads the crate whose roots are `src/lib.rs` and `src/main.rs` under `src` (either may be missing).
pub fn read(src: &Path) -> Result<Crate, String> {
    let mut reader = Reader::default();
    reader.modules.insert(Vec::new());
    let mut found = false;
    for root in ["lib.rs", "main.rs"] {
        let file = src.join(root);
        if file.is_file() {
            found = true;
            reader.files.entry(Vec::new()).or_insert(file.clone());
            reader.read_file(&file, Vec::new(), src.to_path_buf());
        }
    }
    if !found {
        return Err(format!("{} has neither lib.rs nor main.rs", src.display()));
    }
    if !reader.problems.is_empty() {
        return Err(reader.problems.join("\n"));
    }
    Ok(reader.resolve())
}

impl Reader {
    /// Reads one file holding module `module`, whose child module files are in `dir`.
    fn read_file(&mut self, file: &Path, module: ModPath, dir: PathBuf) {
        let parsed = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|text| syn::parse_file(&text).map_err(|e| e.to_string()));
        match parsed {
            Ok(ast) => {
                let mut visitor = FileVisitor {
                    reader: self,
                    file,
                    module,
                    dir,
                };
                visitor.visit_file(&ast);
            }
            Err(e) => self
                .problems
                .push(format!("{}: cannot parse: {e}", file.display())),
        }
    }

    /// Resolves every named path against the whole module tree.
    fn resolve(self) -> Crate {
        let mut uses: BTreeMap<(ModPath, String), Vec<String>> = BTreeMap::new();
        let mut globs: BTreeMap<ModPath, Vec<Vec<String>>> = BTreeMap::new();
        for import in &self.imports {
            match &import.name {
                Some(name) => {
                    uses.insert(
                        (import.module.clone(), name.clone()),
                        import.segments.clone(),
                    );
                }
                None => globs
                    .entry(import.module.clone())
                    .or_default()
                    .push(import.segments.clone()),
            }
        }
        let resolver = Resolver {
            modules: &self.modules,
            uses: &uses,
            globs: &globs,
        };
        let edges = self
            .named
            .iter()
            .filter_map(|n| {
                let to = resolver.module_of(&n.module, &n.segments)?;
                (to != n.module && !to.is_empty()).then(|| Edge {
                    from: n.module.clone(),
                    to,
                    file: n.file.clone(),
                    line: n.line,
                })
            })
            .collect();
        Crate {
            modules: self.modules,
            files: self.files,
            edges,
            test_items: self.test_items,
        }
    }
}

/// Name resolution, enough for module edges: `crate::`/`aifab::`, `super::`, `self::`, a child
/// module's name, a name a `use` bound (re-exports followed), a glob import's module.
struct Resolver<'a> {
    modules: &'a BTreeSet<ModPath>,
    uses: &'a BTreeMap<(ModPath, String), Vec<String>>,
    globs: &'a BTreeMap<ModPath, Vec<Vec<String>>>,
}

impl Resolver<'_> {
    /// The deepest module the path `segments`, written in `module`, names; None outside the crate.
    fn module_of(&self, module: &ModPath, segments: &[String]) -> Option<ModPath> {
        let absolute = self.absolute(module, segments, 0)?;
        Some(self.follow(absolute, 0))
    }

    /// `segments` written in `module` as a path from the crate root.
    fn absolute(&self, module: &ModPath, segments: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 8 {
            return None; // a `use` chain that names itself
        }
        let (first, rest) = segments.split_first()?;
        let mut base = module.clone();
        match first.as_str() {
            "crate" | "aifab" => base.clear(),
            "self" => {}
            "super" => {
                let mut rest = rest;
                base.pop()?;
                while let Some(("super", more)) = rest.split_first().map(|(s, m)| (s.as_str(), m)) {
                    base.pop()?;
                    rest = more;
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            name => {
                let mut child = module.clone();
                child.push(name.to_string());
                if self.modules.contains(&child) {
                    child.extend(rest.iter().cloned());
                    return Some(child);
                }
                let key = (module.clone(), name.to_string());
                if let Some(bound) = self.uses.get(&key) {
                    let mut path = self.absolute(module, bound, depth + 1)?;
                    path.extend(rest.iter().cloned());
                    return Some(path);
                }
                let glob = self.globs.get(module).into_iter().flatten().find_map(|g| {
                    let mut path = self.absolute(module, g, depth + 1)?;
                    path.push(name.to_string());
                    self.modules.contains(&path).then_some(path)
                })?;
                let mut path = glob;
                path.extend(rest.iter().cloned());
                return Some(path);
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The deepest module of an absolute path, following a name a module re-exports with `use`
    /// (`render::hosts::Plan` bound by `pub use nic_qos::Plan` is `render::hosts::nic_qos`'s).
    fn follow(&self, path: Vec<String>, depth: usize) -> ModPath {
        let mut module = path.clone();
        while !self.modules.contains(&module) {
            module.pop();
        }
        if let Some(next) = path.get(module.len()).filter(|_| depth < 8) {
            let key = (module.clone(), next.clone());
            if let Some(bound) = self.uses.get(&key)
                && let Some(mut target) = self.absolute(&module, bound, 0)
            {
                target.extend(path[module.len() + 1..].iter().cloned());
                if target != path {
                    return self.follow(target, depth + 1);
                }
            }
        }
        module
    }
}

struct FileVisitor<'r, 'f> {
    reader: &'r mut Reader,
    file: &'f Path,
    module: ModPath,
    dir: PathBuf,
}

/// Whether the attributes put an item under `#[cfg(test)]` (also `cfg(all(test, ...))`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                let t: String = l.tokens.to_string().split_whitespace().collect();
                t == "test" || t.starts_with("all(test,")
            })
    })
}

/// The attributes of any item.
fn attrs_of(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

impl FileVisitor<'_, '_> {
    fn name(&mut self, segments: Vec<String>, line: usize) {
        self.reader.named.push(Named {
            module: self.module.clone(),
            segments,
            file: self.file.to_path_buf(),
            line,
        });
    }

    /// Every `a::b::c` chain in a macro's tokens (`format!("{}", crate::spell::n(x))`).
    fn macro_paths(&mut self, tokens: TokenStream) {
        let mut chain: Vec<String> = Vec::new();
        let mut line = 0;
        let mut colons = 0;
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if chain.is_empty() || colons == 2 => {
                    if chain.is_empty() {
                        line = ident.span().start().line;
                    }
                    chain.push(ident.to_string());
                    colons = 0;
                }
                TokenTree::Punct(p) if p.as_char() == ':' && !chain.is_empty() && colons < 2 => {
                    colons += 1
                }
                other => {
                    if chain.len() > 1 {
                        self.name(std::mem::take(&mut chain), line);
                    }
                    chain.clear();
                    colons = 0;
                    if let TokenTree::Ident(ident) = other {
                        line = ident.span().start().line;
                        chain.push(ident.to_string());
                    } else if let TokenTree::Group(group) = other {
                        self.macro_paths(group.stream());
                    }
                }
            }
        }
        if chain.len() > 1 {
            self.name(chain, line);
        }
    }

    /// Every path a `use` tree binds, with the name it binds (None for a glob).
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        let (name, path) = match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
                return;
            }
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item);
                }
                return;
            }
            syn::UseTree::Name(n) if n.ident == "self" => (prefix.last().cloned(), prefix.clone()),
            syn::UseTree::Name(n) => (Some(n.ident.to_string()), with(prefix, &n.ident)),
            syn::UseTree::Rename(r) => (Some(r.rename.to_string()), with(prefix, &r.ident)),
            syn::UseTree::Glob(_) => (None, prefix.clone()),
        };
        let line = match tree {
            syn::UseTree::Name(n) => n.ident.span().start().line,
            syn::UseTree::Rename(r) => r.ident.span().start().line,
            syn::UseTree::Glob(g) => g.star_token.spans[0].start().line,
            _ => 0,
        };
        self.name(path.clone(), line);
        self.reader.imports.push(Import {
            module: self.module.clone(),
            name,
            segments: path,
        });
    }

    /// A `mod x;` or `mod x { ... }` item.
    fn module(&mut self, item: &syn::ItemMod) {
        let name = item.ident.to_string();
        let mut module = self.module.clone();
        module.push(name.clone());
        self.reader.modules.insert(module.clone());
        let child_dir = self.dir.join(&name);
        if item.attrs.iter().any(|a| a.path().is_ident("path")) {
            self.reader.problems.push(format!(
                "{}: `mod {name}` has a #[path]: the layer reader does not follow it; add it to tests/it/layers/code.rs",
                self.file.display()
            ));
            return;
        }
        if let Some((_, items)) = &item.content {
            self.reader
                .files
                .entry(module.clone())
                .or_insert(self.file.to_path_buf());
            let outer = std::mem::replace(&mut self.module, module);
            let outer_dir = std::mem::replace(&mut self.dir, child_dir);
            for i in items {
                self.visit_item(i);
            }
            self.module = outer;
            self.dir = outer_dir;
            return;
        }
        let flat = self.dir.join(format!("{name}.rs"));
        let (file, dir) = if flat.is_file() {
            (flat, child_dir)
        } else {
            (child_dir.join("mod.rs"), child_dir)
        };
        if !file.is_file() {
            self.reader.problems.push(format!(
                "{}: `mod {name};` has no file {}",
                self.file.display(),
                file.display()
            ));
            return;
        }
        self.reader.files.insert(module.clone(), file.clone());
        self.reader.read_file(&file, module, dir);
    }
}

fn with(prefix: &[String], ident: &syn::Ident) -> Vec<String> {
    let mut path = prefix.to_vec();
    path.push(ident.to_string());
    path
}

impl<'ast> Visit<'ast> for FileVisitor<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test(attrs_of(item)) {
            self.reader.test_items += 1;
            return;
        }
        match item {
            syn::Item::Mod(m) => self.module(m),
            syn::Item::Use(u) => self.use_tree(&mut Vec::new(), &u.tree),
            other => syn::visit::visit_item(self, other),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Fn(f) => &f.attrs[..],
            syn::ImplItem::Const(c) => &c.attrs[..],
            syn::ImplItem::Type(t) => &t.attrs[..],
            _ => &[],
        };
        if is_test(attrs) {
            self.reader.test_items += 1;
            return;
        }
        syn::visit::visit_impl_item(self, item);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            let line = path
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.name(segments, line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.macro_paths(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// One place a shipped function (or item) carries an error as text: a `Result<_, String>` or
/// `Result<_, Vec<String>>` (also `Ok::<_, String>`/`Err::<_, String>`) outside test code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    /// The file, as read (`src/write/mod.rs`).
    pub file: PathBuf,
    /// Its line.
    pub line: usize,
    /// The function (`Type::method` in an impl) or item the type is written in.
    pub item: String,
}

/// Every [`TextError`] in the crate under `src`, in file order: the files are the module tree's (a
/// file that only `#[cfg(test)] mod tests;` brings in is not read), `#[cfg(test)]` items left out.
pub fn text_errors(src: &Path) -> Result<Vec<TextError>, String> {
    let krate = read(src)?;
    let files: BTreeSet<&PathBuf> = krate.files.values().collect();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut v = TextErrors {
            file,
            items: Vec::new(),
            found: &mut found,
        };
        v.visit_file(&ast);
    }
    Ok(found)
}

struct TextErrors<'a> {
    file: &'a Path,
    /// The enclosing items' names, outermost first.
    items: Vec<String>,
    found: &'a mut Vec<TextError>,
}

/// The last segment of type `ty`, when it is a path.
fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

/// Whether `ty` is `String` (any path ending so: `std::string::String`).
fn is_string(ty: &syn::Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "String" && s.arguments.is_empty())
}

/// Whether `ty` is `String` or `Vec<String>`.
fn is_text(ty: &syn::Type) -> bool {
    if is_string(ty) {
        return true;
    }
    let Some(seg) = last_segment(ty).filter(|s| s.ident == "Vec") else {
        return false;
    };
    matches!(&seg.arguments, syn::PathArguments::AngleBracketed(a)
        if matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if is_string(t)))
}

impl TextErrors<'_> {
    fn within(&mut self, name: String, visit: impl FnOnce(&mut Self)) {
        self.items.push(name);
        visit(self);
        self.items.pop();
    }
}

impl<'ast> Visit<'ast> for TextErrors<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test(attrs_of(item)) {
            return;
        }
        let name = match item {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            syn::Item::Type(t) => Some(t.ident.to_string()),
            syn::Item::Trait(t) => Some(t.ident.to_string()),
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            syn::Item::Impl(i) => Some(match &*i.self_ty {
                syn::Type::Path(p) => p
                    .path
                    .segments
                    .last()
                    .map_or_else(String::new, |s| s.ident.to_string()),
                _ => String::from("impl"),
            }),
            _ => None,
        };
        match name {
            Some(n) => self.within(n, |v| syn::visit::visit_item(v, item)),
            None => syn::visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        match item {
            syn::ImplItem::Fn(f) if is_test(&f.attrs) => {}
            syn::ImplItem::Fn(f) => self.within(f.sig.ident.to_string(), |v| {
                syn::visit::visit_impl_item(v, item)
            }),
            _ => syn::visit::visit_impl_item(self, item),
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        match item {
            syn::TraitItem::Fn(f) => self.within(f.sig.ident.to_string(), |v| {
                syn::visit::visit_trait_item(v, item)
            }),
            _ => syn::visit::visit_trait_item(self, item),
        }
    }

    fn visit_path_segment(&mut self, seg: &'ast syn::PathSegment) {
        if ["Result", "Ok", "Err"].iter().any(|n| seg.ident == n)
            && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
        {
            let types: Vec<&syn::Type> = a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect();
            if let [_, error] = types[..]
                && is_text(error)
            {
                self.found.push(TextError {
                    file: self.file.to_path_buf(),
                    line: seg.ident.span().start().line,
                    item: self.items.join("::"),
                });
            }
        }
        syn::visit::visit_path_segment(self, seg);
    }
}
