//! `contrib explain NAME|CODE` and `contrib rules`.

use crate::common::isolated;

/// Runs `contrib ARGS…`: exit status, stdout, stderr.
fn contrib(args: &[&str]) -> (Option<i32>, String, String) {
    let output = isolated::output(isolated::contrib_command().args(args));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn explain_by_name_prints_the_explanation() {
    let (status, stdout, stderr) = contrib(&["explain", "placement-too-wide"]);
    assert_eq!(status, Some(0), "{stderr}");
    let rule = contrib::codes::find("placement-too-wide").expect("the rule exists");
    assert!(
        stdout.starts_with("# placement-too-wide (C0101)\n"),
        "{stdout}"
    );
    assert!(stdout.contains(rule.summary), "{stdout}");
    assert!(stdout.contains("Default level: deny"), "{stdout}");
    for section in ["## What it does", "## Why is this bad?", "## Example"] {
        assert!(stdout.contains(section), "no {section}: {stdout}");
    }
    assert!(stdout.contains(rule.explanation.trim()), "{stdout}");
}

#[test]
fn explain_by_code_prints_the_same_in_any_case() {
    let (_, by_name, _) = contrib(&["explain", "placement-too-wide"]);
    for code in ["C0101", "c0101"] {
        let (status, by_code, stderr) = contrib(&["explain", code]);
        assert_eq!(status, Some(0), "{code}: {stderr}");
        assert_eq!(by_code, by_name, "{code}");
    }
}

#[test]
fn explain_names_every_rule() {
    for rule in contrib::codes::all() {
        let (status, stdout, stderr) = contrib(&["explain", rule.code]);
        assert_eq!(status, Some(0), "{}: {stderr}", rule.name);
        assert!(
            stdout.starts_with(&format!("# {} ({})\n", rule.name, rule.code)),
            "{stdout}"
        );
    }
}

#[test]
fn explain_an_unknown_rule_suggests_the_closest() {
    let (status, stdout, stderr) = contrib(&["explain", "placement-to-wide"]);
    assert_eq!(status, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        stderr.trim(),
        "error: no rule is named `placement-to-wide`; did you mean `placement-too-wide`?"
    );
}

#[test]
fn explain_an_unrelated_word_points_at_the_list() {
    let (status, _, stderr) = contrib(&["explain", "banana"]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("no rule is named `banana`"), "{stderr}");
    assert!(stderr.contains("contrib rules"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn rules_lists_every_rule_with_code_name_and_level() {
    let (status, stdout, stderr) = contrib(&["rules"]);
    assert_eq!(status, Some(0), "{stderr}");
    let rules = contrib::codes::all();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), rules.len(), "{stdout}");
    for (line, rule) in lines.iter().zip(rules) {
        let columns: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            columns[..4],
            [
                rule.code,
                rule.name,
                rule.default_level.as_str(),
                rule.kind.as_str()
            ],
            "{line}"
        );
        assert!(line.ends_with(rule.summary), "{line}");
    }
    let codes: Vec<&str> = rules.iter().map(|rule| rule.code).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted, "`contrib rules` is ordered by code");
}
