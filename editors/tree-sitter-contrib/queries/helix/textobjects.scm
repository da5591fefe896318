; Text objects for Helix: a contributor is a type (`mat`/`mit`), a call a
; function (`maf`/`mif`), call arguments and list values parameters
; (`map`/`mip`), comments comments (`mac`).

(contributor) @class.around
(contributor
  "{" (_)+ @class.inside "}")

(call) @function.around
(call
  "{" (_)+ @function.inside "}")

(pair) @parameter.around
(pair value: (_) @parameter.inside)
(list (_) @parameter.inside)

(comment) @comment.around
(comment) @comment.inside
