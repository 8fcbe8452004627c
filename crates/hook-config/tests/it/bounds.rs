//! Loading is bounded: file size, nesting depth (in linear time), hooks per file and in total, and files that are
//! not regular files, each one issue while the rest loads.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use hook_config::{Config, FileContext, Format, Layout, LoadOptions, load, load_file};
use hook_types::{Limits, Origin};

fn layout(ws: &Path, home: &Path) -> Layout {
    Layout::new(ws).with_config_home(home.join("cfg")).with_home(None).with_managed_file(home.join("managed.yaml"))
}

fn load_with(ws: &Path, home: &Path, limits: Limits) -> Config {
    load(&layout(ws, home), &LoadOptions { limits, ..LoadOptions::default() }).unwrap()
}

fn hooks_yaml(n: usize) -> String {
    (0..n).map(|i| format!("- {{id: h{i}, on: turn_start, kind: prompt, message: m{i}}}\n")).collect()
}

/// Runs `f` on a thread and fails (instead of hanging the suite) when it takes longer than a generous bound.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{what} did not return"))
}

fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".hooks")).unwrap();
    (ws, tempfile::tempdir().unwrap())
}

#[test]
fn deep_flow_nesting_was_parsed_in_quadratic_time() {
    let (ws, home) = setup();
    let deep = format!("- {}1{}\n", "{a: ".repeat(40_000), "}".repeat(40_000));
    std::fs::write(ws.path().join(".hooks/hooks.yaml"), deep).unwrap();
    std::fs::write(ws.path().join(".hooks/hooks.json"), format!("{}{}", "[".repeat(40_000), "]".repeat(40_000)))
        .unwrap();
    let (w, h) = (ws.path().to_owned(), home.path().to_owned());
    let config = within("a load of 40 000 levels", move || load_with(&w, &h, Limits::default()));
    let deep: Vec<_> = config.issues.iter().filter(|i| i.message.contains("nest deeper than 100 levels")).collect();
    assert_eq!(deep.len(), 2, "{:#?}", config.issues);
    assert_eq!(deep[0].line, Some(1));
}

#[test]
fn a_file_over_the_size_limit_was_read_whole() {
    let (ws, home) = setup();
    std::fs::write(ws.path().join(".hooks/hooks.yaml"), hooks_yaml(100)).unwrap();
    let config = load_with(ws.path(), home.path(), Limits { max_file_bytes: 1000, ..Limits::default() });
    assert!(config.hooks.is_empty());
    assert_eq!(config.issues.len(), 1, "{:#?}", config.issues);
    assert!(config.issues[0].message.contains("more than the limit of 1000"), "{}", config.issues[0]);
}

#[test]
fn hooks_past_the_per_file_and_total_limits_were_all_read() {
    let (ws, home) = setup();
    std::fs::write(ws.path().join(".hooks/hooks.yaml"), hooks_yaml(8)).unwrap();
    let config = load_with(ws.path(), home.path(), Limits { max_hooks_per_file: 5, ..Limits::default() });
    assert_eq!(config.hooks.len(), 5);
    assert!(config.issues.iter().any(|i| i.message.contains("declares 8 hooks, more than the limit of 5")));

    // Two files of 4: the total limit of 6 keeps the higher-precedence file (project.local) whole.
    std::fs::write(ws.path().join(".hooks/hooks.yaml"), hooks_yaml(4)).unwrap();
    let local: String = hooks_yaml(4).replace("id: h", "id: l");
    std::fs::write(ws.path().join(".hooks/hooks.local.yaml"), local).unwrap();
    let config = load_with(ws.path(), home.path(), Limits { max_hooks_total: 6, ..Limits::default() });
    assert_eq!(config.hooks.len(), 6);
    assert_eq!(config.hooks.iter().filter(|h| h.decl.id.starts_with('l')).count(), 4);
    assert!(config.issues.iter().any(|i| i.message.contains("2 of this file's 4 hooks were dropped")));
}

#[test]
fn a_fifo_or_a_device_as_the_hook_file_hung_or_aborted_the_load() {
    let (ws, home) = setup();
    let fifo = ws.path().join(".hooks/hooks.yaml");
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o644), 0)
        .unwrap();
    std::fs::create_dir_all(ws.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.path().join(".claude/settings.json")).unwrap();
    std::fs::write(ws.path().join(".hooks/hooks.local.yaml"), hooks_yaml(2)).unwrap();
    let (w, h) = (ws.path().to_owned(), home.path().to_owned());
    let config = within("a load with a FIFO and /dev/zero", move || load_with(&w, &h, Limits::default()));
    assert_eq!(config.hooks.len(), 2, "the other file still loads");
    assert_eq!(config.issues.len(), 2, "{:#?}", config.issues);

    // Read directly, they are one issue each, at once.
    let zero = ws.path().join(".claude/settings.json");
    for (path, what) in [(fifo, "a FIFO"), (zero, "a device")] {
        let w = ws.path().to_owned();
        let load = within("load_file", move || {
            let cx = FileContext { origin: Origin::Project, workspace: &w, root: &w, source_id: None };
            load_file(&path, Format::Native, &cx)
        });
        assert_eq!(load.issues.len(), 1);
        assert!(load.issues[0].message.contains(what), "{}", load.issues[0]);
    }
}
