//! `contrib lsp`: the language server, for editors (see `editors/`).
//!
//! Exit status as the protocol asks: 0 after `shutdown` then `exit`, 1 when
//! the client exits or goes away without `shutdown`.

use std::process::ExitCode;

use clap::Args;

#[derive(Args)]
pub(super) struct LspArgs {
    /// Accepted for clients that pass it (VS Code's does); stdio is the
    /// only transport.
    #[arg(long, hide = true)]
    stdio: bool,
}

pub(super) fn run(args: &LspArgs) -> ExitCode {
    let _ = args.stdio;
    ExitCode::from(crate::lsp::run())
}
