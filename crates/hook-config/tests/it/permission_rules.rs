//! Claude Code's permission-rule grammar, as a hook's `if` condition: a table of rules, calls and whether they match,
//! the cases taken from Claude Code's documentation (each with its source) and, for what the documentation leaves
//! open, from the matcher Claude Code 2.1.197 ships (its hook `if` evaluation: the tool's own permission matcher).

use std::path::Path;

use hook_config::{PathContext, PermissionRule};
use hook_types::Protocol;
use serde_json::{Value, json};

/// The project, the call's working directory and the home directory every case runs in.
const PROJECT: &str = "/home/alice/project";
const HOME: &str = "/home/alice";

/// One case: a rule in Claude Code's spelling, the call's Claude tool name and input, whether the rule matches.
struct Case {
    rule: &'static str,
    tool: &'static str,
    input: Value,
    matches: bool,
}

fn case(rule: &'static str, tool: &'static str, input: Value, matches: bool) -> Case {
    Case { rule, tool, input, matches }
}

fn bash(rule: &'static str, command: &str, matches: bool) -> Case {
    case(rule, "Bash", json!({ "command": command }), matches)
}

fn file(rule: &'static str, tool: &'static str, path: &str, matches: bool) -> Case {
    case(rule, tool, json!({ "file_path": path }), matches)
}

fn check(cases: &[Case]) {
    let cx =
        PathContext { cwd: Some(Path::new(PROJECT)), project: Some(Path::new(PROJECT)), home: Some(Path::new(HOME)) };
    let mut wrong = Vec::new();
    for Case { rule, tool, input, matches } in cases {
        let parsed = PermissionRule::parse(rule, Protocol::Claude).unwrap_or_else(|e| panic!("{rule}: {e}"));
        let canonical = hook_types::canonical_tool(tool).map_or_else(|| (*tool).to_owned(), |c| c.into_owned());
        if parsed.matches_named(&canonical, &[tool], Some(input), &cx) != *matches {
            wrong.push(format!("{rule} on {tool} {input}: expected {matches}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_tool_name_alone_matches_every_call_of_that_tool() {
    check(&[
        // https://code.claude.com/docs/en/permissions#permission-rule-syntax: "`Bash` Matches all Bash commands"
        bash("Bash", "rm -rf /tmp/x", true),
        // Same section: "`Bash(*)` is equivalent to `Bash`".
        bash("Bash(*)", "anything at all", true),
        bash("Bash()", "anything at all", true),
        // A rule for one tool never matches another.
        file("Bash", "Read", "/etc/hosts", false),
        // https://code.claude.com/docs/en/hooks#matcher-patterns: tool names are Claude Code's (`Edit`, `Write`).
        file("Edit", "Edit", "a.ts", true),
        file("Edit", "Write", "a.ts", false),
    ]);
}

#[test]
fn shell_rules_match_commands_by_wildcard() {
    check(&[
        // https://code.claude.com/docs/en/permissions#permission-rule-syntax: "`Bash(npm run build)` Matches the
        // exact command `npm run build`".
        bash("Bash(npm run build)", "npm run build", true),
        bash("Bash(npm run build)", "npm run build --watch", false),
        // https://code.claude.com/docs/en/permissions#wildcard-patterns: `Bash(npm run *)`, `Bash(git commit *)`,
        // `Bash(git * main)`, `Bash(* --version)`, `Bash(* --help *)`.
        bash("Bash(npm run *)", "npm run test", true),
        bash("Bash(git commit *)", "git commit -m 'fix typo'", true),
        bash("Bash(git * main)", "git checkout main", true),
        bash("Bash(git * main)", "git merge main", true),
        bash("Bash(git * main)", "git checkout dev", false),
        bash("Bash(* --version)", "node --version", true),
        bash("Bash(* --help *)", "git --help commit", true),
        // Same section: "The space before `*` matters: `Bash(ls *)` matches `ls -la` but not `lsof`, while
        // `Bash(ls*)` matches both."
        bash("Bash(ls *)", "ls -la", true),
        bash("Bash(ls *)", "lsof", false),
        bash("Bash(ls*)", "ls -la", true),
        bash("Bash(ls*)", "lsof", true),
        // A final ` *` also matches the bare command (Claude Code 2.1.197's wildcard: `( .*)?`).
        bash("Bash(git push *)", "git push", true),
        bash("Bash(git push *)", "git pushx", false),
        // Same section: "the legacy `:*` suffix syntax is equivalent to ` *`" (`Bash(npm run test:*)`).
        bash("Bash(npm run test:*)", "npm run test", true),
        bash("Bash(npm run test:*)", "npm run test --coverage", true),
        bash("Bash(npm run test:*)", "npm run testing", false),
        // Case matters, and blanks run together.
        bash("Bash(git push *)", "GIT PUSH", false),
        bash("Bash(git push *)", "git   push\torigin", true),
        // `\*` is a literal star.
        bash("Bash(echo \\*)", "echo *", true),
        bash("Bash(echo \\*)", "echo hi", false),
    ]);
}

#[test]
fn shell_rules_test_each_simple_command_of_the_line() {
    check(&[
        // https://code.claude.com/docs/en/permissions#compound-commands: Claude Code is aware of shell operators
        // (`&&`, `||`, `;`, `|`) and tests each subcommand; a hook's `if` runs the hook when any one matches.
        bash("Bash(git push *)", "npm test && git push origin main", true),
        bash("Bash(git push *)", "git status; git push", true),
        bash("Bash(git push *)", "cat log | git push", true),
        bash("Bash(git push *)", "git status && git pull", false),
        // Environment assignments before the program are not part of it (Claude Code 2.1.89's changelog: `if`
        // matches `FOO=bar git push`).
        bash("Bash(git push *)", "FOO=bar git push", true),
        // Words are unquoted before the comparison.
        bash("Bash(git push *)", "git 'push' \"--force\"", true),
        bash("Bash(git push *)", "echo 'git push'", false),
        // Redirections are not words of the command.
        bash("Bash(git push *)", "git push > /dev/null 2>&1", true),
        // `xargs git push` runs `git push` (Claude Code 2.1.197's matcher also tries `xargs <rule>`).
        bash("Bash(git push *)", "echo origin | xargs git push", true),
        // A line that cannot be read statically runs the hook, which decides itself: a guard is not skipped.
        bash("Bash(git push *)", "$(echo git) push", true),
        bash("Bash(git push *)", "bash -c \"$CMD\"", true),
        // Stricter than Claude Code (docs/shell-commands.md#permission-rules): what the line runs is tested, through
        // wrappers, absolute paths, git's global options, nested scripts and here-documents fed to a shell.
        bash("Bash(git push *)", "sudo /usr/bin/git -C repo push --force", true),
        bash("Bash(git push *)", "bash -c 'git push origin'", true),
        bash("Bash(git push *)", "bash <<EOF\ngit push\nEOF", true),
        bash("Bash(git push *)", "cat <<EOF\ngit push\nEOF", false),
    ]);
}

#[test]
fn file_rules_are_gitignore_patterns_under_the_root_they_name() {
    check(&[
        // https://code.claude.com/docs/en/permissions#read-and-edit: "`Read(./.env)` Matches reading the `.env`
        // file in the current directory".
        file("Read(./.env)", "Read", "/home/alice/project/.env", true),
        file("Read(./.env)", "Read", ".env", true),
        file("Read(./.env)", "Read", "/home/alice/project/.env.example", false),
        // Same section: `//path` is an absolute path from the filesystem root: `Read(//Users/alice/secrets/**)`.
        file("Read(//Users/alice/secrets/**)", "Read", "/Users/alice/secrets/keys/id", true),
        file("Read(//Users/alice/secrets/**)", "Read", "/Users/bob/secrets/id", false),
        // Same section: `~/path` is from the home directory: `Read(~/Documents/*.pdf)`.
        file("Read(~/Documents/*.pdf)", "Read", "/home/alice/Documents/tax.pdf", true),
        file("Read(~/Documents/*.pdf)", "Read", "~/Documents/tax.pdf", true),
        file("Read(~/Documents/*.pdf)", "Read", "/home/alice/Documents/2024/tax.pdf", false),
        // Same section: `/path` is relative to the project root: `Edit(/src/**/*.ts)`.
        file("Edit(/src/**/*.ts)", "Edit", "/home/alice/project/src/a/b.ts", true),
        file("Edit(/src/**/*.ts)", "Edit", "/home/alice/project/src/b.ts", true),
        file("Edit(/src/**/*.ts)", "Edit", "/home/alice/project/lib/src/b.ts", false),
        // Same section: `path` or `./path` is relative to the current directory: `Read(*.env)`, at any depth
        // (gitignore: a pattern without a `/` matches in every directory).
        file("Read(*.env)", "Read", "/home/alice/project/config/prod.env", true),
        file("Read(*.env)", "Read", "/home/alice/project/prod.envrc", false),
        // Same section: "`*` matches files in a single directory while `**` matches recursively".
        file("Edit(/docs/*)", "Edit", "/home/alice/project/docs/a.md", true),
        file("Edit(/docs/*)", "Edit", "/home/alice/project/docs/x/a.md", true),
        file("Edit(/docs/**)", "Edit", "/home/alice/project/docs/x/a.md", true),
        file("Edit(/docs/**)", "Edit", "/home/alice/project/README.md", false),
        // A path outside the root does not match by pattern; one with no `*` is also compared as written.
        file("Read(/etc/passwd)", "Read", "/etc/passwd", true),
        file("Read(src/**)", "Read", "/tmp/src/a", false),
        // `..` in the call's path is resolved before the comparison.
        file("Read(./.env)", "Read", "/home/alice/project/sub/../.env", true),
        // NotebookEdit names its file `notebook_path`.
        case("NotebookEdit(*.ipynb)", "NotebookEdit", json!({"notebook_path": "/home/alice/project/a.ipynb"}), true),
    ]);
}

#[test]
fn fetch_rules_name_domains_and_mcp_rules_name_servers_and_tools() {
    let fetch = |rule, url: &str, matches| case(rule, "WebFetch", json!({ "url": url }), matches);
    let mcp = |rule, tool, matches| case(rule, tool, json!({}), matches);
    check(&[
        // https://code.claude.com/docs/en/permissions#webfetch: "`WebFetch(domain:example.com)` Matches fetch
        // requests to example.com".
        fetch("WebFetch(domain:example.com)", "https://example.com/a?b", true),
        fetch("WebFetch(domain:example.com)", "https://EXAMPLE.com./", true),
        fetch("WebFetch(domain:example.com)", "https://api.example.com/", false),
        fetch("WebFetch(domain:example.com)", "https://example.com.evil.test/", false),
        // Claude Code's own validator suggests `WebFetch(domain:*.google.com)`: any subdomain.
        fetch("WebFetch(domain:*.google.com)", "https://docs.google.com/x", true),
        fetch("WebFetch(domain:*.google.com)", "https://google.com/x", false),
        // https://code.claude.com/docs/en/permissions#mcp: "`mcp__puppeteer` Matches any tool provided by the
        // `puppeteer` server", "`mcp__puppeteer__*` Wildcard syntax that also matches all tools from the
        // `puppeteer` server", "`mcp__puppeteer__puppeteer_navigate` Matches the `puppeteer_navigate` tool".
        mcp("mcp__puppeteer", "mcp__puppeteer__puppeteer_navigate", true),
        mcp("mcp__puppeteer__*", "mcp__puppeteer__puppeteer_click", true),
        mcp("mcp__puppeteer__puppeteer_navigate", "mcp__puppeteer__puppeteer_navigate", true),
        mcp("mcp__puppeteer__puppeteer_navigate", "mcp__puppeteer__puppeteer_click", false),
        mcp("mcp__puppeteer", "mcp__github__search", false),
        // Glob and Grep compare the search pattern.
        case("Grep(TODO*)", "Grep", json!({"pattern": "TODO: fix"}), true),
        case("Grep(TODO*)", "Grep", json!({"pattern": "FIXME"}), false),
    ]);
}

#[test]
fn one_rule_matches_the_same_tool_under_every_agents_spelling() {
    let cx = PathContext { cwd: Some(Path::new(PROJECT)), project: Some(Path::new(PROJECT)), home: None };
    let claude = PermissionRule::parse("Bash(git push *)", Protocol::Claude).unwrap();
    let native = PermissionRule::parse("shell(git push *)", Protocol::Native).unwrap();
    let gemini = PermissionRule::parse("run_shell_command(git push *)", Protocol::Gemini).unwrap();
    // Codex's shell tool gives its command as an argv.
    let inputs = [
        json!({"command": "git push -f"}),
        json!({"command": ["bash", "-lc", "git push -f"]}),
        json!({"command": ["git", "push"]}),
    ];
    for rule in [&claude, &native, &gemini] {
        for input in &inputs {
            assert!(rule.matches("shell", Some(input), &cx), "{} on {input}", rule.as_str());
        }
        assert!(!rule.matches("shell", Some(&json!({"command": "git pull"})), &cx));
        assert!(!rule.matches("read", Some(&json!({"command": "git push"})), &cx));
    }
    let mcp = PermissionRule::parse("mcp:github", Protocol::Native).unwrap();
    assert!(mcp.matches("mcp:github:search", None, &cx) && !mcp.matches("mcp:gitlab:search", None, &cx));
}

#[test]
fn rules_that_cannot_be_read_are_errors_that_say_what_to_write() {
    let error = |rule: &str, spelling| PermissionRule::parse(rule, spelling).unwrap_err().message;
    assert_eq!(
        error("Bash(git push", Protocol::Claude),
        "`Bash(git push` is not a permission rule: expected `Tool` or `Tool(specifier)` with the `)` last (escape a \
         parenthesis in the specifier as `\\(` or `\\)`)"
    );
    assert_eq!(
        error("WebFetch(https://example.com)", Protocol::Claude),
        "`WebFetch(https://example.com)`: expected a domain, not a URL, e.g. `WebFetch(domain:example.com)` or \
         `WebFetch(domain:*.example.com)`"
    );
    assert_eq!(
        error("Bash(git push *)", Protocol::Native),
        "`Bash` is an agent's name for the tool `shell`; a native `if` names canonical tools: write `shell`"
    );
    assert_eq!(
        error("shel(git push *)", Protocol::Native),
        "unknown tool `shel` (did you mean `shell`?): a native `if` names a canonical tool (`shell`, `read`, `write`, \
         `edit`, `glob`, `grep`, `ls`, `web_fetch`, `web_search`, `task`, `notebook_edit`, `todo`) or an MCP tool \
         (`mcp:server:tool`, `mcp:server`)"
    );
    assert!(error("todo(x)", Protocol::Native).contains("`todo` takes no specifier"));
    assert!(error("", Protocol::Native).contains("the rule is empty"));
    // An escaped parenthesis is part of the specifier.
    let escaped = PermissionRule::parse("Bash(echo \\(hi\\))", Protocol::Claude).unwrap();
    let cx = PathContext::default();
    assert!(escaped.matches("shell", Some(&json!({"command": "echo '(hi)'"})), &cx));
    // A specifier on a tool whose calls Claude Code tests none against: read, never matching, in its files.
    let never = PermissionRule::parse("WebSearch(rust)", Protocol::Claude).unwrap();
    assert!(!never.can_match() && !never.matches("web_search", Some(&json!({"query": "rust"})), &cx));
}
