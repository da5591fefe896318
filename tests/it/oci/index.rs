//! The catalog's index against writers who lie: an event backdated to
//! replace a published version, a publish event whose facts are not its
//! bundle's, a tag moved by hand, the machine's cache of events edited.
//! Each is written here with raw distribution-API calls, as anyone with
//! push rights (or the registry itself) could, and each has its control.

use super::proxy;
use super::*;

const INDEX: &str = "acme/plugins/contrib.index";
const HOUSE: &str = "acme/plugins/acme/house";

/// The bundle `contrib publish` builds of `body` as `acme/house@version`
/// (owner `owner`), built into a folder catalog of the scene's: its bytes.
fn bundle_of(scene: &Scene, version: &str, owner: &str, body: &str) -> Vec<u8> {
    let file = format!("evil/{version}-{owner}.contrib");
    scene.write(
        &file,
        &format!("plugin acme/house {version} {{\n    owner {owner}\n\n    text money {{\n        placement agent\n        budget 30 tokens\n        body \"{body}\"\n    }}\n}}\n"),
    );
    let folder = format!("evil-catalog-{owner}-{version}");
    succeeds(&scene.run(&["publish", &file, "--catalog", &folder]));
    std::fs::read(scene.path(&format!("{folder}/acme/house/{version}.bundle.json")))
        .expect("the bundle")
}

/// The tags and annotations of the index's events, oldest tag first.
fn events(registry: &Registry) -> Vec<(String, String, serde_json::Value)> {
    let mut tags = proxy::tags(registry.port, INDEX);
    tags.sort();
    tags.into_iter()
        .map(|tag| {
            let (manifest, digest) = proxy::manifest(registry.port, INDEX, &tag);
            (tag, digest, manifest["annotations"].clone())
        })
        .collect()
}

/// The publish event of `plugin@version`.
fn publish_event(
    registry: &Registry,
    plugin: &str,
    version: &str,
) -> (String, String, serde_json::Value) {
    events(registry)
        .into_iter()
        .find(|(_, _, annotations)| {
            annotations["dev.contrib.event"] == "publish"
                && annotations["dev.contrib.plugin"] == plugin
                && annotations["org.opencontainers.image.version"] == version
        })
        .expect("a publish event")
}

/// Pushes `bytes` as another bundle of `acme/house` (by digest: no tag
/// moves) and a publish event claiming it as the honest event
/// `honest` claimed its own, but with `sequence`, and naming `after`
/// (none: an event of the format before events were chained); the
/// event's tag.
fn backdate(
    registry: &Registry,
    honest: &serde_json::Value,
    bytes: &[u8],
    sequence: u64,
    after: Option<&str>,
) -> String {
    let manifest = proxy::push_bundle(registry.port, HOUSE, None, bytes);
    let bundle: serde_json::Value = serde_json::from_slice(bytes).expect("a bundle");
    let mut claim = honest.clone();
    claim["dev.contrib.bundle.digest"] = bundle["digest"].clone();
    claim["dev.contrib.manifest"] = manifest.into();
    claim["dev.contrib.permissions"] = bundle["permissions"].to_string().into();
    claim["dev.contrib.event.sequence"] = sequence.to_string().into();
    let object = claim.as_object_mut().expect("annotations");
    object.remove("dev.contrib.event.after");
    if let Some(after) = after {
        object.insert("dev.contrib.event.after".into(), after.into());
    }
    let tag = format!("e{sequence:012}.0000000000000.{:016x}", sequence + 0xbad);
    proxy::push_event(registry.port, INDEX, &tag, &claim);
    tag
}

/// An event backdated to before a version's publication, naming other
/// content for it — with the lowest sequence and no predecessor, or
/// naming as its predecessor an event older than the publication — never
/// replaces it: `catalog check` reports each conflicting event by its tag
/// with both digests, a fresh install refuses the version and writes
/// nothing, and the workspace that approved the published version keeps
/// composing it. The versions nobody disputes install as before.
#[test]
fn a_backdated_event_never_replaces_a_published_version() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/clock", "1.0.0", "Time is UTC.")));
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    succeeds(&scene.install("acme/house@1.0.0"));
    let (_, clock, _) = publish_event(&registry, "acme/clock", "1.0.0");
    let (_, honest_digest, honest) = publish_event(&registry, "acme/house", "1.0.0");
    let evil = bundle_of(&scene, "1.0.0", "workspace", "Money is in bitcoin.");
    let evil_digest = serde_json::from_slice::<serde_json::Value>(&evil).expect("json")["digest"]
        .as_str()
        .expect("a digest")
        .to_string();
    let honest_bundle = honest["dev.contrib.bundle.digest"]
        .as_str()
        .expect("a digest")
        .to_string();

    let unchained = backdate(&registry, &honest, &evil, 0, None);
    let chained = backdate(&registry, &honest, &evil, 1, Some(&clock));
    assert!(!honest_digest.is_empty());

    let output = scene.run(&["catalog", "check", &scene.catalog]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("frozen-version-changed"), "{shown}");
    for tag in [&unchained, &chained] {
        assert!(shown.contains(tag.as_str()), "{tag}: {shown}");
    }
    assert!(shown.contains(&evil_digest), "{shown}");
    assert!(shown.contains(&honest_bundle), "{shown}");
    assert!(!shown.contains("catalog keeps sha256"), "{shown}");

    scene.write("fresh/contrib.toml", "[trust]\nas = \"workspace\"\n");
    let output = scene.run(&[
        "install",
        "acme/house@1.0.0",
        "--catalog",
        &scene.catalog,
        "--workspace",
        "fresh",
        "--yes",
    ]);
    let shown = text(&output);
    assert_ne!(output.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains(&unchained) || shown.contains(&chained),
        "{shown}"
    );
    assert!(!scene.path("fresh/contrib.lock").exists(), "{shown}");

    let (output, layout) = scene.compose();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(layout.to_string().contains("pence"), "{layout}");
    assert!(!layout.to_string().contains("bitcoin"), "{layout}");
    let refused = layout["refused_at_load"].to_string();
    assert!(!refused.contains("acme/house"), "{refused}");

    // Control: what nobody disputes installs as before, and the publisher
    // goes on publishing.
    succeeds(&scene.run(&[
        "install",
        "acme/clock@1.0.0",
        "--catalog",
        &scene.catalog,
        "--workspace",
        "fresh",
        "--yes",
    ]));
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.1", "Money is in pence, still.")));
}

/// A later publish of a version with other content, written by someone
/// who had read the first (it names it as its predecessor), is set aside
/// as it always was: the first publication is what installs.
#[test]
fn a_later_conflicting_publish_is_set_aside() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    let (tag, honest_digest, honest) = publish_event(&registry, "acme/house", "1.0.0");
    assert!(!tag.is_empty());
    let evil = bundle_of(&scene, "1.0.0", "workspace", "Money is in bitcoin.");
    let later = backdate(&registry, &honest, &evil, 9, Some(&honest_digest));
    let output = scene.run(&["catalog", "check", &scene.catalog]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains(&later), "{shown}");
    succeeds(&scene.install("acme/house@1.0.0"));
    let (_, layout) = scene.compose();
    assert!(layout.to_string().contains("pence"), "{layout}");
}

/// A publish event whose recorded facts are not its bundle's (owner
/// `workspace`, the bundle `operator`) is found by `catalog check`, which
/// reads a sample of the bundles (here, all: there are two) and with
/// `--bundles all` every one; `--bundles 0` trusts the index, as before.
#[test]
fn catalog_check_compares_recorded_facts_with_the_bundles() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    let (_, honest_digest, honest) = publish_event(&registry, "acme/house", "1.0.0");
    let lying = bundle_of(&scene, "2.0.0", "operator", "Money is in pence.");
    let mut claim = honest.clone();
    claim["org.opencontainers.image.version"] = "2.0.0".into();
    let tag = backdate(&registry, &claim, &lying, 2, Some(&honest_digest));

    for bundles in [None, Some("all")] {
        let mut args = vec!["catalog", "check", scene.catalog.as_str()];
        args.extend(
            bundles
                .map(|bundles| ["--bundles", bundles])
                .into_iter()
                .flatten(),
        );
        let output = scene.run(&args);
        let shown = text(&output);
        assert_eq!(output.status.code(), Some(1), "{bundles:?}: {shown}");
        assert!(shown.contains("digest-mismatch"), "{shown}");
        assert!(shown.contains(&tag), "{shown}");
        assert!(shown.contains("`operator`"), "{shown}");
    }
    let output = scene.run(&["catalog", "check", &scene.catalog, "--bundles", "0"]);
    succeeds(&output);
}

/// A version whose tag was moved to other content is an error in
/// `catalog check`'s own summary, never beside "no problems".
#[test]
fn a_moved_tag_is_counted_in_the_summary() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    let clean = succeeds(&scene.run(&["catalog", "check", &scene.catalog]));
    assert!(clean.contains("no problems"), "{clean}");
    let evil = bundle_of(&scene, "1.0.0", "workspace", "Money is in bitcoin.");
    proxy::push_bundle(registry.port, HOUSE, Some("1.0.0"), &evil);
    let output = scene.run(&["catalog", "check", &scene.catalog]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("moved"), "{shown}");
    assert!(shown.contains("digest-mismatch"), "{shown}");
    assert!(!shown.contains("no problems"), "{shown}");
    assert!(shown.contains("1 error"), "{shown}");
}

/// The machine's cache of events is sealed: one edited by anyone but
/// contrib (here, to name another bundle for a published version) is not
/// believed, and the events are read again from the registry. The same
/// cache, untouched, is used.
#[test]
fn an_edited_events_cache_is_not_believed() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = Scene::new(&registry);
    scene.env.push((
        "XDG_CACHE_HOME".to_string(),
        scene.path("cache").to_string_lossy().into_owned(),
    ));
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));
    let cache = scene.path(&format!(
        "cache/contrib/registries/127.0.0.1_{}/acme/plugins/events.json",
        registry.port
    ));
    let cached = std::fs::read_to_string(&cache).expect("the events cache");
    let (_, _, honest) = publish_event(&registry, "acme/house", "1.0.0");
    let honest_bundle = honest["dev.contrib.bundle.digest"]
        .as_str()
        .expect("digest");
    let honest_manifest = honest["dev.contrib.manifest"].as_str().expect("digest");
    assert!(cached.contains(honest_bundle), "{cached}");

    let evil = bundle_of(&scene, "1.0.0", "workspace", "Money is in bitcoin.");
    let evil_manifest = proxy::push_bundle(registry.port, HOUSE, None, &evil);
    let evil_bundle = serde_json::from_slice::<serde_json::Value>(&evil).expect("json")["digest"]
        .as_str()
        .expect("a digest")
        .to_string();
    let evil_permissions = serde_json::from_slice::<serde_json::Value>(&evil).expect("json")
        ["permissions"]
        .to_string();
    let mut edited: serde_json::Value = serde_json::from_str(&cached).expect("json");
    replace_strings(&mut edited, honest_bundle, &evil_bundle);
    replace_strings(&mut edited, honest_manifest, &evil_manifest);
    let honest_permissions = honest["dev.contrib.permissions"]
        .as_str()
        .expect("permissions");
    replace_strings(&mut edited, honest_permissions, &evil_permissions);
    std::fs::write(&cache, edited.to_string()).expect("the cache edited");

    let output = scene.install("acme/house@1.0.0");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    let lock = scene.read("ws/contrib.lock");
    assert!(lock.contains(honest_bundle), "{lock}");
    assert!(!lock.contains(&evil_bundle), "{lock}");
    let (_, layout) = scene.compose();
    assert!(layout.to_string().contains("pence"), "{layout}");

    // Control: a cache contrib wrote is used: through a proxy that
    // counts, the second check reads no event from the registry again.
    let counting = proxy::Proxy::start(registry.port, |_| proxy::Answer::Forward);
    let through = counting.catalog("acme/plugins");
    let event_reads = || {
        counting
            .seen()
            .into_iter()
            .filter(|head| head.starts_with("GET /v2/acme/plugins/contrib.index/manifests/"))
            .count()
    };
    succeeds(&scene.run(&["catalog", "check", &through]));
    let first = event_reads();
    assert!(first > 0, "{:?}", counting.seen());
    succeeds(&scene.run(&["catalog", "check", &through]));
    assert_eq!(event_reads(), first, "{:?}", counting.seen());
}

/// Every string in `value` equal to `from` replaced by `to`.
fn replace_strings(value: &mut serde_json::Value, from: &str, to: &str) {
    match value {
        serde_json::Value::String(text) if text == from => *text = to.to_string(),
        serde_json::Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_strings(item, from, to)),
        serde_json::Value::Object(map) => map
            .values_mut()
            .for_each(|item| replace_strings(item, from, to)),
        _ => {}
    }
}
