//! `catalog check oci://…` reads the index, not the bundles: each publish
//! event records what the catalog-wide rules read of its version.

use super::*;

/// With every bundle blob gone from the registry, and no cache on this
/// machine, `catalog check --bundles 0` still judges the catalog-wide
/// rules (clean under the platform's policy, over budget under a tight
/// one); the default check, which compares a sample of the bundles with
/// their events, finds them missing; an install of a version, which needs
/// its bundle, fails clearly and writes nothing.
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

    let shown = succeeds(&scene.run(&["catalog", "check", &scene.catalog, "--bundles", "0"]));
    assert!(
        shown.contains("2 version(s), 0 of them read as bundles"),
        "{shown}"
    );
    // By default a sample of the bundles is compared with the events:
    // here all, which the registry lost.
    let output = scene.run(&["catalog", "check", &scene.catalog]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert_eq!(shown.matches("missing-bundle").count(), 2, "{shown}");
    scene.write(
        "tight.toml",
        "[workspace]\ncontext_budget = 200\nsystem_prompt_share = 0.25\n",
    );
    let output = scene.run(&[
        "catalog",
        "check",
        &scene.catalog,
        "--config",
        "tight.toml",
        "--bundles",
        "0",
    ]);
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

/// `publish` judges the catalog-wide rules from the index too: with the
/// bundles of every version but the plugin's newest gone from the
/// registry (that one it reads for the changes it prints), and no cache
/// on this machine, a version whose text the model may ask for by an id
/// another plugin offers is refused, and one without it is published.
#[test]
fn publish_reads_the_index_and_only_the_newest_bundle() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    succeeds(&scene.publish(&scene.author("acme/house", "2.0.0", "Money is in cents.")));
    scene.write(
        "authors/clock.contrib",
        &requested("acme/clock", "1.0.0", "Time is UTC."),
    );
    succeeds(&scene.publish("authors/clock.contrib"));
    let blobs = bundle_blobs(&registry);
    assert_eq!(blobs.len(), 3, "{blobs:?}");
    for blob in &blobs {
        let file = registry.blob_file(blob);
        let kept = std::fs::read_to_string(&file).unwrap_or_default();
        if !kept.contains("Money is in cents.") {
            std::fs::remove_file(file).expect("the blob removed");
        }
    }
    scene.env.push((
        "XDG_CACHE_HOME".to_string(),
        scene.path("fresh-cache").to_string_lossy().into_owned(),
    ));

    scene.write(
        "authors/house.contrib",
        &requested("acme/house", "3.0.0", "Money is in cents."),
    );
    let output = scene.publish("authors/house.contrib");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("ambiguous-contributor"), "{shown}");
    assert!(
        shown.contains(
            "`acme/clock` and `acme/house` both offer a text the model may ask for as `migrations`"
        ),
        "{shown}"
    );

    let shown =
        succeeds(&scene.publish(&scene.author("acme/house", "3.0.0", "Money is in euros.")));
    assert!(
        shown.contains("acme/house@2.0.0 → acme/house@3.0.0"),
        "{shown}"
    );
}

/// A manifest of `plugin` at `version` with a text the model may ask for
/// as `migrations`.
fn requested(plugin: &str, version: &str, body: &str) -> String {
    format!("plugin {plugin} {version} {{\n    owner workspace\n\n    text money {{\n        placement agent\n        budget 30 tokens\n        body \"{body}\"\n    }}\n\n    text migrations {{\n        placement agent\n        applies on request \"How migrations are written\"\n        budget 30 tokens\n        body \"Every migration is reversible.\"\n    }}\n}}\n")
}
