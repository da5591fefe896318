//! Pathological inputs finish in linear time and memory: for each, the
//! work done on an input of size 2N must stay within 2.5 times the work on
//! size N. Work is counted, not timed, so the test is deterministic on a
//! busy machine: this binary's allocator counts, per thread, how many
//! allocations the front end and the formatter make and how many bytes
//! they ask for.
//!
//! The pipeline run on each input is what `contrib check` and `contrib fmt`
//! do: decode the bytes, parse, lower, check (suppressions included), render
//! every diagnostic for people and as JSON, and format.
//!
//! Allocation counts miss work that allocates nothing, such as a loop that
//! rescans a growing list for every comment; `benches/growth.sh` measures
//! the time of the same inputs at N and 2N for that.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use contrib::check_bytes;
use contrib::config::Config;
use contrib::fmt;
use contrib::report::{self, Format};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = BYTES.try_with(|total| total.set(total.get() + bytes as u64));
}

// SAFETY: every call is passed straight to the system allocator; counting
// touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations and bytes allocated while running `run` on `text`.
fn work(text: &str, run: fn(&str)) -> (u64, u64) {
    let before = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    run(text);
    (
        ALLOCATIONS.with(Cell::get) - before.0,
        BYTES.with(Cell::get) - before.1,
    )
}

fn pipeline(text: &str) {
    let (source, diagnostics) = check_bytes("big.contrib", text.as_bytes(), &Config::platform());
    // The human report renders a file's diagnostics in parallel; rendered
    // on other threads, their allocations would escape this thread's
    // count. A pool of one thread, this one, keeps them here.
    let render = || {
        for format in [Format::Human, Format::Json] {
            let mut emitter = report::emitter(format, report::human::Style::default());
            let mut out = std::io::sink();
            let _ = emitter.file(&mut out, &source, &diagnostics);
        }
    };
    POOL.with(|pool| pool.install(render));
    let _ = std::hint::black_box(fmt::format(&source.text));
}

thread_local! {
    /// A rayon pool whose only thread is the calling test's thread (a
    /// thread can belong to one pool, so one per test thread).
    static POOL: rayon::ThreadPool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("a pool of this thread");
}

/// Fails if doubling the input more than 2.5-folds either count of the
/// pipeline's work.
fn assert_linear(name: &str, make: impl Fn(usize) -> String, n: usize) {
    assert_linear_in(name, make, n, pipeline);
}

/// [`assert_linear`] for `run` in place of the pipeline.
fn assert_linear_in(name: &str, make: impl Fn(usize) -> String, n: usize, run: fn(&str)) {
    let small = make(n);
    let large = make(2 * n);
    POOL.with(|_| ()); // built before counting starts
    let (small_allocations, small_bytes) = work(&small, run);
    let (large_allocations, large_bytes) = work(&large, run);
    let allocations = large_allocations as f64 / small_allocations.max(1) as f64;
    let bytes = large_bytes as f64 / small_bytes.max(1) as f64;
    assert!(
        allocations < 2.5 && bytes < 2.5,
        "{name}: doubling the input from {} to {} bytes grew allocations {small_allocations} → {large_allocations} \
         ({allocations:.2}×) and bytes allocated {small_bytes} → {large_bytes} ({bytes:.2}×)",
        small.len(),
        large.len(),
    );
}

fn plugin_with(contents: &str) -> String {
    format!("plugin acme/big 1.0.0 {{\n    owner agent-author\n{contents}}}\n")
}

#[test]
fn a_huge_string() {
    // 2 MiB and 4 MiB: over the string limit, under the file limit.
    let make = |bytes: usize| {
        plugin_with(&format!(
            "    text t {{\n        placement agent\n        budget 9 tokens\n        body \"{}\"\n    }}\n",
            "a".repeat(bytes - 200)
        ))
    };
    assert_linear("a huge string", make, 2 * 1024 * 1024);
}

#[test]
fn a_long_triple_quoted_block() {
    // Under the string limit, so that it is decoded and re-indented.
    let make = |lines: usize| {
        plugin_with(&format!(
            "    text t {{\n        placement agent\n        budget 9 tokens\n        body \"\"\"\n{}\"\"\"\n    }}\n",
            "  a line of the body {person.name}\n".repeat(lines)
        ))
    };
    assert_linear("a long \"\"\" block", make, 10_000);
}

#[test]
fn ten_thousand_contributors() {
    let make = |count: usize| {
        plugin_with(
            &(0..count)
                .map(|index| {
                    format!(
                        "    # the {index}th\n    text t{index} {{\n        placement agent\n        budget 9 tokens\n        body \"x {{person.name}}\"\n    }}\n"
                    )
                })
                .collect::<String>(),
        )
    };
    assert_linear("10,000 contributors", make, 5_000);
    // Under the contributor limit, where every one is lowered.
    assert_linear("2,000 contributors", make, 1_000);
}

#[test]
fn contributors_that_are_all_wrong() {
    let make = |count: usize| {
        plugin_with(
            &(0..count)
                .map(|index| format!("    text t{index} {{\n        colour red\n        budget x tokens\n    }}\n"))
                .collect::<String>(),
        )
    };
    assert_linear("2,000 contributors with errors", make, 1_000);
}

/// Each contributor holds a syntax error of its own: the recovering
/// parser reads each once, rather than joining each broken contributor to
/// the one before and reading the growing run again (98 KB took 9.4 s).
#[test]
fn contributors_that_each_hold_a_syntax_error() {
    let make = |count: usize| {
        plugin_with(
            &(0..count)
                .map(|index| {
                    format!("    text t{index} {{\n        placement agent\n        budget 9 tokens\n        body \"x\" ]\n    }}\n")
                })
                .collect::<String>(),
        )
    };
    // Two broken contributors in a row may be one construct cut in two and
    // are read as one; a run of them is not one error.
    let (_, diagnostics) = check_bytes("big.contrib", make(6).as_bytes(), &Config::platform());
    let syntax_errors = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule.name == "syntax-error")
        .count();
    assert_eq!(syntax_errors, 3, "one error per pair: {diagnostics:#?}");
    // About 53 KB and 106 KB.
    assert_linear("1,000 contributors with syntax errors", make, 500);
}

#[test]
fn a_hundred_thousand_comment_lines() {
    let make = |lines: usize| format!("{}{}", "# a comment line\n".repeat(lines), plugin_with(""));
    assert_linear("100,000 comment lines", make, 50_000);
}

#[test]
fn deeply_nested_lists() {
    // Far past the nesting limit: refused at the first bracket too many.
    let deep = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert_linear("lists nested a million deep", deep, 500_000);
    // Many lists nested as deep as allowed.
    let many = |count: usize| {
        let list = format!("{}1{}", "[".repeat(28), "]".repeat(28));
        plugin_with(&format!(
            "    eager-run r {{\n        budget 5 tokens\n        call t {{\n{}        }}\n    }}\n",
            (0..count).map(|index| format!("            k{index}: {list}\n")).collect::<String>()
        ))
    };
    assert_linear("many lists nested 28 deep", many, 500);
}

/// One contributor with `index`'s kind of suppression: used, unused, naming
/// an unknown rule, without a reason, after a field on its line, or not a
/// suppression at all, so that every path of the parser is taken.
fn suppressed_contributor(index: usize) -> String {
    let (above, field_comment) = match index % 6 {
        0 => (
            "    # contrib: allow(budget-unused) -- sized for growth\n",
            "",
        ),
        1 => (
            "    # contrib: allow(placement-could-be-wider) -- reviewed\n",
            "",
        ),
        2 => ("    # contrib: allow(no-such-rule) -- typo\n", ""),
        3 => ("    # contrib: allow(budget-unused)\n", ""),
        4 => ("", "  # contrib: allow(budget-unused) -- on the field"),
        _ => ("    # contrib: not a suppression\n", ""),
    };
    format!(
        "{above}    text t{index} {{\n        placement agent\n        budget 900 tokens{field_comment}\n        body \"x\"\n    }}\n"
    )
}

#[test]
fn thousands_of_suppressions_of_every_kind() {
    let make = |count: usize| {
        format!(
            "# contrib: allow(budget-unused) -- the whole file\n{}",
            plugin_with(&(0..count).map(suppressed_contributor).collect::<String>())
        )
    };
    assert_linear("suppressions of every kind", make, 1_000);
}

#[test]
fn a_long_line_of_diagnostics() {
    // One `tools` line of unknown tools: every diagnostic on the same line,
    // each rendered with its column.
    let make = |count: usize| {
        let tools: Vec<String> = (0..count).map(|index| format!("tool_{index}")).collect();
        plugin_with(&format!(
            "    eager-load l {{\n        placement agent\n        budget 50 tokens\n        tools [{}]\n    }}\n",
            tools.join(", ")
        ))
    };
    assert_linear("a long line of diagnostics", make, 2_000);
}

#[test]
fn thousands_of_unknown_fields() {
    let make = |count: usize| {
        plugin_with(&format!(
            "    text t {{\n        placement agent\n        budget 9 tokens\n        body \"x\"\n{}    }}\n",
            (0..count)
                .map(|index| format!("        colour{index} red\n"))
                .collect::<String>()
        ))
    };
    assert_linear("thousands of unknown fields", make, 2_000);
}

/// `contrib import` of a project whose settings hold thousands of
/// `SessionStart` hooks: each becomes an `eager-run`, and naming them
/// apart (`session-start-hook`, `-2`, `-3`…) once tried every suffix from
/// 2 for each.
#[test]
fn importing_thousands_of_session_start_hooks() {
    let make = |count: usize| {
        let hooks: Vec<String> = (0..count)
            .map(|index| format!("{{\"type\": \"command\", \"command\": \"echo {index}\"}}"))
            .collect();
        format!(
            "{{\"hooks\": {{\"SessionStart\": [{{\"hooks\": [{}]}}]}}}}",
            hooks.join(", ")
        )
    };
    let run = |settings: &str| {
        let tree = contrib::import::SourceTree::from_files(
            "project",
            [(".claude/settings.json", settings)],
        );
        let imported = contrib::import::import(
            &tree,
            &contrib::import::Options::default(),
            &Config::platform(),
        );
        std::hint::black_box(imported);
    };
    let tree = contrib::import::SourceTree::from_files(
        "project",
        [(".claude/settings.json", make(3).as_str())],
    );
    let imported = contrib::import::import(
        &tree,
        &contrib::import::Options::default(),
        &Config::platform(),
    );
    let text: String = imported
        .manifests
        .iter()
        .map(|manifest| manifest.text.as_str())
        .collect();
    for id in [
        "session-start-hook {",
        "session-start-hook-2 {",
        "session-start-hook-3 {",
    ] {
        assert!(text.contains(id), "{id}: {text}");
    }
    assert_linear_in("2,000 SessionStart hooks", make, 1_000, run);
}
