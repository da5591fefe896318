//! A pattern's tokens as a small nondeterministic automaton, run over a
//! path by keeping the set of states it can be in (Thompson's
//! construction, simulated as Pike's VM does): no backtracking, so no
//! pattern takes more than time proportional to its size times the path's.

use super::parse::Token;

/// What one step of the automaton consumes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Test {
    Char(char),
    /// Any character.
    Anything,
    /// Any character but `/`.
    NotSlash,
    /// A class, with `/` already removed from what it matches.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Test {
    fn admits(&self, c: char) -> bool {
        match self {
            Test::Char(expected) => c == *expected,
            Test::Anything => true,
            Test::NotSlash => c != '/',
            Test::Class { negated, ranges } => {
                let inside = ranges.iter().any(|&(low, high)| (low..=high).contains(&c));
                // A negated class never matches a separator either.
                if *negated {
                    !inside && c != '/'
                } else {
                    inside
                }
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Step {
    Consume(Test, usize),
    /// Go on at both.
    Split(usize, usize),
    Jump(usize),
    Accept,
    /// A dead end: a class that admits nothing.
    Fail,
}

/// A regular expression over the steps above: what a token stands for.
enum Shape {
    Test(Test),
    Sequence(Vec<Shape>),
    Either(Vec<Shape>),
    /// Any number of what the test admits.
    Repeat(Test),
    Never,
}

/// The automaton of a pattern.
#[derive(Debug, Clone)]
pub(super) struct Automaton {
    steps: Vec<Step>,
}

impl Automaton {
    pub(super) fn of(tokens: &[Token]) -> Automaton {
        // The pattern `**` alone matches every path.
        let shape = if tokens == [Token::RecursivePrefix] {
            Shape::Repeat(Test::Anything)
        } else {
            sequence(tokens)
        };
        let mut steps = Vec::new();
        let end = emit(&shape, &mut steps);
        patch(&mut steps, end, Step::Accept);
        Automaton { steps }
    }

    /// Whether the automaton accepts the whole of `path`.
    pub(super) fn accepts(&self, path: &str) -> bool {
        let mut current = States::new(self.steps.len());
        let mut next = States::new(self.steps.len());
        current.add(&self.steps, 0);
        for c in path.chars() {
            if current.list.is_empty() {
                return false;
            }
            next.clear();
            for &at in &current.list {
                if let Step::Consume(test, to) = &self.steps[at] {
                    if test.admits(c) {
                        next.add(&self.steps, *to);
                    }
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        current
            .list
            .iter()
            .any(|&at| matches!(self.steps[at], Step::Accept))
    }
}

/// A set of states, in the order they were reached, with their epsilon
/// closure taken as they are added.
struct States {
    /// The states that consume a character or accept.
    list: Vec<usize>,
    /// Every state marked in `seen`, splits and jumps included, so that
    /// clearing touches only those.
    marked: Vec<usize>,
    seen: Vec<bool>,
}

impl States {
    fn new(size: usize) -> States {
        States {
            list: Vec::with_capacity(size),
            marked: Vec::with_capacity(size),
            seen: vec![false; size],
        }
    }

    fn clear(&mut self) {
        for &at in &self.marked {
            self.seen[at] = false;
        }
        self.marked.clear();
        self.list.clear();
    }

    fn add(&mut self, steps: &[Step], at: usize) {
        let mut pending = vec![at];
        while let Some(at) = pending.pop() {
            if std::mem::replace(&mut self.seen[at], true) {
                continue;
            }
            self.marked.push(at);
            match steps[at] {
                Step::Split(first, second) => pending.extend([second, first]),
                Step::Jump(to) => pending.push(to),
                Step::Consume(..) | Step::Accept | Step::Fail => self.list.push(at),
            }
        }
    }
}

/// The shape of a run of tokens.
fn sequence(tokens: &[Token]) -> Shape {
    Shape::Sequence(tokens.iter().map(shape).collect())
}

/// The shape of one token, as `globset` writes it as a regular expression
/// with `literal_separator` on.
fn shape(token: &Token) -> Shape {
    let slash = || Shape::Test(Test::Char('/'));
    match token {
        Token::Literal(c) => Shape::Test(Test::Char(*c)),
        Token::Any => Shape::Test(Test::NotSlash),
        Token::ZeroOrMore => Shape::Repeat(Test::NotSlash),
        // `(?:/?|.*/)`
        Token::RecursivePrefix => Shape::Either(vec![
            Shape::Sequence(vec![]),
            slash(),
            Shape::Sequence(vec![Shape::Repeat(Test::Anything), slash()]),
        ]),
        // `/.*`
        Token::RecursiveSuffix => Shape::Sequence(vec![slash(), Shape::Repeat(Test::Anything)]),
        // `(?:/|/.*/)`
        Token::RecursiveZeroOrMore => Shape::Either(vec![
            slash(),
            Shape::Sequence(vec![slash(), Shape::Repeat(Test::Anything), slash()]),
        ]),
        Token::Class { negated, ranges } => class(*negated, ranges),
        Token::Alternates(branches) => {
            // A branch that writes nothing is left out, so `{,a}` is `a`
            // (`globset` without `empty_alternates`); no branch at all
            // matches the empty string.
            let branches: Vec<Shape> = branches
                .iter()
                .filter(|branch| !writes_nothing(branch))
                .map(|branch| sequence(branch))
                .collect();
            if branches.is_empty() {
                Shape::Sequence(vec![])
            } else {
                Shape::Either(branches)
            }
        }
    }
}

/// Whether `globset` writes no regular expression at all for `tokens`:
/// only alternatives all of whose branches write nothing.
fn writes_nothing(tokens: &[Token]) -> bool {
    tokens.iter().all(|token| match token {
        Token::Alternates(branches) => branches.iter().all(|branch| writes_nothing(branch)),
        _ => false,
    })
}

/// A class with `/` taken out of what it matches, since only a `/` in the
/// pattern matches a separator.
fn class(negated: bool, ranges: &[(char, char)]) -> Shape {
    if negated {
        return Shape::Test(Test::Class {
            negated,
            ranges: ranges.to_vec(),
        });
    }
    let mut kept = Vec::new();
    for &(low, high) in ranges {
        if low > '/' || high < '/' {
            kept.push((low, high));
            continue;
        }
        if low < '/' {
            kept.push((low, '.'));
        }
        if high > '/' {
            kept.push(('0', high));
        }
    }
    if kept.is_empty() {
        Shape::Never
    } else {
        Shape::Test(Test::Class {
            negated,
            ranges: kept,
        })
    }
}

/// Writes `shape` into `steps` starting at the next free step; returns the
/// index of the placeholder step its end leads to, which the caller fills.
fn emit(shape: &Shape, steps: &mut Vec<Step>) -> usize {
    match shape {
        Shape::Test(test) => {
            let at = steps.len();
            steps.push(Step::Consume(test.clone(), at + 1));
            placeholder(steps)
        }
        Shape::Never => {
            steps.push(Step::Fail);
            placeholder(steps)
        }
        Shape::Sequence(parts) => {
            let mut end = placeholder(steps);
            for part in parts {
                // Each part starts at the previous part's end.
                steps.pop();
                debug_assert_eq!(end, steps.len());
                end = emit(part, steps);
            }
            end
        }
        Shape::Repeat(test) => {
            // at: split(body, out); body: consume -> at; out: …
            let at = steps.len();
            steps.push(Step::Split(at + 1, at + 2));
            steps.push(Step::Consume(test.clone(), at));
            placeholder(steps)
        }
        Shape::Either(branches) => either(branches, steps),
    }
}

/// Alternatives: a chain of splits, each branch jumping to one end.
fn either(branches: &[Shape], steps: &mut Vec<Step>) -> usize {
    let mut ends = Vec::new();
    let last = branches.len().saturating_sub(1);
    for (index, branch) in branches.iter().enumerate() {
        if index == last {
            ends.push(emit(branch, steps));
            break;
        }
        let split = steps.len();
        steps.push(Step::Split(split + 1, usize::MAX));
        ends.push(emit(branch, steps));
        let next = steps.len();
        if let Step::Split(_, second) = &mut steps[split] {
            *second = next;
        }
    }
    if branches.is_empty() {
        return placeholder(steps);
    }
    let end = placeholder(steps);
    for branch_end in ends {
        patch(steps, branch_end, Step::Jump(end));
    }
    end
}

/// A step to be filled in later, at the end of `steps`.
fn placeholder(steps: &mut Vec<Step>) -> usize {
    steps.push(Step::Fail);
    steps.len() - 1
}

fn patch(steps: &mut [Step], at: usize, step: Step) {
    steps[at] = step;
}
