//! Bundles ([`contrib_bundle`]: the format, catalogs, the approving
//! workspace), and building one from a checked manifest ([`build`]).

pub use contrib_bundle::*;

mod build;

pub use build::{build, build_with_usage, build_with_waivers, usages_for, Usages};
