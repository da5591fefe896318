//! The tree walk behind the tokens: each word the compiler understands
//! marked with what it is, then encoded as the protocol's relative
//! positions.

use lsp_types::SemanticToken;

use super::{TokenType, DECLARATION, READONLY};
use crate::ir::{
    variables, ActivationKind, ConditionKind, FactSection, Kind, Owner, Placement, Priority, Reach,
    Source, Vocabulary,
};
use crate::lower::{parse_duration, PLUGIN_FIELDS};
use crate::lsp::convert;
use crate::lsp::version::Syntax;
use crate::source::{SourceFile, Span};
use crate::syntax::tree::{Block, Field, Item, Pair, StrLit, Token, Word};

/// A token before encoding: where it is and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Mark {
    span: Span,
    kind: TokenType,
    modifiers: u32,
}

pub(super) fn tokens(source: &SourceFile, syntax: &Syntax) -> Vec<SemanticToken> {
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
