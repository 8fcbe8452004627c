//! Fingerprints (docs/trust.md#fingerprints): trust covers what runs, not only what is declared.
//!
//! A fingerprint is the content hash plus the sha256 of every file the command names that resolves (following
//! symlinks) to a regular file under the workspace or the hook's origin root. "Names" means: the program, each
//! argument, each word of a shell command after expanding `$CLAUDE_PROJECT_DIR`, `$HOOK_PROJECT_DIR`,
//! `$GEMINI_PROJECT_DIR` (and their `${…}` forms) to the workspace, and each `env` value; a `--flag=path` or
//! `VAR=path` word also names what follows its `=`. Relative words resolve against the hook's working directory and
//! its origin root. Files outside both (`/bin/sh`) belong to the system, not to the repository, and are not covered;
//! nor are files a script opens on its own (the documented limit).
//!
//! Naming too much is safe (a file that changes only costs a re-trust); naming too little is not, so the word
//! splitting below is generous rather than a faithful shell parser.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::hash::lower_hex;
use crate::model::{CommandSpec, Fingerprint, FingerprintFile, HookDecl, HookSpec, Program};

/// The variables that stand for the workspace in the agents' commands.
const PROJECT_VARS: [&str; 3] = ["CLAUDE_PROJECT_DIR", "HOOK_PROJECT_DIR", "GEMINI_PROJECT_DIR"];

/// A hook's fingerprint: its content hash plus the files its command names (see the module documentation).
/// `workspace` is the canonical workspace. Prompt and effect hooks name no files: their fingerprint covers the hash
/// alone.
///
/// ```
/// use hook_config::{fingerprint, load, Layout, LoadOptions};
/// let ws = tempfile::tempdir().unwrap();
/// let cfg = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(ws.path().join(".hooks")).unwrap();
/// std::fs::create_dir_all(ws.path().join("scripts")).unwrap();
/// std::fs::write(ws.path().join("scripts/guard.sh"), "#!/bin/sh\nexit 0\n").unwrap();
/// # use std::os::unix::fs::PermissionsExt;
/// std::fs::set_permissions(ws.path().join("scripts/guard.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
/// std::fs::write(
///     ws.path().join(".hooks/hooks.yaml"),
///     "- {id: guard, on: pre_tool, kind: command, argv: [./scripts/guard.sh]}\n",
/// ).unwrap();
/// let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None)
///     .with_managed_file(cfg.path().join("none.yaml"));
/// let config = load(&layout, &LoadOptions::default()).unwrap();
/// let guard = config.get("guard").unwrap();
/// let fp = fingerprint(&guard.decl, &config.workspace);
/// assert_eq!(Some(&fp), guard.fingerprint.as_ref());
/// assert!(fp.files[0].path.ends_with("scripts/guard.sh"));
/// ```
pub fn fingerprint(decl: &HookDecl, workspace: &Path) -> Fingerprint {
    fingerprint_cached(decl, workspace, &mut FingerprintCache::default())
}

/// [`fingerprint`] sharing path resolutions and file digests with the other hooks of one load: many hooks name the
/// same script, which is then resolved and hashed once.
pub(crate) fn fingerprint_cached(decl: &HookDecl, workspace: &Path, cache: &mut FingerprintCache) -> Fingerprint {
    let root = cache.root(decl, workspace);
    let files = named_files(decl, workspace, root.as_deref(), cache)
        .into_iter()
        .map(|(path, stat)| {
            if let Some(known) = cache.digests.get(&path) {
                return known.clone();
            }
            let file = hash_file(path.clone(), stat);
            cache.digests.insert(path, file.clone());
            file
        })
        .collect();
    seal(decl, workspace, root.as_deref(), files)
}

/// Re-checks a fingerprint taken earlier: files whose size and modification time are unchanged keep their recorded
/// digest, the others (and files that appeared) are hashed again, and files that vanished drop out. Returns the
/// current fingerprint; compare its `value` with the trusted one.
///
/// This is what a long-lived host calls before running a command hook from a non-trusted origin, so a `git pull`
/// that changed a script since load is seen without hashing every file on every run. A file counts as unchanged
/// only when its size, modification time, status-change time (ctime) and inode are all the same: an edit that puts
/// the modification time back still moves the ctime, which no user can set, and a file renamed over another is
/// another inode. The program itself is moreover executed from the very bytes that were hashed (the pipeline asks
/// `hook-exec` to verify it), so nothing can be swapped in between.
pub fn recheck(fingerprint: &Fingerprint, decl: &HookDecl, workspace: &Path) -> Fingerprint {
    let mut cache = FingerprintCache::default();
    let root = cache.root(decl, workspace);
    let files = named_files(decl, workspace, root.as_deref(), &mut cache)
        .into_iter()
        .map(|(path, stat)| match fingerprint.files.iter().find(|f| f.path == path) {
            Some(old) if (old.size, old.mtime_ns, old.ctime_ns, old.inode) == stat => old.clone(),
            _ => hash_file(path, stat),
        })
        .collect();
    seal(decl, workspace, root.as_deref(), files)
}

/// Size, modification time and status-change time (ns since the epoch), and inode of a file.
type Stat = crate::platform::Stat;

/// What one load has already resolved and hashed. Files are taken to stay put for the length of a load.
#[derive(Debug, Default)]
pub(crate) struct FingerprintCache {
    /// Origin root as declared → canonical.
    roots: HashMap<PathBuf, Option<PathBuf>>,
    /// Candidate path → the regular file it resolves to, if any.
    resolved: HashMap<PathBuf, Option<(PathBuf, Stat)>>,
    /// Canonical file → its digest.
    digests: HashMap<PathBuf, FingerprintFile>,
}

impl FingerprintCache {
    /// The hook's origin root, canonical; `None` when it cannot be resolved (then only the workspace counts).
    fn root(&mut self, decl: &HookDecl, workspace: &Path) -> Option<PathBuf> {
        if decl.root == workspace {
            return Some(workspace.to_path_buf());
        }
        if let Some(known) = self.roots.get(&decl.root) {
            return known.clone();
        }
        let root = crate::canonicalize(&decl.root).ok();
        self.roots.insert(decl.root.clone(), root.clone());
        root
    }

    /// The regular file `candidate` resolves to, following symlinks.
    fn resolve(&mut self, candidate: PathBuf) -> Option<(PathBuf, Stat)> {
        self.resolved
            .entry(candidate)
            .or_insert_with_key(|candidate| {
                // Most candidates are words that name nothing (`--strict`, `42`): one `stat` says so, where
                // `canonicalize` walks every component first.
                fs::metadata(candidate).ok().filter(fs::Metadata::is_file)?;
                let path = crate::canonicalize(candidate).ok()?;
                let meta = fs::metadata(&path).ok().filter(fs::Metadata::is_file)?;
                let stat = stat(&path, &meta);
                Some((path, stat))
            })
            .clone()
    }
}

/// Sorts the files and computes the value the trust store keys on. Paths enter the value relative to the workspace
/// (or the origin root), so the value describes the hook and its files, not where the checkout happens to be; the
/// store's key already separates workspaces.
fn seal(decl: &HookDecl, workspace: &Path, root: Option<&Path>, mut files: Vec<FingerprintFile>) -> Fingerprint {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut hasher = Sha256::new();
    hasher.update(b"hooks-fingerprint/1\n");
    hasher.update(decl.hash.as_bytes());
    hasher.update(b"\n");
    for file in &files {
        // The label (`workspace/<relative path>`, `root/<relative path>` or the whole path) goes into the hasher in
        // pieces rather than through a formatted string; `to_string_lossy` is what `display()` prints.
        let (prefix, path): (&[u8], &Path) =
            match (file.path.strip_prefix(workspace), root.map(|r| file.path.strip_prefix(r))) {
                (Ok(relative), _) => (b"workspace/", relative),
                (_, Some(Ok(relative))) => (b"root/", relative),
                _ => (b"", &file.path),
            };
        hasher.update(prefix);
        hasher.update(path.to_string_lossy().as_bytes());
        hasher.update(b"\0");
        hasher.update(file.sha256.as_bytes());
        hasher.update(b"\n");
    }
    Fingerprint { value: lower_hex(&hasher.finalize()), files }
}

/// Every regular file the command names under the workspace or the origin root, canonical, without duplicates.
fn named_files(
    decl: &HookDecl,
    workspace: &Path,
    root: Option<&Path>,
    cache: &mut FingerprintCache,
) -> Vec<(PathBuf, Stat)> {
    let spec = match &decl.spec {
        HookSpec::Command(spec) => spec,
        // Every Rego file of a policy, wherever it lies: the files are what runs.
        HookSpec::Policy(policy) => {
            let mut files: Vec<(PathBuf, Stat)> = Vec::new();
            for path in &policy.resolved {
                if let Some((path, stat)) = cache.resolve(path.clone())
                    && !files.iter().any(|(seen, _)| *seen == path)
                {
                    files.push((path, stat));
                }
            }
            return files;
        }
        _ => return Vec::new(),
    };
    // Borrowed where nothing is expanded: most words are taken as written.
    let mut words: Vec<Cow<'_, str>> = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    match &spec.program {
        Program::Argv(argv) => {
            if let Some(program) = &spec.resolved_program {
                candidates.push(program.clone());
            } else if let Some(first) = argv.first() {
                if first.contains('/') {
                    words.push(Cow::Borrowed(first));
                } else if let Some(found) = program_on_hook_path(spec) {
                    // Found through the hook's own `env: PATH`, which may name a directory of the repository.
                    candidates.push(found);
                }
                // Otherwise a bare name is looked up on the host's PATH at run time: not a file of the repository.
            }
            words.extend(argv.iter().skip(1).map(|arg| expand_project_vars(arg, workspace)));
        }
        Program::Shell(command) => words.extend(shell_words(command, workspace).into_iter().map(Cow::Owned)),
        Program::PowerShell(line) => words.extend(powershell_words(line, workspace).into_iter().map(Cow::Owned)),
    }
    words.extend(spec.env.values().map(|value| Cow::Borrowed(value.as_str())));

    let mut bases: Vec<&Path> = vec![spec.resolved_cwd.as_path()];
    if let Some(root) = root
        && root != spec.resolved_cwd
    {
        bases.push(root);
    }
    for word in &words {
        for part in path_parts(word) {
            let path = Path::new(part);
            if path.is_absolute() {
                candidates.push(path.to_path_buf());
            } else {
                candidates.extend(bases.iter().map(|base| base.join(path)));
            }
        }
    }

    let mut files: Vec<(PathBuf, Stat)> = Vec::new();
    for candidate in candidates {
        let Some((path, stat)) = cache.resolve(candidate) else { continue };
        let inside = path.starts_with(workspace) || root.is_some_and(|r| path.starts_with(r));
        if inside && !files.iter().any(|(seen, _)| *seen == path) {
            files.push((path, stat));
        }
    }
    files
}

/// The program a bare argv name (`lint`) runs when the hook sets its own `env: PATH`: the first executable regular
/// file named so in that PATH's directories, relative ones taken from the hook's working directory (as the exec
/// does), canonical. `None` without such a PATH, for a name with a `/`, or when nothing is found.
///
/// The fingerprint covers that file when it lies in the workspace or the origin root, and the pipeline runs exactly
/// it (and verifies it), so a program a repository reaches through the hook's own PATH is pinned by trust like
/// `./scripts/lint` is.
pub fn program_on_hook_path(spec: &CommandSpec) -> Option<PathBuf> {
    let Program::Argv(argv) = &spec.program else { return None };
    let name = argv.first().filter(|name| !name.is_empty() && !name.contains(['/', std::path::MAIN_SEPARATOR]))?;
    let path = spec.env.get("PATH")?;
    path.split(crate::platform::PATH_LIST_SEPARATOR).find_map(|dir| {
        let dir = if dir.is_empty() { Path::new(".") } else { Path::new(dir) };
        crate::platform::program_candidates(&spec.resolved_cwd.join(dir), name).into_iter().find_map(|candidate| {
            let meta = fs::metadata(&candidate).ok()?;
            crate::platform::is_executable(&candidate, &meta).then(|| crate::canonicalize(&candidate).ok())?
        })
    })
}

/// The parts of a word that may name a file: the word itself, unless it is a flag, and what follows the first `=`.
fn path_parts(word: &str) -> impl Iterator<Item = &str> {
    let whole = (!word.starts_with('-')).then_some(word);
    let after_eq = word.split_once('=').map(|(_, value)| value);
    whole.into_iter().chain(after_eq).filter(|part| !part.is_empty() && !part.contains('\0'))
}

fn hash_file(path: PathBuf, (size, mtime_ns, ctime_ns, inode): Stat) -> FingerprintFile {
    let sha256 = match sha256_file(&path) {
        Ok(digest) => digest,
        // An unreadable file still counts: it cannot match a digest that was trusted.
        Err(err) => format!("unreadable: {}", err.kind()),
    };
    FingerprintFile { path, sha256, size, mtime_ns, ctime_ns, inode }
}

fn stat(path: &Path, meta: &fs::Metadata) -> Stat {
    crate::platform::stat(path, meta)
}

fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    // Small enough not to fault in fresh stack pages on every load (a program is hashed on each bridge call).
    let mut buf = [0u8; 8 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(lower_hex(&hasher.finalize()))
}

/// Replaces `$VAR` and `${VAR}` for the project variables with the workspace path; other variables stay as written.
fn expand_project_vars<'t>(text: &'t str, workspace: &Path) -> Cow<'t, str> {
    if !text.contains('$') {
        return Cow::Borrowed(text);
    }
    let workspace = workspace.to_string_lossy();
    let mut out = text.to_owned();
    for var in PROJECT_VARS {
        // A word names one of the variables at most, usually: skip the passes that cannot change it.
        if !out.contains(var) {
            continue;
        }
        if out.contains("${") {
            out = out.replace(&format!("${{{var}}}"), &workspace);
        }
        // `$VAR` only where the name ends: `$HOOK_PROJECT_DIRX` is another variable.
        let needle = format!("${var}");
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(&needle) {
            let after = &rest[at + needle.len()..];
            result.push_str(&rest[..at]);
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                result.push_str(&needle);
            } else {
                result.push_str(&workspace);
            }
            rest = after;
        }
        result.push_str(rest);
        out = result;
    }
    Cow::Owned(out)
}

/// Splits a shell command into words: quotes removed (single quotes literal, double quotes with `\` escapes),
/// operators (`; & | < > ( )` and backticks) and whitespace separating words, project variables expanded outside
/// single quotes.
pub(crate) fn shell_words(command: &str, workspace: &Path) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    let flush = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                // Single-quoted text is literal; protect `$` from expansion with a marker removed below.
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(if c == '$' { '\u{0}' } else { c });
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&next @ ('"' | '\\' | '$' | '`')) => {
                                chars.next();
                                word.push(if next == '$' { '\u{0}' } else { next });
                            }
                            _ => word.push('\\'),
                        },
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(if next == '$' { '\u{0}' } else { next });
                }
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')' | '`') => {
                flush(&mut word, &mut in_word, &mut words);
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    flush(&mut word, &mut in_word, &mut words);
    expand_words(words, workspace)
}

/// Splits a PowerShell command line into words the same way, by PowerShell's rules: single quotes literal (`''` is
/// a quote), double quotes and the rest with the backtick as escape, a backslash an ordinary character (a Windows
/// path separator), `$env:NAME` read as the variable `NAME`, and `; & | < > ( ) { } ,` and whitespace separating
/// words.
pub(crate) fn powershell_words(line: &str, workspace: &Path) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '\'' if chars.peek() == Some(&'\'') => {
                            chars.next();
                            word.push('\'');
                        }
                        '\'' => break,
                        '$' => word.push('\u{0}'),
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '`' => word.extend(chars.next()),
                        '$' => push_variable(&mut word, &mut chars),
                        other => word.push(other),
                    }
                }
            }
            '`' => {
                in_word = true;
                word.extend(chars.next());
            }
            '$' => {
                in_word = true;
                push_variable(&mut word, &mut chars);
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')' | '{' | '}' | ',') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    expand_words(words, workspace)
}

/// A `$` of PowerShell, its `env:` scope dropped so that `$env:CLAUDE_PROJECT_DIR` reads as the project variable.
fn push_variable(word: &mut String, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    word.push('$');
    let scope: String = chars.clone().take(4).collect();
    if scope.eq_ignore_ascii_case("env:") {
        chars.nth(3);
    }
}

/// Each word with the project variables expanded and the protected `$` (a `\0` marker) given back.
fn expand_words(words: Vec<String>, workspace: &Path) -> Vec<String> {
    words
        .into_iter()
        .map(|word| {
            let word = match expand_project_vars(&word, workspace) {
                Cow::Owned(expanded) => expanded,
                Cow::Borrowed(_) => word,
            };
            if word.contains('\u{0}') { word.replace('\u{0}', "$") } else { word }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_expand_project_variables_and_strip_quotes() {
        let ws = Path::new("/ws");
        let words = shell_words(
            r#"bash "$CLAUDE_PROJECT_DIR"/hooks/a.sh '${HOOK_PROJECT_DIR}/b' ${GEMINI_PROJECT_DIR}/c|tee x"#,
            ws,
        );
        assert_eq!(words, ["bash", "/ws/hooks/a.sh", "${HOOK_PROJECT_DIR}/b", "/ws/c", "tee", "x"]);
        assert_eq!(shell_words("$HOOK_PROJECT_DIRX/a;./b.sh>out", ws), ["$HOOK_PROJECT_DIRX/a", "./b.sh", "out"]);
    }

    #[test]
    fn powershell_words_follow_powershell_quoting() {
        let ws = Path::new("/ws");
        let words = powershell_words(r#"& "$env:CLAUDE_PROJECT_DIR/hooks/a.ps1" -Path 'it''s $x' C:\t\b.ps1;`"q"#, ws);
        assert_eq!(words, ["/ws/hooks/a.ps1", "-Path", "it's $x", r"C:\t\b.ps1", "\"q"]);
        assert_eq!(powershell_words("./g.ps1|Out-Null", ws), ["./g.ps1", "Out-Null"]);
    }

    #[test]
    fn flags_name_files_only_after_their_equals_sign() {
        assert_eq!(path_parts("--config=./c.toml").collect::<Vec<_>>(), ["./c.toml"]);
        assert_eq!(path_parts("-c").count(), 0);
        assert_eq!(path_parts("FOO=./x").collect::<Vec<_>>(), ["FOO=./x", "./x"]);
    }
}
