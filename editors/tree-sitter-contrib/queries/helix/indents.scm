; Indentation for Helix: a block's items and a list's values one step in,
; the closing bracket back out.

[
  (plugin)
  (contributor)
  (call)
  (block)
  (list)
] @indent

["}" "]"] @outdent
