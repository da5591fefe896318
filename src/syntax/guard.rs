//! A linear pre-scan that refuses input nested deeper than the parser may
//! recurse. pest's recursive descent uses stack in proportion to nesting, so
//! `[[[[…` four million deep would overflow the stack before any error could
//! be reported. The scan skips strings and comments the way the grammar
//! does; it only needs to be right about brackets.

use crate::codes::LIMIT_EXCEEDED;
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_NESTING;
use crate::source::Span;

pub(super) fn check_nesting(text: &str) -> Result<(), Diagnostic> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i = skip_to_line_end(bytes, i),
            b'"' if bytes[i..].starts_with(b"\"\"\"") => i = skip_triple_string(bytes, i + 3),
            b'"' => i = skip_string(bytes, i + 1),
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep(i));
                }
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

fn too_deep(offset: usize) -> Diagnostic {
    Diagnostic::new(
        &LIMIT_EXCEEDED,
        format!("blocks and lists are nested more than {MAX_NESTING} deep"),
    )
    .primary(Span::new(offset, offset + 1), format!("this opens level {}", MAX_NESTING + 1))
    .help("flatten the nesting: a manifest needs a plugin, its contributors and one level of call arguments")
}

fn skip_to_line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(bytes.len(), |n| from + n)
}

fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            // As in the grammar, a `\` does not take a line break with it.
            b'\\' if matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) => return i + 1,
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' | b'\r' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn skip_triple_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' if bytes[i..].starts_with(b"\"\"\"") => return i + 3,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_deep_lists_at_the_first_bracket_too_many() {
        let text = "[".repeat(MAX_NESTING + 5);
        let error = check_nesting(&text).unwrap_err();
        assert_eq!(error.span(), Span::new(MAX_NESTING, MAX_NESTING + 1));
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let deep = "[".repeat(MAX_NESTING + 5);
        let text = format!("# {deep}\nbody \"{deep}\"\nbody \"\"\"\n{deep}\n\"\"\"\n");
        assert!(check_nesting(&text).is_ok());
    }
}
