//! `catalog check oci://…`: the catalog-wide rules judged from the
//! registry's index. Each publish event records what those rules read of
//! its version ([`Facts`]), so no bundle need be pulled, however many
//! versions there are; but a publish event is its writer's word, so a
//! sample of the versions (`--bundles N`, all with `--bundles all`) is
//! pulled by digest and its bundle compared with what its event records.
//! Versions whose publish events predate the recorded facts are pulled
//! and read, as a folder catalog's are. What only a registry can get wrong
//! (publishes set aside or disputed, events that cannot be read or that
//! name predecessors the index lacks, tags that moved) is reported beside,
//! each located in a listing of the index's events, and counted in the
//! same summary.

use std::path::Path;

use crate::bundle::catalog::consistency::{self, Facts, FactsByVersion};
use crate::bundle::catalog::LockEntry;
use crate::bundle::oci::{EventKind, Index, OciCatalog};
use crate::bundle::Bundle;
use crate::codes::{DIGEST_MISMATCH, FROZEN_VERSION_CHANGED, INVALID_BUNDLE, MISSING_BUNDLE};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::report::{self, Format, Totals};
use crate::source::{SourceFile, Span};

use super::super::output::{self, status};
use super::super::{fail, Outcome};
use super::Registry;

/// How many versions' bundles `catalog check` compares with their publish
/// events when not told.
pub(crate) const DEFAULT_SAMPLE: usize = 32;

/// Which versions' bundles to compare with their publish events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sample {
    /// At most this many, chosen at random anew each run, so a writer
    /// cannot know which will be read.
    Some(usize),
    /// Every version.
    All,
}

impl std::str::FromStr for Sample {
    type Err = String;

    fn from_str(text: &str) -> Result<Sample, String> {
        match text {
            "all" => Ok(Sample::All),
            number => number
                .parse()
                .map(Sample::Some)
                .map_err(|_| format!("`{number}` is neither a number nor `all`")),
        }
    }
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sample::Some(count) => write!(f, "{count}"),
            Sample::All => f.write_str("all"),
        }
    }
}

/// A file a check's diagnostics are located in, with them.
pub(crate) type Located = (SourceFile, Vec<Diagnostic>);

/// Checks `catalog` from its index under `config` (whose own diagnostics
/// are `config_diagnostics`), comparing `sample` of its bundles with their
/// publish events, reporting in `format`.
pub(crate) fn from_index(
    catalog: &OciCatalog,
    format: Format,
    config: &Config,
    config_diagnostics: &[Diagnostic],
    sample: Sample,
) -> Outcome {
    let scratch = match tempfile::tempdir() {
        Ok(scratch) => scratch,
        Err(error) => return fail(format!("cannot make a folder: {error}")),
    };
    let folder = scratch.path().join("catalog");
    let read = super::connect(catalog).and_then(|registry| {
        let index = registry.index()?;
        let older = super::facts::unrecorded(&index);
        let sampled = chosen(&index, sample)?;
        super::mirror(&registry, &index, &folder, &older)?;
        let mut facts = super::facts::of_every_version(&index, &folder)?;
        let listing = listing(catalog, &index);
        let (listing, mut found) = findings(&registry, &index, &listing);
        found.extend(compared(&registry, &index, &sampled, &listing, &mut facts));
        let counts = (older.len(), sampled.len());
        Ok((index, facts, (listing, found), counts))
    });
    let (index, facts, registry_found, (older, sampled)) = match read {
        Ok(read) => read,
        Err(message) => return fail(message),
    };
    status(format_args!(
        "note: `{catalog}` checked from its index: {} version(s), {older} of them read as bundles (published before the index recorded what the catalog-wide rules read), {sampled} compared with their publish events (`--bundles`)",
        index.lock.published.len()
    ));
    let lock_file = folder.join(crate::bundle::catalog::LOCK_FILE);
    let lock_text = std::fs::read_to_string(&lock_file).unwrap_or_default();
    let diagnostics = consistency::check_facts(&index.lock, &lock_text, &facts, config);
    let source = SourceFile::new(format!("{catalog}/catalog.lock"), lock_text);
    emit(
        format,
        config,
        config_diagnostics,
        &[(source, diagnostics), registry_found],
    )
}

/// Checks `catalog` as a mirror of it, its index and every bundle pulled
/// by digest, by `check_folder` (for what needs the bundles: comparing
/// sources with what was published), which reports what only a registry
/// can get wrong with its own findings.
pub(crate) fn mirrored(
    catalog: &OciCatalog,
    check_folder: &dyn Fn(&Path, Vec<Located>) -> Outcome,
) -> Outcome {
    let scratch = match tempfile::tempdir() {
        Ok(scratch) => scratch,
        Err(error) => return fail(format!("cannot make a folder: {error}")),
    };
    let folder = scratch.path().join("catalog");
    let found = super::connect(catalog).and_then(|registry| {
        let index = registry.index()?;
        let wanted: Vec<_> = index.lock.published.iter().collect();
        super::mirror(&registry, &index, &folder, &wanted)?;
        Ok(findings(&registry, &index, &listing(catalog, &index)))
    });
    match found {
        Ok(found) => check_folder(&folder, vec![found]),
        Err(message) => fail(message),
    }
}

/// The versions whose bundles are compared with their publish events:
/// those whose events record facts, all of them or a random `sample`.
fn chosen(index: &Index, sample: Sample) -> Result<Vec<&LockEntry>, String> {
    let mut recorded: Vec<&LockEntry> = index
        .lock
        .published
        .iter()
        .filter(|entry| index.facts.contains_key(&id(entry)))
        .collect();
    let Sample::Some(count) = sample else {
        return Ok(recorded);
    };
    // A partial Fisher–Yates shuffle: the first `count` are a uniform
    // sample.
    let count = count.min(recorded.len());
    for at in 0..count {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random)
            .map_err(|error| format!("cannot draw a random number: {error}"))?;
        let pick = at + (u64::from_le_bytes(random) % (recorded.len() - at) as u64) as usize;
        recorded.swap(at, pick);
    }
    recorded.truncate(count);
    Ok(recorded)
}

fn id(entry: &LockEntry) -> String {
    format!("{}@{}", entry.plugin, entry.version)
}

/// The index's events as a file diagnostics point into: one line per
/// event, in the order they were folded (`TAG KIND PLUGIN@VERSION
/// DIGEST`), then the events that could not be read.
fn listing(catalog: &OciCatalog, index: &Index) -> SourceFile {
    let mut text = String::new();
    for (tag, _, event) in &index.events {
        let digest = match event.kind {
            EventKind::Publish | EventKind::Sign => event.bundle_digest.as_deref().unwrap_or("-"),
            EventKind::Yank | EventKind::Restore => "-",
        };
        text.push_str(&format!(
            "{tag} {} {}@{} {digest}\n",
            event.kind.as_str(),
            event.plugin,
            event.version
        ));
    }
    for (tag, _) in &index.unreadable {
        text.push_str(&format!("{tag} unreadable\n"));
    }
    SourceFile::new(format!("{catalog}/contrib.index"), text)
}

/// The span of the line of the event `tag` in `listing`: its tag.
fn event_span(listing: &SourceFile, tag: &str) -> Span {
    let text: &str = &listing.text;
    let line_start = text
        .match_indices(tag)
        .map(|(at, _)| at)
        .find(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    match line_start {
        Some(at) => Span::new(at, at + tag.len()),
        None => Span::point(0),
    }
}

/// What only a registry can get wrong, located in `listing`.
fn findings(registry: &Registry, index: &Index, listing: &SourceFile) -> Located {
    let mut found = Vec::new();
    let published_by = |plugin: &str, version: &semver::Version| {
        index
            .published_by
            .get(&format!("{plugin}@{version}"))
            .cloned()
            .unwrap_or_default()
    };
    for conflict in &index.conflicts {
        let first = published_by(&conflict.plugin, &conflict.version);
        found.push(
            Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!(
                    "`{}@{}` is published again with other content ({}) by event `{}`, written after its publication as {}",
                    conflict.plugin, conflict.version, conflict.set_aside, conflict.tag, conflict.published
                ),
            )
            .primary(event_span(listing, &conflict.tag), "set aside: a published version never changes")
            .secondary(event_span(listing, &first), "the version's publication")
            .help("publish the other content as a new version; this event changes nothing"),
        );
    }
    for dispute in &index.disputes {
        let claims: Vec<String> = dispute
            .claims
            .iter()
            .map(|(tag, digest)| format!("`{tag}` ({digest})"))
            .collect();
        let mut diagnostic = Diagnostic::new(
            &FROZEN_VERSION_CHANGED,
            format!(
                "`{}@{}` is published with other content by events {}, none written after reading the others",
                dispute.plugin,
                dispute.version,
                claims.join(" and ")
            ),
        );
        for (at, (tag, _)) in dispute.claims.iter().enumerate() {
            let span = event_span(listing, tag);
            diagnostic = if at == 0 {
                diagnostic.primary(span, "claims it")
            } else {
                diagnostic.secondary(span, "claims it too")
            };
        }
        found.push(diagnostic.help(
            "one of these events was backdated, or two publishers raced with different bundles: the version installs from neither; publish the content as a new version",
        ));
    }
    for (tag, why) in &index.unreadable {
        found.push(
            Diagnostic::new(&INVALID_BUNDLE, format!("the index's event `{tag}` cannot be read: {why}"))
                .primary(event_span(listing, tag), "not an event")
                .help("an event no contrib wrote, or one a newer contrib wrote; it is left out of the catalog"),
        );
    }
    for (tag, missing) in &index.missing_predecessors {
        found.push(
            Diagnostic::new(
                &DIGEST_MISMATCH,
                format!("the index's event `{tag}` names a predecessor, {missing}, that the index does not hold"),
            )
            .primary(event_span(listing, tag), "its predecessor is missing")
            .help("an event was removed, rewritten or withheld: the index is append-only, so find out who changed it"),
        );
    }
    found.extend(moved_tags(registry, index, listing));
    (listing.clone(), found)
}

/// A diagnostic for each version whose tag names another manifest than
/// its index published (one `HEAD` per version).
fn moved_tags(registry: &Registry, index: &Index, listing: &SourceFile) -> Vec<Diagnostic> {
    let published: Vec<(&LockEntry, &String)> = index
        .lock
        .published
        .iter()
        .filter_map(|entry| Some((entry, index.manifest(&entry.plugin, &entry.version)?)))
        .collect();
    let tags: Vec<(String, String)> = published
        .iter()
        .map(|(entry, _)| {
            (
                registry.catalog.repository(&entry.plugin),
                entry.version.to_string(),
            )
        })
        .collect();
    let mut found = Vec::new();
    for ((entry, manifest), now) in published.iter().zip(registry.tag_digests(&tags)) {
        let span = event_span(
            listing,
            index
                .published_by
                .get(&id(entry))
                .map_or("", String::as_str),
        );
        let why = match now {
            Ok(now) => match super::moved(registry, &entry.plugin, &entry.version, manifest, now) {
                Ok(()) => continue,
                Err(why) => why,
            },
            Err(why) => why,
        };
        found.push(
            Diagnostic::new(&DIGEST_MISMATCH, why)
                .primary(span, "published here")
                .help("a version is installed by the manifest its index published, never by its tag; restore the tag, or publish a new version"),
        );
    }
    found
}

/// Compares each of `sampled`'s bundles, pulled by digest, with what its
/// publish event records: its facts and its permissions. A mismatch is
/// reported, and the bundle's own facts replace the event's in `facts`,
/// so the catalog-wide rules judge what the bundles say; a bundle that
/// cannot be pulled is reported too.
fn compared(
    registry: &Registry,
    index: &Index,
    sampled: &[&LockEntry],
    listing: &SourceFile,
    facts: &mut FactsByVersion,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for entry in sampled {
        let tag = index
            .published_by
            .get(&id(entry))
            .map_or("", String::as_str);
        let span = event_span(listing, tag);
        let bundle = match super::pull_bundle(registry, index, &entry.plugin, &entry.version) {
            Ok((bundle, _)) => bundle,
            Err(why) => {
                found.push(
                    Diagnostic::new(
                        &MISSING_BUNDLE,
                        format!("the bundle of `{}` cannot be pulled to compare with its publish event: {why}", id(entry)),
                    )
                    .primary(span, "its publish event")
                    .help("the registry lost the bundle, or serves another: the version cannot be installed; publish it again under a new version"),
                );
                continue;
            }
        };
        let key = (entry.plugin.clone(), entry.version.clone());
        let actual = Facts::of(&bundle);
        let differ = differences(facts.get(&key), &actual, entry, &bundle);
        if differ.is_empty() {
            continue;
        }
        found.push(
            Diagnostic::new(
                &DIGEST_MISMATCH,
                format!(
                    "the publish event of `{}` records {}",
                    id(entry),
                    differ.join("; ")
                ),
            )
            .primary(span, "its publish event")
            .help("the event was not written by `contrib publish` from this bundle; the catalog-wide rules are judged by the bundle, and the version should be published again under a new version by its author"),
        );
        facts.insert(key, actual);
    }
    found
}

/// What a publish event records (`recorded` facts, `entry`'s permissions)
/// that its bundle does not say, in words.
fn differences(
    recorded: Option<&Facts>,
    actual: &Facts,
    entry: &LockEntry,
    bundle: &Bundle,
) -> Vec<String> {
    let mut differ = Vec::new();
    if let Some(recorded) = recorded {
        if recorded.owner != actual.owner {
            differ.push(format!(
                "owner `{}`, but its bundle asks for `{}`",
                recorded.owner, actual.owner
            ));
        }
        if recorded.share != actual.share {
            differ.push(format!(
                "{} tokens before every conversation, but its bundle adds {}",
                recorded.share, actual.share
            ));
        }
        if recorded.requested != actual.requested {
            differ.push(format!(
                "the texts the model may ask for as [{}], but its bundle offers [{}]",
                recorded.requested.join(", "),
                actual.requested.join(", ")
            ));
        }
    }
    if entry.permissions != bundle.permissions {
        differ.push("permissions other than its bundle's".to_string());
    }
    differ
}

/// Writes the configuration's diagnostics and each located file's;
/// problems when there is an error among them.
fn emit(
    format: Format,
    config: &Config,
    config_diagnostics: &[Diagnostic],
    files: &[Located],
) -> Outcome {
    let mut emitter = report::emitter(format, output::stdout_style());
    let mut totals = Totals::default();
    let written = output::write_result(|out| {
        if let (Some(config_source), false) = (&config.source, config_diagnostics.is_empty()) {
            totals.add(config_diagnostics);
            emitter.file(out, config_source, config_diagnostics)?;
        }
        for (source, diagnostics) in files {
            totals.add(diagnostics);
            emitter.file(out, source, diagnostics)?;
        }
        emitter.finish(out, totals)
    });
    let reached = if totals.errors > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    if let Err(stopped) = written {
        return stopped.outcome(reached);
    }
    status(totals.summary());
    reached
}
