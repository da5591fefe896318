//! The library's modules form no cycle: neither between the pipeline's
//! stages (`crate::X` → `crate::Y`) nor between the files of one stage
//! (`super::x` → `super::y`, `crate::stage::x` → `crate::stage::y`). Read
//! from the `use` paths of the source itself, outside comments and test
//! modules, so a new edge that closes a loop fails here with the loop
//! named, rather than in a review.
//!
//! Library modules also never reach into the command line: only `cli`
//! itself and the binary (`main.rs`) may name it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path of a source file: `src/runtime/wire/mod.rs` → `runtime::wire`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text of a file without comments and without its `#[cfg(test)]`
/// module (which may use anything).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lowercase path segments after `prefix` wherever it occurs.
fn paths_after<'a>(code: &'a str, prefix: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
    code.match_indices(prefix).filter_map(move |(at, _)| {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let rest = &code[at + prefix.len()..];
        let segments: Vec<&str> = rest
            .split("::")
            .map(|segment| {
                let end = segment
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(segment.len());
                &segment[..end]
            })
            .take_while(|segment| {
                segment
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            })
            .collect();
        (!segments.is_empty()).then_some(segments)
    })
}

fn sources(folder: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Edges between stages and between sibling files, by module path.
fn edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let module = module_of(src, &file);
        let Some(stage) = module.first() else {
            continue;
        };
        let code = code_of(&std::fs::read_to_string(&file).expect("source"));
        let mut add = |from: String, to: String| {
            if from != to {
                edges.entry(from).or_default().insert(to);
            }
        };
        for path in paths_after(&code, "crate::") {
            if path[0] != *stage {
                add(stage.clone(), path[0].to_string());
            } else if let (Some(own), Some(other)) = (module.get(1), path.get(1)) {
                if own != other {
                    add(format!("{stage}::{own}"), format!("{stage}::{other}"));
                }
            }
        }
        if module.len() >= 2 {
            let parent = module[..module.len() - 1].join("::");
            let own = module.join("::");
            for path in paths_after(&code, "super::") {
                if path[0] != "super" {
                    add(own.clone(), format!("{parent}::{}", path[0]));
                }
            }
        }
    }
    edges
}

/// A cycle through `start`, if any, by depth-first search.
fn cycle_from(
    start: &str,
    edges: &BTreeMap<String, BTreeSet<String>>,
    known: &BTreeSet<String>,
) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        start: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        known: &BTreeSet<String>,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in edges.get(at).into_iter().flatten() {
            if !known.contains(next) {
                continue;
            }
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if visit(next, start, edges, known, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    visit(start, start, edges, known, &mut path, &mut seen).then_some(path)
}

/// Every crate's source folder: the language's (`src`) and the layers'
/// (`crates/*/src`).
fn source_roots() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let src = entry.expect("an entry").path().join("src");
        if src.is_dir() {
            roots.push(src);
        }
    }
    roots
}

#[test]
fn no_module_reaches_itself_through_others() {
    for src in source_roots() {
        no_cycle_in(&src);
    }
}

fn no_cycle_in(src: &Path) {
    let edges = edges(src);
    // Only modules that exist: `crate::X` may name a re-exported item.
    let known: BTreeSet<String> = {
        let mut files = Vec::new();
        sources(src, &mut files);
        files
            .iter()
            .map(|file| module_of(src, file).join("::"))
            .collect()
    };
    let cycles: Vec<String> = known
        .iter()
        .filter_map(|module| cycle_from(module, &edges, &known))
        .map(|cycle| format!("{} → {}", cycle.join(" → "), cycle[0]))
        .collect();
    assert!(
        cycles.is_empty(),
        "modules of {} that reach themselves:\n{}",
        src.display(),
        cycles.join("\n")
    );
}

#[test]
fn the_library_never_reaches_into_the_command_line() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = edges(&src);
    let reaching: Vec<&String> = edges
        .iter()
        .filter(|(from, to)| {
            let command_line = |module: &str| module == "cli" || module.starts_with("cli::");
            !command_line(from) && to.iter().any(|module| command_line(module))
        })
        .map(|(from, _)| from)
        .collect();
    assert!(reaching.is_empty(), "{reaching:?} use `crate::cli`");
}

#[test]
fn the_reader_sees_edges_the_way_they_are_written() {
    let code = code_of(
        "use crate::bundle::Bundle;\n// crate::cli in a comment\nuse super::order::{self, Role};\nfn f() { crate::runtime::wire::body(); }\n",
    );
    let crate_paths: Vec<Vec<&str>> = paths_after(&code, "crate::").collect();
    assert_eq!(
        crate_paths,
        [vec!["bundle"], vec!["runtime", "wire", "body"]]
    );
    let super_paths: Vec<Vec<&str>> = paths_after(&code, "super::").collect();
    assert_eq!(super_paths, [vec!["order"]]);
}
