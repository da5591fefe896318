//! The `contrib` binary as tests run it: never with the repository's or
//! the user's caches. Each run gets a cache root of its own in a
//! temporary folder, removed when the run ends, unless the test gave it
//! one (to test the cache across runs).

use std::path::Path;
use std::process::{Child, Command, Output};

/// The variable `contrib` reads its cache root from.
pub const CACHE_VARIABLE: &str = "CONTRIB_CACHE_DIR";

/// The path of the `contrib` binary under test, for a test that runs it
/// through a shell (to set its umask) or puts it on a `PATH`.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_contrib")
}

/// `contrib` as a command.
pub fn contrib_command() -> Command {
    Command::new(binary())
}

/// `contrib ARGS…` in the repository's root: see [`contrib_in`].
pub fn contrib(args: &[&str]) -> Output {
    contrib_in(args, &crate::common::root())
}

/// `contrib ARGS…` in `folder`, as a person reads it in a log: no colour,
/// the default width, backtraces on so that a panic cannot hide, and
/// caches of its own.
pub fn contrib_in(args: &[&str], folder: &Path) -> Output {
    output(
        contrib_command()
            .args(args)
            .current_dir(folder)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .env("RUST_BACKTRACE", "1"),
    )
}

/// Runs `command`, with a temporary cache root of its own unless it has
/// one.
pub fn output(command: &mut Command) -> Output {
    let cache = tempfile::tempdir().expect("a temporary folder");
    isolate(command, cache.path());
    command.output().expect("the contrib binary runs")
}

/// Starts `command`, with a temporary cache root of its own unless it has
/// one; the root lives as long as the returned folder.
pub fn spawn(command: &mut Command) -> (Child, tempfile::TempDir) {
    let cache = tempfile::tempdir().expect("a temporary folder");
    isolate(command, cache.path());
    (command.spawn().expect("the contrib binary starts"), cache)
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
