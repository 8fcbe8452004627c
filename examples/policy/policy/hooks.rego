# The example fleet policy for the pre_tool gate (docs/policy.md). The same file runs in-process (`kind: policy`)
# and behind an OPA server (`kind: http`, `format: opa`, URL `/v1/data/hooks/pre_tool/decision`), with the same
# answers: the hook payload is `input` (`input.tool` is the canonical tool, `input.input` the tool's input,
# `input.cwd` the workspace).
package hooks.pre_tool

import rego.v1

# Nothing to say unless a rule below denies: every query has an answer, so a misspelt path never passes silently.
default decision := {"decision": "pass"}

decision := {"decision": "deny", "reason": concat("; ", sort(deny))} if count(deny) > 0

# --- No force push -----------------------------------------------------------------------------------------------

# One pattern: `--force`, `--force-with-lease`, a short flag cluster holding `f`, or a `+refspec`.
force_push := `(^|[;&|(\s])git\s+([^;&|]*\s)?push\s([^;&|]*\s)?((--force|--force-with-lease|-[a-zA-Z]*f[a-zA-Z]*)(=\S*)?(\s|$)|\+\S+)`

deny contains "force pushes rewrite shared history: push without --force, or open a pull request" if {
	input.tool == "shell"
	contains(input.input.command, "push") # a plain string test first: most commands never reach the regex
	regex.match(force_push, input.input.command)
}

# --- No writes outside the workspace -----------------------------------------------------------------------------

write_tools := {"write", "edit", "notebook_edit"}

target_path := input.input.file_path

target_path := input.input.notebook_path if not input.input.file_path

deny contains sprintf("`%s` is outside the workspace: write only under %s", [target_path, input.cwd]) if {
	write_tools[input.tool]
	outside(target_path)
}

# An absolute path must lie under the workspace; a relative one must not climb out of it with `..`.
outside(path) if {
	startswith(path, "/")
	not startswith(path, concat("", [trim_suffix(input.cwd, "/"), "/"]))
}

outside(path) if {
	startswith(path, "/")
	some part in split(path, "/")
	part == ".."
}

outside(path) if {
	not startswith(path, "/")
	some part in split(path, "/")
	part == ".."
}

outside(path) if startswith(path, "~")

# --- No secrets in shell commands --------------------------------------------------------------------------------

secret_patterns := {
	"an AWS access key": `\b(AKIA|ASIA)[0-9A-Z]{16}\b`,
	"a GitHub token": `\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b`,
	"a Slack token": `\bxox[abprs]-[A-Za-z0-9-]{10,}`,
	"a private key": `-----BEGIN [A-Z ]*PRIVATE KEY-----`,
	"an inline password or token": `(?i)\b(password|passwd|secret|token|api[_-]?key)\s*[=:]\s*['"]?[^\s'"$]{8,}`,
}

deny contains sprintf("the command holds %s: read it from the environment or a secret store instead", [what]) if {
	input.tool == "shell"
	some what, pattern in secret_patterns
	regex.match(pattern, input.input.command)
}
