//! Prints the compiled model of an intent (development aid; `aifab compile` is the user-facing command).
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        return;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let intent: aifab::intent::Intent = match serde_norway::from_str(&text) {
        Ok(i) => i,
        Err(e) => return eprintln!("{e}"),
    };
    match aifab::compile::compile(&intent, aifab::platform::Catalog::builtin()) {
        Ok(m) => println!("{}", serde_json::to_string_pretty(&m).unwrap_or_default()),
        Err(e) => eprintln!("{e:#?}"),
    }
}
