//! `catalog check oci://…` reads the index, not the bundles: each publish
//! event records what the catalog-wide rules read of its version.

use super::*;

/// With every bundle blob gone from the registry, and no cache on this
/// machine, `catalog check` still judges the catalog-wide rules (clean
/// under the platform's policy, over budget under a tight one), while an
/// install of a version, which needs its bundle, fails clearly and writes
/// nothing.
#[test]
fn check_reads_the_index_and_no_bundle() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    succeeds(&scene.publish(&scene.author("acme/clock", "1.0.0", "Time is UTC.")));
    let blobs = bundle_blobs(&registry);
    assert_eq!(blobs.len(), 2, "{blobs:?}");
    for blob in &blobs {
        std::fs::remove_file(registry.blob_file(blob)).expect("the blob removed");
    }
    scene.env.push((
        "XDG_CACHE_HOME".to_string(),
        scene.path("fresh-cache").to_string_lossy().into_owned(),
    ));

    let shown = succeeds(&scene.run(&["catalog", "check", &scene.catalog]));
    assert!(
        shown.contains("2 version(s), 0 of them read as bundles"),
        "{shown}"
    );
    scene.write(
        "tight.toml",
        "[workspace]\ncontext_budget = 200\nsystem_prompt_share = 0.25\n",
    );
    let output = scene.run(&["catalog", "check", &scene.catalog, "--config", "tight.toml"]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("catalog-over-budget"), "{shown}");
    assert!(shown.contains("adds up to 60 tokens"), "{shown}");

    let output = scene.install("acme/clock@1.0.0");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("acme/plugins/acme/clock"), "{shown}");
    assert!(!scene.path("ws/contrib.lock").exists(), "{shown}");
}
