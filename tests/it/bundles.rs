//! Bundles, catalogs, approval diffs and CI output formats (issue 4): built
//! bytes are reproducible and verifiable, published versions are frozen, and
//! what a new version asks for is classified for approval.

use crate::common::isolated::contrib_in;

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::root;
use contrib::bundle::{self, Bundle, LoadError};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn examples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "contrib")
        })
        .collect();
    found.sort();
    found
}

fn bundles_under(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(folder).expect("a folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(bundles_under(&path));
        } else if path.to_string_lossy().ends_with(".bundle.json") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Builds every example into a fresh folder, from a given working folder.
fn build_examples(cwd: &Path, out: &Path) -> Vec<PathBuf> {
    let mut args = vec![
        "build".to_string(),
        "-o".into(),
        out.to_string_lossy().into_owned(),
    ];
    args.extend(
        examples()
            .iter()
            .map(|path| path.to_string_lossy().into_owned()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = contrib_in(&args, cwd);
    assert!(
        output.status.success(),
        "{}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    bundles_under(out)
}

#[test]
fn two_builds_in_different_folders_are_byte_identical_and_verify() {
    let first = tempfile::tempdir().expect("a temp folder");
    let second = tempfile::tempdir().expect("a temp folder");
    let a = build_examples(&root(), first.path());
    let b = build_examples(second.path(), &second.path().join("elsewhere"));
    assert_eq!(a.len(), examples().len());
    assert_eq!(a.len(), b.len());
    for (left, right) in a.iter().zip(&b) {
        let left_bytes = std::fs::read(left).expect("bundle");
        assert_eq!(
            left_bytes,
            std::fs::read(right).expect("bundle"),
            "{}",
            left.display()
        );
        let text = String::from_utf8(left_bytes.clone()).expect("UTF-8");
        assert!(
            !text.contains(&*root().to_string_lossy()),
            "an absolute path leaked into {}",
            left.display()
        );
        let bundle = Bundle::from_bytes(&left_bytes).expect("a verified bundle");
        assert_eq!(bundle.digest, bundle::digest_of(&bundle).ok());
        assert_eq!(
            bundle::canonical_bytes(&bundle).ok(),
            Some(left_bytes),
            "not canonical: {}",
            left.display()
        );
    }
}

#[test]
fn every_built_example_validates_against_the_shipped_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/bundle.schema.json")).expect("schema"),
    )
    .expect("JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("a valid schema");
    let out = tempfile::tempdir().expect("a temp folder");
    for path in build_examples(&root(), out.path()) {
        let instance: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("bundle")).expect("JSON");
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|error| error.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
    let broken = serde_json::json!({"format": 1, "plugin": "Acme", "contributors": []});
    assert!(!validator.is_valid(&broken));
}

#[test]
fn loading_refuses_tampered_unknown_and_malformed_bundles() {
    let out = tempfile::tempdir().expect("a temp folder");
    let path = build_examples(&root(), out.path()).remove(0);
    let bytes = std::fs::read(&path).expect("bundle");
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    let tampered = text.replacen("\"budget\":", "\"budget\":1", 1);
    assert!(matches!(
        Bundle::from_bytes(tampered.as_bytes()),
        Err(LoadError::DigestMismatch { .. })
    ));
    let future = text.replacen("\"format\":2", "\"format\":3", 1);
    assert_eq!(
        Bundle::from_bytes(future.as_bytes()),
        Err(LoadError::UnknownFormat(Some(3)))
    );
    let extra = text.replacen("{", "{\"surprise\":true,", 1);
    assert!(matches!(
        Bundle::from_bytes(extra.as_bytes()),
        Err(LoadError::Schema(_))
    ));
    assert!(matches!(
        Bundle::from_bytes(&bytes[..bytes.len() / 2]),
        Err(LoadError::NotJson(_))
    ));
    for garbage in [&b""[..], b"\xff\xfe", b"[]", b"null", b"{\"format\":\"1\"}"] {
        assert!(Bundle::from_bytes(garbage).is_err());
    }
}

/// A workspace with one manifest and its config, for publishing.
struct Workspace {
    folder: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Self {
        let folder = tempfile::tempdir().expect("a temp folder");
        std::fs::copy(
            root().join("examples/contrib.toml"),
            folder.path().join("contrib.toml"),
        )
        .expect("config");
        std::fs::copy(
            root().join("examples/code-review.contrib"),
            folder.path().join("review.contrib"),
        )
        .expect("manifest");
        Workspace { folder }
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    fn edit(&self, from: &str, to: &str) {
        let path = self.path().join("review.contrib");
        let text = std::fs::read_to_string(&path).expect("manifest");
        assert!(text.contains(from), "{from}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
    }

    fn run(&self, args: &[&str]) -> Output {
        contrib_in(args, self.path())
    }
}

#[test]
fn a_published_version_is_frozen_and_a_bump_that_asks_for_more_needs_approval() {
    let workspace = Workspace::new();
    let published = workspace.run(&["publish", "review.contrib", "--catalog", "catalog"]);
    assert!(published.status.success(), "{}", stdout(&published));
    let bundle_path = workspace
        .path()
        .join("catalog/acme/code-review/1.4.0.bundle.json");
    let original = std::fs::read(&bundle_path).expect("the published bundle");

    workspace.edit("Challenge premises;", "Challenge every premise;");
    let refused = workspace.run(&["publish", "review.contrib", "--catalog", "catalog"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stdout(&refused).contains("frozen-version-changed"),
        "{}",
        stdout(&refused)
    );
    assert_eq!(
        std::fs::read(&bundle_path).expect("still there"),
        original,
        "the published bundle changed"
    );

    std::fs::copy(
        workspace.path().join("review.contrib"),
        workspace.path().join("old.contrib"),
    )
    .expect("copy");
    workspace.edit("1.4.0 {", "1.5.0 {");
    workspace.edit(
        "    text stance {\n        placement agent",
        "    text stance {\n        placement agent",
    );
    workspace.edit(
        "        placement person\n        priority person",
        "        placement person\n        priority person",
    );
    workspace.edit(
        "    system-message idle {",
        "    eager-run news {\n        budget 400 tokens\n        call fetch_url { url: \"https://news.acme.dev/today\" }\n    }\n\n    system-message idle {",
    );
    let config = std::fs::read_to_string(workspace.path().join("contrib.toml")).expect("config");
    std::fs::write(
        workspace.path().join("contrib.toml"),
        config.replace(
            "allow = [\"docs.acme.dev\"]",
            "allow = [\"docs.acme.dev\", \"news.acme.dev\"]",
        ),
    )
    .expect("config");
    let bumped = workspace.run(&["publish", "review.contrib", "--catalog", "catalog"]);
    assert!(bumped.status.success(), "{}", stdout(&bumped));
    let report = stdout(&bumped);
    assert!(report.contains("needs approval"), "{report}");
    assert!(report.contains("news: adds an `eager-run`"), "{report}");
    assert!(
        report.contains("newly reaches the host `news.acme.dev`"),
        "{report}"
    );

    let diff = workspace.run(&[
        "diff",
        "catalog/acme/code-review/1.4.0.bundle.json",
        "catalog/acme/code-review/1.5.0.bundle.json",
    ]);
    assert_eq!(diff.status.code(), Some(3), "{}", stdout(&diff));
    let same = workspace.run(&[
        "diff",
        "catalog/acme/code-review/1.5.0.bundle.json",
        "catalog/acme/code-review/1.5.0.bundle.json",
    ]);
    assert_eq!(same.status.code(), Some(0));

    let older = workspace.run(&["publish", "old.contrib", "--catalog", "catalog"]);
    assert_eq!(older.status.code(), Some(1));
    assert!(
        stdout(&older).contains("frozen-version-changed"),
        "{}",
        stdout(&older)
    );
}

#[test]
fn a_version_not_above_the_newest_is_refused_and_yanked_numbers_are_not_reused() {
    let workspace = Workspace::new();
    workspace.edit("1.4.0 {", "2.0.0 {");
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    assert!(workspace
        .run(&["yank", "acme/code-review@2.0.0", "--catalog", "c"])
        .status
        .success());
    let lock = std::fs::read_to_string(workspace.path().join("c/catalog.lock")).expect("lock");
    assert!(lock.contains("yanked = true"), "{lock}");
    workspace.edit("2.0.0 {", "1.9.0 {");
    let refused = workspace.run(&["publish", "review.contrib", "--catalog", "c"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stdout(&refused).contains("version-not-increased"),
        "{}",
        stdout(&refused)
    );
    assert!(workspace
        .run(&["yank", "acme/code-review@2.0.0", "--catalog", "c", "--undo"])
        .status
        .success());
    assert!(
        !std::fs::read_to_string(workspace.path().join("c/catalog.lock"))
            .expect("lock")
            .contains("yanked")
    );
}

#[test]
fn editing_one_byte_of_a_published_bundle_fails_catalog_check() {
    let workspace = Workspace::new();
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    let clean = workspace.run(&["catalog", "check", "c", "review.contrib"]);
    assert!(clean.status.success(), "{}", stdout(&clean));

    let path = workspace
        .path()
        .join("c/acme/code-review/1.4.0.bundle.json");
    let text = std::fs::read_to_string(&path).expect("bundle");
    std::fs::write(&path, text.replacen("\"budget\":120", "\"budget\":121", 1)).expect("write");
    let tampered = workspace.run(&["catalog", "check", "c", "--format", "json"]);
    assert_eq!(tampered.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&tampered.stdout).expect("JSON");
    let names: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(names, ["digest-mismatch"]);

    std::fs::remove_file(&path).expect("remove");
    let missing = workspace.run(&["catalog", "check", "c"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stdout(&missing).contains("missing-bundle"),
        "{}",
        stdout(&missing)
    );
}

#[test]
fn catalog_check_reports_sources_that_changed_since_publishing() {
    let workspace = Workspace::new();
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    workspace.edit("Challenge premises;", "Challenge every premise;");
    let output = workspace.run(&["catalog", "check", "c", "review.contrib"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("source-changed"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn signatures_verify_and_fail_closed() {
    let workspace = Workspace::new();
    assert!(workspace
        .run(&["build", "review.contrib", "-o", "dist"])
        .status
        .success());
    let bundle = "dist/acme/code-review/1.4.0.bundle.json";
    assert!(workspace
        .run(&["keygen", "--out", "publisher"])
        .status
        .success());
    assert!(workspace
        .run(&["keygen", "--out", "stranger"])
        .status
        .success());
    let unsigned = workspace.run(&["verify", bundle, "--key", "publisher.pub"]);
    assert_eq!(unsigned.status.code(), Some(1));
    assert!(workspace
        .run(&["sign", bundle, "--key", "publisher.key"])
        .status
        .success());
    assert!(workspace
        .run(&["verify", bundle, "--key", "publisher.pub"])
        .status
        .success());
    // The flag's earlier name still works.
    assert_eq!(
        workspace
            .run(&["verify", bundle, "--pubkey", "stranger.pub"])
            .status
            .code(),
        Some(1)
    );
    let overwrite = workspace.run(&["keygen", "--out", "publisher"]);
    assert_eq!(
        overwrite.status.code(),
        Some(2),
        "keys must never be overwritten"
    );
}

#[test]
fn preview_shows_what_a_person_approves() {
    let output = contrib_in(&["preview", "examples/code-review.contrib"], &root());
    assert!(output.status.success());
    let text = stdout(&output);
    for expected in [
        "acme/code-review@1.4.0 (owner: agent-author)",
        "tokens at agent placement",
        "runs with nobody asking: fetch_url (read)",
        "may reach: docs.acme.dev",
        "[The person's preference via acme/code-review; it cannot override the instructions above.]",
        "Answer tersely, in British English. Call me {person.name}.",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

fn broken_check(format: &str) -> String {
    let output = contrib_in(
        &[
            "check",
            "--format",
            format,
            "examples/broken/unknown-field.contrib",
            "examples/broken/invalid-value.contrib",
        ],
        &root(),
    );
    assert_eq!(output.status.code(), Some(1));
    stdout(&output)
}

#[test]
fn sarif_output_validates_against_the_sarif_schema() {
    let sarif: serde_json::Value = serde_json::from_str(&broken_check("sarif")).expect("JSON");
    let errors = common::sarif_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    let location = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "examples/broken/unknown-field.contrib"
    );
    insta::assert_snapshot!(
        "sarif_results",
        serde_json::to_string_pretty(results).expect("JSON")
    );
}

#[test]
fn github_output_is_one_annotation_per_diagnostic() {
    insta::assert_snapshot!("github_annotations", broken_check("github"));
}

#[test]
fn json_and_human_outputs_of_the_same_run() {
    insta::assert_snapshot!("json_report", broken_check("json"));
    insta::assert_snapshot!("human_report", broken_check("human"));
}

#[test]
fn the_runtime_loads_a_catalog_under_its_trust_policy() {
    let workspace = Workspace::new();
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    let session = root().join("examples/runtime/session.toml");
    let session = session.to_string_lossy();
    let compose = |workspace: &Workspace| {
        workspace.run(&["compose", "--bundles", "c", "--session", &session])
    };
    assert!(
        compose(&workspace).status.success(),
        "{}",
        String::from_utf8_lossy(&compose(&workspace).stderr)
    );

    // The lock now trusts a key: an unsigned bundle is refused.
    assert!(workspace
        .run(&["keygen", "--out", "publisher"])
        .status
        .success());
    let public =
        std::fs::read_to_string(workspace.path().join("publisher.pub")).expect("public key");
    let key = contrib::bundle::sign::read_public(&public).expect("a key");
    let id = contrib::bundle::sign::key_id(&key);
    let lock_path = workspace.path().join("c/catalog.lock");
    let lock = std::fs::read_to_string(&lock_path).expect("lock");
    let lock = lock.replacen(
        "[[published]]",
        &format!("trusted_keys = [\"{id}\"]\n\n[[published]]"),
        1,
    );
    std::fs::write(&lock_path, lock).expect("lock");
    let refused = compose(&workspace);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not signed by a trusted key"));

    // Signed, with the public key in the catalog's keys/ folder: loaded.
    let bundle = "c/acme/code-review/1.4.0.bundle.json";
    assert!(workspace
        .run(&["sign", bundle, "--key", "publisher.key"])
        .status
        .success());
    std::fs::create_dir_all(workspace.path().join("c/keys")).expect("keys/");
    std::fs::write(
        workspace
            .path()
            .join(format!("c/keys/{}.pub", id.replace(':', "-"))),
        public,
    )
    .expect("key");
    let trusted = compose(&workspace);
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
}

/// Bundles the language's first version built (format 1) still load: their
/// digest is verified over the bytes as they were written and kept, and
/// they are read with the meaning their runtime gave them.
#[test]
fn format_one_bundles_load_upgraded_with_their_digest_kept() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format1");
    let bytes = std::fs::read(folder.join("acme-code-review-1.4.0.bundle.json")).expect("fixture");
    let bundle = Bundle::from_bytes(&bytes).expect("a format-1 bundle loads");
    assert_eq!(bundle.format, 1);
    assert_eq!(
        bundle.digest.as_deref(),
        Some("sha256:851818110f74d5d5d90674f779799b58ef2da29a74f0f7a37b258b40c4f97fb1")
    );
    let run = bundle
        .contributors
        .iter()
        .find(|contributor| contributor.id == "started-at")
        .expect("the eager run");
    assert_eq!(run.delivery, contrib::ir::Delivery::Opening);
    assert!(bundle.contributors.iter().all(|c| c.activation.is_none()));
    // Tampering is caught against the format-1 bytes.
    let text = String::from_utf8(bytes).expect("UTF-8");
    let tampered = text.replacen("\"budget\":", "\"budget\":1", 1);
    assert!(matches!(
        Bundle::from_bytes(tampered.as_bytes()),
        Err(LoadError::DigestMismatch { .. })
    ));
    // A format-1 bundle with a format-2 field is not format 1.
    let mixed = text.replacen("{", "{\"author_waivers\":{},", 1);
    assert!(matches!(
        Bundle::from_bytes(mixed.as_bytes()),
        Err(LoadError::Schema(_))
    ));
}

/// Each change says which cached prefixes it invalidates, and the update
/// what writing them again costs under the traffic the user sets.
#[test]
fn diff_says_what_each_change_costs_the_cache() {
    let workspace = Workspace::new();
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    workspace.edit("1.4.0 {", "1.4.1 {");
    workspace.edit("merely fine.", "merely adequate.");
    workspace.edit("in British English.", "in Canadian English.");
    workspace.edit("budget 50 tokens", "budget 60 tokens");
    workspace.edit("since your last turn.", "since you last wrote.");
    assert!(workspace
        .run(&["publish", "review.contrib", "--catalog", "c"])
        .status
        .success());
    std::fs::write(
        workspace.path().join("traffic.toml"),
        "agents = 2\nmodels = 1\npersons = 3\nagent_prefix_tokens = 2000\nperson_part_tokens = 100\n",
    )
    .expect("traffic");
    let old = "c/acme/code-review/1.4.0.bundle.json";
    let new = "c/acme/code-review/1.4.1.bundle.json";
    let json = workspace.run(&[
        "diff",
        old,
        new,
        "--format",
        "json",
        "--traffic",
        "traffic.toml",
    ]);
    let document: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("diff --format json prints JSON");
    let changes = document["changes"].as_array().expect("changes");
    let invalidates = |id: &str| -> Vec<serde_json::Value> {
        changes
            .iter()
            .filter(|change| change["contributor"] == id)
            .map(|change| change["cache"]["invalidates"].clone())
            .collect()
    };
    assert_eq!(invalidates("stance"), [serde_json::json!("agent")]);
    assert_eq!(invalidates("voice"), [serde_json::json!("person")]);
    // A budget is approved, never sent; a system message is composed per
    // turn: neither touches a cached byte.
    assert_eq!(invalidates("started-at"), [serde_json::Value::Null]);
    assert_eq!(invalidates("idle"), [serde_json::Value::Null]);
    for change in changes {
        assert!(change["cache"]["prefixes"].is_string(), "{change}");
    }

    // The update as a whole: the agent prefixes of 2 agents and the person
    // parts of their 3 people each, written again once. On
    // claude-sonnet-4-6 a read is 0.1 of an input token, a 1h write 2 and
    // a 5m write 1.25: 4,000 × 1.9 + 600 × 1.15 = 8,290 units more.
    let update = &document["cache"];
    assert_eq!(update["invalidates"], "agent");
    assert_eq!(update["rewrite"]["entries"], 8);
    assert_eq!(update["rewrite"]["tokens"], 4_600);
    let extra = update["rewrite"]["extra_cost"].as_f64().expect("a cost");
    assert!((extra - 8_290.0).abs() < 1e-6, "{extra}");
    let usd = update["rewrite"]["extra_usd"].as_f64().expect("dollars");
    assert!((usd - 8_290.0 * 3.0e-6).abs() < 1e-9, "{usd}");

    // Without caching, writing again costs nothing more than reading.
    let none = workspace.run(&[
        "diff",
        old,
        new,
        "--format",
        "json",
        "--traffic",
        "traffic.toml",
        "--profile",
        "none",
    ]);
    let none: serde_json::Value = serde_json::from_slice(&none.stdout).expect("JSON");
    assert_eq!(none["cache"]["rewrite"]["extra_cost"].as_f64(), Some(0.0));

    let human = stdout(&workspace.run(&["diff", old, new]));
    assert!(
        human.contains("cache: the agent prefix of each agent it is installed on"),
        "{human}"
    );
    assert!(
        human.contains("the update invalidates cached prefixes up to agent placement"),
        "{human}"
    );
    let check = stdout(&workspace.run(&["catalog", "check", "c"]));
    assert!(
        check.contains("the catalog's latest update (acme/code-review@1.4.1) writes about"),
        "{check}"
    );

    let bad = workspace.run(&["diff", old, new, "--traffic", "missing.toml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot read `missing.toml`"));
}

/// An eager load that chooses from usage loads what recorded turns called
/// most, within its budget, and the choice is frozen with the version: a
/// new usage file is a new version, never a silent change of what every
/// request's cached prefix holds.
#[test]
fn eager_loads_chosen_from_usage_are_shown_and_frozen_per_version() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let path = folder.path();
    std::fs::copy(
        root().join("examples/contrib.toml"),
        path.join("contrib.toml"),
    )
    .expect("config");
    std::fs::copy(
        root().join("examples/support-desk.contrib"),
        path.join("desk.contrib"),
    )
    .expect("manifest");
    std::fs::create_dir(path.join("usage")).expect("a folder");
    let turns = std::fs::read_to_string(root().join("examples/usage/support-turns.jsonl"))
        .expect("the usage file");
    std::fs::write(path.join("usage/support-turns.jsonl"), &turns).expect("usage");

    let shown = contrib_in(&["usage", "desk.contrib"], path);
    assert!(shown.status.success(), "{shown:?}");
    let text = stdout(&shown);
    assert!(
        text.contains("chosen from `usage/support-turns.jsonl`"),
        "{text}"
    );
    assert!(text.contains("loaded  read_object"), "{text}");
    assert!(text.contains("under the 5% floor"), "{text}");

    assert!(
        contrib_in(&["publish", "desk.contrib", "--catalog", "c"], path)
            .status
            .success()
    );
    // Turns that only ever call one operation: the same version would load
    // something else, so it is refused as a changed published version.
    let only_refunds: String = (0..40)
        .map(|n| {
            format!(
                "{{\"conversation\": \"c{n}\", \"calls\": [{{\"skill\": \"support-desk\", \"operation\": \"issue-refund\"}}]}}\n"
            )
        })
        .collect();
    std::fs::write(path.join("usage/support-turns.jsonl"), only_refunds).expect("usage");
    let changed = stdout(&contrib_in(&["usage", "desk.contrib"], path));
    assert!(
        changed.contains("loaded  support-desk.issue-refund"),
        "{changed}"
    );
    let refused = contrib_in(&["publish", "desk.contrib", "--catalog", "c"], path);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    assert!(
        stdout(&refused).contains("frozen-version-changed"),
        "{}",
        stdout(&refused)
    );
}

/// Build metadata is documented as refused (`docs/bundles.md`): `1.4.1+a`
/// is not published, so no catalog lists a version `install @1.4.1`
/// cannot find.
#[test]
fn a_version_with_build_metadata_is_not_published() {
    let workspace = Workspace::new();
    workspace.edit("1.4.0 {", "1.4.1+a {");
    let refused = workspace.run(&["publish", "review.contrib", "--catalog", "c"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    let report = stdout(&refused);
    assert!(report.contains("invalid-version"), "{report}");
    assert!(report.contains("publish it as `1.4.1`"), "{report}");
    assert!(
        !workspace.path().join("c/acme/code-review").exists(),
        "nothing was written"
    );
    workspace.edit("1.4.1+a {", "1.4.1 {");
    let published = workspace.run(&["publish", "review.contrib", "--catalog", "c"]);
    assert!(published.status.success(), "{}", stdout(&published));
}

/// `choose from usage` names a file in the manifest's folder: `../` is
/// refused when the manifest is read, and a symbolic link that leads out
/// of the folder is refused when the usage is (issue 24).
#[cfg(unix)]
#[test]
fn a_usage_file_linked_from_outside_the_manifests_folder_is_not_read() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let outside = folder.path().join("outside");
    let plugin = folder.path().join("plugin");
    std::fs::create_dir_all(&outside).expect("a folder");
    std::fs::create_dir_all(plugin.join("usage")).expect("a folder");
    std::fs::copy(
        root().join("examples/contrib.toml"),
        plugin.join("contrib.toml"),
    )
    .expect("config");
    std::fs::copy(
        root().join("examples/support-desk.contrib"),
        plugin.join("desk.contrib"),
    )
    .expect("manifest");
    let turns = std::fs::read_to_string(root().join("examples/usage/support-turns.jsonl"))
        .expect("the usage file");
    std::fs::write(outside.join("secret.jsonl"), &turns).expect("usage");
    std::os::unix::fs::symlink(
        outside.join("secret.jsonl"),
        plugin.join("usage/support-turns.jsonl"),
    )
    .expect("a link");

    let refused = contrib_in(&["publish", "desk.contrib", "--catalog", "c"], &plugin);
    let report = format!(
        "{}{}",
        stdout(&refused),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_ne!(refused.status.code(), Some(0), "{report}");
    assert!(report.contains("leads out of"), "{report}");
    assert!(!plugin.join("c/acme").exists(), "nothing was published");

    // The same file, inside the folder, is read.
    std::fs::remove_file(plugin.join("usage/support-turns.jsonl")).expect("unlink");
    std::fs::write(plugin.join("usage/support-turns.jsonl"), &turns).expect("usage");
    let published = contrib_in(&["publish", "desk.contrib", "--catalog", "c"], &plugin);
    assert!(published.status.success(), "{}", stdout(&published));
}

/// The commands of `docs/bundles.md`'s "Signatures" section run as
/// written: the flags and the files `keygen` writes are the ones the page
/// names.
#[test]
fn the_signature_commands_of_the_docs_run_as_written() {
    let page = std::fs::read_to_string(root().join("docs/bundles.md")).expect("the page");
    let section = page
        .split("## Signatures")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("a sh block under Signatures");
    let folder = tempfile::tempdir().expect("a temp folder");
    // The page signs into a catalog it made earlier; here, an empty one.
    // `keygen` makes the folder it writes into.
    std::fs::create_dir(folder.path().join("catalog")).expect("a folder");
    std::fs::write(
        folder.path().join("plugin.contrib"),
        "plugin acme/x 1.0.0 {\n    owner agent-author\n\n    text stance {\n        placement agent\n        budget 10 tokens\n        body \"Be brief.\"\n    }\n}\n",
    )
    .expect("manifest");
    let mut ran = 0;
    for line in section.lines() {
        let command = line.split('#').next().unwrap_or_default().trim();
        let Some(arguments) = command.strip_prefix("contrib ") else {
            continue;
        };
        let arguments: Vec<&str> = arguments.split_whitespace().collect();
        let output = contrib_in(&arguments, folder.path());
        assert!(
            output.status.success(),
            "`{command}`: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        );
        ran += 1;
    }
    assert_eq!(ran, 4, "{section}");
    assert!(folder.path().join("keys/release.key").is_file());
}
