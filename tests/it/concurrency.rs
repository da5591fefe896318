//! Many `contrib` processes publishing and yanking in one catalog at once,
//! as a busy CI does: every command that reports success is in the lock
//! afterwards, and `catalog check` finds the catalog clean. Before the
//! catalog was locked for each read-modify-write, 20 concurrent publishes
//! all exited 0 and 2 to 5 of them were recorded.

use crate::common::isolated;

use std::path::Path;
use std::process::{Child, Output, Stdio};

fn manifest(name: &str, version: &str) -> String {
    format!(
        "plugin acme/{name} {version} {{\n    owner agent-author\n\n    text {name} {{\n        placement agent\n        budget 20 tokens\n        body \"Be brief, {name} {version}.\"\n    }}\n}}\n"
    )
}

/// Starts `contrib ARGS…` in `cwd` without waiting for it.
fn start(args: &[String], cwd: &Path, cache: &Path) -> Child {
    let mut command = isolated::contrib_command();
    isolated::isolate(&mut command, cache);
    command
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("contrib starts")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("contrib finishes")
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

fn publish_args(file: &str) -> Vec<String> {
    vec![
        "publish".into(),
        file.into(),
        "--catalog".into(),
        "catalog".into(),
    ]
}

#[test]
fn concurrent_publishes_and_yanks_lose_nothing() {
    let folder = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    let dir = folder.path();
    const PUBLISHES: usize = 20;
    const YANKS: usize = 10;
    // Versions to yank, published one at a time first.
    for index in 0..YANKS {
        let file = format!("old-{index}.contrib");
        std::fs::write(dir.join(&file), manifest(&format!("old-{index}"), "1.0.0"))
            .expect("written");
        let output = finish(start(&publish_args(&file), dir, cache.path()));
        assert!(output.status.success(), "{}", text(&output));
    }
    for round in 0..3 {
        let mut children = Vec::new();
        for index in 0..PUBLISHES {
            let file = format!("new-{round}-{index}.contrib");
            std::fs::write(
                dir.join(&file),
                manifest(&format!("new-{round}-{index}"), "1.0.0"),
            )
            .expect("written");
            children.push((
                "publish",
                index,
                start(&publish_args(&file), dir, cache.path()),
            ));
            if index < YANKS {
                let mut args = vec!["yank".to_string(), format!("acme/old-{index}@1.0.0")];
                args.extend(["--catalog".into(), "catalog".into()]);
                if round % 2 == 1 {
                    args.push("--undo".into());
                }
                children.push(("yank", index, start(&args, dir, cache.path())));
            }
        }
        for (what, index, child) in children {
            let output = finish(child);
            assert!(
                output.status.success(),
                "round {round}: {what} {index}: {}",
                text(&output)
            );
        }
        let lock = std::fs::read_to_string(dir.join("catalog/catalog.lock")).expect("a lock");
        let lock: toml::Value = toml::from_str(&lock).expect("a lock");
        let published = lock["published"].as_array().expect("entries");
        assert_eq!(
            published.len(),
            YANKS + (round + 1) * PUBLISHES,
            "round {round}"
        );
        for round_published in 0..=round {
            for index in 0..PUBLISHES {
                let name = format!("acme/new-{round_published}-{index}");
                assert!(
                    published
                        .iter()
                        .any(|entry| entry["plugin"].as_str() == Some(name.as_str())),
                    "round {round}: {name} is missing"
                );
            }
        }
        let yanked_now = round % 2 == 0;
        for index in 0..YANKS {
            let name = format!("acme/old-{index}");
            let entry = published
                .iter()
                .find(|entry| entry["plugin"].as_str() == Some(name.as_str()))
                .expect("the old version");
            let yanked = entry
                .get("yanked")
                .and_then(toml::Value::as_bool)
                .unwrap_or(false);
            assert_eq!(yanked, yanked_now, "round {round}: {name}");
        }
        let check = finish(start(
            &["catalog".into(), "check".into(), "catalog".into()],
            dir,
            cache.path(),
        ));
        assert!(check.status.success(), "round {round}: {}", text(&check));
        assert!(text(&check).contains("no problems"), "{}", text(&check));
    }
}

#[test]
fn a_publish_that_must_wait_says_so_and_then_publishes() {
    let folder = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    let dir = folder.path();
    std::fs::create_dir_all(dir.join("catalog")).expect("a catalog");
    std::fs::write(dir.join("a.contrib"), manifest("a", "1.0.0")).expect("written");
    // Another process's publish, as far as this one can tell: the
    // catalog's lock, held.
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("catalog/.contrib-lock"))
        .expect("the lock file");
    held.lock().expect("locked");
    let mut child = start(&publish_args("a.contrib"), dir, cache.path());
    // It says it waits, and writes nothing while it does.
    let stderr = child.stderr.take().expect("its stderr");
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = said.send(line);
        }
    });
    let line = heard
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("a line on stderr");
    assert!(
        line.contains("waiting for another `contrib` to finish with `catalog`"),
        "{line}"
    );
    assert!(
        child.try_wait().expect("a status").is_none(),
        "did not wait"
    );
    assert!(!dir.join("catalog/catalog.lock").exists());
    held.unlock().expect("unlocked");
    let output = finish(child);
    assert!(output.status.success(), "{}", text(&output));
    assert!(dir.join("catalog/catalog.lock").exists());
}

/// Runs every command at once, each in `cwd`, and returns each output in
/// the order given.
fn all_at_once(commands: &[Vec<String>], cwd: &Path, cache: &Path) -> Vec<Output> {
    let children: Vec<Child> = commands
        .iter()
        .map(|args| start(args, cwd, cache))
        .collect();
    children.into_iter().map(finish).collect()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| arg.to_string()).collect()
}

fn install_args(plugin: &str) -> Vec<String> {
    strings(&[
        "install",
        "--catalog",
        "catalog",
        plugin,
        "--workspace",
        "ws",
        "--yes",
    ])
}

/// The plugins `ws/contrib.lock` records, with their versions.
fn installed(dir: &Path) -> Vec<(String, String)> {
    let lock = std::fs::read_to_string(dir.join("ws/contrib.lock")).expect("a lock");
    let lock: toml::Value = toml::from_str(&lock).expect("a lock");
    lock.get("installed")
        .and_then(toml::Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|entry| {
                    (
                        entry["plugin"].as_str().unwrap_or_default().to_string(),
                        entry["version"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Installs, updates and uninstalls running at once in one workspace each
/// hold the workspace's lock from reading `contrib.lock` to writing it:
/// every one that exits 0 is in the lock afterwards, and an uninstall is
/// not undone by an install that read the lock before it. Before the
/// workspace was locked, 17 or 18 of 20 parallel installs were lost.
#[test]
fn concurrent_installs_updates_and_uninstalls_lose_no_record() {
    let folder = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    let dir = folder.path();
    const INSTALLS: usize = 20;
    const UPDATES: usize = 10;
    let publish = |name: &str, version: &str| {
        let file = format!("{name}-{version}.contrib");
        std::fs::write(dir.join(&file), manifest(name, version)).expect("written");
        let output = finish(start(&publish_args(&file), dir, cache.path()));
        assert!(output.status.success(), "{}", text(&output));
    };
    for index in 0..INSTALLS {
        publish(&format!("p{index}"), "1.0.0");
    }
    for index in 0..UPDATES {
        publish(&format!("u{index}"), "1.0.0");
    }
    publish("gone", "1.0.0");
    std::fs::create_dir_all(dir.join("ws")).expect("a workspace");
    std::fs::write(
        dir.join("ws/contrib.toml"),
        "[trust]\nas = \"agent-author\"\n",
    )
    .expect("written");

    // 20 installs of different plugins at once.
    let commands: Vec<Vec<String>> = (0..INSTALLS)
        .map(|index| install_args(&format!("acme/p{index}@1.0.0")))
        .collect();
    for (index, output) in all_at_once(&commands, dir, cache.path()).iter().enumerate() {
        assert!(output.status.success(), "install {index}: {}", text(output));
    }
    let recorded = installed(dir);
    assert_eq!(recorded.len(), INSTALLS, "{recorded:?}");

    // An uninstall racing installs: it stays uninstalled, they stay installed.
    let output = finish(start(&install_args("acme/gone@1.0.0"), dir, cache.path()));
    assert!(output.status.success(), "{}", text(&output));
    let mut commands: Vec<Vec<String>> = (0..UPDATES)
        .map(|index| install_args(&format!("acme/u{index}@1.0.0")))
        .collect();
    commands.insert(
        UPDATES / 2,
        strings(&["uninstall", "acme/gone", "--workspace", "ws"]),
    );
    for output in all_at_once(&commands, dir, cache.path()) {
        assert!(output.status.success(), "{}", text(&output));
    }
    let recorded = installed(dir);
    assert!(
        !recorded.iter().any(|(plugin, _)| plugin == "acme/gone"),
        "{recorded:?}"
    );
    assert_eq!(recorded.len(), INSTALLS + UPDATES, "{recorded:?}");

    // 10 updates at once, each within its approval.
    for index in 0..UPDATES {
        publish(&format!("u{index}"), "1.1.0");
    }
    let commands: Vec<Vec<String>> = (0..UPDATES)
        .map(|index| strings(&["update", &format!("acme/u{index}"), "--workspace", "ws"]))
        .collect();
    for (index, output) in all_at_once(&commands, dir, cache.path()).iter().enumerate() {
        assert!(output.status.success(), "update {index}: {}", text(output));
    }
    let recorded = installed(dir);
    assert_eq!(recorded.len(), INSTALLS + UPDATES, "{recorded:?}");
    for index in 0..UPDATES {
        let name = format!("acme/u{index}");
        assert!(
            recorded.contains(&(name.clone(), "1.1.0".to_string())),
            "{name}: {recorded:?}"
        );
    }
    // Every entry's approved copy is there.
    let lock = std::fs::read_to_string(dir.join("ws/contrib.lock")).expect("a lock");
    let lock: toml::Value = toml::from_str(&lock).expect("a lock");
    for entry in lock["installed"].as_array().expect("entries") {
        let copy = entry["approved_copy"].as_str().expect("a copy");
        assert!(dir.join("ws").join(copy).is_file(), "{copy}");
    }
}

/// Publishes that each fit the catalog's budget but together do not are
/// judged one at a time inside the catalog's lock, by the catalog's own
/// policy: the catalog never ends over budget, however large a budget the
/// publishers' own `--config` grants. Before, 10 parallel publishes left a
/// catalog 6× over it.
#[test]
fn concurrent_publishes_never_leave_the_catalog_over_budget() {
    let folder = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    let dir = folder.path();
    const PUBLISHES: usize = 10;
    // 20-token texts; the catalog's share is 250 × 0.25 = 62 tokens: three
    // fit, a fourth does not.
    std::fs::create_dir_all(dir.join("catalog")).expect("a catalog");
    std::fs::write(
        dir.join("catalog/contrib.toml"),
        "[workspace]\ncontext_budget = 250\nsystem_prompt_share = 0.25\n",
    )
    .expect("written");
    std::fs::write(
        dir.join("big.toml"),
        "[workspace]\ncontext_budget = 1000000\n",
    )
    .expect("written");
    let commands: Vec<Vec<String>> = (0..PUBLISHES)
        .map(|index| {
            let file = format!("b{index}.contrib");
            std::fs::write(dir.join(&file), manifest(&format!("b{index}"), "1.0.0"))
                .expect("written");
            let mut args = publish_args(&file);
            args.extend(strings(&["--config", "big.toml"]));
            args
        })
        .collect();
    let outputs = all_at_once(&commands, dir, cache.path());
    let published = outputs
        .iter()
        .filter(|output| output.status.success())
        .count();
    assert_eq!(
        published,
        3,
        "{}",
        outputs.iter().map(text).collect::<String>()
    );
    for output in outputs.iter().filter(|output| !output.status.success()) {
        assert!(
            text(output).contains("catalog-over-budget"),
            "{}",
            text(output)
        );
        assert!(text(output).contains("workspace's 62"), "{}", text(output));
    }
    let lock = std::fs::read_to_string(dir.join("catalog/catalog.lock")).expect("a lock");
    let lock: toml::Value = toml::from_str(&lock).expect("a lock");
    assert_eq!(lock["published"].as_array().expect("entries").len(), 3);
    let check = finish(start(
        &strings(&["catalog", "check", "catalog"]),
        dir,
        cache.path(),
    ));
    assert!(check.status.success(), "{}", text(&check));
    assert!(text(&check).contains("no problems"), "{}", text(&check));
    // `catalog check` judges by the same policy: tightened, it reports
    // the catalog over it.
    std::fs::write(
        dir.join("catalog/contrib.toml"),
        "[workspace]\ncontext_budget = 200\nsystem_prompt_share = 0.25\n",
    )
    .expect("written");
    let check = finish(start(
        &strings(&["catalog", "check", "catalog"]),
        dir,
        cache.path(),
    ));
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    assert!(
        text(&check).contains("catalog-over-budget"),
        "{}",
        text(&check)
    );
}
