//! `gen-catalog N OUT`: writes a deterministic catalog of N plugins to OUT
//! as `contrib/*.contrib` (with `contrib/contrib.toml`), `json/*.json` (with
//! `schema.json`) and `toml/*.toml`. See `benches/support/generate.rs`.

#[path = "support/generate.rs"]
mod generate;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(count), Some(out)) = (
        args.next().and_then(|n| n.parse::<usize>().ok()),
        args.next(),
    ) else {
        eprintln!("usage: gen-catalog N OUT [SEED]");
        return ExitCode::from(2);
    };
    let seed = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC0_47_21_B0);
    let out = PathBuf::from(out);
    for folder in ["contrib", "json", "toml"] {
        if let Err(error) = std::fs::create_dir_all(out.join(folder)) {
            eprintln!(
                "error: cannot create {}: {error}",
                out.join(folder).display()
            );
            return ExitCode::from(2);
        }
    }
    let mut rng = generate::Rng::new(seed);
    let mut broken = 0;
    let mut bytes = 0;
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|error| format!("{}: {error}", path.display()))
    };
    let mut result = write(out.join("contrib/contrib.toml"), generate::CONFIG)
        .and(write(out.join("schema.json"), generate::JSON_SCHEMA));
    for index in 0..count {
        let plugin = generate::plugin(&mut rng, index);
        broken += usize::from(plugin.broken);
        let manifest = generate::manifest(&plugin);
        bytes += manifest.len();
        let stem = format!("plugin-{index:05}");
        result = result
            .and(write(
                out.join(format!("contrib/{stem}.contrib")),
                &manifest,
            ))
            .and(write(
                out.join(format!("json/{stem}.json")),
                &generate::json(&plugin),
            ))
            .and(write(
                out.join(format!("toml/{stem}.toml")),
                &generate::toml(&plugin),
            ));
        if result.is_err() {
            break;
        }
    }
    if let Err(message) = result {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    eprintln!(
        "{count} plugins ({broken} with a planted mistake), {:.1} MB of manifests, in {}",
        bytes as f64 / 1e6,
        out.display()
    );
    ExitCode::SUCCESS
}
