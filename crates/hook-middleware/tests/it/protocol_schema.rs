//! The hand-written schemas stay in step with what the code writes and reads.

use hook_exec::{Exit, RunResult};
use hook_middleware::EventInput;
use hook_middleware::protocol::{HookRules, interpret, output_schema, payload, payload_schema};
use hook_types::{CANONICAL_EVENTS, Effect, Event, Protocol, RunStatus, effect_kinds};
use serde_json::{Map, Value, json};

/// A value of the schema's type for a field (the smallest that satisfies it).
fn sample(schema: &Value) -> Value {
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(values) = schema.get("enum") {
        return values[0].clone();
    }
    match schema["type"].as_str() {
        Some("object") => json!({}),
        Some("boolean") => json!(true),
        _ => json!("x"),
    }
}

#[test]
fn output_schema_effects_are_exactly_the_closed_set_the_parser_reads() {
    let schema = output_schema();
    let variants = schema["properties"]["effects"]["items"]["oneOf"].as_array().unwrap();
    let kinds: Vec<&str> = variants.iter().map(|v| v["properties"]["kind"]["const"].as_str().unwrap()).collect();
    assert_eq!(kinds, effect_kinds().collect::<Vec<_>>());
    for variant in variants {
        let properties = variant["properties"].as_object().unwrap();
        // Every field the schema lists, at the smallest valid value, parses…
        let full: Map<String, Value> = properties.iter().map(|(k, v)| (k.clone(), sample(v))).collect();
        Effect::from_json(&Value::Object(full.clone())).unwrap_or_else(|e| panic!("{full:?}: {e}"));
        // …only the required ones parse too…
        let required: Map<String, Value> = variant["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| (k.as_str().unwrap().to_owned(), sample(&properties[k.as_str().unwrap()])))
            .collect();
        Effect::from_json(&Value::Object(required.clone())).unwrap_or_else(|e| panic!("{required:?}: {e}"));
        // …and a field the schema does not list is rejected, as `additionalProperties: false` says.
        let mut extra = full;
        extra.insert("colour".into(), json!("red"));
        assert!(Effect::from_json(&Value::Object(extra)).is_err());
    }
}

#[test]
fn output_schema_field_types_are_the_ones_interpret_enforces() {
    let schema = output_schema();
    let run =
        |stdout: String| RunResult { exit: Some(Exit::Code(0)), stdout: stdout.into_bytes(), ..Default::default() };
    let rules = HookRules::new("h", Protocol::Native, &Event::PreTool);
    let input = EventInput::new(Event::PreTool);
    let check = |path: &str, field: &str, property: &Value, wrap: &dyn Fn(Value) -> Value| {
        let wrong = match property["type"].as_str() {
            Some("string") => json!(1),
            Some("boolean") | Some("object") | Some("array") => json!("x"),
            _ => return, // enums are checked by the table
        };
        let result = interpret(&rules, &input, &run(wrap(json!({ field: wrong })).to_string()));
        assert_eq!(result.status, RunStatus::Failed, "{path}{field} of the wrong type must fail the run");
    };
    for (field, property) in schema["properties"].as_object().unwrap() {
        check("", field, property, &|v| v);
    }
    let specific = &schema["properties"]["hookSpecificOutput"]["properties"];
    for (field, property) in specific.as_object().unwrap() {
        if field == "updatedInput" {
            continue; // any JSON is read; a non-object fails when applied (see the table)
        }
        check("hookSpecificOutput.", field, property, &|v| json!({ "hookSpecificOutput": v }));
    }
}

#[test]
fn payload_schema_lists_every_field_any_payload_writes() {
    let schema = payload_schema();
    let properties = schema["properties"].as_object().unwrap();
    let required: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for protocol in Protocol::ALL {
        for event in CANONICAL_EVENTS {
            let mut input =
                EventInput::new(event.clone()).with_tool("shell", json!({"command": "ls", "file_path": "a"}));
            input.session_id = Some("s".into());
            input.turn_id = Some("t".into());
            input.cwd = Some("/w".into());
            input.transcript_path = Some("/t".into());
            input.model = Some("m".into());
            input.permission_mode = Some("default".into());
            input.tool_use_id = Some("c".into());
            input.tool_response = Some(json!({}));
            input.content = Some("c".into());
            input.prompt = Some("p".into());
            input.source = Some("startup".into());
            input.trigger = Some("auto".into());
            input.agent_id = Some("a".into());
            input.agent_type = Some("t".into());
            let value: Value = serde_json::from_slice(&payload(protocol, &input)).unwrap();
            let object = value.as_object().unwrap();
            for key in object.keys() {
                assert!(properties.contains_key(key), "{protocol} {event}: `{key}` is missing from the payload schema");
            }
            for key in &required {
                assert!(object.contains_key(*key), "{protocol} {event}: required `{key}` is missing");
            }
        }
    }
}
