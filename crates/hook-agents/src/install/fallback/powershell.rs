//! The fail-closed wrapper as Windows runs it: one `powershell.exe … -EncodedCommand BASE64` line, which `cmd`,
//! PowerShell and Git Bash all run the same way (the base64 holds no character any of them treats specially), so
//! it holds whichever shell the agent starts its hooks with (Claude Code: Git Bash, else PowerShell).
//!
//! The script reads the agent's input, starts the bridge command through `%ComSpec% /d /s /c`, hands it the input,
//! and waits at most the timer for it. The bridge's statuses on a gate, 0 and 2, pass through; anything else — `cmd`'s 9009
//! (not found), another status, no answer in time (then the bridge's tree is killed with `taskkill /T /F`), a start
//! that failed — becomes the agent's blocking answer with the reason, as on Unix. The bridge command sits on a line
//! of its own, `$hook_bridge_line = '…'`, where [`hook_config::BridgeProgram`] finds it after decoding.

use hook_config::ENCODED_BRIDGE_VARIABLE;

use super::MARK;
use crate::bridge::Answer;

/// What the wrapper says for each way the bridge fails to answer (JSON-safe, no `'`).
pub(super) struct Reasons {
    pub(super) timer: String,
    pub(super) missing: String,
    /// Followed by the status.
    pub(super) status: String,
    /// Followed by the start's error, stripped to letters, digits and plain punctuation.
    pub(super) start: String,
}

/// The whole command line for `script`: `powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand
/// <base64>`.
pub(super) fn encoded_line(script: &str) -> String {
    let utf16: Vec<u8> = script.encode_utf16().flat_map(u16::to_le_bytes).collect();
    format!("powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand {}", base64(&utf16))
}

/// The PowerShell script (5.1 and 7 alike).
pub(super) fn script(command: &str, timer_secs: u64, reasons: &Reasons, answer: &Answer) -> String {
    let ms = timer_secs.saturating_mul(1_000);
    let mut lines = vec![
        format!("{ENCODED_BRIDGE_VARIABLE} = {}", literal(command)),
        "$why = ''".to_owned(),
        "try {".to_owned(),
        "$in = New-Object IO.MemoryStream; [Console]::OpenStandardInput().CopyTo($in)".to_owned(),
        format!(
            "$s = New-Object Diagnostics.ProcessStartInfo $env:ComSpec, ('/d /s /c \"' + {ENCODED_BRIDGE_VARIABLE} + \
             '\"')"
        ),
        "$s.UseShellExecute = $false; $s.RedirectStandardInput = $true".to_owned(),
        "$p = [Diagnostics.Process]::Start($s); $t = [Diagnostics.Stopwatch]::StartNew()".to_owned(),
        "$w = $p.StandardInput.BaseStream.WriteAsync($in.ToArray(), 0, [int]$in.Length)".to_owned(),
        format!("if ($w.Wait({ms})) {{ $p.StandardInput.Close() }}"),
        format!("if ($p.WaitForExit([Math]::Max(0, {ms} - [int]$t.ElapsedMilliseconds))) {{"),
        "$c = $p.ExitCode; if ($c -in 0,2) { exit $c }".to_owned(),
        format!(
            "if ($c -eq 9009) {{ $why = {} }} else {{ $why = {} + $c }}",
            literal(&reasons.missing),
            literal(&reasons.status)
        ),
        format!("}} else {{ taskkill.exe /T /F /PID $p.Id 2>&1 | Out-Null; $why = {} }}", literal(&reasons.timer)),
        format!(
            "}} catch {{ $why = {} + ($_.Exception.Message -replace '[^A-Za-z0-9 .,:()-]', ' ') }}",
            literal(&reasons.start)
        ),
    ];
    for (stream, text) in [("Out", &answer.stdout), ("Error", &answer.stderr)] {
        let text = text.strip_suffix('\n').unwrap_or(text);
        if !text.is_empty() {
            let pieces: Vec<String> = text.split(MARK).map(literal).collect();
            lines.push(format!("[Console]::{stream}.Write({} + \"`n\")", pieces.join(" + $why + ")));
        }
    }
    lines.push(format!("exit {}", answer.exit_code));
    lines.join("\n")
}

/// `text` as a PowerShell single-quoted string (a `'` doubled).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_config::BridgeProgram;

    fn reasons() -> Reasons {
        Reasons {
            timer: "hook did not answer within 64 s".into(),
            missing: "hook was not found on the PATH the agent gives its hooks".into(),
            status: "hook exited with a status hook bridge never uses: ".into(),
            start: "hook could not be started: ".into(),
        }
    }

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn the_wrapper_is_recognised_as_the_bridge_and_fits_a_cmd_line() {
        let answer = Answer { stdout: format!("{{\"reason\":\"{MARK}\"}}\n"), stderr: String::new(), exit_code: 2 };
        let line = encoded_line(&script("C:/tools/hook.exe bridge --protocol claude", 64, &reasons(), &answer));
        assert!(BridgeProgram::named(["hook"]).invokes_bridge_line(&line), "{line}");
        assert!(!hook_config::lone_command(&line), "the wrapper is a fallback around the bridge");
        // cmd's longest command line is 8 191 characters.
        assert!(line.len() < 8_000, "{} characters", line.len());
        let other = encoded_line(&script("C:/tools/other.exe run --protocol claude", 64, &reasons(), &answer));
        assert!(!BridgeProgram::named(["hook"]).invokes_bridge_line(&other));
    }

    #[test]
    fn the_script_passes_the_bridge_statuses_and_answers_every_other_end() {
        let answer =
            Answer { stdout: format!("{{\"why\":\"{MARK}\"}}\n"), stderr: "it's blocked\n".into(), exit_code: 2 };
        let script = script("hook bridge --protocol claude", 64, &reasons(), &answer);
        assert!(script.starts_with("$hook_bridge_line = 'hook bridge --protocol claude'\n"), "{script}");
        assert!(script.contains("if ($c -in 0,2) { exit $c }"), "{script}");
        assert!(script.contains("WaitForExit([Math]::Max(0, 64000 - "), "{script}");
        assert!(script.contains("[Console]::Out.Write('{\"why\":\"' + $why + '\"}' + \"`n\")"), "{script}");
        assert!(script.contains("[Console]::Error.Write('it''s blocked' + \"`n\")"), "{script}");
        assert!(script.ends_with("\nexit 2"), "{script}");
    }
}
