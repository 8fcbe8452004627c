//! What in an agent's own files can keep it from running its hooks at all: its off switches and its folder trust.
//!
//! `hook doctor` reads these from each agent's entry ([`Agent::switches`](super::Agent::switches),
//! [`Agent::folder_trust`](super::Agent::folder_trust)); no reader names an agent. Each entry cites the release and
//! the file of the agent's bundle the fact was read from.

/// Where one of an agent's own files sits.
///
/// ```
/// use hook_types::AgentPath;
/// assert_eq!(AgentPath::Home(".claude/settings.json").relative(), ".claude/settings.json");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentPath {
    /// Relative to the workspace. An entry ending in `/*.json` names every `.json` file directly in that directory.
    Workspace(&'static str),
    /// Relative to the home directory (same `/*.json` rule).
    Home(&'static str),
    /// `file` in the directory the environment variable `var` names, else in `default` under the home directory
    /// (Codex's `$CODEX_HOME`, default `~/.codex`).
    EnvDir {
        /// The variable.
        var: &'static str,
        /// The directory under the home directory when the variable is unset.
        default: &'static str,
        /// The file in that directory.
        file: &'static str,
    },
    /// An absolute path (a machine-wide policy file).
    System(&'static str),
}

impl AgentPath {
    /// The path as written in the entry, without its base.
    pub fn relative(&self) -> &'static str {
        match self {
            AgentPath::Workspace(p) | AgentPath::Home(p) | AgentPath::System(p) => p,
            AgentPath::EnvDir { file, .. } => file,
        }
    }
}

/// One setting of an agent that, holding a given value, keeps hooks from running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffSwitch {
    /// Every file the agent reads the setting from; any one of them turning hooks off is enough.
    pub files: &'static [AgentPath],
    /// The key, dotted through nested objects (`hooksConfig.enabled`, `features.hooks` in TOML).
    pub key: &'static str,
    /// The value that turns hooks off.
    pub off_when: OffWhen,
    /// What the agent says the setting does, for the finding ("disables all hooks").
    pub effect: &'static str,
}

/// The value of an [`OffSwitch`] that turns hooks off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffWhen {
    /// `true` (`disableAllHooks: true`).
    True,
    /// `false` (`hooksConfig.enabled: false`).
    False,
    /// A list holding the bridge handler's name or its command (Gemini CLI's `hooksConfig.disabled`).
    ListsBridge,
}

/// Which hooks a setting or folder trust reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Every hook of the agent's settings, the user's included.
    AllHooks,
    /// Only the hooks of the workspace's own files (the project and local scopes).
    ProjectHooks,
}

/// How an agent decides whether it trusts a folder enough to run hooks there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderTrust {
    /// The file where the agent records the folders it trusts.
    pub store: AgentPath,
    /// An environment variable that names the store file itself, where the agent has one.
    pub store_env: Option<&'static str>,
    /// How folders are recorded in it.
    pub shape: TrustShape,
    /// The setting that turns folder trust on, where it can be turned off: `(key, default)`, read from the agent's
    /// settings files ([`FolderTrust::setting_files`]). `None`: always on.
    pub enabled_by: Option<(&'static str, bool)>,
    /// The settings files `enabled_by` is read from, lowest precedence first.
    pub setting_files: &'static [AgentPath],
    /// Environment variables that make the agent trust the folder whatever the store says (`NAME`, value).
    pub env_trusts: &'static [(&'static str, &'static str)],
    /// Which hooks an untrusted folder loses.
    pub reach: Reach,
    /// Whether only interactive runs ask for trust: a headless run (`-p`, `exec`) runs the hooks without it.
    pub interactive_only: bool,
    /// What to do to trust the folder.
    pub fix: &'static str,
}

/// How an agent records the folders it trusts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustShape {
    /// An object under the dotted key `map` with one entry per directory, the folder or one of its ancestors
    /// (`ancestors`); with `field`, the entry's field must hold that JSON value (Claude Code's
    /// `projects["<dir>"].hasTrustDialogAccepted: true`, Codex's `[projects."<dir>"] trust_level = "trusted"`).
    PerDir {
        /// The dotted key of the object of directories.
        map: &'static str,
        /// The entry's field and the JSON text of the value that means trusted.
        field: Option<(&'static str, &'static str)>,
        /// Whether an ancestor's entry trusts the folder too.
        ancestors: bool,
    },
    /// A top-level object of directory → `TRUST_FOLDER` | `TRUST_PARENT` | `DO_NOT_TRUST`, the longest rule that
    /// holds the folder deciding (Gemini CLI, Qwen Code).
    Levels,
    /// A list of trusted directories under the dotted key (GitHub Copilot CLI's `trustedFolders`).
    List {
        /// The dotted key of the list.
        key: &'static str,
    },
}
