use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0117",
    name: "invalid-origin",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a preface's origin is not `host:scope`",
    explanation: r#"
## What it does
Reports a preface `origin` that is not a host and a scope joined by one
`:`, such as `"memory:workspace-stores"` or `"web:docs.acme.dev"`. The host
is lowercase letters, digits, `.` and `-`; the scope is any of those plus
`_` and `/`.

## Why is this bad?
The origin is written into the envelope the model sees and into every turn
record, so that anyone can later tell where a retrieved passage came from.

## Example
```
origin "workspace stores"
```
```
origin "memory:workspace-stores"
```
"#,
};

fn is_origin(text: &str) -> bool {
    let Some((host, scope)) = text.split_once(':') else {
        return false;
    };
    let host_ok = !host.is_empty() && host.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let scope_ok = !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_' | b'/'));
    host_ok && scope_ok
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::Preface { origin, .. } = &contributor.body else { continue };
        if is_origin(&origin.value) {
            continue;
        }
        out.push(
            Diagnostic::new(&RULE, format!("origin `{}` is not `host:scope`", origin.value))
                .primary(origin.span, "expected `host:scope`")
                .help("name where the content comes from and which part of it, such as \"memory:workspace-stores\""),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::is_origin;

    #[test]
    fn origins() {
        assert!(is_origin("memory:workspace-stores"));
        assert!(is_origin("web:docs.acme.dev/style_guide"));
        assert!(!is_origin("memory"));
        assert!(!is_origin(":x"));
        assert!(!is_origin("Memory:x"));
        assert!(!is_origin("a:b:c"));
    }
}
