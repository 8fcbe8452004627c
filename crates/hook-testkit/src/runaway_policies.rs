//! Rego that runs away, for the tests of the bounds on a `policy` hook's evaluation (docs/policy.md#bounds): each
//! is a package `p` whose rule `d` would answer `pass` if it ever finished.
//!
//! ```
//! use hook_testkit::runaway_policies::{HUGE_RANGE, doubling_string, quadratic_search};
//! for rego in [HUGE_RANGE.to_owned(), doubling_string(), quadratic_search(18)] {
//!     assert!(rego.starts_with("package p\n") && rego.contains("d := "));
//! }
//! ```

/// One builtin call that asks for ten billion numbers at once: `numbers.range` reserves the whole array before it
/// looks at anything (an allocation of hundreds of gigabytes, which fails and, unbounded, aborts the process).
pub const HUGE_RANGE: &str = "package p\nimport rego.v1\n\
    d := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count(numbers.range(1, 10000000000))])}\n";

/// A set of two hundred million numbers, with a 100 ms timeout the case that ran 31 s and took 4.7 GB: the range
/// under it is one builtin call that reserves 4.8 GB (the kernel grants it lazily) and then fills it, element by
/// element, never looking at the interpreter's timer.
pub const HUGE_SET: &str = "package p\nimport rego.v1\n\
    d := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count({x | some x in numbers.range(1, 200000000)})])}\n";

/// A string that doubles, rule after rule, to a tebibyte: memory that grows one allocation at a time.
pub fn doubling_string() -> String {
    let mut rego = String::from("package p\nimport rego.v1\ns0 := \"a\"\n");
    for i in 1..=40 {
        rego.push_str(&format!("s{i} := concat(\"\", [s{j}, s{j}])\n", j = i - 1));
    }
    rego.push_str("d := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count(s40)])}\n");
    rego
}

/// One builtin call that runs long without allocating or looking at the interpreter's timer: `indexof_n` compares
/// the needle (2^`needle_log2` `a`s and a `b`) at every position of a haystack four times its length, so it does
/// about 3·4^`needle_log2` byte comparisons (18: 2·10^11, several seconds; 20: 3·10^12, minutes).
pub fn quadratic_search(needle_log2: u32) -> String {
    let mut rego = String::from("package p\nimport rego.v1\ns0 := \"a\"\n");
    for i in 1..=needle_log2 + 2 {
        rego.push_str(&format!("s{i} := concat(\"\", [s{j}, s{j}])\n", j = i - 1));
    }
    rego.push_str(&format!(
        "d := {{\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count(indexof_n(s{}, concat(\"\", [s{needle_log2}, \"b\"])))])}}\n",
        needle_log2 + 2
    ));
    rego
}

/// An interpreter loop of 4·10^8 steps, which the interpreter's own timer stops at the hook's timeout; `input.input
/// .command == "quick"` answers at once instead.
pub const SLOW_UNLESS_QUICK: &str = "package p\nimport rego.v1\n\
    default d := {\"decision\": \"pass\", \"reason\": \"quick\"}\n\
    d := {\"decision\": \"pass\", \"reason\": sprintf(\"%d\", [count([1 | some a in numbers.range(1, 20000); \
    some b in numbers.range(1, 20000); a == b + 30000])])} if input.input.command != \"quick\"\n";
