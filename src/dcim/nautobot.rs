//! The Nautobot 2.x REST store: where each kind lives (`/api/dcim/devices/`, ...), its natural key,
//! the fields aifab compares, the reads that find the plan's objects and the fabric's tagged ones,
//! and bulk writes (a list per request: POST creates, PATCH updates, DELETE deletes).

pub use super::errors::{MAJOR, NautobotError, TESTED};
use super::http::{Client, HttpError, q};
use super::store::{Ids, Store, StoreError};
use super::{Existing, Fields, Kind, Object, Value, diff::Update, plan::cable_key};
use serde_json::{Map, Value as Json, json};
use std::time::Duration;

/// Objects per write request unless [`Nautobot::with_batch`] says otherwise (`--batch-size`).
pub const BATCH: usize = 100;
/// Write requests of one kind in flight at once (the test server runs two worker processes).
const PARALLEL: usize = 2;
/// Values per filter of a read request (keeps the URL short).
const CHUNK: usize = 40;

/// A Nautobot server, as a [`Store`] for one fabric.
pub struct Nautobot {
    client: Client,
    tag: String,
    location: String,
    namespace: String,
    /// Objects per write request.
    batch: usize,
    /// The devices' primary addresses as read: device key, device id, `primary_ip4`, `primary_ip6` ids.
    primaries: Vec<(String, String, Json, Json)>,
}

/// How a compared field reads back.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int,
    Bool,
    /// A list of words, read sorted (a tag's content types).
    List,
    Ref(Kind),
}

impl Nautobot {
    /// Connects: reads `/api/status/` (which also checks the token) and refuses a major version other
    /// than [`MAJOR`].
    pub fn connect(
        base: &str,
        token: &str,
        timeout: Duration,
        tag: &str,
        location: &str,
        namespace: &str,
    ) -> Result<(Nautobot, String), NautobotError> {
        let client = Client::new(base, token, timeout);
        let status = client.call("GET", "status/", None, "the server's version")?;
        let version = status
            .get("nautobot-version")
            .and_then(Json::as_str)
            .ok_or_else(|| NautobotError::NotNautobot {
                base: base.to_string(),
            })?
            .to_string();
        let major = version
            .split('.')
            .next()
            .and_then(|m| m.parse::<u64>().ok());
        if major != Some(MAJOR) {
            return Err(NautobotError::Major {
                base: base.to_string(),
                version,
            });
        }
        let n = Nautobot {
            client,
            tag: tag.to_string(),
            location: location.to_string(),
            namespace: namespace.to_string(),
            batch: BATCH,
            primaries: Vec::new(),
        };
        Ok((n, version))
    }

    /// The same store, writing `batch` objects per request (at least one).
    pub fn with_batch(mut self, batch: usize) -> Nautobot {
        self.batch = batch.max(1);
        self
    }

    /// Read and write requests made so far.
    pub fn requests(&self) -> (usize, usize) {
        self.client.requests()
    }
}

/// The list endpoint of a kind.
fn endpoint(kind: Kind) -> &'static str {
    match kind {
        Kind::Status => "extras/statuses/",
        Kind::Namespace => "ipam/namespaces/",
        Kind::Tag => "extras/tags/",
        Kind::CustomField => "extras/custom-fields/",
        Kind::Manufacturer => "dcim/manufacturers/",
        Kind::DeviceType => "dcim/device-types/",
        Kind::InterfaceTemplate => "dcim/interface-templates/",
        Kind::Platform => "dcim/platforms/",
        Kind::Role => "extras/roles/",
        Kind::LocationType => "dcim/location-types/",
        Kind::Location => "dcim/locations/",
        Kind::VlanGroup => "ipam/vlan-groups/",
        Kind::Vlan => "ipam/vlans/",
        Kind::Device | Kind::PrimaryIp => "dcim/devices/",
        Kind::Interface => "dcim/interfaces/",
        Kind::Prefix => "ipam/prefixes/",
        Kind::IpAddress => "ipam/ip-addresses/",
        Kind::IpAssignment => "ipam/ip-address-to-interface/",
        Kind::Cable => "dcim/cables/",
    }
}

/// The field that holds a kind's key, for kinds keyed by one field.
fn key_field(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::DeviceType => Some("model"),
        Kind::CustomField => Some("key"),
        Kind::Prefix => Some("prefix"),
        Kind::IpAddress => Some("address"),
        Kind::InterfaceTemplate
        | Kind::Vlan
        | Kind::Interface
        | Kind::IpAssignment
        | Kind::PrimaryIp
        | Kind::Cable => None,
        _ => Some("name"),
    }
}

/// The fields aifab compares, as they read back.
fn schema(kind: Kind) -> &'static [(&'static str, Ty)] {
    match kind {
        Kind::Device => &[
            ("role", Ty::Ref(Kind::Role)),
            ("device_type", Ty::Ref(Kind::DeviceType)),
            ("platform", Ty::Ref(Kind::Platform)),
            ("location", Ty::Ref(Kind::Location)),
            ("status", Ty::Ref(Kind::Status)),
            ("custom_fields.aifab_asn", Ty::Int),
        ],
        Kind::Interface => &[
            ("type", Ty::Str),
            ("status", Ty::Ref(Kind::Status)),
            ("mtu", Ty::Int),
            ("description", Ty::Str),
            ("mgmt_only", Ty::Bool),
            ("mode", Ty::Str),
            ("untagged_vlan", Ty::Ref(Kind::Vlan)),
        ],
        Kind::Tag => &[("content_types", Ty::List)],
        Kind::VlanGroup => &[("description", Ty::Str)],
        Kind::Vlan => &[
            ("name", Ty::Str),
            ("status", Ty::Ref(Kind::Status)),
            ("description", Ty::Str),
        ],
        Kind::Prefix => &[
            ("status", Ty::Ref(Kind::Status)),
            ("type", Ty::Str),
            ("description", Ty::Str),
            ("vlan", Ty::Ref(Kind::Vlan)),
        ],
        Kind::IpAddress => &[("status", Ty::Ref(Kind::Status)), ("type", Ty::Str)],
        Kind::IpAssignment => &[
            ("ip_address", Ty::Ref(Kind::IpAddress)),
            ("interface", Ty::Ref(Kind::Interface)),
        ],
        Kind::PrimaryIp => &[
            ("primary_ip4", Ty::Ref(Kind::IpAddress)),
            ("primary_ip6", Ty::Ref(Kind::IpAddress)),
        ],
        Kind::Cable => &[
            ("status", Ty::Ref(Kind::Status)),
            ("length", Ty::Int),
            ("length_unit", Ty::Str),
        ],
        _ => &[],
    }
}

/// The id of a reference as Nautobot writes it at depth 0 (`{"id": ...}`) or bare.
fn ref_id(j: &Json) -> Option<&str> {
    j.get("id").and_then(Json::as_str).or_else(|| j.as_str())
}

/// The value at a dotted path.
fn at<'j>(j: &'j Json, path: &str) -> &'j Json {
    path.split('.')
        .fold(j, |j, k| j.get(k).unwrap_or(&Json::Null))
}

/// A field as read, in aifab's terms; a reference to an object aifab did not read is its id.
fn read_value(j: &Json, ty: Ty, ids: &Ids) -> Value {
    match (ty, j) {
        (_, Json::Null) => Value::Null,
        (Ty::Str, _) => j
            .as_str()
            .or_else(|| j.get("value").and_then(Json::as_str))
            .map_or(Value::Null, Value::str),
        (Ty::Int, _) => j.as_i64().map_or(Value::Null, Value::Int),
        (Ty::Bool, _) => j.as_bool().map_or(Value::Null, Value::Bool),
        (Ty::List, _) => {
            let mut words: Vec<String> = j
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Json::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            words.sort_unstable();
            Value::List(words)
        }
        (Ty::Ref(k), _) => match ref_id(j) {
            Some(id) => ids
                .key(k, id)
                .map_or_else(|| Value::str(format!("id:{id}")), |key| Value::r(k, key)),
            None => Value::Null,
        },
    }
}

/// The key of an interface by its id: `device:name` when aifab read it, else `id:<id>`.
fn interface_key(ids: &Ids, id: Option<&str>) -> String {
    let id = id.unwrap_or("?");
    ids.key(Kind::Interface, id)
        .map_or_else(|| format!("id:{id}"), str::to_string)
}

/// The natural key of an object as read; None for one aifab cannot key (an interface of a device it
/// did not read, a VM interface's address).
fn key_of(kind: Kind, j: &Json, ids: &Ids) -> Option<String> {
    if let Some(f) = key_field(kind) {
        return j.get(f).and_then(Json::as_str).map(str::to_string);
    }
    match kind {
        Kind::InterfaceTemplate => {
            let ty = ids.key(Kind::DeviceType, ref_id(j.get("device_type")?)?)?;
            Some(super::templates::key(ty, j.get("name")?.as_str()?))
        }
        Kind::Interface => {
            let dev = ids.key(Kind::Device, ref_id(j.get("device")?)?)?;
            Some(format!("{dev}:{}", j.get("name")?.as_str()?))
        }
        Kind::Vlan => {
            let group = ids.key(Kind::VlanGroup, ref_id(j.get("vlan_group")?)?)?;
            Some(super::vlans::key(group, j.get("vid")?.as_i64()?))
        }
        Kind::IpAssignment => {
            let ip = ids.key(Kind::IpAddress, ref_id(j.get("ip_address")?)?)?;
            let ifc = interface_key(ids, ref_id(j.get("interface")?));
            Some(format!("{ip}@{ifc}"))
        }
        Kind::Cable => {
            let a = interface_key(ids, j.get("termination_a_id").and_then(Json::as_str));
            let b = interface_key(ids, j.get("termination_b_id").and_then(Json::as_str));
            Some(cable_key(&a, &b))
        }
        _ => None,
    }
}

impl Nautobot {
    fn existing(&self, kind: Kind, j: &Json, ids: &Ids) -> Option<Existing> {
        let id = j.get("id")?.as_str()?.to_string();
        let key = key_of(kind, j, ids)?;
        let tag_ids: Vec<String> = j
            .get("tags")
            .and_then(Json::as_array)
            .map(|t| t.iter().filter_map(ref_id).map(str::to_string).collect())
            .unwrap_or_default();
        let ours = ids.id(Kind::Tag, &self.tag);
        let tagged = ours.is_some_and(|t| tag_ids.iter().any(|x| x == t));
        let fields: Fields = schema(kind)
            .iter()
            .map(|(f, ty)| (f.to_string(), read_value(at(j, f), *ty, ids)))
            .collect();
        Some(Existing {
            kind,
            key,
            id,
            fields,
            tagged,
            tag_ids,
        })
    }

    /// The read requests for `kind`: by the plan's keys, by the fabric's tag, by the devices read.
    fn queries(&self, kind: Kind, wanted: &[&Object], ids: &Ids) -> Vec<String> {
        let ep = endpoint(kind);
        let chunks = |param: &str, values: Vec<String>, extra: &str| -> Vec<String> {
            values
                .chunks(CHUNK)
                .map(|c| {
                    let f: Vec<String> = c.iter().map(|v| format!("{param}={}", q(v))).collect();
                    format!("{ep}?{extra}{}", f.join("&"))
                })
                .collect()
        };
        let keys: Vec<String> = wanted.iter().map(|o| o.key.clone()).collect();
        let tagged = ids
            .id(Kind::Tag, &self.tag)
            .map(|t| format!("{ep}?tags={t}"));
        // The ids read so far of a kind, as filter values.
        let all = |k: Kind| -> Vec<String> { ids.all(k).iter().map(|s| s.to_string()).collect() };
        let devices = all(Kind::Device);
        let mut out = match kind {
            Kind::Device => match ids.id(Kind::Location, &self.location) {
                Some(l) => chunks("name", keys, &format!("location={l}&")),
                None => Vec::new(),
            },
            Kind::InterfaceTemplate => chunks("device_type", all(Kind::DeviceType), ""),
            Kind::Interface => chunks("device", devices, ""),
            Kind::Vlan => chunks("vlan_group", all(Kind::VlanGroup), ""),
            Kind::Cable => chunks("device_id", devices, ""),
            Kind::Prefix | Kind::IpAddress => match ids.id(Kind::Namespace, &self.namespace) {
                Some(ns) if kind == Kind::Prefix => {
                    chunks("prefix", keys, &format!("namespace={ns}&"))
                }
                Some(ns) => {
                    let pools: Vec<String> = ids.all_keys(Kind::Prefix);
                    chunks("prefix", pools, &format!("namespace={ns}&"))
                }
                None => Vec::new(),
            },
            Kind::IpAssignment => {
                let ips: Vec<String> = ids
                    .all(Kind::IpAddress)
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                chunks("ip_address", ips, "")
            }
            Kind::PrimaryIp => Vec::new(),
            // The custom fields' list has no filter by key; it is short.
            Kind::CustomField => vec![ep.to_string()],
            _ => chunks(key_field(kind).unwrap_or("name"), keys, ""),
        };
        if matches!(kind.ownership(), super::Ownership::Tagged) {
            out.extend(tagged);
        }
        out
    }
}

impl Store for Nautobot {
    fn read(
        &mut self,
        kind: Kind,
        wanted: &[&Object],
        ids: &Ids,
    ) -> Result<Vec<Existing>, StoreError> {
        if kind == Kind::PrimaryIp {
            return Ok(self.primaries(ids));
        }
        if kind == Kind::Device {
            // A sync reads twice when it made devices of a templated type.
            self.primaries.clear();
        }
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        // Interfaces of earlier pages key the cables and assignments of later ones.
        let mut ids = ids.clone();
        for query in self.queries(kind, wanted, &ids) {
            let what = format!("reading the {kind}s");
            for j in self.client.list(&query, &what)? {
                if kind == Kind::Device {
                    self.remember_primary(&j);
                }
                let Some(e) = self.existing(kind, &j, &ids) else {
                    continue;
                };
                if seen.insert(e.id.clone()) {
                    ids.insert(kind, &e.key, &e.id, e.tagged);
                    out.push(e);
                }
            }
        }
        Ok(out)
    }

    fn create(
        &mut self,
        kind: Kind,
        objects: &[&Object],
        ids: &Ids,
    ) -> Result<Vec<String>, StoreError> {
        if kind == Kind::PrimaryIp {
            let set: Vec<Json> = objects
                .iter()
                .filter(|o| o.fields.values().any(|v| *v != Value::Null))
                .map(|o| primary_body(o, ids))
                .collect::<Result<_, _>>()?;
            self.write("PATCH", kind, &set, objects.iter().map(|o| o.key.as_str()))?;
            return Ok(objects.iter().map(|o| o.key.clone()).collect());
        }
        let tag = ids.id(Kind::Tag, &self.tag).map(str::to_string);
        let bodies: Vec<Json> = objects
            .iter()
            .map(|o| body(o, ids, tag.as_deref()))
            .collect::<Result<_, _>>()?;
        let made = self.write(
            "POST",
            kind,
            &bodies,
            objects.iter().map(|o| o.key.as_str()),
        )?;
        made.iter()
            .map(|j| ref_id(j).map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .filter(|v| v.len() == objects.len())
            .ok_or(NautobotError::NoIds { kind }.into())
    }

    fn update(&mut self, kind: Kind, updates: &[&Update], ids: &Ids) -> Result<(), StoreError> {
        let tag = ids.id(Kind::Tag, &self.tag).map(str::to_string);
        let bodies: Vec<Json> = updates
            .iter()
            .map(|u| {
                let mut m = Map::new();
                m.insert("id".into(), json!(u.id));
                for (f, v) in &u.set {
                    set_path(&mut m, f, to_json(v, ids, kind, &u.key)?);
                }
                if u.adopt {
                    let mut t = u.tag_ids.clone();
                    t.extend(tag.clone());
                    m.insert("tags".into(), json!(t));
                }
                Ok(Json::Object(m))
            })
            .collect::<Result<_, NautobotError>>()?;
        self.write(
            "PATCH",
            kind,
            &bodies,
            updates.iter().map(|u| u.key.as_str()),
        )?;
        Ok(())
    }

    fn delete(&mut self, kind: Kind, objects: &[&Existing]) -> Result<(), StoreError> {
        let bodies: Vec<Json> = objects.iter().map(|e| json!({ "id": e.id })).collect();
        self.write(
            "DELETE",
            kind,
            &bodies,
            objects.iter().map(|e| e.key.as_str()),
        )?;
        Ok(())
    }

    fn writes(&self) -> usize {
        self.client.requests().1
    }
}

impl Nautobot {
    fn remember_primary(&mut self, j: &Json) {
        if let (Some(id), Some(name)) = (
            j.get("id").and_then(Json::as_str),
            j.get("name").and_then(Json::as_str),
        ) {
            let v4 = j.get("primary_ip4").cloned().unwrap_or(Json::Null);
            let v6 = j.get("primary_ip6").cloned().unwrap_or(Json::Null);
            self.primaries.push((name.into(), id.into(), v4, v6));
        }
    }

    /// The primary addresses of the devices read, keyed by the addresses read since.
    fn primaries(&self, ids: &Ids) -> Vec<Existing> {
        self.primaries
            .iter()
            .filter(|(key, id, _, _)| ids.id(Kind::Device, key) == Some(id.as_str()))
            .map(|(key, id, v4, v6)| {
                let mut fields = Fields::new();
                fields.insert(
                    "primary_ip4".into(),
                    read_value(v4, Ty::Ref(Kind::IpAddress), ids),
                );
                fields.insert(
                    "primary_ip6".into(),
                    read_value(v6, Ty::Ref(Kind::IpAddress), ids),
                );
                fields.insert("device".into(), Value::r(Kind::Device, key));
                Existing {
                    kind: Kind::PrimaryIp,
                    key: key.clone(),
                    id: id.clone(),
                    fields,
                    tagged: false,
                    tag_ids: Vec::new(),
                }
            })
            .collect()
    }

    /// Sends `bodies` in batches; a rejected batch names the first object the server refused.
    fn write<'k>(
        &mut self,
        method: &str,
        kind: Kind,
        bodies: &[Json],
        keys: impl Iterator<Item = &'k str>,
    ) -> Result<Vec<Json>, NautobotError> {
        let keys: Vec<&str> = keys.collect();
        let verb = match method {
            "POST" => "creating",
            "DELETE" => "deleting",
            _ => "updating",
        };
        let size = self.batch;
        let batches: Vec<&[Json]> = bodies.chunks(size).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let answers: std::sync::Mutex<Vec<Option<Result<Json, HttpError>>>> =
            std::sync::Mutex::new((0..batches.len()).map(|_| None).collect());
        let client = &self.client;
        // A kind's batches are independent: PARALLEL at a time, answers kept in order.
        std::thread::scope(|scope| {
            for _ in 0..PARALLEL.min(batches.len()) {
                scope.spawn(|| {
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(batch) = batches.get(n) else { break };
                        let first = keys.get(n * size).copied().unwrap_or("?");
                        let what = format!(
                            "{verb} {} {kind}s (from {first}; the batches before were written, the next run finishes the rest)",
                            batch.len()
                        );
                        let body = Json::Array(batch.to_vec());
                        let answer = client.call(method, endpoint(kind), Some(&body), &what);
                        let failed = answer.is_err();
                        if let Ok(mut a) = answers.lock() {
                            a[n] = Some(answer);
                        }
                        if failed {
                            next.store(batches.len(), std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        let mut out = Vec::new();
        let answers = answers.into_inner().unwrap_or_default();
        for answer in answers.into_iter().flatten() {
            if let Json::Array(a) = answer? {
                out.extend(a);
            }
        }
        Ok(out)
    }
}

/// The JSON of a value, references as ids.
fn to_json(v: &Value, ids: &Ids, kind: Kind, key: &str) -> Result<Json, NautobotError> {
    Ok(match v {
        Value::Str(s) => json!(s),
        Value::Int(n) => json!(n),
        Value::Bool(b) => json!(b),
        Value::List(l) => json!(l),
        Value::Null => Json::Null,
        Value::Ref(k, r) => json!(ids.id(*k, r).ok_or_else(|| NautobotError::Unresolved {
            kind,
            key: key.to_string(),
            to_kind: *k,
            to_key: r.clone(),
        })?),
    })
}

/// Sets a dotted path in a JSON object.
fn set_path(m: &mut Map<String, Json>, path: &str, v: Json) {
    match path.split_once('.') {
        None => {
            m.insert(path.to_string(), v);
        }
        Some((head, rest)) => {
            let inner = m
                .entry(head.to_string())
                .or_insert_with(|| Json::Object(Map::new()));
            if let Json::Object(o) = inner {
                set_path(o, rest, v);
            }
        }
    }
}

/// The creation body of an object: its key field, its fields and, on the fabric's own kinds, its tag.
fn body(o: &Object, ids: &Ids, tag: Option<&str>) -> Result<Json, NautobotError> {
    let mut m = Map::new();
    if let Some(f) = key_field(o.kind) {
        m.insert(f.to_string(), json!(o.key));
    }
    for (f, v) in o.fields.iter().chain(&o.create_only) {
        set_path(&mut m, f, to_json(v, ids, o.kind, &o.key)?);
    }
    // Shared objects (a manufacturer, a role) are no fabric's, so they carry no fabric's tag.
    let taggable = o.kind.ownership() == super::Ownership::Tagged;
    if let (true, Some(t)) = (taggable, tag) {
        m.insert("tags".into(), json!([t]));
    }
    Ok(Json::Object(m))
}

/// The update of a device's primary addresses.
fn primary_body(o: &Object, ids: &Ids) -> Result<Json, NautobotError> {
    let id = ids
        .id(Kind::Device, &o.key)
        .ok_or_else(|| NautobotError::NoDevice {
            device: o.key.clone(),
        })?;
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    for (f, v) in &o.fields {
        m.insert(f.clone(), to_json(v, ids, o.kind, &o.key)?);
    }
    Ok(Json::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_major_version_is_refused_naming_the_one_aifab_speaks() {
        let url = crate::dcim::http::fake_server(200, r#"{"nautobot-version": "3.0.2"}"#);
        let e = Nautobot::connect(
            &url,
            "t0k3n-x",
            Duration::from_secs(5),
            "aifab:x",
            "x",
            "Global",
        )
        .err()
        .expect("refused")
        .to_string();
        assert!(
            e.contains("Nautobot 3.0.2") && e.contains("speaks the Nautobot 2.x"),
            "{e}"
        );
    }

    #[test]
    fn writes_go_in_batches_of_the_size_asked() {
        let url = crate::dcim::http::fake_server(200, r#"{"nautobot-version": "2.4.44"}"#);
        let connect = |batch: usize| {
            let (n, _) = Nautobot::connect(
                &url,
                "t0k3n-x",
                Duration::from_secs(5),
                "aifab:x",
                "x",
                "Global",
            )
            .expect("connect");
            n.with_batch(batch)
        };
        let gone: Vec<Existing> = (0..60)
            .map(|i| Existing {
                kind: Kind::Cable,
                key: format!("c{i}"),
                id: format!("id-{i}"),
                fields: Fields::new(),
                tagged: true,
                tag_ids: Vec::new(),
            })
            .collect();
        let refs: Vec<&Existing> = gone.iter().collect();
        for (batch, requests) in [(25, 3), (100, 1), (1, 60)] {
            let mut n = connect(batch);
            n.delete(Kind::Cable, &refs).expect("delete");
            assert_eq!(n.writes(), requests, "batch {batch}");
        }
    }

    #[test]
    fn a_timeout_is_said_as_such() {
        // A listener that accepts and never answers.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let e = Nautobot::connect(
            &url,
            "t0k3n-x",
            Duration::from_millis(300),
            "aifab:x",
            "x",
            "Global",
        )
        .err()
        .expect("timeout")
        .to_string();
        assert!(e.contains("timed out"), "{e}");
        drop(listener);
    }

    #[test]
    fn a_reference_reads_back_as_the_key_or_the_id() {
        let mut ids = Ids::default();
        ids.insert(Kind::Role, "leaf", "r1", false);
        let v = read_value(
            &json!({"id": "r1", "object_type": "extras.role"}),
            Ty::Ref(Kind::Role),
            &ids,
        );
        assert_eq!(v, Value::r(Kind::Role, "leaf"));
        let v = read_value(&json!({"id": "r9"}), Ty::Ref(Kind::Role), &ids);
        assert_eq!(v, Value::str("id:r9"));
        let v = read_value(&json!({"value": "m", "label": "Meters"}), Ty::Str, &ids);
        assert_eq!(v, Value::str("m"));
    }
}
