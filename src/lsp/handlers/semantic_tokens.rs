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
    SemanticTokensEdit, SemanticTokensLegend,
};

use crate::ir::{
    variables, ActivationKind, ConditionKind, FactSection, Kind, Owner, Placement, Priority, Reach,
    Source, Vocabulary,
};
use crate::lower::{parse_duration, PLUGIN_FIELDS};
use crate::lsp::convert;
use crate::lsp::version::Syntax;
use crate::source::{SourceFile, Span};
use crate::syntax::tree::{Block, Field, Item, Pair, StrLit, Token, Word};

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
enum TokenType {
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

const DECLARATION: u32 = 1;
const READONLY: u32 = 2;

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

/// A token before encoding: where it is and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Mark {
    span: Span,
    kind: TokenType,
    modifiers: u32,
}

fn tokens(source: &SourceFile, syntax: &Syntax) -> Vec<SemanticToken> {
    let Some(tree) = syntax.tree() else {
        return Vec::new();
    };
    let mut marks = Marks {
        text: &source.text,
        out: Vec::new(),
    };
    for comment in &tree.comments {
        marks.push(comment.span, TokenType::Comment, 0);
    }
    for item in &tree.items {
        match item {
            Item::Block(block) if block.keyword.text == "plugin" => marks.plugin(block),
            _ => {}
        }
    }
    let mut out = marks.out;
    out.sort();
    out.dedup_by(|later, earlier| later.span.start < earlier.span.end);
    encode(source, &out)
}

struct Marks<'t> {
    text: &'t str,
    out: Vec<Mark>,
}

impl Marks<'_> {
    fn push(&mut self, span: Span, kind: TokenType, modifiers: u32) {
        if !span.is_empty() {
            self.out.push(Mark {
                span,
                kind,
                modifiers,
            });
        }
    }

    fn word(&mut self, word: &Word<'_>, kind: TokenType) {
        self.push(word.span, kind, 0);
    }

    fn plugin(&mut self, block: &Block<'_>) {
        self.word(&block.keyword, TokenType::Keyword);
        if let Some(name) = block.args.first() {
            self.push(name.span, TokenType::Namespace, DECLARATION);
        }
        if let Some(version) = block.args.get(1) {
            if semver::Version::parse(version.text).is_ok() {
                self.word(version, TokenType::Number);
            }
        }
        for item in &block.items {
            match item {
                Item::Block(child) => match Kind::parse(child.keyword.text) {
                    Some(kind) => self.contributor(child, kind),
                    None => self.strings_in_block(child),
                },
                Item::Field(field) if PLUGIN_FIELDS.contains(&field.key.text) => self.field(field),
                Item::Field(field) => self.strings(&field.tokens),
                Item::Pair(pair) => self.strings(std::slice::from_ref(&pair.value)),
            }
        }
    }

    fn contributor(&mut self, block: &Block<'_>, kind: Kind) {
        self.word(&block.keyword, TokenType::Type);
        if let Some(id) = block.args.first() {
            self.push(id.span, TokenType::Variable, DECLARATION);
        }
        let spec = kind.spec();
        for item in &block.items {
            match item {
                Item::Block(call) if call.keyword.text == "call" && spec.has_field("call") => {
                    self.call(call)
                }
                Item::Block(other) => self.strings_in_block(other),
                Item::Field(field) if spec.has_field(field.key.text) => self.field(field),
                Item::Field(field) => self.strings(&field.tokens),
                Item::Pair(pair) => self.strings(std::slice::from_ref(&pair.value)),
            }
        }
    }

    /// A field the block takes: its name, and its values by what it is.
    fn field(&mut self, field: &Field<'_>) {
        self.word(&field.key, TokenType::Property);
        let tokens = &field.tokens;
        match field.key.text {
            "placement" => self.vocabulary::<Placement>(tokens),
            "owner" => self.vocabulary::<Owner>(tokens),
            "priority" => self.vocabulary::<Priority>(tokens),
            "reach" => self.vocabulary::<Reach>(tokens),
            "source" => self.vocabulary::<Source>(tokens),
            "says" => self.list_of(tokens, |text| {
                FactSection::parse(text).map(|_| TokenType::EnumMember)
            }),
            "tools" => self.list_of(tokens, |_| Some(TokenType::Function)),
            "budget" => self.budget(tokens),
            "when" => self.condition(tokens),
            "applies" => self.applies(tokens),
            "skill" => self.skill_load(tokens),
            "requires" => self.requires(tokens),
            _ => self.strings(tokens),
        }
    }

    fn vocabulary<V: Vocabulary>(&mut self, tokens: &[Token<'_>]) {
        if let [Token::Word(word)] = tokens {
            if V::parse(word.text).is_some() {
                self.word(word, TokenType::EnumMember);
            }
        }
    }

    /// `[a, b]`, each word as `kind_of` says.
    fn list_of(&mut self, tokens: &[Token<'_>], kind_of: impl Fn(&str) -> Option<TokenType>) {
        for token in tokens {
            if let Token::List(list) = token {
                for item in &list.items {
                    match item {
                        Token::Word(word) => {
                            if let Some(kind) = kind_of(word.text) {
                                self.word(word, kind);
                            }
                        }
                        Token::Str(string) => self.string(string),
                        _ => {}
                    }
                }
            }
        }
    }

    fn budget(&mut self, tokens: &[Token<'_>]) {
        if let [Token::Word(number), rest @ ..] = tokens {
            if number.text.bytes().all(|b| b.is_ascii_digit()) {
                self.word(number, TokenType::Number);
            }
            if let [Token::Word(unit)] = rest {
                if unit.text == "tokens" {
                    self.word(unit, TokenType::Keyword);
                }
            }
        }
    }

    /// `idle > 4h`, `skill-updated NAME`, `date-crossed` …
    fn condition(&mut self, tokens: &[Token<'_>]) {
        let Some(Token::Word(first)) = tokens.first() else {
            return;
        };
        let Some(condition) = ConditionKind::parse(first.text) else {
            return;
        };
        self.word(first, TokenType::EnumMember);
        for token in &tokens[1..] {
            match (condition, token) {
                (ConditionKind::Idle, Token::Op(op)) => self.word(op, TokenType::Operator),
                (ConditionKind::Idle, Token::Word(word)) if parse_duration(word.text).is_some() => {
                    self.word(word, TokenType::Number)
                }
                (ConditionKind::SkillUpdated, Token::Word(word)) => {
                    self.word(word, TokenType::Namespace)
                }
                _ => {}
            }
        }
    }

    /// `always`, `on command NAME`, `on skill NAME`, `to files ["GLOB"]`,
    /// `on request "DESCRIPTION"`.
    fn applies(&mut self, tokens: &[Token<'_>]) {
        for (index, token) in tokens.iter().enumerate() {
            match token {
                Token::Word(word) => {
                    let keyword = matches!(word.text, "on" | "to")
                        || ActivationKind::parse(word.text).is_some() && index <= 1;
                    if keyword {
                        self.word(word, TokenType::Keyword);
                    } else if index == 2 {
                        let on_skill =
                            matches!(tokens.get(1), Some(Token::Word(w)) if w.text == "skill");
                        let kind = if on_skill {
                            TokenType::Namespace
                        } else {
                            TokenType::Variable
                        };
                        self.word(word, kind);
                    }
                }
                Token::Str(string) => self.string(string),
                Token::List(_) => self.strings(std::slice::from_ref(token)),
                Token::Op(_) => {}
            }
        }
    }

    /// `skill NAME operations [a, b]`.
    fn skill_load(&mut self, tokens: &[Token<'_>]) {
        if let Some(Token::Word(name)) = tokens.first() {
            self.word(name, TokenType::Namespace);
        }
        if let Some(Token::Word(word)) = tokens.get(1) {
            if word.text == "operations" {
                self.word(word, TokenType::Keyword);
            }
        }
        self.list_of(tokens, |_| Some(TokenType::Method));
    }

    /// `skill NAME "REQUIREMENT"`.
    fn requires(&mut self, tokens: &[Token<'_>]) {
        if let [Token::Word(skill), Token::Word(name), rest @ ..] = tokens {
            if skill.text == "skill" {
                self.word(skill, TokenType::Keyword);
                self.word(name, TokenType::Namespace);
            }
            self.strings(rest);
        }
    }

    /// `call TOOL { name: value, … }`.
    fn call(&mut self, block: &Block<'_>) {
        self.word(&block.keyword, TokenType::Keyword);
        if let Some(tool) = block.args.first() {
            self.word(tool, TokenType::Function);
        }
        for item in &block.items {
            if let Item::Pair(pair) = item {
                self.argument(pair);
            }
        }
    }

    fn argument(&mut self, pair: &Pair<'_>) {
        self.word(&pair.key, TokenType::Parameter);
        self.value(&pair.value);
    }

    fn value(&mut self, token: &Token<'_>) {
        match token {
            Token::Str(string) => self.string(string),
            Token::Word(word) if matches!(word.text, "true" | "false") => {
                self.word(word, TokenType::Keyword)
            }
            Token::Word(word) if word.text.parse::<i64>().is_ok() => {
                self.word(word, TokenType::Number)
            }
            Token::List(list) => {
                for item in &list.items {
                    self.value(item);
                }
            }
            _ => {}
        }
    }

    /// Strings inside what the block does not take: still strings.
    fn strings_in_block(&mut self, block: &Block<'_>) {
        for item in &block.items {
            match item {
                Item::Block(inner) => self.strings_in_block(inner),
                Item::Field(field) => self.strings(&field.tokens),
                Item::Pair(pair) => self.strings(std::slice::from_ref(&pair.value)),
            }
        }
    }

    fn strings(&mut self, tokens: &[Token<'_>]) {
        for token in tokens {
            match token {
                Token::Str(string) => self.string(string),
                Token::List(list) => self.strings(&list.items),
                _ => {}
            }
        }
    }

    /// A string; a body's `{variables}` are marked inside it.
    fn string(&mut self, string: &StrLit<'_>) {
        let text = self.text;
        let mut at = string.span.start;
        let body = string.body_span;
        let bytes = text.as_bytes();
        let mut i = body.start;
        while i < body.end {
            match bytes[i] {
                b'\\' => i += 2,
                b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
                b'{' => {
                    let name_end = text[i + 1..body.end]
                        .find('}')
                        .map(|n| i + 1 + n)
                        .filter(|&end| variables::find(&text[i + 1..end]).is_some());
                    match name_end {
                        Some(end) => {
                            self.push(Span::new(at, i), TokenType::Str, 0);
                            self.push(Span::new(i, end + 1), TokenType::Variable, READONLY);
                            at = end + 1;
                            i = end + 1;
                        }
                        None => i += 1,
                    }
                }
                _ => i += 1,
            }
        }
        self.push(Span::new(at, string.span.end), TokenType::Str, 0);
    }
}

/// The marks, split at line breaks (clients take one line per token), as
/// the protocol's relative positions in UTF-16.
fn encode(source: &SourceFile, marks: &[Mark]) -> Vec<SemanticToken> {
    let text: &str = &source.text;
    let mut out = Vec::with_capacity(marks.len());
    let (mut last_line, mut last_start) = (0u32, 0u32);
    for mark in marks {
        let mut start = mark.span.start;
        while start < mark.span.end {
            let line_end = text[start..mark.span.end]
                .find(['\n', '\r'])
                .map_or(mark.span.end, |n| start + n);
            if line_end > start {
                let position = convert::position(source, start);
                let length: usize = text[start..line_end].chars().map(char::len_utf16).sum();
                let delta_line = position.line - last_line;
                let delta_start = if delta_line == 0 {
                    position.character - last_start
                } else {
                    position.character
                };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: length as u32,
                    token_type: mark.kind as u32,
                    token_modifiers_bitset: mark.modifiers,
                });
                last_line = position.line;
                last_start = position.character;
            }
            start = line_end;
            while start < mark.span.end && matches!(text.as_bytes()[start], b'\n' | b'\r') {
                start += 1;
            }
        }
    }
    out
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
