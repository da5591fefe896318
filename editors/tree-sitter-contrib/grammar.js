/**
 * @file The contributor language (`.contrib` manifests), language 2.
 * @license MIT OR Apache-2.0
 *
 * The same structure as the compiler's pest grammar (grammar/contrib.pest):
 * blocks `keyword words… { items }`, fields `name values…`, call arguments
 * `name: value`, lists `[a, b]`; items end at a comma, a line break or a
 * closing brace. Where the pest grammar leaves names to lowering, this one
 * names the blocks an editor needs to tell apart (the plugin, each kind of
 * contributor, a call) and the literals it colours (versions, numbers,
 * durations, strings with their `{variables}`), so that highlight, indent
 * and text-object queries can be written against them. What the compiler
 * rejects but the structure allows (a unit `w`, an unknown field) still
 * parses, as plain words: the language server's diagnostics and semantic
 * tokens say what is wrong.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const KINDS = ['text', 'eager-load', 'eager-run', 'system-message', 'preface', 'fact'];

module.exports = grammar({
  name: 'contrib',

  extras: $ => [/[ \t\uFEFF]/, $.comment],

  word: $ => $.word,

  conflicts: $ => [[$.block, $._value]],

  rules: {
    source_file: $ => repeat(choice($._item, $._separator)),

    _item: $ => choice($.plugin, $.contributor, $.call, $.block, $.pair, $.field),

    _separator: $ => choice(',', $._newline),

    _newline: _ => /\r?\n|\r/,

    _body: $ => seq('{', repeat(choice($._item, $._separator)), '}'),

    plugin: $ => seq(
      'plugin',
      field('name', $.word),
      optional(field('version', $.version)),
      $._body,
    ),

    contributor: $ => seq(
      field('kind', $.kind),
      field('id', $.word),
      $._body,
    ),

    kind: _ => choice(...KINDS),

    call: $ => seq(
      'call',
      field('tool', $.word),
      $._body,
    ),

    /** A block the language does not have, still read as one. */
    block: $ => seq(
      field('keyword', $.word),
      repeat(field('argument', $.word)),
      $._body,
    ),

    field: $ => prec.right(seq(
      field('key', alias($.word, $.key)),
      repeat($._token),
    )),

    pair: $ => seq(
      field('key', alias($.word, $.key)),
      ':',
      repeat($._newline),
      field('value', $._value),
    ),

    _token: $ => choice($._value, $.operator),

    _value: $ => choice(
      $.triple_string,
      $.string,
      $.list,
      $.version,
      $.duration,
      $.number,
      $.boolean,
      $.word,
    ),

    list: $ => seq(
      '[',
      repeat($._newline),
      optional(seq(
        $._value,
        repeat($._newline),
        repeat(seq(',', repeat($._newline), $._value, repeat($._newline))),
        optional(seq(',', repeat($._newline))),
      )),
      ']',
    ),

    operator: _ => choice('>=', '<=', '>', '<', '='),

    boolean: _ => choice('true', 'false'),

    // Literals win over a word of the same length because they come first
    // in the grammar (tree-sitter's last tie-break), and lose to a longer
    // one: `2w` and `4x` are words, as the compiler reads them, not a
    // number followed by a word. (An explicit precedence would beat match
    // length and split them.)
    version: _ => /\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?/,
    duration: _ => /(\d+[smhd])+/,
    number: _ => /-?\d+/,

    // Anything that is not white space, a line break or punctuation.
    word: _ => /[^\s{}\[\],:"#<>=]+/,

    string: $ => seq(
      '"',
      repeat(choice(
        $.escape_sequence,
        $.interpolation,
        $.brace_escape,
        alias(token.immediate(prec(1, /[^"\\{}\n\r]+/)), $.string_content),
        alias(token.immediate(/[{}]/), $.string_content),
      )),
      token.immediate('"'),
    ),

    triple_string: $ => seq(
      '"""',
      repeat(choice(
        $.escape_sequence,
        $.interpolation,
        $.brace_escape,
        alias(token.immediate(prec(1, /([^"\\{}]|"[^"\\{}]|""[^"\\{}])+/)), $.string_content),
        alias(token.immediate(/[{}]/), $.string_content),
      )),
      token.immediate('"""'),
    ),

    escape_sequence: _ => token.immediate(choice(/\\u\{[0-9A-Fa-f]{1,6}\}/, /\\[^u\n\r]/)),

    brace_escape: _ => token.immediate(choice('{{', '}}')),

    interpolation: $ => seq(
      token.immediate('{'),
      alias(token.immediate(/[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*/), $.variable),
      token.immediate('}'),
    ),

    comment: _ => token(seq('#', /[^\n\r]*/)),
  },
});
