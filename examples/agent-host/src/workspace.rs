//! The throwaway repository the example agent works in: its `.hooks/hooks.yaml` and the hook scripts it names.

use std::path::Path;

/// The repository's hooks. Everything here comes from the project origin, so the command hooks and the hooks that
/// can widen what the agent does run only once trusted; `ask_user`, `protect_path` and `block_tool` only narrow and
/// run untrusted.
pub const HOOKS_YAML: &str = r#"version: 1
hooks:
  - id: repo.tests-first          # turn_start: a reminder into the model's context
    on: turn_start
    kind: prompt
    message: Run the tests before you commit.

  - id: repo.no-force-push        # pre_tool gate: exit 2 denies, stderr is the reason
    on: pre_tool
    tools: [shell]
    kind: command
    argv: [./scripts/no-force-push.sh]

  - id: repo.pip-user             # pre_tool gate: rewrites the tool's input
    on: pre_tool
    tools: [shell]
    kind: command
    argv: [./scripts/pip-user.sh]

  - id: repo.protect-env          # narrows only: runs untrusted
    on: pre_tool
    tools: [write, edit]
    kind: effect
    effect: {kind: protect_path, path: .env, reason: secrets live here}

  - id: repo.github-ask           # an MCP server's tools need a human
    on: pre_tool
    matcher: "mcp:github:.*"
    kind: effect
    effect: {kind: ask_user, reason: this writes to GitHub}

  - id: repo.note-failures        # post_tool observer: plain stdout becomes a note on the result
    on: post_tool
    only_errors: true
    kind: command
    shell: echo "read the first failure before changing code"

  - id: repo.keep-going           # turn_end: always asks for one more turn (the cap stops it)
    on: turn_end
    kind: command
    shell: echo '{"effects":[{"kind":"request_continuation","message":"the tests still fail; keep going"}]}'

  - id: repo.upload-transcript    # never trusted by this host's user: reported, never run
    on: post_tool
    kind: command
    argv: [./scripts/upload.sh]
"#;

/// What a change to `hooks.yaml` in the middle of the session adds.
pub const ADDED_HOOK: &str = r#"
  - id: repo.no-web               # added while the agent runs: picked up by the reload
    on: pre_tool
    tools: [web_fetch]
    kind: effect
    effect: {kind: block_tool, reason: no web access from this repository}
"#;

const NO_FORCE_PUSH: &str = r#"#!/bin/sh
# The payload is compact JSON on stdin; exit 2 denies with stderr as the reason.
if grep -q -- '--force'; then
  echo "force pushes are off in this repository" >&2
  exit 2
fi
"#;

const PIP_USER: &str = r#"#!/bin/sh
# Installs go to the user's site-packages: rewrite `pip install X` to `pip install --user X`.
payload=$(cat)
package=$(printf '%s' "$payload" | sed -n 's/.*"tool_input":{"command":"pip install \([a-z0-9_-]*\)"}.*/\1/p')
[ -n "$package" ] || exit 0
printf '{"effects":[{"kind":"rewrite_tool_input","input":{"command":"pip install --user %s"}}]}\n' "$package"
"#;

const UPLOAD: &str = "#!/bin/sh\ncat >/dev/null\n";

/// Writes the repository into `dir`: the hooks file and its scripts, each with its run bit (a script without it is
/// an error at load).
pub fn create(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join(".hooks"))?;
    std::fs::create_dir_all(dir.join("scripts"))?;
    std::fs::write(dir.join(".hooks/hooks.yaml"), HOOKS_YAML)?;
    for (name, text) in [("no-force-push.sh", NO_FORCE_PUSH), ("pip-user.sh", PIP_USER), ("upload.sh", UPLOAD)] {
        let path = dir.join("scripts").join(name);
        std::fs::write(&path, text)?;
        // The scripts are sh scripts, run by their `#!` line: the run bits are Unix's (Windows has none to set).
        #[cfg(unix)]
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    }
    Ok(())
}

/// Appends [`ADDED_HOOK`] to the hooks file, as a user editing it while the agent runs would.
pub fn add_hook(dir: &Path) -> std::io::Result<()> {
    let path = dir.join(".hooks/hooks.yaml");
    let mut text = std::fs::read_to_string(&path)?;
    text.push_str(ADDED_HOOK);
    std::fs::write(path, text)
}
