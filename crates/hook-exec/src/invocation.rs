//! What to run: the program, its working directory, its environment and its stdin payload.
//!
//! Environment policy, as enforced by [`Invocation::apply_env`]: the host's variables are filtered by the
//! [`EnvPolicy`] first, then every pair of [`Invocation::env_add`] is set on top, so an added variable always arrives,
//! whatever the policy says about the host's variable of the same name.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Command;

/// The program to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// An argument vector: the first element is the program (looked up in `PATH` unless it contains a `/`), the rest
    /// are its arguments, passed verbatim. No shell is involved, so `$(…)`, quotes and globs stay literal.
    Argv(Vec<OsString>),
    /// A shell command line, run as `/bin/sh -c <string>`; on Windows as `cmd.exe /d /s /c "<string>"` (the
    /// `cmd` of `%ComSpec%`), the line passed as it is, without the quoting an argument gets.
    Shell(String),
    /// A PowerShell command line, run as `pwsh -NoLogo -NoProfile -NonInteractive -Command <string>`; on Windows,
    /// where PowerShell 7 (`pwsh`) is often missing, Windows PowerShell (`powershell`) when `PATH` has no `pwsh`.
    /// Neither found is a [`SpawnError::NotFound`](crate::SpawnError::NotFound), never a run that passed.
    PowerShell(String),
}

/// Which of the host's environment variables the child sees.
///
/// A name in [`Allow`](EnvPolicy::Allow) or [`Deny`](EnvPolicy::Deny) matches a variable of exactly that name, or,
/// when it ends in `*`, every variable whose name starts with the part before the `*` (`"AWS_*"`). Names are
/// case-sensitive, as they are on Unix.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EnvPolicy {
    /// Every host variable passes through.
    #[default]
    InheritAll,
    /// Only the host variables matching one of these names pass through.
    Allow(Vec<String>),
    /// Every host variable passes through except those matching one of these names.
    Deny(Vec<String>),
    /// No host variable passes through; the child sees only [`Invocation::env_add`].
    Clear,
}

impl EnvPolicy {
    /// Whether the host variable `name` passes through this policy.
    pub fn passes(&self, name: &OsStr) -> bool {
        match self {
            EnvPolicy::InheritAll => true,
            EnvPolicy::Clear => false,
            EnvPolicy::Allow(names) => names.iter().any(|p| name_matches(p, name)),
            EnvPolicy::Deny(names) => !names.iter().any(|p| name_matches(p, name)),
        }
    }
}

fn name_matches(pattern: &str, name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix.as_bytes()),
        None => name == pattern.as_bytes(),
    }
}

/// One command to run: built with [`Invocation::argv`] or [`Invocation::shell`] and the chainable setters.
///
/// ```
/// use hook_exec::{EnvPolicy, Invocation};
///
/// let inv = Invocation::shell("jq .tool_name")
///     .cwd("/tmp")
///     .env_policy(EnvPolicy::Allow(vec!["PATH".into(), "HOME".into()]))
///     .env("HOOK_EVENT", "pre_tool_use")
///     .stdin(br#"{"tool_name":"Bash"}"#.to_vec());
/// assert_eq!(inv.env_add.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// What to run.
    pub program: Program,
    /// The working directory; `None` means the host's current directory.
    pub cwd: Option<PathBuf>,
    /// Which host variables pass through.
    pub env: EnvPolicy,
    /// Variables set on top of what the policy lets through, in order (a later pair wins over an earlier one).
    pub env_add: Vec<(OsString, OsString)>,
    /// The bytes written to the child's stdin, which is closed afterwards (an empty payload closes it at once).
    pub stdin: Vec<u8>,
    /// Argv mode: run the program only if its contents hash to this sha256 (lowercase hex), and run exactly the
    /// bytes that were hashed (see [`Invocation::verified_program`]).
    pub verified_program: Option<String>,
}

impl Invocation {
    /// An invocation of `program` with no shell, inheriting the host environment, with an empty stdin.
    pub fn new(program: Program) -> Self {
        Invocation {
            program,
            cwd: None,
            env: EnvPolicy::InheritAll,
            env_add: Vec::new(),
            stdin: Vec::new(),
            verified_program: None,
        }
    }

    /// Runs an argument vector without a shell: `Invocation::argv(["printf", "%s", "$(literal)"])`.
    pub fn argv<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self::new(Program::Argv(args.into_iter().map(Into::into).collect()))
    }

    /// Runs a command line through `/bin/sh -c`.
    pub fn shell(command: impl Into<String>) -> Self {
        Self::new(Program::Shell(command.into()))
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets which host variables pass through.
    pub fn env_policy(mut self, policy: EnvPolicy) -> Self {
        self.env = policy;
        self
    }

    /// Adds one variable (set after the policy filtered the host's).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env_add.push((key.into(), value.into()));
        self
    }

    /// Adds several variables.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.env_add.extend(vars.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Sets the stdin payload.
    pub fn stdin(mut self, payload: impl Into<Vec<u8>>) -> Self {
        self.stdin = payload.into();
        self
    }

    /// Runs the program (argv mode; its first element must be a path) only if its contents hash to `sha256` (lowercase
    /// hex), and runs exactly those bytes: the program is read once through one descriptor into a sealed memory
    /// file while it is hashed, and the child executes that copy, so no swap of the file between the check and the
    /// exec can run anything else. A mismatch is [`SpawnError::Changed`](crate::SpawnError::Changed) and nothing
    /// runs. Linux; elsewhere the check is made through the descriptor and the exec goes by path. A `#!` script sees
    /// `/dev/fd/N` as its own path. Ignored in shell mode.
    pub fn verified_program(mut self, sha256: impl Into<String>) -> Self {
        self.verified_program = Some(sha256.into());
        self
    }

    /// The program name as a caller would recognise it in an error message.
    pub(crate) fn program_name(&self) -> OsString {
        match &self.program {
            Program::Argv(argv) => argv.first().cloned().unwrap_or_default(),
            Program::Shell(_) => OsString::from(SHELL),
            Program::PowerShell(_) => OsString::from(POWERSHELL),
        }
    }

    /// The argument vector that runs the program: the declared one, or the shell's with the line.
    #[cfg(unix)]
    pub(crate) fn full_argv(&self) -> Vec<OsString> {
        match &self.program {
            Program::Argv(argv) => argv.clone(),
            Program::Shell(line) => vec![OsString::from(SHELL), OsString::from("-c"), line.into()],
            Program::PowerShell(line) => {
                let mut argv: Vec<OsString> =
                    std::iter::once(POWERSHELL).chain(POWERSHELL_ARGS).map(OsString::from).collect();
                argv.push(line.into());
                argv
            }
        }
    }

    /// Builds the `std` command: program, arguments, cwd and environment (stdio and process group are the runner's).
    #[cfg(unix)]
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    pub(crate) fn command(&self) -> Option<Command> {
        let argv = self.full_argv();
        let (program, args) = argv.split_first()?;
        let mut cmd = Command::new(program);
        cmd.args(args);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        self.apply_env(&mut cmd);
        Some(cmd)
    }

    /// Filters the host environment through the policy, then adds [`Invocation::env_add`].
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    pub(crate) fn apply_env(&self, cmd: &mut Command) {
        match &self.env {
            EnvPolicy::InheritAll => {}
            EnvPolicy::Clear => {
                cmd.env_clear();
            }
            EnvPolicy::Allow(_) => {
                cmd.env_clear();
                for (key, value) in std::env::vars_os() {
                    if self.env.passes(&key) {
                        cmd.env(key, value);
                    }
                }
            }
            EnvPolicy::Deny(_) => {
                for (key, _) in std::env::vars_os() {
                    if !self.env.passes(&key) {
                        cmd.env_remove(key);
                    }
                }
            }
        }
        for (key, value) in &self.env_add {
            cmd.env(key, value);
        }
    }
}

/// The shell behind [`Program::Shell`]; an absolute path so that a cleared `PATH` cannot lose it. On Windows the
/// name only: the path comes from `%ComSpec%`.
#[cfg(unix)]
pub(crate) const SHELL: &str = "/bin/sh";
#[cfg(windows)]
pub(crate) const SHELL: &str = "cmd.exe";

/// The PowerShell behind [`Program::PowerShell`], found in `PATH`, and its arguments before the command line.
pub(crate) const POWERSHELL: &str = "pwsh";
pub(crate) const POWERSHELL_ARGS: [&str; 4] = ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_patterns_match_exact_names_and_star_prefixes() {
        let allow = EnvPolicy::Allow(vec!["PATH".into(), "AWS_*".into()]);
        assert!(allow.passes(OsStr::new("PATH")));
        assert!(!allow.passes(OsStr::new("PATHX")));
        assert!(!allow.passes(OsStr::new("path")));
        assert!(allow.passes(OsStr::new("AWS_SECRET")));
        let deny = EnvPolicy::Deny(vec!["AWS_*".into()]);
        assert!(!deny.passes(OsStr::new("AWS_SECRET")));
        assert!(deny.passes(OsStr::new("HOME")));
        assert!(EnvPolicy::InheritAll.passes(OsStr::new("X")));
        assert!(!EnvPolicy::Clear.passes(OsStr::new("X")));
    }
}
