# RUN: %PYTHON %s | FileCheck %s
# dialects.transform.interpreter: a transform script run on payload IR while
# Python holds handles into it. Bound handles follow the transform dialect's
# own tracking, results come back as handles, failures raise MLIRError (a
# ValueError too, as upstream).

import gc

from mlir_tracking import ir
from mlir_tracking.dialects.transform import interpreter
from tracking_testing import MATMUL, TILE, find


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f




# CHECK-LABEL: TEST: test_tile_matmul
@run
def test_tile_matmul():
    with ir.Context():
        payload = ir.Module.parse(MATMUL)
        script = ir.Module.parse(TILE)
        script_text = str(script)
        (func,) = find(payload.operation, "func.func", None)[1:]
        (matmul,) = find(payload.operation, "linalg.matmul")
        (outside,) = find(payload.operation, "func.return", "outside")
        (inside,) = find(payload.operation, "func.return", "inside")
        entry = script.body.operations[0]
        tiled, outer, inner = interpreter.apply_named_sequence(
            func, entry, script, args=[matmul]
        )
        # CHECK: matmul: erased
        print("matmul:", matmul.handle_state)
        # CHECK: consumed by: True
        print(
            "consumed by:",
            any("tile_using_for" in event for event in matmul.handle_history),
        )
        # CHECK: results: linalg.matmul scf.for scf.for
        print("results:", tiled[0].name, outer[0].name, inner[0].name)
        # CHECK: nested: True
        print("nested:", inner[0].parent == outer[0])
        # CHECK: live: live live live
        print("live:", outside.handle_state, inside.handle_state, func.handle_state)
        # CHECK: tile sizes: tensor<4x16xf32>
        print("tile sizes:", tiled[0].operands[0].type)
        # CHECK: script unchanged: True
        print("script unchanged:", str(script) == script_text)
        try:
            matmul.name
        except ir.InvalidatedHandleError as error:
            # CHECK: error: operation handle to 'linalg.matmul' {{.*}} is erased
            print("error:", error)


# CHECK-LABEL: TEST: test_canonicalize_follows_replacement
@run
def test_canonicalize_follows_replacement():
    with ir.Context():
        payload = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %c1 = arith.constant 1 : i32
            %c2 = arith.constant 2 : i32
            %x = arith.addi %a, %c1 : i32
            %y = arith.addi %x, %c2 : i32
            %dead = arith.muli %a, %a : i32
            return %y : i32
          }
        """)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly},
                %add: !transform.any_op {transform.readonly},
                %dead: !transform.any_op {transform.readonly}) {
              transform.apply_patterns to %root {
                transform.apply_patterns.canonicalization
              } : !transform.any_op
              transform.annotate %add "followed" : !transform.any_op
              transform.yield
            }
          }
        """)
        func = payload.body.operations[0]
        inner, outer = find(func, "arith.addi")
        (dead,) = find(func, "arith.muli")
        result = interpreter.apply_named_sequence(
            func, script.body.operations[0], script, args=[outer, [dead]]
        )
        # CHECK: results: []
        print("results:", result)
        # (x + 1) + 2 became x + 3: the bound handle follows the new addi.
        # CHECK: outer: live arith.addi followed=True
        print("outer:", outer.handle_state, outer.name, "followed=" + str("followed" in outer.attributes))
        # CHECK: replaced: True
        print("replaced:", any("replaced by arith.addi" in e for e in outer.handle_history))
        # CHECK: dead: erased
        print("dead:", dead.handle_state)
        # CHECK: inner: erased
        print("inner:", inner.handle_state)
        # CHECK: same object: True
        print("same object:", find(func, "arith.addi")[0] is outer)


# CHECK-LABEL: TEST: test_failing_script
@run
def test_failing_script():
    with ir.Context():
        payload = ir.Module.parse(MATMUL)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly}) {
              %r = transform.structured.match ops{["func.return"]} in %root
                  : (!transform.any_op) -> !transform.any_op
              %t, %l = transform.structured.tile_using_for %r tile_sizes [4]
                  : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
              transform.yield
            }
          }
        """)
        func = payload.body.operations[1]
        (matmul,) = find(payload.operation, "linalg.matmul")
        (outside,) = find(payload.operation, "func.return", "outside")
        try:
            interpreter.apply_named_sequence(func, script.body.operations[0], script)
        except ValueError as error:
            # Upstream raises ValueError; ours is an MLIRError too, with the
            # diagnostics as objects.
            # CHECK: MLIRError: True 1
            print("MLIRError:", isinstance(error, ir.MLIRError), len(error.error_diagnostics))
            # CHECK: Failed to apply named transform sequence:
            # CHECK: error: {{.*}}only ops implementing TilingInterface are supported
            print(error)
        # CHECK: after failure: invalidated live live
        print("after failure:", matmul.handle_state, func.handle_state, outside.handle_state)
        # CHECK: payload still prints: True
        print("payload still prints:", "linalg.matmul" in str(payload))


# CHECK-LABEL: TEST: test_read_only_script
@run
def test_read_only_script():
    with ir.Context():
        payload = ir.Module.parse(MATMUL)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly},
                %mm: !transform.any_op {transform.readonly})
                -> !transform.any_op {
              transform.annotate %mm "scheduled" : !transform.any_op
              %funcs = transform.structured.match ops{["func.func"]} in %root
                  : (!transform.any_op) -> !transform.any_op
              transform.yield %funcs : !transform.any_op
            }
          }
        """)
        (matmul,) = find(payload.operation, "linalg.matmul")
        (ret,) = find(payload.operation, "func.return", "inside")
        options = interpreter.TransformOptions()
        options.expensive_checks = False
        # CHECK: TransformOptions(expensive_checks=False, enforce_single_top_level_transform_op=True)
        print(repr(options))
        (funcs,) = interpreter.apply_named_sequence(
            payload, script.body.operations[0], script, options, args=[matmul]
        )
        # CHECK: matmul: live scheduled=True
        print("matmul:", matmul.handle_state, "scheduled=" + str("scheduled" in matmul.attributes))
        # CHECK: ret: live
        print("ret:", ret.handle_state)
        # The results are the same Python objects as existing handles.
        # CHECK: funcs: 2 True
        print("funcs:", len(funcs), funcs[1] is ret.parent)


# CHECK-LABEL: TEST: test_bad_arguments
@run
def test_bad_arguments():
    with ir.Context():
        payload = ir.Module.parse(MATMUL)
        script = ir.Module.parse(TILE)
        entry = script.body.operations[0]
        func = payload.body.operations[1]
        (matmul,) = find(payload.operation, "linalg.matmul")
        (outside,) = find(payload.operation, "func.return", "outside")
        for args in ([], [outside], [matmul, matmul]):
            try:
                interpreter.apply_named_sequence(func, entry, script, args=args)
            except ir.MLIRError as error:
                # CHECK: refused: {{.*}}operation expects 1 extra value bindings, but 0 were provided to the interpreter
                # CHECK: refused: {{.*}}not the payload root nor nested in it
                # CHECK: refused: {{.*}}operation expects 1 extra value bindings, but 2 were provided to the interpreter
                print("refused:", str(error).splitlines()[1])
        try:
            interpreter.apply_named_sequence(func, entry, script, args=[42])
        except TypeError as error:
            # CHECK: type error: expected an Operation, a Module or an OpView, got int
            print("type error:", error)
        with ir.Context():
            other = ir.Module.parse(MATMUL)
        try:
            interpreter.apply_named_sequence(other, entry, script, args=[matmul])
        except ValueError as error:
            # CHECK: value error: the transform root belongs to another context
            print("value error:", error)
        # CHECK: untouched: live live
        print("untouched:", matmul.handle_state, outside.handle_state)


SIBLINGS = """
func.func @f(%a: i32) -> i32 {
  %x = arith.muli %a, %a : i32
  return %x : i32
}
func.func private @g(%a: i32) -> i32 {
  %y = arith.addi %a, %a : i32
  return %y : i32
}
func.func @h(%a: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %z = arith.addi %a, %zero : i32
  return %z : i32
}
"""


def climbing_script(action):
    # The payload root is @f; `action` works on the enclosing module.
    return ir.Module.parse("""
      module attributes {transform.with_named_sequence} {
        transform.named_sequence @__transform_main(
            %root: !transform.any_op {transform.readonly}) {
          %m = transform.get_parent_op %root {op_name = "builtin.module"}
              : (!transform.any_op) -> !transform.any_op
          """ + action + """
          transform.yield
        }
      }""")


def ops_of(payload, name):
    return [op for op in find(payload.operation, name)]


# CHECK-LABEL: TEST: test_script_reaching_outside_its_payload_root
@run
def test_script_reaching_outside_its_payload_root():
    # A script may climb to the module: handles outside the payload root
    # follow what it does there, as handles inside do.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        f, g, h = [op.operation for op in payload.body.operations]
        g_add = g.regions[0].blocks[0].operations[0].operation
        h_add, h_return = ops_of(payload, "arith.addi")[1], ops_of(payload, "func.return")[2]
        # Patterns (reported rewrites): @h's addi folds away, the rest stays.
        script = climbing_script("""
          transform.apply_patterns to %m {
            transform.apply_patterns.canonicalization
          } : !transform.any_op""")
        interpreter.apply_named_sequence(f, script.body.operations[0], script)
        # CHECK: patterns: live live live erased live
        print("patterns:", f.handle_state, g.handle_state, g_add.handle_state,
              h_add.handle_state, h_return.handle_state)

        # A pass (unreported rewrites) consumes the module: symbol-dce frees
        # @g, and nothing in the module can be vouched for any more.
        script = climbing_script("""
          %n = transform.apply_registered_pass "symbol-dce" to %m
              : (!transform.any_op) -> !transform.any_op""")
        interpreter.apply_named_sequence(f, script.body.operations[0], script)
        # CHECK: pass: live invalidated invalidated invalidated
        print("pass:", f.handle_state, g.handle_state, g_add.handle_state,
              h_return.handle_state)
        # CHECK: invalidated (inside payload consumed by 'transform.apply_registered_pass')
        print(g_add.handle_history[-1].split(": ")[-1])
        # CHECK: @g gone: True
        print("@g gone:", "@g" not in str(payload))


# CHECK-LABEL: TEST: test_loop_as_the_payload_root
@run
def test_loop_as_the_payload_root():
    # A payload root need not be isolated from above: Python holds the whole
    # tree, whose handles the run follows (as upstream, the script may climb
    # to the function around the loop).
    with ir.Context():
        payload = ir.Module.parse("""
          func.func @f(%a: i32, %lb: index, %ub: index, %st: index) -> i32 {
            %c1 = arith.constant 1 : i32
            %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %a) -> i32 {
              %x = arith.addi %acc, %c1 : i32
              %y = arith.muli %x, %c1 : i32
              scf.yield %y : i32
            }
            %w = arith.muli %r, %c1 : i32
            return %w : i32
          }""")
        func = payload.body.operations[0]
        loop = ops_of(payload, "scf.for")[0]
        inner, outer = ops_of(payload, "arith.muli")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @main(%root: !transform.any_op {transform.readonly}) {
              %f = transform.get_parent_op %root {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
              transform.apply_patterns to %f {
                transform.apply_patterns.canonicalization
              } : !transform.any_op
              transform.yield
            }
          }""")
        interpreter.apply_named_sequence(loop, script.body.operations[0], script)
        # CHECK: loop: live inner: erased outer: erased func: live
        print("loop:", loop.handle_state, "inner:", inner.handle_state,
              "outer:", outer.handle_state, "func:", func.operation.handle_state)
        # CHECK: transform-interpreter on scf.for: arith.muli {{.*}}: erased; dropped by the transform interpreter's tracking
        print(outer.handle_history[-1])


# CHECK-LABEL: TEST: test_erased_root_whose_address_a_new_op_takes
@run
def test_erased_root_whose_address_a_new_op_takes():
    # The script erases its payload root (a dead muli: no symbol, no
    # regions), then unrolls a loop into new muli ops, which may take its
    # address: the run still sees the root erased (it followed the root's
    # notifications; a comparison of address and name took the new op for
    # the root, and the handle read it as live).
    for step in ["transform.apply_dce to %f : !transform.any_op",
                 "transform.apply_patterns to %f {"
                 " transform.apply_patterns.canonicalization"
                 " } : !transform.any_op"]:
        for factor in [2, 4]:
            with ir.Context():
                payload = ir.Module.parse("""
                  func.func @f(%a: i32) -> i32 {
                    %c0 = arith.constant 0 : index
                    %c4 = arith.constant 4 : index
                    %c1 = arith.constant 1 : index
                    %dead = arith.muli %a, %a {tag = "root"} : i32
                    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> i32 {
                      %y = arith.muli %acc, %acc : i32
                      scf.yield %y : i32
                    }
                    return %r : i32
                  }""")
                root = [op for op in ops_of(payload, "arith.muli")
                        if "tag" in op.attributes][0]
                script = ir.Module.parse("""
                  module attributes {transform.with_named_sequence} {
                    transform.named_sequence @main(%root: !transform.any_op {transform.readonly}) {
                      %f = transform.get_parent_op %root {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
                      %l = transform.structured.match ops{["scf.for"]} in %f : (!transform.any_op) -> !transform.any_op
                      STEP
                      transform.loop.unroll %l {factor = FACTOR} : !transform.any_op
                      transform.yield
                    }
                  }""".replace("STEP", step).replace("FACTOR", str(factor)))
                outcome = "ran"
                try:
                    interpreter.apply_named_sequence(
                        root, script.body.operations[0], script)
                except ir.MLIRError as error:
                    outcome = "refused: " + str(
                        "erased its payload root" in str(error))
                print(outcome, root.handle_state)
# CHECK-COUNT-4: refused: True erased


# CHECK-LABEL: TEST: test_blocks_and_values_end_when_a_script_runs
@run
def test_blocks_and_values_end_when_a_script_runs():
    # The interpreter follows ops only: a pass or pattern in the script may
    # free a block or value without telling anyone.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        f = payload.body.operations[0].operation
        h = payload.body.operations[2].operation
        f_block, h_block = f.regions[0].blocks[0], h.regions[0].blocks[0]
        h_sum = h_block.operations[1].results[0]
        script = climbing_script("""
          transform.apply_patterns to %m {
            transform.apply_patterns.canonicalization
          } : !transform.any_op""")
        interpreter.apply_named_sequence(f, script.body.operations[0], script)
        for name, read in [("block of @f", lambda: len(f_block.operations)),
                           ("block of @h", lambda: len(h_block.operations)),
                           ("value of @h", lambda: h_sum.type)]:
            try:
                read()
            except ir.InvalidatedHandleError as error:
                # CHECK: block of @f: {{.*}}invalidated (the transform interpreter follows operations only)
                # CHECK: block of @h: {{.*}}invalidated (the transform interpreter follows operations only)
                # CHECK: value of @h: {{.*}}invalidated (the transform interpreter follows operations only)
                print(f"{name}:", error)
        # Read again from live op handles, they are the IR as it is now.
        # CHECK: reread: 1 ['func.return']
        print("reread:", len(h.regions[0].blocks),
              [op.name for op in h.regions[0].blocks[0].operations])


# CHECK-LABEL: TEST: test_failing_script_after_reaching_outside
@run
def test_failing_script_after_reaching_outside():
    # The script frees @g, then fails: no handle outside the payload root
    # may stay on what it changed.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        f, g, h = [op.operation for op in payload.body.operations]
        g_add = g.regions[0].blocks[0].operations[0].operation
        script = climbing_script("""
          %n = transform.apply_registered_pass "symbol-dce" to %m
              : (!transform.any_op) -> !transform.any_op
          %r = transform.structured.match ops{["func.return"]} in %n
              : (!transform.any_op) -> !transform.any_op
          %t, %l = transform.structured.tile_using_for %r tile_sizes [4]
              : (!transform.any_op) -> (!transform.any_op, !transform.any_op)""")
        try:
            interpreter.apply_named_sequence(f, script.body.operations[0], script)
        except ir.MLIRError as error:
            # CHECK: failed: {{.*}}only ops implementing TilingInterface are supported
            print("failed:", str(error).splitlines()[1])
        junk = [ir.Module.parse(SIBLINGS) for _ in range(20)]
        # CHECK: after failure: live invalidated invalidated invalidated
        print("after failure:", f.handle_state, g.handle_state,
              g_add.handle_state, h.handle_state)
        # CHECK: invalidated (the transform script failed)
        print(g_add.handle_history[-1].split(": ")[-1])
        # CHECK: @g gone: True
        print("@g gone:", "@g" not in str(payload))


# CHECK-LABEL: TEST: test_results_outside_the_payload_root
@run
def test_results_outside_the_payload_root():
    # Python holds the whole tree: the script may return any op of it.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        f = payload.body.operations[0].operation
        returns = ops_of(payload, "func.return")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly})
                -> (!transform.any_op, !transform.any_op) {
              %m = transform.get_parent_op %root {op_name = "builtin.module"}
                  : (!transform.any_op) -> !transform.any_op
              %r = transform.structured.match ops{["func.return"]} in %m
                  : (!transform.any_op) -> !transform.any_op
              transform.yield %m, %r : !transform.any_op, !transform.any_op
            }
          }""")
        module, found = interpreter.apply_named_sequence(
            f, script.body.operations[0], script)
        # CHECK: module: True returns: [True, True, True]
        print("module:", module[0] == payload.operation, "returns:",
              [a is b for a, b in zip(found, returns)])


# CHECK-LABEL: TEST: test_result_conversion_cannot_change_ir
@run
def test_result_conversion_cannot_change_ir():
    # A param result becomes a Python attribute first, through a caster
    # that tries to erase the op a later result names.
    with ir.Context():
        payload = ir.Module.parse("""
          func.func @f(%a: i32) {
            %unused = arith.muli %a, %a : i32
            return
          }""")
        f = payload.body.operations[0].operation
        (muli,) = ops_of(payload, "arith.muli")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly})
                -> (!transform.any_param, !transform.any_op) {
              %p = transform.param.constant 42 : i64 -> !transform.any_param
              %m = transform.structured.match ops{["arith.muli"]} in %root
                  : (!transform.any_op) -> !transform.any_op
              transform.yield %p, %m : !transform.any_param, !transform.any_op
            }
          }""")
        log = []

        def caster(attribute):
            try:
                muli.erase()
            except RuntimeError as error:
                log.append(str(error))
            return attribute

        ir.register_attribute_caster(ir.IntegerAttr.static_typeid, caster,
                                     replace=True)
        try:
            params, ops = interpreter.apply_named_sequence(
                f, script.body.operations[0], script)
        finally:
            ir.register_attribute_caster(ir.IntegerAttr.static_typeid,
                                         lambda attribute: attribute,
                                         replace=True)
        # CHECK: cannot change this IR now: apply_named_sequence holds it while it makes the Python objects of its results
        print(log[0])
        # CHECK: results: 42 : i64 True live
        print("results:", params[0], ops[0] is muli, muli.handle_state)


# CHECK-LABEL: TEST: test_alternatives_on_a_top_level_op
@run
def test_alternatives_on_a_top_level_op():
    # Upstream's transform.alternatives clones its scope beside it, which a
    # top-level op does not have (it crashed): the run fails instead.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly}) {
              %m = transform.get_parent_op %root {op_name = "builtin.module"}
                  : (!transform.any_op) -> !transform.any_op
              %r = transform.alternatives %m : !transform.any_op -> !transform.any_op {
              ^bb0(%scope: !transform.any_op):
                transform.yield %scope : !transform.any_op
              }
              transform.yield
            }
          }""")
        f = payload.body.operations[0].operation
        try:
            interpreter.apply_named_sequence(f, script.body.operations[0], script)
        except ir.MLIRError as error:
            # CHECK: 'transform.alternatives' cannot apply to 'builtin.module', which is top-level: it clones its scope beside it
            print(str(error).splitlines()[1])
        # CHECK: payload intact: True live
        print("payload intact:", payload.operation.verify(), f.handle_state)


# CHECK-LABEL: TEST: test_script_targeting_its_own_ancestor
@run
def test_script_targeting_its_own_ancestor():
    # The script runs from a copy, but upstream's check that a transform op
    # does not target an op containing it holds for the user's script.
    with ir.Context():
        payload = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            func.func @f(%x: i32) -> i32 {
              %c0 = arith.constant 0 : i32
              %a = arith.addi %x, %c0 : i32
              %b = arith.addi %x, %c0 : i32
              return %a : i32
            }
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly}) {
              transform.apply_cse to %root : !transform.any_op
              transform.yield
            }
          }""")
        entry = payload.body.operations[1]
        try:
            interpreter.apply_named_sequence(payload.operation, entry, payload)
        except ir.MLIRError as error:
            # CHECK: error: "-":11:15: cannot apply transform to itself (or one of its ancestors)
            # CHECK-NEXT: note: "-":2:11: target payload op
            print(str(error).splitlines()[1])
            print(str(error).splitlines()[2])
        # CHECK: CSE not applied: 3 ops
        print("CSE not applied:", len(payload.body.operations[0].regions[0].blocks[0].operations) - 1, "ops")


# CHECK-LABEL: TEST: test_payload_root_freed_and_its_address_reused
@run
def test_payload_root_freed_and_its_address_reused():
    # symbol-dce frees the payload root (an unused private function), then
    # the script outlines a loop into a new function, which the allocator
    # may put at the freed root's address: the root is still gone.
    with ir.Context():
        payload = ir.Module.parse("""
          func.func private @unused(%a: i32) -> i32 {
            return %a : i32
          }
          func.func @main(%lb: index, %ub: index, %step: index,
                          %m: memref<?xi32>, %v: i32) {
            scf.for %i = %lb to %ub step %step {
              memref.store %v, %m[%i] : memref<?xi32>
            }
            return
          }""")
        unused = payload.body.operations[0].operation
        script = climbing_script("""
          %m2 = transform.apply_registered_pass "symbol-dce" to %m
              : (!transform.any_op) -> !transform.any_op
          %loop = transform.structured.match ops{["scf.for"]} in %m2
              : (!transform.any_op) -> !transform.any_op
          %fn, %call = transform.loop.outline %loop {func_name = "outlined"}
              : (!transform.any_op) -> (!transform.any_op, !transform.any_op)""")
        try:
            interpreter.apply_named_sequence(unused, script.body.operations[0],
                                             script)
        except ir.MLIRError as error:
            # CHECK: the transform script erased its payload root
            print(str(error).splitlines()[1])
        # CHECK: root: erased
        print("root:", unused.handle_state)

    # Changing the root's attributes and location keeps it.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        f = payload.body.operations[0].operation
        script = climbing_script("""
          transform.annotate %root "visited" : !transform.any_op
          %m2 = transform.apply_registered_pass "strip-debuginfo" to %m
              : (!transform.any_op) -> !transform.any_op""")
        interpreter.apply_named_sequence(f, script.body.operations[0], script)
        # CHECK: changed root: live True loc(unknown)
        print("changed root:", f.handle_state, "visited" in f.attributes,
              f.location)


# CHECK-LABEL: TEST: test_expensive_checks_stay_on
@run
def test_expensive_checks_stay_on():
    # The script uses a handle into payload that a pass it ran freed; with
    # upstream's expensive checks off the interpreter would return whatever
    # op sits at the freed address now. The tracked interpreter keeps them.
    with ir.Context():
        payload = ir.Module.parse(SIBLINGS)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.consumed})
                -> !transform.any_op {
              %g = transform.structured.match ops{["func.func"]}
                  attributes {sym_name = "g"} in %root
                  : (!transform.any_op) -> !transform.any_op
              %add = transform.structured.match ops{["arith.addi"]} in %g
                  : (!transform.any_op) -> !transform.any_op
              %after = transform.apply_registered_pass "symbol-dce" to %root
                  : (!transform.any_op) -> !transform.any_op
              %stale = transform.merge_handles %add, %add {deduplicate}
                  : !transform.any_op
              transform.yield %stale : !transform.any_op
            }
          }""")
        options = interpreter.TransformOptions()
        options.expensive_checks = False
        try:
            interpreter.apply_named_sequence(
                payload.operation, script.body.operations[0], script,
                transform_options=options)
        except ir.MLIRError as error:
            # CHECK: uses a handle invalidated by a previously executed transform op
            print(str(error).splitlines()[1])


# CHECK-LABEL: TEST: test_interpreter_pass_reaching_out_of_its_anchor
@run
def test_interpreter_pass_reaching_out_of_its_anchor():
    # Upstream's transform-interpreter pass, run on a nested module, let its
    # script climb out (get_parent_op) and canonicalize a function outside:
    # the handle of the op it erased stayed live on freed memory. Its
    # fallback covers the whole tree.
    from mlir_tracking.passmanager import PassManager

    with ir.Context():
        module = ir.Module.parse("""
          func.func @outside(%a: i32) -> i32 {
            %dead = arith.muli %a, %a : i32
            return %a : i32
          }
          module @inner attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(%root: !transform.any_op) {
              %outer = transform.get_parent_op %root {op_name = "builtin.module"}
                  : (!transform.any_op) -> !transform.any_op
              %f = transform.structured.match ops{["func.func"]} in %outer
                  : (!transform.any_op) -> !transform.any_op
              transform.apply_patterns to %f {
                transform.apply_patterns.canonicalization
              } : !transform.any_op
              transform.yield
            }
          }""")
        dead = module.body.operations[0].regions[0].blocks[0].operations[0]
        PassManager.parse("builtin.module(transform-interpreter)").run(
            module.body.operations[1])
        # CHECK: invalidated transform-interpreter on builtin.module @inner: arith.muli {{.*}}: invalidated (pass is not precise)
        print(dead.handle_state, dead.handle_history[-1])
        # CHECK-NEXT: 1
        print(len(module.body.operations[0].regions[0].blocks[0].operations))


# CHECK-LABEL: TEST: test_copy_symbols_and_merge_into
@run
def test_copy_symbols_and_merge_into():
    # Upstream's copy_symbols_and_merge_into(target, other): the symbols of
    # a copy of `other` move into `target`; colliding private symbols are
    # renamed, a declaration and a definition of one function merge. Held
    # handles of `target` stay live, except the declaration merged away.
    with ir.Context() as ctx:
        target = ir.Module.parse("""
          func.func private @helper(i32) -> i32
          func.func private @dup() { return }
          func.func @main(%a: i32) -> i32 {
            %0 = func.call @helper(%a) : (i32) -> i32
            func.call @dup() : () -> ()
            return %0 : i32
          }""")
        other = ir.Module.parse("""
          func.func @helper(%x: i32) -> i32 { return %x : i32 }
          func.func private @dup() { %c = arith.constant 1 : i32 return }
          func.func @extra() { func.call @dup() : () -> () return }""")
        helper, dup, main = target.body.operations
        call = main.regions[0].blocks[0].operations[1]
        other_text = str(other)
        # A run marks the tree verified; the merge clears the mark, so the
        # next run verifies it again.
        from mlir_tracking.passmanager import PassManager
        pm = PassManager.parse("builtin.module(cse)")
        pm.run(target)
        count = ctx._get_verification_count()
        pm.run(target)
        interpreter.copy_symbols_and_merge_into(target, other)
        verified = ctx._get_verification_count()
        # CHECK:      func.func private @dup_0() {
        # CHECK:      func.func @main(%arg0: i32) -> i32 {
        # CHECK-NEXT:   %0 = call @helper(%arg0) : (i32) -> i32
        # CHECK-NEXT:   call @dup_0() : () -> ()
        # CHECK:      func.func @helper(%arg0: i32) -> i32 {
        # CHECK:      func.func private @dup() {
        # CHECK-NEXT:   %c1_i32 = arith.constant 1 : i32
        # CHECK:      func.func @extra() {
        # CHECK-NEXT:   call @dup() : () -> ()
        print(target)
        # CHECK: erased live live live True True
        print(helper.operation.handle_state, dup.operation.handle_state,
              main.operation.handle_state, call.operation.handle_state,
              str(other) == other_text, target.operation.verify())
        # CHECK-NEXT: python: func.func at loc("-":2:11): erased; copy_symbols_and_merge_into merged this declaration with a definition of the same symbol
        print(helper.operation.handle_history[-1])
        # CHECK-NEXT: dup_0 @dup_0
        print(dup.sym_name.value, call.operation.attributes["callee"])
        pm.run(target)
        # CHECK-NEXT: 0 1
        print(verified - count, ctx._get_verification_count() - verified)
        ctx._verify_tracking()

        # A public collision fails; the private one the merge renamed first
        # is renamed only in its trial on a copy: `target` is unchanged.
        before = str(target)
        clash = ir.Module.parse("""
          func.func private @dup_0() { return }
          func.func @main() { func.call @dup_0() : () -> () return }""")
        try:
            interpreter.copy_symbols_and_merge_into(target, clash)
        except ValueError as e:
            # Upstream raises ValueError; ours is an MLIRError too.
            # CHECK-NEXT: MLIRError: True
            print("MLIRError:", isinstance(e, ir.MLIRError))
            # CHECK-NEXT: Failed to merge symbols:
            # CHECK-NEXT: error: "-":4:11: doubly defined symbol @main
            print("\n".join(str(e).splitlines()[:2]))
        # CHECK-NEXT: True live
        print(str(target) == before, dup.operation.handle_state)

        # Refusals.
        func = target.body.operations[0]
        for args in [(func, other), (target, func)]:
            try:
                interpreter.copy_symbols_and_merge_into(*args)
            except ValueError as e:
                # CHECK-NEXT: `target` must be a symbol table with one block (a builtin.module), got 'func.func'
                # CHECK-NEXT: `other` must be a symbol table with one block (a builtin.module), got 'func.func'
                print(str(e).split(": ", 1)[1])
        with ir.Context():
            foreign = ir.Module.parse("func.func @z() { return }")
        try:
            interpreter.copy_symbols_and_merge_into(target, foreign)
        except ValueError as e:
            # CHECK-NEXT: `other` belongs to another context than `target`
            print(str(e).split(": ", 1)[1])
        # CHECK-NEXT: True
        print(str(target) == before)


# CHECK-LABEL: TEST: test_roots_that_are_no_named_sequence
@run
def test_roots_that_are_no_named_sequence():
    # Upstream's words for a root that is no transform op (programs match on
    # them), and its ValueError for a transform module of another kind.
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse("module attributes {this.is.payload} {}")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(%root: !transform.any_op) {
              transform.yield
            }
          }""")
        entry = script.body.operations[0]
        try:
            interpreter.apply_named_sequence(payload, payload, payload)
        except ValueError as error:
            # CHECK: operation must implement TransformOpInterface to be used as transform root
            print(str(error).splitlines()[1])
        try:
            interpreter.apply_named_sequence(payload, entry, entry)
        except ValueError as error:
            # CHECK: ValueError transform_module must be a builtin.module
            print(type(error).__name__, error)


# CHECK-LABEL: TEST: test_scripts_that_held_handles_changed
@run
def test_scripts_that_held_handles_changed():
    # Holding handles must not change what a script does. A conversion with
    # preserve_handles wants a replacement for every handle it sees alive:
    # the caller's (through the interpreter's hidden arguments) made it fail,
    # or segfault in upstream's listener. And a result pointing into payload
    # a transform op consumed failed the run: it comes back empty.
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse("""
          func.func @f(%n: index, %cond: i1) -> index {
            %c4 = arith.constant 4 : index
            %r = scf.if %cond -> index {
              %b = arith.muli %n, %c4 : index
              scf.yield %b : index
            } else {
              scf.yield %n : index
            }
            return %r : index
          }""")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) -> !transform.any_op {
              %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
              transform.apply_conversion_patterns to %f {
                transform.apply_conversion_patterns.dialect_to_llvm "arith"
              } with type_converter {
                transform.apply_conversion_patterns.memref.memref_to_llvm_type_converter
              } {legal_dialects = ["llvm"], partial_conversion, preserve_handles} : !transform.any_op
              %c = transform.structured.match ops{["llvm.mlir.constant"]} in %root : (!transform.any_op) -> !transform.any_op
              %f2 = transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
              transform.yield %c : !transform.any_op
            }
          }""")
        func = payload.body.operations[0]
        (constant,) = find(payload.operation, "arith.constant")
        (muli,) = find(payload.operation, "arith.muli")
        results = interpreter.apply_named_sequence(payload, script.body.operations[0], script)
        # (The function too: the pass consumed it.)
        # CHECK: results: {{\[\[\]\]}} invalidated invalidated invalidated llvm.mlir.constant
        print("results:", results, constant.handle_state, muli.handle_state,
              func.handle_state, find(payload.operation, "llvm.mlir.constant")[0].name)
        # CHECK: invalidated (inside payload converted by 'transform.apply_conversion_patterns' with preserve_handles
        print(constant.handle_history[-1].split(": ", 2)[-1][:110])


# CHECK-LABEL: TEST: test_foreach_match_action_outside_its_op
@run
def test_foreach_match_action_outside_its_op():
    # foreach_match runs its actions during its walk of the payload; an action
    # that canonicalizes the enclosing function erases the next arith.addi,
    # which the walk then read freed (a segfault upstream). The run stops
    # with an error instead, and the payload stays usable.
    payload_text = """
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %x, %c0 : i32
  return %y : i32
}"""
    with ir.Context():
        payload = ir.Module.parse(payload_text)
        script = ir.Module.parse("""
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @annotate(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "seen" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_add -> @simplify_function : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @annotate_all(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_add -> @annotate : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}""")
        entry, annotate_all = script.body.operations[3], script.body.operations[4]
        try:
            interpreter.apply_named_sequence(payload.operation, entry, script)
        except ir.MLIRError as e:
            # CHECK: MLIRError: a transform.foreach_match action erased or moved payload outside the op it was applied to
            print("MLIRError:", e.error_diagnostics[0].message.split(" (")[0])
        # CHECK-NEXT: verifies: True
        print("verifies:", payload.operation.verify())
        # An action that changes only its op runs as usual, and the script's
        # own sequences are as they were.
        payload = ir.Module.parse(payload_text)
        interpreter.apply_named_sequence(payload.operation, annotate_all, script)
        # CHECK-NEXT: annotated: 2
        print("annotated:", str(payload).count("seen"))
        # CHECK-NEXT: script unchanged: True
        print("script unchanged:", "note_walked" not in str(script))


# CHECK-LABEL: TEST: test_foreach_body_erasing_later_payload
@run
def test_foreach_body_erasing_later_payload():
    # transform.foreach maps each iteration from the payload it copied when
    # it began: a body that merges the next constant into the first (by
    # canonicalizing their function) made upstream annotate the freed one
    # (a segfault). The run stops with an error instead.
    with ir.Context():
        payload = ir.Module.parse("""
func.func @f() -> (i32, i32) {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i32
  return %a, %b : i32, i32
}""")
        script = ir.Module.parse("""
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %cs = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %cs : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.annotate %c "seen" : !transform.any_op
    }
    transform.yield
  }
}""")
        a, b = find(payload.operation, "arith.constant")
        try:
            interpreter.apply_named_sequence(payload.operation, script.body.operations[0], script)
        except ir.MLIRError as e:
            # CHECK: MLIRError: a transform.foreach body erased or replaced payload that a later iteration is applied to
            print("MLIRError:", e.error_diagnostics[0].message.split(" or that")[0])
        # CHECK-NEXT: handles: invalidated invalidated
        print("handles:", a.handle_state, b.handle_state)
        # CHECK-NEXT: verifies: True 1
        print("verifies:", payload.operation.verify(), str(payload).count("arith.constant"))


# CHECK-LABEL: TEST: test_action_applied_while_running
@run
def test_action_applied_while_running():
    # A foreach_match action whose walk applies it again while it runs (the
    # copy of @act the include's walk applies, reaching @c from @b): the
    # inner application of upstream's interpreter shares the region's
    # mappings and erases them when it ends (its foreach fails at once, on a
    # marked module, suppressed), and the outer one segfaulted consuming the
    # sequence's handle. Refused before the inner one runs.
    with ir.Context():
        payload = ir.Module.parse("""
module @a {
  module @ma {
    func.func @fa() -> i32 {
      %0 = arith.constant 7 : i32
      return %0 : i32
    }
  }
  module @mb {
    func.func @fb() -> (i32, i32, i32) {
      %0 = arith.constant 1 : i32
      %1 = arith.constant 1 : i32
      %2 = arith.constant 2 : i32
      return %0, %1, %2 : i32, i32, i32
    }
  }
  module @b {
  }
  module @c {
  }
}""")
        script = ir.Module.parse("""
module attributes {transform.with_named_sequence} {
  transform.named_sequence @is_module(%op: !transform.any_op {transform.readonly}, %items: !transform.any_op {transform.readonly}, %next: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["builtin.module"] : !transform.any_op
    transform.yield %op, %items, %next, %items, %op : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
  }
  // Runs on %items, then applies itself to %next (its items forwarded).
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}, %items: !transform.any_op {transform.readonly}, %next: !transform.any_op {transform.readonly}, %items2: !transform.any_op {transform.readonly}, %next2: !transform.any_op {transform.readonly}) {
    transform.foreach %items : !transform.any_op {
    ^bb0(%x: !transform.any_op):
      // Fails when the module holding %x is marked.
      transform.foreach %x : !transform.any_op {
      ^bb1(%z: !transform.any_op):
        %zm = transform.get_parent_op %z {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
        %marked = transform.structured.match ops{["builtin.module"]} attributes{"x.mark"} in %zm : (!transform.any_op) -> !transform.any_op
        %n = transform.num_associations %marked : (!transform.any_op) -> !transform.param<i64>
        %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
        transform.match.param.cmpi eq %n, %zero : !transform.param<i64>
      }
      %m = transform.get_parent_op %x {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
      transform.annotate %m "x.mark" : !transform.any_op
      %f = transform.get_parent_op %x {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.sequence %next : !transform.any_op failures(suppress) {
      ^bb2(%root: !transform.any_op):
        transform.foreach_match restrict_root in %root, %items2, %next2 @is_module -> @act : (!transform.any_op, !transform.any_op, !transform.any_op) -> !transform.any_op
        transform.yield
      }
    }
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fa = transform.structured.match ops{["func.func"]} attributes{sym_name = "fa"} in %root : (!transform.any_op) -> !transform.any_op
    %fb = transform.structured.match ops{["func.func"]} attributes{sym_name = "fb"} in %root : (!transform.any_op) -> !transform.any_op
    %ca = transform.structured.match ops{["arith.constant"]} in %fa : (!transform.any_op) -> !transform.any_op
    %cb = transform.structured.match ops{["arith.constant"]} in %fb : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["builtin.module"]} attributes{sym_name = "b"} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["builtin.module"]} attributes{sym_name = "c"} in %root : (!transform.any_op) -> !transform.any_op
    transform.include @act failures(propagate) (%root, %ca, %b, %cb, %c) : (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) -> ()
    transform.yield
  }
}""")
        try:
            interpreter.apply_named_sequence(payload.operation, script.body.operations[-1], script)
            print("ran")
        except ir.MLIRError as e:
            # CHECK: MLIRError: a transform.foreach_match action was applied while it was running
            print("MLIRError:", e.error_diagnostics[0].message.split(" (a walk")[0])
        # CHECK-NEXT: verifies: True 2
        print("verifies:", payload.operation.verify(), str(payload).count("x.mark"))


# CHECK-LABEL: TEST: test_entry_that_does_not_verify
@run
def test_entry_that_does_not_verify():
    # An entry built from Python that declares a result and yields none ran,
    # and returned no result list at all: the tracked route includes a copy
    # of the entry without its results, which then verified. The entry is
    # verified first now.
    from mlir_tracking.dialects import transform

    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse("func.func @f() { return }")
        script = ir.Module.create()
        script.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(script.body):
            entry = transform.NamedSequenceOp("__transform_main", [any_op], [any_op])
            with ir.InsertionPoint(entry.body):
                transform.YieldOp([])
        try:
            interpreter.apply_named_sequence(payload.operation, entry, script)
            print("ran")
        except ir.MLIRError as error:
            # CHECK: refused: expected terminator to have as many operands as the parent op has results
            # CHECK-NEXT: refused: the transform script does not verify
            for diag in error.error_diagnostics:
                print("refused:", diag.message)
        # CHECK-NEXT: payload: True
        print("payload:", payload.operation.verify())


# CHECK-LABEL: TEST: test_yield_of_a_consumed_handle
@run
def test_yield_of_a_consumed_handle():
    # A foreach_match action that consumes its op's handle and yields it:
    # upstream's foreach_match reads the yielded handle after the action,
    # and had no mapping for it (a segfault). It is refused as any use of a
    # consumed handle is.
    with ir.Context():
        payload = ir.Module.parse("""
func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}""")
        script = ir.Module.parse("""
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %u, %r = transform.foreach_match in %root @match_add -> @tile : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}""")
        (add,) = find(payload.operation, "arith.addi")
        func = payload.body.operations[0]
        try:
            interpreter.apply_named_sequence(func, script.body.operations[2], script)
        except ir.MLIRError as e:
            # CHECK: MLIRError: op uses a handle invalidated by a previously executed transform op
            print("MLIRError:", e.error_diagnostics[0].message)
        # CHECK-NEXT: add: invalidated
        print("add:", add.handle_state)
        # CHECK-NEXT: verifies: True
        print("verifies:", payload.operation.verify())


# CHECK-LABEL: TEST: test_split_handle_overflow_with_too_few_payloads
@run
def test_split_handle_overflow_with_too_few_payloads():
    # transform.split_handle with an overflow result on a handle that
    # matched nothing (passed through) aborted the process in upstream's op
    # ("SmallVector unable to grow"). It fails with an error instead.
    with ir.Context():
        payload = ir.Module.parse("func.func @f() { return }")
        script = ir.Module.parse("""
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %none = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.split_handle %none {overflow_result = 1} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}""")
        (ret,) = find(payload.operation, "func.return")
        try:
            interpreter.apply_named_sequence(payload.operation, script.body.operations[0], script)
        except ir.MLIRError as e:
            # CHECK: MLIRError: 'transform.split_handle' with an overflow result got 0 payload(s) for 2 results
            print("MLIRError:", e.error_diagnostics[0].message.split(":")[0])
        # CHECK-NEXT: return: invalidated
        print("return:", ret.handle_state)
