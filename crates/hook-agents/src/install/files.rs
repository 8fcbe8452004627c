//! Reading and writing the files install touches: never outside the scope's directory, never through a name
//! someone planted, never over an edit install did not see; and with the JSON layout the user chose.
//!
//! - **Confinement** ([`Confine`]): every file install or uninstall reads or writes is resolved first, through every
//!   symlink on its way, and its real path must lie inside the scope's directory (the workspace for the local and
//!   project scopes; the home directory, or the config home for the engine's own files, for the user scope). A
//!   symlink that stays inside is followed, so a dotfiles checkout under the home directory keeps its link; one that
//!   leaves, a dangling one, or something that is not a regular file at the file's place is refused with the path
//!   and why. A repository that ships `.claude/settings.json` as a link to the user's own settings cannot make a
//!   project install rewrite them.
//! - **Temporary files** are created new (`O_CREAT | O_EXCL`: whatever is at the name, a symlink included, is an
//!   error, never followed) under a random name, in the target's own directory, with the target's permissions.
//! - **Compare-and-swap** ([`replace`], [`remove`]): the new text replaces the file only if the file still holds
//!   what install read. On Linux the swap is `renameat2(RENAME_EXCHANGE)`: the new file and the old trade places
//!   atomically, and what was swapped out is compared with what was read; if it differs (an agent saved the file
//!   in between), the two are swapped back and nothing changed. A file install creates is put in place with
//!   `RENAME_NOREPLACE`, so one that appeared meanwhile is never overwritten. Where the filesystem has neither, the
//!   file is re-read and compared right before a plain rename (a window of microseconds instead of none). A writer
//!   that keeps the old file open and writes into it after the swap is out of reach of any rename-based scheme.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use super::platform;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::InstallError;
use super::agent::InstallScope;

/// The directory a scope's files must stay inside (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confine {
    /// The directory, canonical (as far as it exists).
    root: PathBuf,
    /// What it is, for messages ("the workspace").
    what: &'static str,
}

impl Confine {
    /// Files must stay inside `root`, which messages call `what`.
    pub(crate) fn new(root: &Path, what: &'static str) -> Confine {
        let root = real_path(root).unwrap_or_else(|_| std::path::absolute(root).unwrap_or_else(|_| root.into()));
        Confine { root, what }
    }

    /// The real path of `path`: every symlink on its way resolved. Refused when it leaves the directory, when a
    /// symlink on the way dangles, or when something other than a regular file is at the file's place.
    pub(crate) fn resolve(&self, path: &Path) -> Result<PathBuf, InstallError> {
        let refuse = |message: String| InstallError::Unsupported { path: path.to_path_buf(), message };
        let real = real_path(path).map_err(|why| match why {
            Unreal::Dangling(link) if std::path::absolute(path).is_ok_and(|p| p == link) => refuse(format!(
                "it is a symlink to `{}`, which does not exist; hook install does not replace a link with a file",
                fs::read_link(&link).unwrap_or_default().display()
            )),
            Unreal::Dangling(link) => refuse(format!(
                "`{}` on its way is a symlink to `{}`, which does not exist",
                link.display(),
                fs::read_link(&link).unwrap_or_default().display()
            )),
            Unreal::Io(source) => InstallError::Io { action: "cannot resolve", path: path.to_path_buf(), source },
        })?;
        if !real.starts_with(&self.root) {
            let how = match fs::symlink_metadata(path) {
                Ok(meta) if meta.file_type().is_symlink() => "it is a symlink to",
                _ => "a symlink on its way leads to",
            };
            return Err(refuse(format!(
                "{how} `{}`, outside {} `{}`; hook install never reads or writes through a link that leaves it",
                real.display(),
                self.what,
                self.root.display()
            )));
        }
        match fs::symlink_metadata(&real) {
            Ok(meta) if !meta.is_file() => Err(refuse(format!(
                "{}is not a regular file",
                if real == path { String::new() } else { format!("its target `{}` ", real.display()) }
            ))),
            _ => Ok(real),
        }
    }

    /// The real path of the directory `path` (an agent's directory of hook files): every symlink on its way
    /// resolved, refused when it leaves the directory this confines to, or when something other than a directory
    /// is at its place.
    pub(crate) fn resolve_dir(&self, path: &Path) -> Result<PathBuf, InstallError> {
        let refuse = |message: String| InstallError::Unsupported { path: path.to_path_buf(), message };
        let real = real_path(path).map_err(|why| match why {
            Unreal::Dangling(link) => refuse(format!("`{}` on its way is a symlink to nothing", link.display())),
            Unreal::Io(source) => InstallError::Io { action: "cannot resolve", path: path.to_path_buf(), source },
        })?;
        if !real.starts_with(&self.root) {
            return Err(refuse(format!(
                "it leads to `{}`, outside {} `{}`; hook install never writes through a link that leaves it",
                real.display(),
                self.what,
                self.root.display()
            )));
        }
        match fs::symlink_metadata(&real) {
            Ok(meta) if !meta.is_dir() => {
                Err(refuse("it is not a directory; expected a directory of hook files".into()))
            }
            _ => Ok(real),
        }
    }

    /// The text of the file at `path` (resolved, see [`Confine::resolve`]), or `None` when it does not exist.
    pub(crate) fn read(&self, path: &Path) -> Result<Option<String>, InstallError> {
        read_text(&self.resolve(path)?)
    }
}

/// The directories the files of one install of `scope` must stay inside: the agent's file's (the workspace, or the
/// home directory for the user scope) and the native file's (the workspace, or the config home).
pub(crate) fn scope_confines(
    scope: InstallScope,
    workspace: &Path,
    home: Option<&Path>,
    config_home: &Path,
) -> Result<(Confine, Confine), InstallError> {
    match scope {
        InstallScope::User => {
            let home = home.ok_or(InstallError::Unknown { what: "the home directory", hint: "set $HOME" })?;
            Ok((Confine::new(home, "the home directory"), Confine::new(config_home, "the config home")))
        }
        InstallScope::Local | InstallScope::Project => {
            let confine = Confine::new(workspace, "the workspace");
            Ok((confine.clone(), confine))
        }
    }
}

/// Why a path has no real path.
enum Unreal {
    /// A symlink on the way (or at the end) points at nothing.
    Dangling(PathBuf),
    Io(io::Error),
}

/// `path` with every symlink resolved; the components that do not exist yet are appended as they are (they will
/// be created as directories and a file, not followed).
fn real_path(path: &Path) -> Result<PathBuf, Unreal> {
    let path = std::path::absolute(path).map_err(Unreal::Io)?;
    let mut existing = path.as_path();
    let mut missing = Vec::new();
    loop {
        match fs::symlink_metadata(existing) {
            Ok(meta) if meta.file_type().is_symlink() && fs::metadata(existing).is_err() => {
                return Err(Unreal::Dangling(existing.to_path_buf()));
            }
            Ok(_) => break,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
                    return Err(Unreal::Io(err));
                };
                missing.push(name.to_owned());
                existing = parent;
            }
            Err(err) => return Err(Unreal::Io(err)),
        }
    }
    let mut real = fs::canonicalize(existing).map_err(Unreal::Io)?;
    for name in missing.iter().rev() {
        if matches!(Path::new(name).components().next(), Some(Component::Normal(_))) {
            real.push(name);
        } else {
            return Err(Unreal::Io(io::Error::new(io::ErrorKind::InvalidInput, "a `..` in a missing part")));
        }
    }
    Ok(real)
}

/// A file's text, or `None` when it does not exist. A symlink at `path` is not followed (callers resolve first).
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, InstallError> {
    match hook_config::locked::read_no_follow(path) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map(Some).map_err(|err| InstallError::Unsupported {
            path: path.to_path_buf(),
            message: format!("the file is not valid UTF-8 (byte offset {})", err.utf8_error().valid_up_to()),
        }),
        Ok(None) => Ok(None),
        Err(source) => Err(InstallError::Io { action: "cannot read", path: path.to_path_buf(), source }),
    }
}

/// Writes `text` to the file at `shown` (whose real path, from [`Confine::resolve`], is `real`) if the file still
/// holds `expected` — `None`: if it still does not exist — and fails with [`InstallError::Changed`] otherwise,
/// leaving the file as it found it (see the module docs). Keeps the permissions of the file it replaces. Creates
/// missing parent directories and returns the ones it created, outermost first.
pub(crate) fn replace(
    shown: &Path,
    real: &Path,
    expected: Option<&str>,
    text: &str,
) -> Result<Vec<PathBuf>, InstallError> {
    let dir = parent(real);
    let created = create_dirs(dir)?;
    let result = (|| {
        let temp = temp_file(real, text)?;
        let changed = || InstallError::Changed { path: shown.to_path_buf() };
        match expected {
            None => match platform::rename_no_replace(&temp, real) {
                // The temporary name is free again: nothing is left to remove.
                Ok(()) => drop(temp.keep()),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => return Err(changed()),
                Err(err) if err.kind() == io::ErrorKind::Unsupported => match fs::hard_link(&*temp, real) {
                    Ok(()) => {}
                    Err(err) if err.kind() == io::ErrorKind::AlreadyExists => return Err(changed()),
                    Err(source) => return Err(io_error("cannot create", real, source)),
                },
                Err(source) => return Err(io_error("cannot create", real, source)),
            },
            Some(expected) => match platform::exchange(&temp, real) {
                Ok(()) => {
                    // `temp` now names what was at the file's place: it must be what install read.
                    if !holds(&temp, expected) {
                        let _ = platform::exchange(&temp, real);
                        return Err(changed());
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(changed()),
                Err(err) if err.kind() == io::ErrorKind::Unsupported => {
                    if !holds(real, expected) {
                        return Err(changed());
                    }
                    fs::rename(&*temp, real).map_err(|source| io_error("cannot replace", real, source))?;
                }
                Err(source) => return Err(io_error("cannot replace", real, source)),
            },
        }
        // Whatever `temp` names now (the old file, or nothing) goes when it drops.
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        remove_empty_dirs(&created);
    }
    result.map(|()| created)
}

/// Removes the file at `shown` (real path `real`) if it still holds `expected`: it is first moved, atomically, over
/// a new file of a random name beside it, then compared; a file that changed is moved back and
/// [`InstallError::Changed`] returned. A missing file is fine.
pub(crate) fn remove(shown: &Path, real: &Path, expected: &str) -> Result<(), InstallError> {
    let aside = temp_file(real, "")?;
    match fs::rename(real, &aside) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(io_error("cannot remove", real, source)),
    }
    if holds(&aside, expected) {
        // Dropping `aside` removes what was moved there.
        return Ok(());
    }
    match platform::rename_no_replace(&aside, real) {
        // The name is empty again: nothing of ours is left to remove.
        Ok(()) => drop(aside.keep()),
        // A link at the old name keeps the file; the aside name goes when `aside` drops.
        Err(err) if err.kind() == io::ErrorKind::Unsupported => drop(fs::hard_link(&*aside, real)),
        Err(_) => {}
    }
    Err(InstallError::Changed { path: shown.to_path_buf() })
}

/// Writes `text` to `path` through a new temporary file and a rename, with no comparison: for files only this
/// engine writes, under their own lock ([`super::record`]), and for `hook import`, which compares first.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<Vec<PathBuf>, InstallError> {
    let dir = parent(path);
    let created = create_dirs(dir)?;
    let temp = temp_file(path, text)?;
    temp.persist(path).map_err(|err| io_error("cannot replace", path, err.error))?;
    sync_dir(dir);
    Ok(created)
}

/// A new file beside `target` holding `text`, with `target`'s permissions (a new file's default ones when it does
/// not exist): created exclusively under a random name, synced; removed when dropped.
fn temp_file(target: &Path, text: &str) -> Result<tempfile::TempPath, InstallError> {
    let dir = parent(target);
    let permissions = fs::metadata(target).map(|m| m.permissions()).ok().or_else(platform::new_file_permissions);
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{}.", file_name(target));
    builder.prefix(&prefix).suffix(".hook-install").rand_bytes(12);
    if let Some(permissions) = &permissions {
        builder.permissions(permissions.clone());
    }
    let mut file =
        builder.tempfile_in(dir).map_err(|source| io_error("cannot create a temporary file in", dir, source))?;
    let written = file.write_all(text.as_bytes()).and_then(|()| file.as_file().sync_all());
    written.map_err(|source| io_error("cannot write", file.path(), source))?;
    // The umask narrowed the mode at creation; the file replaced had exactly these.
    if let Some(permissions) = permissions.filter(|_| fs::metadata(target).is_ok()) {
        fs::set_permissions(file.path(), permissions)
            .map_err(|source| io_error("cannot set the permissions of", file.path(), source))?;
    }
    Ok(file.into_temp_path())
}

/// Whether the regular file at `path` (not followed if a symlink) holds exactly `expected`.
fn holds(path: &Path, expected: &str) -> bool {
    matches!(hook_config::locked::read_no_follow(path), Ok(Some(bytes)) if bytes == expected.as_bytes())
}

fn parent(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> InstallError {
    InstallError::Io { action, path: path.to_path_buf(), source }
}

fn not_found_ok(err: io::Error) -> io::Result<()> {
    if err.kind() == io::ErrorKind::NotFound { Ok(()) } else { Err(err) }
}

/// Syncs a directory after a rename in it, where the filesystem allows.
fn sync_dir(dir: &Path) {
    if let Ok(dir) = fs::File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// Creates `dir` and its missing ancestors; returns the ones created, outermost first.
pub(crate) fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, InstallError> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(path) = at {
        if path.as_os_str().is_empty() || fs::symlink_metadata(path).is_ok() {
            break;
        }
        missing.push(path.to_path_buf());
        at = path.parent();
    }
    missing.reverse();
    for path in &missing {
        match fs::create_dir(path) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(source) => {
                return Err(InstallError::Io { action: "cannot create the directory", path: path.clone(), source });
            }
        }
    }
    Ok(missing)
}

/// Removes a file this engine alone writes (the install records, a trust store install created); a missing one is
/// fine, and a symlink at its place is removed, not followed.
pub(crate) fn remove_file(path: &Path) -> Result<(), InstallError> {
    fs::remove_file(path).or_else(not_found_ok).map_err(|source| io_error("cannot remove", path, source))
}

/// Removes directories install created, innermost first, as long as they are empty.
pub(crate) fn remove_empty_dirs(dirs: &[PathBuf]) {
    for dir in dirs.iter().rev() {
        // A directory something else was put into since is kept: only an empty one is ours to remove.
        if fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

/// sha256 of a text, hex.
pub(crate) fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// How a JSON file is laid out, so a rewrite looks like the user's own: the indentation unit and whether the file
/// ends with a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonLayout {
    indent: String,
    trailing_newline: bool,
}

impl Default for JsonLayout {
    /// Two spaces and a final newline, as the agents write their own files.
    fn default() -> Self {
        JsonLayout { indent: "  ".into(), trailing_newline: true }
    }
}

impl JsonLayout {
    /// The layout of `text`: the indentation of its first indented line (two spaces if none), and its last newline.
    pub(crate) fn of(text: &str) -> JsonLayout {
        let indent = text
            .lines()
            .skip(1)
            .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
            .find(|lead| !lead.is_empty())
            .unwrap_or("  ")
            .to_owned();
        JsonLayout { indent, trailing_newline: text.ends_with('\n') || text.trim().is_empty() }
    }

    /// `value` written pretty in this layout.
    pub(crate) fn write(&self, value: &Value) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Serializing a JSON value into memory cannot fail.
        let _ = value.serialize(&mut serializer);
        let mut text = String::from_utf8(out).unwrap_or_default();
        if self.trailing_newline {
            text.push('\n');
        }
        text
    }
}

/// Parses a JSON file's text as an object; an absent or blank file is an empty object.
pub(crate) fn parse_json_object(
    path: &Path,
    text: Option<&str>,
) -> Result<serde_json::Map<String, Value>, InstallError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return Ok(serde_json::Map::new()) };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(InstallError::Unsupported {
            path: path.to_path_buf(),
            message: format!("expected a JSON object at the top, found {}", json_kind(&other)),
        }),
        Err(err) => Err(InstallError::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "not valid JSON ({err}); hook install edits plain JSON only (comments and trailing commas cannot be \
                 kept)"
            ),
        }),
    }
}

/// A JSON value's type in words, as messages about an agent's JSON (its settings file, its hook input) name it.
///
/// ```
/// use hook_agents::install::json_kind;
/// assert_eq!(json_kind(&serde_json::json!([1])), "a list");
/// assert_eq!(json_kind(&serde_json::json!({})), "an object");
/// ```
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rewrite_keeps_the_files_indentation_and_final_newline() {
        let four = "{\n    \"a\": [\n        1\n    ]\n}";
        let layout = JsonLayout::of(four);
        assert_eq!(layout.write(&serde_json::from_str(four).unwrap()), four);
        let tabs = "{\n\t\"a\": 1\n}\n";
        assert_eq!(JsonLayout::of(tabs).write(&json!({"a": 1})), tabs);
        assert_eq!(JsonLayout::of("").write(&json!({"a": 1})), "{\n  \"a\": 1\n}\n");
    }

    /// A confinement to `dir`, and `dir/name` resolved through it.
    fn confined(dir: &Path, name: &str) -> (Confine, Result<PathBuf, InstallError>) {
        let confine = Confine::new(dir, "the workspace");
        let resolved = confine.resolve(&dir.join(name));
        (confine, resolved)
    }

    #[test]
    fn a_symlink_inside_the_scope_is_written_through_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        fs::write(&real, "{}").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let (_, resolved) = confined(dir.path(), "link.json");
        let resolved = resolved.unwrap();
        replace(&link, &resolved, Some("{}"), "{\"a\":1}").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\":1}");
    }

    #[test]
    fn links_that_leave_the_scope_or_dangle_and_non_files_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("settings.json"), "{}").unwrap();
        std::os::unix::fs::symlink(outside.path().join("settings.json"), dir.path().join("file.json")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked-dir")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), dir.path().join("dangling.json")).unwrap();
        fs::create_dir(dir.path().join("a-dir")).unwrap();
        for (name, why) in [
            ("file.json", "it is a symlink to"),
            ("linked-dir/settings.json", "a symlink on its way leads to"),
            ("linked-dir/new/settings.json", "a symlink on its way leads to"),
            ("dangling.json", "which does not exist"),
            ("dangling.json/x.json", "on its way is a symlink"),
            ("a-dir", "is not a regular file"),
        ] {
            let (confine, resolved) = confined(dir.path(), name);
            let err = resolved.unwrap_err().to_string();
            assert!(err.contains(why), "{name}: {err}");
            assert!(confine.read(&dir.path().join(name)).is_err(), "{name} is not read either");
        }
        assert_eq!(fs::read_to_string(outside.path().join("settings.json")).unwrap(), "{}");
    }

    #[test]
    fn a_replace_over_a_file_that_changed_since_it_was_read_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "edited by the agent").unwrap();
        let err = replace(&file, &file, Some("as read"), "install's").unwrap_err();
        assert!(matches!(err, InstallError::Changed { .. }), "{err}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "edited by the agent");
        // A file that appeared since install saw none is not overwritten either.
        let err = replace(&file, &file, None, "install's").unwrap_err();
        assert!(matches!(err, InstallError::Changed { .. }), "{err}");
        let err = remove(&file, &file, "as read").unwrap_err();
        assert!(matches!(err, InstallError::Changed { .. }), "{err}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "edited by the agent");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["settings.json"], "no temporary file is left");
        remove(&file, &file, "edited by the agent").unwrap();
        assert!(!file.exists());
    }

    #[test]
    #[cfg(unix)]
    fn a_replace_keeps_the_permissions_and_a_new_file_gets_the_usual_ones() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "{}").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
        replace(&file, &file, Some("{}"), "{ }").unwrap();
        assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
        let new = dir.path().join("new.json");
        replace(&new, &new, None, "{}").unwrap();
        assert_ne!(fs::metadata(&new).unwrap().permissions().mode() & 0o044, 0, "readable as any new file is");
    }

    #[test]
    fn planted_names_beside_the_file_are_never_written_through() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "{}").unwrap();
        for n in 0..64 {
            let name = format!(".settings.json.hook-install.{}", std::process::id() + n);
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        replace(&file, &file, Some("{}"), "{\"a\":1}").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(fs::symlink_metadata(&file).unwrap().is_file());
    }

    #[test]
    fn missing_parent_directories_are_created_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/c.json");
        let created = replace(&file, &file, None, "{}").unwrap();
        assert_eq!(created, vec![dir.path().join("a"), dir.path().join("a/b")]);
        remove(&file, &file, "{}").unwrap();
        remove_empty_dirs(&created);
        assert!(!dir.path().join("a").exists());
    }
}
