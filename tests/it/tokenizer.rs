//! The tokenizer's vocabularies load on first use only. The test needs a
//! process where nothing else has counted tokens, so it runs itself again
//! in a fresh one: this test binary, with this test alone.

use std::process::Command;

use contrib::config::Config;
use contrib::source::SourceFile;
use toktally::Encoding;

/// Set in the fresh process the test starts, where it runs for real.
const FRESH_PROCESS: &str = "CONTRIB_TEST_FRESH_PROCESS";

#[test]
fn vocabularies_load_only_when_a_budget_needs_counting() {
    const NAME: &str = "tokenizer::vocabularies_load_only_when_a_budget_needs_counting";
    if std::env::var_os(FRESH_PROCESS).is_none() {
        let output = Command::new(std::env::current_exe().expect("the test binary"))
            .args(["--exact", NAME, "--test-threads=1"])
            .env(FRESH_PROCESS, "1")
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("test result: ok. 1 passed"),
            "in a fresh process:\n{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    let config = Config::platform();
    // A budget the call's text fits by length alone: nothing to count.
    let nothing_to_measure = SourceFile::new(
        "clock.contrib",
        "plugin acme/clock 1.0.0 {\n    owner agent-author\n\n    eager-run started-at {\n        budget 50 tokens\n        call get_current_time {}\n    }\n}\n",
    );
    let analysis = contrib::analyze(&nothing_to_measure, &config);
    assert!(analysis.plugin.is_some());
    assert!(Encoding::ALL.iter().all(|encoding| !encoding.is_loaded()));

    // A body longer in bytes than its budget is counted, with the
    // workspace's tokenizer only.
    let body = "Challenge premises; do not call a design good when it is merely fine. ".repeat(3);
    let to_measure = SourceFile::new(
        "voice.contrib",
        format!("plugin acme/voice 1.0.0 {{\n    owner agent-author\n\n    text voice {{\n        placement agent\n        budget 60 tokens\n        body \"{}\"\n    }}\n}}\n", body.trim()),
    );
    let analysis = contrib::analyze(&to_measure, &config);
    assert!(analysis.plugin.is_some());
    assert_eq!(config.tokenizer.as_str(), "o200k");
    assert!(Encoding::O200k.is_loaded());
    assert!(!Encoding::Cl100k.is_loaded());
}
