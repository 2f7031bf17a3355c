//! A reader for the lock exactly as aifab writes it: comment lines, `key: value` at the top, and lists
//! of one-line flow mappings (`  - {name: spine1, loopback: 10.0.0.1, asn: 65000}`) of plain or
//! double-quoted scalars. A 100K-GPU lock holds hundreds of thousands of such lines; reading them
//! straight into the lock's types is several times faster than a YAML parser. Anything outside that form (a hand edit in
//! another YAML style, an escape, a word YAML reads as null or a boolean) gives `None`, and the caller
//! reads the file with the YAML reader instead, which also locates problems.

use super::{Lock, LockDevice, LockLink, LockServer, Total};
use crate::model::Name;
use std::net::{IpAddr, Ipv4Addr};

/// One entry's fields, in file order.
type Fields<'t> = Vec<(&'t str, Scalar<'t>)>;

/// The lock, when `text` is in the form aifab writes; `None` otherwise. The top-level lines are read in
/// order; each section's entry lines are then parsed in parallel (they are independent), in file order.
pub(super) fn parse(text: &str) -> Option<Lock> {
    let (top, sections) = outline(text)?;
    let (devices, (links, servers)) = rayon::join(
        || entries(sections.devices, device),
        || {
            rayon::join(
                || entries(sections.links, link),
                || entries(sections.servers, server),
            )
        },
    );
    Some(Lock {
        version: top.version,
        lineage: top.lineage,
        serial: top.serial,
        digest: top.digest,
        devices: devices?,
        links: links?,
        servers: servers?,
        total: top.total,
        narrowed: None,
    })
}

/// The entries each list of `text` holds (blank and comment lines skipped), counted, not read;
/// `None` where [`parse`] would give `None` on the top-level lines.
pub(super) fn counts(text: &str) -> Option<Total> {
    let (_, sections) = outline(text)?;
    let n = |body: &str| entry_lines(body).count();
    Some(Total {
        devices: n(sections.devices),
        links: n(sections.links),
        servers: n(sections.servers),
    })
}

/// The lock, when `text` is in the form aifab writes, read for the devices `selected` accepts only
/// (`render --only`): every device entry, the cables with a selected device at either end and the
/// server entries of selected leaves, read as [`parse`] reads them; every other entry is only counted
/// and, for a server entry, its /31 kept as taken ([`super::Narrowed`]). One switch of a 100K-GPU lock
/// is a few hundred of its 230,000 lines. `None` where [`parse`] would give `None`, and where an
/// entry left out has no /31 to take: the caller then reads the whole lock.
pub(super) fn parse_narrowed(text: &str, selected: &(dyn Fn(&str) -> bool + Sync)) -> Option<Lock> {
    let (top, sections) = outline(text)?;
    let devices = entries(sections.devices, device)?;
    // Each name is matched once (a glob match costs more than a look-up).
    let memo: foldhash::HashMap<&str, bool> = devices
        .iter()
        .map(|d| (d.name.as_str(), selected(&d.name)))
        .collect();
    let picked = |name: &str| memo.get(name).copied().unwrap_or_else(|| selected(name));
    // Each list is read in pieces in parallel, then joined in order.
    let (links, servers) = rayon::join(
        || {
            in_pieces(sections.links, |p| {
                narrow_links(p, &picked).map(|r| (r, Vec::new()))
            })
        },
        || {
            in_pieces(sections.servers, |p| {
                let mut blocks = Vec::new();
                narrow_servers(p, &picked, &mut blocks).map(|r| (r, blocks))
            })
        },
    );
    let ((links, links_at, n_links), _) = links?;
    let ((servers, servers_at, n_servers), server_blocks) = servers?;
    Some(Lock {
        version: top.version,
        lineage: top.lineage,
        serial: top.serial,
        digest: top.digest,
        narrowed: Some(super::Narrowed {
            total: Total {
                devices: devices.len(),
                links: n_links,
                servers: n_servers,
            },
            links_at,
            servers_at,
            server_blocks,
        }),
        devices,
        links,
        servers,
        total: top.total,
    })
}

/// `read` of each of a few pieces of `body` (cut at line ends), in parallel, joined in order: the
/// entries, their places in the whole list, the count, and the blocks each piece gave.
fn in_pieces<T: Send>(
    body: &str,
    read: impl Fn(&str) -> Option<(Narrow<T>, Blocks)> + Sync,
) -> Option<(Narrow<T>, Blocks)> {
    use rayon::prelude::*;
    const PIECES: usize = 8;
    let mut cuts = vec![0];
    for i in 1..PIECES {
        let at = (body.len() * i / PIECES).max(*cuts.last().unwrap_or(&0));
        // A cut just after a line end (a byte search: `at` need not fall on a character boundary).
        let end = body.as_bytes()[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(body.len(), |n| at + n + 1);
        cuts.push(end);
    }
    cuts.push(body.len());
    cuts.dedup();
    let parts: Vec<Option<(Narrow<T>, Blocks)>> = cuts
        .windows(2)
        .collect::<Vec<_>>()
        .par_iter()
        .map(|w| read(&body[w[0]..w[1]]))
        .collect();
    let (mut kept, mut at, mut n, mut extra) = (Vec::new(), Vec::new(), 0, Vec::new());
    for part in parts {
        let ((k, a, count), e) = part?;
        kept.extend(k);
        at.extend(a.into_iter().map(|i| i + n));
        n += count;
        extra.extend(e);
    }
    Some(((kept, at, n), extra))
}

/// The entry lines of a section's lines `body` (blank and comment lines skipped), without `  - `;
/// `None` for an entry line without it.
fn entry_lines(body: &str) -> impl Iterator<Item = Option<&str>> {
    body.lines()
        .map(str::trim_end)
        .filter(|t| !t.is_empty() && !t.starts_with('#'))
        .map(|t| t.strip_prefix("  - "))
}

/// Entries kept by a narrowed read, their places in the list, and how many the list holds.
type Narrow<T> = (Vec<T>, Vec<usize>, usize);

/// Address blocks (first address, size).
type Blocks = Vec<(u32, u64)>;

/// The cables of `body` with a `picked` device at either end. An entry in the exact form aifab writes
/// is matched by its names before it is read; any other is read first.
fn narrow_links(body: &str, picked: &(dyn Fn(&str) -> bool + Sync)) -> Option<Narrow<LockLink>> {
    let (mut kept, mut at, mut n) = (Vec::new(), Vec::new(), 0);
    for e in entry_lines(body) {
        let e = e?;
        let quick = canonical(e, ["lower", "lower_port", "upper"]);
        let wanted = quick.map(|[a, _, b]| picked(a) || picked(b));
        if wanted != Some(false) {
            let l = link(&flow_map(e)?)?;
            if wanted == Some(true) || picked(&l.lower) || picked(&l.upper) {
                kept.push(l);
                at.push(n);
            }
        }
        n += 1;
    }
    Some((kept, at, n))
}

/// The server entries of `body` on a `picked` leaf; the /31 of every other entry goes to `blocks`
/// (its first address, and 2: what the compiler's index holds for a server entry).
fn narrow_servers(
    body: &str,
    picked: &(dyn Fn(&str) -> bool + Sync),
    blocks: &mut Vec<(u32, u64)>,
) -> Option<Narrow<LockServer>> {
    let (mut kept, mut at, mut n) = (Vec::new(), Vec::new(), 0);
    for e in entry_lines(body) {
        let e = e?;
        let quick = canonical(e, ["leaf", "port", "subnet"]).filter(|[leaf, ..]| !picked(leaf));
        match quick.and_then(|[.., subnet]| super::prefix::block(subnet)) {
            Some((first, _)) => blocks.push((first, 2)),
            None => {
                let s = server(&flow_map(e)?)?;
                if picked(&s.leaf) {
                    kept.push(s);
                    at.push(n);
                } else {
                    blocks.push((super::prefix::block(&s.subnet)?.0, 2));
                }
            }
        }
        n += 1;
    }
    Some((kept, at, n))
}

/// The first values of an entry line exactly as aifab writes it, `{k1: v1, k2: v2, ...}` with the
/// keys `keys` first and in this order, each value of name, address and subnet characters; `None` for
/// anything else (the entry is then read whole).
fn canonical<'t, const N: usize>(entry: &'t str, keys: [&str; N]) -> Option<[&'t str; N]> {
    let inner = entry.strip_prefix('{')?;
    let mut parts = inner.split(',');
    let mut out = [""; N];
    for (i, key) in keys.iter().enumerate() {
        let part = parts.next()?;
        let part = if i == 0 {
            part
        } else {
            part.strip_prefix(' ')?
        };
        let v = part.strip_prefix(key)?.strip_prefix(": ")?;
        let v = v.strip_suffix('}').unwrap_or(v);
        let plain = !v.is_empty()
            && v.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':')
            });
        out[i] = plain.then_some(v)?;
    }
    Some(out)
}

/// The entry lines of each section, as slices of the text.
#[derive(Default)]
struct Sections<'t> {
    devices: &'t str,
    links: &'t str,
    servers: &'t str,
}

/// The top-level values of a lock: its version, history lines and `total:` line.
struct Top {
    version: u32,
    lineage: Option<String>,
    serial: Option<u64>,
    digest: Option<String>,
    total: Option<Total>,
}

/// Reads the top-level lines (`version: N`, `lineage: "..."`, `devices:`, `links: []`, ...) and finds
/// where each section's entry lines are; `None` on anything outside the written form, including an
/// entry line outside a section or a key given twice.
fn outline(text: &str) -> Option<(Top, Sections<'_>)> {
    let (mut version, mut seen, mut sections) = (None, Vec::new(), Sections::default());
    let (mut total, mut lineage, mut serial, mut digest) = (None, None, None, None);
    // The open section (`""`: none, where an entry line is refused) and where its lines start.
    let (mut open, mut start, mut offset) = ("", 0, 0);
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let t = line.trim_end();
        if t.is_empty() || t.starts_with('#') || t.starts_with("  - ") {
            continue;
        }
        set_section(&mut sections, open, &text[start..at])?;
        if t.starts_with([' ', '\t', '-']) {
            return None;
        }
        let (key, value) = t.split_once(':')?;
        if seen.contains(&key) {
            return None;
        }
        seen.push(key);
        (open, start) = ("", offset);
        match (key, value.trim()) {
            ("version", v) => version = Some(u32::try_from(scalar(v)?.number()?).ok()?),
            ("devices" | "links" | "servers", "") => open = key,
            ("devices" | "links" | "servers", "[]") => {}
            ("total", v) => total = Some(total_of(&flow_map(v)?)?),
            ("lineage", v) => lineage = Some(scalar(v)?.text()?.to_string()),
            ("serial", v) => serial = Some(scalar(v)?.number()?),
            ("digest", v) => digest = Some(scalar(v)?.text()?.to_string()),
            _ => return None,
        }
    }
    set_section(&mut sections, open, &text[start..])?;
    let top = Top {
        version: version?,
        lineage,
        serial,
        digest,
        total,
    };
    Some((top, sections))
}

fn total_of(f: &Fields) -> Option<Total> {
    let count = |s: Option<Scalar>| usize::try_from(s?.number()?).ok();
    let [devices, links, servers] = pick(f, ["devices", "links", "servers"])?;
    Some(Total {
        devices: count(devices)?,
        links: count(links)?,
        servers: count(servers)?,
    })
}

/// Records `body` as the lines of section `name`; `None` when lines outside any section hold an entry.
fn set_section<'t>(sections: &mut Sections<'t>, name: &str, body: &'t str) -> Option<()> {
    match name {
        "devices" => sections.devices = body,
        "links" => sections.links = body,
        "servers" => sections.servers = body,
        _ if body.lines().any(|l| l.starts_with("  - ")) => return None,
        _ => {}
    }
    Some(())
}

/// The entries of one section's lines, in order (blank and comment lines skipped); `None` when one is
/// outside the written form.
fn entries<T: Send>(body: &str, read: fn(&Fields) -> Option<T>) -> Option<Vec<T>> {
    use rayon::prelude::*;
    body.par_lines()
        .map(str::trim_end)
        .filter(|t| !t.is_empty() && !t.starts_with('#'))
        .map(|t| read(&flow_map(t.strip_prefix("  - ")?)?))
        .collect()
}

/// A scalar of the written form.
#[derive(Clone, Copy, Debug)]
enum Scalar<'t> {
    Number(u64),
    Bool(bool),
    Text(&'t str),
}

impl<'t> Scalar<'t> {
    fn number(self) -> Option<u64> {
        match self {
            Scalar::Number(n) => Some(n),
            _ => None,
        }
    }
    fn text(self) -> Option<&'t str> {
        match self {
            Scalar::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// The fields of `f` as `want` lists them: each known at most once, unknown ones refused.
fn pick<'t, const N: usize>(f: &Fields<'t>, want: [&str; N]) -> Option<[Option<Scalar<'t>>; N]> {
    let mut out = [None; N];
    for (k, v) in f {
        let i = want.iter().position(|w| w == k)?;
        if out[i].replace(*v).is_some() {
            return None;
        }
    }
    Some(out)
}

fn u32_of(s: Option<Scalar>) -> Option<u32> {
    u32::try_from(s?.number()?).ok()
}

fn retired(s: Option<Scalar>) -> Option<bool> {
    match s {
        None => Some(false),
        Some(Scalar::Bool(b)) => Some(b),
        Some(_) => None,
    }
}

fn device(f: &Fields) -> Option<LockDevice> {
    let [name, lo, rid, asn, mgmt, subnet, ret] = pick(
        f,
        [
            "name",
            "loopback",
            "router_id",
            "asn",
            "management",
            "server_subnet",
            "retired",
        ],
    )?;
    Some(LockDevice {
        name: name?.text()?.to_string(),
        loopback: lo?.text()?.parse::<Ipv4Addr>().ok()?,
        router_id: rid?.text()?.parse::<Ipv4Addr>().ok()?,
        asn: u32_of(asn)?,
        management: match mgmt {
            None => None,
            Some(m) => Some(m.text()?.parse::<IpAddr>().ok()?),
        },
        server_subnet: match subnet {
            None => None,
            Some(s) => Some(s.text()?.to_string()),
        },
        retired: retired(ret)?,
    })
}

fn link(f: &Fields) -> Option<LockLink> {
    let [lower, lp, upper, up, subnet, ret] = pick(
        f,
        [
            "lower",
            "lower_port",
            "upper",
            "upper_port",
            "subnet",
            "retired",
        ],
    )?;
    Some(LockLink {
        lower: Name::from(lower?.text()?),
        lower_port: u32_of(lp)?,
        upper: Name::from(upper?.text()?),
        upper_port: u32_of(up)?,
        subnet: Name::from(subnet?.text()?),
        retired: retired(ret)?,
    })
}

fn server(f: &Fields) -> Option<LockServer> {
    let [leaf, port, subnet, ret] = pick(f, ["leaf", "port", "subnet", "retired"])?;
    Some(LockServer {
        leaf: Name::from(leaf?.text()?),
        port: u32_of(port)?,
        subnet: Name::from(subnet?.text()?),
        retired: retired(ret)?,
    })
}

/// `{k: v, k: v}` with plain or double-quoted values and no nesting, read in one pass: each key (a
/// plain lowercase word, blanks around it), its `: `, and its value up to the next `,` outside double
/// quotes. A bracket or brace outside quotes (nesting) is left to YAML.
fn flow_map(s: &str) -> Option<Fields<'_>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let b = inner.as_bytes();
    let blank = |c: u8| c == b' ' || c == b'\t';
    let mut out = Vec::with_capacity(7);
    let mut i = 0;
    loop {
        while b.get(i).copied().is_some_and(blank) {
            i += 1;
        }
        let key_start = i;
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_lowercase() || *c == b'_')
        {
            i += 1;
        }
        let key = &inner[key_start..i];
        while b.get(i).copied().is_some_and(blank) {
            i += 1;
        }
        if key.is_empty() || b.get(i) != Some(&b':') || b.get(i + 1) != Some(&b' ') {
            return None;
        }
        i += 2;
        let (value_start, mut quoted) = (i, false);
        while let Some(&c) = b.get(i) {
            match c {
                b'"' => quoted = !quoted,
                b'{' | b'}' | b'[' | b']' if !quoted => return None,
                b',' if !quoted => break,
                _ => {}
            }
            i += 1;
        }
        if quoted {
            return None;
        }
        out.push((key, scalar(blank_trim(&inner[value_start..i]))?));
        if i == b.len() {
            return Some(out);
        }
        i += 1;
    }
}

/// `s` without the spaces and tabs around it: YAML's white space in a flow mapping (any other
/// character stays, and a plain scalar holding one is left to the YAML reader).
fn blank_trim(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// A scalar as YAML would read it, for the forms aifab writes: an unsigned integer, `true`/`false`,
/// a double-quoted string without escapes, or a plain string of name, address and subnet characters
/// that YAML cannot read as anything else.
fn scalar(v: &str) -> Option<Scalar<'_>> {
    if let Some(q) = v.strip_prefix('"') {
        let q = q.strip_suffix('"')?;
        return (!q.contains(['"', '\\'])).then_some(Scalar::Text(q));
    }
    match v {
        "true" => return Some(Scalar::Bool(true)),
        "false" => return Some(Scalar::Bool(false)),
        _ => {}
    }
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        if v.len() > 1 && v.starts_with('0') {
            return None;
        }
        return v.parse::<u64>().ok().map(Scalar::Number);
    }
    // One pass: the characters allowed, and the dots counted.
    let (mut plain, mut dots) = (true, 0);
    for b in v.bytes() {
        dots += usize::from(b == b'.');
        plain &= b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/');
    }
    let first = v.bytes().next()?;
    // The words YAML reads as null, a boolean or a float special: none is longer than five bytes.
    let special = v.len() <= 5
        && [
            "null", "true", "false", "yes", "no", "on", "off", "y", "n", ".nan", ".inf",
        ]
        .iter()
        .any(|w| v.eq_ignore_ascii_case(w));
    // A single dot could make a plain scalar a float (`1.5`, `1e3`): leave those to YAML.
    let float_like = first.is_ascii_digit() && dots == 1;
    (plain && !special && !float_like && first != b'.' && first != b'-').then_some(Scalar::Text(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (Option<Lock>, Option<Lock>) {
        (parse(text), serde_norway::from_str::<Lock>(text).ok())
    }

    #[test]
    fn the_written_form_reads_as_yaml_reads_it() {
        let text = "# comment\nversion: 2\ndevices:\n  - {name: spine1, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 65000, management: \"198.51.100.10\"}\n  - {name: z9, loopback: 10.0.0.2, router_id: 10.0.0.2, asn: 4200000000, server_subnet: 10.2.0.0/27, retired: true}\nlinks:\n  - {lower: leaf1, lower_port: 33, upper: spine1, upper_port: 1, subnet: 10.1.0.0/31}\nservers: []\ntotal: {devices: 2, links: 1, servers: 0}\n";
        let (fast, yaml) = both(text);
        assert!(fast.is_some());
        assert_eq!(fast, yaml);
    }

    #[test]
    fn anything_else_is_left_to_the_yaml_reader() {
        for text in [
            "version: 1\ndevices:\n  - name: a\n    loopback: 10.0.0.1\n",
            "version: 1\ndevices:\n  - {name: null, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {name: \"a\\u0041\", loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices: [{name: a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}]\n",
            "version: 1\nversion: 1\n",
            "version: 1\ndevices:\n  - {name: a, name: b, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\nextra: 2\n",
            "version: 1.5\n",
            "version: 01\n",
            "version: 1\ndevices:\n  - {}\n",
            "version: 1\ndevices:\n  - {name: a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1,}\n",
            "version: 1\ndevices:\n  - {name:a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {\"name\": a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {name: a, {x}: 1, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {name: [a], loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {name: \"a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
            "version: 1\ndevices:\n  - {Name: a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}\n",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    /// Blanks where YAML allows them in a flow mapping: read as YAML reads them, never otherwise.
    #[test]
    fn blanks_around_keys_and_values_read_as_yaml_reads_them() {
        for entry in [
            "{ name: a , loopback: 10.0.0.1,router_id: 10.0.0.1, asn: 1 }",
            "{name : a, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}",
            "{name:\ta, loopback: 10.0.0.1, router_id: 10.0.0.1, asn: 1}",
            "{\tname: a,\tloopback:  10.0.0.1 , router_id: 10.0.0.1, asn: 1}",
        ] {
            let text = format!("version: 1\ndevices:\n  - {entry}\n");
            let (fast, yaml) = both(&text);
            assert!(fast.is_none() || fast == yaml, "{text}");
            assert!(yaml.is_some(), "{text}");
        }
    }

    #[test]
    fn a_narrowed_read_holds_what_the_selected_devices_use_and_counts_the_rest() {
        for name in ["pod1-1024", "three-tier-small", "mixed-sonic-nxos"] {
            let path = format!("{}/intents/{name}.lock.yaml", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("example lock");
            let full = parse(&text).expect("the written form");
            for picked in [
                full.devices[0].name.clone(),
                full.devices.last().expect("devices").name.clone(),
                full.links[full.links.len() / 2].lower.to_string(),
            ] {
                let is = |n: &str| n == picked;
                let n = parse_narrowed(&text, &is).expect("narrowed");
                let info = n.narrowed.clone().expect("marked narrowed");
                assert_eq!(n.devices, full.devices, "{name} {picked}");
                assert_eq!(Total::of(&n), Total::of(&full), "the file's counts");
                assert_eq!(n.total, full.total);
                let links: Vec<&LockLink> = full
                    .links
                    .iter()
                    .filter(|l| is(&l.lower) || is(&l.upper))
                    .collect();
                assert_eq!(n.links.iter().collect::<Vec<_>>(), links, "{picked}");
                let servers: Vec<&LockServer> =
                    full.servers.iter().filter(|s| is(&s.leaf)).collect();
                assert_eq!(n.servers.iter().collect::<Vec<_>>(), servers, "{picked}");
                for (l, at) in n.links.iter().zip(&info.links_at) {
                    assert_eq!(l, &full.links[*at], "each cable's place in the file");
                }
                for (s, at) in n.servers.iter().zip(&info.servers_at) {
                    assert_eq!(s, &full.servers[*at]);
                }
                let left_out: Vec<(u32, u64)> = full
                    .servers
                    .iter()
                    .filter(|s| !is(&s.leaf))
                    .map(|s| (super::super::prefix::block(&s.subnet).expect("a /31").0, 2))
                    .collect();
                assert_eq!(info.server_blocks, left_out, "{picked}");
            }
        }
    }

    /// An entry line in another spelling than aifab's (quoted, blanks) is read whole and matched by
    /// what it says; an entry left out without a readable /31 reads the whole lock instead.
    #[test]
    fn entries_in_other_spellings_are_read_whole() {
        let path = format!(
            "{}/intents/three-tier-small.lock.yaml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("example lock");
        let full = parse(&text).expect("the written form");
        let leaf = full.servers[0].leaf.to_string();
        let quoted = text
            .replace(
                &format!("{{lower: {leaf},"),
                &format!("{{lower: \"{leaf}\","),
            )
            .replace(
                &format!("{{leaf: {leaf},"),
                &format!("{{ leaf: \"{leaf}\","),
            );
        assert_ne!(quoted, text);
        let is = |n: &str| n == leaf;
        let n = parse_narrowed(&quoted, &is).expect("narrowed");
        assert_eq!(
            n.links.len(),
            full.links
                .iter()
                .filter(|l| is(&l.lower) || is(&l.upper))
                .count()
        );
        assert_eq!(
            n.servers.len(),
            full.servers.iter().filter(|s| is(&s.leaf)).count()
        );
        assert!(!n.servers.is_empty());
        let other = full.servers.last().expect("servers");
        let line = format!("{{leaf: {}, port: {}, subnet: ", other.leaf, other.port);
        let broken = text.replacen(
            &format!("{line}{}}}", other.subnet),
            &format!("{line}10.0.0.1/31}}"),
            1,
        );
        assert_ne!(broken, text);
        assert!(parse_narrowed(&broken, &is).is_none());
    }

    #[test]
    fn the_example_locks_read_the_same_both_ways() {
        for name in ["pod1-1024", "mixed-sonic-nxos", "three-tier-small"] {
            let path = format!("{}/intents/{name}.lock.yaml", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("example lock");
            let (fast, yaml) = both(&text);
            assert!(fast.is_some(), "{path}: not in the written form");
            assert_eq!(fast, yaml, "{path}");
        }
    }
}
