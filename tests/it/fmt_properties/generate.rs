//! Random valid manifests, written in random layouts.
//!
//! A [`Manifest`] is generated as structure (plugin fields, contributors of
//! every kind, calls, strings with escapes, `"""` blocks, some misspelt or
//! unknown fields so that lowering has errors to keep) and then written out
//! by [`write`], which takes every layout decision (indentation, spaces or
//! tabs, line endings, blank lines, comments, where braces and commas go)
//! from a stream of random bytes.
//!
//! Every comment carries a tag `~N~` and the writer records where it
//! expects the formatter to put it, as an anchor `block path|first word of
//! the line`, so the test can check that each comment stays with what it
//! annotates.

use proptest::prelude::*;

#[derive(Debug, Clone)]
pub struct Manifest {
    pub plugin_fields: Vec<Line>,
    pub contributors: Vec<Contributor>,
    /// Whether fields are shuffled, or written in canonical order.
    pub shuffled: bool,
}

impl Manifest {
    /// Whether every field is already where the formatter puts it, so that
    /// no comment changes places relative to another.
    pub fn in_canonical_order(&self) -> bool {
        !self.shuffled
            && self.contributors.iter().all(|contributor| {
                let order = canonical_order(contributor.kind);
                let ranks: Vec<usize> = contributor
                    .items
                    .iter()
                    .map(|item| {
                        let key = match item {
                            Item::Line(line) => line.key.as_str(),
                            Item::Call(_) => "call",
                        };
                        order
                            .iter()
                            .position(|name| *name == key)
                            .unwrap_or(usize::MAX)
                    })
                    .collect();
                ranks.windows(2).all(|pair| pair[0] <= pair[1])
            })
    }
}

#[derive(Debug, Clone)]
pub struct Contributor {
    pub kind: &'static str,
    pub id: String,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Line(Line),
    Call(Call),
}

/// A field: its key and the text after it, as tokens.
#[derive(Debug, Clone)]
pub struct Line {
    pub key: String,
    pub tokens: Vec<Token>,
}

#[derive(Debug, Clone)]
pub enum Token {
    Word(String),
    /// `[a, b]`, words separated by commas.
    List(Vec<String>),
    Str(String),
    Block(Vec<BlockLine>),
}

/// One line of a `"""` block: extra indentation, then text (empty: blank).
#[derive(Debug, Clone)]
pub struct BlockLine {
    pub extra: usize,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub arguments: Vec<(String, Value)>,
}

#[derive(Debug, Clone)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    List(Vec<Value>),
}

/// Every kind's spelling, from the table of kinds.
fn kinds() -> Vec<&'static str> {
    contrib::ir::Kind::spellings().collect()
}

/// The canonical order of each kind's fields: the table of kinds' order,
/// which the formatter follows.
pub fn canonical_order(kind: &str) -> &'static [&'static str] {
    contrib::ir::Kind::parse(kind).map_or(&[], |kind| kind.spec().fields)
}

pub fn manifest() -> impl Strategy<Value = Manifest> {
    (
        plugin_fields(),
        prop::collection::vec(contributor(), 0..5),
        any::<bool>(),
    )
        .prop_flat_map(|(fields, contributors, shuffled)| {
            let contributors: Vec<_> = contributors
                .into_iter()
                .enumerate()
                .map(|(index, mut contributor)| {
                    contributor.id = format!("c{index}");
                    contributor
                })
                .collect();
            let shuffle = if shuffled {
                contributors
                    .into_iter()
                    .map(|contributor| {
                        let Contributor { kind, id, items } = contributor;
                        Just(items)
                            .prop_shuffle()
                            .prop_map(move |items| Contributor {
                                kind,
                                id: id.clone(),
                                items,
                            })
                            .boxed()
                    })
                    .collect::<Vec<_>>()
                    .boxed()
            } else {
                Just(contributors).boxed()
            };
            (Just(fields), shuffle, Just(shuffled))
        })
        .prop_map(|(plugin_fields, contributors, shuffled)| Manifest {
            plugin_fields,
            contributors,
            shuffled,
        })
}

fn plugin_fields() -> impl Strategy<Value = Vec<Line>> {
    (any::<bool>(), prop::option::of(string_value()), 0usize..3).prop_map(
        |(owner, summary, requires)| {
            let mut lines = Vec::new();
            if owner {
                lines.push(line("owner", &["agent-author"]));
            }
            if let Some(summary) = summary {
                lines.push(Line {
                    key: "summary".into(),
                    tokens: vec![Token::Str(summary)],
                });
            }
            for index in 0..requires {
                lines.push(Line {
                    key: "requires".into(),
                    tokens: vec![
                        Token::Word("skill".into()),
                        Token::Word(format!("skill-{index}")),
                        Token::Str("^1.2".into()),
                    ],
                });
            }
            lines
        },
    )
}

fn contributor() -> impl Strategy<Value = Contributor> {
    prop::sample::select(kinds()).prop_flat_map(|kind| {
        let fields: Vec<BoxedStrategy<Option<Item>>> = canonical_order(kind)
            .iter()
            .map(|name| prop::option::weighted(0.7, field(kind, name)).boxed())
            .collect();
        (fields, prop::option::weighted(0.15, odd_field())).prop_map(move |(fields, odd)| {
            let mut items: Vec<Item> = fields.into_iter().flatten().collect();
            items.extend(odd);
            Contributor {
                kind,
                id: String::new(),
                items,
            }
        })
    })
}

fn field(kind: &'static str, name: &'static str) -> BoxedStrategy<Item> {
    let word = |choices: &'static [&'static str]| {
        prop::sample::select(choices.to_vec())
            .prop_map(move |value| Item::Line(line(name, &[value])))
            .boxed()
    };
    match name {
        "owner" => word(&["operator", "workspace", "agent-author", "person", "persn"]),
        "placement" => word(&[
            "platform",
            "agent",
            "person",
            "conversation",
            "message",
            "agnet",
        ]),
        "priority" => word(&["platform", "agent", "workspace", "person"]),
        "reach" => word(&["every-turn", "with-person", "replies"]),
        "source" => word(&["user-authored", "system-config", "external"]),
        "budget" => (1u32..5000)
            .prop_map(move |n| Item::Line(line(name, &[&n.to_string(), "tokens"])))
            .boxed(),
        "body" => body(kind)
            .prop_map(move |token| {
                Item::Line(Line {
                    key: name.into(),
                    tokens: vec![token],
                })
            })
            .boxed(),
        "origin" => Just(Item::Line(Line {
            key: name.into(),
            tokens: vec![Token::Str("memory:workspace".into())],
        }))
        .boxed(),
        "tools" => word_list(&["read_object", "search_code", "list_files"], name),
        "says" => word_list(&["date", "os", "arch", "model"], name),
        "skill" => any::<bool>()
            .prop_map(move |operations| {
                let mut tokens = vec![Token::Word("code-review".into())];
                if operations {
                    tokens.push(Token::Word("operations".into()));
                    tokens.push(Token::List(vec!["diff".into(), "annotate".into()]));
                }
                Item::Line(Line {
                    key: name.into(),
                    tokens,
                })
            })
            .boxed(),
        "applies" => prop::sample::select(vec![
            vec![Token::Word("always".into())],
            vec![
                Token::Word("on".into()),
                Token::Word("command".into()),
                Token::Word("deploy".into()),
            ],
            vec![
                Token::Word("on".into()),
                Token::Word("skill".into()),
                Token::Word("code-review".into()),
            ],
            vec![
                Token::Word("on".into()),
                Token::Word("request".into()),
                Token::Str("When a migration is written".into()),
            ],
        ])
        .prop_map(move |tokens| {
            Item::Line(Line {
                key: name.into(),
                tokens,
            })
        })
        .boxed(),
        "heading" => Just(Item::Line(Line {
            key: name.into(),
            tokens: vec![Token::Str("Where you are working".into())],
        }))
        .boxed(),
        "when" => prop::sample::select(vec![
            vec!["idle", ">", "4h"],
            vec!["date-crossed"],
            vec!["skill-updated", "code-review"],
            vec!["model-changed"],
        ])
        .prop_map(move |words| Item::Line(line(name, &words)))
        .boxed(),
        _ => call().prop_map(Item::Call).boxed(),
    }
}

/// A field lowering does not know, or a known one given twice.
fn odd_field() -> impl Strategy<Value = Item> {
    prop::sample::select(vec![
        line("colour", &["red"]),
        line("budgte", &["5", "tokens"]),
        line("reach", &["replies"]),
        line("tools", &["[read_object]"]),
    ])
    .prop_map(Item::Line)
}

fn word_list(choices: &'static [&'static str], name: &'static str) -> BoxedStrategy<Item> {
    prop::sample::subsequence(choices.to_vec(), 1..=choices.len())
        .prop_map(move |words| {
            Item::Line(Line {
                key: name.into(),
                tokens: vec![Token::List(
                    words.iter().map(|word| word.to_string()).collect(),
                )],
            })
        })
        .boxed()
}

fn call() -> impl Strategy<Value = Call> {
    (
        prop::sample::select(vec!["get_current_time", "fetch_url", "read_memory"]),
        prop::collection::vec(value(), 0..4),
    )
        .prop_map(|(tool, values)| Call {
            tool: tool.into(),
            arguments: values
                .into_iter()
                .enumerate()
                .map(|(index, value)| (format!("k{index}"), value))
                .collect(),
        })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        string_value().prop_map(Value::Str),
        (-1000i64..1000).prop_map(Value::Int),
        any::<bool>().prop_map(Value::Bool),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Value::List)
    })
}

/// The body of a `"…"` string: text, variables, literal braces and
/// escapes, including now and then one that lowering refuses.
fn string_value() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "Answer",
            " ",
            "tersely",
            "é",
            "{person.name}",
            "{{",
            "}}",
            "#",
            "\\\"",
            "\\\\",
            "\\n",
            "\\t",
            "\\u{e9}",
            "\\u{1F600}",
            "\t",
            "\\q",
        ]),
        0..8,
    )
    .prop_map(|pieces| pieces.concat())
}

/// A body: a `"…"` string, or a `"""` block of lines.
fn body(kind: &'static str) -> impl Strategy<Value = Token> {
    let _ = kind;
    prop_oneof![
        string_value().prop_map(Token::Str),
        prop::collection::vec(block_line(), 1..5).prop_map(Token::Block),
    ]
}

fn block_line() -> impl Strategy<Value = BlockLine> {
    (
        0usize..4,
        prop::collection::vec(
            prop::sample::select(vec![
                "Challenge",
                " premises;",
                " {date}",
                " {{x}}",
                " a # b",
                " \\u{2764}",
                " \\\\",
                " \\\"",
                "\t",
            ]),
            0..4,
        ),
    )
        .prop_map(|(extra, pieces)| BlockLine {
            extra,
            text: pieces.concat(),
        })
}

fn line(key: &str, words: &[&str]) -> Line {
    Line {
        key: key.into(),
        tokens: words
            .iter()
            .map(|word| Token::Word((*word).into()))
            .collect(),
    }
}

/// A written manifest and where each of its comments should end up.
pub struct Written {
    pub text: String,
    /// `(tag, anchor)` for every comment, in the order written.
    pub anchors: Vec<(usize, String)>,
}

/// Writes `manifest` in a layout chosen by `noise`.
pub fn write(manifest: &Manifest, noise: &[u8]) -> Written {
    let mut writer = Writer {
        out: String::new(),
        noise,
        at: 0,
        anchors: Vec::new(),
    };
    writer.manifest(manifest);
    Written {
        text: writer.out,
        anchors: writer.anchors,
    }
}

struct Writer<'n> {
    out: String,
    noise: &'n [u8],
    at: usize,
    anchors: Vec<(usize, String)>,
}

impl Writer<'_> {
    /// The next random byte; 255 once the noise runs out, which makes
    /// every [`Writer::chance`] false.
    fn byte(&mut self) -> u8 {
        let byte = self.noise.get(self.at).copied().unwrap_or(u8::MAX);
        self.at += 1;
        byte
    }

    /// True with probability about `percent`%.
    fn chance(&mut self, percent: u8) -> bool {
        u16::from(self.byte()) * 100 < u16::from(percent) * 256
    }

    fn newline(&mut self) {
        let ending = match self.byte() % 20 {
            0..=13 => "\n",
            14..=18 => "\r\n",
            _ => "\r",
        };
        self.out.push_str(ending);
    }

    /// Spaces and tabs between tokens: at least one.
    fn gap(&mut self) {
        self.out.push(' ');
        for _ in 0..self.byte() % 3 {
            let c = if self.chance(30) { '\t' } else { ' ' };
            self.out.push(c);
        }
    }

    /// Spaces and tabs where none are needed.
    fn optional_gap(&mut self) {
        if self.chance(40) {
            self.gap();
        }
    }

    fn indent(&mut self) {
        for _ in 0..self.byte() % 10 {
            let c = if self.chance(20) { '\t' } else { ' ' };
            self.out.push(c);
        }
    }

    fn blank_lines(&mut self) {
        if self.chance(25) {
            for _ in 0..1 + self.byte() % 2 {
                if self.chance(30) {
                    self.indent();
                }
                self.newline();
            }
        }
    }

    fn comment_text(&mut self, anchor: String) -> String {
        let tag = self.anchors.len();
        self.anchors.push((tag, anchor));
        let words = ["note", "why:", "allow(x)", "#", "é", "{", "}", "\"", "\t"];
        let mut text = format!("# ~{tag}~");
        for _ in 0..self.byte() % 4 {
            text.push(' ');
            text.push_str(words[usize::from(self.byte()) % words.len()]);
        }
        if self.chance(10) {
            text.push_str("  ");
        }
        text
    }

    /// Zero or more comments on their own lines, annotating the line whose
    /// anchor is given.
    fn own_line_comments(&mut self, anchor: &str) {
        for _ in 0..3 {
            if !self.chance(30) {
                break;
            }
            self.indent();
            let text = self.comment_text(anchor.to_string());
            self.out.push_str(&text);
            self.newline();
            self.blank_lines();
        }
    }

    /// Maybe a comment after the line just written; whether one was.
    fn trailing_comment(&mut self, anchor: &str) -> bool {
        if !self.chance(25) {
            return false;
        }
        self.optional_gap();
        let text = self.comment_text(anchor.to_string());
        self.out.push_str(&text);
        true
    }

    fn manifest(&mut self, manifest: &Manifest) {
        self.blank_lines();
        self.own_line_comments("|plugin");
        self.indent();
        self.out.push_str("plugin acme/generated 1.0.0");
        self.gap();
        self.out.push('{');
        let items: Vec<(Option<&Line>, Option<&Contributor>)> = manifest
            .plugin_fields
            .iter()
            .map(|line| (Some(line), None))
            .chain(manifest.contributors.iter().map(|c| (None, Some(c))))
            .collect();
        let mut open_line = !self.trailing_comment("|plugin");
        for (index, (line, contributor)) in items.into_iter().enumerate() {
            // Only the first item may share the `{` line: two items on one
            // line would read as one field.
            if !(index == 0 && open_line && self.chance(20)) {
                self.newline();
                self.blank_lines();
                self.own_line_comments(&format!("plugin|{}", first_word(line, contributor)));
                self.indent();
            } else {
                self.gap();
            }
            let trailed = match (line, contributor) {
                (Some(line), _) => {
                    self.line(line, "plugin");
                    self.trailing_comment(&format!("plugin|{}", line.key))
                }
                (_, Some(contributor)) => self.contributor(contributor),
                _ => false,
            };
            open_line = !trailed;
        }
        self.close_block(open_line, "plugin");
        if self.chance(50) {
            self.newline();
        }
        if self.chance(20) {
            self.newline();
            self.own_line_comments("|EOF");
        }
    }

    /// Ends a block: `}` on the line so far (when nothing closed it, such
    /// as a comment) or on a line of its own after end-of-block comments;
    /// maybe a comment after it.
    fn close_block(&mut self, open_line: bool, path: &str) -> bool {
        if open_line && self.chance(20) {
            self.optional_gap();
        } else {
            self.newline();
            self.blank_lines();
            self.own_line_comments(&format!("{path}|}}"));
            self.indent();
        }
        self.out.push('}');
        // A comment after the `}` annotates the whole block.
        let (parent, last) = path.rsplit_once('/').unwrap_or(("", path));
        let keyword = last.split(':').next().unwrap_or(last);
        self.trailing_comment(&format!("{parent}|{keyword}"))
    }

    /// Writes a contributor; whether a comment ends its last line.
    fn contributor(&mut self, contributor: &Contributor) -> bool {
        let path = format!("plugin/{}:{}", contributor.kind, contributor.id);
        self.out.push_str(contributor.kind);
        self.gap();
        self.out.push_str(&contributor.id);
        self.optional_gap();
        self.out.push('{');
        let mut open_line = !self.trailing_comment(&format!("plugin|{}", contributor.kind));
        for (index, item) in contributor.items.iter().enumerate() {
            let key = match item {
                Item::Line(line) => line.key.as_str(),
                Item::Call(_) => "call",
            };
            if index == 0 && open_line && self.chance(15) {
                self.gap();
            } else {
                self.newline();
                self.blank_lines();
                self.own_line_comments(&format!("{path}|{key}"));
                self.indent();
            }
            open_line = !match item {
                Item::Line(line) => {
                    self.line(line, &path);
                    self.trailing_comment(&format!("{path}|{key}"))
                }
                Item::Call(call) => self.call(call, &path),
            };
        }
        self.close_block(open_line, &path)
    }

    fn line(&mut self, line: &Line, path: &str) {
        let _ = path;
        self.out.push_str(&line.key);
        for token in &line.tokens {
            match token {
                Token::List(words) => {
                    self.gap();
                    self.out.push('[');
                    for (index, word) in words.iter().enumerate() {
                        if index > 0 {
                            self.optional_gap();
                            self.out.push(',');
                            self.gap();
                        }
                        self.out.push_str(word);
                    }
                    if self.chance(20) {
                        self.out.push(',');
                    }
                    self.out.push(']');
                }
                Token::Word(word) => {
                    self.gap();
                    self.out.push_str(word);
                }
                Token::Str(body) => {
                    self.gap();
                    self.out.push('"');
                    self.out.push_str(body);
                    self.out.push('"');
                }
                Token::Block(lines) => {
                    self.gap();
                    self.block_string(lines);
                }
            }
        }
    }

    fn block_string(&mut self, lines: &[BlockLine]) {
        self.out.push_str("\"\"\"");
        let base = usize::from(self.byte() % 12);
        let first_on_opening_line = self.chance(15);
        for (index, line) in lines.iter().enumerate() {
            if index > 0 || !first_on_opening_line {
                self.newline();
                if !line.text.is_empty() || self.chance(50) {
                    self.out.push_str(&" ".repeat(base + line.extra));
                }
            }
            self.out.push_str(&line.text);
        }
        if self.chance(70) {
            self.newline();
            let width = usize::from(self.byte() % 12);
            self.out.push_str(&" ".repeat(width));
        }
        self.out.push_str("\"\"\"");
    }

    /// Writes a call block; whether a comment ends its last line.
    fn call(&mut self, call: &Call, parent: &str) -> bool {
        let path = format!("{parent}/call");
        self.out.push_str("call");
        self.gap();
        self.out.push_str(&call.tool);
        self.optional_gap();
        self.out.push('{');
        let vertical = self.chance(50);
        let mut open_line = true;
        if vertical {
            open_line = !self.trailing_comment(&format!("{parent}|call"));
        }
        for (index, (key, value)) in call.arguments.iter().enumerate() {
            let anchor = format!("{path}|{key}:");
            if vertical && !(index == 0 && open_line && self.chance(20)) {
                self.newline();
                self.blank_lines();
                self.own_line_comments(&anchor);
                self.indent();
            } else {
                self.optional_gap();
            }
            self.out.push_str(key);
            self.optional_gap();
            self.out.push(':');
            self.gap();
            self.value(value, vertical, &anchor);
            let last = index + 1 == call.arguments.len();
            if !last || self.chance(30) {
                self.optional_gap();
                self.out.push(',');
            }
            open_line = !(vertical && self.trailing_comment(&anchor));
        }
        if vertical {
            self.close_block(open_line, &path)
        } else {
            self.optional_gap();
            self.out.push('}');
            self.trailing_comment(&format!("{parent}|call"))
        }
    }

    fn value(&mut self, value: &Value, vertical: bool, anchor: &str) {
        match value {
            Value::Str(body) => {
                self.out.push('"');
                self.out.push_str(body);
                self.out.push('"');
            }
            Value::Int(n) => self.out.push_str(&n.to_string()),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::List(items) => {
                self.out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        self.optional_gap();
                        self.out.push(',');
                    }
                    // Inside a call over several lines, a list may break
                    // its lines, with comments that move above the argument.
                    if vertical && self.chance(20) {
                        if self.chance(50) {
                            self.optional_gap();
                            let text = self.comment_text(anchor.to_string());
                            self.out.push_str(&text);
                        }
                        self.newline();
                        self.indent();
                    } else {
                        self.optional_gap();
                    }
                    self.value(item, vertical, anchor);
                }
                self.optional_gap();
                self.out.push(']');
            }
        }
    }
}

fn first_word(line: Option<&Line>, contributor: Option<&Contributor>) -> String {
    match (line, contributor) {
        (Some(line), _) => line.key.clone(),
        (_, Some(contributor)) => contributor.kind.to_string(),
        _ => String::new(),
    }
}
