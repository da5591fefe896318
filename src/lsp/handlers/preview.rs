//! `contrib/preview`: what the model is told for the open manifest, as it
//! stands in the editor, under a chosen session. The client asks again as
//! the person types (the VS Code extension shows the page in a webview
//! beside the source; Neovim's `:ContribPreview` shows the text in a
//! split).
//!
//! Request: `{ textDocument: { uri }, session?: PATH, profile?: NAME,
//! turns?: N }`; a relative `session` is read from the manifest's folder,
//! and without one the example session (`examples/runtime/session.toml`)
//! is used. Response: `{ title, text, html }`, or `{ problem }` when the
//! manifest does not build (its diagnostics say why) or the session cannot
//! be read.

use std::fmt;
use std::path::PathBuf;

use lsp_types::TextDocumentIdentifier;
use serde::{Deserialize, Serialize};

use super::super::state::Snapshot;
use super::super::world::World;
use crate::bundle::NoCanonicalForm;
use crate::pages::told::Told;
use crate::runtime::{InputError, Profiles, Session, UnknownProfile};

/// The request, for the route table.
pub enum PreviewRequest {}

impl lsp_types::request::Request for PreviewRequest {
    type Params = PreviewParams;
    type Result = Option<Preview>;
    const METHOD: &'static str = "contrib/preview";
}

/// The session used when the client names none.
const EXAMPLE_SESSION: &str = include_str!("../../../examples/runtime/session.toml");

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewParams {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub turns: Option<usize>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Preview {
    Told {
        title: String,
        text: String,
        html: String,
    },
    Problem {
        problem: String,
    },
}

/// The route's handler: the preview of the open manifest.
pub fn request(world: &mut World, params: PreviewParams) -> Option<Preview> {
    let snapshot = world.state.snapshot(&params.text_document.uri)?;
    Some(preview(&snapshot, &params))
}

/// The preview of the snapshot's manifest.
pub fn preview(snapshot: &Snapshot, params: &PreviewParams) -> Preview {
    match told(snapshot, params) {
        Ok(told) => Preview::Told {
            title: told.title.clone(),
            text: told.text(),
            html: told.html(),
        },
        Err(problem) => Preview::Problem {
            problem: problem.to_string(),
        },
    }
}

/// Why there is no preview: the answer's `problem`.
#[derive(Debug)]
enum Unpreviewable {
    /// The manifest has errors, which its diagnostics show.
    Errors(usize),
    /// The plugin did not bundle.
    Bundle(NoCanonicalForm),
    Session(InputError),
    Profile(UnknownProfile),
}

impl fmt::Display for Unpreviewable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unpreviewable::Errors(errors) => write!(
                f,
                "the manifest has {errors} error(s); fix them to see what the model is told"
            ),
            Unpreviewable::Bundle(why) => why.fmt(f),
            Unpreviewable::Session(error) => error.fmt(f),
            Unpreviewable::Profile(unknown) => unknown.fmt(f),
        }
    }
}

fn told(snapshot: &Snapshot, params: &PreviewParams) -> Result<Told, Unpreviewable> {
    let analysis = snapshot.analysis;
    let errors = analysis.diagnostics.iter().filter(|d| d.is_error()).count();
    let plugin = match &analysis.plugin {
        Some(plugin) if errors == 0 => plugin,
        _ => return Err(Unpreviewable::Errors(errors)),
    };
    let bundle = crate::bundle::build_with_waivers(plugin, &snapshot.config, &analysis.waived)
        .map_err(Unpreviewable::Bundle)?;
    let session = match &params.session {
        Some(path) => Session::load(&session_path(snapshot, path)),
        None => Session::from_toml(EXAMPLE_SESSION),
    }
    .map_err(Unpreviewable::Session)?;
    let profiles = Profiles::builtin();
    let profile = profiles
        .named(params.profile.as_deref())
        .map_err(Unpreviewable::Profile)?;
    Ok(Told::compose(
        &bundle,
        session,
        profile,
        params.turns.unwrap_or(3).min(4),
    ))
}

/// `path` as given when absolute, else from the manifest's folder.
fn session_path(snapshot: &Snapshot, path: &str) -> PathBuf {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        return path;
    }
    crate::uri::file_path(snapshot.uri.as_str())
        .and_then(|file| file.parent().map(|folder| folder.join(&path)))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;
    use std::sync::Arc;

    use lsp_types::Uri;

    use super::*;
    use crate::config::Config;
    use crate::lsp::state::analyze_syntax;
    use crate::lsp::version::{Checked, Syntax};
    use crate::source::SourceFile;

    const MANIFEST: &str = r#"plugin acme/voice 1.0.0 {
    owner workspace
    text stance {
        placement person
        budget 60 tokens
        body "Answer {person.name} plainly. <b>no markup</b>"
    }
}
"#;

    fn ask(text: &str, session: Option<&str>) -> Preview {
        let uri = Uri::from_str("file:///ws/voice.contrib").unwrap();
        let source = SourceFile::new("voice.contrib", text);
        let config = Arc::new(Config::platform());
        let syntax = Syntax::new(source.text.clone());
        let checked = Checked::new(analyze_syntax(&source, &syntax, &config));
        let snapshot = Snapshot {
            uri: &uri,
            source: &source,
            syntax: &syntax,
            checked: &checked,
            analysis: &checked.analysis,
            config,
            config_uri: None,
        };
        let params = PreviewParams {
            text_document: TextDocumentIdentifier { uri: uri.clone() },
            session: session.map(str::to_string),
            profile: None,
            turns: None,
        };
        preview(&snapshot, &params)
    }

    #[test]
    fn shows_the_system_prompt_as_the_model_gets_it() {
        let Preview::Told { title, text, html } = ask(MANIFEST, None) else {
            panic!("the manifest builds");
        };
        assert_eq!(title, "What the model is told: acme/voice@1.0.0");
        assert!(
            text.contains("-- acme/voice@1.0.0/stance [person]\n")
                && text.contains("\nAnswer Sam Okafor plainly."),
            "the example session's person fills the variable:\n{text}"
        );
        assert!(text.contains("== Turn 3 at"), "{text}");
        assert!(html.contains("&lt;b&gt;no markup&lt;/b&gt;"));
        crate::pages::tests::assert_only_our_markup(&html);
    }

    #[test]
    fn a_manifest_with_errors_says_so() {
        let broken = MANIFEST.replace("budget 60 tokens", "budget sixty");
        assert!(matches!(
            ask(&broken, None),
            Preview::Problem { problem } if problem.contains("error(s)")
        ));
    }

    #[test]
    fn a_missing_session_says_so() {
        assert!(matches!(
            ask(MANIFEST, Some("/nowhere/session.toml")),
            Preview::Problem { problem } if problem.contains("nowhere")
        ));
    }
}
