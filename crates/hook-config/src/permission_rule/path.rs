//! A file tool's rule (`Read(./.env)`, `Edit(/src/**/*.ts)`, `Read(//etc/**)`, `Read(~/.ssh/**)`) against the path a
//! call names.
//!
//! The specifier is a gitignore pattern under a root its start names: `//` the filesystem's root, `~/` the home
//! directory, `/` the project (the workspace), `./` or nothing the working directory of the call. The call's path,
//! resolved against that working directory, is taken relative to the root (a path outside the root never matches
//! this way) and tested as gitignore tests a path: a pattern without an inner `/` matches at any depth, `*` stays
//! within one directory, `**` spans directories, and a pattern that matches a directory matches everything in it.
//! Failing that, a specifier that starts with `*` or has no `*` at all is compared with the path as the call wrote
//! it (`Read(/etc/passwd)` matches a call for `/etc/passwd`).

use std::path::{Component, Path, PathBuf};

use regex::Regex;

use super::wildcard::{Wildcard, has_unescaped_star};

/// Where a path pattern is rooted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// `//…`: the filesystem's root.
    Filesystem,
    /// `~/…`: the home directory.
    Home,
    /// `/…`: the project.
    Project,
    /// `./…` or a bare pattern: the call's working directory.
    Cwd,
}

/// The directories a path pattern is resolved against at match time.
#[derive(Debug, Clone, Copy, Default)]
pub struct PathContext<'a> {
    /// The call's working directory (the event's `cwd`; the project where the event has none).
    pub cwd: Option<&'a Path>,
    /// The project: the workspace.
    pub project: Option<&'a Path>,
    /// The home directory.
    pub home: Option<&'a Path>,
}

/// A compiled file tool specifier.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    root: Root,
    /// The gitignore pattern, `None` for one that never matches (a lone negation).
    ignore: Option<Gitignore>,
    /// The whole specifier compared with the path as written, where it starts with `*` or has no `*`.
    fallback: Option<Wildcard>,
}

impl PathPattern {
    /// Reads a file tool's specifier.
    pub(crate) fn new(specifier: &str) -> PathPattern {
        let (relative, root) = if let Some(rest) = specifier.strip_prefix('/').filter(|r| r.starts_with('/')) {
            (rest, Root::Filesystem)
        } else if let Some(rest) = specifier.strip_prefix('~').filter(|r| r.starts_with('/')) {
            (rest, Root::Home)
        } else if specifier.starts_with('/') {
            (specifier, Root::Project)
        } else {
            (specifier.strip_prefix("./").unwrap_or(specifier), Root::Cwd)
        };
        let mut pattern = collapse_slashes(relative);
        if let Some(dir) = pattern.strip_suffix("/**") {
            pattern = if dir.contains(|c| c != '/') { dir.to_owned() } else { "/**".to_owned() };
        }
        let trimmed = specifier.trim();
        let literal = !has_unescaped_star(trimmed) && !trimmed.ends_with(":*");
        let fallback = (trimmed.starts_with('*') || literal).then(|| Wildcard::new(specifier, false));
        PathPattern { root, ignore: Gitignore::new(&pattern), fallback }
    }

    /// Whether the path a call names matches.
    pub(crate) fn matches(&self, path: &str, cx: &PathContext<'_>) -> bool {
        if let Some(ignore) = &self.ignore
            && let Some(resolved) = resolve(path, cx)
        {
            let root = match self.root {
                Root::Filesystem => Some(Path::new("/")),
                Root::Home => cx.home,
                Root::Project => cx.project.or(cx.cwd),
                Root::Cwd => cx.cwd.or(cx.project),
            };
            if let Some(relative) = root.and_then(|root| resolved.strip_prefix(root).ok())
                && let Some(relative) = relative.to_str().filter(|r| !r.is_empty())
                && ignore.matches(relative)
            {
                return true;
            }
        }
        self.fallback.as_ref().is_some_and(|w| w.matches(path))
    }
}

/// `path` as the call's tool resolves it: `~` is the home directory, a relative path is under the working
/// directory; `.` and `..` are resolved lexically.
fn resolve(path: &str, cx: &PathContext<'_>) -> Option<PathBuf> {
    let path = path.trim();
    let joined = if path == "~" {
        cx.home?.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        cx.home?.join(rest)
    } else if path.starts_with('/') {
        PathBuf::from(path)
    } else {
        cx.cwd.or(cx.project)?.join(path)
    };
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(out)
}

/// Runs of `/` as one.
fn collapse_slashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

/// One gitignore pattern, compiled.
#[derive(Debug, Clone)]
struct Gitignore {
    regex: Regex,
    /// A trailing `/`: matches directories only, so here only a parent of the path.
    dir_only: bool,
}

impl Gitignore {
    /// Compiles `pattern`; `None` for a negation or a comment, which on its own matches nothing.
    fn new(pattern: &str) -> Option<Gitignore> {
        if pattern.is_empty() || pattern.starts_with(['!', '#']) {
            return None;
        }
        let (pattern, dir_only) = match pattern.strip_suffix('/') {
            Some(stripped) if !stripped.is_empty() => (stripped, true),
            _ => (pattern, false),
        };
        let anchored = pattern.contains('/');
        let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
        let segments: Vec<&str> = pattern.split('/').collect();
        let mut regex = String::from(if anchored { "^" } else { "^(?:.*/)?" });
        for (i, segment) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            if *segment == "**" {
                regex.push_str(if last { ".*" } else { "(?:[^/]*/)*" });
                continue;
            }
            regex.push_str(&segment_regex(segment));
            if !last {
                regex.push('/');
            }
        }
        regex.push('$');
        Regex::new(&regex).ok().map(|regex| Gitignore { regex, dir_only })
    }

    /// Whether the relative path `path` or one of its parent directories matches.
    fn matches(&self, path: &str) -> bool {
        let parents = path.match_indices('/').map(|(i, _)| &path[..i]);
        parents.into_iter().any(|p| self.regex.is_match(p)) || (!self.dir_only && self.regex.is_match(path))
    }
}

/// One path segment of a gitignore pattern as a regex: `*` and `?` within the segment, `[…]` classes, `\` escapes.
fn segment_regex(segment: &str) -> String {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                out.push_str(&regex::escape(&chars[i].to_string()));
            }
            '[' => match chars[i + 1..].iter().position(|&c| c == ']').map(|p| p + i + 1) {
                Some(end) if end > i + 1 => {
                    let mut class: String = chars[i + 1..end].iter().collect();
                    if let Some(rest) = class.strip_prefix('!') {
                        class = format!("^{rest}");
                    }
                    out.push('[');
                    out.push_str(&class.replace('\\', "\\\\").replace('[', "\\["));
                    out.push(']');
                    i = end;
                }
                _ => out.push_str("\\["),
            },
            c => out.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_patterns_match_at_any_depth_or_anchored_and_cover_directories() {
        let g = |p: &str, path: &str| Gitignore::new(p).is_some_and(|g| g.matches(path));
        assert!(g(".env", ".env") && g(".env", "a/b/.env") && !g(".env", ".envrc"));
        assert!(g("*.ts", "src/a.ts") && !g("src/*.ts", "src/x/a.ts"));
        assert!(g("src/**/*.ts", "src/x/y/a.ts") && g("src/**/*.ts", "src/a.ts"));
        assert!(g("/docs", "docs/a/b.md") && !g("/docs", "x/docs/a.md"));
        assert!(g("secrets/", "secrets/k") && !g("secrets/", "secrets"));
        assert!(g("/**", "anything/at/all"));
        assert!(g("a[0-9].txt", "a1.txt") && !g("a[!0-9].txt", "a1.txt"));
        assert!(!g("!x", "x"));
    }
}
