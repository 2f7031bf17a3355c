//! The plan against what the DCIM holds: what to create, update and delete, per kind, under the
//! ownership rule of [`super::Ownership`]. A desired object that refers to an object aifab may not
//! use (an untagged device in the way, a status the DCIM lacks) is blocked, with the reason, and so is
//! everything that refers to it in turn.

use super::{Existing, Fields, Kind, Object, Ownership, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How the diff treats untagged objects in the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Take them over: tag them for the fabric and update them (`--adopt`).
    pub adopt: bool,
}

/// One object to update: the fields that differ, before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// The object's key.
    pub key: String,
    /// The server's id.
    pub id: String,
    /// The fields to set, with their new values.
    pub set: Fields,
    /// The same fields as the DCIM holds them.
    pub was: Fields,
    /// Whether the update adopts the object (adds the fabric's tag to `tag_ids`).
    pub adopt: bool,
    /// The tags it carries now.
    pub tag_ids: Vec<String>,
}

/// An object aifab leaves alone, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Held {
    /// The object's key.
    pub key: String,
    /// Why it is left alone.
    pub why: String,
}

/// What one kind needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindChanges {
    /// Objects to create.
    pub creates: Vec<Object>,
    /// Objects to update.
    pub updates: Vec<Update>,
    /// Tagged objects the plan no longer has.
    pub deletes: Vec<Existing>,
    /// Untagged objects in the way of a planned one (left alone).
    pub conflicts: Vec<Held>,
    /// Planned objects that cannot be written: they refer to a conflict or a missing lookup.
    pub blocked: Vec<Held>,
    /// Lookups (statuses, the namespace) the DCIM does not have.
    pub missing: Vec<String>,
}

impl KindChanges {
    /// Creates, updates and deletes.
    pub fn writes(&self) -> usize {
        self.creates.len() + self.updates.len() + self.deletes.len()
    }
}

/// The whole difference, per kind in creation order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Each kind's changes (kinds with none are absent).
    pub kinds: BTreeMap<Kind, KindChanges>,
}

impl Changes {
    /// Objects to create, update or delete, in all kinds.
    pub fn writes(&self) -> usize {
        self.kinds.values().map(KindChanges::writes).sum()
    }

    /// Conflicts, blocked objects and missing lookups, in all kinds.
    pub fn held(&self) -> usize {
        self.kinds
            .values()
            .map(|k| k.conflicts.len() + k.blocked.len() + k.missing.len())
            .sum()
    }

    /// Whether the DCIM holds exactly the plan.
    pub fn is_empty(&self) -> bool {
        self.writes() == 0 && self.held() == 0
    }

    fn of(&mut self, kind: Kind) -> &mut KindChanges {
        self.kinds.entry(kind).or_default()
    }
}

/// The existing objects by kind and key: the tagged one when the DCIM holds several of one key.
fn index(existing: &[Existing]) -> HashMap<(Kind, &str), &Existing> {
    let mut by: HashMap<(Kind, &str), &Existing> = HashMap::new();
    for e in existing {
        let slot = by.entry((e.kind, e.key.as_str())).or_insert(e);
        if e.tagged && !slot.tagged {
            *slot = e;
        }
    }
    by
}

/// The key of the object of kind `parent` that `fields` refer to (a derived object's owner).
fn parent_key(fields: &Fields, create_only: &Fields, parent: Kind) -> Option<String> {
    fields
        .values()
        .chain(create_only.values())
        .find_map(|v| match v {
            Value::Ref(k, key) if *k == parent => Some(key.clone()),
            _ => None,
        })
}

/// Compares the plan with what the DCIM holds.
pub fn diff(desired: &[Object], existing: &[Existing], opts: Options) -> Changes {
    let by = index(existing);
    let mut changes = Changes::default();
    // Objects a planned one may not refer to, with the reason.
    let mut blocked: HashMap<(Kind, String), String> = HashMap::new();
    // Tagged-kind objects aifab owns (tagged or adopted), for derived kinds.
    let mut owned: HashSet<(Kind, String)> = HashSet::new();
    let mut wanted: HashSet<(Kind, &str)> = HashSet::new();
    let mut order: Vec<&Object> = desired.iter().collect();
    order.sort_by_key(|o| o.kind);
    for o in order {
        wanted.insert((o.kind, o.key.as_str()));
        if let Some(why) = blocked_by(o, &blocked) {
            blocked.insert((o.kind, o.key.clone()), why.clone());
            changes.of(o.kind).blocked.push(Held {
                key: o.key.clone(),
                why,
            });
            continue;
        }
        let found = by.get(&(o.kind, o.key.as_str())).copied();
        one(o, found, opts, &mut changes, &mut blocked, &mut owned);
    }
    deletions(existing, &by, &wanted, &owned, &mut changes);
    changes.kinds.retain(|_, k| *k != KindChanges::default());
    changes
}

/// Why `o` cannot be written: the first object it refers to that is blocked.
fn blocked_by(o: &Object, blocked: &HashMap<(Kind, String), String>) -> Option<String> {
    o.refs().find_map(|(k, key)| {
        blocked
            .get(&(k, key.to_string()))
            .map(|_| format!("it refers to {k} {key}, which aifab may not write"))
    })
}

/// The change one planned object needs, given the existing object of its key.
fn one(
    o: &Object,
    found: Option<&Existing>,
    opts: Options,
    changes: &mut Changes,
    blocked: &mut HashMap<(Kind, String), String>,
    owned: &mut HashSet<(Kind, String)>,
) {
    let own = o.kind.ownership();
    let Some(e) = found else {
        if own == Ownership::Lookup {
            blocked.insert((o.kind, o.key.clone()), "missing".into());
            changes.of(o.kind).missing.push(o.key.clone());
        } else {
            owned.insert((o.kind, o.key.clone()));
            changes.of(o.kind).creates.push(o.clone());
        }
        return;
    };
    match own {
        Ownership::Shared if o.kind == Kind::Tag => widen_tag(o, e, changes),
        Ownership::Lookup | Ownership::Shared => {}
        Ownership::Tagged if !e.tagged && !opts.adopt && !made_with_owned_device(o, owned) => {
            let why = format!(
                "{} {} exists without the fabric's tag (made by hand?): left alone; --adopt takes it over",
                o.kind, o.key
            );
            blocked.insert((o.kind, o.key.clone()), why.clone());
            changes.of(o.kind).conflicts.push(Held {
                key: o.key.clone(),
                why,
            });
        }
        Ownership::Tagged => {
            owned.insert((o.kind, o.key.clone()));
            update(o, e, !e.tagged, changes);
        }
        Ownership::Derived(parent) => {
            let ours = parent_key(&o.fields, &o.create_only, parent)
                .is_some_and(|p| owned.contains(&(parent, p)));
            if ours {
                update(o, e, false, changes);
            }
        }
    }
}

/// The fabric's tag made by an earlier aifab (before it wrote VLANs) may lack content types the plan
/// tags now: Nautobot refuses a tag on a type it does not list, so the missing ones are added (the
/// tag is the fabric's own; the types it has are kept).
fn widen_tag(o: &Object, e: &Existing, changes: &mut Changes) {
    let (Some(Value::List(want)), Some(Value::List(have))) = (
        o.create_only.get("content_types"),
        e.fields.get("content_types"),
    ) else {
        return;
    };
    if want.iter().all(|t| have.contains(t)) {
        return;
    }
    let mut all: Vec<String> = have.iter().chain(want).cloned().collect();
    all.sort_unstable();
    all.dedup();
    let name = "content_types".to_string();
    changes.of(o.kind).updates.push(Update {
        key: o.key.clone(),
        id: e.id.clone(),
        set: Fields::from([(name.clone(), Value::List(all))]),
        was: Fields::from([(name, Value::List(have.clone()))]),
        adopt: false,
        tag_ids: e.tag_ids.clone(),
    });
}

/// Whether `o` is an interface of a device aifab owns: Nautobot made it, untagged, from the device
/// type's interface templates when it created the device, so it is the fabric's to tag and set.
fn made_with_owned_device(o: &Object, owned: &HashSet<(Kind, String)>) -> bool {
    o.kind == Kind::Interface
        && parent_key(&o.fields, &o.create_only, Kind::Device)
            .is_some_and(|d| owned.contains(&(Kind::Device, d)))
}

/// Records an update of `e` to `o`'s fields when any differs (or when adopting).
fn update(o: &Object, e: &Existing, adopt: bool, changes: &mut Changes) {
    let mut set = Fields::new();
    let mut was = Fields::new();
    for (name, want) in &o.fields {
        let have = e.fields.get(name).unwrap_or(&Value::Null);
        if have != want {
            set.insert(name.clone(), want.clone());
            was.insert(name.clone(), have.clone());
        }
    }
    if set.is_empty() && !adopt {
        return;
    }
    changes.of(o.kind).updates.push(Update {
        key: o.key.clone(),
        id: e.id.clone(),
        set,
        was,
        adopt,
        tag_ids: e.tag_ids.clone(),
    });
}

/// Existing objects aifab owns that the plan no longer has: tagged ones of tagged kinds, and derived
/// ones whose owner is aifab's.
fn deletions(
    existing: &[Existing],
    by: &HashMap<(Kind, &str), &Existing>,
    wanted: &HashSet<(Kind, &str)>,
    owned: &HashSet<(Kind, String)>,
    changes: &mut Changes,
) {
    let mut seen: HashSet<&str> = HashSet::new();
    for e in existing {
        if wanted.contains(&(e.kind, e.key.as_str()))
            && by.get(&(e.kind, e.key.as_str())) == Some(&e)
        {
            continue;
        }
        let ours = match e.kind.ownership() {
            Ownership::Tagged => e.tagged,
            // A primary IP is a field of its device, which goes with the device.
            Ownership::Derived(Kind::Device) => false,
            Ownership::Derived(parent) => parent_key(&e.fields, &Fields::new(), parent)
                .is_some_and(|p| {
                    owned.contains(&(parent, p.clone()))
                        || by.get(&(parent, p.as_str())).is_some_and(|x| x.tagged)
                }),
            Ownership::Lookup | Ownership::Shared => false,
        };
        if ours && seen.insert(e.id.as_str()) {
            changes.of(e.kind).deletes.push(e.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, role: &str) -> Object {
        Object::new(Kind::Device, name)
            .with("role", Value::r(Kind::Role, role))
            .with("status", Value::r(Kind::Status, "Active"))
    }

    fn have(o: &Object, id: &str, tagged: bool) -> Existing {
        Existing {
            kind: o.kind,
            key: o.key.clone(),
            id: id.into(),
            fields: o.fields.clone(),
            tagged,
            tag_ids: Vec::new(),
        }
    }

    fn lookups() -> Vec<Object> {
        vec![
            Object::new(Kind::Status, "Active"),
            Object::new(Kind::Role, "leaf"),
        ]
    }

    #[test]
    fn nothing_there_creates_everything_but_the_lookups() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        let existing = vec![have(&want[0], "s1", false)];
        let c = diff(&want, &existing, Options::default());
        assert_eq!(c.kinds[&Kind::Role].creates.len(), 1);
        assert_eq!(c.kinds[&Kind::Device].creates[0].key, "leaf1");
        assert!(!c.kinds.contains_key(&Kind::Status));
        assert_eq!(c.writes(), 2);
    }

    #[test]
    fn the_same_objects_need_no_write() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        let existing: Vec<Existing> = want
            .iter()
            .enumerate()
            .map(|(i, o)| have(o, &format!("id{i}"), o.kind == Kind::Device))
            .collect();
        let c = diff(&want, &existing, Options::default());
        assert!(c.is_empty(), "{c:?}");
    }

    #[test]
    fn a_changed_field_of_a_tagged_object_is_updated_with_its_old_value() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        let mut existing: Vec<Existing> = want.iter().map(|o| have(o, "x", true)).collect();
        existing[2].id = "d1".into();
        existing[2]
            .fields
            .insert("role".into(), Value::r(Kind::Role, "spine"));
        let c = diff(&want, &existing, Options::default());
        let u = &c.kinds[&Kind::Device].updates[0];
        assert_eq!((u.id.as_str(), u.adopt), ("d1", false));
        assert_eq!(u.set["role"], Value::r(Kind::Role, "leaf"));
        assert_eq!(u.was["role"], Value::r(Kind::Role, "spine"));
    }

    #[test]
    fn an_untagged_object_in_the_way_is_held_with_its_dependents_unless_adopted() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        want.push(
            Object::new(Kind::Interface, "leaf1:Ethernet1/1")
                .with_create("device", Value::r(Kind::Device, "leaf1")),
        );
        let mut existing: Vec<Existing> = want[..2].iter().map(|o| have(o, "x", false)).collect();
        existing.push(have(&want[2], "hand", false));
        let c = diff(&want, &existing, Options::default());
        assert_eq!(c.kinds[&Kind::Device].conflicts[0].key, "leaf1");
        assert_eq!(
            c.kinds[&Kind::Interface].blocked[0].key,
            "leaf1:Ethernet1/1"
        );
        assert_eq!(c.writes(), 0);
        let c = diff(&want, &existing, Options { adopt: true });
        assert!(c.kinds[&Kind::Device].updates[0].adopt);
        assert_eq!(c.kinds[&Kind::Interface].creates.len(), 1);
        assert_eq!(c.held(), 0);
    }

    #[test]
    fn an_untagged_interface_of_an_owned_device_is_taken_over_not_held() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        let port = Object::new(Kind::Interface, "leaf1:Ethernet1/1")
            .with("description", Value::str("spine1:Ethernet1/1"))
            .with_create("device", Value::r(Kind::Device, "leaf1"));
        want.push(port.clone());
        let mut existing: Vec<Existing> = want[..2].iter().map(|o| have(o, "x", false)).collect();
        existing.push(have(&want[2], "d1", true));
        // Made from the device type's template: untagged, no description.
        let mut made = have(&port, "i1", false);
        made.fields.insert("description".into(), Value::str(""));
        existing.push(made);
        let c = diff(&want, &existing, Options::default());
        let u = &c.kinds[&Kind::Interface].updates[0];
        assert_eq!((u.id.as_str(), u.adopt), ("i1", true));
        assert_eq!(u.set["description"], Value::str("spine1:Ethernet1/1"));
        assert_eq!(c.held(), 0);
        // The same interface on a device made by hand stays held.
        existing[2].tagged = false;
        let c = diff(&want, &existing, Options::default());
        assert_eq!(c.kinds[&Kind::Interface].blocked.len(), 1);
        assert_eq!(c.writes(), 0);
    }

    #[test]
    fn the_fabrics_tag_gains_the_content_types_it_lacks_and_keeps_its_others() {
        let words = |w: &[&str]| Value::List(w.iter().map(|s| s.to_string()).collect());
        let tag = Object::new(Kind::Tag, "aifab:f")
            .with_create("content_types", words(&["dcim.device", "ipam.vlan"]));
        let mut old = have(&tag, "t1", false);
        old.fields
            .insert("content_types".into(), words(&["dcim.device", "dcim.rack"]));
        let c = diff(
            std::slice::from_ref(&tag),
            &[old.clone()],
            Options::default(),
        );
        let u = &c.kinds[&Kind::Tag].updates[0];
        assert_eq!(u.id, "t1");
        assert_eq!(
            u.set["content_types"],
            words(&["dcim.device", "dcim.rack", "ipam.vlan"])
        );
        old.fields.insert(
            "content_types".into(),
            words(&["dcim.rack", "ipam.vlan", "dcim.device"]),
        );
        assert!(diff(&[tag], &[old], Options::default()).is_empty());
    }

    #[test]
    fn only_tagged_objects_the_plan_lost_are_deleted() {
        let want = lookups();
        let gone = dev("old-leaf", "leaf");
        let hand = dev("hand-made", "leaf");
        let mut existing: Vec<Existing> = want.iter().map(|o| have(o, "x", false)).collect();
        existing.push(have(&gone, "g", true));
        existing.push(have(&hand, "h", false));
        let c = diff(&want, &existing, Options::default());
        let deletes: Vec<&str> = c.kinds[&Kind::Device]
            .deletes
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(deletes, ["g"]);
    }

    #[test]
    fn a_missing_lookup_blocks_what_refers_to_it() {
        let mut want = lookups();
        want.push(dev("leaf1", "leaf"));
        let c = diff(&want, &[], Options::default());
        assert_eq!(c.kinds[&Kind::Status].missing, ["Active"]);
        assert!(
            c.kinds[&Kind::Device].blocked[0]
                .why
                .contains("status Active")
        );
    }

    #[test]
    fn an_assignment_of_an_owned_address_is_replaced_when_it_moves() {
        let ip = Object::new(Kind::IpAddress, "10.0.0.1/32");
        let assign = |ifc: &str| {
            Object::new(Kind::IpAssignment, format!("10.0.0.1/32@{ifc}"))
                .with_create("ip_address", Value::r(Kind::IpAddress, "10.0.0.1/32"))
                .with_create("interface", Value::r(Kind::Interface, ifc))
        };
        let want = vec![ip.clone(), assign("a:Loopback0")];
        let mut old = have(&assign("b:Loopback0"), "as1", false);
        old.fields = assign("b:Loopback0").create_only;
        let existing = vec![have(&ip, "ip1", true), old];
        let c = diff(&want, &existing, Options::default());
        let k = &c.kinds[&Kind::IpAssignment];
        assert_eq!(k.creates[0].key, "10.0.0.1/32@a:Loopback0");
        assert_eq!(k.deletes[0].id, "as1");
    }
}
