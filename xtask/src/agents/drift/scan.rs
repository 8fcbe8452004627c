//! What one release of an agent knows about hooks, read out of its bundled program: the JavaScript of the npm
//! package, or the strings of a native binary (JavaScript compiled in with Bun, or a Rust binary's serde names).
//!
//! Nothing here runs the agent. Every reading is anchored on the vocabulary the agent table already knows, so a
//! word is reported only where it sits beside words the table knows in the same role:
//!
//! - **event lists**: a literal list of quoted names (`"PreToolUse","PostToolUse",…`) holding at least three of the
//!   table's event names: every other name of the same shape in it is an event name the table may lack;
//! - **event runs**: a Rust binary keeps an enum's variant names as one run of letters
//!   (`PreToolUsePermissionRequestPostToolUse…`): a run holding at least three known names is cut at them, and a
//!   capitalized word between two of them is an event name the table may lack;
//! - **answer keys**: the keys of every schema object that starts `{hookEventName:` or `{continue:` (the answer and
//!   its `hookSpecificOutput` per event, as the bundled schema library writes them);
//! - **handler keys and types**: the keys of every schema object that starts `{type:X("…").describe("… hook type")`;
//! - **decisions**: the words of every quoted list holding both `allow` and `deny`, or both `approve` and `block`;
//! - **shapes**: a Rust binary's `struct …Wire with N elements` and `struct variant HookHandlerConfig::… with N
//!   elements` (serde's messages), whose counts move when a wire struct gains or loses a key.

use std::collections::{BTreeMap, BTreeSet};

/// What a scan found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Every event name in an event list or run, known or not.
    pub events: BTreeSet<String>,
    /// Keys of the answer objects.
    pub answer_keys: BTreeSet<String>,
    /// Keys of the handler objects.
    pub handler_keys: BTreeSet<String>,
    /// Handler types (`command`, `mcp_tool`, …).
    pub handler_types: BTreeSet<String>,
    /// Words of decision lists.
    pub decisions: BTreeSet<String>,
    /// Serde shapes: name → number of fields.
    pub shapes: BTreeMap<String, usize>,
}

/// Scans `bytes` with `known` as the table's event names.
pub fn scan(bytes: &[u8], known: &BTreeSet<&str>, found: &mut Found) {
    quoted_lists(bytes, known, found);
    enum_members(bytes, known, found);
    event_runs(bytes, known, found);
    answer_objects(bytes, found);
    handler_objects(bytes, found);
    shapes(bytes, found);
}

/// Every position of `needle` in `bytes`.
fn positions<'a>(bytes: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    memchr::memmem::find_iter(bytes, needle)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A quoted identifier at `i` (`"name"` or `'name'`): the name and the index past the closing quote.
fn quoted_ident(bytes: &[u8], i: usize, quote: u8) -> Option<(&str, usize)> {
    if bytes.get(i) != Some(&quote) {
        return None;
    }
    let start = i + 1;
    let len = bytes[start..].iter().take(64).take_while(|b| is_ident(**b)).count();
    if len == 0 || bytes.get(start + len) != Some(&quote) || !bytes[start].is_ascii_alphabetic() {
        return None;
    }
    Some((std::str::from_utf8(&bytes[start..start + len]).ok()?, start + len + 1))
}

/// Every literal list of two or more quoted identifiers (whitespace allowed around the commas), read as event
/// lists and decision lists.
fn quoted_lists(bytes: &[u8], known: &BTreeSet<&str>, found: &mut Found) {
    let mut i = 0;
    while let Some(offset) = memchr::memchr2(b'"', b'\'', &bytes[i..]) {
        let at = i + offset;
        let quote = bytes[at];
        let mut items = Vec::new();
        let mut end = at;
        while let Some((name, next)) = quoted_ident(bytes, end, quote) {
            items.push(name);
            end = next;
            let comma = skip_space(bytes, end);
            if bytes.get(comma) != Some(&b',') {
                break;
            }
            end = skip_space(bytes, comma + 1);
        }
        if items.len() >= 3 {
            event_list(&items, known, found);
        }
        if (2..=6).contains(&items.len()) {
            decision_list(&items, found);
        }
        i = if items.is_empty() { at + 1 } else { end.max(at + 1) };
    }
}

/// The index of the first byte at or after `i` that is no ASCII whitespace (at most 64 skipped).
fn skip_space(bytes: &[u8], i: usize) -> usize {
    i + bytes[i.min(bytes.len())..].iter().take(64).take_while(|b| b.is_ascii_whitespace()).count()
}

/// TypeScript enums as their compiler writes them, `E["BeforeTool"] = "BeforeTool";`: every enum of an identifier
/// `E` holding three or more known names is read as an event list.
fn enum_members(bytes: &[u8], known: &BTreeSet<&str>, found: &mut Found) {
    let mut enums: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for at in positions(bytes, b"[\"") {
        let Some((name, next)) = quoted_ident(bytes, at + 1, b'"') else { continue };
        let rest = &bytes[next..(next + 8 + name.len()).min(bytes.len())];
        let Some(value) = rest.strip_prefix(b"] = \"") else { continue };
        if !value.starts_with(name.as_bytes()) || value.get(name.len()) != Some(&b'"') {
            continue;
        }
        let ident = bytes[..at].iter().rev().take(64).take_while(|b| is_ident(**b)).count();
        if let Ok(owner) = std::str::from_utf8(&bytes[at - ident..at]) {
            enums.entry(owner).or_default().push(name);
        }
    }
    for members in enums.values() {
        event_list(members, known, found);
    }
}

/// The shape of a name: its first letter's case and whether it has an underscore or a digit.
fn shape(name: &str) -> (bool, bool) {
    (name.starts_with(|c: char| c.is_ascii_uppercase()), name.contains(|c: char| c == '_' || c.is_ascii_digit()))
}

fn event_list(items: &[&str], known: &BTreeSet<&str>, found: &mut Found) {
    let known_here: Vec<&str> = items.iter().copied().filter(|i| known.contains(i)).collect();
    // Mostly events: a list of DOM or SDK names that holds a few event names by chance is not one.
    if known_here.len() < 3 || known_here.len() * 2 < items.len() {
        return;
    }
    let shapes: BTreeSet<(bool, bool)> = known_here.iter().map(|n| shape(n)).collect();
    for item in items {
        if known.contains(item) || shapes.contains(&shape(item)) {
            found.events.insert((*item).to_owned());
        }
    }
}

fn decision_list(items: &[&str], found: &mut Found) {
    let has = |w: &str| items.contains(&w);
    if (has("allow") && has("deny")) || (has("approve") && has("block")) {
        found.decisions.extend(items.iter().map(|s| (*s).to_owned()));
    }
}

/// The capitalized words (`Pre`, `Model`, `Request`) that make up `text` exactly, if it is made of nothing else.
fn capitalized_words(text: &str) -> Option<usize> {
    let mut words = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_uppercase() {
            return None;
        }
        while chars.peek().is_some_and(|c| c.is_ascii_lowercase()) {
            chars.next();
        }
        words += 1;
    }
    (words > 0).then_some(words)
}

/// Runs of letters holding three or more known event names, cut at them (see the module docs). Only a known name
/// that another known name follows directly starts a run, which keeps the scan linear in the names' occurrences.
fn event_runs(bytes: &[u8], known: &BTreeSet<&str>, found: &mut Found) {
    let mut seen = BTreeSet::new();
    for name in known {
        for at in positions(bytes, name.as_bytes()) {
            let next = at + name.len();
            if !known.iter().any(|k| bytes[next..].starts_with(k.as_bytes())) {
                continue;
            }
            let start = at - bytes[..at].iter().rev().take(4096).take_while(|b| b.is_ascii_alphabetic()).count();
            if !seen.insert(start) {
                continue;
            }
            let len = bytes[start..].iter().take(8192).take_while(|b| b.is_ascii_alphabetic()).count();
            if let Ok(run) = std::str::from_utf8(&bytes[start..start + len]) {
                cut_run(run, known, found);
            }
        }
    }
}

fn cut_run(run: &str, known: &BTreeSet<&str>, found: &mut Found) {
    // Every known name in the run, left to right, the longest where two start at one place.
    let mut hits: Vec<(usize, &str)> = Vec::new();
    let mut i = 0;
    while i < run.len() {
        match known.iter().filter(|k| run[i..].starts_with(**k)).max_by_key(|k| k.len()) {
            Some(name) => {
                hits.push((i, name));
                i += name.len();
            }
            None => i += 1,
        }
    }
    // A chain: known names one after another, at most a word or three between two of them. One of three or more
    // distinct known names is a list of events; a run of DOM type names that repeats one event name
    // (`NotificationEventInitNotificationOptions`) is not.
    let mut chain: Vec<&str> = Vec::new();
    let mut between: Vec<&str> = Vec::new();
    let mut end = 0;
    for (at, name) in hits {
        let gap = &run[end..at];
        let joined = gap.is_empty() || capitalized_words(gap).is_some_and(|w| w <= 3);
        if !chain.is_empty() && !joined {
            take_chain(&mut chain, &mut between, found);
        }
        if !chain.is_empty() && !gap.is_empty() {
            between.push(gap);
        }
        chain.push(name);
        end = at + name.len();
    }
    take_chain(&mut chain, &mut between, found);
}

/// Records `chain` and the words `between` its names when it holds three or more distinct known names; empties both.
fn take_chain<'a>(chain: &mut Vec<&'a str>, between: &mut Vec<&'a str>, found: &mut Found) {
    if chain.iter().collect::<BTreeSet<_>>().len() >= 3 {
        found.events.extend(chain.iter().chain(between.iter()).map(|s| (*s).to_owned()));
    }
    chain.clear();
    between.clear();
}

/// The keys at the top level of the object literal whose `{` is at `at`, as far as a minified schema goes: an
/// identifier followed by `:` right after the `{` or a `,` at depth one. Strings and template literals are skipped;
/// the scan stops at the closing brace or after 64 KiB.
fn object_keys(bytes: &[u8], at: usize) -> Vec<String> {
    let end = (at + 65_536).min(bytes.len());
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut i = at;
    while i < end {
        let b = bytes[i];
        match b {
            b'"' | b'\'' | b'`' => {
                i += 1;
                while i < end && bytes[i] != b {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        if depth == 1 && (b == b'{' || b == b',') && i < end {
            let start = i + 1;
            let len = bytes[start..end].iter().take_while(|c| is_ident(**c)).count();
            if len > 0
                && bytes.get(start + len) == Some(&b':')
                && bytes[start].is_ascii_alphabetic()
                && let Ok(key) = std::str::from_utf8(&bytes[start..start + len])
            {
                keys.push(key.to_owned());
            }
        }
        i += 1;
    }
    keys
}

/// Answer objects: `{hookEventName:X("Name")…}` (one event's `hookSpecificOutput`), and `{continue:…}` where it
/// also has `suppressOutput` (the answer's top level; other objects start with a `continue` key too).
fn answer_objects(bytes: &[u8], found: &mut Found) {
    for at in positions(bytes, b"{hookEventName:") {
        let value = &bytes[at + 15..(at + 80).min(bytes.len())];
        let callee = value.iter().take_while(|b| is_ident(**b)).count();
        if callee > 0 && value[callee..].starts_with(b"(\"") {
            found.answer_keys.extend(object_keys(bytes, at));
        }
    }
    for at in positions(bytes, b"{continue:") {
        let keys = object_keys(bytes, at);
        if keys.iter().any(|k| k == "suppressOutput") {
            found.answer_keys.extend(keys);
        }
    }
}

/// Handler objects: `{type:X("name").describe("… hook type")`.
fn handler_objects(bytes: &[u8], found: &mut Found) {
    for at in positions(bytes, b"{type:") {
        let head = &bytes[at..(at + 200).min(bytes.len())];
        let Some(open) = memchr::memmem::find(head, b"(\"") else { continue };
        let Some((name, next)) = quoted_ident(head, open + 1, b'"') else { continue };
        let rest = &head[next..];
        let Some(describe) = rest.strip_prefix(b").describe(\"") else { continue };
        let Some(close) = memchr::memchr(b'"', describe) else { continue };
        if !describe[..close].ends_with(b"hook type") {
            continue;
        }
        found.handler_types.insert(name.to_owned());
        found.handler_keys.extend(object_keys(bytes, at));
    }
}

/// serde's `struct …Wire with N elements` and `struct variant HookHandlerConfig::… with N elements`.
fn shapes(bytes: &[u8], found: &mut Found) {
    for prefix in [&b"struct "[..], b"struct variant HookHandlerConfig::"] {
        for at in positions(bytes, prefix) {
            let start = at + prefix.len();
            let len = bytes[start..].iter().take(128).take_while(|b| is_ident(**b) || **b == b':').count();
            let name = &bytes[start..start + len];
            let hooks_wire = prefix.len() > 7 || (name.ends_with(b"Wire") && !name.contains(&b':'));
            let Some(tail) = bytes[start + len..].strip_prefix(b" with ") else { continue };
            let digits = tail.iter().take(4).take_while(|b| b.is_ascii_digit()).count();
            let (Ok(name), Ok(count)) = (std::str::from_utf8(name), std::str::from_utf8(&tail[..digits])) else {
                continue;
            };
            if hooks_wire
                && tail[digits..].starts_with(b" element")
                && let Ok(count) = count.parse()
            {
                let name = if prefix.len() > 7 { format!("HookHandlerConfig::{name}") } else { name.to_owned() };
                found.shapes.insert(name, count);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<&'static str> {
        ["PreToolUse", "PostToolUse", "Stop", "SessionStart"].into_iter().collect()
    }

    #[test]
    fn an_event_list_names_the_events_the_table_lacks() {
        let js = br#"x=["PreToolUse","PostToolUse","Stop","PreModelSwitch","bash"];y=["PreToolUse","a","b"];
            z=["Stop","PreToolUse","PostToolUse","Event","EventInit","EventMap","Direction"];
            w=[ "Stop",
                "SessionStart", "PreToolUse", "Interrupt" ];
            E["PreToolUse"] = "PreToolUse"; E["Stop"] = "Stop"; E["SessionStart"] = "SessionStart";
            E["AfterModel"] = "AfterModel"; F["X"] = "Y";"#;
        let mut found = Found::default();
        scan(js, &known(), &mut found);
        let events: Vec<&str> = found.events.iter().map(String::as_str).collect();
        let expected =
            ["AfterModel", "Interrupt", "PostToolUse", "PreModelSwitch", "PreToolUse", "SessionStart", "Stop"];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_run_of_variant_names_is_cut_at_the_known_ones() {
        let bin = b"\0elementsPreToolUseInterruptPostToolUseSessionStartencrypted\0";
        let mut found = Found::default();
        scan(bin, &known(), &mut found);
        assert!(found.events.contains("Interrupt") && found.events.contains("SessionStart"), "{found:?}");
        assert!(!found.events.iter().any(|e| e.contains("encrypted")), "{found:?}");
    }

    #[test]
    fn schema_objects_give_answer_and_handler_keys() {
        let js = br#"a=u({hookEventName:P("PostToolUse"),additionalContext:r().optional(),updatedToolOutput:de().describe("x, y")});
            b=u({continue:M().optional(),suppressOutput:M(),decision:U(["approve","block"]).optional(),reason:r()});
            c=u({type:P("command").describe("Shell command hook type"),command:r(),args:O(r()).optional(),if:H()});"#;
        let mut found = Found::default();
        scan(js, &known(), &mut found);
        let keys: Vec<&str> = found.answer_keys.iter().map(String::as_str).collect();
        let expected = [
            "additionalContext",
            "continue",
            "decision",
            "hookEventName",
            "reason",
            "suppressOutput",
            "updatedToolOutput",
        ];
        assert_eq!(keys, expected);
        let keys: Vec<&str> = found.handler_keys.iter().map(String::as_str).collect();
        assert_eq!(keys, ["args", "command", "if", "type"]);
        assert!(found.handler_types.contains("command") && found.decisions.contains("approve"));
    }

    #[test]
    fn serde_messages_give_the_wire_shapes() {
        let bin = b"struct PreToolUseOutputWire with 5 elements\0struct variant HookHandlerConfig::McpTool with 5 elements\0struct Other with 2 elements";
        let mut found = Found::default();
        scan(bin, &known(), &mut found);
        let shapes: Vec<(&str, usize)> = found.shapes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(shapes, [("HookHandlerConfig::McpTool", 5), ("PreToolUseOutputWire", 5)]);
    }
}
