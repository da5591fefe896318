//! The linker flags a Node-API module needs on each platform (on macOS,
//! Node's symbols are resolved at load).

fn main() {
    napi_build::setup();
}
