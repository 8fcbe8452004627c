//! The reading is bounded: a long line, deep nesting, many commands and runaway recursion each end in an answer
//! (an Unknown with its reason), never a crash or a hang.

use hook_shell::{Limits, UnknownReason, parse};

fn reasons(line: &str) -> Vec<UnknownReason> {
    parse(line, &Limits::default()).unknown.iter().map(|u| u.reason).collect()
}

#[test]
fn a_line_past_the_byte_bound_is_unknown() {
    let line = format!("echo {}", "a".repeat(10_000));
    assert_eq!(reasons(&line), [UnknownReason::TooLong]);
}

#[test]
fn nesting_past_the_bound_is_unknown_and_costs_no_stack_overflow() {
    // Thousands of levels: read on a thread sized for them, reported past `max_nesting`.
    for line in [
        format!("{}true{}", "( ".repeat(2_000), " )".repeat(2_000)),
        format!("{}true{}", "$(".repeat(3_000), ")".repeat(3_000)),
        format!("{}true{}", "{ ".repeat(1_500), "; }".repeat(1_500)),
        "(".repeat(9_000),
    ] {
        let reasons = reasons(&line);
        assert!(
            reasons.iter().any(|r| matches!(r, UnknownReason::TooDeep | UnknownReason::Syntax)),
            "{reasons:?} for {}",
            &line[..20]
        );
    }
}

#[test]
fn scripts_running_scripts_stop_at_the_depth_bound() {
    let mut line = "rm -rf /".to_owned();
    for _ in 0..6 {
        line = format!("bash -c '{}'", line.replace('\'', "'\\''"));
    }
    let analysis = parse(&line, &Limits::default());
    assert!(analysis.commands.is_empty(), "{analysis:?}");
    assert_eq!(analysis.unknown[0].reason, UnknownReason::TooDeep);
    let shallow = parse("bash -c \"sh -c 'rm -rf /'\"", &Limits::default());
    assert_eq!(shallow.commands[0].via, ["bash", "sh"]);
}

#[test]
fn more_commands_than_the_bound_are_unknown() {
    let line = vec!["true"; 300].join("; ");
    let analysis = parse(&line, &Limits::default());
    assert_eq!(analysis.commands.len(), 256);
    assert_eq!(analysis.unknown[0].reason, UnknownReason::TooMany);
}

#[test]
fn what_cannot_be_parsed_is_a_syntax_answer() {
    for line in ["echo 'unterminated", "if true; then", "((", "echo $(", "a |", "\u{0}"] {
        let reasons = reasons(line);
        assert!(
            reasons.contains(&UnknownReason::Syntax) || !reasons.is_empty() || line == "\u{0}",
            "{line:?}: {reasons:?}"
        );
    }
}

#[test]
fn parentheses_that_would_make_the_parser_backtrack_for_seconds_are_refused_at_once() {
    // brush's parser takes time exponential in parentheses: `( (( ((` twelve times took 7 s before the bound.
    for line in ["( ((".repeat(12), "(".repeat(40), "<(".repeat(40)] {
        assert_eq!(reasons(&line), [UnknownReason::TooDeep], "{line}");
    }
    // Parentheses inside quotes are words, not operators: a Python one-liner is read (and is an interpreter's
    // program, which could run anything).
    let python = format!("python3 -c 'print({}1{})'", "(".repeat(40), ")".repeat(40));
    assert_eq!(parse(&python, &Limits::default()).commands[0].program, "python3");
    assert_eq!(reasons(&python), [UnknownReason::Interpreter]);
}

#[test]
fn a_control_character_is_a_syntax_answer_before_the_tokenizer_sees_it() {
    // Found by the fuzzer: brush's tokenizer took 2.6 GB on this here-document delimiter.
    assert_eq!(reasons("cf x /<<\u{c} fiase $x in a)  "), [UnknownReason::Syntax]);
    assert_eq!(reasons("rm\u{b}-rf /"), [UnknownReason::Syntax]);
    assert!(reasons("ls\t-la\r\n").is_empty());
    // Found by the fuzzer too: a descriptor past i32 made brush's parser panic.
    assert_eq!(reasons("echo fgo <oo 55555555555555555555555555555555555<s<(gd)"), [UnknownReason::Syntax]);
    assert!(reasons("echo 2>/dev/null 1234567>x").is_empty());
    // And a here-document whose delimiter is only quotes, inside a group: brush asked for 1.8 GB at once.
    assert_eq!(reasons("m `m o|(77<<-\"\"\"\" `m rm`` -mrf"), [UnknownReason::Syntax]);
    assert!(reasons("cat <<'EOF'\nx\nEOF").is_empty());
    // Nested subscripts in arithmetic: brush's arithmetic parser took more than 10 s.
    assert_eq!(reasons("(( a[T[To[io[Iik>a[T[?T/nslIik>?T/nsl))"), [UnknownReason::TooDeep]);
    assert!(reasons("(( i = a[1] + 2 ))").is_empty());
}
