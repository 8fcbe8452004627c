//! The table: command lines with the simple commands they run (`table.txt`, one row a line: the line, a tab, the
//! commands; the verdicts of the example guards are a third column, checked by the CLI's suite).
//!
//! Commands are written `program arg …` (normalised arguments; one holding a blank in single quotes), separated by
//! ` ; `; what cannot be read is `?reason`. A file a redirection opens follows the arguments as `<f` (read), `>f`
//! (write), `>>f` (append), `<>f` (read and write), the descriptor first when it is not the operator's own (`2>f`),
//! its target `?` first when not known statically (`>?$OUT`). In the line, `\n` is a newline.

use hook_shell::{Analysis, Command, Limits, RedirectionMode, parse};

const TABLE: &str = include_str!("table.txt");

/// One row: the line, the commands written as above, the guards' verdict.
pub(crate) fn rows() -> Vec<(String, &'static str, &'static str)> {
    TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|row| {
            let mut columns = row.split('\t');
            let line = columns.next().unwrap_or_default().replace("\\n", "\n");
            (line, columns.next().unwrap_or_default(), columns.next().unwrap_or_default())
        })
        .collect()
}

/// The commands of an analysis, written as the table writes them.
pub(crate) fn render(analysis: &Analysis) -> String {
    let word = |w: &String| if w.is_empty() || w.contains(' ') { format!("'{w}'") } else { w.clone() };
    let commands = analysis.commands.iter().map(|c| {
        std::iter::once(c.program.clone()).chain(c.args.iter().map(word)).chain(files(c)).collect::<Vec<_>>().join(" ")
    });
    let unknown =
        analysis.unknown.iter().map(|u| format!("?{}", serde_json::to_value(u.reason).unwrap().as_str().unwrap()));
    commands.chain(unknown).collect::<Vec<_>>().join(" ; ")
}

/// A command's redirections, written as the table writes them.
fn files(command: &Command) -> impl Iterator<Item = String> + '_ {
    command.redirects.iter().map(|r| {
        let (default, op) = match r.mode {
            RedirectionMode::Read => (0, "<"),
            RedirectionMode::Write => (1, ">"),
            RedirectionMode::Append => (1, ">>"),
            RedirectionMode::ReadWrite => (0, "<>"),
        };
        let fd = if r.fd == default { String::new() } else { r.fd.to_string() };
        let target =
            if r.target.is_empty() || r.target.contains(' ') { format!("'{}'", r.target) } else { r.target.clone() };
        format!("{fd}{op}{}{target}", if r.known { "" } else { "?" })
    })
}

#[test]
fn every_row_runs_the_commands_it_lists() {
    let rows = rows();
    assert!(rows.len() >= 200, "{} rows", rows.len());
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(line, expected, _)| {
            let got = render(&parse(line, &Limits::default()));
            (got != *expected).then(|| format!("{line:?}\n  expected {expected}\n       got {got}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} rows differ:\n{}", wrong.len(), rows.len(), wrong.join("\n"));
}

#[test]
fn a_redirection_is_serialised_with_its_mode_in_snake_case_and_none_is_left_out() {
    let analysis = parse("cat <> \"$F\" 2>>log; ls", &Limits::default());
    let json = serde_json::to_value(&analysis).unwrap();
    assert_eq!(
        json["commands"][0]["redirects"],
        serde_json::json!([
            {"fd": 0, "mode": "read_write", "target": "$F", "known": false},
            {"fd": 2, "mode": "append", "target": "log", "known": true},
        ])
    );
    assert!(json["commands"][1].get("redirects").is_none(), "{json}");
}
