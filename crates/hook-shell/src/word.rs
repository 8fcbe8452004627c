//! One shell word as the program would receive it: quoting and escapes undone, what only run time knows marked.

use brush_parser::ParserOptions;
use brush_parser::word::{TildeExpr, WordPiece, WordPieceWithSource};

/// A word read statically.
#[derive(Debug, Clone, Default)]
pub(crate) struct Word {
    /// The text: quoting undone; an expansion kept as its source text (`$HOME`).
    pub text: String,
    /// Whether part of it is known only at run time (a parameter, a substitution, arithmetic).
    pub dynamic: bool,
    /// Whether an unquoted part holds a glob character or a brace expansion.
    pub pattern: bool,
    /// The scripts of its command substitutions, which the shell runs to build the word.
    pub substitutions: Vec<String>,
    /// Whether a substitution inside an expansion could not be taken apart (unbalanced parentheses).
    pub unreadable: bool,
    /// Whether the word is a process substitution, which the program receives as a `/dev/fd/N` path: known only
    /// at run time, but never a name a pattern on files matches.
    pub descriptor_path: bool,
}

/// Reads the word whose source text is `raw`; `None` when brush cannot read it.
pub(crate) fn read(raw: &str, options: &ParserOptions) -> Option<Word> {
    let pieces = brush_parser::word::parse(raw, options).ok()?;
    let mut word = Word::default();
    pieces_into(&pieces, raw, false, &mut word);
    Some(word)
}

fn pieces_into(pieces: &[WordPieceWithSource], raw: &str, quoted: bool, word: &mut Word) {
    for piece in pieces {
        let source = raw.get(piece.start_index..piece.end_index).unwrap_or_default();
        match &piece.piece {
            WordPiece::Text(text) => {
                if !quoted && is_pattern(text) {
                    word.pattern = true;
                }
                word.text.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => word.text.push_str(text),
            WordPiece::AnsiCQuotedText(text) => word.text.push_str(&ansi_c(text)),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                pieces_into(inner, raw, true, word);
            }
            WordPiece::TildeExpansion(tilde) => {
                // `~` is the home directory a pattern names as `~`; `~+` (the working directory), `~-` (the last
                // one), `~user` and the directory stack are known only at run time.
                if !matches!(tilde, TildeExpr::Home) {
                    word.dynamic = true;
                }
                word.text.push_str(&tilde_text(tilde));
            }
            WordPiece::EscapeSequence(escape) => {
                let mut chars = escape.chars();
                if chars.next() == Some('\\') && !chars.as_str().is_empty() {
                    word.text.push_str(chars.as_str());
                } else {
                    word.text.push_str(escape);
                }
            }
            WordPiece::CommandSubstitution(script) | WordPiece::BackquotedCommandSubstitution(script) => {
                word.dynamic = true;
                word.substitutions.push(script.clone());
                word.text.push_str(source);
            }
            WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                word.dynamic = true;
                word.text.push_str(source);
                // `${x:-$(cmd)}`, `${a[$(cmd)]}`, `$(( $(cmd) ))`: bash runs the substitutions inside.
                match embedded(source) {
                    Some(scripts) => word.substitutions.extend(scripts),
                    None => word.unreadable = true,
                }
            }
        }
    }
}

/// The scripts of the command substitutions (`$(…)`, `` `…` ``) and process substitutions inside an expansion's
/// source text (the text after its own `${` or `$((`); `None` when one is not closed.
pub(crate) fn embedded(source: &str) -> Option<Vec<String>> {
    let inner = source.strip_prefix("${").or_else(|| source.strip_prefix("$((")).unwrap_or(source);
    let bytes = inner.as_bytes();
    let mut scripts = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let opens = bytes[at] == b'(' && at > 0 && matches!(bytes[at - 1], b'$' | b'<' | b'>');
        if opens && bytes.get(at + 1) != Some(&b'(') {
            let close = closing(bytes, at)?;
            scripts.push(inner[at + 1..close].to_owned());
            at = close + 1;
        } else if bytes[at] == b'`' {
            let close = at + 1 + inner[at + 1..].find('`')?;
            scripts.push(inner[at + 1..close].to_owned());
            at = close + 1;
        } else {
            at += 1;
        }
    }
    Some(scripts)
}

/// The index of the parenthesis closing the one at `open`, quotes skipped.
fn closing(bytes: &[u8], open: usize) -> Option<usize> {
    let (mut depth, mut at, mut quote) = (0usize, open, None);
    while at < bytes.len() {
        let b = bytes[at];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\\' => at += 1,
                b'\'' | b'"' => quote = Some(b),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            },
        }
        at += 1;
    }
    None
}

/// Whether unquoted text is a glob or a brace expansion the shell would expand.
fn is_pattern(text: &str) -> bool {
    let bracket = text.find('[').is_some_and(|open| text[open + 1..].contains(']'));
    text.contains(['*', '?'])
        || bracket
        || (text.contains('{') && text.contains('}') && (text.contains(',') || text.contains("..")))
}

fn tilde_text(tilde: &TildeExpr) -> String {
    match tilde {
        TildeExpr::Home => "~".to_owned(),
        TildeExpr::UserHome(user) => format!("~{user}"),
        TildeExpr::WorkingDir => "~+".to_owned(),
        TildeExpr::OldWorkingDir => "~-".to_owned(),
        TildeExpr::NthDirFromTopOfDirStack { n, plus_used } => {
            format!("~{}{n}", if *plus_used { "+" } else { "" })
        }
        TildeExpr::NthDirFromBottomOfDirStack { n } => format!("~-{n}"),
    }
}

/// The text of an ANSI-C quoted string (`$'\x72m'`), its escapes decoded as bash decodes them.
pub(crate) fn ansi_c(body: &str) -> String {
    let body = body.strip_prefix("$'").and_then(|b| b.strip_suffix('\'')).unwrap_or(body);
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(e);
        }
        while digits.len() < max + usize::from(radix == 8) && chars.peek().is_some_and(|d| d.is_digit(radix)) {
            digits.extend(chars.next());
        }
        match u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32) {
            Some(decoded) if !digits.is_empty() => out.push(decoded),
            _ => {
                out.push('\\');
                out.push(e);
                out.push_str(if radix == 8 { &digits[1..] } else { &digits });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(raw: &str) -> String {
        read(raw, &ParserOptions::default()).unwrap().text
    }

    #[test]
    fn quoting_and_escapes_are_undone() {
        assert_eq!(text("r\"\"m"), "rm");
        assert_eq!(text("\\rm"), "rm");
        assert_eq!(text("'r'm"), "rm");
        assert_eq!(text("$'\\x72\\155'"), "rm");
        assert_eq!(text("\"a b\"'c'"), "a bc");
        assert_eq!(text("~/x"), "~/x");
    }

    #[test]
    fn expansions_are_dynamic_and_keep_their_source() {
        let word = read("\"$HOME\"/x", &ParserOptions::default()).unwrap();
        assert!(word.dynamic);
        assert_eq!(word.text, "$HOME/x");
        let word = read("$(rm -rf /)", &ParserOptions::default()).unwrap();
        assert_eq!(word.substitutions, ["rm -rf /"]);
        let word = read("${x:-$(rm -rf \"/\")}${a[`ls`]}$(( $(id -u) + 1 ))", &ParserOptions::default()).unwrap();
        assert_eq!(word.substitutions, ["rm -rf \"/\"", "ls", "id -u"]);
        assert!(read("${x:-<(ls)}", &ParserOptions::default()).unwrap().substitutions == ["ls"]);
        assert!(read("r*", &ParserOptions::default()).unwrap().pattern);
        assert!(!read("'r*'", &ParserOptions::default()).unwrap().pattern);
    }
}
