//! Every way lowering (and the parser before it) refuses a manifest, each
//! asserted on what a person sees: the diagnostic's name and the text it
//! underlines, not byte offsets.

use crate::common::{in_plugin, in_text, lower, only, underlined};
use contrib::ir::{ContributorBody, Owner, Placement, Priority, Reach};

fn one(text: &str) -> (&'static str, String) {
    let diagnostic = only(text);
    let source = contrib::source::SourceFile::new("test.contrib", text);
    (
        diagnostic.rule.name,
        source.slice(diagnostic.span()).to_string(),
    )
}

fn pair(name: &'static str, underlined: &str) -> (&'static str, String) {
    (name, underlined.to_string())
}

// The file and the plugin header.

#[test]
fn an_empty_file_declares_no_plugin() {
    for text in ["", "\n\n", "# only a comment\n", "\u{FEFF}"] {
        let diagnostic = only(text);
        assert_eq!(diagnostic.rule.name, "syntax-error", "{text:?}");
        assert_eq!(diagnostic.message, "the file declares no plugin");
    }
}

#[test]
fn a_second_plugin_is_refused() {
    let text = "plugin acme/a 1.0.0 {\n    owner operator\n}\nplugin acme/b 1.0.0 {\n    owner operator\n}\n";
    assert_eq!(one(text), pair("syntax-error", "plugin"));
    assert_eq!(only(text).message, "a file declares one plugin");
    assert_eq!(
        only(text).labels[1].span.start,
        0,
        "points at the first plugin"
    );
}

#[test]
fn fields_and_contributors_outside_the_plugin_are_refused() {
    let field = "owner operator\nplugin acme/a 1.0.0 {\n    owner operator\n}\n";
    assert_eq!(one(field), pair("syntax-error", "owner operator"));
    let contributor = "plugin acme/a 1.0.0 {\n    owner operator\n}\ntext a {\n    placement agent\n    budget 5 tokens\n    body \"x\"\n}\n";
    assert_eq!(one(contributor), pair("syntax-error", "text"));
    assert_eq!(
        only(contributor).message,
        "the `text` contributor is outside the plugin block"
    );
}

#[test]
fn a_misspelt_plugin_keyword_is_suggested_once() {
    let text = "plugn acme/a 1.0.0 {\n    owner operator\n}\n";
    assert_eq!(one(text), pair("unknown-field", "plugn"));
    assert_eq!(only(text).help.as_deref(), Some("did you mean `plugin`?"));
}

#[test]
fn a_plugin_header_needs_a_name_and_a_version() {
    let no_version = "plugin acme/a {\n    owner operator\n}\n";
    assert_eq!(one(no_version), pair("missing-field", ""));
    assert_eq!(only(no_version).message, "the plugin has no version");
    let nothing = "plugin {\n    owner operator\n}\n";
    assert_eq!(one(nothing), pair("missing-field", "plugin"));
    let extra = "plugin acme/a 1.0.0 beta two {\n    owner operator\n}\n";
    assert_eq!(one(extra), pair("syntax-error", "beta two"));
}

#[test]
fn plugin_names_are_scope_and_name_in_kebab_case() {
    let cases = [
        (
            "acme",
            "name the publisher before the plugin, as in `acme/code-review`",
        ),
        ("Acme_Corp/x", "write it as `acme-corp/x`"),
        (
            "acme/",
            "name the publisher before the plugin, as in `acme/code-review`",
        ),
        ("acme/a/b", "write it as `acme/a-b`"),
    ];
    for (name, help) in cases {
        let text = format!("plugin {name} 1.0.0 {{\n    owner operator\n}}\n");
        assert_eq!(one(&text), pair("invalid-plugin-name", name), "{name}");
        assert_eq!(only(&text).help.as_deref(), Some(help), "{name}");
    }
}

#[test]
fn versions_are_semver_with_a_fix_for_short_ones() {
    let short = "plugin acme/a 1.4 {\n    owner operator\n}\n";
    assert_eq!(one(short), pair("invalid-version", "1.4"));
    assert_eq!(only(short).fixes[0].edits[0].replacement, "1.4.0");
    let word = "plugin acme/a latest {\n    owner operator\n}\n";
    assert_eq!(one(word), pair("invalid-version", "latest"));
    assert!(only(word).fixes.is_empty());
    let pre_release = "plugin acme/a 2.0.0-beta.1+build.5 {\n    owner operator\n}\n";
    assert_eq!(underlined(pre_release), []);
}

#[test]
fn plugin_fields() {
    assert_eq!(
        one("plugin acme/a 1.0.0 {\n    summary \"x\"\n}\n"),
        pair("missing-field", "plugin acme/a 1.0.0 {")
    );
    assert_eq!(
        one("plugin acme/a 1.0.0 {\n    owner boss\n}\n"),
        pair("invalid-value", "boss")
    );
    assert_eq!(
        one("plugin acme/a 1.0.0 {\n    owner operator\n    summary Review stance\n}\n"),
        pair("invalid-value", "Review stance")
    );
    let misplaced = only("plugin acme/a 1.0.0 {\n    owner operator\n    placement agent\n}\n");
    assert_eq!(misplaced.rule.name, "unknown-field");
    assert!(
        misplaced
            .help
            .as_deref()
            .is_some_and(|help| help.starts_with("move `placement` into the contributor")),
        "{misplaced:?}"
    );
}

#[test]
fn requires_takes_a_skill_and_a_quoted_requirement() {
    let requires = |line: &str| in_plugin(&format!("    requires {line}"));
    assert_eq!(underlined(&requires("skill code-review \"^2.1\"")), []);
    assert_eq!(underlined(&requires("skill code-review \">=1.2, <2\"")), []);
    assert_eq!(
        one(&requires("tool fetch \"^1\"")),
        pair("invalid-value", "tool")
    );
    let misspelt = only(&requires("skil code-review \"^1\""));
    assert_eq!(misspelt.help.as_deref(), Some("did you mean `skill`?"));
    let bare = requires("skill code-review ^2.1");
    assert_eq!(one(&bare), pair("invalid-version-req", "^2.1"));
    assert_eq!(only(&bare).fixes[0].edits[0].replacement, "\"^2.1\"");
    assert_eq!(
        one(&requires("skill code-review \"^^3\"")),
        pair("invalid-version-req", "\"^^3\"")
    );
    assert_eq!(one(&requires("")), pair("invalid-value", "requires"));
    assert_eq!(
        one(&requires("skill code-review")),
        pair("invalid-value", "requires skill code-review")
    );
    assert_eq!(
        one(&requires("skill Code_Review \"^1\"")),
        pair("invalid-identifier", "Code_Review")
    );
    let twice = in_plugin("    requires skill a \"^1\"\n    requires skill a \"^2\"");
    assert_eq!(
        one(&twice),
        pair("duplicate-field", "requires skill a \"^2\"")
    );
}

// Contributors: kinds, ids, common fields.

#[test]
fn contributor_kinds_are_suggested_or_listed() {
    let block =
        |kind: &str| in_plugin(&format!("    {kind} a {{\n        budget 5 tokens\n    }}"));
    let misspelt = only(&block("txt"));
    assert_eq!(misspelt.rule.name, "unknown-field");
    assert_eq!(misspelt.help.as_deref(), Some("did you mean `text`?"));
    let unknown = only(&block("widget"));
    assert!(unknown
        .help
        .as_deref()
        .is_some_and(|help| help.starts_with("the contributor kinds are")));
    assert_eq!(one(&block("plugin")), pair("syntax-error", "plugin"));
}

#[test]
fn contributor_ids() {
    let missing = in_plugin(
        "    text {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }",
    );
    assert_eq!(one(&missing), pair("missing-field", "text {"));
    let extra = in_plugin("    text a b {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }");
    assert_eq!(one(&extra), pair("syntax-error", "b"));
    let not_kebab = in_plugin("    text Voice_2 {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }");
    assert_eq!(one(&not_kebab), pair("invalid-identifier", "Voice_2"));
    let camel = in_plugin("    text BrandGuidelines {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }");
    assert_eq!(
        only(&camel).help.as_deref(),
        Some("write it as `brand-guidelines`: lowercase letters and digits joined by single `-`"),
        "the suggestion keeps word boundaries, as the importer's names do"
    );
    let twice = in_plugin(
        "    text a {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }\n    fact a {\n        says [os]\n        budget 5 tokens\n    }",
    );
    assert_eq!(one(&twice), pair("duplicate-id", "a"));
    assert_eq!(only(&twice).labels[1].message, "first named here");
}

#[test]
fn a_duplicate_contributor_still_has_its_own_errors_reported() {
    let text = in_plugin(
        "    text a {\n        placement agent\n        budget 5 tokens\n        body \"x\"\n    }\n    text a {\n        placement agnet\n        budget 5 tokens\n        body \"x\"\n    }",
    );
    assert_eq!(
        underlined(&text),
        [pair("duplicate-id", "a"), pair("invalid-value", "agnet")]
    );
}

#[test]
fn vocabulary_values_are_suggested_or_listed() {
    let misspelt = only(&in_plugin(
        "    text a {\n        placement agnet\n        budget 5 tokens\n        body \"x\"\n    }",
    ));
    assert_eq!(misspelt.message, "unknown placement `agnet`");
    assert_eq!(misspelt.fixes[0].edits[0].replacement, "agent");
    let unknown = only(&in_text("        reach sometimes\n        body \"x\""));
    assert_eq!(unknown.message, "unknown reach `sometimes`");
    assert_eq!(
        unknown.help.as_deref(),
        Some("a reach is one of `every-turn`, `with-person` and `replies`")
    );
    let text = |line: &str| in_text(&format!("        {line}\n        body \"x\""));
    assert_eq!(
        one(&text("priority agent_author")),
        pair("invalid-value", "agent_author")
    );
    assert_eq!(
        one(&text("owner person agent")),
        pair("invalid-value", "agent")
    );
    assert_eq!(
        one(&text("owner \"person\"")),
        pair("invalid-value", "\"person\"")
    );
    assert_eq!(one(&text("owner")), pair("invalid-value", "owner"));
}

#[test]
fn defaults_are_applied_and_remembered_as_defaults() {
    let text = in_plugin(
        "    eager-run now {\n        budget 40 tokens\n        call get_current_time {}\n    }\n    text voice {\n        owner person\n        placement person\n        reach with-person\n        budget 60 tokens\n        body \"x\"\n    }",
    );
    let (plugin, diagnostics) = lower(&text);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let plugin = plugin.expect("a plugin");
    let run = &plugin.contributors[0];
    assert_eq!(run.placement.value, Placement::Conversation);
    assert_eq!(run.placement.written, None);
    assert_eq!(run.owner.value, Owner::AgentAuthor);
    assert_eq!(run.priority.value, Priority::Agent);
    assert_eq!(run.reach.value, Reach::EveryTurn);
    let voice = &plugin.contributors[1];
    assert_eq!(voice.owner.value, Owner::Person);
    assert_eq!(
        voice.priority.value,
        Priority::Person,
        "the owner's highest"
    );
    assert!(voice.placement.written.is_some());
    for (kind, placement) in [
        ("system-message", Placement::Message),
        ("preface", Placement::Message),
        ("fact", Placement::Message),
    ] {
        let body = match kind {
            "system-message" => "        when date-crossed\n        body \"x\"",
            "preface" => "        source external\n        origin \"web:search\"\n        call fetch_url { url: \"https://docs.acme.dev\" }",
            _ => "        says [os]",
        };
        let text = in_plugin(&format!(
            "    {kind} a {{\n        budget 9 tokens\n{body}\n    }}"
        ));
        let (plugin, diagnostics) = lower(&text);
        assert!(diagnostics.is_empty(), "{kind}: {diagnostics:#?}");
        assert_eq!(
            plugin.expect("a plugin").contributors[0].placement.value,
            placement,
            "{kind}"
        );
    }
}

#[test]
fn text_and_eager_load_must_name_their_placement() {
    let text = in_plugin("    text a {\n        budget 5 tokens\n        body \"x\"\n    }");
    assert_eq!(one(&text), pair("missing-field", "text a {"));
    let load = in_plugin(
        "    eager-load a {\n        budget 5 tokens\n        tools [read_object]\n    }",
    );
    assert_eq!(one(&load), pair("missing-field", "eager-load a {"));
}

// Fields as written.

#[test]
fn unknown_fields_are_suggested_and_not_also_missing() {
    let misspelt = in_plugin(
        "    text a {\n        placment agent\n        budget 5 tokens\n        body \"x\"\n    }",
    );
    assert_eq!(one(&misspelt), pair("unknown-field", "placment"));
    let budget = in_plugin(
        "    text a {\n        placement agent\n        budgte 5 tokens\n        body \"x\"\n    }",
    );
    assert_eq!(one(&budget), pair("unknown-field", "budgte"));
    let elsewhere = only(&in_text("        says [os]\n        body \"x\""));
    assert_eq!(elsewhere.rule.name, "field-not-for-kind");
    assert_eq!(
        elsewhere.help.as_deref(),
        Some("`says` belongs to `fact` contributors; the fields of a `text` are `owner`, `placement`, `priority`, `reach`, `applies`, `budget` and `body`")
    );
    let unrelated = only(&in_text("        colour blue\n        body \"x\""));
    assert!(unrelated
        .help
        .as_deref()
        .is_some_and(|help| help.starts_with("the fields here are")));
}

#[test]
fn a_field_with_a_colon_is_one_syntax_error() {
    let text = in_plugin("    text a {\n        placement: agent\n        budget 5 tokens\n        body \"x\"\n    }");
    assert_eq!(one(&text), pair("syntax-error", ":"));
    assert_eq!(only(&text).fixes[0].edits[0].replacement, "");
    let plugin_owner = "plugin acme/a 1.0.0 {\n    owner: operator\n}\n";
    assert_eq!(one(plugin_owner), pair("syntax-error", ":"));
}

#[test]
fn a_field_given_twice() {
    let text = in_text("        body \"x\"\n        body \"y\"");
    assert_eq!(one(&text), pair("duplicate-field", "body"));
    assert_eq!(only(&text).labels[1].message, "first given here");
}

#[test]
fn nested_blocks_are_refused() {
    let nested =
        in_text("        body \"x\"\n        text inner {\n            body \"x\"\n        }");
    assert_eq!(one(&nested), pair("syntax-error", "text"));
    let plugin = in_plugin("    plugin acme/b 1.0.0 {\n        owner operator\n    }");
    assert_eq!(one(&plugin), pair("syntax-error", "plugin"));
    assert_eq!(only(&plugin).message, "plugins cannot be nested");
}

#[test]
fn a_field_written_as_a_block_is_one_error() {
    let budget = in_plugin(
        "    text a {\n        placement agent\n        budget { 5 }\n        body \"x\"\n    }",
    );
    assert_eq!(one(&budget), pair("syntax-error", "{"));
    assert_eq!(only(&budget).message, "`budget` takes a value, not a block");
    let owner = in_text("        owner {\n        }\n        body \"x\"");
    assert_eq!(one(&owner), pair("syntax-error", "{"));
    assert_eq!(only(&owner).message, "`owner` takes a value, not a block");
}

// Budgets.

#[test]
fn budgets_are_a_whole_number_of_tokens() {
    let budget = |value: &str| {
        in_plugin(&format!(
            "    text a {{\n        placement agent\n        budget {value}\n        body \"x\"\n    }}"
        ))
    };
    assert_eq!(underlined(&budget("1 tokens")), []);
    assert_eq!(underlined(&budget("4294967295 tokens")), []);
    let no_unit = budget("120");
    assert_eq!(one(&no_unit), pair("invalid-value", "120"));
    assert_eq!(only(&no_unit).fixes[0].edits[0].replacement, " tokens");
    let singular = only(&budget("120 token"));
    assert_eq!(singular.help.as_deref(), Some("did you mean `tokens`?"));
    assert_eq!(one(&budget("120 words")), pair("invalid-value", "words"));
    assert_eq!(one(&budget("0 tokens")), pair("invalid-value", "0"));
    assert_eq!(one(&budget("ten tokens")), pair("invalid-value", "ten"));
    assert_eq!(one(&budget("-5 tokens")), pair("invalid-value", "-5"));
    assert_eq!(one(&budget("1.5 tokens")), pair("invalid-value", "1.5"));
    let huge = only(&budget("4294967296 tokens"));
    assert_eq!(
        huge.message,
        "a budget of 4294967296 tokens is larger than any context window"
    );
    assert_eq!(
        one(&budget("120 tokens per turn")),
        pair("invalid-value", "per turn")
    );
    assert_eq!(
        one(&budget("\"120 tokens\"")),
        pair("invalid-value", "\"120 tokens\"")
    );
    assert_eq!(one(&budget("")), pair("invalid-value", "budget"));
}

#[test]
fn every_contributor_declares_a_budget() {
    let text = in_plugin("    fact env {\n        says [os]\n    }");
    assert_eq!(one(&text), pair("missing-budget", "fact env {"));
    assert_eq!(
        only(&text).message,
        "the `fact` contributor `env` declares no budget"
    );
}

// Each kind's own fields.

#[test]
fn text_needs_a_quoted_body() {
    let missing =
        in_plugin("    text a {\n        placement agent\n        budget 5 tokens\n    }");
    assert_eq!(one(&missing), pair("missing-field", "text a {"));
    let bare = in_plugin("    text a {\n        placement agent\n        budget 5 tokens\n        body Be brief, always.\n    }");
    assert_eq!(one(&bare), pair("invalid-value", "Be brief, always."));
    assert_eq!(
        only(&bare).message,
        "`body` takes a string, but this text is not quoted"
    );
    // Quoting would lose the string already there: help, but no fix.
    let mixed = in_plugin(
        "    text a {\n        placement agent\n        budget 5 tokens\n        body Be \"brief\"\n    }",
    );
    assert_eq!(one(&mixed), pair("invalid-value", "Be \"brief\""));
    assert!(only(&mixed).fixes.is_empty());
    assert_eq!(
        only(&bare).fixes[0].edits[0].replacement,
        "\"Be brief, always.\""
    );
    let two = in_plugin("    text a {\n        placement agent\n        budget 5 tokens\n        body \"a\" \"b\"\n    }");
    assert_eq!(one(&two), pair("invalid-value", "\"b\""));
}

#[test]
fn eager_loads_load_tools_or_skill_operations() {
    let load = |fields: &str| {
        format!(
            "plugin acme/test 1.0.0 {{\n    owner agent-author\n    requires skill code-review \"^2\"\n    eager-load ops {{\n        placement agent\n        budget 900 tokens\n{fields}\n    }}\n}}\n"
        )
    };
    assert_eq!(
        underlined(&load("        tools [read_object, search_code,]")),
        []
    );
    assert_eq!(
        underlined(&load(
            "        tools [\n            read_object,\n            search_code\n        ]"
        )),
        []
    );
    assert_eq!(underlined(&load("        skill code-review")), []);
    assert_eq!(
        underlined(&load(
            "        skill code-review operations [diff, annotate]"
        )),
        []
    );
    assert_eq!(one(&load("")), pair("missing-field", "eager-load ops {"));
    assert_eq!(
        one(&load("        tools [read_object search_code]")),
        pair("syntax-error", "search_code")
    );
    assert_eq!(
        one(&load("        tools [read_object,, search_code]")),
        pair("syntax-error", ",")
    );
    assert_eq!(
        one(&load("        tools [\"read_object\"]")),
        pair("invalid-value", "\"read_object\"")
    );
    assert_eq!(one(&load("        tools")), pair("invalid-value", "tools"));
    assert_eq!(one(&load("        tools []")), pair("invalid-value", "[]"));
    assert_eq!(
        underlined(&load("        tools [Read_Object, 9lives]")),
        [
            pair("invalid-identifier", "Read_Object"),
            pair("invalid-identifier", "9lives")
        ]
    );
    let ops = only(&load("        skill code-review operatons [diff]"));
    assert_eq!(ops.help.as_deref(), Some("did you mean `operations`?"));
    assert_eq!(
        one(&load("        skill code-review \"diff\"")),
        pair("invalid-value", "\"diff\"")
    );
    assert_eq!(
        one(&load("        skill code-review operations")),
        pair("invalid-value", "skill")
    );
    assert_eq!(one(&load("        skill")), pair("invalid-value", "skill"));
    assert_eq!(
        one(&load("        skill code-review operations [Diff]")),
        pair("invalid-identifier", "Diff")
    );
    let misspelt_skill = load("        skil code-review operations [diff]");
    assert_eq!(one(&misspelt_skill), pair("unknown-field", "skil"));
}

/// A list of the language's first version, written without brackets: one
/// error for the whole list, with the bracketed list as a safe fix, not an
/// unknown field per word.
#[test]
fn a_list_without_brackets_is_one_error_with_a_fix() {
    let text = in_plugin(
        "    eager-load ops {\n        placement agent\n        budget 900 tokens\n        tools read_object, search_code, fetch_url\n    }",
    );
    let diagnostic = only(&text);
    assert_eq!(
        one(&text),
        pair("unbracketed-list", "read_object, search_code, fetch_url")
    );
    assert_eq!(
        diagnostic.fixes[0].edits[0].replacement,
        "[read_object, search_code, fetch_url]"
    );
    let fact = in_plugin("    fact env {\n        budget 9 tokens\n        says os\n    }");
    assert_eq!(one(&fact), pair("unbracketed-list", "os"));
    // Words on the next line are not part of it.
    let two_lines = in_plugin(
        "    fact env {\n        budget 9 tokens\n        says [os],\n        arch\n    }",
    );
    assert_eq!(one(&two_lines), pair("unknown-field", "arch"));
}

#[test]
fn eager_runs_and_prefaces_make_one_call_in_braces() {
    let run = |fields: &str| {
        in_plugin(&format!(
            "    eager-run now {{\n        budget 40 tokens\n{fields}\n    }}"
        ))
    };
    assert_eq!(one(&run("")), pair("missing-field", "eager-run now {"));
    let no_braces = run("        call get_current_time");
    assert_eq!(one(&no_braces), pair("syntax-error", ""));
    assert_eq!(only(&no_braces).fixes[0].edits[0].replacement, " {}");
    assert_eq!(one(&run("        call {}")), pair("missing-field", "call"));
    assert_eq!(one(&run("        call a b {}")), pair("syntax-error", "b"));
    assert_eq!(
        one(&run("        call Get_Time {}")),
        pair("invalid-identifier", "Get_Time")
    );
    let twice = run("        call get_current_time {}\n        call get_current_time {}");
    assert_eq!(one(&twice), pair("duplicate-field", "call"));
    let preface = |fields: &str| {
        in_plugin(&format!(
            "    preface notes {{\n        budget 400 tokens\n{fields}\n    }}"
        ))
    };
    let complete = "        source user-authored\n        origin \"memory:notes\"\n        call read_memory { store: \"notes\" }";
    assert_eq!(underlined(&preface(complete)), []);
    assert_eq!(
        underlined(&preface(
            "        origin \"memory:notes\"\n        call read_memory { store: \"notes\" }"
        )),
        [pair("missing-field", "preface notes {")]
    );
    assert_eq!(
        one(&preface(&complete.replace("user-authored", "user"))),
        pair("invalid-value", "user")
    );
    assert_eq!(
        one(&preface(
            &complete.replace("\"memory:notes\"", "memory:notes")
        )),
        pair("syntax-error", ":")
    );
    assert_eq!(
        one(&preface(&complete.replace(
            "        call read_memory { store: \"notes\" }",
            ""
        ))),
        pair("missing-field", "preface notes {")
    );
}

#[test]
fn call_arguments_are_name_value_pairs() {
    let call = |arguments: &str| {
        in_plugin(&format!(
            "    eager-run fetch {{\n        budget 400 tokens\n        call load_tools {arguments}\n    }}"
        ))
    };
    let (plugin, diagnostics) = lower(&call(
        "{ names: [\"a\", \"b\", 3, true, [1, 2]], limit: -5, strict: false }",
    ));
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let plugin = plugin.expect("a plugin");
    let Some(run) = plugin.contributors[0].call() else {
        panic!("no call")
    };
    let names: Vec<&str> = run.arguments.keys().map(String::as_str).collect();
    assert_eq!(names, ["names", "limit", "strict"]);
    assert_eq!(run.arguments["limit"].value.value.type_name(), "integer");
    assert_eq!(run.arguments["strict"].value.value.type_name(), "boolean");
    assert_eq!(run.arguments["names"].value.value.type_name(), "list");
    assert_eq!(
        underlined(&call(
            "{\n            names: [\"a\"]\n            limit: 2\n        }"
        )),
        []
    );
    assert_eq!(
        underlined(&call(
            "{ names: [\n            \"a\",\n            \"b\",\n        ] }"
        )),
        []
    );
    let bare = call("{ store: notes }");
    assert_eq!(one(&bare), pair("invalid-value", "notes"));
    assert_eq!(only(&bare).fixes[0].edits[0].replacement, "\"notes\"");
    assert_eq!(one(&call("{ names: [a] }")), pair("invalid-value", "a"));
    assert_eq!(
        one(&call("{ url \"x\" }")),
        pair("syntax-error", "url \"x\"")
    );
    assert_eq!(one(&call("{ a: 1, a: 2 }")), pair("duplicate-field", "a"));
    assert_eq!(
        one(&call("{ nested { a: 1 } }")),
        pair("syntax-error", "nested { a: 1 }")
    );
    assert_eq!(
        one(&call("{ a: \"C:\\dir\" }")),
        pair("invalid-escape", "\\d")
    );
}

#[test]
fn system_messages_fire_on_a_condition() {
    let message = |condition: &str| {
        format!(
            "plugin acme/test 1.0.0 {{\n    owner agent-author\n    requires skill code-review \"^2\"\n    system-message note {{\n        {condition}\n        budget 40 tokens\n        body \"Time has moved on.\"\n    }}\n}}\n"
        )
    };
    for condition in [
        "idle > 30m",
        "idle > 1h30m",
        "idle > 2d",
        "date-crossed",
        "skill-updated code-review",
        "model-changed",
        "tools-changed",
        "permissions-changed",
    ] {
        assert_eq!(
            underlined(&message(&format!("when {condition}"))),
            [],
            "{condition}"
        );
    }
    assert_eq!(
        one(&message("")),
        pair("missing-field", "system-message note {")
    );
    assert_eq!(one(&message("when")), pair("invalid-value", "when"));
    assert_eq!(
        one(&message("when \"idle > 4h\"")),
        pair("invalid-value", "\"idle > 4h\"")
    );
    assert_eq!(
        one(&message("when idel > 4h")),
        pair("invalid-value", "idel")
    );
    assert_eq!(
        only(&message("when idel > 4h")).help.as_deref(),
        Some("did you mean `idle`?")
    );
    assert_eq!(one(&message("when idle")), pair("invalid-value", ""));
    assert_eq!(one(&message("when idle 4h")), pair("invalid-value", "4h"));
    let at_least = only(&message("when idle >= 4h"));
    assert_eq!(at_least.fixes[0].edits[0].replacement, ">");
    assert_eq!(
        one(&message("when idle < 4h")),
        pair("invalid-value", "< 4h")
    );
    assert_eq!(
        one(&message("when idle > 4x")),
        pair("invalid-duration", "4x")
    );
    assert_eq!(
        one(&message("when idle > 4")),
        pair("invalid-duration", "4")
    );
    assert_eq!(
        one(&message("when idle > h")),
        pair("invalid-duration", "h")
    );
    assert_eq!(
        one(&message("when idle > 0m")),
        pair("invalid-duration", "0m")
    );
    assert_eq!(
        only(&message("when idle > 0m")).message,
        "the duration `0m` is zero"
    );
    assert_eq!(
        one(&message("when skill-updated")),
        pair("invalid-value", "")
    );
    assert_eq!(
        one(&message("when skill-updated a b")),
        pair("invalid-value", "a b")
    );
    assert_eq!(
        one(&message("when skill-updated Review")),
        pair("invalid-identifier", "Review")
    );
    assert_eq!(
        one(&message("when date-crossed today")),
        pair("invalid-value", "today")
    );
}

#[test]
fn facts_say_known_sections() {
    let fact = |says: &str| {
        in_plugin(&format!(
            "    fact env {{\n        budget 60 tokens\n        {says}\n    }}"
        ))
    };
    assert_eq!(
        underlined(&fact(
            "says [date, os, arch, workspace-root, skills, model, effort, tools, permissions]"
        )),
        []
    );
    assert_eq!(one(&fact("")), pair("missing-field", "fact env {"));
    assert_eq!(
        one(&fact("says [date, weather]")),
        pair("invalid-value", "weather")
    );
    assert_eq!(
        only(&fact("says [oss]")).help.as_deref(),
        Some("did you mean `os`?")
    );
    assert_eq!(one(&fact("says [, date]")), pair("syntax-error", ","));
    assert_eq!(one(&fact("says [date os]")), pair("syntax-error", "os"));
    assert_eq!(
        one(&fact("says [date] [os]")),
        pair("invalid-value", "[os]")
    );
}

// Templates.

#[test]
fn bodies_name_known_variables() {
    let body = |text: &str| in_text(&format!("        body \"{text}\""));
    let every = in_plugin("    text voice {\n        placement message\n        budget 400 tokens\n        body \"{agent.name} {person.name} {person.locale} {person.timezone} {conversation.started-at} {model.name} {now} {date} {weekday}\"\n    }");
    assert_eq!(underlined(&every), []);
    assert_eq!(underlined(&body("{agent.name}")), []);
    let misspelt = body("Call me {person.nmae}.");
    assert_eq!(one(&misspelt), pair("unknown-variable", "{person.nmae}"));
    assert_eq!(
        only(&misspelt).fixes[0].edits[0].replacement,
        "{person.name}"
    );
    let unknown = only(&body("{weather}"));
    assert!(unknown
        .help
        .as_deref()
        .is_some_and(|help| help.starts_with("the variables are `{agent.name}`")));
    assert_eq!(one(&body("a {} b")), pair("invalid-template", "{}"));
    assert_eq!(
        one(&body("{ ok: true }")),
        pair("invalid-template", "{ ok: true }")
    );
    assert_eq!(one(&body("{Person}")), pair("invalid-template", "{Person}"));
    assert_eq!(one(&body("use {braces")), pair("invalid-template", "{"));
    assert_eq!(one(&body("a {b {now}")), pair("invalid-template", "{"));
    assert_eq!(one(&body("a } b")), pair("invalid-template", "}"));
    assert_eq!(only(&body("a } b")).fixes[0].edits[0].replacement, "}}");
    assert_eq!(underlined(&body("literal {{braces}} and {{now}}")), []);
}

#[test]
fn a_variable_is_underlined_where_it_was_written_after_escapes() {
    let text = in_text("        body \"tab\\there \\u{e9}\\u{e9} \\\"q\\\" {nw}\"");
    assert_eq!(one(&text), pair("unknown-variable", "{nw}"));
    let block = in_text("        body \"\"\"\n            line one\n              indented {nw}\n            \"\"\"");
    assert_eq!(one(&block), pair("unknown-variable", "{nw}"));
    let accents = in_text("        body \"héllo wörld {nw}\"");
    assert_eq!(one(&accents), pair("unknown-variable", "{nw}"));
}

// Strings.

#[test]
fn unterminated_strings_are_one_error() {
    let single = in_text("        body \"Answer tersely.");
    assert_eq!(one(&single), pair("unterminated-string", "\""));
    let backslash = in_text("        body \"C:\\");
    assert_eq!(one(&backslash), pair("unterminated-string", "\""));
    let block = "plugin acme/a 1.0.0 {\n    owner operator\n    text a {\n        placement agent\n        budget 5 tokens\n        body \"\"\"\n            never closed {\n    }\n}\n";
    assert_eq!(one(block), pair("unterminated-string", "\"\"\""));
    let summary = "plugin acme/a 1.0.0 {\n    owner operator\n    summary \"x\n}\n";
    assert_eq!(one(summary), pair("unterminated-string", "\""));
}

#[test]
fn every_bad_escape_is_reported() {
    let text = in_text("        body \"C:\\path \\u{D800} \\u{} \\u{110000} \\u12 ok\"");
    assert_eq!(
        underlined(&text),
        [
            pair("invalid-escape", "\\p"),
            pair("invalid-escape", "\\u{D800}"),
            pair("invalid-escape", "\\u{}"),
            pair("invalid-escape", "\\u{110000}"),
            pair("invalid-escape", "\\u"),
        ]
    );
    let block =
        in_text("        body \"\"\"\n            first\n            \\d here\n            \"\"\"");
    assert_eq!(one(&block), pair("invalid-escape", "\\d"));
}

// Unclosed blocks and syntax errors.

#[test]
fn unclosed_blocks_point_at_their_brace() {
    let plugin = "plugin acme/a 1.0.0 {\n    owner operator\n";
    assert_eq!(one(plugin), pair("syntax-error", "{"));
    assert_eq!(only(plugin).message, "unclosed `plugin` block");
    // The braces would take the last `}` as the contributor's and leave the
    // plugin open; the layout says the `}` is the plugin's, so the
    // contributor is the one left open, and its brace is underlined.
    let contributor = "plugin acme/a 1.0.0 {\n    owner operator\n    fact env {\n        says [os]\n        budget 9 tokens\n}\n";
    assert_eq!(only(contributor).message, "unclosed `fact` block");
    assert_eq!(one(contributor), pair("syntax-error", "{"));
    assert_eq!(
        only(contributor).span().start,
        contributor.find("env {").unwrap() + 4
    );
}

#[test]
fn syntax_errors_say_what_was_expected() {
    let cases = [
        // A `}` at the top level closes nothing.
        ("plugin acme/a 1.0.0 {\n    owner operator\n}\n}\n", "}", "unexpected `}`"),
        // A `]` outside a list.
        ("plugin acme/a 1.0.0 {\n    owner operator ]\n}\n", "]", "unexpected `]`"),
        // The `{` of a block on its own line.
        ("plugin acme/a 1.0.0\n{\n    owner operator\n}\n", "{", "expected a name or the end of the file, found `{`"),
        // A list without its `]`.
        (&*in_plugin("    eager-run a {\n        budget 5 tokens\n        call t { names: [\"a\" }\n    }"), "}", "expected `,` or `]`, found `}`"),
        // A call argument without a value.
        (&*in_plugin("    eager-run a {\n        budget 5 tokens\n        call t { url: }\n    }"), "}", "expected a value, found `}`"),
        // Two values for one argument.
        (&*in_plugin("    eager-run a {\n        budget 5 tokens\n        call t { url: \"x\" \"y\" }\n    }"), "\"", "expected `,` or a line break, found a string"),
        // An operator where a field starts.
        ("plugin acme/a 1.0.0 {\n    owner operator\n    > 4h\n}\n", ">", "expected a name or `}`, found `>`"),
    ];
    for (text, underlined_text, message) in cases {
        let diagnostic = only(text);
        let source = contrib::source::SourceFile::new("test.contrib", text);
        assert_eq!(diagnostic.rule.name, "syntax-error", "{text}");
        assert_eq!(source.slice(diagnostic.span()), underlined_text, "{text}");
        assert_eq!(diagnostic.message, message, "{text}");
    }
}

#[test]
fn a_field_ends_at_a_comma_a_line_break_or_a_closing_brace() {
    let text = "plugin acme/a 1.0.0 { owner operator }\n";
    assert_eq!(underlined(text), []);
    // Commas separate items everywhere: fields, call arguments, list items.
    let commas = "plugin acme/a 1.0.0 { owner operator, summary \"x\" }\n";
    assert_eq!(underlined(commas), []);
    let (plugin, _) = lower(commas);
    assert_eq!(
        plugin
            .expect("a plugin")
            .summary
            .map(|summary| summary.value),
        Some("x".to_string())
    );
}

/// The one-line block that used to give three errors, two of them false,
/// and a fix that deleted the budget and the body.
#[test]
fn a_one_line_contributor_with_several_fields_reads_as_written() {
    let text = in_plugin("    text t { placement agent, budget 5 tokens, body \"hi\" }");
    assert_eq!(underlined(&text), []);
    let (plugin, _) = lower(&text);
    let plugin = plugin.expect("a plugin");
    let contributor = &plugin.contributors[0];
    assert_eq!(contributor.placement.value, Placement::Agent);
    assert_eq!(contributor.budget.value, 5);
    // A mistake in one field is one error, about that field alone.
    let typo = in_plugin("    text t { placement agnet, budget 5 tokens, body \"hi\" }");
    assert_eq!(one(&typo), pair("invalid-value", "agnet"));
    assert_eq!(only(&typo).fixes[0].edits[0].replacement, "agent");
}

#[test]
fn comments_go_anywhere_a_line_ends() {
    let text = "# header\nplugin acme/a 1.0.0 { # the plugin\n    owner operator # who\n    # between\n    fact env { # sections\n        says [os, # one\n            arch] # two\n        budget 9 tokens }\n} # end\n";
    assert_eq!(underlined(text), []);
    let (plugin, _) = lower(text);
    let plugin = plugin.expect("a plugin");
    let ContributorBody::Fact { says, .. } = &plugin.contributors[0].body else {
        panic!("not a fact")
    };
    assert_eq!(says.len(), 2);
}

// Limits.

#[test]
fn nesting_beyond_the_limit_is_refused_at_the_bracket_too_many() {
    let depth = contrib::limits::MAX_NESTING;
    // The plugin, the contributor and the call take three levels.
    let fits = "[".repeat(depth - 3) + &"]".repeat(depth - 3);
    let call = |list: &str| {
        in_plugin(&format!(
            "    eager-run a {{\n        budget 5 tokens\n        call t {{ a: {list} }}\n    }}"
        ))
    };
    assert_eq!(underlined(&call(&fits)), []);
    let over = "[".repeat(depth - 2) + &"]".repeat(depth - 2);
    assert_eq!(one(&call(&over)), pair("limit-exceeded", "["));
    let hidden = in_plugin(&format!("    summary \"a\\\n    x {}", "[".repeat(100_000)));
    assert!(underlined(&hidden)
        .iter()
        .any(|(name, _)| *name == "limit-exceeded"));
}

#[test]
fn too_many_contributors_are_refused() {
    let count = contrib::limits::MAX_CONTRIBUTORS + 1;
    let contributors: String = (0..count)
        .map(|i| format!("    fact f{i} {{\n        says [os]\n        budget 9 tokens\n    }}\n"))
        .collect();
    let diagnostics = underlined(&in_plugin(&contributors));
    assert_eq!(diagnostics, [pair("limit-exceeded", "fact")]);
}

#[test]
fn too_many_variables_in_one_body_are_refused() {
    let body = "{now} ".repeat(contrib::limits::MAX_TEMPLATE_VARIABLES + 1);
    assert_eq!(
        one(&in_text(&format!("        body \"{body}\""))),
        pair("limit-exceeded", "{now}")
    );
}

#[test]
fn a_string_over_the_limit_is_refused() {
    let body = "a".repeat(contrib::limits::MAX_STRING_BYTES + 1);
    let (name, underlined_text) = one(&in_text(&format!("        body \"{body}\"")));
    assert_eq!(name, "limit-exceeded");
    assert_eq!(underlined_text.len(), body.len() + 2, "the whole literal");
}

// The table of kinds: settings a kind has, placements, reaches, activation,
// authority.

#[test]
fn text_without_quotes_and_with_a_comma_is_one_error() {
    let text = in_plugin("    text t { placement agent, budget 5 tokens, body Be brief, always. }");
    assert_eq!(one(&text), pair("invalid-value", "Be brief, always."));
    assert_eq!(
        only(&text).fixes[0].edits[0].replacement,
        "\"Be brief, always.\""
    );
}

#[test]
fn a_setting_a_kind_does_not_have_is_an_error_with_a_fix() {
    let run = |field: &str| {
        in_plugin(&format!(
            "    eager-run now {{\n{field}\n        budget 40 tokens\n        call get_current_time {{}}\n    }}"
        ))
    };
    assert_eq!(
        one(&run("        reach replies")),
        pair("field-not-for-kind", "reach")
    );
    assert_eq!(
        one(&run("        priority agent")),
        pair("field-not-for-kind", "priority")
    );
    assert_eq!(
        one(&run("        placement agent")),
        pair("placement-not-for-kind", "placement")
    );
    // The fix removes the whole line.
    let fixed = contrib::fix::apply(
        &run("        reach replies"),
        &[only(&run("        reach replies"))],
        false,
    )
    .0;
    assert_eq!(underlined(&fixed), []);
    assert!(!fixed.contains("reach"), "{fixed}");
    // A field of another kind says whose it is, and has no fix.
    let body = only(&run("        body \"x\""));
    assert_eq!(body.rule.name, "field-not-for-kind");
    assert!(body.fixes.is_empty());
    let fact = in_plugin("    fact env {\n        applies on command deploy\n        budget 9 tokens\n        says [os]\n    }");
    assert_eq!(one(&fact), pair("field-not-for-kind", "applies"));
}

#[test]
fn eager_loads_go_before_the_first_turn_at_platform_or_agent() {
    let load = |placement: &str| {
        in_plugin(&format!(
            "    eager-load tools {{\n        placement {placement}\n        budget 400 tokens\n        tools [read_object]\n    }}"
        ))
    };
    assert_eq!(underlined(&load("agent")), []);
    for narrower in ["person", "conversation", "message"] {
        let diagnostic = only(&load(narrower));
        assert_eq!(diagnostic.rule.name, "placement-not-for-kind", "{narrower}");
        assert_eq!(diagnostic.fixes[0].edits[0].replacement, "agent");
    }
}

#[test]
fn reach_on_kept_text_is_decided_when_it_is_composed() {
    let text = |placement: &str, reach: &str| {
        in_plugin(&format!(
            "    text t {{\n        placement {placement}\n        reach {reach}\n        budget 9 tokens\n        body \"x\"\n    }}"
        ))
    };
    for placement in ["agent", "person", "conversation"] {
        assert_eq!(
            underlined(&text(placement, "with-person")),
            [],
            "{placement}"
        );
        assert_eq!(
            one(&text(placement, "replies")),
            pair("reach-not-for-placement", "replies"),
            "{placement}"
        );
    }
    assert_eq!(underlined(&text("message", "replies")), []);
    let system_message = in_plugin("    system-message hi {\n        reach replies\n        when date-crossed\n        budget 9 tokens\n        body \"x\"\n    }");
    assert_eq!(underlined(&system_message), []);
}

#[test]
fn activation_is_written_apart_from_placement() {
    let text = |applies: &str| {
        format!(
            "plugin acme/test 1.0.0 {{\n    owner agent-author\n    requires skill code-review \"^2\"\n    text t {{\n        placement agent\n        applies {applies}\n        budget 40 tokens\n        body \"x\"\n    }}\n}}\n"
        )
    };
    for good in [
        "always",
        "on command deploy",
        "on skill code-review",
        "on subagent reviewer",
        "to files [\"src/**/*.ts\", \"*.tsx\"]",
        "on request \"Conventions for database migrations\"",
    ] {
        assert_eq!(underlined(&text(good)), [], "{good}");
    }
    let (plugin, _) = lower(&text("to files [\"*.rs\"]"));
    let contributor = &plugin.expect("a plugin").contributors[0];
    assert!(matches!(
        &contributor.activation.value,
        contrib::ir::Activation::Files(globs) if globs[0].value == "*.rs"
    ));
    assert_eq!(
        contributor.delivery(),
        contrib::ir::Delivery::StoredNote,
        "a conditional text joins the conversation when it applies"
    );
    assert_eq!(
        one(&text("on comand deploy")),
        pair("invalid-value", "comand")
    );
    assert_eq!(
        only(&text("on comand deploy")).fixes[0].edits[0].replacement,
        "command"
    );
    assert_eq!(
        one(&text("command deploy")),
        pair("invalid-value", "command")
    );
    assert_eq!(
        one(&text("on files [\"*.rs\"]")),
        pair("invalid-value", "on")
    );
    assert_eq!(
        only(&text("on files [\"*.rs\"]")).fixes[0].edits[0].replacement,
        "to"
    );
    assert_eq!(
        one(&text("to files \"*.rs\"")),
        pair("invalid-value", "\"*.rs\"")
    );
    assert_eq!(
        one(&text("to files [\"/etc/*\"]")),
        pair("invalid-value", "\"/etc/*\"")
    );
    assert_eq!(
        one(&text("to files [\"src/[a\"]")),
        pair("invalid-value", "\"src/[a\"")
    );
    assert_eq!(one(&text("to files []")), pair("invalid-value", "[]"));
    assert_eq!(
        one(&text("on command Deploy")),
        pair("invalid-identifier", "Deploy")
    );
    assert_eq!(
        one(&text("on request \"  \"")),
        pair("invalid-value", "\"  \"")
    );
    assert_eq!(one(&text("on request")), pair("invalid-value", "applies"));
    assert_eq!(one(&text("sometimes")), pair("invalid-value", "sometimes"));
    // A skill it waits for is a skill the plugin must require.
    let unrequired = in_plugin(
        "    text t {\n        placement agent\n        applies on skill search\n        budget 40 tokens\n        body \"x\"\n    }",
    );
    assert_eq!(one(&unrequired), pair("missing-requirement", "search"));
}

#[test]
fn a_text_asked_for_by_description_needs_a_kept_placement() {
    let text = |placement: &str| {
        in_plugin(&format!(
            "    text t {{\n        placement {placement}\n        applies on request \"Migrations\"\n        budget 40 tokens\n        body \"x\"\n    }}"
        ))
    };
    for kept in ["agent", "person"] {
        assert_eq!(underlined(&text(kept)), [], "{kept}");
    }
    for narrower in ["conversation", "message"] {
        assert_eq!(
            one(&text(narrower)),
            pair("activation-not-for-placement", "on request \"Migrations\""),
            "{narrower}"
        );
    }
}

#[test]
fn authority_only_narrows_from_the_plugin() {
    let plugin = |owner: &str, contributor: &str| {
        format!("plugin acme/test 1.0.0 {{\n    owner {owner}\n{contributor}\n}}\n")
    };
    let text = |owner: &str, placement: &str, priority: &str| {
        format!(
            "    text t {{\n        owner {owner}\n        placement {placement}\n        priority {priority}\n        budget 40 tokens\n        body \"x\"\n    }}"
        )
    };
    // Narrowing is fine: an operator's plugin may hold a person's voice.
    assert_eq!(
        underlined(&plugin("operator", &text("person", "person", "person"))),
        []
    );
    // Widening is not, whatever the contributor claims after it.
    let widened = plugin("person", &text("operator", "platform", "platform"));
    assert_eq!(
        underlined(&widened),
        [pair("owner-wider-than-plugin", "operator")]
    );
    assert_eq!(
        only(&widened).fixes[0].applicability,
        contrib::diagnostic::Applicability::Unsafe
    );
    // The owner bounds placement and priority.
    assert_eq!(
        one(&plugin(
            "workspace",
            &text("workspace", "platform", "workspace")
        )),
        pair("owner-cannot-place", "platform")
    );
    assert_eq!(
        one(&plugin("workspace", &text("workspace", "agent", "agent"))),
        pair("priority-above-owner", "agent")
    );
    // `agent-author` outranks `workspace`: a workspace plugin cannot hold
    // an agent author's text.
    assert_eq!(
        one(&plugin(
            "workspace",
            &text("agent-author", "agent", "agent")
        )),
        pair("owner-wider-than-plugin", "agent-author")
    );
}

#[test]
fn a_fact_may_name_its_heading() {
    let text = in_plugin(
        "    fact where {\n        heading \"Where you are working\"\n        budget 40 tokens\n        says [workspace-root]\n    }",
    );
    let (plugin, diagnostics) = lower(&text);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let ContributorBody::Fact { heading, .. } = &plugin.expect("a plugin").contributors[0].body
    else {
        panic!("not a fact")
    };
    assert_eq!(
        heading.as_ref().map(|heading| heading.value.as_str()),
        Some("Where you are working")
    );
}
