//! Paths as URIs (RFC 3986), for SARIF's `artifactLocation.uri` and the
//! language server's `file:` URIs: one encoder and one decoder, so a space,
//! a `%`, a `#` or a non-ASCII name in a path survives the trip.
//!
//! ```
//! use contrib::uri;
//! assert_eq!(uri::reference("my plugins/50%.contrib"), "my%20plugins/50%25.contrib");
//! assert_eq!(uri::reference("/tmp/#1.contrib"), "file:///tmp/%231.contrib");
//! assert_eq!(uri::decode("my%20plugins").as_deref(), Some("my plugins"));
//! ```

use std::path::{Path, PathBuf};

/// Appends `text` to `out`, percent-encoding every byte but the unreserved
/// characters, `/`, `:`, `@`, `+` and `=` (all allowed in a path by RFC
/// 3986, and left alone by editors' URIs, so the language server's URIs
/// compare equal to its client's). `%` is always encoded, so encoding is
/// never ambiguous.
fn encode_path_into(out: &mut String, text: &str) {
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'/'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b':'
            | b'@'
            | b'+'
            | b'=' => out.push(char::from(byte)),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
    }
}

/// Whether `text` (with `/` separators) is an absolute path: `/x`, or a
/// Windows drive `C:/x`.
fn is_absolute(text: &str) -> bool {
    match text.as_bytes() {
        [b'/', ..] => true,
        [drive, b':', b'/', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    }
}

/// The `file:` URI of an absolute path (`file:///home/x`,
/// `file:///C:/x`), with `\` read as `/`.
pub fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    encode_path_into(&mut uri, &text);
    uri
}

/// A URI reference for a path as reports name it: a relative path stays a
/// relative reference (resolved against the repository root, as code
/// scanning expects); an absolute one becomes a `file:` URI.
pub fn reference(path: &str) -> String {
    let mut text = path.replace('\\', "/");
    if is_absolute(&text) {
        return file_uri(Path::new(&text));
    }
    while let Some(rest) = text.strip_prefix("./") {
        text = rest.to_string();
    }
    // A first segment holding `:` would read as a scheme: `./` keeps it a
    // path.
    let first = text.split('/').next().unwrap_or("");
    let mut uri = String::with_capacity(text.len());
    if first.contains(':') {
        uri.push_str("./");
    }
    encode_path_into(&mut uri, &text);
    uri
}

/// Percent-decodes `text`; `None` for a malformed escape or bytes that are
/// not UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The local path of a `file:` URI, percent-decoded; `None` for other
/// schemes (`untitled:` buffers have no folder to find a `contrib.toml` in).
pub fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///home/x` has an empty authority; `file://host/share` keeps
    // the host as a UNC-style prefix on Windows and is ignored elsewhere.
    let path = &rest[rest.find('/')?..];
    let decoded = decode(path)?;
    // `file:///c:/x` is `c:/x` on Windows.
    #[cfg(windows)]
    let decoded = match decoded.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => decoded[1..].to_string(),
        _ => decoded,
    };
    Some(PathBuf::from(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_relative_and_are_encoded() {
        assert_eq!(reference("examples/a.contrib"), "examples/a.contrib");
        assert_eq!(
            reference("a b/100%/#x/é.contrib"),
            "a%20b/100%25/%23x/%C3%A9.contrib"
        );
        assert_eq!(reference("c:d/x.contrib"), "./c:d/x.contrib");
        assert_eq!(reference("dir\\x.contrib"), "dir/x.contrib");
        assert_eq!(reference("./././x.contrib"), "x.contrib");
    }

    #[test]
    fn absolute_paths_become_file_uris() {
        assert_eq!(reference("/tmp/a b.contrib"), "file:///tmp/a%20b.contrib");
        assert_eq!(
            reference("C:\\work\\x.contrib"),
            "file:///C:/work/x.contrib"
        );
    }

    #[test]
    fn file_uris_round_trip() {
        for path in ["/tmp/a dir/50% #1/é.toml", "/x"] {
            let uri = file_uri(Path::new(path));
            assert_eq!(file_path(&uri), Some(PathBuf::from(path)), "{uri}");
        }
        assert_eq!(file_path("untitled:Untitled-1"), None);
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%"), None);
    }
}
