//! `hook import` as a library (docs/hooks-guide.md#7-moving-an-agents-hooks-over): the native form of every hook another agent's files declare, written
//! into this engine's own files.
//!
//! [`plan_import`] loads the workspace as [`load`] does and takes every hook that came from files of one format
//! (the hooks in force, and those that lost an id collision or wait for trust: each goes back where it came from, to
//! lose or wait again). Each hook goes into the native file of its own origin — `.hooks/hooks.yaml` for the
//! project, `.hooks/hooks.local.yaml` for project.local, `<config home>/hooks.yaml` for the user — in the native form
//! ([`native_form`]) that keeps its `protocol` (and `on: "foreign:<Name>"` for an event with no equivalent here), so
//! it follows the same output rules, keeps its content hash and, in the same origin, its id: trust given to it
//! before stays valid. The planned text of each native file is loaded back and checked before anything is written:
//! the hooks already there unchanged, each imported hook there with the same id, hash and program.
//!
//! Importing is idempotent: a hook already in the native file (same id, same hash) is not added again. A native hook
//! with the same id but other contents is a conflict, reported, never overwritten.
//!
//! ```
//! use hook_config::{Format, Layout};
//! use hook_agents::import::plan_import;
//! let ws = tempfile::tempdir().unwrap();
//! let cfg = tempfile::tempdir().unwrap();
//! std::fs::create_dir(ws.path().join(".cursor")).unwrap();
//! std::fs::write(
//!     ws.path().join(".cursor/hooks.json"),
//!     r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./guard.sh", "failClosed": true}]}}"#,
//! ).unwrap();
//! let layout = Layout::new(ws.path()).with_config_home(cfg.path()).with_home(None)
//!     .with_managed_file(cfg.path().join("managed.yaml"));
//!
//! let plan = plan_import(&layout, Format::Cursor).unwrap();
//! let target = &plan.targets[0];
//! assert!(target.path.ends_with(".hooks/hooks.yaml"));
//! assert!(target.block.contains("protocol: cursor") && target.block.contains("on_error: deny"));
//! plan.write().unwrap();
//! assert!(plan_import(&layout, Format::Cursor).unwrap().is_empty()); // already imported: nothing to add
//!
//! std::fs::remove_file(ws.path().join(".cursor/hooks.json")).unwrap();
//! let config = hook_config::load(&layout, &Default::default()).unwrap();
//! assert_eq!(config.hooks[0].decl.format, Format::Native);
//! assert_eq!(config.hooks[0].decl.hash, target.hooks[0].decl.hash); // the same hook
//! ```

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use hook_types::Origin;

use crate::install::{Confine, InstallError, insertion, native_form, replace, yaml_block};
use hook_config::{FileContext, FileLoad, Layout, parse_str};
use hook_config::{Format, HookDecl, HookSpec, Issue, IssueSeverity, Program};
use hook_config::{LoadError, LoadOptions, load};

/// The error returned by [`plan_import`] and [`ImportPlan::write`].
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Native hooks are this engine's own: there is nothing to import.
    #[error("native hooks are already in the native format; import reads another agent's files")]
    NotForeign,
    /// The workspace could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A hook of the user origin needs the config home, and none is known.
    #[error("the user's hooks go to `<config home>/hooks.yaml`, and no config home is known; pass --config-home DIR")]
    NoConfigHome,
    /// A native file could not be read or written, or holds something that cannot take the imported hooks.
    #[error(transparent)]
    File(#[from] InstallError),
    /// A native file already has a hook of this id with other contents.
    #[error(
        "`{}` already has a hook `{id}` that differs from the one imported from `{}`; rename or remove one of them and \
         import again",
        path.display(),
        source_file.display()
    )]
    Conflict {
        /// The native file.
        path: PathBuf,
        /// The id both use.
        id: String,
        /// The foreign file of the imported hook.
        source_file: PathBuf,
    },
    /// The planned native file did not load back as planned (nothing was written).
    #[error("`{}` would not load back as planned: {message}; nothing was written", path.display())]
    Verify {
        /// The native file.
        path: PathBuf,
        /// What differed.
        message: String,
    },
    /// The format's files have error-level issues: some of their hooks could not be read, so importing now would
    /// lose them once the files are removed.
    #[error("{count} error-level issue(s) in the {format} files: fix them first, so that no hook is left behind")]
    SourceErrors {
        /// The format.
        format: Format,
        /// How many.
        count: usize,
    },
    /// A native file changed between planning and writing.
    #[error("`{}` changed while hook import ran; run it again", path.display())]
    Changed {
        /// The native file.
        path: PathBuf,
    },
}

/// What importing one format would do.
#[derive(Debug, Clone)]
pub struct ImportPlan {
    /// The format imported.
    pub format: Format,
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The format's files that were found, in precedence order: what a user removes once the import is written.
    pub sources: Vec<PathBuf>,
    /// One native file per origin that has hooks of the format, in precedence order.
    pub targets: Vec<ImportTarget>,
    /// The issues of the format's files (a hook with an error-level issue was not read and is not imported).
    pub issues: Vec<Issue>,
}

/// The hooks going into one native file.
#[derive(Debug, Clone)]
pub struct ImportTarget {
    /// The origin of the hooks, and of the native file.
    pub origin: Origin,
    /// The native file.
    pub path: PathBuf,
    /// The hooks, in precedence order, as loaded back from the planned native file.
    pub hooks: Vec<ImportedHook>,
    /// The YAML block of the hooks to add (empty when every hook is already there).
    pub block: String,
    original: Option<String>,
    planned: Option<String>,
    confine: Confine,
}

/// One imported hook.
#[derive(Debug, Clone)]
pub struct ImportedHook {
    /// The declaration (in the native file once planned: the same id and hash as in its foreign file).
    pub decl: HookDecl,
    /// The foreign file it was declared in.
    pub from: PathBuf,
    /// Its position in that file.
    pub from_index: usize,
    /// It is in the native file already (an earlier import): nothing to add.
    pub already_there: bool,
}

/// Plans importing every hook of `format` in the layout's files (see the [module docs](self)). Nothing is written.
///
/// # Errors
/// `format` is native; the workspace cannot be loaded; a user hook and no config home; a native file cannot be read
/// or cannot take a block of hooks (a list in flow style); a native hook of the same id differs; the planned file
/// would not load back as planned.
pub fn plan_import(layout: &Layout, format: Format) -> Result<ImportPlan, ImportError> {
    if format == Format::Native {
        return Err(ImportError::NotForeign);
    }
    let config = load(layout, &LoadOptions::default())?;
    let sources: Vec<PathBuf> =
        config.sources.iter().filter(|s| s.format == format && s.found).map(|s| s.path.clone()).collect();
    let issues: Vec<Issue> = config.issues.iter().filter(|i| sources.contains(&i.source)).cloned().collect();

    // Every hook the format's files declared, once each, in precedence order.
    let mut seen = HashSet::new();
    let mut decls: Vec<&HookDecl> = config
        .hooks
        .iter()
        .chain(config.overridden.iter().map(|o| &o.hook))
        .chain(config.shadowed.iter().map(|s| &s.attempted))
        .map(|h| &h.decl)
        .filter(|d| d.format == format && seen.insert((d.source.clone(), d.index)))
        .collect();
    let rank = |d: &HookDecl| sources.iter().position(|s| *s == d.source).unwrap_or(usize::MAX);
    decls.sort_by_key(|d| (rank(d), d.index));

    let mut targets: Vec<ImportTarget> = Vec::new();
    for origin in Origin::ALL {
        let of_origin: Vec<&HookDecl> = decls.iter().copied().filter(|d| d.origin == origin).collect();
        if !of_origin.is_empty() {
            targets.push(plan_target(layout, &config.workspace, origin, &of_origin, format)?);
        }
    }
    Ok(ImportPlan { format, workspace: config.workspace.clone(), sources, targets, issues })
}

/// The native file of `origin` and the root its relative programs resolve against.
fn native_file(layout: &Layout, workspace: &Path, origin: Origin) -> Result<(PathBuf, PathBuf), ImportError> {
    let project = workspace.join(format!(".{}", layout.app_dir));
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    match origin {
        Origin::Project => Ok((project.join("hooks.yaml"), workspace.to_path_buf())),
        Origin::ProjectLocal => Ok((project.join("hooks.local.yaml"), workspace.to_path_buf())),
        Origin::User => {
            let home = absolute(layout.config_home_path().ok_or(ImportError::NoConfigHome)?);
            Ok((home.join("hooks.yaml"), home))
        }
        // Only native files are read at these origins: no foreign hook comes from them.
        Origin::Extension | Origin::Managed => Err(ImportError::NotForeign),
    }
}

fn plan_target(
    layout: &Layout,
    workspace: &Path,
    origin: Origin,
    decls: &[&HookDecl],
    format: Format,
) -> Result<ImportTarget, ImportError> {
    let (path, root) = native_file(layout, workspace, origin)?;
    let cx = FileContext { origin, workspace, root: &root, source_id: None };
    let what = if origin == Origin::User { "the config home" } else { "the workspace" };
    let confine = Confine::new(&root, what);
    let original = confine.read(&path)?;
    let before = parse_str(original.as_deref().unwrap_or(""), &path, Format::Native, &cx);

    let existing: HashMap<&str, &HookDecl> = before.hooks.iter().map(|h| (h.id.as_str(), h)).collect();
    // id → position in `hooks`: a file of thousands of hooks is planned in linear time.
    let mut planned_ids: HashMap<String, usize> = HashMap::new();
    let mut hooks: Vec<ImportedHook> = Vec::new();
    let mut forms = Vec::new();
    for decl in decls {
        let conflict =
            || ImportError::Conflict { path: path.clone(), id: decl.id.clone(), source_file: decl.source.clone() };
        let existing = existing.get(decl.id.as_str());
        if existing.is_some_and(|h| h.hash != decl.hash) {
            return Err(conflict());
        }
        if let Some(earlier) = planned_ids.get(&decl.id).map(|&i| &hooks[i]) {
            // The same hook declared in two files of the format (Codex's hooks.json and config.toml): once is enough.
            if earlier.decl.hash != decl.hash {
                return Err(conflict());
            }
            continue;
        }
        let already_there = existing.is_some();
        if !already_there {
            forms.push(native_form(decl));
        }
        planned_ids.insert(decl.id.clone(), hooks.len());
        hooks.push(ImportedHook {
            decl: (*decl).clone(),
            from: decl.source.clone(),
            from_index: decl.index,
            already_there,
        });
    }
    if forms.is_empty() {
        return Ok(ImportTarget { origin, path, hooks, block: String::new(), original, planned: None, confine });
    }

    let text = original.clone().unwrap_or_default();
    let at = insertion(&text).map_err(|message| InstallError::Unsupported { path: path.clone(), message })?;
    let from: Vec<String> = {
        let mut files: Vec<String> = Vec::new();
        for hook in hooks.iter().filter(|h| !h.already_there) {
            let shown = hook.from.strip_prefix(workspace).unwrap_or(&hook.from).display().to_string();
            if !files.contains(&shown) {
                files.push(shown);
            }
        }
        files
    };
    let header = format!("imported from {} by `hook import --from {format}`", from.join(", "));
    let footer = format!("end of the hooks imported by `hook import --from {format}`");
    let block = yaml_block(&forms, &at.indent, &header, &footer);
    let planned = format!("{}{}{block}{}", &text[..at.at], at.before, &text[at.at..]);
    let after = parse_str(&planned, &path, Format::Native, &cx);
    verify(&path, &before, &after, &mut hooks)?;
    Ok(ImportTarget { origin, path, hooks, block, original, planned: Some(planned), confine })
}

/// The planned native file must hold what it held before, plus each imported hook with the same id, hash and
/// program, and no new error. The imported declarations become the ones loaded from there.
fn verify(path: &Path, before: &FileLoad, after: &FileLoad, hooks: &mut [ImportedHook]) -> Result<(), ImportError> {
    let fail = |message: String| Err(ImportError::Verify { path: path.to_path_buf(), message });
    let errors = |load: &FileLoad| -> Vec<String> {
        load.issues.iter().filter(|i| i.severity == IssueSeverity::Error).map(|i| i.message.clone()).collect()
    };
    let known = errors(before);
    if let Some(new) = errors(after).into_iter().find(|e| !known.contains(e)) {
        return fail(new);
    }
    let by_id: HashMap<&str, &HookDecl> = after.hooks.iter().map(|h| (h.id.as_str(), h)).collect();
    if let Some(old) = before.hooks.iter().find(|old| by_id.get(old.id.as_str()).is_none_or(|h| h.hash != old.hash)) {
        return fail(format!("the hook `{}` already there would change", old.id));
    }
    for hook in hooks.iter_mut() {
        let Some(&loaded) = by_id.get(hook.decl.id.as_str()) else {
            return fail(format!("the imported hook `{}` is missing", hook.decl.id));
        };
        if loaded.hash != hook.decl.hash {
            return fail(format!(
                "the imported hook `{}` hashes {} instead of {}",
                hook.decl.id, loaded.hash, hook.decl.hash
            ));
        }
        if program(loaded) != program(&hook.decl) {
            return fail(format!(
                "the imported hook `{}` would run another program: its relative path resolves against another directory \
                 here (write it as an absolute path in `{}`)",
                hook.decl.id,
                hook.from.display()
            ));
        }
        hook.decl = loaded.clone();
    }
    Ok(())
}

/// The program an argv hook runs, resolved; `None` for a shell command or a program looked up on `PATH`.
fn program(decl: &HookDecl) -> Option<PathBuf> {
    match &decl.spec {
        HookSpec::Command(c) if matches!(c.program, Program::Argv(_)) => c.resolved_program.clone(),
        _ => None,
    }
}

impl ImportPlan {
    /// Every imported hook, in precedence order.
    pub fn hooks(&self) -> impl Iterator<Item = &ImportedHook> {
        self.targets.iter().flat_map(|t| t.hooks.iter())
    }

    /// Whether the format's files have error-level issues (some hook of theirs was not read).
    pub fn has_errors(&self) -> bool {
        self.issues.iter().any(|i| i.severity == IssueSeverity::Error)
    }

    /// Whether writing would change nothing: no hook, or every hook already imported.
    pub fn is_empty(&self) -> bool {
        self.targets.iter().all(|t| t.planned.is_none())
    }

    /// Writes each native file that gains hooks, atomically, and returns them. Refuses while the format's files have
    /// error-level issues (their unread hooks would be lost once the files are removed), and when a native file
    /// changed since the plan was made.
    pub fn write(&self) -> Result<Vec<PathBuf>, ImportError> {
        let errors = self.issues.iter().filter(|i| i.severity == IssueSeverity::Error).count();
        if errors > 0 {
            return Err(ImportError::SourceErrors { format: self.format, count: errors });
        }
        for target in &self.targets {
            if target.confine.read(&target.path)? != target.original {
                return Err(ImportError::Changed { path: target.path.clone() });
            }
        }
        let mut written = Vec::new();
        for target in &self.targets {
            if let Some(text) = &target.planned {
                let real = target.confine.resolve(&target.path)?;
                replace(&target.path, &real, target.original.as_deref(), text).map_err(|err| match err {
                    InstallError::Changed { path } => ImportError::Changed { path },
                    other => other.into(),
                })?;
                written.push(target.path.clone());
            }
        }
        Ok(written)
    }
}
