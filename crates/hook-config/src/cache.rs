//! The load cache: what loading one file gave — its normalized declarations, issues, closed gates and
//! `only_managed` — kept in the state directory, so a process that loads the same files again (one `hook bridge`
//! per agent event) parses and normalizes nothing that did not change.
//!
//! An entry is served only when everything it was computed from is the same now:
//!
//! - the file's bytes (their SHA-256 is part of the key: a swapped or edited file is never served stale), the
//!   engine (this crate's version, the cache's format, the optional hook kinds it was built with, and the size and
//!   modification time of the running executable, so a rebuilt engine never reads an older one's entries), the
//!   file's path, format, origin, origin root, id prefix, the workspace, and the load limits that shape a load;
//! - every answer the filesystem and `PATH` gave the normalizer (whether a program exists and is executable,
//!   where a `cwd` resolves, whether a bare name is on `PATH`), asked again before the entry is served.
//!
//! Anything else — a missing, unreadable, truncated or corrupt entry, one written for another key, a question
//! that now has another answer — is a miss: the file is loaded cold and the entry rewritten. The cache never
//! changes what a load returns (a test compares a cached load with a cold one), and it holds no trust: trust,
//! fingerprints (the hashes of the programs a hook names) and the merge are computed afresh by every load from the
//! real files. The state directory is the user's own, as the config home holding the trust store is: an entry is
//! read only when this user owns it, and a declaration whose content hash does not match what it holds is not
//! served; the managed file (the administrator's policy, which the user may not be able to write) is never cached.
//! Entries are written atomically (a temporary file renamed into place); one file per loaded file path,
//! so the cache holds at most one entry per file ever loaded, and it is trimmed to [`MAX_ENTRIES`] on write.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use hook_types::{Effect, Event, EventFilters, Limits, OnError, Protocol, Severity};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::closed_gate::ClosedGate;
use crate::file::{FileContext, FileLoad};
use crate::hash::content_hash;
use crate::model::{AsMode, CommandSpec, Format, HookDecl, HookSpec, Issue, Matcher, Program};
use crate::normalize::Probe;

/// Bumped whenever what an entry holds, or what a load computes from a file, changes meaning.
const CACHE_FORMAT: u32 = 2;

/// How many times larger than its file an entry may be (JSON of the normalized declarations, their issues and the
/// filesystem answers); a larger file in its place is not read.
const MAX_ENTRY_GROWTH: u64 = 64;

/// The most entries kept; past it, the oldest half is removed when an entry is written.
pub const MAX_ENTRIES: usize = 512;

/// The default directory of the load cache: `<state dir>/hooks/load-cache`, the state dir being `$XDG_STATE_HOME`
/// when it is an absolute path, else `~/.local/state` (as for receipts). `None` when neither is known.
///
/// ```
/// if let Some(dir) = hook_config::default_load_cache_dir() {
///     assert!(dir.ends_with("hooks/load-cache"));
/// }
/// ```
pub fn default_load_cache_dir() -> Option<PathBuf> {
    let absolute = |value: std::ffi::OsString| Some(PathBuf::from(value)).filter(|p| p.is_absolute());
    std::env::var_os(crate::platform::STATE_HOME_VAR)
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os(crate::platform::HOME_VAR).and_then(absolute).map(|home| home.join(".local").join("state"))
        })
        .map(|state| state.join("hooks").join("load-cache"))
}

/// One cache entry.
#[derive(Debug, Deserialize)]
struct Entry {
    /// The full key (file bytes included): an entry for an older version of the file is not this one.
    key: String,
    /// The canonical workspace the normalizer resolved against.
    workspace: PathBuf,
    /// What the normalizer asked the filesystem, with the answers.
    probes: Vec<Probe>,
    only_managed: bool,
    #[serde(default)]
    self_protection_off: bool,
    issues: Vec<Issue>,
    closed_gates: Vec<ClosedGate>,
    hooks: Vec<CachedDecl>,
}

/// A [`HookDecl`] less what every hook of the file shares (origin, source, format, root).
#[derive(Debug, Deserialize)]
struct CachedDecl {
    id: String,
    index: usize,
    event: Event,
    filters: EventFilters,
    tools: Option<Vec<String>>,
    matcher: Option<String>,
    /// The `if` condition as written, in the spelling of the hook's protocol.
    #[serde(default)]
    condition: Option<String>,
    /// The `command:` matcher: its `on_unknown` and its patterns in canonical form.
    #[serde(default)]
    command: Option<(crate::OnUnknown, serde_json::Value)>,
    /// The `command:` matcher's own `on_interpreter`, where the hook set one.
    #[serde(default)]
    on_interpreter: Option<crate::OnUnknown>,
    sequential: bool,
    enabled: bool,
    run_async: bool,
    protocol: Protocol,
    on_error: OnError,
    spec: CachedSpec,
    hash: String,
}

#[derive(Debug, Deserialize)]
enum CachedSpec {
    Command {
        program: Program,
        cwd: String,
        resolved_cwd: PathBuf,
        resolved_program: Option<PathBuf>,
        timeout_ms: u64,
        as_mode: AsMode,
        env: BTreeMap<String, String>,
    },
    Prompt {
        message: String,
        severity: Severity,
    },
    Effect(Effect),
}

/// [`Entry`] as written: borrowed from the load, so storing it copies nothing but the bytes it writes (the field
/// and variant names are [`Entry`]'s).
#[derive(Serialize)]
struct EntryRef<'a> {
    key: &'a str,
    /// The file it is the load of, for a person looking into the cache (the key already covers it; not read back).
    source: &'a Path,
    workspace: &'a Path,
    probes: &'a [Probe],
    only_managed: bool,
    self_protection_off: bool,
    issues: &'a [Issue],
    closed_gates: &'a [ClosedGate],
    hooks: Vec<CachedDeclRef<'a>>,
}

#[derive(Serialize)]
struct CachedDeclRef<'a> {
    id: &'a str,
    index: usize,
    event: &'a Event,
    filters: EventFilters,
    tools: Option<&'a [String]>,
    matcher: Option<&'a str>,
    condition: Option<&'a str>,
    command: Option<(crate::OnUnknown, &'a serde_json::Value)>,
    on_interpreter: Option<crate::OnUnknown>,
    sequential: bool,
    enabled: bool,
    run_async: bool,
    protocol: Protocol,
    on_error: OnError,
    spec: CachedSpecRef<'a>,
    hash: &'a str,
}

#[derive(Serialize)]
enum CachedSpecRef<'a> {
    Command {
        program: &'a Program,
        cwd: &'a str,
        resolved_cwd: &'a Path,
        resolved_program: Option<&'a Path>,
        timeout_ms: u64,
        as_mode: AsMode,
        env: &'a BTreeMap<String, String>,
    },
    Prompt {
        message: &'a str,
        severity: Severity,
    },
    Effect(&'a Effect),
}

/// The metadata of the file this process runs. On Linux it is read through `/proc/self/exe`, which names the running
/// file itself even if its path has since been replaced, in one system call; elsewhere through its path.
fn running_executable_metadata() -> Option<std::fs::Metadata> {
    #[cfg(target_os = "linux")]
    if let Ok(meta) = std::fs::metadata("/proc/self/exe") {
        return Some(meta);
    }
    std::env::current_exe().ok().and_then(|exe| std::fs::metadata(exe).ok())
}

/// The cache of one load: its directory and the engine's identity.
pub(crate) struct LoadCache {
    dir: PathBuf,
    engine: String,
}

impl LoadCache {
    /// The cache in `dir` (created when the first entry is written).
    pub(crate) fn new(dir: &Path) -> LoadCache {
        // The running executable's size and mtime: a rebuilt engine (same version, new code) misses.
        let exe = running_executable_metadata();
        let exe = exe.map(|m| crate::platform::change_stamp(&m));
        let engine = format!(
            "{}/{CACHE_FORMAT}/{}/{}",
            env!("CARGO_PKG_VERSION"),
            crate::features::KEY,
            exe.unwrap_or_default()
        );
        LoadCache { dir: dir.to_path_buf(), engine }
    }

    /// The file's load from the cache, or computed by `cold` (which returns the load and the normalizer's probes)
    /// and stored.
    pub(crate) fn load(
        &self,
        path: &Path,
        format: Format,
        cx: &FileContext<'_>,
        limits: &Limits,
        text: &str,
        cold: impl FnOnce() -> (FileLoad, Option<(PathBuf, Vec<Probe>)>),
    ) -> FileLoad {
        // The managed file is the administrator's, and the state directory the user's: its load is never cached.
        if cx.origin == hook_types::Origin::Managed {
            return cold().0;
        }
        let slot = self.slot_key(path, format, cx, limits);
        let key = {
            let mut hasher = Sha256::new();
            hasher.update(slot.as_bytes());
            hasher.update(text.as_bytes());
            hex::encode(hasher.finalize())
        };
        let file = self.dir.join(format!("{}.json", &hex::encode(Sha256::digest(slot.as_bytes()))[..32]));
        if let Some(load) = self.read(&file, &key, text, path, format, cx) {
            return load;
        }
        let (load, probes) = cold();
        if let Some((workspace, probes)) = probes {
            self.write(&file, &key, path, &workspace, &probes, &load);
        }
        load
    }

    /// Everything but the bytes that a file's load depends on, as one string of length-prefixed parts.
    fn slot_key(&self, path: &Path, format: Format, cx: &FileContext<'_>, limits: &Limits) -> String {
        let mut key = String::new();
        let parts = [
            self.engine.as_str(),
            format.as_str(),
            cx.origin.as_str(),
            &path.to_string_lossy(),
            &cx.root.to_string_lossy(),
            &cx.workspace.to_string_lossy(),
            cx.source_id.unwrap_or("\u{0}"),
            &limits.max_nesting_depth.to_string(),
            &limits.max_hooks_per_file.to_string(),
        ];
        for part in parts {
            key.push_str(&format!("{}:{part};", part.len()));
        }
        key
    }

    fn read(
        &self,
        file: &Path,
        key: &str,
        text: &str,
        path: &Path,
        format: Format,
        cx: &FileContext<'_>,
    ) -> Option<FileLoad> {
        // Opened without blocking (a FIFO in its place must not hang the load) and read only when it is a regular
        // file of this user's (the state directory is theirs, as the trust store in the config home is) and of a size
        // an entry of this file can have.
        let file = crate::platform::open_read_nonblocking(file).ok()?;
        let meta = file.metadata().ok()?;
        let bound = (text.len() as u64).saturating_mul(MAX_ENTRY_GROWTH).saturating_add(1 << 20);
        if !meta.is_file() || !crate::platform::owned_by_me(&meta) || meta.len() > bound {
            return None;
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        std::io::Read::read_to_end(&mut std::io::Read::take(&file, bound), &mut bytes).ok()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        if entry.key != key {
            return None;
        }
        // Canonical already (the load resolved it once for all its files).
        let workspace = cx.workspace;
        if workspace != entry.workspace || !entry.probes.iter().all(|probe| probe.holds(workspace)) {
            return None;
        }
        let mut matchers: HashMap<String, Option<Matcher>> = HashMap::new();
        let mut hooks = Vec::with_capacity(entry.hooks.len());
        for cached in entry.hooks {
            let matcher = match cached.matcher {
                None => None,
                Some(pattern) => match matchers.get(&pattern) {
                    Some(compiled) => compiled.clone(),
                    None => {
                        let compiled = Matcher::parse(&pattern).ok()?;
                        matchers.insert(pattern, compiled.clone());
                        compiled
                    }
                },
            };
            let condition = match cached.condition {
                None => None,
                Some(rule) => Some(crate::PermissionRule::parse(&rule, cached.protocol).ok()?),
            };
            let command = match cached.command {
                None => None,
                Some((on_unknown, patterns)) => {
                    let matcher = crate::CommandMatcher::from_value(&patterns, on_unknown).ok()?;
                    Some(match cached.on_interpreter {
                        Some(answer) => matcher.with_on_interpreter(answer),
                        None => matcher,
                    })
                }
            };
            let decl = HookDecl {
                id: cached.id,
                origin: cx.origin,
                source: path.to_path_buf(),
                format,
                index: cached.index,
                root: cx.root.to_path_buf(),
                event: cached.event,
                filters: cached.filters,
                tools: cached.tools,
                matcher,
                condition,
                command,
                sequential: cached.sequential,
                enabled: cached.enabled,
                run_async: cached.run_async,
                protocol: cached.protocol,
                on_error: cached.on_error,
                spec: match cached.spec {
                    CachedSpec::Command { program, cwd, resolved_cwd, resolved_program, timeout_ms, as_mode, env } => {
                        HookSpec::Command(CommandSpec {
                            program,
                            cwd,
                            resolved_cwd,
                            resolved_program,
                            timeout_ms,
                            as_mode,
                            env,
                        })
                    }
                    CachedSpec::Prompt { message, severity } => HookSpec::Prompt { message, severity },
                    CachedSpec::Effect(effect) => HookSpec::Effect(effect),
                },
                hash: cached.hash,
            };
            // An entry that does not hash to what it says (damaged, or written by hand) is not served: the hash is
            // what trust is checked against.
            if content_hash(&decl) != decl.hash {
                return None;
            }
            hooks.push(decl);
        }
        Some(FileLoad {
            hooks,
            issues: entry.issues,
            only_managed: entry.only_managed,
            self_protection_off: entry.self_protection_off,
            closed_gates: entry.closed_gates,
        })
    }

    /// Stores an entry; a failure (a read-only state directory, a full disk) only means the next load is cold too.
    fn write(&self, file: &Path, key: &str, source: &Path, workspace: &Path, probes: &[Probe], load: &FileLoad) {
        // A kind of hook this cache does not know how to store (one added after it) leaves the file uncached.
        let Some(hooks) = load.hooks.iter().map(cached_ref).collect::<Option<Vec<_>>>() else { return };
        let entry = EntryRef {
            key,
            source,
            workspace,
            probes,
            only_managed: load.only_managed,
            self_protection_off: load.self_protection_off,
            issues: &load.issues,
            closed_gates: &load.closed_gates,
            hooks,
        };
        let created = crate::platform::create_private_dir_all(&self.dir);
        if created.is_err() {
            return;
        }
        self.trim();
        let tmp = self.dir.join(format!(".tmp-{}-{}", std::process::id(), unique()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(serde_json::Error::io)
            .and_then(|f| {
                let mut out = std::io::BufWriter::with_capacity(64 * 1024, f);
                serde_json::to_writer(&mut out, &entry)?;
                out.flush().map_err(serde_json::Error::io)
            })
            .and_then(|()| std::fs::rename(&tmp, file).map_err(serde_json::Error::io));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Keeps the directory to [`MAX_ENTRIES`]: the oldest half goes when it is full.
    fn trim(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> =
            entries.flatten().filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path()))).collect();
        if files.len() < MAX_ENTRIES {
            return;
        }
        files.sort();
        for (_, path) in files.iter().take(files.len() / 2) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A declaration as an entry stores it; `None` for a kind of hook this cache does not store.
fn cached_ref(decl: &HookDecl) -> Option<CachedDeclRef<'_>> {
    // http, policy and evaluated hooks are rare, and a policy's Rego is compiled by the load itself: a file holding
    // one is loaded cold every time rather than stored in part. A kind added later must be decided here.
    let spec = match &decl.spec {
        HookSpec::Command(spec) => CachedSpecRef::Command {
            program: &spec.program,
            cwd: &spec.cwd,
            resolved_cwd: &spec.resolved_cwd,
            resolved_program: spec.resolved_program.as_deref(),
            timeout_ms: spec.timeout_ms,
            as_mode: spec.as_mode,
            env: &spec.env,
        },
        HookSpec::Prompt { message, severity } => CachedSpecRef::Prompt { message, severity: *severity },
        HookSpec::Effect(effect) => CachedSpecRef::Effect(effect),
        HookSpec::Http(_) | HookSpec::Policy(_) | HookSpec::Evaluated(_) => return None,
    };
    Some(CachedDeclRef {
        id: &decl.id,
        index: decl.index,
        event: &decl.event,
        filters: decl.filters,
        tools: decl.tools.as_deref(),
        matcher: decl.matcher.as_ref().map(|m| m.pattern.as_str()),
        condition: decl.condition.as_ref().map(crate::PermissionRule::as_str),
        command: decl.command.as_ref().map(|c| (c.on_unknown(), c.canonical())),
        on_interpreter: decl.command.as_ref().and_then(crate::CommandMatcher::on_interpreter),
        sequential: decl.sequential,
        enabled: decl.enabled,
        run_async: decl.run_async,
        protocol: decl.protocol,
        on_error: decl.on_error,
        spec,
        hash: &decl.hash,
    })
}

/// A number no other write of this process uses.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
