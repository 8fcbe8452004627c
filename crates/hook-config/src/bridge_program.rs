//! The bridge's command line: how `hook install` writes it, and how anything that runs hooks recognises it.
//!
//! Recognising it matters more than writing it: the bridge loads every hook of the workspace, and an agent's
//! configuration that holds the bridge is itself a hook file. A bridge that ran a bridge entry (its own, or another
//! agent's: Codex's `.codex/hooks.json` read under the Claude Code bridge) would start another bridge, which would
//! start another. So any command that invokes this program's `bridge` subcommand is never run as a hook.

use std::path::Path;
use std::sync::OnceLock;

use crate::model::Program;

/// The program names that mean "this engine's CLI": `hook`, plus whatever name the running binary has.
///
/// The running binary's name costs a system call to learn, so [`BridgeProgram::default`] learns it the first time a
/// command has a `bridge` word at all; most loads never ask.
#[derive(Debug, Clone)]
pub struct BridgeProgram {
    names: Vec<String>,
    /// `Some` when the running executable's file name is one of the names; filled on first need.
    running: Option<OnceLock<Option<String>>>,
}

impl Default for BridgeProgram {
    /// `hook` and the file name of the running executable.
    fn default() -> Self {
        BridgeProgram { names: vec!["hook".to_owned()], running: Some(OnceLock::new()) }
    }
}

impl PartialEq for BridgeProgram {
    /// The same names, and the same choice of whether the running executable's name is one: whether that name has
    /// been looked up yet does not matter.
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names && self.running.is_some() == other.running.is_some()
    }
}

impl Eq for BridgeProgram {}

impl BridgeProgram {
    /// Exactly these program names (a host that ships the CLI under its own name).
    pub fn named<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        BridgeProgram { names: names.into_iter().map(Into::into).collect(), running: None }
    }

    /// Whether `program` invokes the bridge: some word names this program (by file name, any directory) and a later
    /// word of the same simple command is `bridge`.
    ///
    /// ```
    /// use hook_config::Program;
    /// use hook_config::BridgeProgram;
    /// let hook = BridgeProgram::named(["hook"]);
    /// assert!(hook.invokes_bridge(&Program::Shell("'/opt/bin/hook' --config-home /c bridge --protocol codex".into())));
    /// assert!(hook.invokes_bridge(&Program::Argv(vec!["hook".into(), "bridge".into()])));
    /// assert!(!hook.invokes_bridge(&Program::Shell("hook run pre_tool; echo bridge".into())));
    /// assert!(hook.invokes_bridge(&Program::Shell("sh -c 'hook bridge --protocol codex; exit 2'".into())));
    /// ```
    pub fn invokes_bridge(&self, program: &Program) -> bool {
        match program {
            Program::Argv(argv) => self.words_invoke_bridge(argv),
            // Every load asks this of every shell hook: a line that neither holds `bridge` nor has a quote or a
            // backslash that could spell it cannot have it as a word, and is not split into words at all.
            Program::Shell(line) | Program::PowerShell(line)
                if !line.contains("bridge") && !line.contains(['\'', '"', '\\']) && !line.contains(ENCODED) =>
            {
                false
            }
            // A PowerShell line is read with the shell's word rules: what `hook install` writes (the bridge, or the
            // `powershell … -EncodedCommand` wrapper) splits the same under both.
            Program::Shell(line) | Program::PowerShell(line) => self.line_invokes_bridge(line, MAX_SHELL_NESTING),
        }
    }

    /// Whether a simple command of `line` invokes the bridge, or the script of a `sh -c SCRIPT` in it does (what
    /// `hook install` writes for an agent that runs its handlers with the user's own shell), `depth` levels deep.
    fn line_invokes_bridge(&self, line: &str, depth: u8) -> bool {
        shell_commands(line).iter().any(|words| {
            self.words_invoke_bridge(words)
                || (depth > 0 && shell_script(words).is_some_and(|script| self.line_invokes_bridge(script, depth - 1)))
                || (depth > 0
                    && encoded_bridge_line(words).is_some_and(|inner| self.line_invokes_bridge(&inner, depth - 1)))
        })
    }

    /// [`BridgeProgram::invokes_bridge`] for a command line as an agent's configuration holds it (`sh -c` text).
    pub fn invokes_bridge_line(&self, line: &str) -> bool {
        self.invokes_bridge(&Program::Shell(line.to_owned()))
    }

    fn words_invoke_bridge(&self, words: &[String]) -> bool {
        if !words.iter().any(|w| w == "bridge") {
            return false;
        }
        let running = self.running.as_ref().and_then(|name| name.get_or_init(running_executable_name).as_deref());
        // A Windows program's name with or without its `.exe` (a settings file written there names `hook.exe`).
        let is_program = |word: &String| {
            let name = Path::new(word).file_name().map(|n| n.to_string_lossy());
            name.is_some_and(|name| {
                let bare = name.strip_suffix(".exe").or_else(|| name.strip_suffix(".EXE")).unwrap_or(&name);
                self.names.iter().map(String::as_str).chain(running).any(|n| n == name || n == bare)
            })
        };
        words.iter().position(is_program).is_some_and(|at| words[at + 1..].iter().any(|w| w == "bridge"))
    }
}

/// Whether `line` is one simple command and nothing else (no list, pipe or `sh -c` script around it): a bridge entry
/// that is one runs with no fallback around it.
///
/// ```
/// assert!(hook_config::lone_command("hook bridge --protocol claude"));
/// assert!(!hook_config::lone_command("hook bridge --protocol claude || exit 2"));
/// ```
pub fn lone_command(line: &str) -> bool {
    let commands = shell_commands(line);
    commands.iter().filter(|words| !words.is_empty()).count() == 1
        && commands.iter().all(|words| shell_script(words).is_none() && encoded_bridge_line(words).is_none())
}

/// The flag of PowerShell's that takes a script as base64 of its UTF-16LE text: how `hook install` writes its
/// fail-closed wrapper on Windows, where the agent's shell may be `cmd`, PowerShell or Git Bash.
const ENCODED: &str = "-EncodedCommand";

/// The variable of that wrapper script that holds the bridge command it runs, on a line of its own:
/// `$hook_bridge_line = '<command>'` (a `'` inside doubled, as PowerShell quotes).
pub const ENCODED_BRIDGE_VARIABLE: &str = "$hook_bridge_line";

/// The bridge command a PowerShell `-EncodedCommand` wrapper runs (`powershell … -EncodedCommand BASE64`): the value
/// of its [`ENCODED_BRIDGE_VARIABLE`] line. `None` for any other command.
fn encoded_bridge_line(words: &[String]) -> Option<String> {
    let program = words.first().map(|w| Path::new(w).file_name().unwrap_or_default().to_string_lossy())?;
    let program = program.to_ascii_lowercase();
    if !matches!(program.as_str(), "powershell" | "powershell.exe" | "pwsh" | "pwsh.exe") {
        return None;
    }
    let at = words.iter().position(|w| w.eq_ignore_ascii_case(ENCODED))?;
    let bytes = base64_decode(words.get(at + 1)?)?;
    let units: Vec<u16> = bytes.chunks_exact(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])).collect();
    let script = String::from_utf16(&units).ok()?;
    let prefix = format!("{ENCODED_BRIDGE_VARIABLE} = '");
    let value = script.lines().find_map(|line| line.trim().strip_prefix(prefix.as_str()))?.strip_suffix('\'')?;
    Some(value.replace("''", "'"))
}

/// Standard base64 (with or without padding); `None` on any other character.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        acc = (acc << 6) | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// How many `sh -c` scripts deep a command line is looked into for the bridge.
const MAX_SHELL_NESTING: u8 = 2;

/// The script of a POSIX shell started with `-c` (`sh -c SCRIPT`, `bash -c SCRIPT`): the word after `-c`.
fn shell_script(words: &[String]) -> Option<&str> {
    let program = words.first().map(|w| Path::new(w).file_name().unwrap_or_default().to_string_lossy())?;
    if !matches!(program.as_ref(), "sh" | "bash" | "dash" | "zsh" | "ksh") {
        return None;
    }
    let at = words.iter().position(|w| w == "-c")?;
    words.get(at + 1).map(String::as_str)
}

/// The file name of the running executable (symbolic links resolved), when the system can tell.
fn running_executable_name() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    exe.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// The simple commands of a shell line, each as its words: quotes and backslashes are resolved, and `;`, `&`, `|`,
/// `&&`, `||` and newlines separate commands. Enough to recognise a program and its subcommand; not a shell.
fn shell_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut Option<String>, commands: &mut Vec<Vec<String>>| {
        if let Some(w) = word.take() {
            commands.last_mut().expect("never empty").push(w);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(next) = chars.next() {
                                w.push(next);
                            }
                        }
                        other => w.push(other),
                    }
                }
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                end_word(&mut word, &mut commands);
                if !commands.last().is_some_and(Vec::is_empty) {
                    commands.push(Vec::new());
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut commands),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    end_word(&mut word, &mut commands);
    commands.retain(|c| !c.is_empty());
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_bridge_command_is_recognised_whatever_its_paths_hold() {
        let hook = BridgeProgram::named(["hook"]);
        let line = r#"'/tmp/it'\''s here/hook' bridge --protocol gemini --config-home '/tmp/config home'"#;
        assert!(hook.invokes_bridge_line(line));
        assert_eq!(shell_commands(line)[0][0], "/tmp/it's here/hook");
    }

    #[test]
    fn a_bridge_spelled_with_quotes_or_backslashes_is_still_recognised() {
        let hook = BridgeProgram::named(["hook"]);
        for line in [r"hook bri\dge --protocol claude", "hook 'bri'dge", "hook \"bridge\"", "'hook' bridge"] {
            assert!(hook.invokes_bridge_line(line), "{line}");
        }
        assert!(!hook.invokes_bridge_line("hook run pre_tool --tool shell"));
    }

    #[test]
    fn the_default_also_knows_the_running_executable_by_its_name() {
        let running = running_executable_name().expect("a test binary has a name");
        let default = BridgeProgram::default();
        assert!(default.invokes_bridge_line(&format!("/opt/x/{running} bridge --protocol codex")));
        assert!(default.invokes_bridge_line("hook bridge"));
        assert!(!default.invokes_bridge_line(&format!("{running} run pre_tool")));
        assert!(!BridgeProgram::named(["hook"]).invokes_bridge_line(&format!("{running} bridge")));
        assert_eq!(default, BridgeProgram::default(), "a looked-up name does not change what the value is");
        assert_ne!(default, BridgeProgram::named(["hook"]));
    }

    #[test]
    fn other_commands_of_the_program_and_other_programs_are_not_the_bridge() {
        let hook = BridgeProgram::named(["hook", "hook-dev"]);
        assert!(hook.invokes_bridge_line("cd \"$CLAUDE_PROJECT_DIR\" && hook-dev bridge --protocol claude"));
        assert!(!hook.invokes_bridge_line("hook trust --all && ./bridge.sh"));
        assert!(!hook.invokes_bridge_line("python3 scripts/bridge"));
        assert!(!hook.invokes_bridge_line("hooks bridge"));
        assert!(!hook.invokes_bridge(&Program::Argv(vec!["./guard.sh".into(), "bridge".into()])));
    }
}
