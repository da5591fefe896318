//! `textDocument/semanticTokens/full` and `…/full/delta`: highlighting from
//! the compiler's own understanding, for every LSP editor.
//!
//! The tokens are read from the version's tree (the recovering parser's,
//! so a broken contributor does not blank the rest) with the language's own
//! tables: a word is a field only where its block takes that field (the
//! table of kinds), a value is an enum member only when it is one of its
//! field's vocabulary, a `{variable}` only when the platform has it, a
//! duration only when lowering would read it. What the compiler would
//! reject gets no token, so it stands out as plain text.
//!
//! | Written | Token type |
//! |---|---|
//! | `plugin`, `call`, `tokens`, `operations`, `on`, `to`, `true` … | `keyword` |
//! | a contributor kind (`text`, `eager-load`, …) | `type` |
//! | the plugin's name, a required or loaded skill | `namespace` |
//! | a contributor's id | `variable` + `declaration` |
//! | a field's name | `property` |
//! | a vocabulary value (placement, owner, condition, fact section …) | `enumMember` |
//! | a tool | `function` |
//! | a skill's operation | `method` |
//! | a call's argument name | `parameter` |
//! | a string, an origin, a glob | `string` |
//! | a `{variable}` in a body | `variable` + `readonly` |
//! | a version, a number, a duration | `number` |
//! | `>`, `<`, `=` … | `operator` |
//! | a comment | `comment` |
//!
//! Computed once per version (see `version`). The delta answer compares
//! the tokens last sent for the document with the current ones and sends
//! the one edit between their common beginning and end.

use lsp_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensDelta,
    SemanticTokensDeltaParams, SemanticTokensEdit, SemanticTokensFullDeltaResult,
    SemanticTokensLegend, SemanticTokensParams, SemanticTokensResult,
};

mod marks;

use self::marks::tokens;
use crate::lsp::version::Syntax;
use crate::lsp::world::World;
use crate::source::SourceFile;

/// The token types, in the order of the legend.
const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::COMMENT,
];

const MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::READONLY,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum TokenType {
    Keyword,
    Type,
    Namespace,
    Variable,
    Property,
    EnumMember,
    Function,
    Method,
    Parameter,
    Str,
    Number,
    Operator,
    Comment,
}

pub(super) const DECLARATION: u32 = 1;
pub(super) const READONLY: u32 = 2;

/// The route's handler for a full request: every token, remembered so a
/// delta can be asked against it.
pub fn full_request(
    world: &mut World,
    params: SemanticTokensParams,
) -> Option<SemanticTokensResult> {
    let uri = params.text_document.uri;
    let document = world.state.manifest(&uri)?;
    let data = full(&document.source, document.syntax());
    let id = world.state.remember_tokens(&uri, data.clone());
    Some(SemanticTokensResult::Tokens(full_answer(data, id)))
}

/// The route's handler for a delta request: the edit from the tokens last
/// sent, or all of them when `previousResultId` is not the last result sent.
pub fn delta_request(
    world: &mut World,
    params: SemanticTokensDeltaParams,
) -> Option<SemanticTokensFullDeltaResult> {
    let uri = params.text_document.uri;
    let document = world.state.manifest(&uri)?;
    let data = full(&document.source, document.syntax());
    let previous = world
        .state
        .sent_tokens(&uri, &params.previous_result_id)
        .map(<[SemanticToken]>::to_vec);
    let id = world.state.remember_tokens(&uri, data.clone());
    Some(match previous {
        Some(previous) => SemanticTokensFullDeltaResult::TokensDelta(delta(&previous, &data, id)),
        None => SemanticTokensFullDeltaResult::Tokens(full_answer(data, id)),
    })
}

/// What the server announces.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

/// Every token of the version, computed once.
pub fn full(source: &SourceFile, syntax: &Syntax) -> Vec<SemanticToken> {
    syntax
        .semantic_tokens(|syntax| tokens(source, syntax))
        .to_vec()
}

/// The answer to a full request, with `result_id` to ask for deltas by.
pub fn full_answer(data: Vec<SemanticToken>, result_id: String) -> SemanticTokens {
    SemanticTokens {
        result_id: Some(result_id),
        data,
    }
}

/// The edit from `previous` to `current`: what lies between their common
/// beginning and their common end, as the protocol counts (in `u32`s, five
/// per token).
pub fn delta(
    previous: &[SemanticToken],
    current: &[SemanticToken],
    result_id: String,
) -> SemanticTokensDelta {
    let prefix = previous
        .iter()
        .zip(current)
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = previous[prefix..]
        .iter()
        .rev()
        .zip(current[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let deleted = previous.len() - prefix - suffix;
    let inserted = &current[prefix..current.len() - suffix];
    let edits = if deleted == 0 && inserted.is_empty() {
        Vec::new()
    } else {
        vec![SemanticTokensEdit {
            start: (prefix * 5) as u32,
            delete_count: (deleted * 5) as u32,
            data: Some(inserted.to_vec()),
        }]
    };
    SemanticTokensDelta {
        result_id: Some(result_id),
        edits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens as `text:type` pairs, in order.
    fn read(text: &str) -> Vec<String> {
        let source = SourceFile::new("t.contrib", text);
        let syntax = Syntax::new(source.text.clone());
        let tokens = full(&source, &syntax);
        let lines: Vec<&str> = text.split('\n').collect();
        let (mut line, mut start) = (0usize, 0usize);
        tokens
            .iter()
            .map(|token| {
                line += token.delta_line as usize;
                start = if token.delta_line == 0 {
                    start + token.delta_start as usize
                } else {
                    token.delta_start as usize
                };
                let written = &lines[line][start..start + token.length as usize];
                let kind = TYPES[token.token_type as usize].as_str();
                format!("{written}:{kind}")
            })
            .collect()
    }

    #[test]
    fn words_are_what_the_tables_say_they_are() {
        let text = "# note\nplugin acme/x 1.0.0 {\n    owner agent-author\n    text t {\n        placement agnet\n        budget 12 tokens\n        body \"Hi {person.name} {nope}\"\n    }\n    system-message s {\n        when idle > 1h30m\n        budget 9 tokens\n        body \"x\"\n    }\n    fact f {\n        says [date, weather]\n        reach replies\n    }\n}\n";
        let tokens = read(text);
        let expected = [
            "# note:comment",
            "plugin:keyword",
            "acme/x:namespace",
            "1.0.0:number",
            "owner:property",
            "agent-author:enumMember",
            "text:type",
            "t:variable",
            // A misspelt placement is not a value: no token.
            "placement:property",
            "budget:property",
            "12:number",
            "tokens:keyword",
            "body:property",
            "\"Hi :string",
            "{person.name}:variable",
            // Not a variable the platform has: part of the string.
            " {nope}\":string",
            "system-message:type",
            "s:variable",
            "when:property",
            "idle:enumMember",
            ">:operator",
            "1h30m:number",
            "budget:property",
            "9:number",
            "tokens:keyword",
            "body:property",
            "\"x\":string",
            "fact:type",
            "f:variable",
            "says:property",
            "date:enumMember",
            "reach:property",
            "replies:enumMember",
        ];
        assert_eq!(tokens, expected);
    }

    #[test]
    fn a_compound_duration_is_a_number_and_a_week_is_not() {
        let text = "plugin a/b 1.0.0 {\n    system-message s {\n        when idle > 2w\n    }\n}\n";
        assert!(!read(text).contains(&"2w:number".to_string()));
    }

    #[test]
    fn blocks_spanning_lines_are_one_token_a_line() {
        let text = "plugin a/b 1.0.0 {\n    text t {\n        body \"\"\"\n            One\n            Two\n            \"\"\"\n    }\n}\n";
        let strings: Vec<String> = read(text)
            .into_iter()
            .filter(|token| token.ends_with(":string"))
            .collect();
        assert_eq!(strings.len(), 4, "{strings:?}");
    }

    #[test]
    fn a_delta_is_the_one_edit_between_common_ends() {
        let token = |delta_line| SemanticToken {
            delta_line,
            delta_start: 0,
            length: 1,
            token_type: 0,
            token_modifiers_bitset: 0,
        };
        let before = [token(0), token(1), token(2), token(3)];
        let after = [token(0), token(5), token(3)];
        let answer = delta(&before, &after, "2".into());
        assert_eq!(answer.edits.len(), 1);
        assert_eq!(answer.edits[0].start, 5);
        assert_eq!(answer.edits[0].delete_count, 10);
        assert_eq!(answer.edits[0].data.as_deref(), Some(&[token(5)][..]));
        assert!(delta(&after, &after, "3".into()).edits.is_empty());
    }
}
