//! The wire vocabulary: effects, events, folds, summaries and receipts.

use hook_types::*;
use serde_json::{Value, json};

/// One example of every effect kind, in the order of docs/effects.md.
fn every_effect() -> Vec<Effect> {
    let mut input = serde_json::Map::new();
    input.insert("command".into(), json!("cargo test"));
    vec![
        Effect::InjectReminder { message: "Run the tests.".into(), severity: Severity::Advisory },
        Effect::AnnotateToolResult { message: "3 tests failed".into(), severity: AnnotationSeverity::Warn },
        Effect::BlockTool { reason: "rm -rf is not allowed".into(), severity: HardBlock::HardBlock },
        Effect::AllowTool { reason: Some("read-only command".into()) },
        Effect::AskUser { reason: None },
        Effect::RewriteToolInput { input },
        Effect::ProtectPath { path: ".env".into(), reason: "secrets".into() },
        Effect::RequireTool { tool_name: "run_tests".into() },
        Effect::LockTools {},
        Effect::RequestContinuation { message: "The tests still fail; fix them.".into() },
        Effect::BlockTurn { reason: "prompt contains a secret".into() },
        Effect::Halt { reason: "budget exhausted".into() },
        Effect::NotifyOperator { message: "hook is slow".into(), key: "slow".into() },
    ]
}

#[test]
fn every_effect_kind_round_trips_through_json() {
    let effects = every_effect();
    let kinds: Vec<&str> = effects.iter().map(Effect::kind).collect();
    assert_eq!(kinds, effect_kinds().collect::<Vec<_>>(), "the examples cover every kind, in order");
    for effect in effects {
        let text = serde_json::to_string(&effect).unwrap();
        let back: Effect = serde_json::from_str(&text).unwrap();
        assert_eq!(back, effect, "{text}");
    }
}

#[test]
fn every_effect_snapshot() {
    insta::assert_yaml_snapshot!(every_effect());
}

#[test]
fn unknown_effect_kind_is_rejected_naming_it() {
    let err = Effect::from_json(&json!({"kind": "inject_remindr", "message": "x"})).unwrap_err();
    assert_eq!(err.to_string(), "unknown effect kind `inject_remindr` (did you mean `inject_reminder`?)");
    let err = serde_json::from_str::<Effect>(r#"{"kind":"explode"}"#).unwrap_err();
    assert!(err.to_string().starts_with("unknown effect kind `explode`"), "{err}");
}

#[test]
fn unknown_effect_field_is_rejected_naming_it() {
    let err = Effect::from_json(&json!({"kind": "notify_operator", "message": "m", "kye": "k"})).unwrap_err();
    assert_eq!(err.to_string(), "unknown field `kye` in effect `notify_operator` (did you mean `key`?)");
    let err = Effect::from_json(&json!({"kind": "lock_tools", "reason": "x"})).unwrap_err();
    assert!(matches!(err, EffectError::UnknownField { ref field, .. } if field == "reason"), "{err}");
}

#[test]
fn wrong_types_and_missing_fields_are_rejected() {
    let err = Effect::from_json(&json!({"kind": "rewrite_tool_input", "input": "not an object"})).unwrap_err();
    assert!(matches!(err, EffectError::Invalid { .. }), "{err}");
    let err = Effect::from_json(&json!({"kind": "block_tool"})).unwrap_err();
    assert!(err.to_string().contains("missing field `reason`"), "{err}");
    let err = Effect::from_json(&json!({"kind": "block_tool", "reason": "r", "severity": "warn"})).unwrap_err();
    assert!(err.to_string().contains("hard-block"), "{err}");
}

#[test]
fn camel_case_effect_spellings_read_as_aliases() {
    let effect = Effect::from_json(&json!({"kind": "requireTool", "toolName": "lint"})).unwrap();
    assert_eq!(effect, Effect::RequireTool { tool_name: "lint".into() });
    assert_eq!(serde_json::to_value(&effect).unwrap(), json!({"kind": "require_tool", "tool_name": "lint"}));
}

#[test]
fn valid_on_and_widens_follow_the_effect_table() {
    // (kind, events it is valid on, widens) — written out from docs/effects.md by hand.
    let all_but_end = ["session_start", "turn_start", "pre_tool", "permission_request", "post_tool", "turn_end"];
    let all_but_end = [&all_but_end[..], &["compaction", "notification"]].concat();
    let table: Vec<(&str, Vec<&str>, bool)> = vec![
        ("inject_reminder", all_but_end.clone(), true),
        ("annotate_tool_result", vec!["post_tool"], true),
        ("block_tool", vec!["pre_tool", "permission_request"], false),
        ("allow_tool", vec!["pre_tool", "permission_request"], true),
        ("ask_user", vec!["pre_tool"], false),
        ("rewrite_tool_input", vec!["pre_tool", "permission_request"], true),
        ("protect_path", vec!["pre_tool", "post_tool"], false),
        ("require_tool", vec!["turn_start", "turn_end"], true),
        ("lock_tools", vec!["turn_start", "pre_tool"], false),
        ("request_continuation", vec!["turn_end"], true),
        ("block_turn", vec!["turn_start"], false),
        ("halt", all_but_end.clone(), false),
        ("notify_operator", CANONICAL_EVENTS.iter().map(Event::canonical_name).collect(), false),
    ];
    for (effect, (kind, valid, widens)) in every_effect().iter().zip(&table) {
        assert_eq!(effect.kind(), *kind);
        assert_eq!(effect.widens(), *widens, "{kind} widens");
        for event in &CANONICAL_EVENTS {
            let expected = valid.contains(&event.canonical_name());
            assert_eq!(effect.valid_on(event), expected, "{kind} on {event}");
        }
    }
}

#[test]
fn event_aliases_parse_per_the_design_table() {
    // Written out by hand from docs/events.md, not taken from the parser's own table.
    let cases: &[(&str, &str, bool, Scope)] = &[
        ("session_start", "session_start", false, Scope::Main),
        ("SessionStart", "session_start", false, Scope::Main),
        ("turn_start", "turn_start", false, Scope::Main),
        ("UserPromptSubmit", "turn_start", false, Scope::Main),
        ("BeforeAgent", "turn_start", false, Scope::Main),
        ("beforeSubmitPrompt", "turn_start", false, Scope::Main),
        ("pre_tool", "pre_tool", false, Scope::Main),
        ("before_tool", "pre_tool", false, Scope::Main),
        ("PreToolUse", "pre_tool", false, Scope::Main),
        ("BeforeTool", "pre_tool", false, Scope::Main),
        ("permission_request", "permission_request", false, Scope::Main),
        ("PermissionRequest", "permission_request", false, Scope::Main),
        ("post_tool", "post_tool", false, Scope::Main),
        ("after_tool", "post_tool", false, Scope::Main),
        ("PostToolUse", "post_tool", false, Scope::Main),
        ("AfterTool", "post_tool", false, Scope::Main),
        ("PostToolUseFailure", "post_tool", true, Scope::Main),
        ("turn_end", "turn_end", false, Scope::Main),
        ("Stop", "turn_end", false, Scope::Main),
        ("AfterAgent", "turn_end", false, Scope::Main),
        ("SubagentStop", "turn_end", false, Scope::Subagent),
        ("compaction", "compaction", false, Scope::Main),
        ("on_compaction", "compaction", false, Scope::Main),
        ("PreCompact", "compaction", false, Scope::Main),
        ("PreCompress", "compaction", false, Scope::Main),
        ("notification", "notification", false, Scope::Main),
        ("Notification", "notification", false, Scope::Main),
        ("session_end", "session_end", false, Scope::Main),
        ("SessionEnd", "session_end", false, Scope::Main),
        ("foreign:SubagentStart", "foreign:SubagentStart", false, Scope::Main),
    ];
    for (alias, canonical, only_errors, scope) in cases {
        let parsed = Event::parse(alias).unwrap_or_else(|e| panic!("{alias}: {e}"));
        assert_eq!(parsed.event.to_string(), *canonical, "{alias}");
        assert_eq!(parsed.filters.only_errors, *only_errors, "{alias}");
        assert_eq!(parsed.filters.scope, *scope, "{alias}");
    }
}

#[test]
fn event_names_are_case_sensitive_and_unknown_names_suggest() {
    let err = Event::parse("PreTooluse").unwrap_err();
    assert_eq!(err.suggestion.as_deref(), Some("PreToolUse"));
    assert_eq!(err.to_string(), "unknown event `PreTooluse` (did you mean `PreToolUse`?)");
    // Cursor's camelCase names are aliases too, so the nearest of all the agents' spellings is suggested.
    assert_eq!(Event::parse("pretooluse").unwrap_err().suggestion.as_deref(), Some("preToolUse"));
    assert!(Event::parse("SubagentStart").is_err(), "foreign events need the foreign: prefix in native files");
    assert!(Event::parse("foreign:").is_err());
}

#[test]
fn event_classes_and_failure_policies() {
    let gates: Vec<_> = CANONICAL_EVENTS.iter().filter(|e| e.class() == EventClass::Gate).collect();
    assert_eq!(gates, [&Event::TurnStart, &Event::PreTool]);
    for event in &CANONICAL_EVENTS {
        let expected = if gates.contains(&event) { OnError::Deny } else { OnError::Ignore };
        assert_eq!(Protocol::Native.default_on_error(event), expected, "{event}");
        assert_eq!(Protocol::Claude.default_on_error(event), OnError::Ignore, "{event}");
        assert_eq!(Protocol::Clio.default_on_error(event), OnError::Ignore, "{event}");
    }
    assert_eq!(Protocol::Mecha.default_on_error(&Event::PreTool), OnError::Deny);
    assert_eq!(Protocol::Mecha.default_on_error(&Event::PostTool), OnError::Ignore);
    assert_eq!(Event::Foreign("X".into()).class(), EventClass::Observer);
}

#[test]
fn origins_order_by_precedence() {
    let mut shuffled = [Origin::Managed, Origin::Project, Origin::Extension, Origin::ProjectLocal, Origin::User];
    shuffled.sort();
    assert_eq!(shuffled, Origin::ALL);
    let trusted: Vec<_> = Origin::ALL.into_iter().filter(|o| o.trusted_by_default()).collect();
    assert_eq!(trusted, [Origin::User, Origin::Managed]);
}

fn deny(reason: &str) -> Decision {
    Decision::Deny { reason: reason.into() }
}
fn allow() -> Decision {
    Decision::Allow { reason: None }
}

#[test]
fn gate_fold_rules() {
    // An allow then a deny gives deny.
    assert_eq!(gate_fold(&[allow(), deny("no")]).verdict, Verdict::Deny);
    // Two allows give allow.
    assert_eq!(gate_fold(&[allow(), allow()]).verdict, Verdict::Allow);
    // Nothing gives pass.
    assert_eq!(gate_fold(&[]).verdict, Verdict::Pass);
    assert_eq!(gate_fold(&[Decision::Pass]).verdict, Verdict::Pass);
    // Two denies report the higher-precedence (later) one's reason; the other becomes feedback.
    let folded = gate_fold(&[deny("lower"), Decision::Pass, deny("higher")]);
    assert_eq!((folded.verdict, folded.reason.as_deref(), folded.deciding), (Verdict::Deny, Some("higher"), Some(2)));
    assert_eq!(folded.other_denials, vec![(0, "lower".to_string())]);
    // Ask beats allow, on either side.
    assert_eq!(gate_fold(&[allow(), Decision::Ask { reason: None }]).verdict, Verdict::Ask);
    assert_eq!(gate_fold(&[Decision::Ask { reason: Some("why".into()) }, allow()]).verdict, Verdict::Ask);
}

#[test]
fn a_halt_denies_a_gate() {
    // The pipeline turns a `halt` effect into a deny decision carrying its reason.
    let halt = Effect::Halt { reason: "stop now".into() };
    let decision = match &halt {
        Effect::Halt { reason } => deny(reason),
        _ => unreachable!(),
    };
    let folded = gate_fold(&[allow(), decision, allow()]);
    assert_eq!((folded.verdict, folded.reason.as_deref()), (Verdict::Deny, Some("stop now")));
}

#[test]
fn permission_fold_rules() {
    assert_eq!(permission_fold(&[allow(), deny("no")]).verdict, Verdict::Deny);
    assert_eq!(permission_fold(&[deny("no"), allow()]).verdict, Verdict::Deny);
    assert_eq!(permission_fold(&[allow(), allow()]).verdict, Verdict::Allow);
    assert_eq!(permission_fold(&[]).verdict, Verdict::None);
    assert_eq!(permission_fold(&[Decision::Pass, Decision::Ask { reason: None }]).verdict, Verdict::None);
    assert_eq!(permission_fold(&[deny("a"), deny("b")]).reason.as_deref(), Some("b"));
}

#[test]
fn run_summary_snapshot() {
    let summary = RunSummary {
        hook_id: "project.command.8edef845af953d62".into(),
        origin: Some(Origin::ProjectLocal),
        source: ".hooks/hooks.local.yaml".into(),
        hash: "8edef845af953d62".into(),
        event: Event::PreTool,
        protocol: Protocol::Claude,
        status: RunStatus::Blocked,
        exit_code: Some(2),
        duration_ms: 41,
        entries: vec![
            OutputEntry::new(EntryKind::Feedback, "rm -rf is not allowed"),
            OutputEntry::new(EntryKind::Warning, "stdout truncated at 1048576 bytes"),
        ],
        replay: None,
    };
    insta::assert_yaml_snapshot!(summary);
    let back: RunSummary = serde_json::from_value(serde_json::to_value(&summary).unwrap()).unwrap();
    assert_eq!(back, summary);
}

#[test]
fn receipt_snapshot() {
    let receipt = Receipt {
        time: format_rfc3339_millis(1_796_013_323_120),
        hook_id: "user.guard".into(),
        origin: Some(Origin::User),
        source: "/home/dev/.config/hooks/hooks.yaml".into(),
        hash: "3d272c794c1ca3aa".into(),
        event: Event::Foreign("SubagentStart".into()),
        kind: HookKind::Command,
        outcome: Outcome::CommandTimeout,
        effects: vec!["inject_reminder".into()],
        exit_code: None,
        output_bytes: 17,
        tool_name: Some("shell".into()),
        duration_ms: 10_003,
        http_status: None,
        session_id: Some("sess-1".into()),
        bound: None,
        reason: None,
        background: false,
        dropped: None,
        prev: Some("0".repeat(64)),
    };
    insta::assert_yaml_snapshot!(receipt);
    let value = serde_json::to_value(&receipt).unwrap();
    assert_eq!(value["event"], Value::String("foreign:SubagentStart".into()));
    assert_eq!(serde_json::from_value::<Receipt>(value).unwrap(), receipt);
}

#[test]
fn limits_clamp_timeouts() {
    let limits = Limits::default();
    assert_eq!(limits.clamp_timeout_ms(10), (100, true));
    assert_eq!(limits.clamp_timeout_ms(700_000), (600_000, true));
    assert_eq!(limits.clamp_timeout_ms(10_000), (10_000, false));
}
