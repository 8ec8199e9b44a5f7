"""Tile and vectorize a matmul with a transform script while holding handles.

    PYTHONPATH=build/python_packages python3 examples/transform_tiling.py

The caller binds its handle to the matmul to an argument of the script's entry
sequence. After the run, that handle is erased (tiling consumed the matmul),
the loops and the vector reduction the script yields come back as live
handles, and the handles outside the transformed function were never touched.
"""

from mlir_tracking import ir
from mlir_tracking.dialects.transform import interpreter

PAYLOAD = """
func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                  %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                     outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
func.func @untouched(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
"""

SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %func: !transform.any_op {transform.readonly},
      %matmul: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    // Tile the matmul into 4x8 tiles of its output.
    %tiled, %i, %j = transform.structured.tile_using_for %matmul
        tile_sizes [4, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
    // Vectorize the tile (static shapes: no masks needed) and clean up.
    transform.structured.vectorize %tiled : !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %reduction = transform.structured.match ops{["vector.multi_reduction"]}
        in %func : (!transform.any_op) -> !transform.any_op
    transform.yield %i, %j, %reduction
        : !transform.any_op, !transform.any_op, !transform.any_op
  }
}
"""


def main():
    with ir.Context():
        payload = ir.Module.parse(PAYLOAD)
        script = ir.Module.parse(SCRIPT)
        func, untouched = payload.body.operations
        matmul = func.regions[0].blocks[0].operations[0]
        addf = untouched.regions[0].blocks[0].operations[0]

        (outer,), (inner,), reductions = interpreter.apply_named_sequence(
            func, script.body.operations[0], script, args=[matmul]
        )

        print("matmul handle:", matmul.handle_state)
        print("  ", matmul.handle_history[-1])
        print("outer loop:", outer.name, outer.handle_state)
        print("inner loop:", inner.name, "nested in outer:",
              inner.parent == outer)
        print("vectorized:", [op.name for op in reductions])
        print("untouched function:", untouched.handle_state, addf.handle_state)
        print(func)


if __name__ == "__main__":
    main()
