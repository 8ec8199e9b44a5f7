// A script that outlines the loops of its payload root into new functions,
// which transform.loop.outline inserts into the symbol table around them.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %call = transform.loop.outline %loops {func_name = "outlined"} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
