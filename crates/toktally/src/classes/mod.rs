//! The character classes the split patterns test, one bit each.
//!
//! The patterns name six classes (`\p{L}`, the two letter-case sets of
//! o200k, `\p{N}`, `\s` and `[\r\n]`); every character's membership fits in
//! one byte, looked up in a 128-entry table for ASCII and in a two-level
//! table generated from `regex-syntax` (the crate the reference's regular
//! expressions are built with) for the rest, so both agree on every code
//! point of the same Unicode version.

mod tables;

/// `\p{L}`: a letter.
pub(crate) const LETTER: u8 = 1;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: what o200k lets open a word.
pub(crate) const UPPER: u8 = 2;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: what o200k lets continue a word.
pub(crate) const LOWER: u8 = 4;
/// `\p{N}`: a number.
pub(crate) const NUMBER: u8 = 8;
/// `\s`: Unicode white space.
pub(crate) const SPACE: u8 = 16;
/// `[\r\n]`: a line break, which the patterns treat apart.
pub(crate) const NEWLINE: u8 = 32;

/// The classes of the ASCII characters, by byte.
static ASCII: [u8; 128] = ascii_table();

const fn ascii_table() -> [u8; 128] {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 128 {
        let c = byte as u8;
        table[byte] = if c.is_ascii_uppercase() {
            LETTER | UPPER
        } else if c.is_ascii_lowercase() {
            LETTER | LOWER
        } else if c.is_ascii_digit() {
            NUMBER
        } else if c == b'\r' || c == b'\n' {
            SPACE | NEWLINE
        } else if matches!(c, b'\t' | 0x0B | 0x0C | b' ') {
            SPACE
        } else {
            0
        };
        byte += 1;
    }
    table
}

/// The class bits of code point `c` (any value up to `char::MAX`); the
/// tests compare them with the patterns' classes.
#[inline]
pub fn of_code_point(c: u32) -> u8 {
    if c < 128 {
        return ASCII[c as usize];
    }
    lookup(c)
}

/// The class bits of a code point past ASCII, from the generated tables;
/// none past `char::MAX`.
#[inline]
fn lookup(c: u32) -> u8 {
    use tables::{BLOCKS, INDEX, SHIFT};
    let block = INDEX
        .get((c >> SHIFT) as usize)
        .map_or(0, |&block| usize::from(block));
    BLOCKS
        .get((block << SHIFT) | (c as usize & ((1 << SHIFT) - 1)))
        .map_or(0, |&class| class)
}

/// The classes and the length in bytes of the character starting at
/// `text[at]`. `text` is UTF-8 and `at` a character boundary before its
/// end; past the end, or on a stray byte, the answer is "no class, one
/// byte", which never happens for a `str` but keeps this total.
#[inline(always)]
pub(crate) fn at(text: &[u8], at: usize) -> (u8, usize) {
    match text.get(at) {
        Some(&byte) if byte < 0x80 => (ASCII[byte as usize], 1),
        Some(_) => {
            let (c, len) = decode(text, at);
            (lookup(c), len)
        }
        None => (0, 1),
    }
}

/// Decodes the multi-byte character starting at `text[at]`.
#[inline]
fn decode(text: &[u8], at: usize) -> (u32, usize) {
    let byte = |offset: usize| text.get(at + offset).map_or(0, |&b| u32::from(b & 0x3F));
    let lead = text.get(at).map_or(0, |&b| u32::from(b));
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | byte(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (byte(1) << 6) | byte(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3),
            4,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_length() {
        for c in ['é', 'ſ', '中', '😀', '\u{10FFFF}'] {
            let mut buffer = [0u8; 4];
            let encoded = c.encode_utf8(&mut buffer).as_bytes();
            assert_eq!(decode(encoded, 0), (u32::from(c), encoded.len()));
        }
    }

    #[test]
    fn classes_of_sample_characters() {
        assert_eq!(at(b"A", 0), (LETTER | UPPER, 1));
        assert_eq!(at(b"\n", 0), (SPACE | NEWLINE, 1));
        assert_eq!(at("é".as_bytes(), 0), (LETTER | LOWER, 2));
        assert_eq!(at("\u{301}".as_bytes(), 0), (UPPER | LOWER, 2));
        assert_eq!(at("中".as_bytes(), 0), (LETTER | UPPER | LOWER, 3));
        assert_eq!(at("\u{3000}".as_bytes(), 0), (SPACE, 3));
        assert_eq!(at("½".as_bytes(), 0), (NUMBER, 2));
        assert_eq!(at("😀".as_bytes(), 0), (0, 4));
    }
}
