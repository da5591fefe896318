use std::process::ExitCode;

fn main() -> ExitCode {
    contrib::cli::main()
}
