//! Reading and writing the files install touches: atomically, through symlinks, keeping permissions, and with the
//! JSON layout the user chose.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::InstallError;

/// A file's text, or `None` when it does not exist.
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, InstallError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|err| InstallError::Unsupported {
            path: path.to_path_buf(),
            message: format!("the file is not valid UTF-8 (byte offset {})", err.utf8_error().valid_up_to()),
        }),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Io { action: "cannot read", path: path.to_path_buf(), source }),
    }
}

/// The path a write really goes to: a symlinked file (a dotfiles checkout) is written through its link, not
/// replaced by a regular file.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// Writes `text` to `path` atomically (a temporary file beside it, then a rename), keeping the permissions of the
/// file it replaces. Creates missing parent directories and returns the ones it created, outermost first.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<Vec<PathBuf>, InstallError> {
    let target = write_target(path);
    let io_err = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError::Io { action, path, source }
    };
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let created = create_dirs(dir)?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.hook-install.{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temp).map_err(io_err("cannot create", &temp))?;
        file.write_all(text.as_bytes()).map_err(io_err("cannot write", &temp))?;
        file.sync_all().map_err(io_err("cannot write", &temp))?;
        if let Some(permissions) = permissions {
            fs::set_permissions(&temp, permissions).map_err(io_err("cannot set the permissions of", &temp))?;
        }
        fs::rename(&temp, &target).map_err(io_err("cannot replace", &target))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result.map(|()| created)
}

/// Creates `dir` and its missing ancestors; returns the ones created, outermost first.
fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, InstallError> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(path) = at {
        if path.as_os_str().is_empty() || path.exists() {
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

/// Removes a file install created (a missing one is fine).
pub(crate) fn remove_file(path: &Path) -> Result<(), InstallError> {
    match fs::remove_file(write_target(path)) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(InstallError::Io { action: "cannot remove", path: path.to_path_buf(), source }),
    }
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

    #[test]
    fn writing_through_a_symlink_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        fs::write(&real, "{}").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, "{\"a\":1}").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\":1}");
    }

    #[test]
    fn missing_parent_directories_are_created_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/c.json");
        let created = write_atomic(&file, "{}").unwrap();
        assert_eq!(created, vec![dir.path().join("a"), dir.path().join("a/b")]);
        remove_file(&file).unwrap();
        remove_empty_dirs(&created);
        assert!(!dir.path().join("a").exists());
    }
}
