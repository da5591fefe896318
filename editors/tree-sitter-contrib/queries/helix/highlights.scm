; Highlights for Helix (its capture names). Neovim's are in queries/.

(comment) @comment

"plugin" @keyword
"call" @keyword.function
(kind) @keyword.storage.type
(boolean) @constant.builtin.boolean
(operator) @operator

(plugin
  name: (word) @namespace)
(plugin
  version: (version) @constant.numeric)

(contributor
  id: (word) @label)

(call
  tool: (word) @function)

(pair
  key: (key) @variable.parameter)

(field
  key: (key) @variable.other.member)

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

(version) @constant.numeric
(number) @constant.numeric.integer
(duration) @constant.numeric

[(string) (triple_string)] @string
(string_content) @string
(escape_sequence) @constant.character.escape
(brace_escape) @constant.character.escape
(interpolation) @punctuation.special
(interpolation (variable) @variable.builtin)

["{" "}"] @punctuation.bracket
["[" "]"] @punctuation.bracket
["," ":"] @punctuation.delimiter
