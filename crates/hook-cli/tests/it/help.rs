//! What a user finds without the docs: `hook --help` lists every event with the names it is read by and every
//! effect kind, and an unknown effect kind in a hook's output names the valid ones.

use crate::common;

use common::Env;
use hook_types::{CANONICAL_EVENTS, Event, effect_kinds};

#[test]
fn long_help_lists_the_events_with_their_aliases_and_the_effect_kinds() {
    let env = Env::new("empty");
    let out = env.hook(&["--help"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let help = &out.stdout;
    assert!(help.contains("Events (`on:` takes the name or any alias; docs/events.md):"), "{help}");
    for event in &CANONICAL_EVENTS {
        let line = help.lines().find(|l| l.trim_start().starts_with(event.canonical_name()));
        assert!(line.is_some(), "no line for {event} in:\n{help}");
    }
    for (alias, event) in Event::aliases() {
        assert!(help.contains(alias), "alias {alias} of {event} missing from:\n{help}");
    }
    for kind in effect_kinds() {
        assert!(help.contains(kind), "effect kind {kind} missing from:\n{help}");
    }
    assert!(help.contains("2 deny, 3 ask, 1 any error"), "{help}");

    let short = env.hook(&["-h"]);
    assert_eq!(short.code, 0, "{short:#?}");
    assert!(short.stdout.contains("The events, their aliases and the effect kinds: hook --help"), "{short:#?}");
}

#[test]
fn an_unknown_effect_kind_in_a_hooks_output_names_the_valid_kinds() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: typo\n  on: pre_tool\n  kind: command\n  shell: echo '{\"effects\":[{\"kind\":\"blok_tool\",\"reason\":\"x\"}]}'\n",
    );
    let args = ["run", "pre_tool", "--tool", "shell", "--input", "{}", "--trust-workspace", "--no-receipts", "--json"];
    let out = env.hook(&args);
    assert_eq!(out.code, 2, "a gate hook with invalid output denies: {out:#?}");
    let kinds: Vec<&str> = effect_kinds().collect();
    let expected = format!(
        "unknown effect kind `blok_tool` (did you mean `block_tool`?); the effect kinds are {}",
        kinds.join(", ")
    );
    let reason = out.json()["reason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.ends_with(&expected), "{out:#?}");
}

#[test]
fn hook_help_of_a_command_prints_that_commands_help() {
    let env = Env::new("empty");
    let out = env.hook(&["help", "run"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("Usage: hook run [OPTIONS] <EVENT>"), "{out:#?}");
    assert!(out.stdout.contains("--trust-workspace"), "{out:#?}");
}

/// The completions and man pages come from the command line's own definition: every subcommand is in them.
#[test]
fn completions_and_man_pages_cover_every_command() {
    let env = Env::new("empty");
    let bash = env.hook(&["completions", "bash"]);
    assert_eq!(bash.code, 0, "{bash:#?}");
    assert!(bash.stdout.contains("complete -F _hook"), "{}", bash.stdout);
    for command in ["install", "bridge", "doctor", "completions", "man"] {
        assert!(bash.stdout.contains(command), "bash completion without `{command}`");
    }
    let zsh = env.hook(&["completions", "zsh"]);
    assert!(zsh.code == 0 && zsh.stdout.starts_with("#compdef hook"), "{zsh:#?}");

    let page = env.hook(&["man"]);
    assert_eq!(page.code, 0, "{page:#?}");
    assert!(page.stdout.contains(".TH hook 1"), "{}", page.stdout);
    assert!(page.stdout.contains("hook\\-install(1)"), "the page lists the commands' pages: {}", page.stdout);
    let run = env.hook(&["man", "run"]);
    assert!(run.code == 0 && run.stdout.contains(".TH hook-run 1"), "{run:#?}");
    let unknown = env.hook(&["man", "rnu"]);
    assert_eq!(unknown.code, 1, "{unknown:#?}");
    assert!(unknown.stderr.contains("`hook man rnu`: no such command; one of: inspect, validate"), "{unknown:#?}");

    let dir = env.ws.join("man1");
    let all = env.hook(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(all.code, 0, "{all:#?}");
    for page in ["hook.1", "hook-run.1", "hook-install.1", "hook-receipts-tail.1"] {
        assert!(dir.join(page).is_file(), "`hook man --out` wrote no {page}");
    }
    assert!(!dir.join("hook-help.1").exists(), "no page of clap's `help` subcommand");
}
