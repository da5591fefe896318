//! The `contrib` binary as tests run it: never with the repository's or
//! the user's caches. Each run gets a cache root of its own in a
//! temporary folder, removed when the run ends, unless the test gave it
//! one (to test the cache across runs).

use std::path::Path;
use std::process::{Command, Output};

/// The variable `contrib` reads its cache root from.
pub const CACHE_VARIABLE: &str = "CONTRIB_CACHE_DIR";

/// `contrib` as a command.
pub fn contrib_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_contrib"))
}

/// Runs `command`, with a temporary cache root of its own unless it has
/// one.
pub fn output(command: &mut Command) -> Output {
    let cache = tempfile::tempdir().expect("a temporary folder");
    isolate(command, cache.path());
    command.output().expect("the contrib binary runs")
}

/// Points `command`'s caches (the check cache and the language server's
/// rule pages) into `folder`, unless the test set them itself.
pub fn isolate(command: &mut Command, folder: &Path) {
    let set = |name: &str, command: &Command| command.get_envs().any(|(key, _)| key == name);
    if !set(CACHE_VARIABLE, command) {
        command.env(CACHE_VARIABLE, folder.join("contrib"));
    }
    if !set("XDG_CACHE_HOME", command) {
        command.env("XDG_CACHE_HOME", folder);
    }
}
