//! Lays out each vocabulary's tables from its token list (`data/*.tokens`)
//! with the code the crate reads them with (`src/vocab/layout.rs`), so the
//! binary carries them ready to use.

#[allow(dead_code)]
#[path = "src/hash.rs"]
mod hash;
#[allow(dead_code)]
#[path = "src/vocab/layout.rs"]
mod layout;

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for name in ["o200k", "cl100k"] {
        let source = format!("data/{name}.tokens");
        println!("cargo::rerun-if-changed={source}");
        let list = std::fs::read(&source).unwrap_or_else(|error| panic!("{source}: {error}"));
        let tables = layout::build(&list);
        for (part, bytes) in [
            ("bytes", &tables.bytes),
            ("starts", &tables.starts),
            ("pairs", &tables.pairs),
            ("table", &tables.table),
        ] {
            let path = out.join(format!("{name}.{part}"));
            std::fs::write(&path, bytes)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        }
    }
    println!("cargo::rerun-if-changed=src/hash.rs");
    println!("cargo::rerun-if-changed=src/vocab/layout.rs");
}
