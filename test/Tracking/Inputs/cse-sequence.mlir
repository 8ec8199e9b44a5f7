// A transform library for transform-interpreter-self-library.mlir: CSE on
// the given op.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @lib_cse(%r: !transform.any_op {transform.readonly}) {
    transform.apply_cse to %r : !transform.any_op
    transform.yield
  }
}
