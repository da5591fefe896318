//! Pages: what a person would rather look at than read, as one
//! self-contained HTML file each.
//!
//! - [`approval`]: the approval screen ([`crate::trust::screen::Screen`]),
//!   what `contrib preview --html` and `contrib install --html` write;
//! - [`simulation`]: a simulation's report with inline SVG charts, what
//!   `contrib simulate --html` writes;
//! - [`svg`]: the charts, drawn here rather than by a script library;
//! - [`told`]: what the model is told for a manifest being written, the
//!   editors' live preview.
//!
//! A page makes no request and runs no script: its first element is a
//! Content-Security-Policy that allows nothing but its own stylesheet
//! (by hash) and `data:` images, so even markup that slipped past
//! [`html::text`] could neither run nor call out. Pages read without
//! colour (text says what colour shows), print on white, and use headings,
//! tables with headers and landmarks so a screen reader can walk them.

pub mod approval;
pub mod html;
pub mod simulation;
pub mod svg;
pub mod told;

use base64::Engine;
use sha2::{Digest, Sha256};

/// The one stylesheet every page carries.
const STYLE: &str = include_str!("page.css");

/// The Content-Security-Policy of every page: nothing loads, nothing runs,
/// nothing is submitted; only the page's own stylesheet applies.
pub fn content_security_policy() -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src data:; \
         script-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
}

/// A whole page around `body` (markup already escaped), titled `title`
/// (plain text).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"generator\" content=\"contrib {version}\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <main>\n{body}</main>\n\
         <footer><p>Written by contrib {version}. This page runs no script and loads nothing.</p></footer>\n\
         </body>\n</html>\n",
        csp = content_security_policy(),
        version = env!("CARGO_PKG_VERSION"),
        title = html::text(title),
    )
}

/// A `data-key` value from a name: its ASCII letters, digits and dashes
/// only, so nothing from input reaches an attribute as written.
fn key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Text that would inject markup, script, a link or reordered text if
    /// a page let it through.
    pub(crate) const HOSTILE: &[&str] = &[
        "<script>document.title='pwned'</script>",
        "\"><img src=x onerror=alert(1)>",
        "' onmouseover='alert(1)",
        "javascript:alert(1)",
        "</pre></article><script src=https://evil.example/x.js></script>",
        "<a href=\"javascript:alert(1)\">click</a>",
        "admin\u{202E}txt.exe\u{2066}",
        "zero\u{200B}width\u{FEFF}",
        "<style>body{background:url(https://evil.example/t)}</style>",
        "<!-- --><svg onload=alert(1)>",
        "&lt;already&gt; &amp; escaped",
        "]]><![CDATA[",
    ];

    /// Fails unless every tag in `page` is one the page code writes, no
    /// attribute is an event handler, a link or a style, and no invisible
    /// character survives as itself.
    pub(crate) fn assert_only_our_markup(page: &str) {
        const TAGS: &[&str] = &[
            "!DOCTYPE",
            "html",
            "head",
            "meta",
            "title",
            "style",
            "body",
            "main",
            "footer",
            "h1",
            "h2",
            "h3",
            "p",
            "section",
            "article",
            "dl",
            "dt",
            "dd",
            "table",
            "caption",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "ul",
            "li",
            "code",
            "pre",
            "span",
            "figure",
            "figcaption",
            "strong",
            "svg",
            "g",
            "rect",
            "line",
            "polyline",
            "path",
            "circle",
            "text",
            "title",
            "desc",
            "details",
            "summary",
        ];
        for (index, _) in page.match_indices('<') {
            let rest = &page[index + 1..];
            let rest = rest.strip_prefix('/').unwrap_or(rest);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
                .collect();
            assert!(
                TAGS.contains(&name.as_str()),
                "unexpected tag `{name}` at {index}: {}",
                &page[index..(index + 60).min(page.len())]
            );
        }
        let lower = page.to_ascii_lowercase();
        for forbidden in [" on", "href=", "src=", "style=", "javascript:"] {
            for (index, _) in lower.match_indices(forbidden) {
                // Only inside a tag is it an attribute.
                let tag_open = lower[..index].rfind('<');
                let tag_close = lower[..index].rfind('>');
                let inside_tag = match (tag_open, tag_close) {
                    (Some(open), Some(close)) => open > close,
                    (Some(_), None) => true,
                    _ => false,
                };
                assert!(
                    !inside_tag
                        || forbidden == " on"
                            && !lower[index + 3..].starts_with(|c: char| c.is_ascii_alphabetic()),
                    "`{forbidden}` inside a tag at {index}: {}",
                    &page[index.saturating_sub(40)..(index + 40).min(page.len())]
                );
            }
        }
        assert!(
            crate::source::hidden::hidden_chars(page).next().is_none(),
            "an invisible character survived"
        );
    }

    #[test]
    fn the_policy_comes_first_and_forbids_scripts_and_requests() {
        let page = page("t", "<p>x</p>");
        let head = &page[..page.find("<meta charset").unwrap()];
        assert!(head.contains("Content-Security-Policy"));
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none';"));
        assert!(policy.contains("script-src 'none'"));
        assert!(!policy.contains("unsafe"));
    }

    #[test]
    fn the_style_hash_matches_the_style_element() {
        let page = page("t", "");
        let start = page.find("<style>").unwrap() + "<style>".len();
        let end = page.find("</style>").unwrap();
        let hash =
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&page[start..end]));
        assert!(content_security_policy().contains(&hash));
    }
}
