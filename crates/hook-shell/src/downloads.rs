//! Download-then-run across the commands of a line: `curl -o i.sh URL; sh i.sh` runs the download as surely as
//! `curl URL | sh`, so the command that runs the file reads as piped from the downloader.

use crate::{Command, RedirectionMode, Unknown, UnknownReason};

/// The programs that download, and the shells and interpreters that run a script file given first.
const DOWNLOADERS: &[&str] = &["curl", "wget"];
const RUNNERS: &[&str] =
    &["sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "perl", "ruby", "node", "php"];

/// Marks each command that runs a file an earlier command of the line downloaded as piped from that downloader
/// (where nothing else feeds it); a downloaded file run by its own path (`./i.sh`), whose first line names what
/// runs it, is [`UnknownReason::Downloaded`].
pub(crate) fn mark(commands: &mut [Command], unknown: &mut Vec<Unknown>) {
    let mut downloaded: Vec<(String, String)> = Vec::new();
    for command in commands.iter_mut() {
        if DOWNLOADERS.contains(&command.program.as_str()) {
            let files = saved_files(command);
            downloaded.extend(files.into_iter().map(|f| (plain(&f).to_owned(), command.program.clone())));
            continue;
        }
        if command.piped_from.is_some() || downloaded.is_empty() {
            continue;
        }
        let ran = run_file(command);
        let Some((_, from)) = ran.and_then(|file| downloaded.iter().find(|(saved, _)| saved == plain(file))) else {
            continue;
        };
        if command.argv[0].contains('/') {
            let text = command.argv.join(" ").chars().take(200).collect();
            unknown.push(Unknown { reason: UnknownReason::Downloaded, text });
        } else {
            command.piped_from = Some(from.clone());
        }
    }
}

/// The file a command runs as a script: its own path (`./i.sh`), or a shell's or interpreter's first operand.
fn run_file(command: &Command) -> Option<&str> {
    if command.argv[0].contains('/') {
        return Some(&command.argv[0]);
    }
    let runner = RUNNERS.contains(&command.program.as_str()) || command.program.starts_with("python");
    if !runner {
        return None;
    }
    command.argv[1..].iter().find(|w| !w.starts_with('-')).map(String::as_str)
}

/// `./i.sh` and `i.sh` are the same file.
fn plain(path: &str) -> &str {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path
}

/// The files a curl or wget command writes: its output options, the URL's last segment where it keeps the
/// remote name, and its output redirections.
fn saved_files(command: &Command) -> Vec<String> {
    let (long, short, remote_name) = match command.program.as_str() {
        "curl" => (["--output", "--output"], 'o', Some('O')),
        _ => (["--output-document", "-O"], 'O', None),
    };
    let words = &command.argv[1..];
    let mut files = Vec::new();
    let mut keeps_name = command.program == "wget";
    let mut at = 0;
    while at < words.len() {
        let word = &words[at];
        let next = words.get(at + 1).cloned();
        if long.contains(&word.as_str()) {
            files.extend(next);
            at += 1;
        } else if let Some(value) = long.iter().find_map(|l| word.strip_prefix(&format!("{l}="))) {
            files.push(value.to_owned());
        } else if let Some(flags) = word.strip_prefix('-').filter(|f| !f.starts_with('-') && !f.is_empty()) {
            if let Some(i) = flags.find(short) {
                let attached = &flags[i + 1..];
                if attached.is_empty() {
                    files.extend(next);
                    at += 1;
                } else {
                    files.push(attached.to_owned());
                }
            } else if remote_name.is_some_and(|r| flags.contains(r)) {
                keeps_name = true;
            }
        } else if word == "--remote-name" {
            keeps_name = true;
        }
        at += 1;
    }
    if keeps_name && files.is_empty() {
        files.extend(words.iter().filter(|w| w.contains("://")).filter_map(|url| last_segment(url)));
    }
    let written = command.redirects.iter().filter(|r| r.known && r.fd == 1);
    let written = written.filter(|r| matches!(r.mode, RedirectionMode::Write | RedirectionMode::Append));
    files.extend(written.map(|r| r.target.clone()));
    files
}

/// `https://x/y/i.sh?v=1` → `i.sh`.
fn last_segment(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next()?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty() && !name.contains(':')).then(|| name.to_owned())
}
