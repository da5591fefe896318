//! Signatures in a registry catalog: pushed by `publish --key` as OCI
//! referrers of the version's manifest, verified at install and load
//! under the keys the workspace trusts, carried by `catalog push`/`pull`.

use super::*;

/// A key pair `NAME.key`/`NAME.pub` in the scene's folder.
fn keygen(scene: &Scene, name: &str) {
    succeeds(&scene.run(&["keygen", "--out", name]));
}

fn publish_signed(scene: &Scene, file: &str, key: &str) -> Output {
    scene.run(&["publish", file, "--catalog", &scene.catalog, "--key", key])
}

fn trust(scene: &Scene, key: &str, workspace: &str) {
    succeeds(&scene.run(&[
        "catalog",
        "trust",
        key,
        "--catalog",
        &scene.catalog,
        "--workspace",
        workspace,
    ]));
}

fn install_into(scene: &Scene, plugin: &str, workspace: &str) -> Output {
    scene.run(&[
        "install",
        plugin,
        "--catalog",
        &scene.catalog,
        "--workspace",
        workspace,
        "--yes",
    ])
}

/// An install the workspace's policy refuses: the signature rule's code,
/// and nothing written to the workspace's lock.
#[track_caller]
fn refused(scene: &Scene, plugin: &str, why: &str) {
    let before = scene.read("ws/contrib.lock");
    let output = install_into(scene, plugin, "ws");
    let shown = text(&output);
    assert_ne!(output.status.code(), Some(0), "{shown}");
    assert!(shown.contains("untrusted-signature"), "{shown}");
    assert!(shown.contains(why), "{shown}");
    assert_eq!(scene.read("ws/contrib.lock"), before, "{shown}");
}

/// A workspace that trusts a key installs what that key signed, and
/// refuses, by the signature rule, a version unsigned, signed by a key it
/// does not trust, or carrying a signature that does not verify; loading
/// verifies again. The signature is a referrer another client can list.
#[test]
fn a_workspace_installs_only_what_a_key_it_trusts_signed() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    keygen(&scene, "alice");
    keygen(&scene, "mallory");
    let house = scene.author("acme/house", "1.0.0", "Money is in pence.");
    let shown = succeeds(&publish_signed(&scene, &house, "alice.key"));
    assert!(shown.contains("signed with ed25519:"), "{shown}");
    trust(&scene, "alice.pub", "ws");
    let shown = succeeds(&install_into(&scene, "acme/house@1.0.0", "ws"));
    assert!(shown.contains("installed acme/house@1.0.0"), "{shown}");
    let (output, layout) = scene.compose();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(layout.to_string().contains("pence"), "{layout}");

    succeeds(&scene.publish(&scene.author("acme/plain", "1.0.0", "Unsigned.")));
    refused(&scene, "acme/plain@1.0.0", "no readable signature");
    let stranger = scene.author("acme/stranger", "1.0.0", "Signed by a stranger.");
    succeeds(&publish_signed(&scene, &stranger, "mallory.key"));
    refused(&scene, "acme/stranger@1.0.0", "does not trust");

    // A signature by the trusted key's id that does not verify, pushed
    // from a folder catalog as any registry writer could.
    let forged = scene.author("acme/forged", "1.0.0", "Forged.");
    succeeds(&scene.run(&[
        "publish",
        &forged,
        "--catalog",
        "folder",
        "--key",
        "alice.key",
    ]));
    let sig = scene.read("folder/acme/forged/1.0.0.bundle.json.sig");
    let mut value: serde_json::Value = serde_json::from_str(&sig).expect("a signature");
    value["signature"] = serde_json::Value::from(base64_of(&"\0".repeat(64)));
    scene.write(
        "folder/acme/forged/1.0.0.bundle.json.sig",
        &serde_json::to_string_pretty(&value).expect("json"),
    );
    succeeds(&scene.run(&["catalog", "push", "folder", &scene.catalog]));
    refused(&scene, "acme/forged@1.0.0", "does not verify");

    // Loading verifies too: a signature removed from the workspace's
    // mirror refuses the installed version at the next compose.
    let mirror = std::fs::read_dir(scene.path("ws/.contrib/registries"))
        .expect("a mirror")
        .next()
        .expect("one registry")
        .expect("an entry")
        .path()
        .join("acme/plugins/acme/house/1.0.0.bundle.json.sig");
    std::fs::remove_file(&mirror).expect("the mirrored signature");
    let (_, layout) = scene.compose();
    let refused_at_load = layout["refused_at_load"].to_string();
    assert!(
        refused_at_load.contains("untrusted-signature"),
        "{refused_at_load}"
    );
}

/// The referrers another OCI client sees for `plugin`'s version: the
/// entries of the referrers tag schema's index, read with `oras`.
fn referrers_seen_by_oras(python: &Path, registry: &Registry, plugin: &str) -> String {
    let repository = format!("127.0.0.1:{}/acme/plugins/{plugin}", registry.port);
    run_python(
        python,
        "import sys, json, requests, oras.client\n\
         host, repo = sys.argv[1].split('/', 1)\n\
         r = requests.head(f'http://{host}/v2/{repo}/manifests/1.0.0', headers={'Accept': 'application/vnd.oci.image.manifest.v1+json'})\n\
         tag = r.headers['Docker-Content-Digest'].replace(':', '-')\n\
         c = oras.client.OrasClient(insecure=True)\n\
         index = c.get_manifest(f'{sys.argv[1]}:{tag}', allowed_media_type=['application/vnd.oci.image.index.v1+json'])\n\
         print(json.dumps(index['manifests']))",
        &[&repository],
    )
}

/// Two signers of one version, started together: both signatures land,
/// in the index (each key's workspace installs) and in the referrers tag
/// another client reads.
#[test]
fn concurrent_signers_both_land() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let Some(python) = python() else {
        return;
    };
    let scene = Scene::new(&registry);
    keygen(&scene, "alice");
    keygen(&scene, "bob");
    let house = scene.author("acme/house", "1.0.0", "Money is in pence.");
    succeeds(&scene.publish(&house));
    let signers: Vec<Child> = ["alice.key", "bob.key"]
        .iter()
        .map(|key| {
            Command::new(env!("CARGO_BIN_EXE_contrib"))
                .args(["publish", &house, "--catalog", &scene.catalog, "--key", key])
                .current_dir(scene.folder.path())
                .env("HOME", scene.path("home"))
                .env("SOURCE_DATE_EPOCH", "1772442000")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("contrib starts")
        })
        .collect();
    for child in signers {
        succeeds(&child.wait_with_output().expect("contrib ends"));
    }
    scene.write("ws2/contrib.toml", "[trust]\nas = \"workspace\"\n");
    trust(&scene, "alice.pub", "ws");
    trust(&scene, "bob.pub", "ws2");
    succeeds(&install_into(&scene, "acme/house@1.0.0", "ws"));
    succeeds(&install_into(&scene, "acme/house@1.0.0", "ws2"));
    let listed = referrers_seen_by_oras(&python, &registry, "acme/house");
    let entries: Vec<serde_json::Value> = serde_json::from_str(&listed).expect("json");
    assert_eq!(entries.len(), 2, "{listed}");
    assert!(
        entries
            .iter()
            .all(|entry| entry["artifactType"] == "application/vnd.contrib.signature.v1"),
        "{listed}"
    );
}

/// A signed folder catalog pushed into a registry and pulled back keeps
/// its signatures byte for byte, and verifies under the same key.
#[test]
fn push_and_pull_carry_signatures() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    keygen(&scene, "alice");
    let house = scene.author("acme/house", "1.0.0", "Money is in pence.");
    succeeds(&scene.run(&[
        "publish",
        &house,
        "--catalog",
        "folder",
        "--key",
        "alice.key",
    ]));
    succeeds(&scene.run(&["catalog", "trust", "alice.pub", "--catalog", "folder"]));
    succeeds(&scene.run(&["catalog", "push", "folder", &scene.catalog]));
    succeeds(&scene.run(&["catalog", "pull", &scene.catalog, "back"]));
    let sig = "acme/house/1.0.0.bundle.json.sig";
    let pushed = scene.read(&format!("folder/{sig}"));
    assert!(pushed.contains("ed25519:"), "{pushed}");
    assert_eq!(pushed, scene.read(&format!("back/{sig}")));
    succeeds(&scene.run(&["catalog", "trust", "alice.pub", "--catalog", "back"]));
    succeeds(&scene.run(&["catalog", "check", "back"]));
}
