//! `Invocation::verified_program`: the bytes that were hashed are the bytes that run, whatever happens to the file.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hook_exec::{Exit, Invocation, SpawnError};
use sha2::{Digest, Sha256};

fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

const GOOD: &str = "#!/bin/sh\nread line; echo \"good $line $HOOK_X\"; pwd\n";
const EVIL: &str = "#!/bin/sh\nread line; echo \"evil $line $HOOK_X\"; pwd\n";

#[tokio::test]
async fn a_verified_script_runs_with_its_stdin_environment_and_cwd() {
    let s = common::Scratch::new();
    let script = s.path("guard.sh");
    write_script(&script, GOOD);
    let inv = Invocation::argv([script.as_os_str()])
        .verified_program(sha256(GOOD))
        .cwd(s.dir.path())
        .env("HOOK_X", "x")
        .stdin(b"in\n".to_vec());
    let result = hook_exec::run(&inv, &common::deadline(Duration::from_secs(20))).await;
    assert_eq!(result.exit, Some(Exit::Code(0)), "{result:?}");
    assert_eq!(result.stdout_lossy(), format!("good in x\n{}\n", s.dir.path().display()));
}

#[tokio::test]
async fn a_program_that_no_longer_hashes_as_verified_does_not_run() {
    let s = common::Scratch::new();
    let script = s.path("guard.sh");
    write_script(&script, EVIL);
    let inv = Invocation::argv([script.as_os_str()]).verified_program(sha256(GOOD));
    let result = hook_exec::run(&inv, &common::deadline(Duration::from_secs(20))).await;
    assert!(
        matches!(&result.spawn_error, Some(SpawnError::Changed { expected, found, .. }) if *expected == sha256(GOOD) && *found == sha256(EVIL)),
        "{result:?}"
    );
    assert!(result.exit.is_none() && result.stdout.is_empty());
}

/// A swapper renames the evil version over the script and back as fast as it can while verified runs go on: each
/// run either refuses (it read the evil bytes) or prints the good output; it never runs the evil bytes. Executing by
/// path after checking would lose this race now and then.
#[test]
fn swapping_the_script_between_check_and_exec_ran_unverified_bytes() {
    let s = common::Scratch::new();
    let script = s.path("guard.sh");
    let (good, evil) = (s.path("good.sh"), s.path("evil.sh"));
    write_script(&script, GOOD);
    let stop = AtomicBool::new(false);
    let (mut ran_good, mut refused) = (0, 0);
    /// Stops the swapper even when an assertion fails, so the scope can end.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    std::thread::scope(|scope| {
        let _stop = Stop(&stop);
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                write_script(&evil, EVIL);
                std::fs::rename(&evil, &script).unwrap();
                write_script(&good, GOOD);
                std::fs::rename(&good, &script).unwrap();
            }
        });
        for _ in 0..200 {
            let inv = Invocation::argv([script.as_os_str()]).verified_program(sha256(GOOD)).stdin(b"x\n".to_vec());
            let result = rt.block_on(hook_exec::run(&inv, &common::deadline(Duration::from_secs(20))));
            match &result.spawn_error {
                Some(SpawnError::Changed { .. }) => refused += 1,
                None => {
                    assert!(result.stdout_lossy().starts_with("good x"), "unverified bytes ran: {result:?}");
                    ran_good += 1;
                }
                Some(other) => panic!("{other}"),
            }
        }
    });
    assert_eq!(ran_good + refused, 200);
    assert!(ran_good > 0, "the good version never ran");
}

#[tokio::test]
async fn a_verified_binary_runs_from_its_sealed_copy_with_its_arguments() {
    let s = common::Scratch::new();
    let echo = s.path("echo");
    std::fs::copy("/bin/echo", &echo).unwrap();
    let digest = hex::encode(Sha256::digest(std::fs::read(&echo).unwrap()));
    let inv =
        Invocation::argv([echo.as_os_str(), "hello".as_ref(), "$(not a shell)".as_ref()]).verified_program(digest);
    let result = hook_exec::run(&inv, &common::deadline(Duration::from_secs(20))).await;
    assert_eq!(
        (result.exit, result.stdout_lossy().as_str()),
        (Some(Exit::Code(0)), "hello $(not a shell)\n"),
        "{result:?}"
    );
}
