//! What the server computes once per version of a document, and every
//! request of that version shares (issue 16: no request re-parses a
//! document that has not changed).
//!
//! - [`Syntax`]: the text and the tree the recovering parser read from it,
//!   kept together, with the semantic tokens and the formatting derived
//!   from the tree. It depends on the text alone, so a configuration
//!   change keeps it.
//! - [`Checked`]: the analysis against the workspace's configuration, and
//!   what is derived from it on demand: each contributor's exact measure
//!   (for inlay hints) and the text with every safe fix applied (for the
//!   fix-all action, which code-action requests ask for on every cursor
//!   move).
//!
//! Everything here is lazy: a request that needs nothing of it costs
//! nothing, and what one request computes the next one reuses.

use std::cell::OnceCell;
use std::sync::Arc;

use lsp_types::{SemanticToken, TextEdit};
use self_cell::self_cell;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::syntax::{self, tree::File, Parsed};
use crate::Analysis;

self_cell!(
    /// A text and what the recovering parser read from it.
    struct Owned {
        owner: Arc<str>,
        #[covariant]
        dependent: Parsed,
    }
);

/// One version's text and tree, and what derives from the tree alone.
pub struct Syntax {
    owned: Owned,
    tokens: OnceCell<Vec<SemanticToken>>,
    formatted: OnceCell<Vec<TextEdit>>,
}

impl Syntax {
    /// Reads `text`; files over the size limit are not read, as `contrib
    /// check` would not read them.
    pub fn new(text: Arc<str>) -> Syntax {
        let owned = Owned::new(text, |text| {
            if text.len() > crate::limits::MAX_FILE_BYTES {
                Parsed {
                    file: None,
                    errors: Vec::new(),
                }
            } else {
                syntax::parse_recovering(text)
            }
        });
        Syntax {
            owned,
            tokens: OnceCell::new(),
            formatted: OnceCell::new(),
        }
    }

    /// The tree, when the text could be read.
    pub fn tree(&self) -> Option<&File<'_>> {
        self.owned.borrow_dependent().file.as_ref()
    }

    pub fn parsed(&self) -> &Parsed<'_> {
        self.owned.borrow_dependent()
    }

    /// The syntax errors recovered from.
    pub fn errors(&self) -> &[Diagnostic] {
        &self.owned.borrow_dependent().errors
    }

    pub fn text(&self) -> &str {
        self.owned.borrow_owner()
    }

    /// Computed by `make` the first time it is asked for.
    pub fn semantic_tokens(
        &self,
        make: impl FnOnce(&Syntax) -> Vec<SemanticToken>,
    ) -> &[SemanticToken] {
        self.tokens.get_or_init(|| make(self))
    }

    pub fn formatting(&self, make: impl FnOnce(&Syntax) -> Vec<TextEdit>) -> &[TextEdit] {
        self.formatted.get_or_init(|| make(self))
    }
}

/// One version's analysis against a configuration, and what derives from
/// it on demand.
pub struct Checked {
    pub analysis: Analysis,
    /// Each lowered contributor's exact measure, by its index in the IR,
    /// and whether it is the whole of what it adds.
    measures: Vec<OnceCell<(u64, bool)>>,
    fixed: OnceCell<Option<String>>,
}

impl Checked {
    pub fn new(analysis: Analysis) -> Checked {
        let count = analysis
            .plugin
            .as_ref()
            .map_or(0, |plugin| plugin.contributors.len());
        Checked {
            analysis,
            measures: (0..count).map(|_| OnceCell::new()).collect(),
            fixed: OnceCell::new(),
        }
    }

    /// The tokens the contributor at `index` of the IR adds, counted once,
    /// and whether that is all it adds (not a lower bound).
    pub fn measured(&self, index: usize, config: &Config) -> Option<(u64, bool)> {
        let plugin = self.analysis.plugin.as_ref()?;
        let contributor = plugin.contributors.get(index)?;
        let cell = self.measures.get(index)?;
        Some(*cell.get_or_init(|| {
            let measure = crate::check::measure(plugin, contributor, config);
            (measure.tokens(), measure.complete)
        }))
    }

    /// The text with every safe fix applied, computed by `make` once.
    pub fn fixed(&self, make: impl FnOnce() -> Option<String>) -> Option<&str> {
        self.fixed.get_or_init(make).as_deref()
    }
}
