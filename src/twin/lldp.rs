//! LLDP in the lab: what each switch's lldpd sends and what it hears.
//!
//! Each port sends the port ID and description its switch's OS sends. NX-OS and EOS: the interface
//! name of the model (`Ethernet1/5`) and the interface's description. SONiC: what SONiC's `lldpmgrd`
//! (sonic-buildimage `dockers/docker-lldp/lldpmgrd`) configures from the port's PORT row, `lldpcli
//! configure ports <port> lldp portidsubtype local <alias> description <description>`: the alias of
//! the SKU's port table (the port's name when the alias is empty) and the description (left out when
//! empty), read here from the very `config_db.json` PORT row aifab renders for the switch. The system
//! name is the hostname, as SONiC's `lldpmgrd` sets it from DEVICE_METADATA.

use super::lab::{self, Lab};
use crate::kinds::Os;
use crate::model::{Device, FabricModel};
use crate::os::sonic::{self, Value};
use crate::platform::{Catalog, Platform};
use rayon::prelude::*;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// What one port sends: its port ID (subtype `local`) and its description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortId {
    /// Port ID.
    pub id: String,
    /// Port description, if the OS sends one.
    pub descr: Option<String>,
}

/// Per switch (model order), per port name of the model, what the port sends.
pub type Identities = Vec<BTreeMap<String, PortId>>;

/// What every port of every switch of `model` sends, its platform read from `catalog`.
pub fn identities(model: &FabricModel, catalog: &Catalog) -> Result<Identities, String> {
    model
        .devices
        .iter()
        .map(|d| {
            let (os, pf) = catalog.get(&d.platform).ok_or_else(|| {
                format!(
                    "{}: platform {} is not in the catalog",
                    d.hostname, d.platform
                )
            })?;
            match os {
                Os::Sonic => sonic_identities(d, pf),
                Os::Nxos | Os::Eos => Ok(d
                    .interfaces
                    .iter()
                    .map(|i| {
                        let descr = Some(i.description.clone()).filter(|s| !s.is_empty());
                        (
                            i.name.to_string(),
                            PortId {
                                id: i.name.to_string(),
                                descr,
                            },
                        )
                    })
                    .collect()),
            }
        })
        .collect()
}

/// A SONiC switch's ports as `lldpmgrd` configures them, from its rendered PORT table.
fn sonic_identities(d: &Device, pf: &Platform) -> Result<BTreeMap<String, PortId>, String> {
    let parts = sonic::Parts::new(pf, &d.qos);
    let db = sonic::config_db(d, pf, &parts).map_err(|e| e.to_string())?;
    let table = db
        .table("PORT")
        .ok_or_else(|| format!("{}: its config_db has no PORT table", d.hostname))?;
    let mut out = BTreeMap::new();
    for i in &d.interfaces {
        let row = table
            .get(&i.name)
            .ok_or_else(|| format!("{}: no PORT row for {}", d.hostname, i.name))?;
        let field = |f: &str| row.get(f).and_then(text).filter(|s| !s.is_empty());
        let id = field("alias").unwrap_or_else(|| i.name.to_string());
        out.insert(
            i.name.to_string(),
            PortId {
                id,
                descr: field("description"),
            },
        );
    }
    Ok(out)
}

fn text(v: &Value<'_>) -> Option<String> {
    match v {
        Value::Text(t) => Some(t.to_string()),
        Value::Num(n) => Some(n.to_string()),
        Value::Ip(ip) => Some(ip.to_string()),
        Value::List(_) => None,
    }
}

/// Switch `hostname`'s lldpd configuration (`lldpcli` commands, read at its start): its hostname as
/// the system name, a frame every second, and each of `ports` (its Linux name in the lab, its model
/// name) sending what `ids` says the OS sends.
pub fn config(
    hostname: &str,
    ids: &BTreeMap<String, PortId>,
    ports: &[(String, &str)],
) -> Result<String, String> {
    let mut s = format!(
        "configure system hostname {}\nconfigure lldp tx-interval 1\n",
        quote(hostname)?
    );
    for (ifname, name) in ports {
        let p = ids
            .get(*name)
            .ok_or_else(|| format!("{hostname}: no LLDP port ID for {name}"))?;
        s.push_str(&format!(
            "configure ports {ifname} lldp portidsubtype local {}",
            quote(&p.id)?
        ));
        if let Some(descr) = &p.descr {
            s.push_str(&format!(" description {}", quote(descr)?));
        }
        s.push('\n');
    }
    Ok(s)
}

/// `v` in double quotes for lldpcli's tokenizer; printable ASCII without `"` or `\` only.
fn quote(v: &str) -> Result<String, String> {
    if v.is_empty()
        || !v
            .chars()
            .all(|c| c.is_ascii() && !c.is_ascii_control() && c != '"' && c != '\\')
    {
        return Err(format!(
            "{v:?}: lldpd is given printable ASCII without quotes or backslashes only"
        ));
    }
    Ok(format!("\"{v}\""))
}

/// One neighbour an lldpd heard: the local interface, the neighbour's system name and its port ID.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Heard {
    /// The local interface (Linux name, `swp<port>`).
    pub ifname: String,
    /// The neighbour's system name (empty when it sent none).
    pub system: String,
    /// The neighbour's port ID (empty when it sent none).
    pub port_id: String,
}

/// The interfaces of lldpctl's and lldpcli's JSON (`{"lldp": {"interface": ...}}`), name and body
/// each: lldpd 1.0 prints one interface as an object (`{"swp1": {...}}`) and several as a list of
/// such objects.
fn interfaces(v: &Json) -> Vec<(&String, &Json)> {
    let entries: Vec<&Json> = match &v["lldp"]["interface"] {
        Json::Array(a) => a.iter().collect(),
        o @ Json::Object(_) => vec![o],
        _ => Vec::new(),
    };
    entries
        .into_iter()
        .filter_map(Json::as_object)
        .flat_map(|o| o.iter())
        .collect()
}

/// Parses `lldpctl -f json`: the neighbours heard, sorted.
pub fn parse(json: &str) -> Result<Vec<Heard>, String> {
    let v: Json = serde_json::from_str(json).map_err(|e| format!("lldpctl -f json: {e}"))?;
    let mut out: Vec<Heard> = interfaces(&v)
        .into_iter()
        .map(|(ifname, n)| {
            // `{"chassis": {"<name>": {...}}}`, or `{"chassis": {"id": ...}}` without a name.
            let system = n["chassis"]
                .as_object()
                .and_then(|c| c.iter().find(|(k, v)| v.is_object() && k.as_str() != "id"))
                .map(|(k, _)| k.clone())
                .unwrap_or_default();
            let port_id = n["port"]["id"]["value"].as_str().unwrap_or_default();
            Heard {
                ifname: ifname.clone(),
                system,
                port_id: port_id.to_string(),
            }
        })
        .collect();
    out.sort();
    Ok(out)
}

/// Parses `lldpcli show interfaces -f json`: what lldpd sends on each local port.
pub fn parse_local(json: &str) -> Result<BTreeMap<String, PortId>, String> {
    let v: Json =
        serde_json::from_str(json).map_err(|e| format!("lldpcli show interfaces: {e}"))?;
    Ok(interfaces(&v)
        .into_iter()
        .map(|(ifname, n)| {
            let id = n["port"]["id"]["value"].as_str().unwrap_or_default();
            let descr = n["port"]["descr"].as_str().map(str::to_string);
            (
                ifname.clone(),
                PortId {
                    id: id.to_string(),
                    descr,
                },
            )
        })
        .collect())
}

/// Whether a port that sends `local` sends what `want` says: the same port ID, and the same
/// description when one is wanted (without one, lldpd sends its default).
fn sends(local: &PortId, want: &PortId) -> bool {
    local.id == want.id && (want.descr.is_none() || local.descr == want.descr)
}

/// What every switch's lldpd heard, read from each.
fn read(lab: &Lab) -> Result<Vec<Vec<Heard>>, String> {
    (0..lab.switches.len())
        .into_par_iter()
        .map(|i| parse(&lab.lldp_tool(i, "lldpctl", &["-f", "json"])?))
        .collect()
}

/// Waits (at most `limit`) until switch `i`'s lldpd lists every one of `ports` (Linux names), so that
/// its first look at the interfaces is over before FRR's daemons start changing them: an lldpd whose
/// first look overlapped zebra's changes was seen (under load) to know no port at all for good.
/// Returns whether it lists them all.
pub fn wait_ports(lab: &Lab, i: usize, ports: &[&str], limit: Duration) -> Result<bool, String> {
    let end = Instant::now() + limit;
    loop {
        // Before its control socket exists, lldpcli fails: not yet.
        let listed = lab
            .lldp_tool(i, "lldpcli", &["show", "interfaces", "-f", "json"])
            .ok()
            .and_then(|shown| parse_local(&shown).ok())
            .is_some_and(|local| ports.iter().all(|p| local.contains_key(*p)));
        if listed || Instant::now() >= end {
            return Ok(listed);
        }
        if !lab::nap(Duration::from_millis(50)) {
            return Err("interrupted: the lab was removed".into());
        }
    }
}

/// Makes each switch's lldpd send what `want` says on each port (per switch: the Linux name and what
/// it sends) and run, or gives up at `timeout`: a port lldpd does not send so yet (its start-up
/// `lldpcli` ran before lldpd knew the port, or did not run) is configured again, as SONiC's
/// `lldpmgrd` retries a command that failed, and lldpd is resumed (`lldpcli resume`, as `lldpmgrd`
/// does once the ports are configured). Returns how many ports needed it.
pub fn confirm(
    lab: &Lab,
    want: &[Vec<(String, PortId)>],
    timeout: Duration,
) -> Result<usize, String> {
    let end = Instant::now() + timeout;
    let counts: Vec<usize> = (0..lab.switches.len())
        .into_par_iter()
        .map(|i| confirm_one(lab, i, &want[i], end))
        .collect::<Result<_, String>>()?;
    Ok(counts.into_iter().sum())
}

/// [`confirm`] for switch `i`, until `end`.
fn confirm_one(
    lab: &Lab,
    i: usize,
    want: &[(String, PortId)],
    end: Instant,
) -> Result<usize, String> {
    let mut again = 0;
    loop {
        let shown = lab.lldp_tool(i, "lldpcli", &["show", "interfaces", "-f", "json"])?;
        let local = parse_local(&shown)?;
        let wrong: Vec<&(String, PortId)> = want
            .iter()
            .filter(|(ifname, p)| !local.get(ifname).is_some_and(|l| sends(l, p)))
            .collect();
        if wrong.is_empty() || Instant::now() >= end {
            lab.lldp_tool(i, "lldpcli", &["resume"])?;
            return Ok(again);
        }
        // A port lldpd does not know yet is configured once it does.
        for (ifname, p) in wrong.into_iter().filter(|(n, _)| local.contains_key(n)) {
            let mut args = vec!["configure", "ports", ifname, "lldp", "portidsubtype"];
            args.extend(["local", &p.id]);
            if let Some(d) = &p.descr {
                args.extend(["description", d]);
            }
            lab.lldp_tool(i, "lldpcli", &args)?;
            again += 1;
        }
        if !lab::nap(Duration::from_millis(200)) {
            return Err("interrupted: the lab was removed".to_string());
        }
    }
}

/// Waits until every switch heard exactly `want` (per switch), or `timeout`; what each heard last.
pub fn settle(
    lab: &mut Lab,
    want: &[BTreeSet<Heard>],
    timeout: Duration,
) -> Result<Vec<Vec<Heard>>, String> {
    let end = Instant::now() + timeout;
    loop {
        if let Some((i, what)) = lab.dead_daemon() {
            return Err(format!("{}: {what}", lab.switches[i].ns));
        }
        let got = read(lab)?;
        let same = got
            .iter()
            .zip(want)
            .all(|(g, w)| g.len() == w.len() && g.iter().all(|h| w.contains(h)));
        if same || Instant::now() >= end {
            return Ok(got);
        }
        if !lab::nap(Duration::from_millis(200)) {
            return Err("interrupted: the lab was removed".into());
        }
    }
}

/// How many of the `want`ed neighbours were heard, of how many, and the differences as lines (at
/// most `limit`, then a count): a neighbour not heard, or one heard that is not wired.
pub fn differences(
    names: &[crate::model::Name],
    got: &[Vec<Heard>],
    want: &[BTreeSet<Heard>],
    limit: usize,
) -> (usize, usize, Vec<String>) {
    let (mut heard, mut wired, mut lines) = (0, 0, Vec::new());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        wired += w.len();
        heard += w.iter().filter(|h| g.contains(h)).count();
        for h in w.iter().filter(|h| !g.contains(h)) {
            lines.push(format!(
                "{}: {} did not hear {} port {}",
                names[i], h.ifname, h.system, h.port_id
            ));
        }
        for h in g.iter().filter(|h| !w.contains(h)) {
            lines.push(format!(
                "{}: {} heard {} port {}, not what the lab cabled there",
                names[i], h.ifname, h.system, h.port_id
            ));
        }
    }
    if lines.len() > limit {
        let more = lines.len() - limit;
        lines.truncate(limit);
        lines.push(format!("and {more} more LLDP differences"));
    }
    (heard, wired, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_neighbour_is_an_object_several_a_list() {
        let swp1 = r#"{"swp1":{"via":"LLDP","chassis":{"spine1":{"id":{"type":"mac","value":"02:af:00:00:00:01"}}},"port":{"id":{"type":"local","value":"etp1"},"descr":"leaf1:Ethernet1/5"}}}"#;
        let swp2 = r#"{"swp2":{"chassis":{"id":{"type":"mac","value":"x"}},"port":{"id":{"type":"mac","value":"y"}}}}"#;
        let h = parse(&format!(r#"{{"lldp":{{"interface":{swp1}}}}}"#)).expect("parse");
        let spine1 = Heard {
            ifname: "swp1".into(),
            system: "spine1".into(),
            port_id: "etp1".into(),
        };
        assert_eq!(h, vec![spine1.clone()]);
        let h = parse(&format!(r#"{{"lldp":{{"interface":[{swp2},{swp1}]}}}}"#)).expect("parse");
        let unnamed = Heard {
            ifname: "swp2".into(),
            system: String::new(),
            port_id: "y".into(),
        };
        assert_eq!(h, vec![spine1, unnamed]);
        assert_eq!(parse(r#"{"lldp":{}}"#).expect("parse"), vec![]);
        assert!(parse("{").is_err());
    }

    #[test]
    fn lldpcli_values_are_quoted_or_refused() {
        assert_eq!(quote("Ethernet1/5").as_deref(), Ok("\"Ethernet1/5\""));
        assert!(quote("a\"b").is_err());
        assert!(quote("").is_err());
        assert!(quote("a\nb").is_err());
    }
}
