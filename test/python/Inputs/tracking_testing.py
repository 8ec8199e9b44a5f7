"""Helpers and payloads shared by the Python lit tests.

Not a test (lit excludes `Inputs/`); test/lit.cfg.py puts this folder on
PYTHONPATH. Each test still defines its own `run(f)`, as upstream's do.
"""

from mlir_tracking import ir, rewrite


def ops_of(func):
    """The ops of the entry block of `func`."""
    return list(func.regions[0].blocks[0].operations)


def check_tracking(context=None):
    """The registry matches the IR held from Python."""
    problems = (context or ir.Context.current)._verify_tracking()
    assert problems == [], problems


def find(root, name, tag=None):
    """The ops named `name` under `root` (with `tag = "<tag>"` if given)."""
    found = []

    def visit(op):
        if op.name == name and (
            tag is None
            or ("tag" in op.attributes and str(op.attributes["tag"]) == f'"{tag}"')
        ):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


# Patterns (rewrite.add(name, fn)).


def swap_muli(op, rewriter):
    """muli(x, y) -> muli(y, x) tagged 'swapped': a same-name replacement."""
    if "swapped" in op.attributes:
        return rewriter.notify_match_failure(op, "already swapped")
    with rewriter.ip:
        new = ir.Operation.create(
            "arith.muli",
            results=[op.results[0].type],
            operands=[op.operands[1], op.operands[0]],
            attributes={"swapped": ir.UnitAttr.get()},
            loc=op.location,
        )
    rewriter.replace_op(op, new)


def to_addi_values(op, rewriter):
    """A binary op -> the result of a new addi of its operands: a replacement
    by values of an op of another name."""
    with rewriter.ip:
        new = ir.Operation.create(
            "arith.addi",
            results=[op.results[0].type],
            operands=[op.operands[0], op.operands[1]],
            loc=op.location,
        )
    rewriter.replace_op(op, [new.results[0]])


def no_folding():
    """A greedy config that only applies patterns (no folding, no region
    simplification), so that the patterns' effect is all there is."""
    config = rewrite.GreedyRewriteConfig()
    config.enable_folding = False
    config.region_simplification_level = rewrite.GreedySimplifyRegionLevel.DISABLED
    return config


# Transform interpreter payload and script.

# Two functions: @outside must not be touched by a script run on @matmul.
# A function whose loop doubles each element of a buffer (for loop
# transforms: unrolling it repeats the body).
DOUBLING_LOOP = """
module {
  func.func @f(%buffer: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %buffer[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %buffer[%i] : memref<8xf32>
    }
    return
  }
}
"""

MATMUL = """
module {
  func.func @outside() {
    return {tag = "outside"}
  }
  func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                    %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %0 = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                       outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
    return {tag = "inside"} %0 : tensor<8x32xf32>
  }
}
"""

# Tiles the op bound to %mm by 4x8 with scf.for loops.
TILE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %mm: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    %tiled, %loops:2 = transform.structured.tile_using_for %mm
        tile_sizes [4, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
    transform.yield %tiled, %loops#0, %loops#1
        : !transform.any_op, !transform.any_op, !transform.any_op
  }
}
"""
