//! The content hash (docs/declarations.md#content-hash): both golden vectors pinned, invariance under spelling, sensitivity to meaning.

use std::path::{Path, PathBuf};

use hook_config::{FileContext, Format, HookDecl, HookSpec, canonical_hash_input, content_hash, load_file, parse_str};
use hook_types::Origin;
use tempfile::TempDir;

/// The first golden vector of docs/declarations.md#content-hash: its canonical input and hash.
const COMMAND_INPUT: &str = r#"{"kind":"command","matcher":null,"on":"pre_tool","on_error":"deny","protocol":"native","spec":{"argv":["sh","-c","exit 0"],"as":"reminder","cwd":".","env":{},"timeout_ms":1500},"tools":["shell"]}"#;
const COMMAND_HASH: &str = "8edef845af953d62";
/// The second golden vector.
const PROMPT_INPUT: &str = r#"{"kind":"prompt","matcher":null,"on":"turn_start","on_error":"deny","protocol":"native","spec":{"message":"Run the tests before you commit.","severity":"info"},"tools":null}"#;
const PROMPT_HASH: &str = "3d272c794c1ca3aa";

fn fixture(name: &str) -> PathBuf {
    hook_testkit::paths::repo_root().join("tests/fixtures/config").join(name)
}

/// The one hook of a file loaded cleanly (no issue at all) as a project file of `workspace`.
fn only_hook(workspace: &Path, path: &Path, text: Option<&str>, format: Format) -> HookDecl {
    let cx = FileContext { origin: Origin::Project, workspace, root: workspace, source_id: None };
    let load = match text {
        Some(text) => parse_str(text, path, format, &cx),
        None => load_file(path, format, &cx),
    };
    assert!(load.issues.is_empty(), "{}: {:#?}", path.display(), load.issues);
    assert_eq!(load.hooks.len(), 1, "{}", path.display());
    let decl = load.hooks.into_iter().next().unwrap();
    assert_eq!(decl.hash, content_hash(&decl), "the stored hash is the content hash");
    decl
}

/// Checks that every fixture loads to one hook with `hash`, whose canonical input is exactly `input`.
fn check_fixtures(names: &[&str], input: &str, hash: &str) {
    let workspace = TempDir::new().unwrap();
    for name in names {
        let decl = only_hook(workspace.path(), &fixture(name), None, Format::Native);
        assert_eq!(canonical_hash_input(&decl).to_string(), input, "{name}");
        assert_eq!(decl.hash, hash, "{name}");
    }
}

/// The hash of one native YAML hook given as text.
fn hash_of(workspace: &Path, yaml: &str) -> String {
    only_hook(workspace, Path::new("hooks.yaml"), Some(yaml), Format::Native).hash
}

const GOLDEN_COMMAND_YAML: &str = "\
- on: pre_tool
  kind: command
  tools: [shell]
  argv: [sh, -c, \"exit 0\"]
  timeout_ms: 1500
";

#[test]
fn golden_command_hook_hashes_to_the_first_vector_in_every_spelling() {
    check_fixtures(
        &[
            "golden/command.yaml",
            "golden/command.json",
            "golden/command-reordered.yaml",
            "golden/command-commented.yaml",
            "golden/command-aliases.yaml",
            "golden/command-defaults.yaml",
        ],
        COMMAND_INPUT,
        COMMAND_HASH,
    );
}

#[test]
fn golden_prompt_hook_hashes_to_the_second_vector_in_yaml_and_json() {
    check_fixtures(&["golden/prompt.yaml", "golden/prompt.json"], PROMPT_INPUT, PROMPT_HASH);
}

#[test]
fn id_enabled_match_all_matcher_and_main_scope_do_not_change_the_hash() {
    let workspace = TempDir::new().unwrap();
    let base = hash_of(workspace.path(), GOLDEN_COMMAND_YAML);
    assert_eq!(base, COMMAND_HASH);
    for extra in ["  id: renamed\n", "  enabled: false\n", "  enabled: true\n", "  matcher: ''\n", "  scope: main\n"] {
        assert_eq!(hash_of(workspace.path(), &format!("{GOLDEN_COMMAND_YAML}{extra}")), base, "{extra:?}");
    }
}

#[test]
fn argv_timeout_event_and_protocol_change_the_hash() {
    let workspace = TempDir::new().unwrap();
    let base = hash_of(workspace.path(), GOLDEN_COMMAND_YAML);
    let changes = [
        ("argv", r#"argv: [sh, -c, "exit 0"]"#, r#"argv: [sh, -c, "exit 1"]"#),
        ("timeout_ms", "timeout_ms: 1500", "timeout_ms: 1501"),
        ("on", "on: pre_tool", "on: permission_request"),
        ("protocol", "kind: command", "kind: command\n  protocol: claude"),
        ("on_error", "kind: command", "kind: command\n  on_error: ignore"),
        ("tools", "tools: [shell]", "tools: [shell, read]"),
        ("sequential", "kind: command", "kind: command\n  sequential: true"),
        ("env", "kind: command", "kind: command\n  env: {CI: '1'}"),
    ];
    let mut seen = vec![base.clone()];
    for (what, from, to) in changes {
        let changed = GOLDEN_COMMAND_YAML.replace(from, to);
        assert_ne!(changed, GOLDEN_COMMAND_YAML, "{what}: the replacement must apply");
        let hash = hash_of(workspace.path(), &changed);
        assert!(!seen.contains(&hash), "changing {what} must give a new hash, got {hash}");
        seen.push(hash);
    }
}

#[test]
fn the_same_line_for_sh_and_for_powershell_hashes_apart() {
    let workspace = TempDir::new().unwrap();
    let cx =
        FileContext { origin: Origin::Project, workspace: workspace.path(), root: workspace.path(), source_id: None };
    let yaml =
        "- {on: pre_tool, kind: command, shell: \"exit 0\"}\n- {on: pre_tool, kind: command, powershell: \"exit 0\"}\n";
    // A machine without PowerShell is warned about; the hook loads all the same.
    let load = parse_str(yaml, Path::new("hooks.yaml"), Format::Native, &cx);
    let [sh, ps] = <[HookDecl; 2]>::try_from(load.hooks).unwrap();
    assert!(canonical_hash_input(&ps).to_string().contains(r#""powershell":"exit 0""#));
    assert!(canonical_hash_input(&sh).to_string().contains(r#""shell":"exit 0""#));
    assert_eq!(ps.hash, content_hash(&ps), "the stored hash is the content hash");
    assert_ne!(sh.hash, ps.hash);
}

#[test]
fn an_alias_that_implies_a_filter_hashes_like_the_canonical_event_with_that_filter() {
    let workspace = TempDir::new().unwrap();
    let alias = "- {on: PostToolUseFailure, kind: prompt, message: check the error}";
    let spelled = "- {on: post_tool, only_errors: true, kind: prompt, message: check the error}";
    let plain = "- {on: post_tool, kind: prompt, message: check the error}";
    assert_eq!(hash_of(workspace.path(), alias), hash_of(workspace.path(), spelled));
    assert_ne!(hash_of(workspace.path(), alias), hash_of(workspace.path(), plain));
    let decl = only_hook(workspace.path(), Path::new("hooks.yaml"), Some(alias), Format::Native);
    assert_eq!(canonical_hash_input(&decl)["only_errors"], true);
}

#[test]
fn the_same_declaration_in_two_workspaces_hashes_the_same() {
    let yaml = "- {on: post_tool, kind: command, argv: [./scripts/fmt.sh], cwd: scripts, env: {MODE: fast}}";
    let mut loaded = Vec::new();
    for _ in 0..2 {
        let workspace = TempDir::new().unwrap();
        std::fs::create_dir(workspace.path().join("scripts")).unwrap();
        std::fs::write(workspace.path().join("scripts/fmt.sh"), "#!/bin/sh\n").unwrap();
        let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(workspace.path().join("scripts/fmt.sh"), executable).unwrap();
        let decl = only_hook(workspace.path(), &workspace.path().join(".hooks/hooks.yaml"), Some(yaml), Format::Native);
        let HookSpec::Command(command) = &decl.spec else { panic!("a command hook") };
        // What was resolved differs per workspace; what is hashed does not.
        assert_eq!(command.resolved_cwd, workspace.path().canonicalize().unwrap().join("scripts"));
        assert_eq!(command.resolved_program.as_deref(), Some(workspace.path().join("scripts/fmt.sh").as_path()));
        loaded.push((decl.hash, workspace));
    }
    assert_eq!(loaded[0].0, loaded[1].0);
}

#[test]
fn a_clio_coder_file_hashes_differently_by_design() {
    let workspace = TempDir::new().unwrap();
    let native = hash_of(workspace.path(), GOLDEN_COMMAND_YAML);
    let clio_yaml = "- {on: before_tool, kind: command, tools: [shell], argv: [sh, -c, 'exit 0'], timeoutMs: 1500}";
    let clio = only_hook(workspace.path(), Path::new(".clio-coder/hooks.yaml"), Some(clio_yaml), Format::Clio);
    assert_ne!(clio.hash, native);
    let input = canonical_hash_input(&clio);
    assert_eq!((input["protocol"].as_str(), input["on_error"].as_str()), (Some("clio"), Some("ignore")));
    // The same clio-coder hook written natively with `protocol: clio` is the same declaration.
    let as_native = format!("{GOLDEN_COMMAND_YAML}  protocol: clio\n");
    assert_eq!(hash_of(workspace.path(), &as_native), clio.hash);
}
