//! What a run reports: exit codes and signals, spawn errors, bytes, and the invocation arriving as given.

use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use common::{Scratch, deadline, run_sh};
use hook_exec::{EnvPolicy, Exit, Invocation, RunOptions, RunResult, SpawnError, run};

const T: Duration = Duration::from_secs(20);

async fn go(inv: Invocation) -> RunResult {
    run(&inv, &deadline(T)).await
}

/// `env -0`'s view of its environment, run without a shell so nothing is added.
async fn child_env(inv: Invocation) -> BTreeMap<String, String> {
    let result = go(inv).await;
    assert!(result.success(), "{result:?}");
    result
        .stdout_lossy()
        .split('\0')
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

#[tokio::test]
async fn exit_codes_are_reported_verbatim() {
    for code in [0, 1, 2, 7, 127] {
        let (result, _) = run_sh(&format!("exit {code}"), T).await;
        assert_eq!(result.exit, Some(Exit::Code(code)), "{result:?}");
        assert_eq!(result.success(), code == 0);
        assert!(!result.timed_out && !result.cancelled && result.spawn_error.is_none());
    }
}

#[tokio::test]
async fn death_by_sigterm_is_a_signal_not_a_code() {
    let (result, _) = run_sh("kill -TERM $$; sleep 5", T).await;
    assert_eq!(result.exit, Some(Exit::Signal(15)), "{result:?}");
    assert!(!result.success() && !result.timed_out);
}

#[tokio::test]
async fn missing_program_is_a_spawn_error_not_a_failed_run() {
    for program in ["/nonexistent/hook-exec-test", "hook-exec-no-such-program"] {
        let result = go(Invocation::argv([program])).await;
        assert_eq!(result.spawn_error, Some(SpawnError::NotFound { program: program.into() }), "{result:?}");
        assert_eq!(result.exit, None);
        assert!(!result.success());
    }
    // Through a shell the same mistake is a run that exits 127, which is different.
    let (result, _) = run_sh("hook-exec-no-such-program", T).await;
    assert_eq!((result.exit, result.spawn_error), (Some(Exit::Code(127)), None));
}

#[tokio::test]
async fn file_without_execute_bit_is_not_executable() {
    let s = Scratch::new();
    let script = s.path("script.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let result = go(Invocation::argv([&script])).await;
    assert_eq!(result.spawn_error, Some(SpawnError::NotExecutable { program: script.into() }), "{result:?}");
}

#[tokio::test]
async fn regular_file_or_missing_dir_as_cwd_is_a_bad_cwd() {
    let s = Scratch::new();
    let file = s.path("not-a-dir");
    std::fs::write(&file, "").unwrap();
    for cwd in [file, s.path("missing")] {
        let result = go(Invocation::argv(["true"]).cwd(&cwd)).await;
        match &result.spawn_error {
            Some(SpawnError::BadCwd { path, .. }) => assert_eq!(path, &cwd),
            other => panic!("expected BadCwd for {cwd:?}, got {other:?}"),
        }
        assert_eq!(result.exit, None);
    }
}

#[tokio::test]
async fn empty_argv_is_a_spawn_error() {
    let result = go(Invocation::argv(Vec::<OsString>::new())).await;
    assert!(matches!(result.spawn_error, Some(SpawnError::Io { .. })), "{result:?}");
}

#[tokio::test]
async fn exit_zero_without_reading_a_1mib_payload_is_success() {
    let result = go(Invocation::shell("exit 0").stdin(vec![b'x'; 1 << 20])).await;
    assert!(result.success(), "{result:?}");
    assert!(result.warnings.is_empty(), "a closed stdin is not worth a warning: {:?}", result.warnings);
}

#[tokio::test]
async fn non_utf8_output_survives_as_bytes() {
    let (result, _) = run_sh(r"printf '\377\376ok\000'; printf '\200' >&2", T).await;
    assert_eq!(result.stdout, b"\xff\xfeok\x00");
    assert_eq!(result.stderr, b"\x80");
    assert_eq!(result.stdout_lossy(), "\u{fffd}\u{fffd}ok\0");
}

#[tokio::test]
async fn argv_mode_passes_shell_syntax_and_quotes_literally() {
    let s = Scratch::new();
    let args = ["$(touch pwned)", "`touch pwned`; touch pwned", r#"it's "quoted" \ * ?"#];
    let result = go(Invocation::argv(["printf", "%s\\n"].into_iter().chain(args)).cwd(s.dir.path())).await;
    assert!(result.success(), "{result:?}");
    assert_eq!(result.stdout_lossy(), format!("{}\n", args.join("\n")));
    assert!(!s.path("pwned").exists(), "a shell ran");
}

#[tokio::test]
async fn environment_and_cwd_arrive() {
    let s = Scratch::new();
    let inv = Invocation::shell(r#"printf '%s|%s|' "$HOOK_TEST_VAR" "$HOOK_TEST_SECOND"; pwd -P"#)
        .cwd(s.dir.path())
        .env("HOOK_TEST_VAR", "a value with spaces")
        .envs([("HOOK_TEST_SECOND", "2")]);
    let result = go(inv).await;
    let expected = format!("a value with spaces|2|{}\n", s.dir.path().canonicalize().unwrap().display());
    assert_eq!(result.stdout_lossy(), expected);
}

#[tokio::test]
async fn env_policies_filter_host_variables_and_added_ones_always_arrive() {
    let host: BTreeMap<String, String> =
        std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
    assert!(host.contains_key("PATH"), "the test needs PATH in its environment");
    let env = || Invocation::argv(["/usr/bin/env", "-0"]).env("ADDED", "1");

    let all = child_env(env()).await;
    assert_eq!(all.len(), host.len() + 1);
    assert_eq!(all.get("PATH"), host.get("PATH"));

    let allowed = child_env(env().env_policy(EnvPolicy::Allow(vec!["PATH".into()]))).await;
    assert_eq!(allowed.keys().collect::<Vec<_>>(), ["ADDED", "PATH"]);

    let denied = child_env(env().env_policy(EnvPolicy::Deny(vec!["PAT*".into()]))).await;
    assert!(!denied.contains_key("PATH") && denied.contains_key("ADDED"));
    assert_eq!(denied.len(), host.keys().filter(|k| !k.starts_with("PAT")).count() + 1);

    // An added variable wins even over a policy that denies the host's variable of the same name.
    let cleared = child_env(env().env_policy(EnvPolicy::Clear).env("PATH", "/nowhere")).await;
    assert_eq!(cleared, BTreeMap::from([("ADDED".into(), "1".into()), ("PATH".into(), "/nowhere".into())]));
}

#[tokio::test]
async fn stdin_is_written_while_both_outputs_are_drained() {
    // 4 MiB through `tee` to both outputs: writing everything before reading, or reading one stream at a time,
    // deadlocks on full pipes and ends at the deadline instead.
    let payload: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
    let opts = RunOptions { capture_limit: 8 << 20, ..deadline(T) };
    let result = run(&Invocation::argv(["tee", "/dev/stderr"]).stdin(payload.clone()), &opts).await;
    assert!(result.success(), "{:?}", (result.exit, result.timed_out, &result.warnings));
    assert!(result.stdout == payload && result.stderr == payload);
    assert!(!result.stdout_truncated && !result.stderr_truncated);
}

#[tokio::test]
async fn capture_is_capped_per_stream_and_the_excess_is_read_and_dropped() {
    let opts = RunOptions { capture_limit: 1 << 20, ..deadline(T) };
    let script = "head -c 3000000 /dev/zero; printf small >&2";
    let result = run(&Invocation::shell(script), &opts).await;
    // The writer finished (exit 0, no deadline) only because the excess kept being read.
    assert!(result.success(), "{:?}", (result.exit, result.timed_out));
    assert_eq!(result.stdout.len(), 1 << 20);
    assert!(result.stdout_truncated);
    assert_eq!((result.stderr.as_slice(), result.stderr_truncated), (&b"small"[..], false));
}

#[test]
fn run_future_is_send_so_a_host_can_spawn_it() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let result = rt.block_on(async {
        let task = tokio::spawn(async {
            let inv = Invocation::shell("cat").stdin(b"spawned".to_vec());
            run(&inv, &deadline(T)).await
        });
        task.await.unwrap()
    });
    assert_eq!(result.stdout, b"spawned");
}
