//! `plugin scope/name VERSION { … }` and its own fields.

use std::collections::HashMap;

use super::values::no_value;
use super::Lowerer;
use crate::codes::{
    DUPLICATE_FIELD, DUPLICATE_ID, INVALID_PLUGIN_NAME, INVALID_VALUE, INVALID_VERSION,
    INVALID_VERSION_REQ, LIMIT_EXCEEDED, MISSING_FIELD, MISSING_REQUIREMENT, SYNTAX_ERROR,
    UNKNOWN_FIELD,
};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::names::{is_kebab, to_kebab};
use crate::ir::{Kind, Owner, Plugin, PluginName, Requirement};
use crate::limits::MAX_CONTRIBUTORS;
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Block, Field, Item, Token, Word};

/// The fields a plugin block accepts besides its contributors.
pub const PLUGIN_FIELDS: &[&str] = &["owner", "summary", "requires"];

impl Lowerer<'_> {
    pub(super) fn plugin(&mut self, block: &Block<'_>) -> Option<Plugin> {
        let errors_before = self.error_count();
        let header = block.keyword.span.to(block.open);
        let (name, version) = self.plugin_header(block);

        // Contributors and the repeatable `requires` are read on their own.
        let single_items: Vec<Item<'_>> = block
            .items
            .iter()
            .filter(|item| match item {
                Item::Block(child) => child.keyword.text == "call",
                other => other.keyword().text != "requires",
            })
            .cloned()
            .collect();
        let requires_items: Vec<&Field<'_>> = block
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Field(field) if field.key.text == "requires" => Some(field),
                _ => None,
            })
            .collect();
        let mut fields = self.fields(
            &single_items,
            PLUGIN_FIELDS,
            header,
            "the plugin".into(),
            &|name, key, _| {
                crate::ir::kinds::field(name).map(|_| {
                    Diagnostic::new(&UNKNOWN_FIELD, format!("`{name}` is a contributor's field, not the plugin's"))
                        .primary(key, "not a field of the plugin")
                        .help(format!("move `{name}` into the contributor it belongs to; the plugin's fields are {}", suggest::list(PLUGIN_FIELDS.iter().copied())))
                })
            },
        );
        let owner = fields
            .required(self, "owner", "owner agent-author")
            .and_then(|field| self.vocabulary::<Owner>(field));
        let summary = fields
            .optional(self, "summary")
            .and_then(|field| self.one_string(field))
            .map(|decoded| Spanned::new(decoded.value, decoded.span));
        let requires = self.requirements(&requires_items);
        let contributors = self.contributors(block, owner.as_ref());
        self.check_requirements(&requires, &contributors, name.as_ref());

        let (Some(name), Some(version), Some(owner)) = (name, version, owner) else {
            return None;
        };
        if self.error_count() > errors_before && contributors.is_empty() {
            return None;
        }
        Some(Plugin {
            name,
            version,
            owner,
            summary,
            requires,
            contributors,
            span: block.span,
        })
    }

    fn plugin_header(
        &mut self,
        block: &Block<'_>,
    ) -> (
        Option<Spanned<PluginName>>,
        Option<Spanned<semver::Version>>,
    ) {
        match block.args.as_slice() {
            [name, version] => (self.plugin_name(*name), self.version(*version)),
            [name] => {
                self.report(
                    Diagnostic::new(&MISSING_FIELD, "the plugin has no version")
                        .primary(Span::point(name.span.end), "expected a version here")
                        .help("write the version after the name: `plugin scope/name 1.0.0 {`"),
                );
                (self.plugin_name(*name), None)
            }
            [] => {
                self.report(
                    Diagnostic::new(&MISSING_FIELD, "the plugin has no name or version")
                        .primary(
                            block.keyword.span,
                            "expected a name and a version after this",
                        )
                        .help("write `plugin scope/name 1.0.0 {`"),
                );
                (None, None)
            }
            [name, version, extra @ ..] => {
                let span = extra
                    .iter()
                    .map(|word| word.span)
                    .fold(extra[0].span, Span::to);
                self.report(
                    Diagnostic::new(
                        &SYNTAX_ERROR,
                        "the plugin header has more than a name and a version",
                    )
                    .primary(span, "unexpected")
                    .help("write `plugin scope/name 1.0.0 {`"),
                );
                (self.plugin_name(*name), self.version(*version))
            }
        }
    }

    fn plugin_name(&mut self, word: Word<'_>) -> Option<Spanned<PluginName>> {
        if let Some((scope, name)) = word.text.split_once('/') {
            if is_kebab(scope) && is_kebab(name) {
                return Some(Spanned::new(
                    PluginName {
                        scope: scope.into(),
                        name: name.into(),
                    },
                    word.span,
                ));
            }
        }
        let mut diagnostic = Diagnostic::new(
            &INVALID_PLUGIN_NAME,
            format!("plugin name `{}` is not `scope/name`", word.text),
        )
        .primary(
            word.span,
            "expected `scope/name`, both lowercase kebab-case",
        );
        diagnostic = match word.text.split_once('/') {
            Some((scope, name)) if !to_kebab(scope).is_empty() && !to_kebab(name).is_empty() => {
                let suggestion = format!("{}/{}", to_kebab(scope), to_kebab(name));
                diagnostic
                    .help(format!("write it as `{suggestion}`"))
                    .fix(Fix::replace(
                        format!("Rename to `{suggestion}`"),
                        Applicability::Unsafe,
                        word.span,
                        suggestion,
                    ))
            }
            _ => diagnostic.help("name the publisher before the plugin, as in `acme/code-review`"),
        };
        self.report(diagnostic);
        None
    }

    fn version(&mut self, word: Word<'_>) -> Option<Spanned<semver::Version>> {
        match semver::Version::parse(word.text) {
            Ok(version) => Some(Spanned::new(version, word.span)),
            Err(error) => {
                let mut diagnostic = Diagnostic::new(
                    &INVALID_VERSION,
                    format!("version `{}` is not a semantic version", word.text),
                )
                .primary(word.span, error.to_string());
                diagnostic = match complete_version(word.text) {
                    Some(full) => diagnostic
                        .help(format!(
                            "versions have three numbers, `MAJOR.MINOR.PATCH`: `{full}`"
                        ))
                        .fix(Fix::replace(
                            format!("Write `{full}`"),
                            Applicability::Safe,
                            word.span,
                            full,
                        )),
                    None => diagnostic
                        .help("write `MAJOR.MINOR.PATCH`, such as `1.4.0` or `2.0.0-beta.1`"),
                };
                self.report(diagnostic);
                None
            }
        }
    }

    fn requirements(&mut self, fields: &[&Field<'_>]) -> Vec<Requirement> {
        let mut requirements: Vec<Requirement> = Vec::new();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for field in fields {
            let Some(requirement) = self.requirement(field) else {
                continue;
            };
            if let Some(first) = seen.get(&requirement.skill.value) {
                self.report(
                    Diagnostic::new(
                        &DUPLICATE_FIELD,
                        format!("skill `{}` is required twice", requirement.skill.value),
                    )
                    .primary(requirement.span, "required again here")
                    .secondary(*first, "first required here")
                    .help("keep one requirement per skill; combine ranges in one string, such as \">=1.2, <2\""),
                );
                continue;
            }
            seen.insert(requirement.skill.value.clone(), requirement.span);
            requirements.push(requirement);
        }
        requirements
    }

    /// `requires skill NAME "REQ"`.
    fn requirement(&mut self, field: &Field<'_>) -> Option<Requirement> {
        let example = "write `requires skill NAME \"^1.0\"`";
        match field.tokens.as_slice() {
            [Token::Word(kind), Token::Word(name), Token::Str(literal)] => {
                if kind.text != "skill" {
                    let diagnostic = Diagnostic::new(
                        &INVALID_VALUE,
                        format!("`requires` takes skills, not `{}`", kind.text),
                    )
                    .primary(kind.span, "expected `skill`");
                    let diagnostic = match suggest::closest(kind.text, ["skill"]) {
                        Some(suggestion) => diagnostic.suggest(kind.span, suggestion),
                        None => diagnostic.help(example),
                    };
                    self.report(diagnostic);
                    return None;
                }
                let skill = self.identifier(*name, "skill name");
                let decoded = super::strings::decode(literal, &mut self.diagnostics);
                let version = match semver::VersionReq::parse(&decoded.value) {
                    Ok(req) => Some(Spanned::new(req, literal.span)),
                    Err(error) => {
                        self.report(
                            Diagnostic::new(
                                &INVALID_VERSION_REQ,
                                format!("`{}` is not a version requirement", decoded.value),
                            )
                            .primary(literal.span, error.to_string())
                            .help("write a semver requirement such as \"^2.1\", \"~1.4.0\" or \">=1.2, <2\""),
                        );
                        None
                    }
                };
                Some(Requirement {
                    skill: skill?,
                    version: version?,
                    span: field.span,
                })
            }
            [Token::Word(kind), Token::Word(name), Token::Word(bare)] if kind.text == "skill" => {
                let _ = name;
                self.report(
                    Diagnostic::new(
                        &INVALID_VERSION_REQ,
                        format!("the requirement `{}` is not quoted", bare.text),
                    )
                    .primary(bare.span, "expected a quoted requirement")
                    .help("quote the requirement: \"^1.0\"")
                    .fix(Fix::replace(
                        "Quote the requirement",
                        Applicability::Safe,
                        bare.span,
                        format!("\"{}\"", bare.text),
                    )),
                );
                None
            }
            [] => {
                self.report(no_value(field, "a skill and a version requirement").help(example));
                None
            }
            _ => {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, "`requires` takes `skill NAME \"REQ\"`")
                        .primary(field.span, "not a requirement")
                        .help(example),
                );
                None
            }
        }
    }

    fn contributors(
        &mut self,
        block: &Block<'_>,
        plugin_owner: Option<&Spanned<Owner>>,
    ) -> Vec<crate::ir::Contributor> {
        let mut contributors = Vec::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        let mut count = 0;
        for item in &block.items {
            let Item::Block(child) = item else { continue };
            if child.keyword.text == "call" {
                continue;
            }
            count += 1;
            if count > MAX_CONTRIBUTORS {
                self.report(
                    Diagnostic::new(
                        &LIMIT_EXCEEDED,
                        format!("the plugin has more than {MAX_CONTRIBUTORS} contributors"),
                    )
                    .primary(child.keyword.span, format!("contributor {count}"))
                    .help("split the contributors across several plugins"),
                );
                break;
            }
            let Some(kind) = self.contributor_kind(child) else {
                continue;
            };
            if let Some(id) = child.args.first() {
                if let Some(first) = seen.get(id.text) {
                    self.report(
                        Diagnostic::new(
                            &DUPLICATE_ID,
                            format!("two contributors are named `{}`", id.text),
                        )
                        .primary(id.span, "named again here")
                        .secondary(*first, "first named here")
                        .help("give each contributor of a plugin its own id"),
                    );
                    // Still lowered, so that its own errors are reported.
                    let _ = self.contributor(child, kind, plugin_owner);
                    continue;
                }
                seen.insert(id.text, id.span);
            }
            if let Some(contributor) = self.contributor(child, kind, plugin_owner) {
                contributors.push(contributor);
            }
        }
        contributors
    }

    fn contributor_kind(&mut self, block: &Block<'_>) -> Option<Kind> {
        let keyword = block.keyword;
        if let Some(kind) = Kind::parse(keyword.text) {
            return Some(kind);
        }
        let diagnostic = if keyword.text == "plugin" {
            Diagnostic::new(&SYNTAX_ERROR, "plugins cannot be nested")
                .primary(keyword.span, "a plugin inside a plugin")
                .help("move this plugin into a file of its own")
        } else {
            let diagnostic = Diagnostic::new(
                &UNKNOWN_FIELD,
                format!("unknown contributor kind `{}`", keyword.text),
            )
            .primary(keyword.span, "not a contributor kind");
            match suggest::closest(keyword.text, Kind::spellings()) {
                Some(suggestion) => diagnostic.suggest(keyword.span, suggestion),
                None => diagnostic.help(format!(
                    "the contributor kinds are {}",
                    suggest::list(Kind::spellings())
                )),
            }
        };
        self.report(diagnostic);
        None
    }
}

impl Lowerer<'_> {
    /// Every skill a contributor names must be required by the plugin, so
    /// that a workspace knows what to install and which versions work: an
    /// eager load of the skill, a `skill-updated` condition, an activation
    /// on the skill.
    fn check_requirements(
        &mut self,
        requires: &[Requirement],
        contributors: &[crate::ir::Contributor],
        name: Option<&Spanned<PluginName>>,
    ) {
        let mut reported = std::collections::HashSet::new();
        for skill in contributors
            .iter()
            .flat_map(|contributor| contributor.skills())
        {
            let required = requires
                .iter()
                .any(|requirement| requirement.skill.value == skill.value);
            if required || !reported.insert(skill.value.clone()) {
                continue;
            }
            let line = format!("requires skill {} \"^1.0\"", skill.value);
            let diagnostic = Diagnostic::new(
                &MISSING_REQUIREMENT,
                format!("the plugin uses the skill `{}` but does not require it", skill.value),
            )
            .primary(skill.span, "used here")
            .help(format!(
                "add a line such as `{line}` to the plugin, with the range of versions it works with"
            ));
            self.report(match name {
                Some(name) => {
                    diagnostic.secondary(name.span, "no `requires` for it in this plugin")
                }
                None => diagnostic,
            });
        }
    }
}

/// `1.4` → `1.4.0`, `2` → `2.0.0`: the version a short one most likely meant.
fn complete_version(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.is_empty()
        || parts.len() > 2
        || !parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let mut full = parts.join(".");
    for _ in parts.len()..3 {
        full.push_str(".0");
    }
    semver::Version::parse(&full).ok().map(|_| full)
}
