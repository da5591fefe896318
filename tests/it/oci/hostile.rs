//! A hostile registry: the real `docker-registry` behind a proxy on the
//! loopback that answers as an attacker would, without end, slowly, with
//! huge errors, endless tag listings, a token realm on another host, or a
//! failure in the middle of a publish. Each attack has its control: the
//! same scenario through the proxy with nothing hostile still works.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::proxy::{self, is_bundle_blob, Answer, Proxy};
use super::*;

/// A scene with `acme/house@1.0.0` published straight into the registry.
fn published(registry: &Registry) -> Scene {
    let scene = Scene::new(registry);
    succeeds(&scene.publish(&scene.author("acme/house", "1.0.0", "Money is in pence.")));
    scene
}

fn install_args<'a>(catalog: &'a str, workspace: &'a str) -> [&'a str; 7] {
    [
        "install",
        "acme/house@1.0.0",
        "--catalog",
        catalog,
        "--workspace",
        workspace,
        "--yes",
    ]
}

fn install_through(scene: &Scene, catalog: &str, workspace: &str) -> Output {
    scene.run(&install_args(catalog, workspace))
}

/// An install that ended by itself, refused for an answer larger than it
/// may be.
#[track_caller]
fn refused_in_time((output, ended): (Output, bool)) {
    let shown = text(&output);
    assert!(ended, "the install did not end: {shown}");
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("more than the"), "{shown}");
}

/// A bundle blob that streams far more than its manifest declares is cut
/// off at what was declared: the registry sends a few megabytes at most
/// (what the sockets buffer), not the 256 MiB it tried. Through the same
/// proxy answering honestly, the install works.
#[test]
fn a_blob_larger_than_declared_is_cut_off_at_its_declared_size() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = published(&registry);
    let hostile = Arc::new(AtomicBool::new(true));
    let flag = hostile.clone();
    let proxy = Proxy::start(registry.port, move |request| {
        if flag.load(Ordering::SeqCst) && is_bundle_blob(request) {
            Answer::Endless(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream".into(),
                256 << 20,
            )
        } else {
            Answer::Forward
        }
    });
    refused_in_time(scene.run_for(
        &install_args(&proxy.catalog("acme/plugins"), "ws"),
        Duration::from_secs(120),
    ));
    assert!(
        proxy.sent() < 16 << 20,
        "the registry sent {} bytes before the client stopped reading",
        proxy.sent()
    );
    assert!(!scene.path("ws/contrib.lock").exists());

    hostile.store(false, Ordering::SeqCst);
    succeeds(&install_through(
        &scene,
        &proxy.catalog("acme/plugins"),
        "ws",
    ));
}

/// A manifest or tag page without end is refused at the format's bound,
/// and an error the registry answers with is shown as a short excerpt,
/// its control characters escaped, never whole.
#[test]
fn huge_answers_and_huge_errors_are_bounded_and_escaped() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = published(&registry);
    let proxy = Proxy::start(registry.port, |request| {
        if request.is("GET", "/acme/house/manifests/sha256:") {
            Answer::Endless(
                "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json"
                    .into(),
                256 << 20,
            )
        } else {
            Answer::Forward
        }
    });
    refused_in_time(scene.run_for(
        &install_args(&proxy.catalog("acme/plugins"), "ws"),
        Duration::from_secs(120),
    ));
    assert!(proxy.sent() < 16 << 20, "{} bytes sent", proxy.sent());

    let mut error = b"\x1b[2J\x1b[31mthe registry exploded\n".to_vec();
    error.extend(std::iter::repeat_n(b'A', 4 << 20));
    let proxy = Proxy::start(registry.port, move |request| {
        if request.is("GET", "/acme/house/manifests/sha256:") {
            Answer::Fail(500, error.clone())
        } else {
            Answer::Forward
        }
    });
    let output = install_through(&scene, &proxy.catalog("acme/plugins"), "ws");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("500"), "{shown}");
    assert!(shown.contains("\\u{1b}[2J"), "{shown}");
    assert!(!shown.contains('\x1b'), "{shown}");
    assert!(shown.len() < 2048, "{} bytes shown: {shown}", shown.len());
}

/// `compose` refreshes the workspace's mirror before loading; a registry
/// that answers promptly, then sends its answer's body one byte a second
/// (each read well within the timeout, the whole answer far beyond it) gets the warning the documentation
/// promises, and the last mirror stands. Answering promptly, the same
/// proxy refreshes it.
#[test]
fn a_slow_registry_during_compose_is_a_warning_and_the_mirror_stands() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = published(&registry);
    let slow = Arc::new(AtomicBool::new(false));
    let flag = slow.clone();
    let proxy = Proxy::start(registry.port, move |request| {
        if flag.load(Ordering::SeqCst) && request.is("GET", "/tags/list") {
            Answer::Trickle(Duration::from_secs(1))
        } else {
            Answer::Forward
        }
    });
    succeeds(&install_through(
        &scene,
        &proxy.catalog("acme/plugins"),
        "ws",
    ));
    slow.store(true, Ordering::SeqCst);
    scene
        .env
        .push(("CONTRIB_REGISTRY_TIMEOUT".into(), "2".into()));
    let compose = scene.compose_args();
    let compose: Vec<&str> = compose.iter().map(String::as_str).collect();
    let (output, ended) = scene.run_for(&compose, Duration::from_secs(60));
    let shown = text(&output);
    assert!(ended, "compose did not end: {shown}");
    assert_eq!(output.status.code(), Some(0), "{shown}");
    assert!(shown.contains("cannot refresh"), "{shown}");
    assert!(
        shown.contains("last mirror in this workspace stands"),
        "{shown}"
    );
    assert!(shown.contains("pence"), "{shown}");

    slow.store(false, Ordering::SeqCst);
    let (output, ended) = scene.run_for(&compose, Duration::from_secs(60));
    let shown = text(&output);
    assert!(ended && output.status.code() == Some(0), "{shown}");
    assert!(!shown.contains("cannot refresh"), "{shown}");
}

/// Every request answered just within its own timeout still ends the
/// command at its deadline (`CONTRIB_REGISTRY_DEADLINE`); with time
/// enough, the same check passes.
#[test]
fn a_command_against_a_registry_has_a_deadline() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = published(&registry);
    let proxy = Proxy::start(registry.port, |_| Answer::Delay(Duration::from_millis(700)));
    let check = ["catalog", "check", &proxy.catalog("acme/plugins")].map(str::to_string);
    let check: Vec<&str> = check.iter().map(String::as_str).collect();
    scene
        .env
        .push(("CONTRIB_REGISTRY_DEADLINE".into(), "1".into()));
    let (output, ended) = scene.run_for(&check, Duration::from_secs(60));
    let shown = text(&output);
    assert!(ended, "{shown}");
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("deadline"), "{shown}");

    scene.env.pop();
    let (output, ended) = scene.run_for(&check, Duration::from_secs(60));
    assert!(ended, "{}", text(&output));
    succeeds(&output);
}

/// A tag listing without end, page after full page of new tags, and one
/// page that never ends, are refused at their bounds.
#[test]
fn an_endless_tag_listing_is_refused() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = published(&registry);
    let proxy = Proxy::start(registry.port, |request| {
        if !request.is("GET", "/contrib.index/tags/list") {
            return Answer::Forward;
        }
        let after: u64 = request
            .path
            .split("last=e")
            .nth(1)
            .and_then(|rest| rest.get(..12))
            .and_then(|number| number.parse().ok())
            .unwrap_or(0);
        let tags: Vec<String> = (after + 1..after + 1001)
            .map(|n| format!("e{n:012}.0000000000000.0000000000000000"))
            .collect();
        let body =
            serde_json::json!({ "name": "acme/plugins/contrib.index", "tags": tags }).to_string();
        Answer::Raw(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes(),
        )
    });
    let (output, ended) = scene.run_for(
        &["catalog", "check", &proxy.catalog("acme/plugins")],
        Duration::from_secs(120),
    );
    let shown = text(&output);
    assert!(ended, "the check did not end: {shown}");
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("more than"), "{shown}");

    let proxy = Proxy::start(registry.port, |request| {
        if request.is("GET", "/contrib.index/tags/list") {
            Answer::Endless(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json".into(),
                256 << 20,
            )
        } else {
            Answer::Forward
        }
    });
    let (output, ended) = scene.run_for(
        &["catalog", "check", &proxy.catalog("acme/plugins")],
        Duration::from_secs(120),
    );
    let shown = text(&output);
    assert!(ended, "the check did not end: {shown}");
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("more than the"), "{shown}");
    // A page may be the whole listing (32 MiB), never the 256 MiB sent.
    assert!(proxy.sent() < 48 << 20, "{} bytes sent", proxy.sent());
}

/// A registry that asks for a token from a realm on another host gets no
/// credentials sent there, and the refusal says how to allow that host;
/// a realm on the registry's own host, or on a host the environment
/// allows, gets them; anonymous, a token from any realm is asked for with
/// no credentials.
#[test]
fn credentials_go_only_to_the_registrys_own_host() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let mut scene = published(&registry);
    let token = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 24\r\nConnection: close\r\n\r\n{\"token\": \"good-token\"}\n";
    let (foreign, asked) = proxy::listen_on(2, token);
    let realm = Arc::new(std::sync::Mutex::new(format!(
        "http://127.0.0.2:{foreign}/token"
    )));
    let current = realm.clone();
    let proxy = Proxy::start(registry.port, move |request| {
        if request.is("GET", "/token") {
            return Answer::Raw(token.to_vec());
        }
        if request.header("Authorization").as_deref() == Some("Bearer good-token") {
            return Answer::Forward;
        }
        let realm = current.lock().expect("the realm").clone();
        Answer::Raw(
            format!(
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"{realm}\",service=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            .into_bytes(),
        )
    });
    let catalog = proxy.catalog("acme/plugins");
    scene.env = vec![
        ("CONTRIB_REGISTRY_USERNAME".into(), "ci".into()),
        ("CONTRIB_REGISTRY_PASSWORD".into(), "open-sesame".into()),
    ];
    let output = install_through(&scene, &catalog, "ws");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("127.0.0.2"), "{shown}");
    assert!(shown.contains("CONTRIB_REGISTRY_AUTH_HOSTS"), "{shown}");
    assert!(!shown.contains("open-sesame"), "{shown}");
    let heads = asked.lock().expect("the log").clone();
    assert!(
        heads
            .iter()
            .all(|head| !head.to_ascii_lowercase().contains("authorization")),
        "credentials were sent to the other host: {heads:?}"
    );

    scene
        .env
        .push(("CONTRIB_REGISTRY_AUTH_HOSTS".into(), "127.0.0.2".into()));
    succeeds(&install_through(&scene, &catalog, "ws"));
    let heads = asked.lock().expect("the log").clone();
    assert!(
        heads
            .iter()
            .any(|head| head.to_ascii_lowercase().contains("authorization: basic")),
        "{heads:?}"
    );

    scene.env.pop();
    for workspace in ["ws2", "ws3"] {
        scene.write(
            &format!("{workspace}/contrib.toml"),
            "[trust]\nas = \"workspace\"\n",
        );
    }
    *realm.lock().expect("the realm") = format!("http://127.0.0.1:{}/token", proxy.port);
    succeeds(&install_through(&scene, &catalog, "ws2"));
    assert!(
        proxy
            .seen()
            .iter()
            .any(|head| head.starts_with("GET /token")
                && head.to_ascii_lowercase().contains("authorization: basic")),
        "{:?}",
        proxy.seen()
    );

    *realm.lock().expect("the realm") = format!("http://127.0.0.2:{foreign}/token");
    scene.env.clear();
    let before = asked.lock().expect("the log").len();
    succeeds(&install_through(&scene, &catalog, "ws3"));
    let heads = asked.lock().expect("the log").clone();
    assert!(heads.len() > before, "{heads:?}");
    assert!(
        heads[before..]
            .iter()
            .all(|head| !head.to_ascii_lowercase().contains("authorization")),
        "{heads:?}"
    );
}

/// A 500 while the publish event is pushed: the publish says nothing was
/// published, and leaves no tag naming what it pushed, so `catalog check`
/// is clean and the corrected republish goes through. A tag another tool
/// (or an older contrib's failed publish) left naming content no event
/// publishes is replaced by the publish, which says so. A 500 answered
/// after the registry stored the event is a publish that happened, and
/// says so.
#[test]
fn a_failed_event_push_does_not_block_the_corrected_republish() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let scene = Scene::new(&registry);
    let after = Arc::new(AtomicBool::new(false));
    let flag = after.clone();
    let proxy = Proxy::start(registry.port, move |request| {
        if request.is("PUT", "/contrib.index/manifests/e") {
            if flag.load(Ordering::SeqCst) {
                Answer::ForwardThenFail(500)
            } else {
                Answer::Fail(500, b"internal error".to_vec())
            }
        } else {
            Answer::Forward
        }
    });
    let through = proxy.catalog("acme/plugins");
    let first = scene.author("acme/house", "1.0.0", "Money is in pence");
    let output = scene.run(&["publish", &first, "--catalog", &through]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(shown.contains("is not published"), "{shown}");
    assert!(!proxy::tags(registry.port, HOUSE).contains(&"1.0.0".to_string()));
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));

    let corrected = scene.author("acme/house", "1.0.0", "Money is in pence.");
    let shown = succeeds(&scene.publish(&corrected));
    assert!(shown.contains("published acme/house@1.0.0"), "{shown}");
    succeeds(&scene.install("acme/house@1.0.0"));
    let (_, layout) = scene.compose();
    assert!(layout.to_string().contains("pence."), "{layout}");

    // A tag left by another tool, naming content no event publishes.
    let stray = scene.author("acme/house", "1.1.0", "Money is in shells.");
    let bundles = scene.path("stray");
    succeeds(&scene.run(&["publish", &stray, "--catalog", &bundles.to_string_lossy()]));
    let bytes = std::fs::read(bundles.join("acme/house/1.1.0.bundle.json")).expect("a bundle");
    let left = proxy::push_bundle(registry.port, HOUSE, Some("1.1.0"), &bytes);
    let second = scene.author("acme/house", "1.1.0", "Money is in pence, always.");
    let shown = succeeds(&scene.publish(&second));
    assert!(shown.contains(&left), "the replaced tag is named: {shown}");
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));

    after.store(true, Ordering::SeqCst);
    let third = scene.author("acme/house", "1.2.0", "Money is in pence, ever.");
    let shown = succeeds(&scene.run(&["publish", &third, "--catalog", &through]));
    assert!(shown.contains("published acme/house@1.2.0"), "{shown}");
    succeeds(&scene.run(&["catalog", "check", &scene.catalog]));
}

const HOUSE: &str = "acme/plugins/acme/house";
