//! A clio-coder file loads what clio-coder's loader loads. clio-coder checks each field of a hook on its own (its
//! `normalizeUserHook`), so `tools` on any event, any of its effects on any event, any non-empty id, unknown keys
//! and fractional timeouts all load there; here they load too, and what clio-coder ignores or never runs is a
//! warning — never an error, never a dropped hook, never a closed gate.

use std::path::Path;

use hook_config::{FileContext, Format, HookSpec, IssueSeverity, load_file};
use hook_types::{Effect, Event, Origin};

#[test]
fn hooks_clio_coders_validator_accepts_all_load_with_warnings_for_what_it_ignores() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/config/clio-accepted");
    let workspace = workspace.canonicalize().unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: &workspace, root: &workspace, source_id: None };
    let load = load_file(&workspace.join(".clio-coder/hooks.yaml"), Format::Clio, &cx);

    let rows: Vec<(&str, Event, bool)> =
        load.hooks.iter().map(|h| (h.id.as_str(), h.event.clone(), h.enabled)).collect();
    let default_command = format!("project.command.{}", load.hooks[2].hash);
    let default_effect = format!("project.effect.{}", load.hooks[3].hash);
    assert_eq!(
        rows,
        [
            // Loaded as clio-coder loads them, and disabled since clio-coder never runs them.
            ("Remind-Shell", Event::TurnStart, false),
            ("lock-env-at-end", Event::TurnEnd, false),
            (default_command.as_str(), Event::PreTool, true),
            (default_effect.as_str(), Event::TurnEnd, true),
        ],
        "{:#?}",
        load.issues
    );
    assert_eq!(load.hooks[0].tools.as_deref(), Some(&["shell".to_owned()][..]), "what was written is kept");
    assert!(matches!(load.hooks[1].spec, HookSpec::Effect(Effect::ProtectPath { .. })));
    let HookSpec::Command(command) = &load.hooks[2].spec else { panic!("a command hook") };
    assert_eq!(command.timeout_ms, 1_500);

    assert!(load.issues.iter().all(|i| i.severity == IssueSeverity::Warning), "{:#?}", load.issues);
    assert_eq!(load.closed_gates, []);
    let warnings: Vec<String> = load
        .issues
        .iter()
        .map(|i| format!("{}:{} {}: {}", i.line.unwrap(), i.column.unwrap(), i.field.as_deref().unwrap(), i.message))
        .collect();
    assert_eq!(
        warnings,
        [
            "5:1 description: unknown top-level key `description`; expected `version`, `hooks` or `onlyManaged`; \
             clio-coder ignores it, and so does this engine",
            "8:9 hooks[0].id: `Remind-Shell` is kept as written, as clio-coder keeps it; this engine's own files take \
             lowercase letters, digits, `.`, `_` and `-` only, so change it before `hook import`",
            "10:12 hooks[0].tools: `tools` applies to tool events (pre_tool, permission_request, post_tool), not \
             turn_start; clio-coder loads this hook but never runs it (turn_start names no tool for `tools` to \
             match), and neither does this engine: it is loaded disabled; remove `tools` to run it on every \
             turn_start",
            "18:13 hooks[1].effect: effect `protect_path` is not valid on turn_end; it is valid on pre_tool, \
             post_tool; clio-coder loads this hook and ignores the effect there, so this engine loads it disabled: \
             move it to an event where the effect means something",
            "24:16 hooks[2].timeoutMs: 1500.7 is not a whole number of milliseconds; clio-coder floors and clamps it: \
             using 1500 ms",
            "25:5 hooks[2].owner: unknown field `owner`; clio-coder ignores it, and so does this engine",
            "27:9 hooks[3].id: expected a non-empty string, found an empty string: the default id is used, as \
             clio-coder does",
        ]
    );
}

#[test]
fn what_clio_coder_rejects_is_still_an_error() {
    let workspace = Path::new("/ws");
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    let text = "- {on: turn_end, kind: effect, effect: {kind: halt, reason: stop}}\n\
                - {on: turn_end, kind: prompt}\n\
                - {on: before_tol, kind: prompt, message: x}\n";
    let load = hook_config::parse_str(text, &workspace.join(".clio-coder/hooks.yaml"), Format::Clio, &cx);
    // `halt` is valid on turn_end here, though clio-coder does not know it: this engine loads more, never less.
    assert_eq!(load.hooks.len(), 1, "{:#?}", load.issues);
    let errors: Vec<&str> =
        load.issues.iter().filter(|i| i.severity == IssueSeverity::Error).map(|i| i.message.as_str()).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[1].starts_with("unknown event `before_tol`"), "{errors:#?}");
    // The hook whose event is unknown closes every gate, as in any file.
    assert_eq!(load.closed_gates.len(), 1);
}

#[test]
fn two_hooks_with_one_id_keep_the_later_in_the_earlier_place_as_clio_coder_does() {
    let workspace = Path::new("/ws");
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    let text = "- {id: note, on: turn_start, kind: prompt, message: first}\n\
                - {id: other, on: turn_start, kind: prompt, message: between}\n\
                - {id: note, on: turn_start, kind: prompt, message: second}\n";
    let load = hook_config::parse_str(text, &workspace.join(".clio-coder/hooks.yaml"), Format::Clio, &cx);
    let messages: Vec<&str> = load
        .hooks
        .iter()
        .map(|h| match &h.spec {
            HookSpec::Prompt { message, .. } => message.as_str(),
            _ => panic!("prompts"),
        })
        .collect();
    assert_eq!(messages, ["second", "between"]);
    assert_eq!(load.issues.len(), 1);
    assert_eq!(load.issues[0].severity, IssueSeverity::Warning);
}
