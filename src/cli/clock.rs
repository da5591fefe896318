//! The command line's clock: what installs and publishes record as when.

/// Now, in RFC 3339 UTC; `SOURCE_DATE_EPOCH` when set, so a lock can be
/// reproduced.
pub(super) fn now() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|text| text.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_secs() as i64)
        });
    crate::runtime::Timestamp::new(seconds, 0).to_string()
}
