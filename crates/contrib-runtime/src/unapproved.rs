//! The escape hatch: a conversation on bundles nobody approved, for
//! previews and tests only.
//!
//! Nothing here went through a workspace: no lock pinned these bundles,
//! no policy re-checked them, no gate but the one given holds their
//! calls. A host serving people uses [`crate::Workspace`].

use contrib_bundle::Bundle;

use crate::compose::Composer;
use crate::{Conversation, Gate, Profile, Session, ToolDefinition, Transcript};

/// Verified bundles read from `folder` (every `*.bundle.json` under it),
/// the newest installable version of each plugin; nobody approved them.
pub fn load_unapproved_bundles(folder: &std::path::Path) -> Result<Vec<Bundle>, String> {
    contrib_bundle::catalog::installable(folder).map_err(String::from)
}

/// A conversation on `bundles` that nobody approved, for a preview.
pub fn preview_unapproved<'w, G: Gate + 'w>(
    bundles: &'w [Bundle],
    session: Session,
    gate: G,
    profile: &'w Profile,
    tools: Vec<ToolDefinition>,
) -> Conversation<'w> {
    let inner = Composer::builder(
        bundles,
        session,
        Box::new(gate) as Box<dyn Gate + 'w>,
        profile,
    )
    .start();
    Conversation::new(None, inner, Transcript::new(), tools)
}
