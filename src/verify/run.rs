//! One `aifab verify` run: which checks, which switches, and the steps of [`super::verify`]: each
//! switch read (its own checks made as it is read), then the checks across switches, then the notes.

use super::observed::{Observed, RouteWidth};
use super::{
    Check, Finding, Kind, Options, cabling, expect, lossless, portmap, ports, read, sessions, state,
};
use crate::kinds::Os;
use crate::model::{Device, FabricModel};
use crate::platform::Catalog;
use rayon::prelude::*;
use std::path::Path;

/// A switch as read: its documents (without the ports and lossless state, already checked) and the
/// findings of its own checks.
pub(super) type Read = Option<(state::Collected, Vec<Finding>)>;

/// What one run verifies.
pub(super) struct Run<'m> {
    model: &'m FabricModel,
    catalog: &'m Catalog,
    /// The checks run, in report order.
    pub(super) checks: Vec<Check>,
    /// Per switch (model order): `--only` selects it.
    pub(super) in_scope: Vec<bool>,
    plan: expect::Plan<'m>,
    /// The fabric's ports numbered, to resolve each switch's LLDP neighbours as it is read.
    ports: portmap::PortIds<'m>,
}

impl<'m> Run<'m> {
    /// The run of `opts` over `model`.
    pub(super) fn new(model: &'m FabricModel, catalog: &'m Catalog, opts: &Options) -> Run<'m> {
        let checks = Check::ALL
            .into_iter()
            .filter(|c| opts.checks.is_empty() || opts.checks.contains(c))
            .collect();
        let in_scope = model
            .devices
            .iter()
            .map(|d| opts.only.as_ref().is_none_or(|g| g.is_match(&d.hostname)))
            .collect();
        let plan = expect::Plan::new(model);
        let ports = portmap::PortIds::new(&plan, catalog);
        Run {
            model,
            catalog,
            checks,
            in_scope,
            plan,
            ports,
        }
    }

    /// Whether some document of `os` gives `check` its input: NX-OS and EOS print their lossless state
    /// in no JSON form with a public sample, so that check has no input there (a note, not a pass).
    fn served(os: Os, check: Check) -> bool {
        read::documents(os)
            .iter()
            .any(|d| d.serves.contains(&check.input()))
    }

    /// Whether `check` runs on switch `d` as read into `c`.
    fn reads(&self, c: &state::Collected, d: &Device, check: Check) -> bool {
        self.checks.contains(&check)
            && !c.blind.contains(&check.input())
            && (c.daemon_form || Self::served(d.os, check))
    }

    /// Every switch in scope read, in parallel, its ports and lossless state checked against its
    /// ideal state as it is read and then dropped, its LLDP neighbours resolved to port numbers: only
    /// those, BGP and routes, which the checks across switches need, stay in memory (2,144 switches of
    /// a 100K-GPU fabric).
    pub(super) fn read_all(&self, dir: &Path) -> Vec<Read> {
        self.model
            .devices
            .par_iter()
            .enumerate()
            .map(|(i, d)| self.in_scope[i].then(|| self.read_one(dir, i, d)))
            .collect()
    }

    fn read_one(&self, dir: &Path, i: usize, d: &Device) -> (state::Collected, Vec<Finding>) {
        let mut c = super::identify(state::collect(dir, d), d);
        let (ports, lossless) = (
            self.reads(&c, d, Check::Ports),
            self.reads(&c, d, Check::Lossless),
        );
        let mut local = Vec::new();
        if ports || lossless {
            let want = expect::ideal_ports(&self.plan, self.catalog, i);
            if ports {
                local.extend(ports::check_one(&want, &c.observed, &d.hostname));
            }
            if lossless {
                local.extend(lossless::check_one(&want, &c.observed, &d.hostname));
            }
        }
        c.observed.ports = Default::default();
        c.observed.qos = Default::default();
        c.lldp = c
            .observed
            .lldp
            .take()
            .map(|l| self.ports.resolve_all(&self.plan, i, &l));
        c.routes = c
            .observed
            .routes
            .take()
            .map(|r| r.into_iter().map(Into::into).collect());
        (c, local)
    }

    /// The findings about the folders themselves (missing or unreadable documents, another switch's
    /// files) of the checks run.
    pub(super) fn folder_findings(&self, collected: &[Read]) -> Vec<Finding> {
        collected
            .iter()
            .flatten()
            .flat_map(|(c, _)| c.findings.iter())
            .filter(|f| self.checks.contains(&f.check) || f.kind == Kind::WrongSwitch)
            .cloned()
            .collect()
    }

    /// Per switch, `pick` of what was read where `check` runs on it.
    fn per_switch<'c, T: ?Sized>(
        &self,
        collected: &'c [Read],
        check: Check,
        pick: impl Fn(&'c state::Collected) -> Option<&'c T>,
    ) -> Vec<Option<&'c T>> {
        collected
            .iter()
            .zip(&self.model.devices)
            .map(|(c, d)| {
                c.as_ref()
                    .filter(|(c, _)| self.reads(c, d, check))
                    .and_then(|(c, _)| pick(c))
            })
            .collect()
    }

    /// Per switch, its state where `check` runs on it.
    fn view<'c>(&self, collected: &'c [Read], check: Check) -> Vec<Option<&'c Observed>> {
        self.per_switch(collected, check, |c| Some(&c.observed))
    }

    /// Per switch, its resolved LLDP neighbours where `check` runs on it.
    fn lldp<'c>(&self, collected: &'c [Read], check: Check) -> Vec<Option<&'c portmap::Lldp>> {
        if !self.checks.contains(&check) {
            return vec![None; self.model.devices.len()];
        }
        self.per_switch(collected, check, |c| c.lldp.as_ref())
    }

    /// The checks across switches (cabling, hosts, sessions), and each switch's own findings with
    /// those a broken cable explains moved under its finding.
    pub(super) fn cross_checks(&self, collected: &[Read]) -> Vec<Finding> {
        let mut cabling =
            if self.checks.contains(&Check::Cabling) || self.checks.contains(&Check::Hosts) {
                cabling::check(
                    &self.plan,
                    &self.ports,
                    &self.lldp(collected, Check::Cabling),
                    &self.lldp(collected, Check::Hosts),
                )
            } else {
                cabling::Cabling {
                    findings: Vec::new(),
                    broken: Default::default(),
                    owner: Default::default(),
                }
            };
        let read = self.view(collected, Check::Sessions);
        let routes: Vec<Option<&[RouteWidth]>> =
            self.per_switch(collected, Check::Sessions, |c| c.routes.as_deref());
        let sessions = sessions::check(&self.plan, &read, &routes, &mut cabling);
        let local: Vec<Finding> = collected
            .iter()
            .flatten()
            .flat_map(|(_, f)| f.iter().cloned())
            .collect();
        let local = ports::fold(local, &self.plan.index, &mut cabling);
        let mut out = cabling.findings;
        out.extend(sessions);
        out.extend(local);
        out
    }

    /// Findings by check, then switch in model order, then port.
    pub(super) fn sort(&self, findings: &mut [Finding]) {
        let at = |f: &Finding| self.plan.index.get(f.switch.as_str()).copied();
        findings.sort_by(|a, b| {
            (a.check, at(a), &a.port, a.kind).cmp(&(b.check, at(b), &b.port, b.kind))
        });
    }

    /// Per check run, how many switches gave it input.
    pub(super) fn read_counts(&self, collected: &[Read]) -> Vec<(Check, usize)> {
        self.checks
            .iter()
            .map(|&c| (c, self.view(collected, c).iter().flatten().count()))
            .collect()
    }

    /// What the report says besides findings: checks a switch's OS gives no input for, switches that
    /// gave only the lldpd/FRR form.
    pub(super) fn notes(&self, collected: &[Read]) -> Vec<String> {
        let mut notes = Vec::new();
        for &c in &self.checks {
            let unserved: Vec<&Device> = self
                .model
                .devices
                .iter()
                .zip(&self.in_scope)
                .filter(|(d, on)| **on && !Self::served(d.os, c))
                .map(|(d, _)| d)
                .collect();
            let Some(first) = unserved.first() else {
                continue;
            };
            let mut oses: Vec<&str> = unserved.iter().map(|d| d.os.as_str()).collect();
            oses.sort_unstable();
            oses.dedup();
            notes.push(format!(
                "{}: not checked on {} switch(es) ({}{}): {} report(s) it in no JSON document aifab collects (docs/verify.md)",
                c.as_str(),
                unserved.len(),
                first.hostname,
                if unserved.len() > 1 { ", ..." } else { "" },
                oses.join(", ")
            ));
        }
        let daemon = collected
            .iter()
            .flatten()
            .filter(|(c, _)| c.daemon_form)
            .count();
        if daemon > 0 {
            notes.push(format!("{daemon} switch(es) gave only lldpd and FRR documents (as the twin writes them): their ports and lossless state are not checked"));
        }
        notes
    }
}
