//! `textDocument/documentSymbol`: the outline, plugin → contributors.
//!
//! Read from the syntax tree, not the IR, so the outline stays whole while
//! a contributor has errors (lowering leaves such contributors out), and
//! from the tree the recovering parser read, so it stays whole while one
//! contributor is being typed. The tree is the version's own, read once.

use lsp_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, SymbolKind};

use crate::ir::Kind;
use crate::lsp::convert;
use crate::lsp::version::Syntax;
use crate::lsp::world::World;
use crate::source::SourceFile;
use crate::syntax::tree::{Block, Item};

/// The route's handler: the outline of the open manifest.
pub fn request(world: &mut World, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let document = world.state.manifest(&params.text_document.uri)?;
    Some(DocumentSymbolResponse::Nested(symbols(
        &document.source,
        document.syntax(),
    )))
}

pub fn symbols(source: &SourceFile, syntax: &Syntax) -> Vec<DocumentSymbol> {
    let Some(tree) = syntax.tree() else {
        return Vec::new();
    };
    tree.items
        .iter()
        .filter_map(|item| match item {
            Item::Block(block) if block.keyword.text == "plugin" => Some(plugin(source, block)),
            _ => None,
        })
        .collect()
}

fn plugin(source: &SourceFile, block: &Block<'_>) -> DocumentSymbol {
    let children = block
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Block(child) => {
                Kind::parse(child.keyword.text).map(|kind| contributor(source, child, kind))
            }
            _ => None,
        })
        .collect();
    let name = block.args.first().map_or("plugin", |word| word.text);
    symbol(
        source,
        block,
        name,
        block.args.get(1).map(|word| word.text.to_string()),
        SymbolKind::MODULE,
        Some(children),
    )
}

fn contributor(source: &SourceFile, block: &Block<'_>, kind: Kind) -> DocumentSymbol {
    let name = block.args.first().map_or("?", |word| word.text);
    let symbol_kind = match kind {
        Kind::Text | Kind::SystemMessage => SymbolKind::STRING,
        Kind::EagerLoad => SymbolKind::PACKAGE,
        Kind::EagerRun | Kind::Preface => SymbolKind::FUNCTION,
        Kind::Fact => SymbolKind::CONSTANT,
    };
    symbol(
        source,
        block,
        name,
        Some(kind.to_string()),
        symbol_kind,
        None,
    )
}

fn symbol(
    source: &SourceFile,
    block: &Block<'_>,
    name: &str,
    detail: Option<String>,
    kind: SymbolKind,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    let selection = block
        .args
        .first()
        .map_or(block.keyword.span, |word| word.span);
    // Clients drop symbols with an empty name.
    let name = if name.is_empty() { "?" } else { name };
    #[allow(deprecated)] // `deprecated` is a required field of the type
    DocumentSymbol {
        name: name.to_string(),
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: convert::range(source, block.span),
        selection_range: convert::range(source, selection),
        children,
    }
}
