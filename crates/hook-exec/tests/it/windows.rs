//! The guarantees on Windows, each run in a Job Object: a failed start is a spawn error (a missing PowerShell too, and
//! a verified program whose digest changed),
//! a hook that never reads its stdin still times out, a grandchild dies with the run (at the deadline, after the
//! grace, and when the host itself is killed), and a flood stays bounded.
//!
//! The processes are this test binary again, in a helper mode (the ignored test [`helper`], told what to be by
//! `HOOK_EXEC_HELPER`): Wine has no `sleep` or `yes`, and cmd's loops busy a core.
//!
//! Under Wine (CI): Job Objects, `TerminateJobObject` and the kill when the last job handle closes behave as on
//! Windows for these tests; what Wine does not model is a process outside the job holding a handle to the job, and
//! Ctrl-C events between consoles, which none of these tests needs.

use std::path::Path;
use std::time::{Duration, Instant};

use hook_exec::{Exit, Invocation, Program, RunOptions, SpawnError};
use hook_testkit::process::{eventually, is_dead, kill, read_pid};

const HELPER: &str = "HOOK_EXEC_HELPER";
const HELPER_FILE: &str = "HOOK_EXEC_HELPER_FILE";

/// An invocation of this binary as the helper `mode`, which writes a pid to `file` where it has one to tell.
fn helper_invocation(mode: &str, file: &Path) -> Invocation {
    let exe = std::env::current_exe().expect("the test binary's path");
    Invocation::argv([
        exe.into_os_string(),
        "windows::helper".into(),
        "--exact".into(),
        "--include-ignored".into(),
        "--nocapture".into(),
        "--test-threads".into(),
        "1".into(),
    ])
    .env(HELPER, mode)
    .env(HELPER_FILE, file)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

fn deadline(timeout: Duration) -> RunOptions {
    RunOptions { timeout, ..RunOptions::default() }
}

/// Waits until the helper has written the pid it tells.
fn wait_pid(file: &Path) -> i32 {
    assert!(eventually(Duration::from_secs(20), || read_pid(file).is_some()), "no pid in {}", file.display());
    read_pid(file).expect("pid")
}

/// Not a test: the helper processes the tests start (this binary again, on this test alone).
// The grandchild it starts is never waited for on purpose: the run's Job Object is what must end it.
#[allow(clippy::zombie_processes)]
#[test]
#[ignore = "a helper process the other tests start"]
fn helper() {
    let Some(mode) = std::env::var_os(HELPER) else { return };
    let file = std::env::var_os(HELPER_FILE).map(std::path::PathBuf::from).unwrap_or_default();
    match mode.to_str().unwrap_or_default() {
        // Never reads its stdin; outlives any deadline of these tests.
        "sleep" => std::thread::sleep(Duration::from_secs(120)),
        // A grandchild that inherits stdout, its pid told; then sleeps (or, `background`, exits at once).
        mode @ ("tree" | "background") => {
            let child = helper_invocation("sleep", Path::new(""));
            let Program::Argv(argv) = &child.program else { unreachable!() };
            let grandchild =
                std::process::Command::new(&argv[0]).args(&argv[1..]).env(HELPER, "sleep").spawn().expect("spawn");
            std::fs::write(&file, grandchild.id().to_string()).expect("pid file");
            if mode == "tree" {
                std::thread::sleep(Duration::from_secs(120));
            }
        }
        // 64 MiB to stdout.
        "flood" => {
            use std::io::Write;
            let chunk = vec![b'y'; 64 * 1024];
            let mut out = std::io::stdout().lock();
            for _ in 0..1024 {
                if out.write_all(&chunk).is_err() {
                    return;
                }
            }
        }
        // A host of its own: runs a `tree` helper and waits, to be killed by the test.
        "host" => {
            let inv = helper_invocation("tree", &file);
            rt().block_on(hook_exec::run(&inv, &deadline(Duration::from_secs(120))));
        }
        // Passes at once.
        "ok" => {}
        other => panic!("unknown helper mode {other}"),
    }
}

#[test]
fn cmd_runs_the_line_and_reports_its_exit_code() {
    let result = rt().block_on(hook_exec::run(&Invocation::shell("echo hello& exit 3"), &RunOptions::default()));
    assert_eq!(result.spawn_error, None);
    assert_eq!(result.stdout_lossy().trim_end(), "hello");
    assert_eq!(result.exit, Some(Exit::Code(3)));
    assert!(!result.success());
}

#[test]
fn a_missing_program_or_powershell_is_a_spawn_error_never_a_pass() {
    let empty = tempfile::tempdir().expect("tempdir");
    let missing = rt().block_on(hook_exec::run(&Invocation::argv(["no-such-hook-program"]), &RunOptions::default()));
    assert!(matches!(missing.spawn_error, Some(SpawnError::NotFound { .. })), "{missing:?}");
    assert!(!missing.success());
    let pwsh = Invocation::new(Program::PowerShell("exit 0".into())).env("PATH", empty.path());
    let result = rt().block_on(hook_exec::run(&pwsh, &RunOptions::default()));
    assert!(matches!(result.spawn_error, Some(SpawnError::NotFound { .. })), "{result:?}");
    assert!(!result.success());
}

#[test]
fn a_hook_that_never_reads_a_large_stdin_still_times_out() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let inv = helper_invocation("sleep", &scratch.path().join("none")).stdin(vec![b'x'; 16 << 20]);
    let start = Instant::now();
    let result = rt().block_on(hook_exec::run(&inv, &deadline(Duration::from_secs(2))));
    assert!(result.timed_out, "{result:?}");
    assert!(start.elapsed() < Duration::from_secs(10), "the deadline did not cover the stdin write");
    assert!(!result.success());
}

#[test]
fn a_grandchild_dies_with_the_run_at_the_deadline() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let pid_file = scratch.path().join("grandchild");
    let result =
        rt().block_on(hook_exec::run(&helper_invocation("tree", &pid_file), &deadline(Duration::from_secs(4))));
    assert!(result.timed_out, "{result:?}");
    let grandchild = wait_pid(&pid_file);
    assert!(eventually(Duration::from_secs(5), || is_dead(grandchild)), "grandchild {grandchild} survived the run");
}

#[test]
fn a_background_grandchild_holding_stdout_dies_after_the_grace() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let pid_file = scratch.path().join("grandchild");
    let inv = helper_invocation("background", &pid_file);
    let start = Instant::now();
    let result = rt().block_on(hook_exec::run(&inv, &deadline(Duration::from_secs(30))));
    assert!(start.elapsed() < Duration::from_secs(20), "the held pipe stretched the run");
    assert!(!result.timed_out, "{result:?}");
    assert_eq!(result.exit, Some(Exit::Code(0)));
    assert!(result.warnings.iter().any(|w| w.contains("still held stdout")), "{:?}", result.warnings);
    let grandchild = wait_pid(&pid_file);
    assert!(eventually(Duration::from_secs(5), || is_dead(grandchild)), "grandchild {grandchild} survived the run");
}

#[test]
fn a_grandchild_dies_when_the_host_is_killed() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let pid_file = scratch.path().join("grandchild");
    let Program::Argv(argv) = helper_invocation("host", &pid_file).program else { unreachable!() };
    let mut host = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env(HELPER, "host")
        .env(HELPER_FILE, &pid_file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("host");
    let grandchild = wait_pid(&pid_file);
    assert!(!is_dead(grandchild));
    kill(host.id() as i32);
    host.wait().expect("host reaped");
    let died = eventually(Duration::from_secs(10), || is_dead(grandchild));
    if !died {
        kill(grandchild);
    }
    assert!(died, "grandchild {grandchild} outlived its killed host");
}

#[test]
fn a_flood_stays_bounded() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let opts = RunOptions { capture_limit: 64 * 1024, ..deadline(Duration::from_secs(60)) };
    let result = rt().block_on(hook_exec::run(&helper_invocation("flood", &scratch.path().join("none")), &opts));
    assert_eq!(result.exit, Some(Exit::Code(0)), "{result:?}");
    assert_eq!(result.stdout.len(), 64 * 1024);
    assert!(result.stdout_truncated);
}

#[test]
fn a_verified_program_runs_only_with_the_digest_it_was_trusted_with() {
    use sha2::{Digest, Sha256};
    let scratch = tempfile::tempdir().expect("tempdir");
    let exe = std::env::current_exe().expect("the test binary's path");
    let digest = hex::encode(Sha256::digest(std::fs::read(&exe).expect("the test binary")));
    let inv = helper_invocation("ok", &scratch.path().join("none"));
    let result = rt().block_on(hook_exec::run(&inv.clone().verified_program(digest), &RunOptions::default()));
    assert_eq!(result.exit, Some(Exit::Code(0)), "{result:?}");
    let result = rt().block_on(hook_exec::run(&inv.verified_program("0".repeat(64)), &RunOptions::default()));
    assert!(matches!(result.spawn_error, Some(SpawnError::Changed { .. })), "{result:?}");
    assert!(!result.success());
}
