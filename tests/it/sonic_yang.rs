//! SONiC YANG validation: every rendered `config_db.json` must be accepted by SONiC's own YANG models,
//! as `config reload <file>` would check it.
//!
//! `yanglint` cannot read config_db.json directly, so this file carries a translator from config_db
//! JSON to RFC 7951 YANG JSON that follows `sonic_yang_ext.py` (sonic-buildimage `src/sonic-yang-mgmt/sonic_yang_ext.py`):
//! table → the module whose top container holds `container <TABLE>`; key `a|b|c` → the list whose `key`
//! has that many leaves; Type-1 maps (`{"26": "3"}`) → an inner list; singleton containers
//! (`DEVICE_METADATA|localhost`); scalars per RFC 7951 ((u)int8-32 as JSON numbers, (u)int64 and
//! decimal64 as strings, booleans as true/false). Like SONiC ("All Keys are not parsed", and
//! `config reload` aborting on tables without a model) it refuses every table and field the YANG does
//! not have, so a successful translation also proves every emitted table and field exists.
//!
//! The translator is checked against the reference translation of the validated example
//! (`sonic-example/config_db.yang.json`), then every SONiC device of every example intent is rendered,
//! translated and run through `yanglint -p <yang dir> -t config <all modules> <file>`. Deliberately
//! broken variants (`tests/sonic_broken/*.json`, RFC 6902 patches over a rendered leaf) must fail, each
//! for its own reason.
//!
//! Each check runs once per SONiC release, with that release's models and a schema loaded from them:
//! master (`sonic-yang/`) and the 202405 release branch (`sonic-releases/202405/yang/`), which lacks
//! tables and fields master added since.
//!
//! yanglint is Debian's `libyang2-tools`; the YANG models and the reference example come from the
//! `shared/` folder beside the repository (`AIFAB_SONIC_YANG_DIR` overrides the master YANG folder). A
//! fresh clone has neither: the tests then print one line and skip; under `CI=true` they fail.

use crate::common;

use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

// ------------------------------------------------------------------------------------------------
// YANG statement parser: enough of RFC 7950 §6 (tokens, quoting, `+` concatenation, comments).
// ------------------------------------------------------------------------------------------------

/// One YANG statement: keyword, argument, sub-statements.
#[derive(Debug)]
struct Stmt {
    kw: String,
    arg: String,
    sub: Vec<Stmt>,
}

impl Stmt {
    fn all<'a>(&'a self, kw: &'a str) -> impl Iterator<Item = &'a Stmt> + 'a {
        self.sub.iter().filter(move |s| s.kw == kw)
    }
    fn one(&self, kw: &str) -> Option<&Stmt> {
        self.sub.iter().find(|s| s.kw == kw)
    }
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Open,
    Close,
    Semi,
}

fn tokenize(src: &str) -> Result<Vec<Tok>, String> {
    let c: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if ch == '+'
            && c.get(i + 1)
                .is_none_or(|n| n.is_whitespace() || *n == '"' || *n == '\'')
        {
            // The concatenation operator, also when written `+"…"`.
            out.push(Tok::Word("+".into()));
            i += 1;
        } else if ch == '{' {
            out.push(Tok::Open);
            i += 1;
        } else if ch == '}' {
            out.push(Tok::Close);
            i += 1;
        } else if ch == ';' {
            out.push(Tok::Semi);
            i += 1;
        } else if ch == '"' {
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' && i + 1 < c.len() {
                    i += 1;
                    s.push(match c[i] {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                } else {
                    s.push(c[i]);
                }
                i += 1;
            }
            if i >= c.len() {
                return Err("unterminated double-quoted string".into());
            }
            i += 1;
            out.push(Tok::Quoted(s));
        } else if ch == '\'' {
            let start = i + 1;
            i = start;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            if i >= c.len() {
                return Err("unterminated single-quoted string".into());
            }
            out.push(Tok::Quoted(c[start..i].iter().collect()));
            i += 1;
        } else {
            let start = i;
            while i < c.len() && !c[i].is_whitespace() && !matches!(c[i], '{' | '}' | ';') {
                i += 1;
            }
            out.push(Tok::Word(c[start..i].iter().collect()));
        }
    }
    Ok(out)
}

fn parse_stmts(toks: &[Tok], i: &mut usize, nested: bool) -> Result<Vec<Stmt>, String> {
    let mut out = Vec::new();
    loop {
        match toks.get(*i) {
            None if nested => return Err("missing `}`".into()),
            None => return Ok(out),
            Some(Tok::Close) if nested => {
                *i += 1;
                return Ok(out);
            }
            Some(Tok::Word(kw)) => {
                *i += 1;
                let mut arg = String::new();
                match toks.get(*i) {
                    Some(Tok::Word(w)) => {
                        arg = w.clone();
                        *i += 1;
                    }
                    Some(Tok::Quoted(q)) => {
                        arg = q.clone();
                        *i += 1;
                        // "a" + "b"
                        while toks.get(*i) == Some(&Tok::Word("+".into())) {
                            match toks.get(*i + 1) {
                                Some(Tok::Quoted(q)) => arg.push_str(q),
                                other => return Err(format!("`+` followed by {other:?}")),
                            }
                            *i += 2;
                        }
                    }
                    _ => {}
                }
                let sub = match toks.get(*i) {
                    Some(Tok::Semi) => {
                        *i += 1;
                        Vec::new()
                    }
                    Some(Tok::Open) => {
                        *i += 1;
                        parse_stmts(toks, i, true)?
                    }
                    other => return Err(format!("statement `{kw} {arg}` ends with {other:?}")),
                };
                out.push(Stmt {
                    kw: kw.clone(),
                    arg,
                    sub,
                });
            }
            Some(other) => return Err(format!("unexpected token {other:?}")),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Schema: the data nodes of every module, with each leaf's JSON encoding resolved.
// ------------------------------------------------------------------------------------------------

/// How a leaf's value is written in RFC 7951 JSON.
#[derive(Clone, Debug, PartialEq)]
enum Enc {
    /// (u)int8/16/32: a JSON number.
    Num,
    /// (u)int64, decimal64: a JSON string holding a number.
    Str64,
    /// boolean.
    Bool,
    /// empty: `[null]`.
    Empty,
    /// Everything else: a JSON string.
    Str,
    /// union: the first member type that takes the value.
    Union(Vec<Enc>),
}

/// A leaf type before leafrefs are followed.
#[derive(Clone, Debug)]
enum Ty {
    Enc(Enc),
    Union(Vec<Ty>),
    /// A leafref: its path, the module the path is written in (for prefixes), and the data path of
    /// the leaf (module, node names from the top container) for relative paths.
    Leafref {
        path: String,
        written_in: String,
        data_module: String,
        at: Vec<String>,
    },
}

#[derive(Debug)]
enum Node {
    Container {
        name: String,
        children: Vec<Node>,
    },
    List {
        name: String,
        keys: Vec<String>,
        children: Vec<Node>,
    },
    Leaf {
        name: String,
        ty: Ty,
    },
    LeafList {
        name: String,
        ty: Ty,
    },
}

impl Node {
    fn name(&self) -> &str {
        match self {
            Node::Container { name, .. }
            | Node::List { name, .. }
            | Node::Leaf { name, .. }
            | Node::LeafList { name, .. } => name,
        }
    }
    fn children(&self) -> &[Node] {
        match self {
            Node::Container { children, .. } | Node::List { children, .. } => children,
            _ => &[],
        }
    }
    fn child(&self, name: &str) -> Option<&Node> {
        self.children().iter().find(|c| c.name() == name)
    }
}

struct Module {
    name: String,
    prefix: String,
    /// Import prefix → module name.
    imports: HashMap<String, String>,
    body: Vec<Stmt>,
}

/// All modules of the YANG directory, their top containers, and the table index.
struct Schema {
    /// Module name → top container (`sonic-x`).
    tops: BTreeMap<String, Node>,
    /// config_db table → module name.
    tables: BTreeMap<String, String>,
    /// Module name → (its prefix, import prefix → module), for leafref path prefixes.
    prefixes: HashMap<String, (String, HashMap<String, String>)>,
}

/// Types of the IETF modules libyang has built in (they are not in the SONiC YANG directory):
/// the integer typedefs of ietf-inet-types / ietf-yang-types (RFC 6991); all others are strings.
fn ietf_builtin(module: &str, name: &str) -> Option<Enc> {
    match (module, name) {
        ("ietf-inet-types", "as-number" | "port-number" | "dscp" | "ipv6-flow-label") => {
            Some(Enc::Num)
        }
        (
            "ietf-yang-types",
            "counter32" | "zero-based-counter32" | "gauge32" | "timeticks" | "timestamp",
        ) => Some(Enc::Num),
        ("ietf-yang-types", "counter64" | "zero-based-counter64" | "gauge64") => Some(Enc::Str64),
        ("ietf-inet-types" | "ietf-yang-types", _) => Some(Enc::Str),
        _ => None,
    }
}

struct Builder<'a> {
    modules: &'a BTreeMap<String, Module>,
}

impl<'a> Builder<'a> {
    /// The module a prefix names, seen from module `ctx`.
    fn module_of(&self, ctx: &str, prefix: &str) -> Result<String, String> {
        let m = &self.modules[ctx];
        if prefix == m.prefix {
            return Ok(ctx.to_string());
        }
        m.imports
            .get(prefix)
            .cloned()
            .ok_or_else(|| format!("{ctx}: unknown prefix `{prefix}`"))
    }

    /// Finds `kw name` in the scope stack (innermost first) or at the top of module `ctx`.
    fn find(
        &self,
        kw: &str,
        qname: &str,
        ctx: &str,
        scope: &[&'a [Stmt]],
    ) -> Result<(String, Vec<&'a [Stmt]>, &'a Stmt), String> {
        let (module, name) = match qname.split_once(':') {
            Some((p, n)) => (self.module_of(ctx, p)?, n),
            None => (ctx.to_string(), qname),
        };
        if module == ctx {
            for depth in (0..scope.len()).rev() {
                if let Some(s) = scope[depth].iter().find(|s| s.kw == kw && s.arg == name) {
                    return Ok((module, scope[..=depth].to_vec(), s));
                }
            }
        }
        let m = self
            .modules
            .get(&module)
            .ok_or_else(|| format!("{kw} {qname}: module {module} is not in the YANG directory"))?;
        let s = m
            .body
            .iter()
            .find(|s| s.kw == kw && s.arg == name)
            .ok_or_else(|| format!("{kw} {qname} not found in {module}"))?;
        Ok((module, vec![m.body.as_slice()], s))
    }

    fn ty(
        &self,
        t: &'a Stmt,
        ctx: &str,
        scope: &[&'a [Stmt]],
        data_module: &str,
        at: &[String],
    ) -> Result<Ty, String> {
        let enc = match t.arg.as_str() {
            "int8" | "int16" | "int32" | "uint8" | "uint16" | "uint32" => Enc::Num,
            "int64" | "uint64" | "decimal64" => Enc::Str64,
            "boolean" => Enc::Bool,
            "empty" => Enc::Empty,
            "string"
            | "enumeration"
            | "bits"
            | "binary"
            | "identityref"
            | "instance-identifier" => Enc::Str,
            "union" => {
                let members = t
                    .all("type")
                    .map(|m| self.ty(m, ctx, scope, data_module, at))
                    .collect::<Result<_, _>>()?;
                return Ok(Ty::Union(members));
            }
            "leafref" => {
                let path = t
                    .one("path")
                    .ok_or_else(|| format!("{ctx}: leafref without path"))?;
                return Ok(Ty::Leafref {
                    path: path.arg.clone(),
                    written_in: ctx.to_string(),
                    data_module: data_module.to_string(),
                    at: at.to_vec(),
                });
            }
            name => {
                if let Some((p, n)) = name.split_once(':') {
                    let module = self.module_of(ctx, p)?;
                    if !self.modules.contains_key(&module) {
                        return ietf_builtin(&module, n)
                            .map(Ty::Enc)
                            .ok_or_else(|| format!("type {name}: module {module} not available"));
                    }
                }
                let (module, tscope, def) = self.find("typedef", name, ctx, scope)?;
                let inner = def
                    .one("type")
                    .ok_or_else(|| format!("typedef {name} without type"))?;
                return self.ty(inner, &module, &tscope, data_module, at);
            }
        };
        Ok(Ty::Enc(enc))
    }

    /// Compiles the data nodes among `stmts`: choices, cases and uses are flattened away.
    fn nodes(
        &self,
        stmts: &'a [Stmt],
        ctx: &str,
        scope: &[&'a [Stmt]],
        data_module: &str,
        at: &[String],
    ) -> Result<Vec<Node>, String> {
        let mut out = Vec::new();
        for s in stmts {
            let mut here = at.to_vec();
            here.push(s.arg.clone());
            let mut inner = scope.to_vec();
            inner.push(s.sub.as_slice());
            match s.kw.as_str() {
                "container" => out.push(Node::Container {
                    name: s.arg.clone(),
                    children: self.nodes(&s.sub, ctx, &inner, data_module, &here)?,
                }),
                "list" => out.push(Node::List {
                    name: s.arg.clone(),
                    keys: s
                        .one("key")
                        .map(|k| k.arg.split_whitespace().map(String::from).collect())
                        .unwrap_or_default(),
                    children: self.nodes(&s.sub, ctx, &inner, data_module, &here)?,
                }),
                "leaf" | "leaf-list" => {
                    let t = s
                        .one("type")
                        .ok_or_else(|| format!("{ctx}: {} without type", s.arg))?;
                    let ty = self.ty(t, ctx, scope, data_module, &here)?;
                    out.push(if s.kw == "leaf" {
                        Node::Leaf {
                            name: s.arg.clone(),
                            ty,
                        }
                    } else {
                        Node::LeafList {
                            name: s.arg.clone(),
                            ty,
                        }
                    });
                }
                "choice" | "case" => {
                    out.extend(self.nodes(&s.sub, ctx, &inner, data_module, at)?)
                }
                "uses" => {
                    let (module, gscope, g) = self.find("grouping", &s.arg, ctx, scope)?;
                    let mut gscope = gscope;
                    gscope.push(g.sub.as_slice());
                    out.extend(self.nodes(&g.sub, &module, &gscope, data_module, at)?);
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

impl Schema {
    fn load(dir: &Path) -> Result<Schema, String> {
        let mut modules = BTreeMap::new();
        for path in yang_files(dir)? {
            let src =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let toks = tokenize(&src).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut i = 0;
            let mut top = parse_stmts(&toks, &mut i, false)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let m = top
                .pop()
                .filter(|m| m.kw == "module")
                .ok_or_else(|| format!("{}: not a module", path.display()))?;
            let prefix = m.one("prefix").map(|p| p.arg.clone()).unwrap_or_default();
            let imports = m
                .all("import")
                .map(|i| {
                    (
                        i.one("prefix").map(|p| p.arg.clone()).unwrap_or_default(),
                        i.arg.clone(),
                    )
                })
                .collect();
            modules.insert(
                m.arg.clone(),
                Module {
                    name: m.arg.clone(),
                    prefix,
                    imports,
                    body: m.sub,
                },
            );
        }
        let b = Builder { modules: &modules };
        let mut tops = BTreeMap::new();
        let mut tables = BTreeMap::new();
        for m in modules.values() {
            let scope = [m.body.as_slice()];
            for c in m.body.iter().filter(|s| s.kw == "container") {
                let mut inner = scope.to_vec();
                inner.push(c.sub.as_slice());
                let at = vec![c.arg.clone()];
                let children = b
                    .nodes(&c.sub, &m.name, &inner, &m.name, &at)
                    .map_err(|e| format!("{}: {e}", m.name))?;
                for t in children
                    .iter()
                    .filter(|n| matches!(n, Node::Container { .. }))
                {
                    if let Some(other) = tables.insert(t.name().to_string(), m.name.clone()) {
                        return Err(format!(
                            "table {} is in both {other} and {}",
                            t.name(),
                            m.name
                        ));
                    }
                }
                tops.insert(
                    m.name.clone(),
                    Node::Container {
                        name: c.arg.clone(),
                        children,
                    },
                );
            }
        }
        let prefixes = modules
            .values()
            .map(|m| (m.name.clone(), (m.prefix.clone(), m.imports.clone())))
            .collect();
        Ok(Schema {
            tops,
            tables,
            prefixes,
        })
    }

    /// Follows leafrefs to the encoding of their target.
    fn enc(&self, ty: &Ty, depth: usize) -> Result<Enc, String> {
        if depth > 16 {
            return Err("leafref chain too deep".into());
        }
        match ty {
            Ty::Enc(e) => Ok(e.clone()),
            Ty::Union(members) => Ok(Enc::Union(
                members
                    .iter()
                    .map(|m| self.enc(m, depth + 1))
                    .collect::<Result<_, _>>()?,
            )),
            Ty::Leafref {
                path,
                written_in,
                data_module,
                at,
            } => {
                let target = self.leafref_target(path, written_in, data_module, at)?;
                match target {
                    Node::Leaf { ty, .. } | Node::LeafList { ty, .. } => self.enc(ty, depth + 1),
                    _ => Err(format!("leafref {path} does not point at a leaf")),
                }
            }
        }
    }

    fn leafref_target(
        &self,
        path: &str,
        written_in: &str,
        data_module: &str,
        at: &[String],
    ) -> Result<&Node, String> {
        // Drop predicates: [..] never change which schema node a path names.
        let mut bare = String::new();
        let mut depth = 0;
        for ch in path.chars() {
            match ch {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ if depth == 0 && !ch.is_whitespace() => bare.push(ch),
                _ => {}
            }
        }
        let steps: Vec<&str> = bare.split('/').filter(|s| !s.is_empty()).collect();
        let local = |s: &str| s.rsplit(':').next().unwrap_or(s).to_string();
        let (module, names): (String, Vec<String>) = if bare.starts_with('/') {
            let first = steps
                .first()
                .ok_or_else(|| format!("empty leafref path {path}"))?;
            let module = match first.split_once(':') {
                Some((p, _)) => {
                    if p == self.prefix_of(written_in) {
                        written_in.to_string()
                    } else {
                        self.import_of(written_in, p)
                            .ok_or_else(|| format!("{written_in}: unknown prefix {p} in {path}"))?
                    }
                }
                None => written_in.to_string(),
            };
            (module, steps.iter().map(|s| local(s)).collect())
        } else {
            // Relative: the context node is the leaf itself (RFC 7950 §9.9.2), `..` is its parent.
            let mut names: Vec<String> = at.to_vec();
            for s in &steps {
                if *s == ".." {
                    names
                        .pop()
                        .ok_or_else(|| format!("leafref {path} climbs above the top"))?;
                } else if *s != "." && !s.starts_with("current()") {
                    names.push(local(s));
                }
            }
            (data_module.to_string(), names)
        };
        let top = self
            .tops
            .get(&module)
            .ok_or_else(|| format!("leafref {path}: no data module {module}"))?;
        if names.first().map(String::as_str) != Some(top.name()) {
            return Err(format!("leafref {path}: does not start at {}", top.name()));
        }
        let mut node = top;
        for n in &names[1..] {
            node = node
                .child(n)
                .ok_or_else(|| format!("leafref {path}: no node {n}"))?;
        }
        Ok(node)
    }

    fn prefix_of(&self, module: &str) -> String {
        self.prefixes
            .get(module)
            .map(|(p, _)| p.clone())
            .unwrap_or_default()
    }

    fn import_of(&self, module: &str, prefix: &str) -> Option<String> {
        self.prefixes
            .get(module)
            .and_then(|(_, i)| i.get(prefix).cloned())
    }
}

fn yang_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yang"))
        .collect();
    v.sort();
    Ok(v)
}

// ------------------------------------------------------------------------------------------------
// Translation: config_db JSON → RFC 7951 YANG JSON.
// ------------------------------------------------------------------------------------------------

/// A config_db string in the leaf's RFC 7951 encoding. Values that do not fit are passed on as strings
/// for yanglint to reject.
fn encode(enc: &Enc, s: &str) -> Value {
    fn takes(enc: &Enc, s: &str) -> Option<Value> {
        match enc {
            Enc::Num => s.parse::<i64>().ok().map(Value::from),
            Enc::Str64 => s.parse::<i128>().ok().map(|_| Value::from(s)),
            Enc::Bool => match s {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            Enc::Empty => (s.is_empty()).then(|| json!([null])),
            Enc::Str => Some(Value::from(s)),
            Enc::Union(members) => members.iter().find_map(|m| takes(m, s)),
        }
    }
    takes(enc, s).unwrap_or_else(|| Value::from(s))
}

impl Schema {
    /// Translates a whole config_db.json. Errors list every table and field without a YANG node.
    fn translate(&self, db: &Value) -> Result<Value, Vec<String>> {
        let mut out = Map::new();
        let mut errors = Vec::new();
        let Some(db) = db.as_object() else {
            return Err(vec!["config_db.json is not an object".into()]);
        };
        for (table, entries) in db {
            let Some(module) = self.tables.get(table) else {
                errors.push(format!(
                    "table {table} has no YANG model (config reload would abort)"
                ));
                continue;
            };
            let top = &self.tops[module];
            let container = top.child(table).expect("indexed table");
            let Some(entries) = entries.as_object() else {
                errors.push(format!("{table}: not an object"));
                continue;
            };
            let mut t = Map::new();
            for (key, fields) in entries {
                if let Err(e) = self.entry(table, container, key, fields, &mut t) {
                    errors.push(e);
                }
            }
            let m = out
                .entry(format!("{module}:{}", top.name()))
                .or_insert_with(|| Value::Object(Map::new()));
            m.as_object_mut()
                .unwrap()
                .insert(format!("{module}:{table}"), Value::Object(t));
        }
        if errors.is_empty() {
            Ok(Value::Object(out))
        } else {
            Err(errors)
        }
    }

    fn entry(
        &self,
        table: &str,
        container: &Node,
        key: &str,
        fields: &Value,
        out: &mut Map<String, Value>,
    ) -> Result<(), String> {
        let fields = fields
            .as_object()
            .ok_or_else(|| format!("{table}|{key}: not an object"))?;
        // Singleton containers (DEVICE_METADATA|localhost).
        if let Some(c @ Node::Container { .. }) = container.child(key) {
            let mut obj = Map::new();
            self.fields(table, key, c, &[], fields, &mut obj)?;
            out.insert(key.to_string(), Value::Object(obj));
            return Ok(());
        }
        let parts: Vec<&str> = key.split('|').collect();
        let lists: Vec<&Node> = container
            .children()
            .iter()
            .filter(|n| matches!(n, Node::List { keys, .. } if keys.len() == parts.len()))
            .collect();
        let list = match lists.as_slice() {
            [one] => *one,
            [] => {
                return Err(format!(
                    "{table}|{key}: no list of {table} has {} key leaves",
                    parts.len()
                ));
            }
            _ => {
                return Err(format!(
                    "{table}|{key}: ambiguous, several lists have {} key leaves",
                    parts.len()
                ));
            }
        };
        let Node::List {
            name,
            keys,
            children,
        } = list
        else {
            unreachable!()
        };
        let mut obj = Map::new();
        for (k, v) in keys.iter().zip(&parts) {
            obj.insert(
                k.clone(),
                self.leaf_value(table, key, list, k, &Value::from(*v))?,
            );
        }
        let inner: Vec<&Node> = children
            .iter()
            .filter(|n| matches!(n, Node::List { .. }))
            .collect();
        if let [
            map @ Node::List {
                name: map_name,
                keys: map_keys,
                children: map_children,
            },
        ] = inner.as_slice()
        {
            // Type-1 map: {"<k>": "<v>"} → inner list of {key leaf, value leaf}.
            let value_leaf = map_children
                .iter()
                .find(|c| !map_keys.iter().any(|k| k == c.name()))
                .ok_or_else(|| format!("{table}: map {map_name} has no value leaf"))?;
            let mut rows = Vec::new();
            for (k, v) in fields {
                let mut row = Map::new();
                row.insert(
                    map_keys[0].clone(),
                    self.leaf_value(table, key, map, &map_keys[0], &Value::from(k.as_str()))?,
                );
                row.insert(
                    value_leaf.name().to_string(),
                    self.leaf_value(table, key, map, value_leaf.name(), v)?,
                );
                rows.push(Value::Object(row));
            }
            obj.insert(map_name.clone(), Value::Array(rows));
        } else {
            self.fields(table, key, list, keys, fields, &mut obj)?;
        }
        out.entry(name.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .unwrap()
            .push(Value::Object(obj));
        Ok(())
    }

    fn fields(
        &self,
        table: &str,
        key: &str,
        node: &Node,
        keys: &[String],
        fields: &Map<String, Value>,
        out: &mut Map<String, Value>,
    ) -> Result<(), String> {
        let mut unknown = Vec::new();
        for (f, v) in fields {
            if keys.contains(f)
                || !matches!(
                    node.child(f),
                    Some(Node::Leaf { .. } | Node::LeafList { .. })
                )
            {
                unknown.push(f.clone());
                continue;
            }
            out.insert(f.clone(), self.leaf_value(table, key, node, f, v)?);
        }
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "All Keys are not parsed in {table}|{key}: no YANG leaf for {unknown:?}"
            ))
        }
    }

    fn leaf_value(
        &self,
        table: &str,
        key: &str,
        parent: &Node,
        leaf: &str,
        v: &Value,
    ) -> Result<Value, String> {
        let at = || format!("{table}|{key} {leaf}");
        match (parent.child(leaf), v) {
            (Some(Node::Leaf { ty, .. }), Value::String(s)) => Ok(encode(
                &self.enc(ty, 0).map_err(|e| format!("{}: {e}", at()))?,
                s,
            )),
            (Some(Node::LeafList { ty, .. }), Value::Array(items)) => {
                let enc = self.enc(ty, 0).map_err(|e| format!("{}: {e}", at()))?;
                items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(|s| encode(&enc, s))
                            .ok_or_else(|| format!("{}: list item {i} is not a string", at()))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
            (Some(Node::LeafList { ty, .. }), Value::String(s))
                if string_leaf_list(table, leaf).is_some() =>
            {
                let sep = string_leaf_list(table, leaf).unwrap_or(',');
                let enc = self.enc(ty, 0).map_err(|e| format!("{}: {e}", at()))?;
                Ok(Value::Array(
                    s.split(sep).map(|i| encode(&enc, i.trim())).collect(),
                ))
            }
            (Some(Node::Leaf { .. }), _) => {
                Err(format!("{}: config_db values are strings, got {v}", at()))
            }
            (Some(Node::LeafList { .. }), _) => {
                Err(format!("{}: a leaf-list takes a JSON array, got {v}", at()))
            }
            _ => Err(format!("{}: no such leaf", at())),
        }
    }
}

/// The separator of a leaf-list config_db keeps as one string, as `sonic_yang_ext.py`'s
/// `LEAF_LIST_WITH_STRING_VALUE_DICT` lists them (`"a,b"` for `["a", "b"]`); None for the others,
/// which must be JSON arrays.
fn string_leaf_list(table: &str, leaf: &str) -> Option<char> {
    const LISTS: [(&str, &str, char); 8] = [
        ("MIRROR_SESSION", "src_ip", ','),
        ("NTP", "src_intf", ';'),
        ("BGP_ALLOWED_PREFIXES", "prefixes_v4", ','),
        ("BGP_ALLOWED_PREFIXES", "prefixes_v6", ','),
        ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list", ','),
        ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list", ','),
        ("PORT", "adv_speeds", ','),
        ("PORT", "adv_interface_types", ','),
    ];
    LISTS
        .iter()
        .find(|(t, l, _)| *t == table && *l == leaf)
        .map(|(_, _, sep)| *sep)
}

// ------------------------------------------------------------------------------------------------
// Environment: YANG directory, reference example, yanglint.
// ------------------------------------------------------------------------------------------------

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
}

/// A SONiC release whose YANG models every rendered config_db.json must pass.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Release {
    /// sonic-buildimage master: `shared/sonic-yang` (or `AIFAB_SONIC_YANG_DIR`).
    Master,
    /// The 202405 release branch: `shared/sonic-releases/202405/yang`.
    R202405,
}

impl Release {
    fn name(self) -> &'static str {
        match self {
            Release::Master => "master",
            Release::R202405 => "202405",
        }
    }

    fn yang_dir(self) -> PathBuf {
        match self {
            Release::Master => std::env::var_os("AIFAB_SONIC_YANG_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| shared().join("sonic-yang")),
            Release::R202405 => shared().join("sonic-releases").join("202405").join("yang"),
        }
    }
}

const YANG_HOW: &str = "put the project's shared/ folder (sonic-yang/, sonic-releases/202405/yang/, \
     reference/sonic-example/) beside the repository or set AIFAB_SONIC_YANG_DIR to a folder of SONiC \
     YANG models (master), and install yanglint (`apt-get install -y libyang2-tools`); .ci/run does both";

/// The parsed SONiC YANG models of one release, once per test binary. None (after the one skip line)
/// when they are absent outside CI.
fn schema(release: Release) -> Option<&'static Schema> {
    static SCHEMAS: [OnceLock<Result<Schema, String>>; 2] = [const { OnceLock::new() }; 2];
    let dir = release.yang_dir();
    if !common::prerequisite(
        dir.is_dir(),
        &format!("the SONiC YANG tests ({})", release.name()),
        &format!("no SONiC YANG models at {}", dir.display()),
        YANG_HOW,
    ) {
        return None;
    }
    let r = SCHEMAS[release as usize].get_or_init(|| Schema::load(&dir));
    match r {
        Ok(s) => Some(s),
        Err(e) => panic!(
            "cannot read the SONiC YANG models in {}: {e}",
            dir.display()
        ),
    }
}

/// The validated reference example (`config_db.json` and its YANG translation), when present.
fn example_dir() -> Option<PathBuf> {
    let dir = shared().join("reference").join("sonic-example");
    common::prerequisite(
        dir.join("config_db.yang.json").is_file(),
        "the SONiC translator test",
        &format!("no reference example at {}", dir.display()),
        YANG_HOW,
    )
    .then_some(dir)
}

/// Whether yanglint can run (after the one skip line when it cannot, outside CI).
fn yanglint_available() -> bool {
    let ok = Command::new("yanglint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    common::prerequisite(
        ok,
        "the yanglint runs of the SONiC YANG tests",
        "yanglint not found",
        YANG_HOW,
    )
}

/// A scratch folder for this test binary.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("sonic-yang-{name}"))
}

/// Runs yanglint with one release's models on one translated file: Ok(()) or Err(its error lines).
fn yanglint(release: Release, file: &Path) -> Result<(), String> {
    let dir = release.yang_dir();
    let out = Command::new("yanglint")
        .arg("-p")
        .arg(&dir)
        .args(["-t", "config"])
        .args(yang_files(&dir).expect("YANG files"))
        .arg(file)
        .output()
        .expect("run yanglint");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // libyang also prints a warning for every `when`/`must` it skips on a module that is only imported;
    // keep the errors (and their continuation lines are part of the message).
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("libyang err") || l.starts_with("YANGLINT[E]"))
        .collect();
    if out.status.success() && errors.is_empty() {
        Ok(())
    } else {
        Err(format!("rc={:?}\n{}", out.status.code(), errors.join("\n")))
    }
}

/// Drops empty objects (sonic_yang_ext emits `"bmc": {}` next to `localhost`) so translations compare
/// by content.
fn prune(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), prune(v)))
                .filter(|(_, v)| !matches!(v, Value::Object(o) if o.is_empty()))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(prune).collect()),
        other => other.clone(),
    }
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every SONiC device of every example intent and of `tests/sonic/breakout-lossy.yaml`: (intent,
/// hostname, parsed config_db.json).
fn rendered_sonic() -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for path in common::example_and_extra_intents() {
        let (model, files) = common::render(&path);
        for d in model
            .devices
            .iter()
            .filter(|d| d.os == aifab::platform::Os::Sonic)
        {
            let f = files
                .iter()
                .find(|f| f.device == d.hostname && f.path.ends_with("config_db.json"))
                .unwrap_or_else(|| panic!("{path}: {} has no config_db.json", d.hostname));
            let v = serde_json::from_str(&f.content)
                .unwrap_or_else(|e| panic!("{path}: {}: {e}", d.hostname));
            out.push((path.clone(), d.hostname.clone(), v));
        }
    }
    out
}

// ------------------------------------------------------------------------------------------------
// Tests.
// ------------------------------------------------------------------------------------------------

#[test]
fn translator_reproduces_the_reference_translation() {
    let Some(schema) = schema(Release::Master) else {
        return;
    };
    let Some(example) = example_dir() else { return };
    let db = read_json(&example.join("config_db.json"));
    let want = read_json(&example.join("config_db.yang.json"));
    let got = schema.translate(&db).unwrap_or_else(|e| {
        panic!(
            "the reference example does not translate:\n{}",
            e.join("\n")
        )
    });
    let (got, want) = (prune(&got), prune(&want));
    if got != want {
        for (m, w) in want.as_object().unwrap() {
            assert_eq!(got.get(m), Some(w), "module {m} differs");
        }
        panic!("extra modules in the translation: {got}");
    }
}

#[test]
fn translator_refuses_what_the_yang_lacks() {
    let Some(schema) = schema(Release::Master) else {
        return;
    };
    let db = json!({
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enabled": "3"}},
        "ARS_PROFILE": {"default": {"algorithm": "ewma"}},
        "DEVICE_METADATA": {"localhost": {"hostname": "x", "mac_address": "0"}}
    });
    let errs = schema
        .translate(&db)
        .expect_err("unknown tables and fields must be refused");
    let all = errs.join("\n");
    for needle in ["pfc_enabled", "ARS_PROFILE", "mac_address"] {
        assert!(all.contains(needle), "no error about {needle}:\n{all}");
    }
}

/// The schemas really are per release: fields master added after 202405 pass master and are refused
/// by 202405 (a config_db carrying them would abort `config reload` there).
#[test]
fn translator_202405_refuses_fields_added_after_it() {
    let (Some(master), Some(r202405)) = (schema(Release::Master), schema(Release::R202405)) else {
        return;
    };
    let db = json!({
        "LOOPBACK_INTERFACE": {"Loopback0": {"admin_status": "up"}},
        "PORT": {"Ethernet0": {"fast_linkup": "true"}},
        "PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "AZURE"}}
    });
    if let Err(e) = master.translate(&db) {
        panic!("master has these fields:\n{}", e.join("\n"));
    }
    let all = r202405
        .translate(&db)
        .expect_err("202405 lacks these fields")
        .join("\n");
    for needle in ["admin_status", "fast_linkup", "tc_to_dscp_map"] {
        assert!(all.contains(needle), "no error about {needle}:\n{all}");
    }
}

/// Every rendered config_db.json uses only tables and fields of the release's YANG.
fn use_only_yang_tables_and_fields(release: Release) {
    let Some(schema) = schema(release) else {
        return;
    };
    let mut problems = Vec::new();
    for (intent, host, db) in rendered_sonic() {
        if let Err(e) = schema.translate(&db) {
            problems.push(format!("{intent}: {host}:\n  {}", e.join("\n  ")));
        }
    }
    assert!(
        problems.is_empty(),
        "{} YANG:\n{}",
        release.name(),
        problems.join("\n")
    );
}

#[test]
fn rendered_configs_use_only_yang_tables_and_fields_master() {
    use_only_yang_tables_and_fields(Release::Master);
}

#[test]
fn rendered_configs_use_only_yang_tables_and_fields_202405() {
    use_only_yang_tables_and_fields(Release::R202405);
}

#[test]
fn rendered_configs_pass_yanglint_master() {
    pass_yanglint(Release::Master);
}

#[test]
fn rendered_configs_pass_yanglint_202405() {
    pass_yanglint(Release::R202405);
}

/// The reference example, then every rendered config_db.json, pass yanglint with the release's models.
fn pass_yanglint(release: Release) {
    let Some(schema) = schema(release) else {
        return;
    };
    let Some(example_dir) = example_dir() else {
        return;
    };
    if !yanglint_available() {
        return;
    }
    let dir = scratch(&format!("rendered-{}", release.name()));
    let devices = rendered_sonic();
    // The reference example first: if it fails, the YANG directory or yanglint is the problem.
    let example = schema
        .translate(&read_json(&example_dir.join("config_db.json")))
        .expect("example translates");
    let ex = dir.join("reference-example.yang.json");
    std::fs::write(&ex, serde_json::to_string_pretty(&example).unwrap()).unwrap();
    yanglint(release, &ex).unwrap_or_else(|e| {
        panic!(
            "the reference example fails yanglint with the {} models (check the YANG dir):\n{e}",
            release.name()
        )
    });

    let results: Vec<(String, String, Result<(), String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = devices
            .iter()
            .map(|(intent, host, db)| {
                let dir = &dir;
                s.spawn(move || {
                    let stem = format!(
                        "{}-{host}",
                        Path::new(intent).file_stem().unwrap().to_string_lossy()
                    );
                    let r = schema
                        .translate(db)
                        .map_err(|e| e.join("\n"))
                        .and_then(|y| {
                            let f = dir.join(format!("{stem}.yang.json"));
                            std::fs::write(&f, serde_json::to_string_pretty(&y).unwrap()).unwrap();
                            yanglint(release, &f)
                        });
                    (intent.clone(), host.clone(), r)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("yanglint thread"))
            .collect()
    });
    let mut per_intent: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (intent, host, r) in &results {
        let e = per_intent.entry(intent).or_default();
        e.0 += 1;
        match r {
            Ok(()) => e.1 += 1,
            Err(msg) => failures.push(format!("{intent}: {host}:\n{msg}")),
        }
    }
    for (intent, (n, ok)) in &per_intent {
        eprintln!(
            "yanglint {} {intent}: {ok}/{n} SONiC devices valid",
            release.name()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} YANG:\n{}",
        release.name(),
        failures.join("\n\n")
    );
}

/// One deliberately broken variant (`tests/sonic_broken/*.json`).
struct Broken {
    file: String,
    intent: String,
    device: String,
    patch: Vec<Value>,
    /// `yanglint` (the translation succeeds and yanglint must refuse it) or `translate`.
    stage: String,
    /// Text that must appear in the error.
    expect: String,
}

fn broken_variants() -> Vec<Broken> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sonic_broken");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let v = read_json(p);
            let s = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("{}: `{k}` missing", p.display()))
                    .to_string()
            };
            Broken {
                file: p.file_name().unwrap().to_string_lossy().into_owned(),
                intent: s("intent"),
                device: s("device"),
                patch: v["patch"]
                    .as_array()
                    .cloned()
                    .unwrap_or_else(|| panic!("{}: `patch` missing", p.display())),
                stage: s("stage"),
                expect: s("expect"),
            }
        })
        .collect()
}

/// RFC 6902 add / replace / remove on a config_db JSON.
fn apply_patch(doc: &mut Value, ops: &[Value]) -> Result<(), String> {
    for op in ops {
        let path = op["path"].as_str().ok_or("op without path")?;
        let (parent, last) = path
            .rsplit_once('/')
            .ok_or_else(|| format!("bad path {path}"))?;
        let last = last.replace("~1", "/").replace("~0", "~");
        let target = doc
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .ok_or_else(|| format!("no object at {parent}"))?;
        match op["op"].as_str() {
            Some("add") => {
                target.insert(last, op["value"].clone());
            }
            Some("replace") => {
                let slot = target
                    .get_mut(&last)
                    .ok_or_else(|| format!("replace: nothing at {path}"))?;
                *slot = op["value"].clone();
            }
            Some("remove") => {
                target
                    .remove(&last)
                    .ok_or_else(|| format!("remove: nothing at {path}"))?;
            }
            other => return Err(format!("unsupported op {other:?}")),
        }
    }
    Ok(())
}

#[test]
fn broken_variants_fail_master() {
    broken_variants_fail(Release::Master);
}

#[test]
fn broken_variants_fail_202405() {
    broken_variants_fail(Release::R202405);
}

/// Every broken variant fails with the release's models, at its stage and for its reason.
fn broken_variants_fail(release: Release) {
    let Some(schema) = schema(release) else {
        return;
    };
    let variants = broken_variants();
    assert!(
        variants.len() >= 3,
        "tests/sonic_broken/ should hold the broken variants"
    );
    let lint = yanglint_available();
    let devices = rendered_sonic();
    let dir = scratch(&format!("broken-{}", release.name()));
    let mut problems = Vec::new();
    for b in &variants {
        let (_, _, base) = devices
            .iter()
            .find(|(i, h, _)| *i == b.intent && *h == b.device)
            .unwrap_or_else(|| panic!("{}: no SONiC device {} in {}", b.file, b.device, b.intent));
        let mut db = base.clone();
        if let Err(e) = apply_patch(&mut db, &b.patch) {
            problems.push(format!(
                "{}: patch does not apply to the rendered config: {e}",
                b.file
            ));
            continue;
        }
        let outcome = match schema.translate(&db) {
            Err(e) => ("translate", e.join("\n")),
            Ok(_) if b.stage == "translate" => ("nothing", String::new()),
            Ok(_) if !lint => continue,
            Ok(y) => {
                let f = dir.join(b.file.replace(".json", ".yang.json"));
                std::fs::write(&f, serde_json::to_string_pretty(&y).unwrap()).unwrap();
                match yanglint(release, &f) {
                    Err(e) => ("yanglint", e),
                    Ok(()) => ("nothing", String::new()),
                }
            }
        };
        if outcome.0 != b.stage || !outcome.1.contains(&b.expect) {
            problems.push(format!(
                "{}: expected {} to fail with {:?}, got {} failing with:\n{}",
                b.file, b.stage, b.expect, outcome.0, outcome.1
            ));
        } else {
            let line = outcome
                .1
                .lines()
                .find(|l| l.contains(&b.expect))
                .unwrap_or_default();
            eprintln!(
                "{} {}: {} refuses it: {line}",
                release.name(),
                b.file,
                b.stage
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        problems.is_empty(),
        "{} YANG:\n{}",
        release.name(),
        problems.join("\n\n")
    );
}
