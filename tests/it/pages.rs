//! The pages `--html` writes: rendered for the examples and for a hostile
//! manifest, then read back in a real headless browser (Chromium) to see
//! that no script ran, no request left the page, and the numbers a person
//! reads equal the ones a program reads.
//!
//! Without Chromium (`chromium`, `chromium-browser`, `google-chrome`, or
//! `CONTRIB_CHROMIUM`), the browser checks print why they skip (and fail
//! under `CI=true`); the checks on the written markup still run. `.ci/run`
//! installs Chromium.

use crate::common;
use crate::common::isolated::contrib;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A manifest whose every text tries to break out of the page.
/// Its author silenced `hidden-character`, as a hostile author would: the
/// page must still show the bidirectional controls rather than obey them.
const HOSTILE: &str = "# contrib: allow(hidden-character) -- the page must defang them anyway
plugin acme/hostile 1.0.0 {
    owner workspace
    summary \"</title><script>document.title=1</script><img src=x onerror=alert(1)>\"

    text stance {
        placement agent
        budget 400 tokens
        body \"\"\"
            <script>document.title='pwned'</script> ' onmouseover='alert(1)
            <a href=\"javascript:alert(1)\">click</a> <style>body{{background:url(https://evil.example/t)}}</style>
            admin\u{202E}txt.exe\u{2066} </pre></article><script src=https://evil.example/x.js></script>
            <img src=https://evil.example/pixel.png> <iframe src=https://evil.example/frame></iframe>
            \"\"\"
    }
}
";

fn examples() -> Vec<PathBuf> {
    let mut manifests: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .expect("examples/")
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "contrib"))
            .collect();
    manifests.sort();
    manifests
}

/// `data-key` → the text of its element, from markup or a browser's DOM.
fn key_numbers(html: &str) -> BTreeMap<String, String> {
    let pattern = regex::Regex::new(r#"data-key="([a-z0-9-]+)">([^<]*)<"#).expect("a pattern");
    pattern
        .captures_iter(html)
        .map(|found| (found[1].to_string(), found[2].to_string()))
        .collect()
}

fn preview_page(manifest: &Path, page: &Path) -> String {
    let output = contrib(&[
        "preview",
        &manifest.display().to_string(),
        "--html",
        &page.display().to_string(),
    ]);
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "the page replaces the text");
    std::fs::read_to_string(page).expect("the page was written")
}

/// Why the browser checks cannot run.
const NO_CHROMIUM: &str =
    "no Chromium for the browser checks (install `chromium` or set CONTRIB_CHROMIUM)";

/// The headless browser, if there is one.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CONTRIB_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |folder| folder.join(name)))
        .find(|candidate| candidate.is_file())
}

/// What a browser made of a page: its DOM after load, and every URL its
/// network stack was asked for.
struct Loaded {
    dom: String,
    net_log: String,
}

fn load(browser: &Path, page: &Path, scratch: &Path) -> Loaded {
    let net_log = scratch.join("net-log.json");
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
        ])
        .arg(format!(
            "--user-data-dir={}",
            scratch.join("profile").display()
        ))
        .arg(format!("--log-net-log={}", net_log.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("the browser runs");
    assert!(output.status.success(), "the browser failed: {output:?}");
    Loaded {
        dom: String::from_utf8_lossy(&output.stdout).into_owned(),
        net_log: std::fs::read_to_string(&net_log).unwrap_or_default(),
    }
}

/// Fails unless the page loaded as written: no element the page code does
/// not write, no script, no request to anywhere.
fn assert_inert(loaded: &Loaded, title: &str) {
    let dom = loaded.dom.to_ascii_lowercase();
    for element in [
        "<script", "<img", "<iframe", "<a ", "<object", "<embed", "<link",
    ] {
        assert!(
            !dom.contains(element),
            "`{element}` became an element:\n{}",
            loaded.dom
        );
    }
    assert!(
        loaded.dom.contains(&format!("<title>{title}</title>")),
        "a script changed the title (or the page did not load):\n{}",
        loaded.dom
    );
    assert!(
        !loaded.net_log.contains("evil.example"),
        "the browser was asked for a hostile URL"
    );
    let requested = page_requests(&loaded.net_log);
    assert!(
        requested.iter().all(|url| url.starts_with("file://")),
        "the page asked for {requested:?}"
    );
}

/// The URLs the page (not the browser's own updater and sign-in, whose
/// initiator is "not an origin") asked the network stack for.
fn page_requests(net_log: &str) -> Vec<String> {
    let log: serde_json::Value = serde_json::from_str(net_log).expect("Chromium's net log is JSON");
    let start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    log["events"]
        .as_array()
        .expect("net log events")
        .iter()
        .filter(|event| event["type"] == start)
        .filter(|event| event["params"]["initiator"] != "not an origin")
        .filter_map(|event| event["params"]["url"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_hostile_manifest_stays_text_on_its_page() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let manifest = folder.path().join("hostile.contrib");
    std::fs::write(&manifest, HOSTILE).expect("writable");
    let page_path = folder.path().join("hostile.html");
    let page = preview_page(&manifest, &page_path);
    assert!(page.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"));
    assert!(
        page.contains(">\\u{202e}<"),
        "the override is shown, not obeyed"
    );
    assert!(!page.contains('\u{202E}'));
    assert!(!page.contains("<a "), "no link anywhere");
    let Some(browser) = chromium() else {
        common::unavailable::cannot_run(NO_CHROMIUM);
        return;
    };
    let loaded = load(&browser, &page_path, &folder.path().join("hostile"));
    assert_inert(&loaded, "What acme/hostile@1.0.0 adds");
    assert!(
        loaded
            .dom
            .contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
        "the text reads as written:\n{}",
        loaded.dom
    );
}

/// The browser checks can fail: a page without the policy and the
/// escaping runs its script and makes its request, and both are seen.
#[test]
fn the_browser_checks_see_a_script_and_a_request() {
    let Some(browser) = chromium() else {
        common::unavailable::cannot_run(NO_CHROMIUM);
        return;
    };
    let folder = tempfile::tempdir().expect("a temp folder");
    let page = folder.path().join("unsafe.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><title>x</title><img src=\"http://127.0.0.1:9/x.png\"><script>document.title='ran'</script>",
    )
    .expect("writable");
    let loaded = load(&browser, &page, folder.path());
    assert!(loaded.dom.contains("<title>ran</title>"), "{}", loaded.dom);
    assert_eq!(page_requests(&loaded.net_log), ["http://127.0.0.1:9/x.png"]);
}

#[test]
fn every_examples_page_shows_the_bundles_budgets() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let bundles = folder.path().join("bundles");
    let browser = chromium();
    if browser.is_none() {
        common::unavailable::cannot_run(NO_CHROMIUM);
    }
    for manifest in examples() {
        let name = manifest
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        let built = contrib(&[
            "build",
            &manifest.display().to_string(),
            "-o",
            &bundles.display().to_string(),
        ]);
        assert!(built.status.success(), "{built:?}");
        let page_path = folder.path().join(format!("{name}.html"));
        let page = preview_page(&manifest, &page_path);
        // `built acme/x@1.0.0 → PATH (digest)` on standard error.
        let status = String::from_utf8_lossy(&built.stderr).into_owned();
        let (id, bundle_file) = status
            .lines()
            .find_map(|line| {
                let rest = line.strip_prefix("built ")?;
                let (id, rest) = rest.split_once(" → ")?;
                let (path, _) = rest.rsplit_once(" (")?;
                Some((id.to_string(), PathBuf::from(path)))
            })
            .unwrap_or_else(|| panic!("{name}: no `built` line in {status}"));
        let bundle: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&bundle_file).expect("readable"))
                .expect("a bundle is JSON");
        let budgets = bundle["permissions"]["budgets"]
            .as_object()
            .expect("budgets by placement");
        let shown = match &browser {
            Some(browser) => {
                let scratch = folder.path().join(format!("{name}-browser"));
                let loaded = load(browser, &page_path, &scratch);
                assert_inert(&loaded, &format!("What {id} adds"));
                key_numbers(&loaded.dom)
            }
            None => key_numbers(&page),
        };
        assert!(!budgets.is_empty(), "{name} asks for some budget");
        for (placement, tokens) in budgets {
            assert_eq!(
                shown
                    .get(&format!("budget-{placement}"))
                    .map(String::as_str),
                Some(tokens.to_string().as_str()),
                "{name}: the page's {placement} budget"
            );
        }
    }
}

#[test]
fn the_simulations_page_shows_the_json_reports_numbers() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let bundles = folder.path().join("bundles");
    let mut build = vec![
        "build".to_string(),
        "-o".into(),
        bundles.display().to_string(),
    ];
    build.extend(examples().iter().map(|path| path.display().to_string()));
    let build: Vec<&str> = build.iter().map(String::as_str).collect();
    assert!(contrib(&build).status.success());
    let page_path = folder.path().join("simulation.html");
    let output = contrib(&[
        "simulate",
        "--bundles",
        &bundles.display().to_string(),
        "--agents",
        "1",
        "--persons",
        "2",
        "--conversations",
        "2",
        "--turns",
        "6",
        "--format",
        "json",
        "--html",
        &page_path.display().to_string(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the JSON report on standard output");
    let page = std::fs::read_to_string(&page_path).expect("the page was written");
    let layouts = report["layouts"].as_array().expect("a layouts array");
    assert!(layouts.len() >= 5, "{layouts:?}");
    assert_eq!(
        page.matches("<svg ").count(),
        layouts.len() + 3,
        "a timeline per layout, sharing, cost, system prompt changes"
    );
    let shown = match chromium() {
        Some(browser) => {
            let loaded = load(&browser, &page_path, folder.path());
            assert_inert(&loaded, "Simulated prompt caching under `anthropic`");
            key_numbers(&loaded.dom)
        }
        None => {
            common::unavailable::cannot_run(NO_CHROMIUM);
            key_numbers(&page)
        }
    };
    assert_eq!(shown["turns"], report["turns"].to_string());
    assert_eq!(shown["conversations"], report["conversations"].to_string());
    let close = |key: &str, json: &serde_json::Value, within: f64| {
        let on_page: f64 = shown[key].parse().expect("a number");
        let json = json.as_f64().expect("a number");
        assert!(
            // `within` is half a unit of the page's last digit; what the
            // JSON holds may sit exactly halfway, give or take a float's error.
            (on_page - json).abs() <= within + 1e-9,
            "{key}: {on_page} on the page, {json} in the JSON"
        );
    };
    close("fair-ratio", &report["fair_ratio"], 0.005);
    for layout in layouts {
        let name = layout["name"].as_str().expect("a name");
        for field in [
            "input_tokens",
            "read_tokens",
            "written_tokens",
            "uncached_tokens",
            "output_tokens",
            "rounds",
        ] {
            assert_eq!(
                shown[&format!("{name}-{}", field.replace('_', "-"))],
                layout[field].to_string(),
                "{name} {field}"
            );
        }
        close(&format!("{name}-input-cost"), &layout["input_cost"], 0.05);
        close(
            &format!("{name}-relative-cost"),
            &layout["relative_cost"],
            0.001,
        );
        close(
            &format!("{name}-agent-shared"),
            &layout["agent_shared_from_other_conversations"],
            0.001,
        );
        let agents = layout["by_agent"].as_array().expect("per agent");
        assert!(!agents.is_empty(), "{name}");
        for (index, agent) in agents.iter().enumerate() {
            close(
                &format!("{name}-agent-{index}-shared"),
                &agent["from_other_conversations"],
                0.001,
            );
        }
    }
}
