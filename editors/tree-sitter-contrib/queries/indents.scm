; Indentation for Neovim (nvim-treesitter): a block's items and a list's
; values one step in, the closing bracket back out.

[
  (plugin)
  (contributor)
  (call)
  (block)
  (list)
] @indent.begin

["}" "]"] @indent.branch @indent.end

(triple_string) @indent.auto
(comment) @indent.auto
