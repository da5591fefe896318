//! Many `contrib` processes publishing and yanking in one catalog at once,
//! as a busy CI does: every command that reports success is in the lock
//! afterwards, and `catalog check` finds the catalog clean. Before the
//! catalog was locked for each read-modify-write, 20 concurrent publishes
//! all exited 0 and 2 to 5 of them were recorded.

mod isolated;

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
