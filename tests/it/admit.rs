//! Loading judges an approved bundle on the bundle itself
//! (`trust::admit`), where installing reads it back as a manifest and runs
//! the checker on it (`trust::recheck`). The two must agree: for every
//! example plugin, under the workspace as the examples have it and under
//! each way a workspace may change after approving (a tool that now
//! writes, a host no longer allowed, a tool removed or with other
//! parameters, a smaller context, another tokenizer, a skill at another
//! version, dearer schemas, a gate, a relaxation given or taken back),
//! and for the authority requested and a narrower one, both refuse for the
//! same rules, and the bundle loading runs is the one installing rebuilt.

use std::collections::BTreeSet;
use std::path::Path;

use contrib::bundle::{self, Bundle};
use contrib::config::Config;
use contrib::diagnostic::RuleKind;
use contrib::ir::Owner;
use contrib::source::SourceFile;
use contrib::trust::admit;
use contrib::trust::recheck::{recheck, Relaxations};

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

fn config(text: &str) -> Config {
    let (config, diagnostics) = Config::from_source(SourceFile::new("contrib.toml", text));
    let errors: Vec<_> = diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    config
}

/// The example plugins that build under the examples' workspace (an eager
/// load that chooses from usage is built with its usage file).
fn bundles(base: &Config) -> Vec<Bundle> {
    let mut bundles = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(examples())
        .expect("the examples")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "contrib"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("an example");
        let source = SourceFile::new(path.display().to_string(), text);
        let analysis = contrib::analyze(&source, base);
        let plugin = analysis.plugin.expect("the example lowers");
        let usages = bundle::usage::for_plugin(&path, &plugin, None).expect("its usage files");
        bundles.push(bundle::build_with_usage(&plugin, base, &[], &usages).expect("it builds"));
    }
    assert!(bundles.len() >= 10, "{} examples built", bundles.len());
    bundles
}

/// The workspace after each change a workspace may make once it approved.
fn variations(base: &str) -> Vec<(&'static str, String)> {
    let replace = |from: &str, to: &str| {
        assert!(
            base.contains(from),
            "the examples' contrib.toml has `{from}`"
        );
        base.replacen(from, to, 1)
    };
    let fetch = "[tools.fetch_url]\neffect = \"read\"";
    let search = "[tools.search_code]\neffect = \"read\"\ngated = false\negress = false\nparams = { query = \"string\" }\nschema_tokens = 140";
    vec![
        ("as approved", base.to_string()),
        ("fetch_url now writes", replace(fetch, "[tools.fetch_url]\neffect = \"write\"")),
        (
            "fetch_url writes, opted in",
            replace(fetch, "[tools.fetch_url]\neager = true\neffect = \"write\""),
        ),
        ("no host allowed", replace("allow = [\"docs.acme.dev\"]", "allow = []")),
        ("search_code removed", replace(search, "")),
        (
            "read_memory takes other parameters",
            replace("params = { store = \"string\" }", "params = { name = \"string\" }"),
        ),
        ("search_code's schema dearer", replace(search, &search.replace("140", "9000"))),
        ("a small context", replace("context_budget = 200000", "context_budget = 4000")),
        ("another tokenizer", replace("tokenizer = \"o200k\"", "tokenizer = \"cl100k\"")),
        (
            "get_current_time gated",
            replace(
                "[tools.get_current_time]\neffect = \"read\"\ngated = false",
                "[tools.get_current_time]\neffect = \"read\"\ngated = true",
            ),
        ),
        (
            "code-review at another version",
            replace("[skills.code-review]\nversion = \"2.3.0\"", "[skills.code-review]\nversion = \"9.0.0\""),
        ),
        (
            "fetch_url writes, relaxed for every plugin",
            format!(
                "{}\n[trust.tools.fetch_url]\nrelax = [\"eager-run-writes\", \"egress-not-allowed\"]\nreason = \"reviewed\"\n",
                replace(fetch, "[tools.fetch_url]\neffect = \"write\"")
            ),
        ),
    ]
}

fn errors<'a>(rules: impl Iterator<Item = &'a str>) -> BTreeSet<String> {
    rules.map(str::to_string).collect()
}

#[test]
fn loading_judges_the_bundle_as_installing_judges_its_text() {
    let base_text = std::fs::read_to_string(examples().join("contrib.toml")).expect("contrib.toml");
    let base = config(&base_text);
    let bundles = bundles(&base);
    let relaxing = config(&format!(
        "{base_text}\n[trust.tools.fetch_url]\nrelax = [\"eager-run-writes\", \"egress-not-allowed\"]\nreason = \"reviewed\"\n"
    ));
    let mut compared = 0;
    let mut refused = BTreeSet::new();
    for bundle in &bundles {
        for granted in [bundle.requested_owner, Owner::Person] {
            // What installing recorded as relaxed, under a workspace that
            // relaxed what it could.
            let at_install = recheck(bundle, &relaxing, granted, Relaxations::Configured);
            let relaxed = at_install.relaxed.clone();
            for (change, text) in variations(&base_text) {
                let config = config(&text);
                let installed = recheck(bundle, &config, granted, Relaxations::Recorded(&relaxed));
                let as_granted = admit::as_granted(bundle, granted, &config);
                let judged = admit::judge(bundle, &as_granted, &config, &relaxed);
                let by_recheck = errors(
                    installed
                        .diagnostics
                        .iter()
                        .filter(|d| d.is_error())
                        .map(|d| d.rule.name),
                );
                let by_admit = errors(judged.iter().filter(|f| f.is_error()).map(|f| f.rule.name));
                let case = format!("{} as {granted}, {change}", bundle.id());
                let language = |rules: &BTreeSet<String>| -> BTreeSet<String> {
                    rules
                        .iter()
                        .filter(|name| {
                            contrib::codes::find(name)
                                .is_some_and(|rule| rule.kind == RuleKind::Language)
                        })
                        .cloned()
                        .collect()
                };
                if language(&by_recheck).is_empty() {
                    assert_eq!(by_admit, by_recheck, "{case}: {judged:#?}");
                } else {
                    // A manifest with the language's errors is not checked
                    // further; the bundle is judged whole.
                    assert_eq!(language(&by_admit), language(&by_recheck), "{case}");
                    assert!(
                        by_admit.is_superset(&by_recheck),
                        "{case}: {by_admit:?} {by_recheck:?}"
                    );
                }
                if by_recheck.is_empty() {
                    // Loading keeps the record of what an eager load chose
                    // from usage, which a manifest read back cannot say.
                    let mut without_choices = as_granted.clone();
                    for contributor in &mut without_choices.contributors {
                        contributor.choice = None;
                    }
                    assert_eq!(without_choices, installed.approved, "{case}");
                } else {
                    refused.extend(by_recheck);
                }
                compared += 1;
            }
        }
    }
    // The variations refuse for each rule a change of workspace can raise.
    for rule in [
        "eager-run-writes",
        "egress-not-allowed",
        "unknown-tool",
        "invalid-tool-arguments",
        "over-budget",
        "system-prompt-over-budget",
        "unsatisfied-requirement",
        "permissions-mismatch",
    ] {
        assert!(
            refused.contains(rule),
            "no variation refused for `{rule}`: {refused:?}"
        );
    }
    assert!(compared > 200, "{compared}");
}
