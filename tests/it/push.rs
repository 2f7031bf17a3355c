//! What keeps a push from locking the operator out (docs/push.md): the management address goes on the
//! platform's own management port, `validate` refuses or warns about a baseline a full replace cannot
//! survive, and every rendered line is one aifab owns.

use crate::common;
use aifab::platform::Catalog;

/// The management address goes on the platform's `management_interface`: Management0 on the modular
/// 7800R3 (AVD's platform settings), Management1 on the fixed 7060X systems, mgmt0 on NX-OS.
#[test]
fn management_address_is_on_the_platforms_management_port() {
    let catalog = Catalog::builtin();
    for intent in common::example_intents() {
        let (model, files) = common::render(&intent);
        for d in model.devices.iter().filter(|d| d.management.is_some()) {
            let (os, pf) = catalog.get(&d.platform).expect("platform");
            let Some(f) = files
                .iter()
                .find(|f| f.path == format!("{}.cfg", d.hostname))
            else {
                continue; // SONiC: config_db.json (MGMT_INTERFACE on eth0, tests/it/sonic_yang.rs)
            };
            let text = &f.content;
            let line = format!("\ninterface {}\n", pf.management_interface);
            assert!(
                text.contains(&line),
                "{intent}: {} ({os}): no `{}`",
                d.hostname,
                line.trim()
            );
            let others = ["mgmt0", "Management0", "Management1"]
                .into_iter()
                .filter(|m| *m != pf.management_interface);
            for m in others {
                assert!(
                    !text.contains(&format!("\ninterface {m}\n")),
                    "{intent}: {}: {m} besides {}",
                    d.hostname,
                    pf.management_interface
                );
            }
        }
    }
    let port = |p: &str| catalog.get(p).expect(p).1.management_interface.clone();
    assert_eq!(port("eos/7800r3"), "Management0");
    assert_eq!(port("eos/7060x6"), "Management1");
    assert_eq!(port("nxos/n9k-c9364d-gx2a"), "mgmt0");
}
