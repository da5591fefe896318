use super::prelude::*;
use crate::ir::Source;

pub static RULE: Rule = Rule {
    code: "C0116",
    name: "external-preface",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "a preface brings in content from outside the workspace",
    explanation: r#"
## What it does
Reports a `preface` whose `source` is `external`: content nobody in the
workspace wrote, such as a web page or a shared document.

## Why is this bad?
External content is untrusted. The runtime marks it so, in an envelope the
content cannot escape, but it still reaches the model on every turn; it
deserves a conscious decision, recorded as a suppression with its reason.

## Example
```
preface news {
    source external
    origin "web:news.example"
    call fetch_url { url: "https://news.example/today" }
    budget 800 tokens
}
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::Preface { source, .. } = &contributor.body else { continue };
        if source.value != Source::External {
            continue;
        }
        out.push(
            Diagnostic::new(&RULE, format!("the preface `{}` brings in external content", contributor.id.value))
                .primary(source.span, "untrusted content")
                .help("the runtime marks it as untrusted in its envelope; if that is intended, record why with `# contrib: allow(external-preface) -- reason`"),
        );
    }
}
