//! Ground truth by execution: each line of a table is run in real bash inside a sandbox (bubblewrap: read-only
//! root, a throw-away home and workspace, no network), every `execve` is traced with strace, and what bash really
//! ran is compared with what the shipped guards (`examples/guards/.hooks/hooks.yaml`, read as the loader reads
//! their `command:` matchers) say of the line as written.
//!
//! Oracle: each traced exec is quoted back into a literal line (the sandbox's home written `~`, its workspace `.`;
//! files bash opened for the command's redirections appended as its arguments) and tested by the guard; a
//! downloader exec followed by a shell exec is tested as `downloader | shell`. A line *misses* when some traced exec
//! matches a guard and the guard says No of the original line (Yes and Unknown are both fine). Misses known today
//! are listed in `differential/known_misses.txt`: a miss not on it fails, and so does a listed line that no longer
//! misses. Lines the guard denies while bash ran nothing guarded are printed as false positives.
//!
//! The table is `differential/table.txt` (hand-written) plus [`generated`] (actions × spellings).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hook_config::{CommandMatcher, OnUnknown};
use hook_shell::Match;
use serde_json::{Value, json};

const HOME: &str = "/home/u";
const WORKSPACE: &str = "/home/u/ws";
const PER_LINE: &str = "8";
const TOTAL: Duration = Duration::from_secs(300);

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/differential")
}

/// The guards with a `command:` matcher: (id, matcher), from the shipped file.
fn guards() -> Vec<(String, CommandMatcher)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/guards/.hooks/hooks.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let file: Value = serde_norway::from_str(&text).unwrap();
    let mut out = Vec::new();
    for hook in file["hooks"].as_array().unwrap() {
        if let Some(command) = hook.get("command") {
            let on_unknown = match hook.get("on_unknown").and_then(Value::as_str) {
                Some("pass") => OnUnknown::Pass,
                Some("ask") => OnUnknown::Ask,
                _ => OnUnknown::Deny,
            };
            let matcher = CommandMatcher::from_value(command, on_unknown)
                .unwrap_or_else(|e| panic!("{}: hook {}: command{}: {}", path.display(), hook["id"], e.at, e.message));
            out.push((hook["id"].as_str().unwrap().to_owned(), matcher));
        }
    }
    assert!(!out.is_empty(), "{}: no hook with a `command:` matcher", path.display());
    out
}

fn test_line(matcher: &CommandMatcher, line: &str) -> Match {
    matcher.test(&hook_config::shell_analysis(Some(&json!({ "command": line }))).unwrap())
}

/// Actions a guard exists for, as (program, arguments), each spelled many ways by [`spellings`].
const ACTIONS: &[&[&str]] = &[
    &["rm", "-rf", "~"],
    &["rm", "-rf", "/"],
    &["rm", "-rf", "."],
    &["git", "push", "--force"],
    &["git", "push", "origin", "+main"],
    &["git", "reset", "--hard"],
    &["cat", ".env"],
    &["head", ".env"],
    &["cp", ".env", "/tmp/e"],
    &["rm", "-r", "ws"],
    &["git", "status"],
    &["ls", "-a"],
];

fn q(word: &str) -> String {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./+=:,@%".contains(&b)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The generated part of the table: every action under every spelling of its program, its arguments and its
/// wrapper.
fn generated() -> Vec<String> {
    let mut lines = Vec::new();
    for action in ACTIONS {
        let (program, args) = (action[0], &action[1..]);
        let rest = args.join(" ");
        let plain = action.join(" ");
        let quoted = format!("'{}'", plain.replace('\'', r"'\''"));
        let hex: String = program.bytes().map(|b| format!("\\x{b:02x}")).collect();
        let (first, tail) = program.split_at(1);
        let mut forms = vec![
            plain.clone(),
            format!("$(command -v {program}) {rest}"),
            format!("\\{program} {rest}"),
            format!("{first}\"\"{tail} {rest}"),
            format!("'{program}' {rest}"),
            format!("$'{hex}' {rest}"),
            format!("env {plain}"),
            format!("env X=1 {plain}"),
            format!("nice {plain}"),
            format!("nice -n 5 {plain}"),
            format!("timeout 5 {plain}"),
            format!("nohup {plain} >/dev/null"),
            format!("command {plain}"),
            format!("exec {plain}"),
            format!("time {plain}"),
            format!("echo {rest} | xargs {program}"),
            format!("find . -maxdepth 0 -exec {plain} \\;"),
            format!("bash -c {quoted}"),
            format!("sh -c {quoted}"),
            format!("bash -c \"bash -c {quoted}\""),
            format!("bash -s <<< {quoted}"),
            format!("sh <<'EOF'\n{plain}\nEOF"),
            format!("echo {quoted} | sh"),
            format!("bash /dev/stdin <<< {quoted}"),
            format!("eval {quoted}"),
            format!("eval \"$(echo {quoted})\""),
            format!("echo $({plain})"),
            format!("x=`{plain}`"),
            format!("X={program}; $X {rest}"),
            format!("X={program} && \"$X\" {rest}"),
            format!("A=({plain}); \"${{A[@]}}\""),
            format!("f() {{ {plain}; }}; f"),
            format!("f() {{ \"$@\"; }}; f {plain}"),
            format!("shopt -s expand_aliases\nalias x='{plain}'\nx"),
            format!("trap {quoted} EXIT"),
            format!("true && {plain}"),
            format!("false || {plain}"),
            format!("( {plain} )"),
            format!("{{ {plain}; }}"),
            format!("if true; then {plain}; fi"),
            format!("for i in 1; do {plain}; done"),
            format!(": \"${{x:-$({plain})}}\""),
            format!("a[$({plain})]=1"),
            format!("echo $(( $({plain} >/dev/null; echo 1) ))"),
            format!("cat <({plain})"),
            format!("{plain} | cat"),
            format!("hash -p /usr/bin/{program} zz 2>/dev/null; zz {rest}"),
        ];
        if !rest.contains(' ') {
            forms.push(format!("{{{program},{rest}}}"));
        } else {
            forms.push(format!("{{{program},{}}}", args.join(",")));
        }
        lines.extend(forms);
    }
    for arg in ["\"$HOME\"", "\"${HOME}\"", "\"${HOME%/}\"", "~+", "\"$PWD\"", "\"$(pwd)\"", "~/", "\"$HOME/\"", "~-"] {
        lines.push(format!("rm -rf {arg}"));
        lines.push(format!("cd ~/ws && rm -rf {arg}"));
    }
    for (k, v) in [("alias.p", "push -f"), ("alias.p", "!git push --force"), ("remote.origin.push", "+refs/heads/*")] {
        lines.push(format!("git -c {k}={} p", q(v)));
        lines.push(format!("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0={k} GIT_CONFIG_VALUE_0={} git p", q(v)));
        lines.push(format!("GIT_CONFIG_PARAMETERS=\"'{k}'='{v}'\" git p"));
    }
    lines
}

struct Sandbox {
    template: PathBuf,
    _dir: tempfile::TempDir,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A home with a fake `.env`, an ssh key and a git repository whose remote is a local bare repository, so that
/// `git push` really runs.
fn sandbox() -> Sandbox {
    for tool in ["bwrap", "strace"] {
        let found = Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
        assert!(
            found.is_ok_and(|s| s.success()),
            "the differential test needs `{tool}` (apt-get install bubblewrap strace; .ci/setup installs both)"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("template/u");
    let ws = home.join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".env"), "TOKEN=home\n").unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "key\n").unwrap();
    std::fs::write(ws.join(".env"), "TOKEN=ws\n").unwrap();
    std::fs::write(ws.join("README"), "x\n").unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() {}\n").unwrap();
    let git = |args: &[&str]| {
        run(Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&ws))
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "init"]);
    git(&["clone", "-q", "--bare", ".", "../remote.git"]);
    git(&["remote", "add", "origin", &format!("{HOME}/remote.git")]);
    git(&["config", "user.name", "t"]);
    git(&["config", "user.email", "t@t"]);
    git(&["config", "push.default", "current"]);
    // Probe: the sandbox starts here.
    let probe = trace(&Sandbox { template: dir.path().join("template"), _dir: tempfile::tempdir().unwrap() }, "true");
    assert!(
        probe.is_ok(),
        "the differential test's sandbox (bubblewrap with user, network and pid namespaces) does not start on this \
         machine: {}",
        probe.err().unwrap_or_default()
    );
    Sandbox { template: dir.path().join("template"), _dir: dir }
}

/// Runs `line` in the sandbox under strace; returns each traced exec as a literal line.
fn trace(sandbox: &Sandbox, line: &str) -> Result<Vec<String>, String> {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    run(Command::new("cp").arg("-a").arg(&sandbox.template).arg(&home));
    let traces = work.path().join("trace");
    std::fs::create_dir(&traces).unwrap();
    let out = Command::new("timeout")
        .args(["-k", "2", PER_LINE, "strace", "--seccomp-bpf", "-f", "-ff", "-qq", "-xx", "-v", "-s", "65536"])
        .args(["-e", "trace=execve,open,openat", "-e", "signal=none", "-o"])
        .arg(traces.join("t"))
        .args(["bwrap", "--ro-bind", "/", "/", "--bind"])
        .arg(&home)
        .args(["/home", "--tmpfs", "/tmp", "--tmpfs", "/work", "--tmpfs", "/root", "--proc", "/proc"])
        .args(["--dev", "/dev", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"])
        .args(["--setenv", "HOME", HOME, "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "PWD"])
        .args([WORKSPACE, "--chdir", WORKSPACE, "--", "/bin/bash", "-c", line])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    if out.status.code() == Some(124) || out.status.code() == Some(137) {
        return Err(format!("timed out after {PER_LINE} s"));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("bwrap:") {
        return Err(stderr.into_owned());
    }
    let harness = vec!["/bin/bash".to_owned(), "-c".to_owned(), line.to_owned()];
    let mut commands = Vec::new();
    for entry in std::fs::read_dir(&traces).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        commands.extend(pid_commands(&text, &harness));
    }
    Ok(commands)
}

/// The commands one traced process ran: each successful exec with the files opened since (its redirections) as
/// arguments; a shell's own opens as `open PATH`.
fn pid_commands(text: &str, harness: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut image: Option<String> = None;
    let mut skip = false;
    for l in text.lines() {
        let Some(result) = l.rsplit_once(" = ").map(|(_, r)| r.trim()) else { continue };
        let ok = result.split_whitespace().next().is_some_and(|r| r.parse::<i64>().is_ok_and(|n| n >= 0));
        if l.starts_with("execve(") {
            if !ok {
                continue;
            }
            let strings = strings(l);
            let argv = bracket_strings(l);
            let file = strings.first().cloned().unwrap_or_default();
            skip = file.ends_with("/bwrap") || argv.as_slice() == harness;
            if !skip {
                let mut words = vec![file.clone()];
                words.extend(argv.into_iter().skip(1));
                words.append(&mut pending);
                out.push(literal(&words));
            }
            pending.clear();
            image = Some(file);
        } else if ok && !skip {
            let Some(path) = strings(l).into_iter().next() else { continue };
            let shell =
                image.as_deref().is_none_or(|i| ["bash", "sh", "dash"].iter().any(|s| i.ends_with(&format!("/{s}"))));
            if shell && !path.starts_with("/usr/lib/") && !path.starts_with("/etc/") && !path.starts_with("/lib") {
                if image.is_none() {
                    pending.push(path);
                } else {
                    out.push(literal(&["open".to_owned(), path]));
                }
            }
        } else if ok && skip && image.as_deref().is_some_and(|i| i == "/bin/bash") {
            // The harness bash's own opens (a builtin's redirection).
            let Some(path) = strings(l).into_iter().next() else { continue };
            if !path.starts_with("/usr/lib/") && !path.starts_with("/etc/") && !path.starts_with("/lib") {
                out.push(literal(&["open".to_owned(), path]));
            }
        }
    }
    out.extend(pending.into_iter().map(|p| literal(&["open".to_owned(), p])));
    out
}

/// The sandbox's home as `~`, its workspace as `.`, every word single-quoted where it needs it.
fn literal(words: &[String]) -> String {
    let norm = |w: &str| -> String {
        if w == WORKSPACE || w == format!("{WORKSPACE}/") {
            ".".to_owned()
        } else if let Some(rest) = w.strip_prefix(&format!("{WORKSPACE}/")) {
            format!("./{rest}")
        } else if w == HOME || w == format!("{HOME}/") {
            "~".to_owned()
        } else if let Some(rest) = w.strip_prefix(&format!("{HOME}/")) {
            format!("~/{rest}")
        } else {
            w.to_owned()
        }
    };
    words
        .iter()
        .map(|w| {
            let w = norm(w);
            if w == "~" || w.starts_with("~/") { format!("~{}", q(&w[1..]).replace("''", "")) } else { q(&w) }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `"\x.."` strings of a strace line, decoded.
fn strings(l: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = l;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('"') else { break };
        let bytes: Vec<u8> = after[..end]
            .split("\\x")
            .filter(|h| !h.is_empty())
            .filter_map(|h| u8::from_str_radix(&h[..2.min(h.len())], 16).ok())
            .collect();
        out.push(String::from_utf8_lossy(&bytes).into_owned());
        rest = &after[end + 1..];
    }
    out
}

fn bracket_strings(l: &str) -> Vec<String> {
    let Some(open) = l.find('[') else { return Vec::new() };
    let Some(close) = l[open..].find(']') else { return Vec::new() };
    strings(&l[open..open + close])
}

#[test]
fn bash_runs_nothing_a_guard_missed() {
    let started = Instant::now();
    let guards = guards();
    let table = std::fs::read_to_string(here().join("table.txt")).unwrap();
    let hand: Vec<String> =
        table.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_owned).collect();
    let mut lines = generated();
    let generated_count = lines.len();
    lines.extend(hand.iter().cloned());
    let lines: Vec<String> = lines.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
    assert!(
        lines.len() >= 500,
        "the differential table has {} distinct lines; it should have at least 500",
        lines.len()
    );
    let sandbox = sandbox();
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<String, Result<Vec<String>, String>>> = Mutex::default();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4) * 2;
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= lines.len() || started.elapsed() > TOTAL {
                        break;
                    }
                    let traced = trace(&sandbox, &lines[i]);
                    results.lock().unwrap().insert(lines[i].clone(), traced);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    assert_eq!(results.len(), lines.len(), "the differential test ran out of its {} s budget", TOTAL.as_secs());
    let mut misses = BTreeSet::new();
    let mut false_positives = Vec::new();
    let mut failures = Vec::new();
    for (line, traced) in &results {
        let traced = match traced {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{line:?}: {e}"));
                continue;
            }
        };
        let mut literals = traced.clone();
        let downloads: Vec<&String> =
            traced.iter().filter(|t| ["curl", "wget"].iter().any(|d| t.contains(&format!("/{d} ")))).collect();
        for d in &downloads {
            for t in traced.iter().filter(|t| {
                ["/sh", "/bash", "/dash"].iter().any(|s| t.split(' ').next().is_some_and(|p| p.ends_with(s)))
            }) {
                literals.push(format!("{d} | {t}"));
            }
        }
        for (id, matcher) in &guards {
            let ran = literals.iter().find(|t| test_line(matcher, t) == Match::Yes);
            let said = test_line(matcher, line);
            match (ran, &said) {
                (Some(_), Match::No) => {
                    misses.insert(format!("{id}\t{}", line.replace('\n', "\\n")));
                }
                (None, Match::Yes) => false_positives.push(format!("{id}: {line:?}")),
                _ => {}
            }
        }
    }
    let known_path = here().join("known_misses.txt");
    if std::env::var_os("DIFFERENTIAL_BLESS").is_some() {
        let mut text = String::from(
            "# Lines of the differential table where bash ran what a guard matches and the guard said no match\n\
             # (guard id, a tab, the line with newlines as \\n). Remove a line once the parser catches it.\n",
        );
        misses.iter().for_each(|m| text.push_str(&format!("{m}\n")));
        std::fs::write(&known_path, text).unwrap();
    }
    let known: BTreeSet<String> = std::fs::read_to_string(&known_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    eprintln!(
        "differential: {} lines ({generated_count} generated, {} hand-written), {} misses ({} known), {} false \
         positives, {:.1} s",
        lines.len(),
        hand.len(),
        misses.len(),
        known.len(),
        false_positives.len(),
        started.elapsed().as_secs_f64()
    );
    for fp in &false_positives {
        eprintln!("false positive: {fp}");
    }
    let new: Vec<&String> = misses.difference(&known).collect();
    let fixed: Vec<&String> = known.difference(&misses).collect();
    assert!(failures.is_empty(), "lines that could not be run in the sandbox:\n{}", failures.join("\n"));
    assert!(
        new.is_empty() && fixed.is_empty(),
        "bash ran what a guard matches and the guard said no match (not in {}):\n{}\n\nlisted there but no longer \
         missed (remove them from the list):\n{}",
        known_path.display(),
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        fixed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
