//! The escape hatch: a conversation on bundles nobody approved, for
//! previews and tests only.
//!
//! Nothing here went through a workspace: no lock pinned these bundles,
//! no policy re-checked them, no gate but the one given holds their
//! calls. A host serving people uses [`crate::Workspace`].

use contrib_bundle::Bundle;

use crate::compose::Composer;

use crate::{Conversation, Gate, Profile, Session, ToolDefinition, Transcript};
/// Why a folder of bundles could not be read: the catalog's own error,
/// each variant with the file and what was wrong with it.
pub use contrib_bundle::catalog::Error as CatalogError;

/// Verified bundles read from `folder` (every `*.bundle.json` under it),
/// the newest installable version of each plugin; nobody approved them.
pub fn load_unapproved_bundles(folder: &std::path::Path) -> Result<Vec<Bundle>, CatalogError> {
    contrib_bundle::catalog::installable(folder)
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
