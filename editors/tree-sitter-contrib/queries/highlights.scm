; Highlights for Neovim (nvim-treesitter capture names); Helix's are in
; queries/helix/. The language server's semantic tokens refine these with
; the compiler's own tables (a misspelt placement is not a value there).

(comment) @comment @spell

((comment) @comment.note
  (#match? @comment.note "^#\\s*contrib\\s*:"))

"plugin" @keyword
"call" @keyword.function
(kind) @keyword.type
(boolean) @boolean
(operator) @operator

(plugin
  name: (word) @module)
(plugin
  version: (version) @number)

(contributor
  id: (word) @label)

(call
  tool: (word) @function.call)

(pair
  key: (key) @variable.parameter)

(field
  key: (key) @property)

; Vocabulary values, as the language reference lists them.
(field
  key: (key) @_key
  (word) @constant
  (#any-of? @_key "placement" "owner" "priority" "reach" "source" "says" "when" "applies")
  (#any-of? @constant
    "platform" "agent" "person" "conversation" "message"
    "operator" "agent-author" "workspace"
    "every-turn" "with-person" "replies"
    "user-authored" "system-config" "external"
    "date" "os" "arch" "workspace-root" "skills" "model" "effort" "tools" "permissions"
    "idle" "date-crossed" "skill-updated" "model-changed" "tools-changed" "permissions-changed"
    "always" "on" "to" "command" "skill" "subagent" "files" "request"))

(field
  key: (key) @_key
  (list (word) @function)
  (#eq? @_key "tools"))

(field
  key: (key) @_key
  (word) @keyword
  (#eq? @_key "budget")
  (#eq? @keyword "tokens"))

(version) @number
(number) @number
(duration) @number

[(string) (triple_string)] @string
(string_content) @string
(escape_sequence) @string.escape
(brace_escape) @string.escape
(interpolation) @punctuation.special
(interpolation (variable) @variable.builtin)

["{" "}"] @punctuation.bracket
["[" "]"] @punctuation.bracket
["," ":"] @punctuation.delimiter
