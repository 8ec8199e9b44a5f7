// The library of transform-interpreter-held-ir-matchers.mlir: a
// foreach_match and a collect_matching with one matcher.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @annotate(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.annotate %op "seen" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %all = transform.collect_matching @match_add in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %all "collected" : !transform.any_op
    %u, %r = transform.foreach_match in %root @match_add -> @annotate : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %r "done" : !transform.any_op
    transform.yield
  }
}
