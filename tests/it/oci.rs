//! Catalogs in OCI registries (issue 27), end to end through the binary
//! against a real registry: Debian's `docker-registry` (distribution 2.8),
//! started here on 127.0.0.1 at a free port with temporary storage, and
//! stopped when the test ends. Interoperability is checked with an
//! independent client, the `oras` package from PyPI, in the Python that
//! `CONTRIB_OCI_PYTHON` names (else `target/oci-venv/bin/python`, which
//! `.ci/oci.sh` makes). Without the registry or that Python a test
//! says so and passes, except under `CI=true`, where it fails.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::isolated;
use crate::common::unavailable::cannot_run;

mod check;
mod hostile;
mod index;
mod proxy;
mod signatures;

/// A registry on the loopback, with its own storage.
struct Registry {
    child: Child,
    port: u16,
    storage: tempfile::TempDir,
}

impl Registry {
    /// Starts `docker-registry`, with `htpasswd` authentication when given
    /// the file's content; `None` (after saying why) when it cannot.
    fn start(htpasswd: Option<&str>) -> Option<Registry> {
        let Some(program) = on_path("docker-registry") else {
            cannot_run("`docker-registry` is not installed (Debian's package `docker-registry`)");
            return None;
        };
        let storage = tempfile::tempdir().expect("a folder");
        let port = free_port();
        let auth = match htpasswd {
            Some(text) => {
                let file = storage.path().join("htpasswd");
                std::fs::write(&file, text).expect("htpasswd written");
                format!(
                    "auth:\n  htpasswd:\n    realm: test\n    path: {}\n",
                    file.display()
                )
            }
            None => String::new(),
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n{auth}",
            storage.path().join("data").display()
        );
        let config_file = storage.path().join("config.yml");
        std::fs::write(&config_file, config).expect("config written");
        let child = Command::new(program)
            .arg("serve")
            .arg(&config_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("docker-registry starts");
        let registry = Registry {
            child,
            port,
            storage,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "docker-registry did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(registry)
    }

    fn catalog(&self, namespace: &str) -> String {
        format!("oci://127.0.0.1:{}/{namespace}", self.port)
    }

    /// The stored blob files (`…/blobs/sha256/xx/HEX/data`).
    fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.trim_start_matches("sha256:");
        self.storage
            .path()
            .join("data/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|folder| folder.join(program))
            .find(|path| path.is_file())
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// A Python that imports `oras` and `bcrypt`, or `None` after saying why.
fn python() -> Option<PathBuf> {
    let python = std::env::var_os("CONTRIB_OCI_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/oci-venv/bin/python")
        });
    let works = Command::new(&python)
        .args(["-c", "import oras.client, bcrypt"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !works {
        cannot_run(&format!(
            "`{}` cannot import `oras` and `bcrypt` (run `bash .ci/oci.sh`, or set CONTRIB_OCI_PYTHON)",
            python.display()
        ));
        return None;
    }
    Some(python)
}

/// Runs `script` in `python` with `args`; its standard output.
fn run_python(python: &Path, script: &str, args: &[&str]) -> String {
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python runs");
    assert!(output.status.success(), "{}", text(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Authors, a workspace, and the registry catalog they share.
struct Scene {
    folder: tempfile::TempDir,
    catalog: String,
    env: Vec<(String, String)>,
}

impl Scene {
    fn new(registry: &Registry) -> Scene {
        let scene = Scene {
            folder: tempfile::tempdir().expect("a folder"),
            catalog: registry.catalog("acme/plugins"),
            env: Vec::new(),
        };
        scene.write("ws/contrib.toml", "[trust]\nas = \"workspace\"\n");
        // No credentials of the machine's own are read.
        scene.write("home/.keep", "");
        scene
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.folder.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        std::fs::write(path, text).expect("write");
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative)).unwrap_or_default()
    }

    fn run(&self, args: &[&str]) -> Output {
        isolated::output(&mut self.command(args))
    }

    /// `contrib ARGS…` as [`Scene::run`] runs it, killed if it has not
    /// ended after `limit`: its output, and whether it ended by itself.
    fn run_for(&self, args: &[&str], limit: Duration) -> (Output, bool) {
        let mut command = self.command(args);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let (mut child, _cache) = isolated::spawn(&mut command);
        let started = Instant::now();
        let ended = loop {
            if child.try_wait().expect("contrib runs").is_some() {
                break true;
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                break false;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        (child.wait_with_output().expect("contrib ends"), ended)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = isolated::contrib_command();
        command
            .args(args)
            .current_dir(self.folder.path())
            .env("NO_COLOR", "1")
            .env("SOURCE_DATE_EPOCH", "1772442000")
            .env("HOME", self.path("home"))
            .env_remove("DOCKER_CONFIG")
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_STATE_HOME")
            .env_remove("CONTRIB_REGISTRY_USERNAME")
            .env_remove("CONTRIB_REGISTRY_PASSWORD")
            .env_remove("CONTRIB_REGISTRY_AUTH_HOSTS")
            .env_remove("CONTRIB_REGISTRY_DEADLINE")
            .env("CONTRIB_REGISTRY_TIMEOUT", "5");
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// A manifest of `plugin` at `version` whose text says `body`.
    fn author(&self, plugin: &str, version: &str, body: &str) -> String {
        let file = format!("authors/{}-{version}.contrib", plugin.replace('/', "-"));
        self.write(
            &file,
            &format!("plugin {plugin} {version} {{\n    owner workspace\n\n    text money {{\n        placement agent\n        budget 30 tokens\n        body \"{body}\"\n    }}\n}}\n"),
        );
        file
    }

    fn publish(&self, file: &str) -> Output {
        self.run(&["publish", file, "--catalog", &self.catalog])
    }

    fn install(&self, plugin: &str) -> Output {
        self.run(&[
            "install",
            plugin,
            "--catalog",
            &self.catalog,
            "--workspace",
            "ws",
            "--yes",
        ])
    }

    /// `compose --workspace ws` over two turns, as JSON.
    fn compose(&self) -> (Output, serde_json::Value) {
        let mut args = self.compose_args();
        args.extend(["--format".to_string(), "json".to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = self.run(&args);
        let layout = serde_json::from_slice(&output.stdout).unwrap_or_default();
        (output, layout)
    }

    /// The arguments of `compose --workspace ws` over two turns (written
    /// to `turns.toml`).
    fn compose_args(&self) -> Vec<String> {
        self.write(
            "turns.toml",
            "[[turn]]\nat = \"2026-03-02T09:01:00Z\"\n[[turn]]\nat = \"2026-03-02T09:05:00Z\"\n",
        );
        let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/runtime/session.toml");
        ["compose", "--workspace", "ws", "--session"]
            .into_iter()
            .map(str::to_string)
            .chain([
                session.to_string_lossy().into_owned(),
                "--turns".to_string(),
                "turns.toml".to_string(),
            ])
            .collect()
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[track_caller]
fn succeeds(output: &Output) -> String {
    let shown = text(output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    shown
}

/// Every command against the registry: publish (again: nothing to do),
/// `catalog check`, `preview`, `diff`, `install` (the lock names the
/// registry and pins the digest), compose through the lock, `update`
/// within the approval, `yank` seen at the next load, `catalog pull` into
/// a folder catalog a workspace installs from with the same digests.
#[test]
fn every_command_works_against_a_registry() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    let first = scene.author("acme/house", "1.0.0", "Money is in pence.");
    let shown = succeeds(&scene.publish(&first));
    assert!(shown.contains("published acme/house@1.0.0"), "{shown}");
    let shown = succeeds(&scene.publish(&first));
    assert!(shown.contains("already published"), "{shown}");
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));

    let reference = format!("{}/acme/house@1.0.0", scene.catalog);
    let shown = succeeds(&scene.run(&["preview", &reference]));
    assert!(shown.contains("acme/house@1.0.0"), "{shown}");

    let shown = succeeds(&scene.install("acme/house@1.0.0"));
    assert!(shown.contains("installed acme/house@1.0.0"), "{shown}");
    let lock = scene.read("ws/contrib.lock");
    assert!(
        lock.contains(&format!("catalog = \"{}\"", scene.catalog)),
        "{lock}"
    );
    let (output, layout) = scene.compose();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(layout.to_string().contains("pence"), "{layout}");

    let second = scene.author("acme/house", "1.1.0", "Money is in pence, always.");
    succeeds(&scene.publish(&second));
    let output = scene.run(&["diff", &reference, &second]);
    assert!(
        text(&output).contains("acme/house@1.1.0"),
        "{}",
        text(&output)
    );
    let shown = succeeds(&scene.run(&["update", "--workspace", "ws"]));
    assert!(shown.contains("installed acme/house@1.1.0"), "{shown}");

    succeeds(&scene.run(&["yank", "acme/house@1.1.0", "--catalog", &scene.catalog]));
    let (_, layout) = scene.compose();
    let refused = layout["refused_at_load"].to_string();
    assert!(refused.contains("withdrawn-version"), "{refused}");
    let output = scene.install("acme/house@1.1.0");
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    succeeds(&scene.run(&[
        "yank",
        "--undo",
        "acme/house@1.1.0",
        "--catalog",
        &scene.catalog,
    ]));
    let (_, layout) = scene.compose();
    let refused = layout["refused_at_load"].to_string();
    assert!(!refused.contains("withdrawn-version"), "{refused}");
    assert!(layout.to_string().contains("always"), "{layout}");

    let shown = succeeds(&scene.run(&["catalog", "pull", &scene.catalog, "mirror"]));
    assert!(shown.contains("2 version(s)"), "{shown}");
    let pulled = scene.read("mirror/catalog.lock");
    let installed = scene.read("ws/contrib.lock");
    let digest = installed
        .lines()
        .find(|line| line.starts_with("digest = "))
        .expect("a pinned digest");
    assert!(pulled.contains(digest), "{pulled}\n{installed}");
    succeeds(&scene.run(&["catalog", "check", "mirror"]));
}

/// A version is frozen: publishing it again with other content is refused
/// with both digests, and the index still lists the first.
#[test]
fn a_published_version_never_changes() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    let other = scene.author("acme/house", "1.0.0", "Money is in euros.");
    let output = scene.publish(&other);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("frozen-version-changed"), "{shown}");
    assert!(
        shown.contains("already published with other content"),
        "{shown}"
    );
    succeeds(&scene.install("acme/house@1.0.0"));
    let (_, layout) = scene.compose();
    assert!(layout.to_string().contains("pence"), "{layout}");
}

/// Publishers on different machines race into one catalog: each a
/// process of its own, started together. Nothing is lost (every version is
/// in the index), and the catalog stays consistent (`catalog check`).
#[test]
fn concurrent_publishers_lose_nothing() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    let files: Vec<String> = (0..6)
        .map(|n| scene.author(&format!("acme/p{n}"), "1.0.0", &format!("Rule {n}.")))
        .collect();
    let children: Vec<(Child, tempfile::TempDir)> = files
        .iter()
        .map(|file| {
            isolated::spawn(
                isolated::contrib_command()
                    .args(["publish", file, "--catalog", &scene.catalog])
                    .current_dir(scene.folder.path())
                    .env("HOME", scene.path("home"))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped()),
            )
        })
        .collect();
    for (child, _cache) in children {
        let output = child.wait_with_output().expect("contrib ends");
        succeeds(&output);
    }
    // Yanks racing publishes are not lost either.
    let yanks: Vec<(Child, tempfile::TempDir)> = (0..3)
        .map(|n| {
            isolated::spawn(
                isolated::contrib_command()
                    .args([
                        "yank",
                        &format!("acme/p{n}@1.0.0"),
                        "--catalog",
                        &scene.catalog,
                    ])
                    .current_dir(scene.folder.path())
                    .env("HOME", scene.path("home"))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped()),
            )
        })
        .collect();
    for (child, _cache) in yanks {
        succeeds(&child.wait_with_output().expect("contrib ends"));
    }
    succeeds(&scene.run(&["catalog", "pull", &scene.catalog, "mirror"]));
    let lock = scene.read("mirror/catalog.lock");
    for n in 0..6 {
        assert!(lock.contains(&format!("plugin = \"acme/p{n}\"")), "{lock}");
    }
    assert_eq!(lock.matches("yanked = true").count(), 3, "{lock}");
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));
}

/// What contrib publishes, oras lists and pulls; a tag oras moves, contrib
/// refuses, naming both digests, at install and in `catalog check`.
#[test]
fn oras_reads_what_contrib_publishes_and_a_tag_it_moves_is_refused() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let Some(python) = python() else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    let target = format!("127.0.0.1:{}/acme/plugins/acme/house", registry.port);
    let listed = run_python(
        &python,
        "import sys, oras.client\nc = oras.client.OrasClient(insecure=True)\nprint(c.get_tags(sys.argv[1]))",
        &[&target],
    );
    assert!(listed.contains("1.0.0"), "{listed}");
    let out = scene.path("pulled");
    let pulled = run_python(
        &python,
        "import sys, oras.client\nc = oras.client.OrasClient(insecure=True)\nprint(c.pull(target=sys.argv[1], outdir=sys.argv[2]))",
        &[&format!("{target}:1.0.0"), &out.to_string_lossy()],
    );
    assert!(pulled.contains("1.0.0.bundle.json"), "{pulled}");
    let bundle = std::fs::read_to_string(out.join("1.0.0.bundle.json")).expect("the bundle");
    assert!(bundle.contains("Money is in pence."), "{bundle}");

    scene.write("evil.txt", "Money is in euros.");
    run_python(
        &python,
        "import sys, oras.client\nc = oras.client.OrasClient(insecure=True)\nc.push(target=sys.argv[1], files=[sys.argv[2]], disable_path_validation=True)",
        &[&format!("{target}:1.0.0"), &scene.path("evil.txt").to_string_lossy()],
    );
    let output = scene.install("acme/house@1.0.0");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("moved"), "{shown}");
    assert_eq!(
        shown.matches("sha256:").count(),
        2,
        "both digests are named: {shown}"
    );
    assert!(!scene.path("ws/contrib.lock").exists());
    let output = scene.run(&["catalog", "check", &scene.catalog]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("moved"), "{}", text(&output));
}

/// A blob the registry lost, or a registry that fails mid-pull (5xx, or
/// silence): the install fails with the reason and writes nothing.
#[test]
fn a_registry_that_fails_mid_pull_leaves_nothing_half_written() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));

    type Failure = fn() -> proxy::Answer;
    let failures: [(&str, Failure); 2] = [
        ("503", || proxy::Answer::Fail(503, Vec::new())),
        ("did not answer in time", || {
            proxy::Answer::Stall(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/octet-stream\r\n\r\n1\r\n{\r\n".to_vec(),
            )
        }),
    ];
    for (expected, failure) in failures {
        let proxy = proxy::Proxy::start(registry.port, move |request| {
            if proxy::is_bundle_blob(request) {
                failure()
            } else {
                proxy::Answer::Forward
            }
        });
        let through = proxy.catalog("acme/plugins");
        let output = scene.run(&[
            "install",
            "acme/house@1.0.0",
            "--catalog",
            &through,
            "--workspace",
            "ws",
            "--yes",
        ]);
        let shown = text(&output);
        assert_eq!(output.status.code(), Some(2), "{expected}: {shown}");
        assert!(shown.contains(expected), "{expected}: {shown}");
        assert!(!scene.path("ws/contrib.lock").exists(), "{expected}");
        assert!(!scene.path("ws/.contrib/approved").exists(), "{expected}");
    }

    let bundle = blob_of(&scene, &registry);
    std::fs::remove_file(registry.blob_file(&bundle)).expect("the blob removed");
    let output = scene.install("acme/house@1.0.0");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(!scene.path("ws/contrib.lock").exists());
}

/// The digest of the one bundle layer stored.
fn blob_of(scene: &Scene, registry: &Registry) -> String {
    let mut found = bundle_blobs(registry);
    assert_eq!(found.len(), 1, "{found:?} in {}", scene.catalog);
    found.remove(0)
}

/// The digests of the stored bundle layers (the blobs that hold a
/// bundle's contributors).
fn bundle_blobs(registry: &Registry) -> Vec<String> {
    let root = registry
        .storage
        .path()
        .join("data/docker/registry/v2/blobs/sha256");
    let mut found = Vec::new();
    for prefix in std::fs::read_dir(&root).expect("blobs").flatten() {
        for blob in std::fs::read_dir(prefix.path()).expect("blobs").flatten() {
            let data = std::fs::read_to_string(blob.path().join("data")).unwrap_or_default();
            if data.contains("\"contributors\"") {
                found.push(format!("sha256:{}", blob.file_name().to_string_lossy()));
            }
        }
    }
    found
}

/// htpasswd authentication: the right credentials from the environment or
/// a Docker configuration work; wrong ones are refused with a clear
/// error that never shows the secret; anonymous is refused.
#[test]
fn credentials_come_from_the_environment_and_docker_configuration() {
    let Some(python) = python() else {
        return;
    };
    let hash = run_python(
        &python,
        "import bcrypt\nprint(bcrypt.hashpw(b'open-sesame', bcrypt.gensalt(rounds=5)).decode())",
        &[],
    );
    let Some(registry) = Registry::start(Some(&format!("ci:{}\n", hash.trim()))) else {
        return;
    };
    let mut scene = Scene::new(&registry);
    let file = scene.author("acme/house", "1.0.0", "Money is in pence.");

    let output = scene.publish(&file);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("refused the credentials"),
        "{}",
        text(&output)
    );

    scene.env = vec![
        ("CONTRIB_REGISTRY_USERNAME".into(), "ci".into()),
        ("CONTRIB_REGISTRY_PASSWORD".into(), "wrong-secret".into()),
    ];
    let output = scene.publish(&file);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("refused the credentials"), "{shown}");
    assert!(!shown.contains("wrong-secret"), "{shown}");

    scene.env[1].1 = "open-sesame".into();
    succeeds(&scene.publish(&file));

    // A Docker configuration's `auths`, as `docker login` writes it.
    let auth = base64_of("ci:open-sesame");
    scene.write(
        "docker/config.json",
        &format!(
            "{{\"auths\": {{\"127.0.0.1:{}\": {{\"auth\": \"{auth}\"}}}}}}",
            registry.port
        ),
    );
    scene.env = vec![(
        "DOCKER_CONFIG".into(),
        scene.path("docker").to_string_lossy().into_owned(),
    )];
    let shown = succeeds(&scene.install("acme/house@1.0.0"));
    assert!(!shown.contains("open-sesame"), "{shown}");

    // A credential helper, run per the protocol: the registry on its
    // input, the credentials as JSON on its output.
    scene.write(
        "docker/config.json",
        &format!(
            "{{\"credHelpers\": {{\"127.0.0.1:{}\": \"fake\"}}}}",
            registry.port
        ),
    );
    scene.write(
        "bin/docker-credential-fake",
        "#!/bin/sh\nread server\n[ \"$1\" = get ] && echo \"{\\\"ServerURL\\\":\\\"$server\\\",\\\"Username\\\":\\\"ci\\\",\\\"Secret\\\":\\\"open-sesame\\\"}\"\n",
    );
    make_executable(&scene.path("bin/docker-credential-fake"));
    let path = format!(
        "{}:{}",
        scene.path("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    scene.env.push(("PATH".into(), path));
    std::fs::remove_dir_all(scene.path("ws/.contrib")).expect("the mirror removed");
    let shown = succeeds(&scene.run(&["update", "--workspace", "ws"]));
    assert!(shown.contains("up to date"), "{shown}");
    let helped = scene.run(&["catalog", "pull", &scene.catalog, "mirror"]);
    succeeds(&helped);

    // A helper that has nothing for the registry: anonymous, refused.
    scene.write("bin/docker-credential-fake", "#!/bin/sh\nexit 1\n");
    make_executable(&scene.path("bin/docker-credential-fake"));
    let output = scene.run(&["catalog", "pull", &scene.catalog, "other"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// `catalog push` publishes a folder catalog into a registry, its yanks
/// too, and `catalog pull` brings back the same digests; pulling over a
/// folder that lists what the registry does not publish is refused.
#[test]
fn a_folder_catalog_pushed_and_pulled_back_keeps_its_digests() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    for (version, body) in [
        ("1.0.0", "Money is in pence."),
        ("1.1.0", "Money is in cents."),
    ] {
        let file = scene.author("acme/house", version, body);
        succeeds(&scene.run(&["publish", &file, "--catalog", "folder"]));
    }
    succeeds(&scene.run(&["yank", "acme/house@1.0.0", "--catalog", "folder"]));
    let shown = succeeds(&scene.run(&["catalog", "push", "folder", &scene.catalog]));
    assert!(shown.contains("2 versions published"), "{shown}");
    let shown = succeeds(&scene.run(&["catalog", "push", "folder", &scene.catalog]));
    assert!(shown.contains("2 already there"), "{shown}");

    succeeds(&scene.run(&["catalog", "pull", &scene.catalog, "back"]));
    let digests = |lock: &str| -> Vec<String> {
        lock.lines()
            .filter(|line| line.starts_with("digest = ") || line.starts_with("yanked = "))
            .map(str::to_string)
            .collect()
    };
    let (pushed, pulled) = (
        scene.read("folder/catalog.lock"),
        scene.read("back/catalog.lock"),
    );
    assert_eq!(digests(&pushed), digests(&pulled), "{pushed}\n{pulled}");
    assert_eq!(digests(&pulled).len(), 3, "{pulled}");

    let other = scene.author("acme/other", "1.0.0", "Other.");
    succeeds(&scene.run(&["publish", &other, "--catalog", "back"]));
    let output = scene.run(&["catalog", "pull", &scene.catalog, "back"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("which the registry does not publish"),
        "{}",
        text(&output)
    );
}
