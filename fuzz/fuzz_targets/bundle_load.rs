//! What a runtime does with a bundle's bytes: load and verify them. Any
//! bytes must give a bundle or a typed error, never a panic; a bundle that
//! loads must re-serialise to bytes that load to the same bundle.
#![no_main]

use contrib::bundle::{canonical_bytes, Bundle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(bundle) = Bundle::from_bytes(data) {
        let again = Bundle::from_bytes(&canonical_bytes(&bundle)).expect("a canonical bundle loads");
        assert_eq!(again, bundle);
    }
});
