//! Override phrases in prose, told apart from prose about them.
//!
//! A phrase is a pattern for what an override does (discard the
//! instructions above, claim to replace or outrank them, re-cast the
//! agent, style itself as a system prompt, pose as the platform). A match
//! is not reported where the text is not telling the model anything:
//!
//! - in code: a fenced block, an indented block, an inline code span;
//! - right after a negation ("never ignore previous instructions");
//! - where the text quotes or describes an attack to warn against it: in
//!   quotation marks, with a word in the sentence or paragraph that says
//!   so ("text that says 'ignore previous instructions'", "crafted to look
//!   like", "never follow"), or, unquoted, after a verb that reports it
//!   ("tells you to", "may try to") in a sentence that warns;
//! - where the same words mean something ordinary (`you are now ready`, a
//!   `system: "…"` property, a platform note about iOS).
//!
//! All the patterns are run together once over the text, and only those
//! that match somewhere are run again to find where; the code regions are
//! found once, and the context of a match is read only when there is one.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

const DISCARD: &str = "tells the model to discard the instructions above it";
const REPLACE: &str = "claims to replace the system prompt";
const OUTRANK: &str = "claims to outrank the instructions above it";
const RECAST: &str = "tries to re-cast the agent";
const STYLED: &str = "is styled as a system prompt";
const POSES: &str = "poses as the platform or the operator";

/// A pattern, what a match tries to do, and what may follow a match that
/// makes it ordinary text.
struct Phrase {
    pattern: &'static str,
    what: &'static str,
    unless_followed_by: Option<&'static str>,
}

const fn phrase(pattern: &'static str, what: &'static str) -> Phrase {
    Phrase {
        pattern,
        what,
        unless_followed_by: None,
    }
}

/// Names of operating systems and platforms: a "platform note" about one
/// is documentation.
const PLATFORM_NAMES: &str = r"^[^.\n]{0,120}?\b(?:ios|ipados|android|windows|macos|mac\s*catalyst|maccatalyst|linux|unix|posix|wsl|tizen|watchos|tvos|web(?:assembly)?|browsers?|arm64|x86|x64)\b";

const PHRASES: &[Phrase] = &[
    phrase(
        r"\b(?:ignore|disregard|forget|discard|abandon|drop|set\s+aside|throw\s+out)\s+(?:(?:all|any|every|everything|each|the|your|of|these|those|my|its)\s+)*(?:(?:previous|prior|above|earlier|preceding|former|original|existing|initial|other|system|developer|operator|safety)\s+)+(?:instructions?|rules|prompts?|directions|guidelines|directives|constraints|restrictions|programming|guidance|policies|messages)\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:disregard|forget|override|bypass|circumvent)\s+(?:(?:all|any|the|your|of|these|those|my)\s+)*(?:instructions|rules|guidelines|directives|restrictions|system\s+prompt|programming|training|safety\s+(?:rules|guidelines|measures|policies|filters))\b",
        DISCARD,
    ),
    phrase(
        r"\bignore\s+(?:all\s+(?:of\s+)?)?your\s+(?:own\s+)?(?:instructions|rules|guidelines|programming|training)\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all(?:\s+of\s+that)?)\s+(?:(?:that\s+)?you\s+(?:were|have\s+been)\s+(?:told|given)|(?:(?:said|written|stated)\s+)?(?:above|before|earlier|previously|so\s+far))\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:previous|prior|earlier|above|original|system|your)\s+(?:instructions|rules|prompt|guidelines|directives)\s+(?:are|is|have\s+been|were)\s+(?:now\s+)?(?:cancell?ed|void|revoked|obsolete|outdated|invalid|lifted|suspended|no\s+longer\s+(?:valid|applies|apply|in\s+effect|relevant))\b|\b(?:rules|instructions|guidelines)\s+above\s+(?:no\s+longer\s+apply|are\s+(?:void|cancell?ed|suspended))\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:you\s+are|you['’]re)\s+no\s+longer\s+(?:bound|restricted|limited|constrained|required\s+to\s+follow)\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:pretend|imagine|as\s+if)\s+(?:that\s+)?(?:(?:the|your)\s+)?(?:(?:previous|prior|earlier|above|system)\s+)?(?:instructions|rules|guidelines|system\s+prompt)\s+(?:were|was|had)\s+(?:never|not)\b|\bas\s+if\s+(?:there\s+(?:were|was|is)\s+no|you\s+had\s+no)\s+(?:system\s+prompt|instructions|rules|guidelines|restrictions)\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:do\s+not|don['’]t|stop)\s+(?:follow|obey)(?:ing)?\s+(?:(?:the|your|any)\s+)*(?:(?:previous|prior|earlier|above|original|system|developer|operator)\s+(?:instructions|rules|guidelines|prompt)|(?:instructions|rules|guidelines)\s+(?:in|of|from)\s+(?:your|the)\s+system\s+prompt)\b",
        DISCARD,
    ),
    phrase(
        r"\b(?:these|this|my|our|the\s+following)\s+(?:rules|instructions|text|message|guidelines|directives)\s+(?:override|overrides|supersede|supersedes|replace|replaces|takes?\s+precedence\s+over|outranks?)\s+(?:(?:all|any|the|your|every)\s+)*(?:other|previous|prior|earlier|existing|system|above)\b",
        OUTRANK,
    ),
    phrase(
        r"\bnew\s+system\s+prompt\s*[:\-—]|\b(?:here\s+is|this\s+is)\s+(?:your|the)\s+new\s+(?:system\s+prompt|instructions)\b|\byour\s+new\s+(?:system\s+prompt|instructions)\s+(?:is|are)\b|\b(?:new|updated|real)\s+instructions\s*:|\b(?:use|follow)\s+(?:these|my|the\s+following)\s+instructions\s+instead\b|\bfollow\s+(?:mine|these)\s+instead\b|\bthe\s+real\s+instructions\s+follow\b",
        REPLACE,
    ),
    Phrase {
        pattern: r"\byou\s+are\s+now\b",
        what: RECAST,
        unless_followed_by: Some(
            r"^\s+(?:tasked|going|ready|able|working|responsible|in\s+charge|done|finished|connected|logged|viewing|looking|on\b|at\b|set\s+up|inside|in\s+(?:(?:the|your)\s+)?(?:\S+\s+)?(?:directory|folder|repo|repository|branch|project|workspace|worktree)\b)",
        ),
    },
    phrase(
        r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+(?:be|act)|act)\b|\b(?:act|behave|respond)\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|unaligned)\b|\b(?:jailbreak|god|dan|unrestricted|unfiltered)\s+mode\b|\bdeveloper\s+mode\s+(?:is\s+)?(?:enabled|activated|on)\b|\bdo\s+anything\s+now\b",
        RECAST,
    ),
    Phrase {
        pattern: r"(?m)^[ \t>]*(?:system\s*:|\[system\]|<system>|<\|im_start\|>\s*system|#{1,6}\s*system(?:\s+prompt)?\s*:?[ \t]*$)|\b(?:system|admin(?:istrator)?|root|developer)\s+override\b",
        what: STYLED,
        // `system: "…"`: a property in code, not a voice.
        unless_followed_by: Some(r#"^\s*["'`{\[]"#),
    },
    Phrase {
        pattern: r"\bplatform\s+note\b\**\s*[:\-—]",
        what: POSES,
        unless_followed_by: Some(PLATFORM_NAMES),
    },
    phrase(
        r"\b(?:message|note|notice|update|word)\s+from\s+(?:the\s+)?(?:platform|system|operator|developers?|administrators?|admins?|anthropic|openai)\b|\b(?:operator|platform|system|administrator|admin|developers?)\s+(?:has|have)\s+(?:authori[sz]ed|approved|allowed|permitted|instructed|cleared)\s+you\b|\byou\s+(?:have\s+been|are|were)\s+(?:granted|given)\s+(?:\w+\s+)?(?:operator|admin(?:istrator)?|root|developer|system|elevated|full)\s+(?:privileges|access|rights|permissions|authority)\b",
        POSES,
    ),
];

/// Compiles a pattern, case-insensitive. Word boundaries are ASCII ones:
/// a Unicode `\b` keeps the regex engine's fast DFA from running over any
/// text with a letter beyond ASCII (it falls back to a far slower
/// engine), and every keyword here is English, so a boundary next to a
/// letter such as `é` costs at most a match that would otherwise be
/// missed. Spaces stay Unicode: a no-break space between the words of a
/// phrase does not hide it.
fn build(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(&pattern.replace(r"\b", r"(?-u:\b)"))
        .case_insensitive(true)
        .build()
        .ok()
}

struct Compiled {
    regex: Regex,
    what: &'static str,
    unless_followed_by: Option<Regex>,
}

static PATTERNS: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    PHRASES
        .iter()
        .filter_map(|phrase| {
            Some(Compiled {
                regex: build(phrase.pattern)?,
                what: phrase.what,
                unless_followed_by: match phrase.unless_followed_by {
                    Some(pattern) => Some(build(pattern)?),
                    None => None,
                },
            })
        })
        .collect()
});

/// Every pattern at once: one pass over a text says which patterns match
/// anywhere in it, and only those are run to find where. Most texts match
/// none, so most texts are read once rather than once per pattern.
static ANY: LazyLock<Option<RegexSet>> = LazyLock::new(|| {
    RegexSetBuilder::new(PATTERNS.iter().map(|pattern| pattern.regex.as_str()))
        .case_insensitive(true)
        .build()
        .ok()
});

/// A phrase right after a negation tells the model to keep to what ranks
/// above ("never disregard the style guide's rules"), not to drop it.
static NEGATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| build(r"\b(?:not|never|no|nor|dont|cannot|\w+n['’]t)\s+$"));

/// Words that report or describe a phrase rather than say it.
static MENTION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    build(
        r"\b(?:says?|said|saying|claims?|claiming|reads?|like|such\s+as|e\.g\.|for\s+example|including|tells?\s+you\s+to|telling\s+you\s+to|asks?\s+you\s+to|asking\s+you\s+to|instructs?\s+you\s+to|tr(?:y|ies|ying)\s+to|attempts?\s+to|attempting\s+to|phrases?|strings?|paste[sd]?|writes?|wrote|contains?|text\s+that|shaped|crafted)\b",
    )
});

/// Words that warn against what is quoted or reported.
static WARNING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    build(
        r"\b(?:never|not|no|\w+n['’]t|refuse|reject|beware|wary|careful|suspicious|malicious|untrusted|injections?|attacks?|attackers?|crafted|jailbreak|flag|report|treat|data|inert|stop|warn|spam)\b",
    )
});

fn matches(regex: &LazyLock<Option<Regex>>, text: &str) -> bool {
    regex.as_ref().is_some_and(|regex| regex.is_match(text))
}

/// Whether the phrase sets the role of the conversation it is in (re-casts
/// the agent, is styled as or claims to be a system prompt), rather than
/// discarding, outranking or posing as what is above it.
pub(super) fn sets_a_role(found: &Found) -> bool {
    [RECAST, STYLED, REPLACE].contains(&found.what)
}

/// Whether the text at `start` is in a Markdown callout (`> ⚠️ **Platform
/// Note:** …`): documentation's way of setting a note apart, not a voice.
fn opens_a_callout(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    text[line_start..start].trim_start().starts_with('>')
}

/// One phrase found: its byte range in the text and what it tries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub range: Range<usize>,
    pub what: &'static str,
}

/// Every override phrase `text` says, in pattern order.
pub(super) fn find(text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut code: Option<Vec<Range<usize>>> = None;
    let candidates = ANY.as_ref().map(|any| any.matches(text));
    for (index, pattern) in PATTERNS.iter().enumerate() {
        if candidates
            .as_ref()
            .is_some_and(|candidates| !candidates.matched(index))
        {
            continue;
        }
        for hit in pattern.regex.find_iter(text) {
            // Patterns anchored at a line start match the spaces before.
            let start = hit.start() + (hit.as_str().len() - hit.as_str().trim_start().len());
            let end = hit.start() + hit.as_str().trim_end().len();
            if start >= end {
                continue;
            }
            let code = code.get_or_insert_with(|| code_regions(text));
            if code.iter().any(|region| region.contains(&start))
                || matches(&NEGATION, &text[..start])
                || pattern
                    .unless_followed_by
                    .as_ref()
                    .is_some_and(|unless| unless.is_match(&text[hit.end()..]))
                || mentioned(text, start, end)
                || (pattern.what == POSES && opens_a_callout(text, start))
            {
                continue;
            }
            found.push(Found {
                range: start..end,
                what: pattern.what,
            });
        }
    }
    found
}

/// Whether the phrase at `start..end` is quoted or reported to warn
/// against it.
fn mentioned(text: &str, start: usize, end: usize) -> bool {
    let paragraph = around(text, start, end, paragraph_break);
    let sentence = around(text, start, end, sentence_break);
    let before = &text[sentence.start..start];
    if quoted(&text[paragraph.start..start], &text[end..paragraph.end]) {
        return matches(&MENTION, &text[sentence.clone()]) || matches(&WARNING, &text[paragraph]);
    }
    matches(&MENTION, before) && matches(&WARNING, &text[sentence])
}

/// The range around `start..end` up to the breaks `is_break` finds (a
/// break at `at` is one starting there), on character boundaries.
fn around(
    text: &str,
    start: usize,
    end: usize,
    is_break: impl Fn(&str, usize) -> Option<usize>,
) -> Range<usize> {
    let mut from = 0;
    for (at, _) in text[..start].char_indices() {
        if let Some(length) = is_break(text, at) {
            if at + length <= start {
                from = at + length;
            }
        }
    }
    let mut to = text.len();
    for (at, _) in text[end..].char_indices() {
        if is_break(text, end + at).is_some() {
            to = end + at;
            break;
        }
    }
    from..to
}

/// A blank line at `at`: its length.
fn paragraph_break(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    let line = rest.strip_prefix('\n')?;
    let blank = line.len() - line.trim_start_matches([' ', '\t', '\r']).len();
    line[blank..].starts_with('\n').then_some(1 + blank + 1)
}

/// The end of a sentence at `at` (`. `, `!`, `?`, `;`, or a blank line):
/// its length.
fn sentence_break(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    let mut chars = rest.chars();
    match (chars.next()?, chars.next()) {
        ('.' | '!' | '?' | ';', Some(next)) if next.is_whitespace() => Some(1),
        ('.' | '!' | '?' | ';', None) => Some(1),
        _ => paragraph_break(text, at),
    }
}

/// Whether the text between `before` and `after` is inside quotation
/// marks: `"…"`, `“…”`, `‘…’` or `'…'`.
fn quoted(before: &str, after: &str) -> bool {
    let straight = before.matches('"').count() % 2 == 1 && after.contains('"');
    let curly =
        |open: char, close: char| before.rfind(open) > before.rfind(close) && after.contains(close);
    straight || curly('“', '”') || curly('‘', '’') || single_quoted(before, after)
}

/// `'…'`, told apart from apostrophes: an opening quote follows a
/// non-letter, a closing one precedes one.
fn single_quoted(before: &str, after: &str) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let opening = before
        .char_indices()
        .filter(|&(at, c)| c == '\'' && !is_word(before[..at].chars().next_back()))
        .map(|(at, _)| at)
        .next_back();
    let Some(opening) = opening else { return false };
    let closed_before = before[opening + 1..]
        .char_indices()
        .any(|(at, c)| c == '\'' && !is_word(before[opening + 1 + at + 1..].chars().next()));
    let closes_after = after
        .char_indices()
        .any(|(at, c)| c == '\'' && !is_word(after[at + 1..].chars().next()));
    !closed_before && closes_after
}

/// The byte ranges of `text` that are code: fenced blocks (```` ``` ````
/// or `~~~`, to their closing fence or the end), indented blocks (four
/// spaces or a tab, after a blank line, not inside a list item), and
/// inline code spans.
pub(super) fn code_regions(text: &str) -> Vec<Range<usize>> {
    let mut regions = Vec::new();
    let mut fence: Option<(char, usize, usize)> = None;
    let mut indented: Option<usize> = None;
    let mut previous_blank = true;
    let mut in_list = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let rest = content.trim_start_matches([' ', '\t']);
        let indent: usize = content[..content.len() - rest.len()]
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        if let Some((mark, length, opened)) = fence {
            let run = rest.chars().take_while(|&c| c == mark).count();
            if indent <= 3 && run >= length && rest[run..].trim().is_empty() {
                regions.push(opened..offset);
                fence = None;
            }
            continue;
        }
        let blank = rest.is_empty();
        if indent <= 3 && (rest.starts_with("```") || rest.starts_with("~~~")) {
            if let Some(opened) = indented.take() {
                regions.push(opened..start);
            }
            let mark = rest.chars().next().unwrap_or('`');
            fence = Some((mark, rest.chars().take_while(|&c| c == mark).count(), start));
            previous_blank = false;
            continue;
        }
        if indent >= 4 && !blank && (indented.is_some() || (previous_blank && !in_list)) {
            indented.get_or_insert(start);
        } else if !blank {
            if let Some(opened) = indented.take() {
                regions.push(opened..start);
            }
            if indent <= 3 {
                in_list = is_list_item(rest);
            }
            inline_code(start, content, &mut regions);
        }
        previous_blank = blank;
    }
    if let Some((_, _, opened)) = fence {
        regions.push(opened..text.len());
    }
    if let Some(opened) = indented {
        regions.push(opened..text.len());
    }
    regions
}

fn is_list_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let marker = if digits > 0 {
        line[digits..].strip_prefix(['.', ')'])
    } else {
        line.strip_prefix(['-', '*', '+'])
    };
    marker.is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
}

/// The inline code spans of one line: a run of backticks to the next run
/// of the same length.
fn inline_code(start: usize, line: &str, regions: &mut Vec<Range<usize>>) {
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
        let mut close = at + run;
        let mut closed = None;
        while close < bytes.len() {
            if bytes[close] == b'`' {
                let other = bytes[close..].iter().take_while(|&&b| b == b'`').count();
                if other == run {
                    closed = Some(close + other);
                    break;
                }
                close += other;
            } else {
                close += 1;
            }
        }
        match closed {
            Some(end) => {
                regions.push(start + at..start + end);
                at = end;
            }
            None => at += run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phrase_compiles() {
        for phrase in PHRASES {
            assert!(build(phrase.pattern).is_some(), "{}", phrase.pattern);
            if let Some(unless) = phrase.unless_followed_by {
                assert!(build(unless).is_some(), "{unless}");
            }
        }
        assert_eq!(PATTERNS.len(), PHRASES.len());
        for regex in [&NEGATION, &MENTION, &WARNING] {
            assert!(regex.is_some());
        }
    }
}
