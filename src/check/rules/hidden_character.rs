use super::prelude::*;
use crate::lower::strings::decode;
use crate::source::hidden::{hidden_chars, Hidden};
use crate::source::SourceFile;
use crate::syntax::tree::{File, Item, StrLit, Token};

pub use crate::codes::HIDDEN_CHARACTER as RULE;

/// Checks the manifest's text as written, and what its strings' escapes
/// decode to. Runs on the source rather than the plugin: comments and
/// every other part of the file count, and every string the model reads
/// (bodies, `applies on request` descriptions, fact headings, preface
/// sources and origins, call arguments) is one of the file's strings.
///
/// An escape (`\u{202e}`) shows a reviewer what it is, but the model
/// receives the character, so it is reported too. The bundle a workspace
/// installs is read back with every hidden character written as an escape
/// (`trust::reread`), and this rule runs on it again there, whatever its
/// author waived.
pub fn check_text(source: &SourceFile, tree: &File<'_>, out: &mut Vec<Diagnostic>) {
    let text = &source.text;
    let written =
        hidden_chars(text).map(|(at, c, kind)| (Span::new(at, at + c.len_utf8()), c, kind));
    for run in runs(written) {
        out.push(raw(text, run));
    }
    for_each_string(&tree.items, &mut |literal| {
        if !literal.body.contains('\\') {
            return;
        }
        let decoded = decode(literal, &mut Vec::new());
        let escapes = hidden_chars(&decoded.value).filter_map(|(at, c, kind)| {
            let from = decoded.map.source_offset(at);
            let length = escape_length(text.get(from..)?)?;
            Some((Span::new(from, from + length), c, kind))
        });
        for run in runs(escapes) {
            out.push(escaped(run));
        }
    });
}

/// Adjacent hidden characters: one finding.
#[derive(Debug, Clone, Copy)]
struct Run {
    span: Span,
    first: char,
    kind: Hidden,
    count: usize,
}

fn runs(found: impl Iterator<Item = (Span, char, Hidden)>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (span, c, kind) in found {
        match runs.last_mut() {
            Some(run) if run.span.end == span.start => {
                run.span = Span::new(run.span.start, span.end);
                run.count += 1;
            }
            _ => runs.push(Run {
                span,
                first: c,
                kind,
                count: 1,
            }),
        }
    }
    runs
}

/// Every string literal among `items`, in source order.
fn for_each_string<'a>(items: &[Item<'a>], visit: &mut impl FnMut(&StrLit<'a>)) {
    fn token<'a>(written: &Token<'a>, visit: &mut impl FnMut(&StrLit<'a>)) {
        match written {
            Token::Str(literal) => visit(literal),
            Token::List(list) => list.items.iter().for_each(|item| token(item, visit)),
            Token::Word(_) | Token::Op(_) => {}
        }
    }
    for item in items {
        match item {
            Item::Block(block) => for_each_string(&block.items, visit),
            Item::Field(field) => field.tokens.iter().for_each(|each| token(each, visit)),
            Item::Pair(pair) => token(&pair.value, visit),
        }
    }
}

/// The length of the escape `written` starts with (`\u{202e}`, `\0`), or
/// `None` when it does not start with one: the character was written raw,
/// and the scan of the text as written reports it.
fn escape_length(written: &str) -> Option<usize> {
    let after = written.strip_prefix('\\')?;
    if after.starts_with("u{") {
        after.find('}').map(|close| 1 + close + 1)
    } else {
        after.chars().next().map(|c| 1 + c.len_utf8())
    }
}

fn what(run: &Run) -> String {
    if run.count == 1 {
        format!("{}, `{}`", run.kind.describe(), escape(run.first))
    } else {
        format!(
            "{} hidden characters in a row, the first {}, `{}`",
            run.count,
            run.kind.describe(),
            escape(run.first)
        )
    }
}

/// A hidden character written as itself.
fn raw(text: &str, run: Run) -> Diagnostic {
    let label = match run.kind {
        Hidden::Control => "acts on terminals, shown as nothing",
        Hidden::Bidi => "reorders the text around it when shown",
        Hidden::Invisible => "shown as nothing",
        Hidden::Selector => "shown as nothing, or as the character before it",
        Hidden::Tag => "invisible letters that models read",
    };
    let escaped: String = text[run.span.range()].chars().map(escape).collect();
    let shown = escape(run.first);
    Diagnostic::new(&RULE, format!("this text holds {}", what(&run)))
        .primary(run.span, label)
        .help(format!(
            "delete it; if it is meant, write it as an escape (`{shown}`) so that reviewers and the approval screen show it, and say why with `# contrib: allow(hidden-character) -- reason`"
        ))
        .fix(Fix::replace(
            if run.count == 1 {
                "Write it as an escape".to_string()
            } else {
                format!("Write the {} characters as escapes", run.count)
            },
            // In a string the escape decodes to the same character and in
            // a comment it changes nothing; anywhere else it changes a
            // word, so the fix is applied only when asked for.
            Applicability::Unsafe,
            run.span,
            escaped,
        ))
}

/// A hidden character written as an escape: a reviewer sees it, the model
/// receives the character.
fn escaped(run: Run) -> Diagnostic {
    let written = if run.count == 1 {
        "an escape"
    } else {
        "escapes"
    };
    Diagnostic::new(&RULE, format!("this string holds {}, written as {written}", what(&run)))
        .primary(run.span, "the model receives the character, not the escape")
        .help(
            "delete it; if it is meant, say why with `# contrib: allow(hidden-character) -- reason`: an installer's check reports it again, whatever this file waives",
        )
}

/// `\u{202e}`: the language's escape for `c`.
fn escape(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}
