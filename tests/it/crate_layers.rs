//! The crates are the pipeline's layers, and each depends only on those
//! below it: `contrib-core` (the words) ← `contrib-bundle` (the format and
//! the workspace) ← `contrib-runtime` (composition) ← `contrib` (the
//! language and the command line). A host depends on the runtime alone,
//! so what the runtime compiles is what every host compiles: none of the
//! language's parser, diagnostics renderer, parallelism, file walking,
//! YAML, file watching, argument parsing or language server.
//!
//! Read from `cargo metadata` (the resolved graph, normal dependencies
//! only, this platform), so a dependency added anywhere below the runtime
//! that pulls one of these in fails here with the path that does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Crates the runtime must never compile: the language's and the command
/// line's.
const NOT_IN_THE_RUNTIME: &[&str] = &[
    "contrib",
    "pest",
    "pest_derive",
    "miette",
    "rayon",
    "ignore",
    "yaml-rust2",
    "notify",
    "clap",
    "lsp-types",
    "lsp-server",
    "reqwest",
    "tokio",
];

/// The layers, lowest first; each may depend on those before it only.
const LAYERS: &[&str] = &[
    "contrib-core",
    "contrib-bundle",
    "contrib-runtime",
    "contrib",
];

struct Graph {
    /// Package id → (name, normal dependencies' ids).
    nodes: BTreeMap<String, (String, Vec<String>)>,
}

impl Graph {
    fn read() -> Graph {
        let output = Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1", "--locked", "--offline"])
            .arg("--filter-platform")
            .arg(host_triple())
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
        let names: BTreeMap<&str, &str> = metadata["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|package| {
                (
                    package["id"].as_str().expect("an id"),
                    package["name"].as_str().expect("a name"),
                )
            })
            .collect();
        let nodes = metadata["resolve"]["nodes"]
            .as_array()
            .expect("a resolved graph")
            .iter()
            .map(|node| {
                let id = node["id"].as_str().expect("an id").to_string();
                let normal = node["deps"]
                    .as_array()
                    .expect("deps")
                    .iter()
                    .filter(|dep| {
                        dep["dep_kinds"]
                            .as_array()
                            .expect("dep_kinds")
                            .iter()
                            .any(|kind| kind["kind"].is_null())
                    })
                    .map(|dep| dep["pkg"].as_str().expect("a package").to_string())
                    .collect();
                (id.clone(), (names[id.as_str()].to_string(), normal))
            })
            .collect();
        Graph { nodes }
    }

    fn id_of(&self, name: &str) -> &str {
        self.nodes
            .iter()
            .find(|(_, (named, _))| named == name)
            .map(|(id, _)| id.as_str())
            .unwrap_or_else(|| panic!("no package `{name}` in the graph"))
    }

    fn name(&self, id: &str) -> &str {
        &self.nodes[id].0
    }

    /// Every crate `name` compiles (itself included), each with the path
    /// of names it is first reached by.
    fn closure(&self, name: &str) -> BTreeMap<String, Vec<String>> {
        let start = self.id_of(name).to_string();
        let mut reached = BTreeMap::new();
        let mut queue = vec![(start, vec![name.to_string()])];
        let mut seen = BTreeSet::new();
        while let Some((id, path)) = queue.pop() {
            if !seen.insert(id.clone()) {
                continue;
            }
            reached
                .entry(self.name(&id).to_string())
                .or_insert_with(|| path.clone());
            for dep in &self.nodes[&id].1 {
                let mut next = path.clone();
                next.push(self.name(dep).to_string());
                queue.push((dep.clone(), next));
            }
        }
        reached
    }
}

fn host_triple() -> String {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

#[test]
fn the_runtime_compiles_none_of_the_language() {
    let graph = Graph::read();
    let closure = graph.closure("contrib-runtime");
    let found: Vec<String> = NOT_IN_THE_RUNTIME
        .iter()
        .filter_map(|banned| closure.get(*banned))
        .map(|path| path.join(" → "))
        .collect();
    assert!(
        found.is_empty(),
        "the runtime compiles what only the language needs:\n{}",
        found.join("\n")
    );
}

#[test]
fn each_layer_depends_only_on_those_below_it() {
    let graph = Graph::read();
    for (at, layer) in LAYERS.iter().enumerate() {
        let closure = graph.closure(layer);
        for above in &LAYERS[at + 1..] {
            assert!(
                !closure.contains_key(*above),
                "`{layer}` depends on `{above}`, a layer above it: {}",
                closure[*above].join(" → ")
            );
        }
    }
}

#[test]
fn the_language_composes_through_the_runtime_crate() {
    let graph = Graph::read();
    let contrib = graph.id_of("contrib");
    let direct: Vec<&str> = graph.nodes[contrib]
        .1
        .iter()
        .map(|dep| graph.name(dep))
        .collect();
    assert!(
        direct.contains(&"contrib-runtime"),
        "`contrib` does not depend on `contrib-runtime`: {direct:?}"
    );
}
