//! The baseline pass: the intent's `baseline` as one shared [`BaselinePlan`] on every device. The
//! intent rules (`AIF-BASE-*`) have already checked every string it carries.

use super::draft::Draft;
use crate::intent::Intent;
use crate::intent::baseline::{Baseline, SecretSource};
use crate::model::baseline::{
    AaaPlan, AaaServerPlan, BaselinePlan, LocalUser, NtpPlan, Secret, SnmpUserPlan,
};
use std::sync::Arc;

/// The server group name the CLI OSes get.
const AAA_GROUP: &str = "AIFAB";

/// Puts the intent's baseline (if any) on every device.
pub fn resolve(intent: &Intent, f: &mut Draft) {
    let Some(b) = &intent.baseline else {
        return;
    };
    let plan = Arc::new(plan(b));
    for d in f.devices.iter_mut() {
        d.baseline = Some(plan.clone());
    }
}

/// The model's form of a baseline.
pub fn plan(b: &Baseline) -> BaselinePlan {
    BaselinePlan {
        users: b
            .users
            .iter()
            .map(|u| LocalUser {
                name: u.name.clone(),
                role: u.role,
                password_hash: u.password_hash.clone(),
            })
            .collect(),
        aaa: b.aaa.as_ref().map(|a| AaaPlan {
            protocol: a.protocol,
            group: AAA_GROUP,
            servers: a
                .servers
                .iter()
                .map(|s| AaaServerPlan {
                    address: s.address,
                    key: secret(&s.key),
                })
                .collect(),
            accounting: a.accounting,
        }),
        ntp: b
            .ntp
            .iter()
            .map(|n| NtpPlan {
                address: n.address,
                prefer: n.prefer,
            })
            .collect(),
        syslog: b.syslog.clone(),
        snmp: b
            .snmp
            .iter()
            .flat_map(|s| &s.users)
            .map(|u| SnmpUserPlan {
                name: u.name.clone(),
                auth: u.auth,
                auth_key: secret(&u.auth_key),
                privacy: u.privacy,
                priv_key: secret(&u.priv_key),
            })
            .collect(),
        dns_servers: b
            .dns
            .as_ref()
            .map(|d| d.servers.clone())
            .unwrap_or_default(),
        dns_domain: b.dns.as_ref().and_then(|d| d.domain.clone()),
        banner: b.banner.clone(),
        ssh: b.ssh,
        api: b.api,
    }
}

fn secret(s: &SecretSource) -> Secret {
    match s {
        SecretSource::Vault { vault } => Secret::Vault(vault.clone()),
        SecretSource::Env { env } => Secret::Env(env.clone()),
    }
}
