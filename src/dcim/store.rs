//! What a DCIM must answer for a sync, and the sync itself: read every kind in creation order (each
//! read may use the ids of the kinds before it), compare ([`super::diff`]), then delete in reverse
//! order and create and update in creation order. Every write is keyed and tagged, so a sync cut short
//! leaves objects the next run recognizes and finishes: nothing it wrote needs undoing first.

use super::diff::{self, Changes, Update};
use super::{Existing, Kind, Object};
use std::collections::HashMap;

/// Why a sync stopped (its `Display` is the message).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The Nautobot store failed.
    #[error(transparent)]
    Nautobot(#[from] super::errors::NautobotError),
    /// The in-memory store's set failure (an interrupted sync, in the tests).
    #[error("connection lost")]
    Interrupted,
    /// Lookups the DCIM lacks (a status).
    #[error(
        "the DCIM has no {}: aifab uses these as they are and does not create them; nothing written",
        missing.join(", ")
    )]
    MissingLookups {
        /// Each, as `kind key`.
        missing: Vec<String>,
    },
}

impl From<super::http::HttpError> for StoreError {
    fn from(e: super::http::HttpError) -> StoreError {
        StoreError::Nautobot(e.into())
    }
}

/// The server ids of the objects read or created so far, both ways.
#[derive(Clone, Debug, Default)]
pub struct Ids {
    by_key: HashMap<(Kind, String), String>,
    by_id: HashMap<String, (Kind, String)>,
}

impl Ids {
    /// Records an object's id (the first one recorded for a key stays, unless `prefer`).
    pub fn insert(&mut self, kind: Kind, key: &str, id: &str, prefer: bool) {
        let slot = (kind, key.to_string());
        if prefer || !self.by_key.contains_key(&slot) {
            self.by_key.insert(slot.clone(), id.to_string());
        }
        self.by_id.insert(id.to_string(), slot);
    }

    /// The id of the object of `kind` and `key`.
    pub fn id(&self, kind: Kind, key: &str) -> Option<&str> {
        self.by_key
            .get(&(kind, key.to_string()))
            .map(String::as_str)
    }

    /// The key of the object with id `id`, when it is of `kind`.
    pub fn key(&self, kind: Kind, id: &str) -> Option<&str> {
        self.by_id
            .get(id)
            .filter(|(k, _)| *k == kind)
            .map(|(_, key)| key.as_str())
    }

    /// The keys of every object of `kind`, sorted.
    pub fn all_keys(&self, kind: Kind) -> Vec<String> {
        let mut v: Vec<String> = self
            .by_key
            .keys()
            .filter(|(k, _)| *k == kind)
            .map(|(_, key)| key.clone())
            .collect();
        v.sort_unstable();
        v
    }

    /// The ids of every object of `kind`.
    pub fn all(&self, kind: Kind) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .by_key
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, id)| id.as_str())
            .collect();
        v.sort_unstable();
        v
    }
}

/// A DCIM, as the sync uses it. Errors are whole sentences that name the object and the server.
pub trait Store {
    /// The objects of `kind` that matter for `wanted` (the keys the plan has of that kind): those of
    /// the plan's keys and those tagged for the fabric. `ids` holds the earlier kinds' ids.
    fn read(
        &mut self,
        kind: Kind,
        wanted: &[&Object],
        ids: &Ids,
    ) -> Result<Vec<Existing>, StoreError>;
    /// Creates the objects, returning their ids in order.
    fn create(
        &mut self,
        kind: Kind,
        objects: &[&Object],
        ids: &Ids,
    ) -> Result<Vec<String>, StoreError>;
    /// Updates the objects.
    fn update(&mut self, kind: Kind, updates: &[&Update], ids: &Ids) -> Result<(), StoreError>;
    /// Deletes the objects.
    fn delete(&mut self, kind: Kind, objects: &[&Existing]) -> Result<(), StoreError>;
    /// Write requests made so far.
    fn writes(&self) -> usize;
}

/// What a sync found and did.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The difference before any write.
    pub changes: Changes,
    /// Whether the changes were written.
    pub applied: bool,
    /// Write requests made.
    pub write_requests: usize,
}

/// Reads what the DCIM holds of every kind the plan has, recording ids.
pub fn read_all(
    store: &mut dyn Store,
    desired: &[Object],
    ids: &mut Ids,
) -> Result<Vec<Existing>, StoreError> {
    let mut existing = Vec::new();
    for kind in Kind::ALL {
        let wanted: Vec<&Object> = desired.iter().filter(|o| o.kind == kind).collect();
        let found = store.read(kind, &wanted, ids)?;
        for e in &found {
            ids.insert(kind, &e.key, &e.id, e.tagged);
        }
        existing.extend(found);
    }
    Ok(existing)
}

/// Compares the plan with the store and, unless `dry_run`, writes the difference. A lookup the DCIM
/// lacks (a status) is an error before anything is written.
pub fn sync(
    store: &mut dyn Store,
    desired: &[Object],
    opts: diff::Options,
    dry_run: bool,
) -> Result<Outcome, StoreError> {
    let mut ids = Ids::default();
    let existing = read_all(store, desired, &mut ids)?;
    let changes = diff::diff(desired, &existing, opts);
    let missing: Vec<String> = changes
        .kinds
        .iter()
        .flat_map(|(k, c)| c.missing.iter().map(move |m| format!("{k} {m}")))
        .collect();
    if !missing.is_empty() && !dry_run {
        return Err(StoreError::MissingLookups { missing });
    }
    let before = store.writes();
    let mut changes = changes;
    if !dry_run {
        changes = apply_in_two_passes(store, desired, opts, changes, &mut ids)?;
    }
    Ok(Outcome {
        changes,
        applied: !dry_run,
        write_requests: store.writes() - before,
    })
}

/// Writes `changes`. When it creates devices of a type with interface templates, Nautobot makes
/// their interfaces from the templates: the writes stop after the devices, everything is read again
/// and the rest written from a second comparison (which finds those interfaces and only adjusts
/// them). The changes returned are the first comparison's up to the devices and the second's after.
fn apply_in_two_passes(
    store: &mut dyn Store,
    desired: &[Object],
    opts: diff::Options,
    changes: Changes,
    ids: &mut Ids,
) -> Result<Changes, StoreError> {
    let makes_devices = changes
        .kinds
        .get(&Kind::Device)
        .is_some_and(|c| !c.creates.is_empty());
    let templated = desired.iter().any(|o| o.kind == Kind::InterfaceTemplate);
    if !(makes_devices && templated) {
        apply(store, &changes, ids, Kind::Cable)?;
        return Ok(changes);
    }
    apply(store, &changes, ids, Kind::Device)?;
    let mut again = Ids::default();
    let existing = read_all(store, desired, &mut again)?;
    let rest = diff::diff(desired, &existing, opts);
    apply(store, &rest, &mut again, Kind::Cable)?;
    *ids = again;
    let mut merged = changes;
    for (kind, mut c) in rest.kinds.into_iter().filter(|(k, _)| *k > Kind::Device) {
        if let Some(first) = merged.kinds.remove(&kind) {
            c.deletes.splice(0..0, first.deletes);
        }
        merged.kinds.insert(kind, c);
    }
    merged
        .kinds
        .retain(|k, c| *k <= Kind::Device || *c != diff::KindChanges::default());
    Ok(merged)
}

/// Writes `changes`: deletions in reverse creation order, then creations and updates kind by kind,
/// up to the kind `last`.
fn apply(
    store: &mut dyn Store,
    changes: &Changes,
    ids: &mut Ids,
    last: Kind,
) -> Result<(), StoreError> {
    for (kind, c) in changes.kinds.iter().rev() {
        if !c.deletes.is_empty() {
            let dead: Vec<&Existing> = c.deletes.iter().collect();
            store.delete(*kind, &dead)?;
        }
    }
    for (kind, c) in changes.kinds.iter().filter(|(k, _)| **k <= last) {
        let new: Vec<&Object> = c.creates.iter().collect();
        if !new.is_empty() {
            let made = store.create(*kind, &new, ids)?;
            for (o, id) in new.iter().zip(&made) {
                ids.insert(*kind, &o.key, id, true);
            }
        }
        let changed: Vec<&Update> = c.updates.iter().collect();
        if !changed.is_empty() {
            store.update(*kind, &changed, ids)?;
        }
    }
    Ok(())
}

/// An in-memory DCIM for the tests: objects by kind and key, every write counted, and a write that
/// fails after a set number (an interrupted sync).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// The objects it holds.
    pub objects: Vec<Existing>,
    /// Write requests made.
    pub write_count: usize,
    /// Fail every write request after this many.
    pub fail_after: Option<usize>,
    next_id: usize,
}

impl Memory {
    /// What Nautobot does when it creates a device: an untagged interface per template of its type.
    fn instantiate(&mut self, device: &Object) {
        let Some(ty) = device.fields.get("device_type") else {
            return;
        };
        let made: Vec<Existing> = self
            .objects
            .iter()
            .filter(|t| {
                t.kind == Kind::InterfaceTemplate && t.fields.get("device_type") == Some(ty)
            })
            .filter_map(|t| match t.fields.get("name") {
                Some(super::Value::Str(name)) => Some((t, name)),
                _ => None,
            })
            .map(|(t, name)| {
                let mut fields = t.fields.clone();
                fields.remove("device_type");
                fields.remove("name");
                fields.insert("device".into(), super::Value::r(Kind::Device, &device.key));
                Existing {
                    kind: Kind::Interface,
                    key: format!("{}:{name}", device.key),
                    id: format!("{}@{}", t.id, device.key),
                    fields,
                    tagged: false,
                    tag_ids: Vec::new(),
                }
            })
            .collect();
        self.objects.extend(made);
    }

    fn write(&mut self) -> Result<(), StoreError> {
        if self.fail_after.is_some_and(|n| self.write_count >= n) {
            return Err(StoreError::Interrupted);
        }
        self.write_count += 1;
        Ok(())
    }
}

impl Store for Memory {
    fn read(&mut self, kind: Kind, _: &[&Object], _: &Ids) -> Result<Vec<Existing>, StoreError> {
        Ok(self
            .objects
            .iter()
            .filter(|e| e.kind == kind)
            .cloned()
            .collect())
    }

    fn create(
        &mut self,
        kind: Kind,
        objects: &[&Object],
        _: &Ids,
    ) -> Result<Vec<String>, StoreError> {
        self.write()?;
        let mut made = Vec::new();
        for o in objects {
            self.next_id += 1;
            let id = format!("m{}", self.next_id);
            let mut fields = o.fields.clone();
            if kind.ownership() != super::Ownership::Tagged {
                fields.extend(o.create_only.clone());
            }
            self.objects.push(Existing {
                kind,
                key: o.key.clone(),
                id: id.clone(),
                fields,
                tagged: kind.ownership() == super::Ownership::Tagged,
                tag_ids: Vec::new(),
            });
            if kind == Kind::Device {
                self.instantiate(o);
            }
            made.push(id);
        }
        Ok(made)
    }

    fn update(&mut self, _: Kind, updates: &[&Update], _: &Ids) -> Result<(), StoreError> {
        self.write()?;
        for u in updates {
            if let Some(e) = self.objects.iter_mut().find(|e| e.id == u.id) {
                e.fields.extend(u.set.clone());
                e.tagged |= u.adopt;
            }
        }
        Ok(())
    }

    fn delete(&mut self, _: Kind, objects: &[&Existing]) -> Result<(), StoreError> {
        self.write()?;
        self.objects
            .retain(|e| !objects.iter().any(|o| o.id == e.id));
        Ok(())
    }

    fn writes(&self) -> usize {
        self.write_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcim::Value;

    fn plan(devices: &[&str]) -> Vec<Object> {
        let mut v = vec![Object::new(Kind::Role, "leaf")];
        for d in devices {
            v.push(Object::new(Kind::Device, *d).with("role", Value::r(Kind::Role, "leaf")));
            v.push(
                Object::new(Kind::Interface, format!("{d}:eth1"))
                    .with("mtu", Value::Int(9214))
                    .with_create("device", Value::r(Kind::Device, *d)),
            );
        }
        v
    }

    #[test]
    fn a_second_sync_writes_nothing() {
        let mut m = Memory::default();
        let want = plan(&["a", "b"]);
        let first = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        assert_eq!(first.changes.writes(), 5);
        assert_eq!(first.write_requests, 3);
        let second = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        assert!(second.changes.is_empty(), "{:?}", second.changes);
        assert_eq!(second.write_requests, 0);
    }

    #[test]
    fn a_device_made_of_a_templated_type_has_its_interfaces_adjusted_not_created() {
        let mut m = Memory::default();
        let mut want = vec![
            Object::new(Kind::DeviceType, "t1"),
            Object::new(Kind::InterfaceTemplate, "t1:eth1")
                .with_create("device_type", Value::r(Kind::DeviceType, "t1"))
                .with_create("name", Value::str("eth1")),
        ];
        for o in plan(&["a", "b"]) {
            want.push(match o.kind {
                Kind::Device => o.with("device_type", Value::r(Kind::DeviceType, "t1")),
                _ => o,
            });
        }
        let first = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        let ifc = &first.changes.kinds[&Kind::Interface];
        assert_eq!((ifc.creates.len(), ifc.updates.len()), (0, 2), "{ifc:?}");
        assert!(
            ifc.updates
                .iter()
                .all(|u| u.adopt && u.set["mtu"] == Value::Int(9214))
        );
        let interfaces: Vec<&Existing> = m
            .objects
            .iter()
            .filter(|e| e.kind == Kind::Interface)
            .collect();
        assert_eq!(interfaces.len(), 2);
        assert!(interfaces.iter().all(|e| e.tagged));
        let second = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        assert_eq!((second.write_requests, second.changes.writes()), (0, 0));
    }

    #[test]
    fn an_interrupted_sync_is_finished_by_the_next() {
        let mut m = Memory {
            fail_after: Some(2),
            ..Memory::default()
        };
        let want = plan(&["a", "b"]);
        assert!(sync(&mut m, &want, diff::Options::default(), false).is_err());
        assert!(m.objects.iter().all(|e| e.kind != Kind::Interface));
        m.fail_after = None;
        let next = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        assert_eq!(next.changes.kinds[&Kind::Interface].creates.len(), 2);
        assert!(!next.changes.kinds.contains_key(&Kind::Device));
        let last = sync(&mut m, &want, diff::Options::default(), false).expect("sync");
        assert!(last.changes.is_empty());
    }

    #[test]
    fn a_dry_run_writes_nothing_and_a_shrunk_plan_deletes_the_rest() {
        let mut m = Memory::default();
        sync(&mut m, &plan(&["a", "b"]), diff::Options::default(), false).expect("sync");
        let n = m.objects.len();
        let dry = sync(&mut m, &plan(&["a"]), diff::Options::default(), true).expect("dry");
        assert_eq!((dry.write_requests, m.objects.len()), (0, n));
        assert_eq!(dry.changes.kinds[&Kind::Device].deletes[0].key, "b");
        sync(&mut m, &plan(&["a"]), diff::Options::default(), false).expect("sync");
        assert_eq!(m.objects.len(), n - 2);
    }
}
