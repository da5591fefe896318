//! A catalog of real text: the instruction files of `shared/corpus/`
//! (skills, agents, commands, Cursor rules, `AGENTS.md` and the like), each
//! body as its author wrote it after the frontmatter, under a budget near
//! its real count.
//!
//! Generated prose (`generate.rs`) is kind to a tokenizer: a hundred words
//! repeated. Real text has code, tables, URLs, punctuation runs and other
//! scripts, which is where a pre-tokenizer and byte-pair merging spend
//! their time; this catalog measures that.

use std::path::{Path, PathBuf};

use contrib::import::frontmatter;
use contrib::tokenizer::TokenizerKind;

use crate::generate::{Part, Plugin};

/// Bodies shorter than this (in bytes) are skipped: a file that is all
/// frontmatter says nothing about counting text.
const MIN_BODY_BYTES: usize = 200;

/// The bodies of every `.md` and `.mdc` file under `root`, in path order,
/// so that the catalog is the same on every machine.
pub fn bodies(root: &Path) -> std::io::Result<Vec<String>> {
    let mut paths = Vec::new();
    collect(root, &mut paths)?;
    paths.sort();
    let mut bodies = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let body = frontmatter::split(&text).body.trim();
        if body.len() >= MIN_BODY_BYTES {
            bodies.push(body.to_string());
        }
    }
    Ok(bodies)
}

fn collect(folder: &Path, paths: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            collect(&path, paths)?;
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|extension| extension == "md" || extension == "mdc")
        {
            paths.push(path);
        }
    }
    Ok(())
}

/// Plugin `index` of the real-text catalog: two bodies from `bodies` (a
/// rule and a skill, taken in turn), each ending with a line naming the
/// plugin so that no two bodies in the catalog are the same text, under a
/// budget of its exact count plus 5% and room for the framing.
pub fn plugin(bodies: &[String], index: usize) -> Plugin {
    let parts = ["rules", "skill-body"]
        .into_iter()
        .enumerate()
        .map(|(slot, id)| {
            let body = format!(
                "{}\n\n(plugin {index}, {id})",
                bodies[(2 * index + slot) % bodies.len()]
            );
            let tokens = TokenizerKind::O200k.count(&body);
            Part {
                kind: "text",
                id: id.into(),
                placement: "agent",
                budget: tokens + tokens / 20 + 32,
                fields: vec![],
                body: Some(body),
            }
        })
        .collect();
    Plugin {
        name: format!("bench/real-{index:05}"),
        version: "1.0.0".into(),
        owner: "agent-author",
        summary: "Instruction files from shared/corpus".into(),
        parts,
        broken: false,
    }
}
