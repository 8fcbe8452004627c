//! `kind: command` (docs/declarations.md): one of argv, shell and powershell, the program's origin-relative resolution, a confined `cwd`, the
//! timeout as declared, `as` and `env`.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use hook_types::{Event, Limits, Protocol};
use serde_json::Value;

use super::fields::HookReader;
use super::{NormalizeCx, program};
use crate::formats::WireField;
use crate::issues::describe;
use crate::model::{AsMode, CommandSpec, Program};
use crate::parse::Target;

pub(super) fn read(
    hook: &mut HookReader<'_, '_>,
    event: Option<&Event>,
    protocol: Protocol,
    cx: &NormalizeCx<'_>,
) -> Option<CommandSpec> {
    let program = read_program(hook);
    let (cwd, resolved_cwd) = read_cwd(hook, cx);
    let timeout_ms = read_timeout(hook, protocol);
    let as_mode = match hook.choice("as", &["annotate", "reminder"]) {
        Some(("annotate", _)) => AsMode::Annotate,
        Some(_) => AsMode::Reminder,
        None => event.map_or(AsMode::Reminder, AsMode::default_for),
    };
    let env = read_env(hook);
    let (program, field) = program?;
    let resolved_program = match &program {
        Program::Argv(argv) => resolve_program(hook, &argv[0], &field, env.as_ref(), protocol, cx),
        Program::Shell(command) => {
            check_shell_program(hook, command, &field, resolved_cwd.as_deref(), env.as_ref(), protocol, cx);
            None
        }
        Program::PowerShell(_) => {
            check_powershell(hook, &field, env.as_ref(), cx);
            None
        }
    };
    Some(CommandSpec {
        program,
        cwd,
        resolved_cwd: resolved_cwd?,
        resolved_program,
        timeout_ms: timeout_ms?,
        as_mode,
        env: env?,
    })
}

fn read_program(hook: &mut HookReader<'_, '_>) -> Option<(Program, WireField)> {
    let argv = hook.take("argv");
    let shell = hook.take("shell");
    let powershell = hook.take("powershell");
    let set: Vec<&str> = [("argv", &argv), ("shell", &shell), ("powershell", &powershell)]
        .into_iter()
        .filter_map(|(key, field)| field.as_ref().map(|_| key))
        .collect();
    if set.len() > 1 {
        let second = [&shell, &powershell].into_iter().flatten().last();
        hook.error(
            second,
            format!(
                "`{}` are {} set; a command hook has exactly one of `argv`, `shell` and `powershell`",
                set.join("` and `"),
                if set.len() == 2 { "both" } else { "all" }
            ),
        );
        return None;
    }
    match (argv, shell, powershell) {
        (Some(field), _, _) => read_argv(hook, field),
        (_, Some(field), _) => read_line(hook, field, "`sh -c`").map(|(line, f)| (Program::Shell(line), f)),
        (_, _, Some(field)) => read_line(hook, field, "PowerShell").map(|(line, f)| (Program::PowerShell(line), f)),
        (None, None, None) => {
            let message = "a command hook needs `argv` (a list: program and arguments), `shell` (a string run by \
                           `sh -c`) or `powershell` (a string run by PowerShell)";
            if hook.likely_meant("powershell") {
                hook.missing("powershell", message);
            } else if hook.likely_meant("shell") {
                hook.missing("shell", message);
            } else {
                hook.missing("argv", message);
            }
            None
        }
    }
}

/// `argv`: a non-empty list of strings whose first is not blank.
fn read_argv(hook: &mut HookReader<'_, '_>, mut field: WireField) -> Option<(Program, WireField)> {
    let Value::Array(items) = &mut field.value else {
        hook.wrong_type(&field, "a list (the program and its arguments)");
        return None;
    };
    if items.is_empty() {
        hook.error(
            Some(&field),
            "`argv` is empty; expected the program and its arguments, e.g. `[./scripts/check.sh, --fast]`",
        );
        return None;
    }
    // Moved out, not cloned: issues about `argv` from here on need only its key and node.
    let items = std::mem::take(items);
    let count = items.len();
    let mut argv = Vec::with_capacity(count);
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::String(s) => argv.push(s),
            other => {
                let quote = if matches!(other, Value::Number(_) | Value::Bool(_)) { " (quote it)" } else { "" };
                let place = hook.place_within(&field, &format!("[{i}]"), field.node.index(i), Target::Node);
                hook.error_at(place, format!("expected a string, found {}{quote}", describe(&other)));
            }
        }
    }
    if argv.len() != count {
        return None;
    }
    if argv[0].trim().is_empty() {
        let place = hook.place_within(&field, "[0]", field.node.index(0), Target::Node);
        hook.error_at(place, "the program (the first element of `argv`) is empty");
        return None;
    }
    Some((Program::Argv(argv), field))
}

/// `shell` or `powershell`: a command line that is not blank, for `runner`.
fn read_line(hook: &mut HookReader<'_, '_>, mut field: WireField, runner: &str) -> Option<(String, WireField)> {
    match &mut field.value {
        Value::String(s) if !s.trim().is_empty() => Some((std::mem::take(s), field)),
        Value::String(_) => {
            let key = &field.key;
            hook.error(Some(&field), format!("`{key}` is empty; expected a command line for {runner}"));
            None
        }
        _ => {
            hook.wrong_type(&field, &format!("a string (a command line for {runner})"));
            None
        }
    }
}

/// A program path with a `/` that is relative resolves against the origin root (docs/declarations.md); a bare name is looked
/// up on `PATH` at run time and an absolute path stays as it is, so neither has a resolved form. Each is checked
/// (see [`super::program`]).
fn resolve_program(
    hook: &mut HookReader<'_, '_>,
    program: &str,
    argv: &WireField,
    env: Option<&BTreeMap<String, String>>,
    protocol: Protocol,
    cx: &NormalizeCx<'_>,
) -> Option<PathBuf> {
    // Built only for an issue: most programs have none.
    let place = |hook: &HookReader<'_, '_>| hook.place_within(argv, "[0]", argv.node.index(0), Target::Node);
    let path = Path::new(program);
    if cx.format != Protocol::Native {
        // An agent's own file: that agent loads the hook whatever its program, and runs it in its own environment.
        return (program.contains('/') && !path.is_absolute()).then(|| lexical_join(cx.root, path));
    }
    if !program.contains('/') {
        let place = place(hook);
        check_on_path(hook, program, place, env, cx);
        return None;
    }
    let resolved = if path.is_absolute() { path.to_path_buf() } else { lexical_join(cx.root, path) };
    if let Some(problem) = program::problem(program, &resolved, &cx.program_state(&resolved)) {
        let place = place(hook);
        report_program(hook, place, problem, protocol);
    }
    (!path.is_absolute()).then_some(resolved)
}

/// The first word of a `shell` command, where it can be told (see [`program::shell_program`]): a path must be an
/// executable file (relative to the hook's `cwd`, where `sh -c` runs), a bare name must be found on `PATH`.
fn check_shell_program(
    hook: &mut HookReader<'_, '_>,
    command: &str,
    shell: &WireField,
    cwd: Option<&Path>,
    env: Option<&BTreeMap<String, String>>,
    protocol: Protocol,
    cx: &NormalizeCx<'_>,
) {
    if cx.format != Protocol::Native {
        return;
    }
    let Some(word) = program::shell_program(command, &cx.workspace) else { return };
    let place = hook.place(Some(shell), Target::Node);
    if !word.contains('/') {
        check_on_path(hook, &word, place, env, cx);
        return;
    }
    // No usable `cwd` (reported already): nothing to resolve a relative word against.
    let Some(resolved) = (if Path::new(&word).is_absolute() {
        Some(PathBuf::from(&word))
    } else {
        cwd.map(|cwd| program::against(cwd, &word))
    }) else {
        return;
    };
    if let Some(problem) = program::problem(&word, &resolved, &cx.program_state(&resolved)) {
        report_program(hook, place, problem, protocol);
    }
}

/// A program that cannot run: an error (the hook is dropped); a warning for a disabled hook, which never runs, and
/// for a hook of an agent's protocol (moved here by `hook install` or `hook import`), which that agent loads anyway.
fn report_program(hook: &mut HookReader<'_, '_>, place: crate::issues::Place, problem: String, protocol: Protocol) {
    if hook.disabled {
        hook.warn_at(place, format!("{problem}; the hook is disabled, so it fails only once it is enabled"));
    } else if protocol != Protocol::Native {
        let agent = protocol.agent().name;
        hook.warn_at(place, format!("{problem}; it follows {agent}'s rules, and {agent} loads it and lets it fail"));
    } else {
        hook.error_at(place, problem);
    }
}

/// A bare program name not found on `PATH` is a warning: the host's `PATH` may differ from this one.
fn check_on_path(
    hook: &mut HookReader<'_, '_>,
    name: &str,
    place: crate::issues::Place,
    env: Option<&BTreeMap<String, String>>,
    cx: &NormalizeCx<'_>,
) {
    let empty = BTreeMap::new();
    if program::on_path(name, env.unwrap_or(&empty), cx) == Some(false) {
        hook.warn_at(
            place,
            format!(
                "the program `{name}` is not found on PATH; the hook fails when it runs unless the host's PATH has it"
            ),
        );
    }
}

/// A `powershell` hook of the engine's own files on a machine whose `PATH` has no PowerShell (`pwsh`, and on Windows
/// also `powershell`): warned at load, since every run of it fails to start (which denies on a gate).
fn check_powershell(
    hook: &mut HookReader<'_, '_>,
    field: &WireField,
    env: Option<&BTreeMap<String, String>>,
    cx: &NormalizeCx<'_>,
) {
    if cx.format != Protocol::Native {
        return;
    }
    let empty = BTreeMap::new();
    let env = env.unwrap_or(&empty);
    let names: &[&str] = if cfg!(windows) { &["pwsh", "powershell"] } else { &["pwsh"] };
    if names.iter().all(|name| program::on_path(name, env, cx) == Some(false)) {
        let place = hook.place(Some(field), Target::Node);
        hook.warn_at(
            place,
            format!(
                "PowerShell (`{}`) is not found on PATH; every run of this hook fails to start, which denies on a \
                 gate, unless the host's PATH has it",
                names.join("` or `")
            ),
        );
    }
}

/// `cwd` as written (`"."` by default) and resolved: symlinks followed, confined to the workspace.
fn read_cwd(hook: &mut HookReader<'_, '_>, cx: &NormalizeCx<'_>) -> (String, Option<PathBuf>) {
    let Some((cwd, field)) = hook.string("cwd") else {
        // Absent (or of the wrong type, reported): the workspace root itself, which needs no checking.
        return (".".to_owned(), Some(cx.workspace.clone()));
    };
    if cwd.trim().is_empty() {
        hook.error(
            Some(&field),
            "`cwd` is empty; omit it for the workspace root or write a workspace-relative directory",
        );
        return (cwd, None);
    }
    if cx.format == Protocol::Clio
        && let Some(joined) = clio_missing_cwd(&cwd, cx)
    {
        hook.warn(
            Some(&field),
            format!(
                "the directory `{cwd}` does not exist (resolved to `{}`); clio-coder loads this hook anyway, and it \
                 fails each time it runs",
                joined.display()
            ),
        );
        return (cwd, Some(joined));
    }
    match cx.cwd(&cwd, |cwd| resolve_cwd(cwd, &cx.workspace)) {
        Ok(resolved) => (cwd, Some(resolved)),
        Err(message) => {
            hook.error(Some(&field), message);
            (cwd, None)
        }
    }
}

/// A `cwd` that does not exist but lies inside the workspace as written: clio-coder checks it only lexically, so it
/// loads there (and its command fails to start when it runs). The pipeline checks it again before every run.
fn clio_missing_cwd(cwd: &str, cx: &NormalizeCx<'_>) -> Option<PathBuf> {
    let joined = lexical_join(&cx.workspace, Path::new(cwd));
    (joined.starts_with(&cx.workspace) && !cx.memo.exists(&joined)).then_some(joined)
}

/// A non-empty `cwd` resolved against the (canonical) workspace, symlinks followed; or why it cannot be used: it does
/// not exist, leads outside the workspace, or is not a directory.
pub(super) fn resolve_cwd(cwd: &str, workspace: &Path) -> Result<PathBuf, String> {
    let joined = lexical_join(workspace, Path::new(cwd));
    let resolved = match crate::canonicalize(&joined) {
        Ok(resolved) => resolved,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(format!("the directory `{cwd}` does not exist (resolved to `{}`)", joined.display()));
        }
        Err(err) => return Err(format!("cannot resolve `{cwd}` (`{}`): {err}", joined.display())),
    };
    if !resolved.starts_with(workspace) {
        let how = if joined.starts_with(workspace) { " through a symlink" } else { "" };
        return Err(format!(
            "`{cwd}` leads outside the workspace{how} (to `{}`); a hook's cwd must stay inside `{}`",
            resolved.display(),
            workspace.display()
        ));
    }
    if !resolved.is_dir() {
        return Err(format!("`{cwd}` is not a directory (resolved to `{}`)", resolved.display()));
    }
    Ok(resolved)
}

/// The timeout as declared (or the protocol's default). A protocol with its own bounds (clio-coder: 100 … 5 000 ms)
/// clamps here, because that clamp is part of what the declaration means in that agent; the host's [`Limits`] clamp
/// at run time and are only reported now.
pub(super) fn read_timeout(hook: &mut HookReader<'_, '_>, protocol: Protocol) -> Option<u64> {
    let Some(field) = hook.take("timeout_ms") else {
        return Some(protocol.default_timeout_ms());
    };
    let Some(mut timeout) = field.value.as_u64().or_else(|| clio_timeout(hook, &field, protocol)) else {
        let message = match &field.value {
            Value::Number(n) if n.is_i64() => {
                "expected a positive whole number of milliseconds, found a negative number".to_owned()
            }
            other => format!("expected a whole number of milliseconds, found {}", describe(other)),
        };
        hook.error(Some(&field), message);
        return None;
    };
    if let Some((min, max)) = protocol.timeout_bounds_ms() {
        let clamped = timeout.clamp(min, max);
        if clamped != timeout {
            hook.warn(
                Some(&field),
                format!(
                    "{timeout} ms is outside the {protocol} protocol's bounds ({min} … {max} ms); using {clamped} ms"
                ),
            );
            timeout = clamped;
        }
    }
    let limits = Limits::default();
    let (run_with, clamped) = limits.clamp_timeout_ms(timeout);
    if clamped {
        hook.warn(
            Some(&field),
            format!(
                "{timeout} ms is outside the default host limits ({} … {} ms); the hook will run with {run_with} ms",
                limits.timeout_min_ms, limits.timeout_max_ms
            ),
        );
    }
    Some(timeout)
}

/// clio-coder reads any finite number of milliseconds, floored and clamped to its bounds (`Math.floor`, then
/// 100 … 5 000): a fraction or a negative number loads there, so it loads here, with a warning.
fn clio_timeout(hook: &mut HookReader<'_, '_>, field: &WireField, protocol: Protocol) -> Option<u64> {
    let (min, max) = protocol.timeout_bounds_ms().filter(|_| protocol == Protocol::Clio)?;
    let written = field.value.as_f64().filter(|ms| ms.is_finite())?;
    // Within the bounds once clamped, so the conversion is exact.
    let timeout = written.floor().clamp(min as f64, max as f64) as u64;
    hook.warn(
        Some(field),
        format!("{written} is not a whole number of milliseconds; clio-coder floors and clamps it: using {timeout} ms"),
    );
    Some(timeout)
}

fn read_env(hook: &mut HookReader<'_, '_>) -> Option<BTreeMap<String, String>> {
    let Some(mut field) = hook.take("env") else {
        return Some(BTreeMap::new());
    };
    let Value::Object(object) = &mut field.value else {
        hook.wrong_type(&field, "a mapping of variable names to strings");
        return None;
    };
    // Moved out, not cloned: issues about `env` from here on need only its key and node.
    let object = std::mem::take(object);
    let mut env = BTreeMap::new();
    let mut ok = true;
    for (name, value) in object {
        let place = || (format!(".{name}"), field.node.key(&name));
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            let (suffix, node) = place();
            let place = hook.place_within(&field, &suffix, node, Target::Key);
            hook.error_at(place, format!("`{name}` is not a valid variable name (it must be non-empty, without `=`)"));
            ok = false;
            continue;
        }
        match value {
            Value::String(s) if !s.contains('\0') => {
                env.insert(name, s);
            }
            other => {
                let quote = if matches!(other, Value::Number(_) | Value::Bool(_)) { " (quote it)" } else { "" };
                let (suffix, node) = place();
                let place = hook.place_within(&field, &suffix, node, Target::Node);
                hook.error_at(place, format!("expected a string, found {}{quote}", describe(&other)));
                ok = false;
            }
        }
    }
    ok.then_some(env)
}

/// `base` joined with `path`, with `.` and `..` applied lexically (no filesystem access): `..` never climbs above
/// the root of `base`.
pub(crate) fn lexical_join(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
