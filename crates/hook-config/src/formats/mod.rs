//! Format readers: each turns one parsed file into the shared intermediate form, [`WireFile`], that the one
//! normalizer ([`crate::normalize`]) turns into declarations.
//!
//! A reader knows its format's shape and spelling — where the hooks are, what its keys are called, which values it
//! implies — and nothing about validation: it reports keys it does not know and hands every known field over with
//! the key as written and the node it came from, so every issue can name the user's own spelling and position.

mod agent;
mod auggie;
mod claude;
mod cline;
mod clio;
mod codex;
mod copilot;
mod crush;
mod cursor;
mod droid;
mod gemini;
mod mecha;
mod native;
mod qwen;

pub use cline::{
    EventExecutable, MAX_DIR_ENTRIES as EVENT_EXECUTABLES_MAX_ENTRIES, event_executable_argv,
    event_executable_bridge_line, event_executable_head, event_executable_name, event_executables,
};
pub(crate) use cline::{MAX_DIR_ENTRIES, tree as event_executables_tree};
pub use gemini::strip_comments as strip_json_comments;

use serde_json::Value;

use crate::issues::{Place, Reporter, describe, hint};
use crate::model::Format;
use crate::parse::{NodePath, Target};

/// One field of a hook, as a reader found it.
#[derive(Debug, Clone)]
pub(crate) struct WireField {
    /// The canonical (native, snake_case) name of the field.
    pub(crate) key: &'static str,
    /// The key as written in the file (`timeoutMs`), for field paths in issues.
    pub(crate) written: String,
    /// The value.
    pub(crate) value: Value,
    /// Where the value is in the file.
    pub(crate) node: NodePath,
}

/// One hook in the intermediate form.
#[derive(Debug, Clone)]
pub(crate) struct WireHook {
    /// Its position among the file's hooks (the `N` of `hooks[N]`).
    pub(crate) index: usize,
    /// Where the hook is in the file.
    pub(crate) node: NodePath,
    /// Its known fields, in file order.
    pub(crate) fields: Vec<WireField>,
    /// The reader already reported an error-level problem (an unknown key): the normalizer still reports what else
    /// is wrong, then drops the hook.
    pub(crate) malformed: bool,
}

/// One file in the intermediate form.
#[derive(Debug, Clone, Default)]
pub(crate) struct WireFile {
    /// The hooks, in file order.
    pub(crate) hooks: Vec<WireHook>,
    /// `only_managed`, if the file says it.
    pub(crate) only_managed: Option<WireField>,
    /// `self_protection`, if the file says it.
    pub(crate) self_protection: Option<WireField>,
}

/// How a format spells the keys of a hook list file: which spelling issues suggest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// `timeout_ms` (native).
    Snake,
    /// `timeoutMs` (clio-coder).
    Camel,
}

/// A key of the hook-list shape: its canonical name and its camelCase alias (the same word for one-word keys).
pub(crate) type Key = (&'static str, &'static str);

/// Every key a hook of the hook-list shape (native, clio-coder) may have.
pub(crate) const HOOK_KEYS: &[Key] = &[
    ("id", "id"),
    ("on", "on"),
    ("tools", "tools"),
    ("matcher", "matcher"),
    ("if", "if"),
    ("command", "command"),
    ("on_unknown", "onUnknown"),
    ("on_interpreter", "onInterpreter"),
    ("only_errors", "onlyErrors"),
    ("scope", "scope"),
    ("sequential", "sequential"),
    ("async", "async"),
    ("enabled", "enabled"),
    ("kind", "kind"),
    ("protocol", "protocol"),
    ("on_error", "onError"),
    ("argv", "argv"),
    ("shell", "shell"),
    ("powershell", "powershell"),
    ("cwd", "cwd"),
    ("timeout_ms", "timeoutMs"),
    ("as", "as"),
    ("env", "env"),
    ("message", "message"),
    ("severity", "severity"),
    ("effect", "effect"),
    ("prompt", "prompt"),
    ("model", "model"),
    ("agent", "agent"),
    ("url", "url"),
    ("method", "method"),
    ("headers", "headers"),
    ("format", "format"),
    ("allowed_env_vars", "allowedEnvVars"),
    ("files", "files"),
    ("query", "query"),
];

/// The keys of a hook-list file's top-level mapping.
const FILE_KEYS: &[Key] = &[
    ("version", "version"),
    ("hooks", "hooks"),
    ("only_managed", "onlyManaged"),
    ("self_protection", "selfProtection"),
];

/// Reads a parsed file of `format` into the intermediate form. `None` when the file as a whole is unusable (it was
/// reported).
pub(crate) fn read(format: Format, root: Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    match format {
        Format::Native => native::read(root, reporter),
        Format::Clio => clio::read(root, reporter),
        Format::Gemini => gemini::read(&root, reporter),
        Format::Cursor => cursor::read(&root, reporter),
        Format::Mecha => mecha::read(&root, reporter),
        Format::Claude => claude::read(&root, reporter),
        Format::Codex => codex::read(&root, reporter),
        Format::Qwen => qwen::read(&root, reporter),
        Format::Droid => droid::read(&root, reporter),
        Format::Cline => cline::read(&root, reporter),
        Format::Copilot => copilot::read(&root, reporter),
        Format::Crush => crush::read(&root, reporter),
        Format::Auggie => auggie::read(&root, reporter),
        // An agent of in-process plugins (the table's `HandlerShape::Plugin`) has no hook file to read.
        other => {
            let message = format!(
                "{} runs no hook file: its hooks are plugins (JavaScript), which this engine does not read; `hook \
                 install --agent {}` writes the plugin that hands its events to the bridge",
                other.agent().name,
                other.agent().id
            );
            reporter.error(Place::default(), message);
            None
        }
    }
}

/// [`read`], handing each hook to `each` as soon as it is read rather than in a list (native and clio-coder files
/// stream; the other formats are read whole first). Returns the rest of the file (its `hooks` empty); `None` as
/// [`read`] does, before any hook was handed over. What is reported while `each` runs is about the file or one
/// hook, not about the last event a reader read.
pub(crate) fn read_each(
    format: Format,
    root: Value,
    reporter: &mut Reporter<'_>,
    each: &mut dyn FnMut(WireHook, &mut Reporter<'_>),
) -> Option<WireFile> {
    match format {
        Format::Native => read_hook_list_each(root, Spelling::Snake, Unknown::Refuse, reporter, each),
        Format::Clio => read_hook_list_each(root, Spelling::Camel, Unknown::IgnoredBy(clio::AGENT), reporter, each),
        other => {
            let mut file = read(other, root, reporter)?;
            reporter.in_event(None);
            for hook in std::mem::take(&mut file.hooks) {
                each(hook, reporter);
            }
            Some(file)
        }
    }
}

/// What a hook-list file's reader does with what it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// This engine's own files: an unknown key is an error (the hook is dropped), an unknown version refuses the
    /// file.
    Refuse,
    /// An agent that reads past them (clio-coder ignores every key it does not know and never checks `version`):
    /// a warning, and the rest loads.
    IgnoredBy(&'static str),
}

/// Reads the shape native and clio-coder files share: a list of hooks, or `{ version: 1, hooks: [...] }` (the
/// managed file may add `only_managed`).
pub(crate) fn read_hook_list(
    root: Value,
    spelling: Spelling,
    unknown: Unknown,
    reporter: &mut Reporter<'_>,
) -> Option<WireFile> {
    let mut hooks = Vec::new();
    let mut file = read_hook_list_each(root, spelling, unknown, reporter, &mut |hook, _| hooks.push(hook))?;
    file.hooks = hooks;
    Some(file)
}

/// [`read_hook_list`], handing each hook to `each` as soon as it is read.
///
/// # Order
///
/// 1. the file's shape: a list of hooks, or a mapping whose keys (`version`, `hooks`, `only_managed`) are read first;
/// 2. each item of the list, read field by field into a hook and handed to `each`.
fn read_hook_list_each(
    root: Value,
    spelling: Spelling,
    unknown: Unknown,
    reporter: &mut Reporter<'_>,
    each: &mut dyn FnMut(WireHook, &mut Reporter<'_>),
) -> Option<WireFile> {
    let mut file = WireFile::default();
    let (items, items_path) = hook_items(root, spelling, unknown, &mut file, reporter)?;
    for (index, item) in items.into_iter().enumerate() {
        if let Some(hook) = read_hook(index, item, &items_path, spelling, unknown, reporter) {
            each(hook, reporter);
        }
    }
    Some(file)
}

/// The list of hooks of a hook-list file and where it is, `only_managed` set on `file`; `None` where nothing of the
/// file loads (reported).
fn hook_items(
    root: Value,
    spelling: Spelling,
    unknown: Unknown,
    file: &mut WireFile,
    reporter: &mut Reporter<'_>,
) -> Option<(Vec<Value>, NodePath)> {
    let root_path = NodePath::default();
    let object = match root {
        Value::Array(items) => return Some((items, root_path)),
        Value::Object(object) => object,
        other => {
            reporter.error(
                Place { node: Some((root_path, Target::Node)), ..Place::default() },
                format!("expected a list of hooks or `{{ version: 1, hooks: [...] }}`, found {}", describe(&other)),
            );
            return None;
        }
    };
    match file_keys(object, spelling, unknown, file, reporter)? {
        Some((Value::Array(items), node)) => Some((items, node)),
        Some((Value::Null, node)) => Some((Vec::new(), node)),
        Some((other, node)) => {
            reporter.error(
                Place { field: Some("hooks".into()), node: Some((node, Target::Node)), ..Place::default() },
                format!("expected a list of hooks, found {}", describe(&other)),
            );
            None
        }
        None => {
            reporter.error(
                Place { node: Some((root_path, Target::Node)), ..Place::default() },
                "expected a `hooks` list in this mapping (a file is a list of hooks or `{ version: 1, hooks: [...] }`)",
            );
            None
        }
    }
}

/// The top-level keys of a `{ version: 1, hooks: [...] }` file: the `hooks` value and its node, if there is one,
/// `only_managed` set on `file`, unknown keys reported; `None` where the version refuses the file (reported).
fn file_keys(
    object: serde_json::Map<String, Value>,
    spelling: Spelling,
    unknown: Unknown,
    file: &mut WireFile,
    reporter: &mut Reporter<'_>,
) -> Option<Option<(Value, NodePath)>> {
    let mut hooks = None;
    for (written, value) in object {
        let node = NodePath::default().key(&written);
        match lookup(FILE_KEYS, &written) {
            Some("version") if value.as_u64() != Some(1) => {
                let found = value.as_u64().map_or_else(|| describe(&value).to_owned(), |v| v.to_string());
                let place = Place { field: Some(written), node: Some((node, Target::Node)), ..Place::default() };
                let Unknown::IgnoredBy(agent) = unknown else {
                    reporter.error(
                        place,
                        format!(
                            "unsupported version {found}: this engine reads version 1; nothing in this file was loaded"
                        ),
                    );
                    return None;
                };
                reporter.warn(
                    place,
                    format!("unsupported version {found}; {agent} does not read `version`, so neither does this engine: the hooks are read as version 1"),
                );
            }
            Some("version") => {}
            Some("hooks") => hooks = Some((value, node)),
            Some(key @ "self_protection") => file.self_protection = Some(WireField { key, written, value, node }),
            Some(key) => file.only_managed = Some(WireField { key, written, value, node }),
            None => {
                let suggestion = suggest(FILE_KEYS, &written, spelling);
                let message = format!(
                    "unknown top-level key `{written}`{}; expected `version`, `hooks` or `{}`",
                    hint(suggestion),
                    spell(FILE_KEYS[2], spelling)
                );
                let place = Place { field: Some(written), node: Some((node, Target::Key)), ..Place::default() };
                match unknown {
                    Unknown::Refuse => reporter.error(place, message),
                    Unknown::IgnoredBy(agent) => {
                        reporter.warn(place, format!("{message}; {agent} ignores it, and so does this engine"));
                    }
                }
            }
        }
    }
    Some(hooks)
}

/// The hook at `index` of the list, its fields read one by one; `None` where the item is no mapping (reported).
fn read_hook(
    index: usize,
    item: Value,
    items_path: &NodePath,
    spelling: Spelling,
    unknown: Unknown,
    reporter: &mut Reporter<'_>,
) -> Option<WireHook> {
    let node = items_path.index(index);
    let Value::Object(object) = item else {
        reporter.error(
            hook_place(index, None, node, Target::Node),
            format!(
                "expected a hook (a mapping with `on` and `kind`), found {}; this entry was skipped",
                describe(&item)
            ),
        );
        return None;
    };
    let mut hook = WireHook { index, node, fields: Vec::with_capacity(object.len()), malformed: false };
    for (written, value) in object {
        read_hook_field(&mut hook, written, value, spelling, unknown, reporter);
    }
    Some(hook)
}

/// One field of a hook: kept under its canonical key, or reported as spelled twice or unknown (which, where unknown
/// keys are refused, makes the hook malformed).
fn read_hook_field(
    hook: &mut WireHook,
    written: String,
    value: Value,
    spelling: Spelling,
    unknown: Unknown,
    reporter: &mut Reporter<'_>,
) {
    let index = hook.index;
    let spelled = lookup_spelled(HOOK_KEYS, &written);
    let value_node = match spelled {
        Some((_, spelling)) => hook.node.static_key(spelling),
        None => hook.node.key(&written),
    };
    let Some((key, _)) = spelled else {
        let place = hook_place(index, Some(&written), value_node, Target::Key);
        let suggestion = suggest(HOOK_KEYS, &written, spelling);
        let message = format!("unknown field `{written}`{}", hint(suggestion));
        match unknown {
            Unknown::Refuse => {
                if let Some(meant) = suggestion.and_then(|s| lookup(HOOK_KEYS, s)) {
                    reporter.likely_meant(index, meant);
                }
                reporter.error(place, message);
                hook.malformed = true;
            }
            // Ignored, so a field it was meant as is still reported missing where one is required.
            Unknown::IgnoredBy(agent) => {
                reporter.warn(place, format!("{message}; {agent} ignores it, and so does this engine"));
            }
        }
        return;
    };
    if let Some(earlier) = hook.fields.iter().find(|f| f.key == key) {
        // `timeout_ms` and `timeoutMs` in one hook: the parser cannot see that these are one key.
        let message = format!("`{written}` repeats `{}` (the same field spelled twice); set it once", earlier.written);
        reporter.error(hook_place(index, Some(&written), value_node, Target::Key), message);
        hook.malformed = true;
        return;
    }
    hook.fields.push(WireField { key, written, value, node: value_node });
}

/// The place of the hook at `index`, or of its field `written`.
fn hook_place(index: usize, written: Option<&str>, node: NodePath, target: Target) -> Place {
    Place {
        index: Some(index),
        field: Some(hook_field(index, written)),
        node: Some((node, target)),
        ..Place::default()
    }
}

/// The field path of a hook (`hooks[3]`) or of one of its fields (`hooks[3].timeout_ms`).
pub(crate) fn hook_field(index: usize, field: Option<&str>) -> String {
    match field {
        Some(field) => format!("hooks[{index}].{field}"),
        None => format!("hooks[{index}]"),
    }
}

/// The canonical name of `written`, in either spelling.
fn lookup(keys: &[Key], written: &str) -> Option<&'static str> {
    lookup_spelled(keys, written).map(|(snake, _)| snake)
}

/// The canonical name of `written`, and `written` itself as a static string (for node paths without a copy).
fn lookup_spelled(keys: &[Key], written: &str) -> Option<(&'static str, &'static str)> {
    keys.iter().find_map(|&(snake, camel)| {
        if snake == written {
            Some((snake, snake))
        } else if camel == written {
            Some((snake, camel))
        } else {
            None
        }
    })
}

fn spell(key: Key, spelling: Spelling) -> &'static str {
    match spelling {
        Spelling::Snake => key.0,
        Spelling::Camel => key.1,
    }
}

/// The nearest key in the format's own spelling; a key written in the other spelling's style still finds its match.
/// A hook key close to `event` or `events` (what most agents call it, and what a misspelt `on` is usually meant as)
/// suggests `on`.
fn suggest(keys: &[Key], written: &str, spelling: Spelling) -> Option<&'static str> {
    const EVENT_WORDS: [&str; 3] = ["event", "events", "hook_event"];
    let meant_on = keys.contains(&("on", "on"));
    let candidates = keys.iter().flat_map(|&(snake, camel)| [snake, camel]);
    let nearest = hook_types::did_you_mean(written, candidates.chain(EVENT_WORDS.into_iter().filter(|_| meant_on)))?;
    if EVENT_WORDS.contains(&nearest) {
        return Some("on");
    }
    keys.iter().find(|(snake, camel)| *snake == nearest || *camel == nearest).map(|&key| spell(key, spelling))
}
