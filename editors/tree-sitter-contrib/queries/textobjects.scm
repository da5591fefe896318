; Text objects for Neovim (nvim-treesitter-textobjects): a contributor is a
; class (`ac`/`ic`), a call a function (`af`/`if`), call arguments and list
; values parameters, comments comments.

(contributor) @class.outer
(contributor
  "{" . (_) @class.inner._start
  (_) @class.inner._end . "}"
  (#make-range! "class.inner" @class.inner._start @class.inner._end))

(plugin) @block.outer

(call) @function.outer
(call
  "{" . (_) @function.inner._start
  (_) @function.inner._end . "}"
  (#make-range! "function.inner" @function.inner._start @function.inner._end))

(pair) @parameter.outer
(pair value: (_) @parameter.inner)
(list (_) @parameter.inner)

(comment) @comment.outer
