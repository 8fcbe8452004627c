//! Claude Code's permission-rule syntax, as a hook's `if` condition: `Bash(git push *)`, `Edit(/src/**)`,
//! `WebFetch(domain:example.com)`, `mcp__github`.
//!
//! A rule is a tool name, optionally followed by a specifier in parentheses (docs/declarations.md#if):
//!
//! - **The tool**: a name in the declaration's spelling — Claude Code's (`Bash`, `Read`, `mcp__server__tool`) in
//!   its files, the canonical one (`shell`, `read`, `mcp:server:tool`) in a native file — read through the tool
//!   vocabulary, so a rule matches the same tool however the firing agent names it. `Tool`, `Tool()` and
//!   `Tool(*)` match every call of the tool. An MCP rule may name a whole server (`mcp__github`, `mcp__github__*`).
//! - **The specifier**, by tool: a shell command pattern for the shell tool ([`shell`]: `*` wildcards, the legacy
//!   `prefix:*`, each simple command of the line tested); a gitignore path pattern for the file tools — read,
//!   write, edit, notebook_edit ([`path`]); `domain:host` (or `domain:*.host`) for web_fetch; a wildcard compared with
//!   the search pattern for glob and grep. `\(`, `\)` and `\\` in a specifier are the characters themselves.
//!
//! Rules are parsed at load (a clear error for what cannot be read) and evaluated at selection, after the matcher,
//! against the event's canonical tool and its input. Only tool events have a tool: on any other event a hook with a
//! condition never runs, as in Claude Code.

mod path;
mod shell;
mod wildcard;

use std::fmt;

use hook_types::Protocol;
use serde_json::Value;

pub use path::PathContext;
use path::PathPattern;
use shell::ShellPattern;
use wildcard::Wildcard;

/// A parsed permission rule: an `if` condition.
///
/// ```
/// use hook_config::{PermissionRule, PathContext};
/// use hook_types::Protocol;
/// use serde_json::json;
///
/// let rule = PermissionRule::parse("Bash(git push *)", Protocol::Claude).unwrap();
/// let cx = PathContext::default();
/// assert!(rule.matches("shell", Some(&json!({"command": "git push origin main"})), &cx));
/// assert!(rule.matches("shell", Some(&json!({"command": "npm test && git push"})), &cx));
/// assert!(!rule.matches("shell", Some(&json!({"command": "git pull"})), &cx));
/// // The same rule in this engine's own spelling.
/// let native = PermissionRule::parse("shell(git push *)", Protocol::Native).unwrap();
/// assert!(native.matches("shell", Some(&json!({"command": "git push"})), &cx));
/// assert!(PermissionRule::parse("Bash(git push", Protocol::Claude).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct PermissionRule {
    /// The rule as written.
    text: String,
    /// The tool it names.
    tool: RuleTool,
    /// What the call's input must match, if anything.
    specifier: Option<Specifier>,
}

impl PartialEq for PermissionRule {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// The tool a rule names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RuleTool {
    /// A canonical tool (`shell`).
    Canonical(&'static str),
    /// Every tool of an MCP server, or one (`mcp:server:tool`) when `tool` is set.
    Mcp { server: String, tool: Option<String> },
    /// A name no table maps (a tool of the agent this engine does not place): matched by its own name.
    Named(String),
}

/// What a rule's specifier tests.
#[derive(Debug, Clone)]
enum Specifier {
    /// The shell tool's `command`.
    Command(ShellPattern),
    /// A file tool's path.
    Path(PathPattern),
    /// web_fetch's URL host.
    Domain(DomainPattern),
    /// glob's and grep's `pattern`.
    Pattern(Wildcard),
    /// A specifier for a tool whose calls Claude Code does not test one against: the rule matches nothing.
    Never,
}

/// Why a rule cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuleError {}

fn error(message: impl Into<String>) -> RuleError {
    RuleError { message: message.into() }
}

impl PermissionRule {
    /// Parses `text`, whose tool name is spelled as `spelling`'s agent spells tools (the canonical names for the
    /// native format).
    pub fn parse(text: &str, spelling: Protocol) -> Result<PermissionRule, RuleError> {
        if text.trim().is_empty() {
            return Err(error("the rule is empty; expected a tool name, e.g. `Bash(git push *)`"));
        }
        let (name, content) = split(text)?;
        let tool = read_tool(name, spelling)?;
        let specifier = match content {
            None => None,
            Some(content) => Some(read_specifier(&tool, name, &content, spelling)?),
        };
        Ok(PermissionRule { text: text.to_owned(), tool, specifier })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the rule can match a call at all: `false` for a specifier on a tool whose input Claude Code does not
    /// test (a loader says so).
    pub fn can_match(&self) -> bool {
        !matches!(self.specifier, Some(Specifier::Never))
    }

    /// Whether a call of the canonical `tool` (`shell`, `mcp:github:search`), whose own names are `names`, with
    /// `input`, matches. A call whose input lacks what the specifier tests matches: the hook runs and decides.
    pub fn matches(&self, tool: &str, input: Option<&Value>, cx: &PathContext<'_>) -> bool {
        self.matches_named(tool, &[], input, cx)
    }

    /// [`matches`](Self::matches), with the names the call has besides its canonical tool (for a rule naming a
    /// tool no table maps).
    pub fn matches_named(&self, tool: &str, names: &[&str], input: Option<&Value>, cx: &PathContext<'_>) -> bool {
        let tool_matches = match &self.tool {
            RuleTool::Canonical(canonical) => *canonical == tool,
            RuleTool::Mcp { server, tool: one } => tool
                .strip_prefix("mcp:")
                .and_then(|rest| rest.split_once(':'))
                .is_some_and(|(s, t)| s == server && one.as_deref().is_none_or(|one| one == t)),
            RuleTool::Named(name) => names.contains(&name.as_str()) || name == tool,
        };
        tool_matches && self.specifier.as_ref().is_none_or(|s| s.matches(input, cx))
    }
}

impl PermissionRule {
    /// Why an allow from a hook this rule scopes cannot stand on a shell call whose line reads as `analysis`
    /// ([`crate::shell_analysis`]; `None` for a call without an input to read): a shell rule matches a line when any
    /// command of it does, so its allow stands only when every command matches ([`None`] then, and for any rule
    /// that is not a shell rule).
    ///
    /// ```
    /// use hook_config::{PermissionRule, shell_analysis};
    /// use hook_types::Protocol;
    /// use serde_json::json;
    /// let rule = PermissionRule::parse("Bash(ls *)", Protocol::Claude).unwrap();
    /// let line = |l: &str| shell_analysis(Some(&json!({"command": l}))).unwrap();
    /// assert_eq!(rule.allow_breaker(Some(&line("ls -la"))), None);
    /// assert!(rule.allow_breaker(Some(&line("ls && rm -rf ~"))).is_some());
    /// assert!(rule.allow_breaker(None).is_some());
    /// ```
    pub fn allow_breaker(&self, analysis: Option<&hook_shell::Analysis>) -> Option<String> {
        let Some(Specifier::Command(pattern)) = &self.specifier else { return None };
        match analysis {
            Some(analysis) => shell::allow_breaker(pattern, analysis),
            None => Some("the call's input has no command line to hold the rule to".to_owned()),
        }
    }
}

impl Specifier {
    fn matches(&self, input: Option<&Value>, cx: &PathContext<'_>) -> bool {
        match self {
            Specifier::Never => false,
            Specifier::Command(pattern) => match crate::shell_command::command_line(input) {
                Some(command) => shell::command_matches(pattern, &command),
                None => true,
            },
            Specifier::Path(pattern) => {
                match string_of(input, &["file_path", "notebook_path", "absolute_path", "path"]) {
                    Some(path) => pattern.matches(path, cx),
                    None => true,
                }
            }
            Specifier::Domain(pattern) => match string_of(input, &["url"]).map(host_of) {
                Some(Some(host)) => pattern.matches(&host),
                _ => true,
            },
            Specifier::Pattern(pattern) => string_of(input, &["pattern"]).is_none_or(|p| pattern.matches(p)),
        }
    }
}

/// The first of `keys` that `input` has as a string.
fn string_of<'v>(input: Option<&'v Value>, keys: &[&str]) -> Option<&'v str> {
    let input = input?;
    keys.iter().find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// A URL's host, lowercase.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host =
        if let Some(v6) = host_port.strip_prefix('[') { v6.split(']').next()? } else { host_port.split(':').next()? };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Splits `Tool(specifier)` at the first unescaped `(` and a final unescaped `)`: the name, and the specifier
/// unescaped, `None` for none (no parentheses, `()` or `(*)`).
fn split(text: &str) -> Result<(&str, Option<String>), RuleError> {
    let open = unescaped(text, '(').next();
    let close = unescaped(text, ')').last();
    let (name, content) = match (open, close) {
        (None, None) => (text, None),
        (Some(open), Some(close)) if close == text.len() - 1 && close > open && open > 0 => {
            (&text[..open], Some(&text[open + 1..close]))
        }
        _ => {
            return Err(error(format!(
                "`{text}` is not a permission rule: expected `Tool` or `Tool(specifier)` with the `)` last (escape a \
                 parenthesis in the specifier as `\\(` or `\\)`)"
            )));
        }
    };
    if name.trim() != name || name.is_empty() {
        return Err(error(format!("`{text}`: the tool name `{name}` has blanks around it; write it without")));
    }
    let content = content
        .filter(|c| !c.is_empty() && *c != "*")
        .map(|c| c.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\"));
    Ok((name, content))
}

/// Byte positions of `wanted` in `text` that an even number of backslashes precedes.
fn unescaped(text: &str, wanted: char) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    text.char_indices()
        .filter(move |(i, c)| *c == wanted && bytes[..*i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0)
        .map(|(i, _)| i)
}

/// The tool `name` names in `spelling`.
fn read_tool(name: &str, spelling: Protocol) -> Result<RuleTool, RuleError> {
    let agent = spelling.agent();
    if let Some(mcp) = read_mcp(name, spelling) {
        return Ok(mcp);
    }
    if let Some(canonical) = agent.canonical_tool(name) {
        return Ok(RuleTool::Canonical(canonical));
    }
    if spelling == Protocol::Native {
        if let Some(canonical) = hook_types::canonical_tool(name) {
            return Err(error(format!(
                "`{name}` is an agent's name for the tool `{canonical}`; a native `if` names canonical tools: write \
                 `{canonical}`"
            )));
        }
        let hint = hook_types::suggest_tool(name).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
        let tools = hook_types::CANONICAL_TOOLS.join("`, `");
        return Err(error(format!(
            "unknown tool `{name}`{hint}: a native `if` names a canonical tool (`{tools}`) or an MCP tool \
             (`mcp:server:tool`, `mcp:server`)"
        )));
    }
    Ok(RuleTool::Named(name.to_owned()))
}

/// An MCP rule: `mcp__server`, `mcp__server__*`, `mcp__server__tool` (Claude Code's spelling), or `mcp:server`,
/// `mcp:server:*`, `mcp:server:tool` (the canonical one).
fn read_mcp(name: &str, spelling: Protocol) -> Option<RuleTool> {
    let (server, tool) = if let Some(rest) = name.strip_prefix("mcp__") {
        match rest.split_once("__") {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        }
    } else if let Some(rest) = name.strip_prefix("mcp:").filter(|_| spelling == Protocol::Native) {
        match rest.split_once(':') {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        }
    } else {
        return None;
    };
    if server.is_empty() {
        return None;
    }
    let tool = tool.filter(|t| !t.is_empty() && *t != "*").map(str::to_owned);
    Some(RuleTool::Mcp { server: server.to_owned(), tool })
}

/// The specifier `content` of a rule naming `tool` (written `name`).
fn read_specifier(tool: &RuleTool, name: &str, content: &str, spelling: Protocol) -> Result<Specifier, RuleError> {
    let RuleTool::Canonical(canonical) = tool else {
        return never(name, content, spelling);
    };
    Ok(match *canonical {
        "shell" => Specifier::Command(ShellPattern::new(content)),
        "read" | "write" | "edit" | "notebook_edit" => Specifier::Path(PathPattern::new(content)),
        "glob" | "grep" => Specifier::Pattern(Wildcard::new(content, false)),
        "web_fetch" => Specifier::Domain(DomainPattern::new(name, content)?),
        _ => return never(name, content, spelling),
    })
}

/// A specifier on a tool whose input no rule tests: Claude Code reads the rule and never runs the hook, so its own
/// files load it that way; in a native file it is an error.
fn never(name: &str, content: &str, spelling: Protocol) -> Result<Specifier, RuleError> {
    if spelling == Protocol::Native {
        return Err(error(format!(
            "`{name}({content})`: `{name}` takes no specifier; only shell, read, write, edit, notebook_edit (paths), \
             glob, grep (patterns) and web_fetch (`domain:`) do; write `{name}` alone to match every call"
        )));
    }
    Ok(Specifier::Never)
}

/// `domain:host` or `domain:*.host` (`*` within one label), compared case-insensitively.
#[derive(Debug, Clone)]
struct DomainPattern {
    regex: regex::Regex,
}

impl DomainPattern {
    fn new(name: &str, content: &str) -> Result<DomainPattern, RuleError> {
        let Some(domain) = content.strip_prefix("domain:").filter(|d| !d.is_empty()) else {
            let why = if content.contains("://") { "a domain, not a URL" } else { "the `domain:` prefix" };
            return Err(error(format!(
                "`{name}({content})`: expected {why}, e.g. `{name}(domain:example.com)` or `{name}(domain:*.example.com)`"
            )));
        };
        let domain = domain.to_ascii_lowercase();
        let domain = domain.trim_end_matches('.');
        let label = |part: &str| part.split('*').map(regex::escape).collect::<Vec<_>>().join("[^.:]*");
        let regex = if domain == "*" {
            ".*".to_owned()
        } else if let Some(parent) = domain.strip_prefix("*.") {
            format!("(?:[^.:]+\\.)+{}", label(parent))
        } else {
            label(domain)
        };
        let regex = regex::Regex::new(&format!("(?i)^{regex}$")).map_err(|e| error(e.to_string()))?;
        Ok(DomainPattern { regex })
    }

    fn matches(&self, host: &str) -> bool {
        self.regex.is_match(host.trim_end_matches('.'))
    }
}

impl PermissionRule {
    /// A rule that matches no call, kept as written: what an agent makes of a rule it cannot read.
    pub(crate) fn never(text: &str) -> PermissionRule {
        PermissionRule {
            text: text.to_owned(),
            tool: RuleTool::Named(text.to_owned()),
            specifier: Some(Specifier::Never),
        }
    }
}
