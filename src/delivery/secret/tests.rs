use super::*;
use type7::Cipher;

fn known(cipher: Cipher) -> Known {
    let mut k = Known::nothing(cipher);
    k.vault.insert("aaa_key".into(), "fixturekey".into());
    k.vault.insert("snmp_auth".into(), "authpass1".into());
    k.vault.insert("snmp_priv".into(), "privpass1".into());
    k.engine = snmp_key::parse_hex("8000000903001B54C24100");
    k
}

fn nxos_snmp(engine: &[u8], auth: &str, privacy: &str) -> String {
    let a = snmp_key::auth_key(Auth::Sha1, auth, engine).expect("key");
    let p = snmp_key::priv_key(Auth::Sha1, privacy, engine, 20).expect("key");
    format!(
        "snmp-server user monitor network-operator auth sha 0x{} priv aes-128 0x{} localizedkey",
        snmp_key::hex(&a),
        snmp_key::hex(&p)
    )
}

#[test]
fn type7_keys_compare_by_value() {
    let r = "tacacs-server host 192.0.2.11 key 0 AIFAB_SECRET(aaa_key)";
    let k = known(Cipher::Nxos);
    let good = format!(
        "tacacs-server host 192.0.2.11 key 7 {}",
        type7::encode(Cipher::Nxos, "fixturekey", 0)
    );
    assert_eq!(compare(r, &good, &k), Verdict::Equal(0));
    let bad = format!(
        "tacacs-server host 192.0.2.11 key 7 {}",
        type7::encode(Cipher::Nxos, "otherkey", 0)
    );
    assert_eq!(compare(r, &bad, &k), Verdict::Differs);
    let other_host = good.replace("192.0.2.11", "192.0.2.12");
    assert_eq!(compare(r, &other_host, &k), Verdict::Differs);
    assert_eq!(
        compare(r, &bad, &Known::nothing(Cipher::Nxos)),
        Verdict::Equal(1)
    );
    let eos = known(Cipher::Ios);
    let line = format!(
        "tacacs-server host 192.0.2.11 key 7 {}",
        type7::encode(Cipher::Ios, "fixturekey", 3)
    );
    assert_eq!(compare(r, &line, &eos), Verdict::Equal(0));
    assert_eq!(
        compare(r, "tacacs-server host 192.0.2.11 key 8a $x$y$z", &eos),
        Verdict::Equal(1)
    );
}

#[test]
fn snmp_keys_compare_localized() {
    let r = "snmp-server user monitor network-operator auth sha AIFAB_SECRET(snmp_auth) priv aes-128 AIFAB_SECRET(snmp_priv)";
    let k = known(Cipher::Nxos);
    let engine = k.engine.clone().expect("engine");
    assert_eq!(
        compare(r, &nxos_snmp(&engine, "authpass1", "privpass1"), &k),
        Verdict::Equal(0)
    );
    assert_eq!(
        compare(r, &nxos_snmp(&engine, "authpass1", "wrong"), &k),
        Verdict::Differs
    );
    let mut no_engine = k.clone();
    no_engine.engine = None;
    assert_eq!(
        compare(r, &nxos_snmp(&engine, "x", "y"), &no_engine),
        Verdict::Equal(2)
    );
    let v2 = "snmp-server user monitor network-operator auth sha 0153448F0CDEAA7AC3D8A6E1207E29746751 priv aes-128 204F64F031BBA129B39DABB42F633F6C6872 localizedV2key";
    assert_eq!(
        compare(r, v2, &k),
        Verdict::Equal(2),
        "V2 keys cannot be computed"
    );
}

#[test]
fn eos_snmp_line_names_its_engine() {
    let r = "snmp-server user monitor AIFAB-RO v3 auth sha AIFAB_SECRET(snmp_auth) priv aes AIFAB_SECRET(snmp_priv)";
    let mut k = known(Cipher::Ios);
    k.engine = None;
    let engine = snmp_key::parse_hex("f5717f444ca8b1c700").expect("hex");
    let a = snmp_key::auth_key(Auth::Sha1, "authpass1", &engine).expect("key");
    let p = snmp_key::priv_key(Auth::Sha1, "privpass1", &engine, 16).expect("key");
    let line = format!(
        "snmp-server user monitor AIFAB-RO v3 localized f5717f444ca8b1c700 auth sha {} priv aes {}",
        snmp_key::hex(&a),
        snmp_key::hex(&p)
    );
    assert_eq!(compare(r, &line, &k), Verdict::Equal(0));
    assert_eq!(
        compare(r, &line.replace("AIFAB-RO", "OTHER"), &k),
        Verdict::Differs
    );
}

#[test]
fn reconcile_pairs_only_matching_lines() {
    let k = known(Cipher::Nxos);
    let mut want: BTreeSet<String> = [
        "hostname r1",
        "tacacs-server host 192.0.2.11 key 0 AIFAB_SECRET(aaa_key)",
        "tacacs-server host 192.0.2.12 key 0 AIFAB_SECRET(aaa_key)",
    ]
    .map(String::from)
    .into();
    let enc = type7::encode(Cipher::Nxos, "fixturekey", 0);
    let mut have: BTreeSet<String> = [
        "hostname r1".to_string(),
        format!("tacacs-server host 192.0.2.11 key 7 {enc}"),
        format!("tacacs-server host 192.0.2.99 key 7 {enc}"),
    ]
    .into();
    assert_eq!(reconcile(&mut want, &mut have, &k), 0);
    let added: Vec<_> = want.difference(&have).collect();
    let removed: Vec<_> = have.difference(&want).collect();
    assert_eq!(
        added,
        ["tacacs-server host 192.0.2.12 key 0 AIFAB_SECRET(aaa_key)"]
    );
    assert_eq!(
        removed,
        [&format!("tacacs-server host 192.0.2.99 key 7 {enc}")]
    );
}
