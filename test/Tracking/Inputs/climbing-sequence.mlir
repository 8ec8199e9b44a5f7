// A script that climbs from its payload root to the module and
// canonicalizes the function @k there.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.get_parent_op %root {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
    %k = transform.structured.match ops{["func.func"]} attributes {sym_name = "k"} in %m : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %k {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
