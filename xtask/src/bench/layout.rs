//! `cargo xtask layout`: which functions of `hook` run on every event, in the order they first run, written to
//! `xtask/hot-symbols.txt` for `cargo xtask dist` to hand the linker.
//!
//! Each of the per-event commands of `cargo xtask bench` (`--version`, a bridge call, a `hook run`, on the same
//! trusted 20-hook workspace, its load cache warm) runs once under a small tracer: every function of the binary
//! starts with a breakpoint, and each one hit is noted and put back, so a function costs one stop, the first time it
//! runs, in whichever process runs it (the vfork child before its `exec`, the watchdog); a process that executes
//! another program is let go. The list is the union in the order of first runs. Exact, unlike a sampling profiler,
//! and needs nothing installed; x86-64 Linux, where the list is used.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::{Scratch, event_commands, event_workspace, parse};
use crate::elf::Elf;

/// `cargo xtask layout [--hook PATH]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let mut options = parse(args, false)?;
    options.per_event_only = true;
    let scratch = Scratch::new(root, &options, "layout")?;
    let functions = Elf::read(&scratch.hook)?.functions()?;
    if functions.is_empty() {
        bail!("{} has no symbol table (stripped?)", scratch.hook.display());
    }
    let ws = event_workspace(&scratch)?;
    let mut order: Vec<usize> = Vec::new();
    let mut seen = HashSet::new();
    for cmd in event_commands(&scratch, &ws, &scratch.hook) {
        // Once untraced, so the traced run takes the path the measured ones take (the load cache written).
        scratch.output(&cmd)?;
        let hits = trace(&cmd, &functions).with_context(|| format!("tracing `{}`", cmd.describe()))?;
        eprintln!("xtask: layout: `{}` ran {} functions", cmd.describe(), hits.len());
        order.extend(hits.into_iter().filter(|&i| seen.insert(i)));
    }
    let bytes: u64 = order.iter().map(|&i| functions[i].size).sum();
    let mut text = String::from(
        "# The functions of `hook` that run on every event, in the order they first run: written by\n\
         # `cargo xtask layout`, handed to lld by `cargo xtask dist` (--symbol-ordering-file). Write it again after\n\
         # a change of dependencies or toolchain (dist says how many of these names a build still has).\n",
    );
    for &i in &order {
        text.push_str(&functions[i].name);
        text.push('\n');
    }
    let path = root.join(crate::dist::HOT_SYMBOLS);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("xtask: layout: {} functions, {} KiB of code, in {}", order.len(), bytes / 1024, path.display());
    Ok(())
}

/// Runs `cmd` under the tracer and returns the indexes in `functions` of those that ran, in the order they first
/// ran.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub fn trace(cmd: &super::measure::Cmd, functions: &[crate::elf::Function]) -> Result<Vec<usize>> {
    let mut command = cmd.command();
    tracer::trace(&mut command, cmd.stdin.as_deref(), functions)
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub fn trace(_cmd: &super::measure::Cmd, _functions: &[crate::elf::Function]) -> Result<Vec<usize>> {
    bail!("the layout is traced on x86-64 Linux only")
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod tracer {
    use std::collections::{HashMap, HashSet};
    use std::fs::{File, OpenOptions};
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    use anyhow::{Context, Result, bail};

    use crate::elf::Function;

    /// `int3`.
    const BREAKPOINT: u8 = 0xcc;

    /// Starts `command` traced, with a breakpoint at the first byte of every function, feeds it `stdin`, and
    /// follows it and every process it makes until all have exited or executed another program.
    #[allow(unsafe_code)]
    pub fn trace(command: &mut Command, stdin: Option<&[u8]>, functions: &[Function]) -> Result<Vec<usize>> {
        // One breakpoint per address (aliases share one); the first name's index stands for it.
        let mut at: HashMap<u64, usize> = HashMap::new();
        for (i, f) in functions.iter().enumerate() {
            at.entry(f.addr).or_insert(i);
        }
        // SAFETY: between fork and exec the closure makes one system call and allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().context("cannot start the traced command")?;
        let pid = i32::try_from(child.id()).context("pid out of range")?;
        // It stops at its exec.
        let status = wait(pid)?.1;
        if !libc::WIFSTOPPED(status) || libc::WSTOPSIG(status) != libc::SIGTRAP {
            bail!("the traced command did not stop at its exec (status {status:#x})");
        }
        let options = libc::PTRACE_O_TRACECLONE
            | libc::PTRACE_O_TRACEFORK
            | libc::PTRACE_O_TRACEVFORK
            | libc::PTRACE_O_TRACEEXEC
            | libc::PTRACE_O_EXITKILL;
        // SAFETY: a tracee stopped for us; the call takes integers.
        if unsafe { libc::ptrace(libc::PTRACE_SETOPTIONS, pid, 0, options as libc::c_ulong) } == -1 {
            bail!("PTRACE_SETOPTIONS: {}", std::io::Error::last_os_error());
        }
        let mut original: HashMap<u64, u8> = HashMap::with_capacity(at.len());
        let mem = memory(pid)?;
        for &addr in at.keys() {
            let mut byte = [0u8];
            mem.read_exact_at(&mut byte, addr).with_context(|| format!("cannot read the code at {addr:#x}"))?;
            original.insert(addr, byte[0]);
            mem.write_all_at(&[BREAKPOINT], addr).with_context(|| format!("cannot set a breakpoint at {addr:#x}"))?;
        }
        if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(bytes).context("cannot write the traced command's stdin")?;
        }
        let mut memories: HashMap<i32, File> = HashMap::from([(pid, mem)]);
        let mut hits = Vec::new();
        let mut hit = HashSet::new();
        let mut live: HashSet<i32> = HashSet::from([pid]);
        resume(pid, 0);
        while !live.is_empty() {
            let (who, status) = match wait(-1) {
                Ok(w) => w,
                Err(_) => break,
            };
            if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
                live.remove(&who);
                memories.remove(&who);
                continue;
            }
            if !libc::WIFSTOPPED(status) {
                continue;
            }
            let new = live.insert(who);
            let signal = libc::WSTOPSIG(status);
            let event = status >> 16;
            if signal == libc::SIGTRAP && event == libc::PTRACE_EVENT_EXEC && who != pid {
                // Another program now: not ours to trace.
                // SAFETY: a tracee stopped for us.
                unsafe { libc::ptrace(libc::PTRACE_DETACH, who, 0, 0) };
                live.remove(&who);
                memories.remove(&who);
                continue;
            }
            let deliver = if signal == libc::SIGTRAP && event == 0 {
                match breakpoint_hit(who, &original, &mut memories)? {
                    Some(addr) => {
                        if hit.insert(addr) {
                            hits.push(at[&addr]);
                        }
                        0
                    }
                    None => signal,
                }
            } else if signal == libc::SIGTRAP || (signal == libc::SIGSTOP && new) {
                // An event stop (fork, clone, vfork), or a new process's first stop.
                0
            } else {
                signal
            };
            resume(who, deliver);
        }
        // Already reaped by the loop above; the handle has nothing left to wait for.
        drop(child);
        Ok(hits)
    }

    /// Whether `who` stopped on one of our breakpoints: if so, the original byte goes back (in its memory, which the
    /// processes that share it see too), it is rewound onto it, and the breakpoint's address is returned.
    #[allow(unsafe_code)]
    fn breakpoint_hit(who: i32, original: &HashMap<u64, u8>, memories: &mut HashMap<i32, File>) -> Result<Option<u64>> {
        // SAFETY: plain data, filled by the kernel for a tracee stopped for us.
        let mut regs: libc::user_regs_struct = unsafe { std::mem::zeroed() };
        if unsafe { libc::ptrace(libc::PTRACE_GETREGS, who, 0, &raw mut regs) } == -1 {
            return Ok(None);
        }
        let addr = regs.rip.wrapping_sub(1);
        let Some(&byte) = original.get(&addr) else { return Ok(None) };
        let mem = match memories.entry(who) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(memory(who)?),
        };
        mem.write_all_at(&[byte], addr).with_context(|| format!("cannot restore the code at {addr:#x}"))?;
        regs.rip = addr;
        // SAFETY: as above.
        if unsafe { libc::ptrace(libc::PTRACE_SETREGS, who, 0, &raw const regs) } == -1 {
            bail!("PTRACE_SETREGS: {}", std::io::Error::last_os_error());
        }
        Ok(Some(addr))
    }

    fn memory(pid: i32) -> Result<File> {
        let path = format!("/proc/{pid}/mem");
        OpenOptions::new().read(true).write(true).open(&path).with_context(|| format!("cannot open {path}"))
    }

    #[allow(unsafe_code)]
    fn resume(pid: i32, signal: libc::c_int) {
        // SAFETY: a tracee stopped for us (or gone, and then the call fails harmlessly).
        unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, signal as libc::c_ulong) };
    }

    /// `waitpid(pid, __WALL)`, retried on EINTR.
    #[allow(unsafe_code)]
    fn wait(pid: i32) -> Result<(i32, libc::c_int)> {
        let mut status = 0;
        loop {
            // SAFETY: `status` is writable.
            let who = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
            if who > 0 {
                return Ok((who, status));
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err).context("waitpid");
            }
        }
    }
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use std::process::Command;

    use crate::elf::Elf;

    /// A small static program, traced: its functions are reported once each, in the order they first ran, whether
    /// they ran in it or in a thread of it; one that never ran is not; its child that executes another program is
    /// let go, and the trace ends.
    #[test]
    fn the_tracer_reports_each_function_that_ran_once_in_the_order_it_first_ran() {
        let dir = std::env::temp_dir().join(format!("xtask-layout-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = dir.join("probe.rs");
        std::fs::write(
            &source,
            r#"
#[inline(never)] #[unsafe(no_mangle)] pub extern "C" fn layout_probe_first() -> u32 { std::hint::black_box(1) }
#[inline(never)] #[unsafe(no_mangle)] pub extern "C" fn layout_probe_second() -> u32 { std::hint::black_box(2) }
#[inline(never)] #[unsafe(no_mangle)] pub extern "C" fn layout_probe_never() -> u32 { std::hint::black_box(3) }
#[inline(never)] #[unsafe(no_mangle)] pub extern "C" fn layout_probe_in_thread() -> u32 { std::hint::black_box(4) }
fn main() {
    let n = layout_probe_second() + layout_probe_first() + layout_probe_second();
    let status = std::process::Command::new("true").status().unwrap();
    let m = std::thread::spawn(|| layout_probe_in_thread()).join().unwrap();
    if std::env::args().count() > 5 { layout_probe_never(); }
    std::process::exit(if status.success() && n == 5 && m == 4 { 0 } else { 1 });
}
"#,
        )
        .unwrap();
        let probe = dir.join("probe");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        let built = Command::new(rustc)
            .args([
                "--edition",
                "2021",
                "-O",
                "-C",
                "relocation-model=static",
                "-C",
                "target-feature=+crt-static",
                "-o",
            ])
            .arg(&probe)
            .arg(&source)
            .status()
            .unwrap();
        assert!(built.success());
        let functions = Elf::read(&probe).unwrap().functions().unwrap();
        let index = |name: &str| functions.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("{name}"));
        let hits = super::tracer::trace(&mut Command::new(&probe), None, &functions).unwrap();
        let position = |name: &str| hits.iter().position(|&i| i == index(name));
        let (second, first, thread) =
            (position("layout_probe_second"), position("layout_probe_first"), position("layout_probe_in_thread"));
        assert!(second.is_some() && first.is_some() && thread.is_some(), "{second:?} {first:?} {thread:?}");
        assert!(second < first && first < thread, "{second:?} {first:?} {thread:?}");
        assert_eq!(position("layout_probe_never"), None);
        let mut unique = hits.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), hits.len(), "a function reported twice");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
