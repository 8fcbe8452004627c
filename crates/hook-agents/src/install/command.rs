//! The bridge's command line as `hook install` writes it. Recognising one is the loader's job
//! ([`hook_config::BridgeProgram`]): every host must keep bridge entries out of the hooks it runs.

use std::path::Path;

use hook_types::Protocol;

/// The command `hook install` writes into the agent's configuration: the CLI at `exe`, the `bridge` subcommand for
/// `agent`, and the config home and managed file the install used (so the bridge finds the same trust store and
/// policy), each word quoted for `sh`.
///
/// ```
/// use hook_agents::install::bridge_command;
/// use hook_types::Protocol;
/// use std::path::Path;
/// let line = bridge_command(Path::new("/usr/local/bin/hook"), Protocol::Claude, Some(Path::new("/home/me/.config/hooks")), None);
/// assert_eq!(line, "/usr/local/bin/hook bridge --protocol claude --config-home /home/me/.config/hooks");
/// ```
///
/// On Windows the paths are written with `/` and a word that needs quotes gets double ones: the line then runs the
/// same in `cmd`, PowerShell and Git Bash (a path with a space still needs PowerShell's `&`, which is why gate events
/// get the wrapper of `fallback.rs`, which runs the line through `cmd`).
pub fn bridge_command(exe: &Path, agent: Protocol, config_home: Option<&Path>, managed_file: Option<&Path>) -> String {
    let mut words = vec![path_word(exe), "bridge".into(), "--protocol".into(), agent.as_str().into()];
    if let Some(home) = config_home {
        words.extend(["--config-home".into(), path_word(home)]);
    }
    if let Some(file) = managed_file {
        words.extend(["--managed-file".into(), path_word(file)]);
    }
    let quote = if cfg!(windows) { quote_for_windows } else { quote };
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

/// A path as a word of the command: as it is, or on Windows with `/` for `\` (which Git Bash would read as escapes).
fn path_word(path: &Path) -> String {
    let text = path.display().to_string();
    if cfg!(windows) { text.replace('\\', "/") } else { text }
}

/// `word` bare where no shell treats it specially, else in double quotes, which `cmd`, PowerShell and a POSIX shell
/// all read (a word with `"`, `$`, `%`, `!` or a backtick, which one of them would expand, gets `sh`'s quotes).
fn quote_for_windows(word: &str) -> String {
    let plain = quote(word) == word;
    let expands = word.contains(['"', '$', '%', '!', '`']);
    match (plain, expands) {
        (true, _) => word.to_owned(),
        (false, false) => format!("\"{word}\""),
        (false, true) => quote(word),
    }
}

/// `word` quoted for `sh` where it needs it: bare when it holds only characters no shell treats specially.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'+' | b':' | b'=' | b','));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_config::BridgeProgram;

    #[test]
    fn a_windows_word_is_bare_or_double_quoted_and_still_recognised() {
        assert_eq!(quote_for_windows("C:/Users/me/.cargo/bin/hook.exe"), "C:/Users/me/.cargo/bin/hook.exe");
        assert_eq!(quote_for_windows("C:/Program Files/hook/hook.exe"), "\"C:/Program Files/hook/hook.exe\"");
        assert_eq!(quote_for_windows("C:/it's/100%"), "'C:/it'\\''s/100%'");
        assert!(
            BridgeProgram::named(["hook"])
                .invokes_bridge_line("\"C:/Program Files/hook/hook.exe\" bridge --protocol claude")
        );
    }

    #[test]
    fn a_written_bridge_command_quotes_every_path_and_is_recognised() {
        let line = bridge_command(
            Path::new("/tmp/it's here/hook"),
            Protocol::Gemini,
            Some(Path::new("/tmp/config home")),
            Some(Path::new("/tmp/managed.yaml")),
        );
        assert_eq!(
            line,
            r#"'/tmp/it'\''s here/hook' bridge --protocol gemini --config-home '/tmp/config home' --managed-file /tmp/managed.yaml"#
        );
        assert!(BridgeProgram::named(["hook"]).invokes_bridge_line(&line));
    }
}
