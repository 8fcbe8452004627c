//! The table: command lines with the simple commands they run (`table.txt`, one row a line: the line, a tab, the
//! commands; the verdicts of the example guards are a third column, checked by the CLI's suite).
//!
//! Commands are written `program arg …` (normalised arguments; one holding a blank in single quotes), separated by
//! ` ; `; what cannot be read is `?reason`. In the line, `\n` is a newline.

use hook_shell::{Analysis, Limits, parse};

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
    let commands = analysis
        .commands
        .iter()
        .map(|c| std::iter::once(c.program.clone()).chain(c.args.iter().map(word)).collect::<Vec<_>>().join(" "));
    let unknown =
        analysis.unknown.iter().map(|u| format!("?{}", serde_json::to_value(u.reason).unwrap().as_str().unwrap()));
    commands.chain(unknown).collect::<Vec<_>>().join(" ; ")
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
