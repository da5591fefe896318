//! What the language server's reader does with any bytes on its input:
//! frames, garbage, mis-sized lengths. It must never panic, and must end
//! when the input does.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (messages, reader) = contrib::lsp::transport::spawn_reader(std::io::Cursor::new(data.to_vec()));
    for _ in messages.iter() {}
    reader.join().expect("the reader does not panic");
});
