//! A test that cannot run here, because a tool or the shared corpus is
//! missing: on a developer's machine it says so and passes; under
//! `CI=true` it fails, naming what is missing. CI installs everything the
//! tests need (`.ci/run`), so something missing there is a broken CI, not
//! a reason to test less.
//!
//! It uses `std` alone, so that the token counter's tests
//! (`crates/toktally`) and the runtime crate's conformance test
//! (`crates/contrib-runtime`) include this same file.

// Each test crate uses its own subset of these helpers.
#![allow(dead_code)]

/// Whether this is a CI run: `CI` is `true` (GitHub Actions, GitLab, and
/// the project's own CI set it) or `1`.
pub fn in_ci() -> bool {
    matches!(std::env::var("CI").as_deref(), Ok("true" | "1"))
}

/// Says why the calling test cannot run, which then returns: under CI it
/// fails instead, with `why`.
#[track_caller]
pub fn cannot_run(why: &str) {
    assert!(
        !in_ci(),
        "this test cannot run, and CI=true: {why} (.ci/run installs what the tests need)"
    );
    eprintln!("skipped: {why}");
}
