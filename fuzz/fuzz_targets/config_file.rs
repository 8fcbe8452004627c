//! A declaration file of any content, read as every format the loader knows: loading must answer (hooks and
//! issues), never panic, and stay within its bounds.
#![no_main]

use std::path::Path;

use hook_config::{FileContext, Format, parse_str};
use hook_types::Origin;
use libfuzzer_sys::fuzz_target;

const AS: [(Format, &str); 9] = [
    (Format::Native, "hooks.yaml"),
    (Format::Native, "hooks.json"),
    (Format::Claude, "settings.json"),
    (Format::Codex, "hooks.json"),
    (Format::Codex, "config.toml"),
    (Format::Gemini, "settings.json"),
    (Format::Cursor, "hooks.json"),
    (Format::Mecha, "config.toml"),
    (Format::Clio, "hooks.yaml"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (format, name) = AS[usize::from(selector) % AS.len()];
    let cx =
        FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
    let load = parse_str(text, Path::new(name), format, &cx);
    for hook in &load.hooks {
        assert_eq!(hook.hash.len(), 16);
    }
});
