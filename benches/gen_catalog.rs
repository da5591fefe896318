//! `gen-catalog [--noisy | --corpus DIR] N OUT [SEED]`: writes a
//! deterministic catalog of N plugins to OUT as `contrib/*.contrib` (with
//! `contrib/contrib.toml`), `json/*.json` (with `schema.json`) and
//! `toml/*.toml`, and every text's body alone as `text/*.txt` (with the
//! list `text.list`): what counting the same bodies' tokens reads.
//!
//! - By default the plugins are generated (`benches/support/generate.rs`),
//!   about 5% of them with a planted mistake.
//! - `--noisy`: the same plugins, each with a budget eight times what its
//!   listing needs, so that a check reports a warning for every plugin (the
//!   rendering benchmark: thousands of diagnostics).
//! - `--corpus DIR`: bodies of real instruction files read from DIR
//!   (`benches/support/corpus.rs`), under budgets near their real counts.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/generate.rs"]
mod generate;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: gen-catalog [--noisy | --corpus DIR] N OUT [SEED]";

/// Where the plugins come from.
enum Source {
    Generated { noisy: bool },
    Corpus(Vec<String>),
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut source = Source::Generated { noisy: false };
    if args.first().is_some_and(|arg| arg == "--noisy") {
        args.remove(0);
        source = Source::Generated { noisy: true };
    } else if args.first().is_some_and(|arg| arg == "--corpus") {
        let folder = args.get(1).ok_or(USAGE)?.clone();
        args.drain(..2);
        let bodies = corpus::bodies(folder.as_ref())
            .map_err(|error| format!("cannot read {folder}: {error}"))?;
        if bodies.is_empty() {
            return Err(format!("no instruction files in {folder}"));
        }
        source = Source::Corpus(bodies);
    }
    let (Some(count), Some(out)) = (
        args.first().and_then(|n| n.parse::<usize>().ok()),
        args.get(1),
    ) else {
        return Err(USAGE.into());
    };
    let seed = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC0_47_21_B0);
    let out = PathBuf::from(out);
    for folder in ["contrib", "json", "toml", "text"] {
        std::fs::create_dir_all(out.join(folder))
            .map_err(|error| format!("cannot create {}: {error}", out.join(folder).display()))?;
    }
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|error| format!("{}: {error}", path.display()))
    };
    write(out.join("contrib/contrib.toml"), generate::CONFIG)?;
    write(out.join("schema.json"), generate::JSON_SCHEMA)?;
    let mut rng = generate::Rng::new(seed);
    let (mut broken, mut bytes) = (0, 0);
    let mut texts = String::new();
    for index in 0..count {
        let plugin = match &source {
            Source::Generated { noisy } => {
                let mut plugin = generate::plugin(&mut rng, index);
                if *noisy {
                    plugin.parts[0].budget *= 8;
                }
                plugin
            }
            Source::Corpus(bodies) => corpus::plugin(bodies, index),
        };
        broken += usize::from(plugin.broken);
        let manifest = generate::manifest(&plugin);
        bytes += manifest.len();
        let stem = format!("plugin-{index:05}");
        write(out.join(format!("contrib/{stem}.contrib")), &manifest)?;
        write(
            out.join(format!("json/{stem}.json")),
            &generate::json(&plugin),
        )?;
        write(
            out.join(format!("toml/{stem}.toml")),
            &generate::toml(&plugin),
        )?;
        for part in &plugin.parts {
            if let Some(body) = &part.body {
                let path = out.join(format!("text/{stem}-{}.txt", part.id));
                write(path.clone(), body)?;
                texts.push_str(&format!("{}\n", path.display()));
            }
        }
    }
    write(out.join("text.list"), &texts)?;
    eprintln!(
        "{count} plugins ({broken} with a planted mistake), {:.1} MB of manifests, in {}",
        bytes as f64 / 1e6,
        out.display()
    );
    Ok(())
}
