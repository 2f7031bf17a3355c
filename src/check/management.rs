//! Management addressing (`AIF-ADDR-006`, `-007`): every switch gets its own management address, none is
//! the gateway, and the management network stays out of the fabric and server pools; an intent without
//! management addressing is warned about what a push then removes (`AIF-BASE-009`).
//!
//! The pool rule reads only the intent; the collision rule reads the addresses the compiler assigned
//! (`fabric.management.first` plus each device's sequence number, or an override's `management`).

use crate::diag::Finding;
use crate::intent::{Intent, Role};
use crate::model::{AddressPool, FabricModel};
use crate::rules::Rule;
use ipnetwork::IpNetwork;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// The fabric's own pools, which nothing out of band may use.
pub(super) const POOLS: [AddressPool; 3] = [
    AddressPool::Loopbacks,
    AddressPool::FabricLinks,
    AddressPool::ServerLinks,
];

/// The intent's prefix of a pool.
pub(super) fn pool(intent: &Intent, p: AddressPool) -> IpNetwork {
    let a = &intent.fabric.addressing;
    match p {
        AddressPool::Loopbacks => a.loopbacks.0,
        AddressPool::FabricLinks => a.fabric_links.0,
        AddressPool::ServerLinks => a.server_links.0,
    }
}

/// Whether two prefixes share an address.
fn overlap(a: IpNetwork, b: IpNetwork) -> bool {
    a.contains(b.network()) || b.contains(a.network())
}

/// AIF-BASE-009: an intent with a baseline but without `fabric.management` (on a whole intent only,
/// as AIF-BASE-006). Its configs render no management address, no management VRF and no SSH or API
/// settings in it, while a full-replace push owns EOS's `management ssh` and `management api
/// http-commands` sections always: it removes the switch's own (`vrf MGMT` / `no shutdown`), and SSH or
/// eAPI in the management VRF stops; SONiC's `config reload` drops a static management address.
pub(super) fn presence(intent: &Intent, out: &mut Vec<Finding>) {
    if intent.fabric.management.is_none() && intent.baseline.is_some() {
        out.push(
            Finding::new(
                Rule::NoManagement,
                "the intent has no `fabric.management`: the configs render no management address or VRF, and a full-replace push removes the switch's own `management ssh` and `management api http-commands` settings (EOS: SSH and eAPI in the management VRF stop) and, on SONiC, a static management address; the next push may not log in",
            )
            .at("/fabric")
            .hint("add `fabric.management` (subnet, gateway, first address per role: the addresses Ansible logs in to), or push with `-e aifab_nxos_push=merge` / by hand; docs/push.md"),
        );
    }
}

/// AIF-ADDR-007: the management subnet, its gateway and every override's management address lie
/// outside the loopback, fabric-link and server-link pools.
pub(super) fn pool_rules(intent: &Intent, out: &mut Vec<Finding>) {
    let hint = "management is out of band: give it a subnet of its own, outside every `fabric.addressing` pool";
    if let Some(m) = &intent.fabric.management {
        for p in POOLS {
            if overlap(m.subnet.0, pool(intent, p)) {
                out.push(
                    Finding::new(
                        Rule::ManagementInPools,
                        format!(
                            "management subnet {} overlaps pool `{p}` ({})",
                            m.subnet,
                            pool(intent, p)
                        ),
                    )
                    .at("/fabric/management/subnet")
                    .hint(hint),
                );
            } else if pool(intent, p).contains(m.gateway) {
                out.push(
                    Finding::new(
                        Rule::ManagementInPools,
                        format!(
                            "management gateway {} is inside pool `{p}` ({})",
                            m.gateway,
                            pool(intent, p)
                        ),
                    )
                    .at("/fabric/management/gateway")
                    .hint(hint),
                );
            }
        }
    }
    for (i, o) in intent.overrides.iter().enumerate() {
        let Some(ip) = o.management else { continue };
        for p in POOLS.into_iter().filter(|p| pool(intent, *p).contains(ip)) {
            out.push(
                Finding::new(
                    Rule::ManagementInPools,
                    format!(
                        "management address {ip} is inside pool `{p}` ({})",
                        pool(intent, p)
                    ),
                )
                .at(format!("/overrides/{i}/management"))
                .hint(hint),
            );
        }
    }
}

/// Where the intent sets a device's management address: the override that gives `ip`, or the role's
/// first address. The second value orders origins: an override, then the role whose block starts
/// higher (the block that runs into another one).
fn origin(intent: &Intent, role: Role, ip: IpAddr) -> (String, (bool, Option<IpAddr>)) {
    if let Some(i) = intent
        .overrides
        .iter()
        .position(|o| o.management == Some(ip))
    {
        return (format!("/overrides/{i}/management"), (true, None));
    }
    let first = intent.fabric.management.as_ref().map(|m| &m.first);
    let (field, start) = match role {
        Role::Leaf => ("leaf", first.map(|f| f.leaf)),
        Role::Spine => ("spine", first.map(|f| f.spine)),
        Role::SuperSpine => ("super_spine", first.and_then(|f| f.super_spine)),
    };
    (format!("/fabric/management/first/{field}"), (false, start))
}

/// A device as the collision rule names it.
struct Host<'a> {
    hostname: &'a str,
    role: Role,
}

/// AIF-ADDR-006: no two switches share a management address and none has the gateway's address. One
/// finding per pair of colliding blocks, at the one that runs into the other.
pub fn model_rules(intent: &Intent, model: &FabricModel) -> Vec<Finding> {
    let devices = model
        .devices
        .iter()
        .filter_map(|d| Some((d.hostname.as_str(), d.role, d.management.as_ref()?)));
    collisions(intent, devices)
}

/// AIF-ADDR-006 on the management addresses `devices` hold (hostname, role, address): the model's, or
/// with a lock the addresses the intent's arithmetic gives before the lock moves new devices past the
/// held ones (an intent whose role blocks run into each other is wrong with a lock as without).
pub fn collisions<'a>(
    intent: &Intent,
    devices: impl Iterator<Item = (&'a str, Role, &'a crate::model::ManagementAddr)>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut owners: BTreeMap<IpAddr, (&str, Role)> = BTreeMap::new();
    let mut clashes: BTreeMap<String, (String, u32)> = BTreeMap::new();
    for (hostname, role, m) in devices {
        let d = Host { hostname, role };
        if m.ip == m.gateway {
            out.push(
                Finding::new(
                    Rule::ManagementCollision,
                    format!(
                        "management address {} of {} is the gateway's",
                        m.ip, d.hostname
                    ),
                )
                .at(origin(intent, d.role, m.ip).0)
                .hint("move the role's first address (or the override) off the gateway address"),
            );
        }
        if let Some((other, other_role)) = owners.insert(m.ip, (d.hostname, d.role)) {
            let a = origin(intent, other_role, m.ip);
            let b = origin(intent, d.role, m.ip);
            let at = if a.1 > b.1 { a.0 } else { b.0 };
            let entry = clashes.entry(at).or_insert_with(|| {
                (
                    format!(
                        "management address {} is given to {other} and to {}",
                        m.ip, d.hostname
                    ),
                    0,
                )
            });
            entry.1 += 1;
        }
    }
    for (at, (first, count)) in clashes {
        let more = if count > 1 {
            format!(" ({} addresses clash in all)", count)
        } else {
            String::new()
        };
        out.push(
            Finding::new(Rule::ManagementCollision, format!("{first}{more}"))
                .at(at)
                .hint("space the roles' first addresses so each role's block (one address per switch) is apart from the others, and keep override addresses outside them"),
        );
    }
    out
}
