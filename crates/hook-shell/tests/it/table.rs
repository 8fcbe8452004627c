//! The table: command lines with the simple commands they run and the verdicts of the example guards.

use hook_shell::{Limits, parse};

#[test]
fn explore() {
    for line in std::fs::read_to_string("/tmp/h11-lines.txt").unwrap_or_default().lines() {
        let a = parse(line, &Limits::default());
        println!("{line}\n    {}", serde_json::to_string(&a).unwrap());
    }
}

#[test]
fn stack_probe() {
    for (n, kb) in [(64usize, 1024usize), (300, 1024), (1000, 1024), (3000, 1024)] {
        let line = format!("{}true{}", "(".repeat(n), ")".repeat(n));
        let line2 = format!("{}true{}", "if true; then ".repeat(n), "; fi".repeat(n));
        let l = Limits { max_nesting: 100_000, ..Limits::default() };
        let ok = std::thread::Builder::new()
            .stack_size(kb * 1024)
            .spawn(move || {
                let a = parse(&line, &l);
                let b = parse(&line2, &l);
                (a.commands.len(), b.unknown.len())
            })
            .unwrap()
            .join();
        println!("{n} {kb}KB {:?}", ok.is_ok());
    }
}
