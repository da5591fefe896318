//! Gives the build an identity: a hash of everything that decides what
//! `contrib check` reports (the sources, the grammar, the locked
//! dependencies). The check cache keys its entries by it, so a new build
//! of the same version never answers from an entry an older build wrote.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let mut hasher = DefaultHasher::new();
    let mut inputs = vec![
        PathBuf::from("Cargo.toml"),
        PathBuf::from("Cargo.lock"),
        PathBuf::from("build.rs"),
    ];
    for folder in ["src", "grammar"] {
        println!("cargo:rerun-if-changed={folder}");
        files_under(Path::new(folder), &mut inputs);
    }
    inputs.sort();
    for path in &inputs {
        println!("cargo:rerun-if-changed={}", path.display());
        hasher.write(path.to_string_lossy().as_bytes());
        hasher.write_u8(0);
        hasher.write(&std::fs::read(path).unwrap_or_default());
        hasher.write_u8(0);
    }
    for variable in ["TARGET", "PROFILE", "OPT_LEVEL"] {
        hasher.write(std::env::var(variable).unwrap_or_default().as_bytes());
        hasher.write_u8(0);
    }
    println!(
        "cargo:rustc-env=CONTRIB_BUILD_ID={}-{:016x}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        hasher.finish()
    );
}

fn files_under(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => files_under(&path, out),
            Ok(kind) if kind.is_file() => out.push(path),
            _ => {}
        }
    }
}
