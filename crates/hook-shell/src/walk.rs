//! The walk over brush's syntax tree: every simple command in the order the line names it, with the scripts its
//! words, redirections and compound commands hold.

use brush_parser::ast;

use crate::resolve::{Context, Reader};
use crate::word::{self, Word};
use crate::{Redirection, RedirectionMode, UnknownReason};

/// The most brackets and parentheses an arithmetic command is read with (its text is parsed to tell arithmetic from
/// subshells).
const MAX_ARITHMETIC_NESTING: usize = 4;

impl Reader<'_> {
    pub(crate) fn program(&mut self, program: &ast::Program, cx: &Context) {
        for complete in &program.complete_commands {
            self.compound_list(complete, cx);
        }
    }

    fn compound_list(&mut self, list: &ast::CompoundList, cx: &Context) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first, cx);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline) => self.pipeline(pipeline, cx),
                }
            }
        }
    }

    /// A pipeline: each command reads the output of the one before it.
    fn pipeline(&mut self, pipeline: &ast::Pipeline, cx: &Context) {
        let mut before = cx.piped_from.clone();
        for command in &pipeline.seq {
            let inner = Context { piped_from: before.clone(), ..cx.clone() };
            let first = self.count();
            self.command(command, &inner);
            if pipeline.seq.len() > 1 {
                before = self.last_program_since(first).or(before);
            }
        }
    }

    fn command(&mut self, command: &ast::Command, cx: &Context) {
        if !self.enter() {
            return;
        }
        match command {
            ast::Command::Simple(simple) => self.simple(simple, cx),
            ast::Command::Compound(compound, redirects) => {
                // The compound's files are opened before its body runs, for every command inside it.
                let mut inner = cx.clone();
                for redirect in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(redirect, cx, &mut inner.redirects);
                }
                self.compound(compound, &inner);
            }
            ast::Command::Function(function) => {
                self.compound(&function.body.0, cx);
            }
            ast::Command::ExtendedTest(test, _) => self.extended_test(&test.expr, cx),
        }
        self.leave();
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, cx: &Context) {
        match compound {
            ast::CompoundCommand::Arithmetic(arithmetic) => {
                let written = self.written(&arithmetic.loc);
                if written.starts_with("((") {
                    self.arithmetic(&arithmetic.expr.value, cx);
                } else {
                    // `( (…) )`: two subshells, which brush reads as `((…))`.
                    self.subshells(&written, cx);
                }
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater].into_iter().flatten() {
                    self.arithmetic(&expr.value, cx);
                }
                self.compound_list(&clause.body.list, cx);
            }
            ast::CompoundCommand::BraceGroup(group) => self.compound_list(&group.list, cx),
            ast::CompoundCommand::Subshell(subshell) => self.compound_list(&subshell.list, cx),
            ast::CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.word(value, cx);
                }
                self.compound_list(&clause.body.list, cx);
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value, cx);
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.word(pattern, cx);
                    }
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, cx);
                    }
                }
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.compound_list(&clause.condition, cx);
                self.compound_list(&clause.then, cx);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.compound_list(condition, cx);
                    }
                    self.compound_list(&branch.body, cx);
                }
            }
            ast::CompoundCommand::WhileClause(clause) | ast::CompoundCommand::UntilClause(clause) => {
                self.compound_list(&clause.0, cx);
                self.compound_list(&clause.1.list, cx);
            }
            ast::CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body, cx),
        }
    }

    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr, cx: &Context) {
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, cx);
                self.extended_test(b, cx);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => self.extended_test(a, cx),
            ast::ExtendedTestExpr::UnaryTest(_, word) => {
                self.word(word, cx);
            }
            ast::ExtendedTestExpr::BinaryTest(_, left, right) => {
                self.word(left, cx);
                self.word(right, cx);
            }
        }
    }

    /// Arithmetic text: a substitution inside it runs, and brush leaves it unparsed. Text that is not arithmetic
    /// is what bash then reads as nested subshells, and so is it here.
    fn arithmetic(&mut self, text: &str, cx: &Context) {
        if text.contains("$(") || text.contains('`') {
            self.unknown(UnknownReason::Syntax, text);
        } else if text.chars().filter(|c| matches!(c, '[' | '(')).count() > MAX_ARITHMETIC_NESTING {
            // brush's arithmetic parser backtracks exponentially on nested subscripts (found by the fuzzer).
            self.unknown(UnknownReason::TooDeep, text);
        } else if brush_parser::arithmetic::parse(text).is_err() {
            self.subshells(&format!("({text})"), cx);
        }
    }

    /// `( (…) )` as written: the outer subshell's body read on its own, one level deeper.
    fn subshells(&mut self, written: &str, cx: &Context) {
        let inner = written.strip_prefix('(').and_then(|w| w.strip_suffix(')')).unwrap_or(written);
        if self.enter() {
            self.script(&format!("(\n{inner}\n)"), cx);
            self.leave();
        }
    }

    /// A word's own scripts (its command substitutions) read; the word answered.
    pub(crate) fn word(&mut self, word: &ast::Word, cx: &Context) -> Option<Word> {
        let Some(read) = word::read(&word.value, &self.options) else {
            self.unknown(UnknownReason::Syntax, &word.value);
            return None;
        };
        for script in &read.substitutions {
            self.nested(script, cx, None);
        }
        Some(read)
    }

    /// A redirection: its target's scripts read, the file it opens added to `files`, what it feeds the
    /// command's standard input answered.
    fn redirect(&mut self, redirect: &ast::IoRedirect, cx: &Context, files: &mut Vec<Redirection>) -> Option<Stdin> {
        match redirect {
            ast::IoRedirect::File(fd, kind, target) => match target {
                ast::IoFileRedirectTarget::Filename(word) => {
                    let read = self.word(word, cx)?;
                    let (default, mode) = match kind {
                        ast::IoFileRedirectKind::Read => (0, RedirectionMode::Read),
                        ast::IoFileRedirectKind::ReadAndWrite => (0, RedirectionMode::ReadWrite),
                        ast::IoFileRedirectKind::Append => (1, RedirectionMode::Append),
                        ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => {
                            (1, RedirectionMode::Write)
                        }
                        ast::IoFileRedirectKind::DuplicateInput | ast::IoFileRedirectKind::DuplicateOutput => {
                            return self.duplicate(*fd, kind, read, files);
                        }
                    };
                    files.push(opened(fd.map_or(default, descriptor), mode, read));
                    None
                }
                ast::IoFileRedirectTarget::Duplicate(word) => {
                    let read = self.word(word, cx)?;
                    self.duplicate(*fd, kind, read, files)
                }
                ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                    self.subshell(subshell, cx);
                    None
                }
                ast::IoFileRedirectTarget::Fd(_) => None,
            },
            ast::IoRedirect::HereDocument(fd, doc) => {
                let stdin = fd.is_none_or(|fd| fd == 0);
                if doc.requires_expansion {
                    // An unquoted delimiter: the body's substitutions run as the document is read.
                    self.heredoc_substitutions(&doc.doc.value, cx);
                }
                stdin.then(|| Stdin::Script(doc.doc.value.clone()))
            }
            ast::IoRedirect::HereString(fd, word) => {
                let read = self.word(word, cx)?;
                (fd.is_none_or(|fd| fd == 0) && !read.dynamic).then_some(Stdin::Script(read.text))
            }
            ast::IoRedirect::OutputAndError(word, append) => {
                let read = self.word(word, cx)?;
                let mode = if *append { RedirectionMode::Append } else { RedirectionMode::Write };
                files.push(opened(1, mode, read));
                None
            }
        }
    }

    /// `>&word`, `<&word`: a copy of a descriptor when the word is one (`2>&1`, `>&-`); `>&file` (standard output
    /// only) writes the file as `&>` does. A word known only at run time could be either, and is listed.
    fn duplicate(
        &mut self,
        fd: Option<ast::IoFd>,
        kind: &ast::IoFileRedirectKind,
        read: Word,
        files: &mut Vec<Redirection>,
    ) -> Option<Stdin> {
        let descriptor_text = |t: &str| {
            let digits = t.strip_suffix('-').unwrap_or(t);
            digits.chars().all(|c| c.is_ascii_digit())
        };
        let output = matches!(kind, ast::IoFileRedirectKind::DuplicateOutput);
        let known = !read.dynamic && !read.pattern;
        if output && fd.is_none_or(|fd| fd == 1) && !(known && descriptor_text(&read.text)) {
            files.push(opened(1, RedirectionMode::Write, read));
        }
        None
    }

    fn heredoc_substitutions(&mut self, body: &str, cx: &Context) {
        match brush_parser::word::parse_heredoc(body, &self.options) {
            Ok(pieces) => {
                for piece in pieces {
                    if let brush_parser::word::WordPiece::CommandSubstitution(script)
                    | brush_parser::word::WordPiece::BackquotedCommandSubstitution(script) = piece.piece
                    {
                        self.nested(&script, cx, None);
                    }
                }
            }
            Err(_) => self.unknown(UnknownReason::Syntax, body),
        }
    }

    fn subshell(&mut self, subshell: &ast::SubshellCommand, cx: &Context) {
        if self.enter() {
            self.compound_list(&subshell.list, cx);
            self.leave();
        }
    }

    /// A simple command: its assignments' and redirections' scripts, then its words resolved.
    fn simple(&mut self, simple: &ast::SimpleCommand, cx: &Context) {
        let mut words = Vec::new();
        let mut stdin = None;
        let mut own = cx.clone();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            self.item(item, cx, &mut words, &mut stdin, &mut own.redirects);
        }
        if let Some(program) = &simple.word_or_name {
            match self.word(program, cx) {
                Some(read) => words.push(read),
                None => return,
            }
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            self.item(item, cx, &mut words, &mut stdin, &mut own.redirects);
        }
        if !words.is_empty() {
            self.resolve(words, &own, stdin);
        }
    }

    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        cx: &Context,
        words: &mut Vec<Word>,
        stdin: &mut Option<Stdin>,
        files: &mut Vec<Redirection>,
    ) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                if let Some(found) = self.redirect(redirect, cx, files) {
                    *stdin = Some(found);
                }
            }
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                if let Some(read) = self.word(word, cx) {
                    words.push(read);
                }
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                if words.is_empty() {
                    self.assignment(assignment, cx);
                } else if let Some(read) = self.word(word, cx) {
                    // After the program (`git commit -m a=b`) it is an argument like any other.
                    words.push(read);
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.subshell(subshell, cx);
                words.push(Word { text: "<(…)".to_owned(), dynamic: true, ..Word::default() });
            }
        }
    }

    fn assignment(&mut self, assignment: &ast::Assignment, cx: &Context) {
        match &assignment.value {
            ast::AssignmentValue::Scalar(word) => {
                self.word(word, cx);
            }
            ast::AssignmentValue::Array(elements) => {
                for (key, value) in elements {
                    if let Some(key) = key {
                        self.word(key, cx);
                    }
                    self.word(value, cx);
                }
            }
        }
    }
}

/// The file a redirection opens, from its target word.
fn opened(fd: u32, mode: RedirectionMode, target: Word) -> Redirection {
    Redirection { fd, mode, known: !target.dynamic && !target.pattern, target: target.text }
}

fn descriptor(fd: ast::IoFd) -> u32 {
    u32::try_from(fd).unwrap_or(u32::MAX)
}

/// What a simple command reads on its standard input, where the line says.
#[derive(Debug, Clone)]
pub(crate) enum Stdin {
    /// A here-document's or here-string's text (a script, when the program is a shell).
    Script(String),
}
