//! The native form of a moved hook, and putting a block of them into a native `hooks.yaml` without touching what
//! is already there.

use hook_types::{OnError, Scope, Severity};
use serde_json::{Map, Value, json};

use hook_config::id_prefix;
use hook_config::{AsMode, HookDecl, HookSpec, Program};

/// A declaration in the native form (docs/declarations.md) that loads back as the same hook: the same content hash, and the
/// same id where it sits in the same origin. Its `protocol` stays the agent's, so its output is read by the agent's
/// rules; an event with no equivalent here is written `foreign:<Name>`. Values at their default (for the hook's
/// protocol and event) are left out.
///
/// ```
/// use hook_config::{parse_str, FileContext, Format};
/// use hook_agents::install::native_form;
/// use hook_types::Origin;
/// use std::path::Path;
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/"), root: Path::new("/"), source_id: None };
/// let yaml = "- {on: foreign:SubagentStart, protocol: claude, kind: command, shell: ./notify.sh, timeout_ms: 5000}";
/// let hook = &parse_str(yaml, Path::new("/.hooks/hooks.yaml"), Format::Native, &cx).hooks[0];
/// let form = serde_json::Value::Object(native_form(hook));
/// assert_eq!(form, serde_json::json!({"on": "foreign:SubagentStart", "kind": "command", "protocol": "claude",
///     "shell": "./notify.sh", "timeout_ms": 5000}));
/// ```
pub fn native_form(decl: &HookDecl) -> Map<String, Value> {
    let mut out = Map::new();
    routing_fields(decl, &mut out);
    kind_fields(decl, &mut out);
    match &decl.spec {
        HookSpec::Command(command) => command_fields(decl, command, &mut out),
        HookSpec::Prompt { message, severity } => {
            out.insert("message".into(), message.clone().into());
            if *severity != Severity::Info {
                out.insert("severity".into(), json!(severity));
            }
        }
        HookSpec::Effect(effect) => {
            out.insert("effect".into(), json!(effect));
        }
        HookSpec::Evaluated(evaluated) => evaluated_fields(decl, evaluated, &mut out),
        // Every field, defaults included: the hash covers the format and the timeout either way.
        HookSpec::Http(http) => {
            out.insert("url".into(), http.url.clone().into());
            out.insert("method".into(), http.method.clone().into());
            if !http.headers.is_empty() {
                out.insert("headers".into(), json!(http.headers));
            }
            if let Some(allowed) = &http.allowed_env_vars {
                out.insert("allowed_env_vars".into(), json!(allowed));
            }
            out.insert("format".into(), http.format.as_str().into());
            out.insert("timeout_ms".into(), http.timeout_ms.into());
        }
        HookSpec::Policy(policy) => {
            out.insert("files".into(), json!(policy.files));
            out.insert("query".into(), policy.query.clone().into());
            out.insert("timeout_ms".into(), policy.timeout_ms.into());
        }
    }
    out
}

/// Which hook it is and when it runs: its id (unless the content id), event, tools, matcher, `if` and filters, and the
/// switches that are not at their default.
fn routing_fields(decl: &HookDecl, out: &mut Map<String, Value>) {
    let kind = decl.kind().as_str();
    let default_id = format!("{}.{kind}.{}", id_prefix(decl.origin.as_str()), decl.hash);
    if decl.id != default_id {
        out.insert("id".into(), decl.id.clone().into());
    }
    out.insert("on".into(), decl.event.to_string().into());
    if let Some(tools) = &decl.tools {
        out.insert("tools".into(), json!(tools));
    }
    if let Some(matcher) = &decl.matcher {
        out.insert("matcher".into(), matcher.pattern.clone().into());
    }
    if let Some(condition) = &decl.condition {
        out.insert("if".into(), condition.as_str().into());
    }
    if let Some(command) = &decl.command {
        let patterns = command.canonical();
        out.insert("command".into(), patterns.as_array().filter(|p| p.len() == 1).map_or(patterns, |p| &p[0]).clone());
        out.insert("on_unknown".into(), command.on_unknown().as_str().into());
        if let Some(answer) = command.on_interpreter() {
            out.insert("on_interpreter".into(), answer.as_str().into());
        }
    }
    if decl.filters.only_errors {
        out.insert("only_errors".into(), true.into());
    }
    if decl.filters.scope != Scope::Main {
        out.insert("scope".into(), json!(decl.filters.scope));
    }
    if decl.sequential {
        out.insert("sequential".into(), true.into());
    }
    if decl.run_async {
        out.insert("async".into(), true.into());
    }
    if !decl.enabled {
        out.insert("enabled".into(), false.into());
    }
}

/// Its kind, and the protocol and `on_error` where they are not the default.
fn kind_fields(decl: &HookDecl, out: &mut Map<String, Value>) {
    out.insert("kind".into(), decl.kind().as_str().into());
    if decl.protocol != hook_types::Protocol::Native {
        out.insert("protocol".into(), decl.protocol.as_str().into());
    }
    if decl.on_error != decl.protocol.default_on_error(&decl.event) {
        let word = match decl.on_error {
            OnError::Deny => "deny",
            OnError::Ignore => "ignore",
        };
        out.insert("on_error".into(), word.into());
    }
}

/// A command hook's program, and its `cwd`, timeout, `as` and `env` where they are not the default.
fn command_fields(decl: &HookDecl, command: &hook_config::CommandSpec, out: &mut Map<String, Value>) {
    match &command.program {
        Program::Argv(argv) => out.insert("argv".into(), json!(argv)),
        Program::Shell(line) => out.insert("shell".into(), line.clone().into()),
        Program::PowerShell(line) => out.insert("powershell".into(), line.clone().into()),
    };
    if command.cwd != "." {
        out.insert("cwd".into(), command.cwd.clone().into());
    }
    if command.timeout_ms != decl.protocol.default_timeout_ms() {
        out.insert("timeout_ms".into(), command.timeout_ms.into());
    }
    if command.as_mode != AsMode::default_for(&decl.event) {
        out.insert("as".into(), json!(command.as_mode));
    }
    if !command.env.is_empty() {
        out.insert("env".into(), json!(command.env));
    }
}

/// An evaluated hook's prompt, and its timeout, model and `agent` where they are not the default.
fn evaluated_fields(decl: &HookDecl, evaluated: &hook_config::EvaluatedSpec, out: &mut Map<String, Value>) {
    out.insert("prompt".into(), evaluated.prompt.clone().into());
    if evaluated.timeout_ms != decl.protocol.default_timeout_ms() {
        out.insert("timeout_ms".into(), evaluated.timeout_ms.into());
    }
    if let Some(model) = &evaluated.model {
        out.insert("model".into(), model.clone().into());
    }
    if evaluated.agent {
        out.insert("agent".into(), true.into());
    }
}

/// The lines of a block of hooks as YAML list items at `indent`, between two comment lines that say where they came
/// from.
pub(crate) fn yaml_block(hooks: &[Map<String, Value>], indent: &str, header: &str, footer: &str) -> String {
    let mut block = format!("{indent}# {header}\n");
    for hook in hooks {
        let text = serde_norway::to_string(&Value::Object(hook.clone())).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let lead = if i == 0 { "- " } else { "  " };
            block.push_str(&format!("{indent}{lead}{line}\n"));
        }
    }
    block.push_str(&format!("{indent}# {footer}\n"));
    block
}

/// Where a block of list items goes in an existing native file, and at which indentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Insertion {
    /// Byte offset to insert at.
    pub at: usize,
    /// The list items' indentation.
    pub indent: String,
    /// Text to put before the block (a newline the file lacked at its end).
    pub before: &'static str,
}

/// Finds where to add list items to a native file: after the last item of a top-level list, or of the `hooks:` list
/// of a `{version: 1, hooks: [...]}` file (before the key that follows it). A file with no content gets a top-level
/// list. `Err` says why the file's shape cannot take a block (a list in flow style, `[...]`).
pub(crate) fn insertion(text: &str) -> Result<Insertion, String> {
    let lines = line_spans(text);
    let content = |line: &str| {
        let trimmed = line.trim();
        !(trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "---")
    };
    let at_end = |indent: String| Insertion {
        at: text.len(),
        indent,
        before: if text.is_empty() || text.ends_with('\n') { "" } else { "\n" },
    };
    let Some(first) = lines.iter().position(|(_, line)| content(line)) else {
        return Ok(at_end(String::new()));
    };
    let first_line = lines[first].1;
    let lead = indentation(first_line);
    if first_line[lead.len()..].starts_with("- ") || first_line[lead.len()..].trim_end() == "-" {
        return Ok(at_end(lead.to_owned()));
    }
    let Some(key) = lines.iter().position(|(_, line)| is_hooks_key(line)) else {
        return Err("it is neither a block list of hooks nor a mapping with a block `hooks:` list".into());
    };
    let next = lines[key + 1..].iter().position(|(_, line)| content(line)).map(|i| key + 1 + i);
    let indent = match next {
        Some(n) if lines[n].1.trim_start().starts_with('-') => indentation(lines[n].1).to_owned(),
        // `hooks:` with nothing under it (null): the items go right under the key.
        _ => "  ".to_owned(),
    };
    let mut end = key + 1;
    for (i, (_, line)) in lines.iter().enumerate().skip(key + 1) {
        if !content(line) {
            continue;
        }
        let lead = indentation(line);
        let item = lead == indent && line[lead.len()..].starts_with('-');
        if lead.len() > indent.len() || item {
            end = i + 1;
        } else {
            break;
        }
    }
    match lines.get(end) {
        Some((offset, _)) => Ok(Insertion { at: *offset, indent, before: "" }),
        None => Ok(at_end(indent)),
    }
}

/// Whether a line is the top-level `hooks:` key of a block mapping, with its list below it.
fn is_hooks_key(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("hooks") else { return false };
    let Some(rest) = rest.trim_start_matches([' ', '\t']).strip_prefix(':') else { return false };
    let rest = rest.trim();
    rest.is_empty() || rest.starts_with('#')
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches(' ').len()]
}

/// Each line with the byte offset it starts at (line breaks excluded).
fn line_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        out.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(text: &str) -> String {
        let at = insertion(text).unwrap();
        let hook = json!({"on": "pre_tool", "kind": "command", "shell": "exit 0"});
        let block = yaml_block(&[hook.as_object().unwrap().clone()], &at.indent, "moved", "end");
        format!("{}{}{block}{}", &text[..at.at], at.before, &text[at.at..])
    }

    #[test]
    fn a_block_goes_after_the_last_item_of_either_file_shape() {
        assert_eq!(insert(""), "# moved\n- on: pre_tool\n  kind: command\n  shell: exit 0\n# end\n");
        assert_eq!(
            insert("# mine\n- {on: turn_start, kind: prompt, message: hi}"),
            concat!(
                "# mine\n- {on: turn_start, kind: prompt, message: hi}\n",
                "# moved\n- on: pre_tool\n  kind: command\n  shell: exit 0\n# end\n"
            )
        );
        let mapping =
            "version: 1\nhooks:\n  - on: turn_start\n    kind: prompt\n    message: hi\n\nonly_managed: false\n";
        assert_eq!(
            insert(mapping),
            concat!(
                "version: 1\nhooks:\n  - on: turn_start\n    kind: prompt\n    message: hi\n",
                "  # moved\n  - on: pre_tool\n    kind: command\n    shell: exit 0\n  # end\n",
                "\nonly_managed: false\n"
            )
        );
        assert_eq!(
            insert("version: 1\nhooks:\n"),
            "version: 1\nhooks:\n  # moved\n  - on: pre_tool\n    kind: command\n    shell: exit 0\n  # end\n"
        );
    }

    #[test]
    fn a_list_in_flow_style_cannot_take_a_block() {
        assert!(insertion("[{on: pre_tool, kind: prompt, message: hi}]").is_err());
        assert!(insertion("version: 1\nhooks: []\n").is_err());
    }
}
