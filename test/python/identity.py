# RUN: %PYTHON %s | FileCheck %s
# Identity of Python objects across rewrites: `==`/`hash` of operations never
# change (CSE merges), blocks and regions are never aliased by new IR at a
# reused address, values follow their SSA value (never another one by
# position), and IR is never rewired or freed under a use.

import gc

from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def body(func):
    return list(func.regions[0].blocks[0].operations)


def parse_adds(count, more_functions=""):
    """A module whose @f(%a: i32) holds `count` unused `arith.addi`s."""
    adds = "\n".join(f"%v{i} = arith.addi %a, %a : i32" for i in range(count))
    return ir.Module.parse(
        f"func.func @f(%a: i32) {{\n{adds}\nreturn\n}}\n{more_functions}")


def expect(error_type, fn):
    try:
        fn()
    except error_type as error:
        print(f"{error_type.__name__}: {error}")
        return
    print(f"no {error_type.__name__}")


# CHECK-LABEL: TEST: test_merged_handles_in_dict_and_set
@run
def test_merged_handles_in_dict_and_set():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> (i32, i32, i32) {
            %0 = arith.addi %a, %b : i32
            %1 = arith.addi %a, %b : i32
            %2 = arith.muli %a, %b : i32
            return %0, %1, %2 : i32, i32, i32
          }""")
        first, second, muli, ret = body(module.body.operations[0])
        names = {first: "first", second: "second", muli: "muli"}
        held = {first, second, muli}
        hashes = [hash(op) for op in (first, second, muli)]
        PassManager.parse("builtin.module(cse)").run(module)
        # Before the fix, `second` hashed like `first` after the merge: the
        # dict lookup missed and the set held two "equal" elements.
        # CHECK: second first 3 True
        print(names[second], names[first], len(held),
              hashes == [hash(op) for op in (first, second, muli)])
        # CHECK: True True False False
        print(second in held, first.same_op(second), first == second,
              first.same_op(muli))
        # The op's own handle is what every path to the op returns.
        # CHECK: True True True
        print(second.canonical_handle is first.operation,
              ret.operands[1].owner is first,
              second.canonical_handle.same_op(second))
        # same_op accepts a Module (its operation) and rejects other objects.
        # CHECK: True False
        print(module.operation.same_op(module), first.same_op(module))
        expect(TypeError, lambda: first.same_op(3))


# CHECK-LABEL: TEST: test_same_op_when_not_live
@run
def test_same_op_when_not_live():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %0 = arith.addi %a, %b : i32
            %1 = arith.addi %a, %b : i32
            %2 = arith.muli %0, %1 : i32
            return %a : i32
          }""")
        first, second, muli, ret = body(module.body.operations[0])
        key = hash(second)
        PassManager.parse("builtin.module(cse,canonicalize)").run(module)
        # Both erased (dead code) after the merge: still the same op, hash
        # unchanged; canonical_handle raises.
        # CHECK: erased erased True True
        print(first.handle_state, second.handle_state, first.same_op(second),
              hash(second) == key)
        # CHECK: InvalidatedHandleError: operation handle to 'arith.addi'
        expect(ir.InvalidatedHandleError, lambda: second.canonical_handle)


# CHECK-LABEL: TEST: test_value_follows_its_value_not_its_position
@run
def test_value_follows_its_value_not_its_position():
    with ir.Context():
        module = ir.Module.parse("""
          func.func private @get() -> i32
          func.func @f(%c: i1) -> i32 {
            %0:2 = scf.if %c -> (i32, i32) {
              %x = func.call @get() : () -> i32
              %y = func.call @get() : () -> i32
              scf.yield %x, %y : i32, i32
            } else {
              %x = func.call @get() : () -> i32
              %y = func.call @get() : () -> i32
              scf.yield %x, %y : i32, i32
            }
            return %0#1 : i32
          }""")
        func = module.body.operations[1]
        if_op, ret = body(func)
        unused, used = if_op.results
        then_block = if_op.regions[0].blocks[0]
        then_region = if_op.regions[0]
        region_hash = hash(then_region)
        PassManager.parse("builtin.module(canonicalize)").run(module)
        # canonicalize rebuilt the scf.if with one result: the handle follows
        # the op, `used` follows its value (now result #0), `unused` had no
        # replacement. Before the fix, `unused` named the new result #0.
        # CHECK: live 1 True 0 True
        print(if_op.handle_state, len(if_op.results),
              used.owner is if_op, used.result_number,
              ret.operands[0] == used)
        # CHECK: erased False
        print(unused.handle_state, unused.is_valid)
        # CHECK: InvalidatedHandleError: value handle to result #0 of 'scf.if' at loc("-":4:{{[0-9]+}}) is erased: canonicalize on builtin.module: {{.*}}replaced by no value
        expect(ir.InvalidatedHandleError, lambda: unused.type)
        # CHECK: <mlir_tracking.ir.Value of a handle that is not live>
        print(repr(unused))
        # The then-block moved into the new op: the same block, still live.
        # CHECK: True True
        print(then_block.is_valid, then_block.owner is if_op)
        # A Region is region #i of the op its handle refers to: hash and ==
        # unchanged, and it holds the same (moved) block.
        # CHECK: True True True
        print(hash(then_region) == region_hash,
              then_region == if_op.regions[0],
              then_region.blocks[0] == then_block)


# CHECK-LABEL: TEST: test_value_follows_fold_to_block_argument
@run
def test_value_follows_fold_to_block_argument():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%x: i32, %y: i32) -> i32 {
            %c0 = arith.constant 0 : i32
            %0 = arith.addi %x, %c0 : i32
            %1 = arith.muli %y, %0 : i32
            return %1 : i32
          }""")
        func = module.body.operations[0]
        entry = func.regions[0].blocks[0]
        y = entry.arguments[1]
        c0, addi, muli, ret = body(func)
        total = addi.result
        product = muli.result
        PassManager.parse("builtin.module(canonicalize)").run(module)
        # The op handle is erased (no replacement op); the value handle
        # follows %x, a block argument. Before the fix it raised (op erased).
        # CHECK: erased live True True
        print(addi.handle_state, total.handle_state, total.owner == entry,
              total.same_value(entry.arguments[0]))
        # Its class says what it was; result_number explains.
        # CHECK: OpResult
        print(type(total).__name__)
        # CHECK: ValueError: the result was replaced by a block argument
        expect(ValueError, lambda: total.result_number)
        # Printed as what it is now.
        # CHECK: BlockArgument(<block argument> of type 'i32' at index: 0) True
        print(total, product.is_valid and product.owner is muli)
        # A handle taken on %y before is still the canonical one of %y.
        # CHECK: True True
        print(entry.arguments[1] == y, muli.operands[0] == y)


# CHECK-LABEL: TEST: test_value_under_non_precise_pass
@run
def test_value_under_non_precise_pass():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%x: i32) -> i32 {
            %0 = arith.addi %x, %x : i32
            return %0 : i32
          }""")
        func = module.body.operations[0]
        entry = func.regions[0].blocks[0]
        arg = entry.arguments[0]
        total = body(func)[0].result
        module_body = module.body
        PassManager.parse(
            "builtin.module(func.func(loop-invariant-code-motion))").run(module)
        # The pass ran on @f: everything in it is invalidated; the module's
        # block is outside the anchor.
        # CHECK: invalidated invalidated False True
        print(total.handle_state, arg.handle_state, entry.is_valid,
              module_body.is_valid)
        # CHECK: InvalidatedHandleError: value handle to argument #0 of block #0 of region #0 of 'func.func'
        expect(ir.InvalidatedHandleError, lambda: arg.type)
        # Reached again, they are fresh handles to what is there now.
        # CHECK: True True
        print(func.regions[0].blocks[0].arguments[0].is_valid,
              func.regions[0].blocks[0] != entry)


# CHECK-LABEL: TEST: test_block_address_reuse_after_canonicalize
@run
def test_block_address_reuse_after_canonicalize():
    with ir.Context() as ctx:
        module = ir.Module.parse("""
          func.func @f() {
            return
          ^dead(%v: i32):
            return
          }""")
        func = module.body.operations[0]
        region = func.regions[0]
        dead = region.blocks[1]
        dead_arg = dead.arguments[0]
        i32 = ir.Type.parse("i32")
        PassManager.parse("builtin.module(canonicalize)").run(module)
        # canonicalize erased the unreachable block; new blocks (likely at
        # its address) are new objects, never the old one come back "live"
        # with its arguments.
        fresh = [region.blocks.append(i32, arg_locs=[ir.Location.unknown()])
                 for _ in range(4)]
        # CHECK: False False True
        print(dead.is_valid, any(dead == block for block in fresh),
              all(block.is_valid for block in fresh))
        # CHECK: InvalidatedHandleError: block handle to block #1 of region #0 of 'func.func'
        expect(ir.InvalidatedHandleError, lambda: dead.operations)
        # CHECK: InvalidatedHandleError: value handle to argument #0 of block #1
        expect(ir.InvalidatedHandleError, lambda: dead_arg.type)
        # Hash and == of blocks are stable and shared by every path.
        # CHECK: True True
        print(region.blocks[1] == fresh[0],
              hash(region.blocks[1]) == hash(fresh[0]))
        # CHECK: []
        print(ctx._verify_tracking())


# CHECK-LABEL: TEST: test_erase_refuses_when_block_arguments_or_blocks_used_outside
@run
def test_erase_refuses_when_block_arguments_or_blocks_used_outside():
    with ir.Context() as ctx:
        module = ir.Module.parse("""
          func.func @src(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            cf.br ^bb1
          ^bb1:
            return %0 : i32
          }
          func.func @dst(%b: i32) -> i32 {
            return %b : i32
          }""")
        src, dst = module.body.operations
        addi, branch = body(src)
        dst_ret = body(dst)[0]
        # addi uses %a (a block argument of @src) after the move.
        addi.move_before(dst_ret)
        # CHECK: ValueError: cannot erase 'func.func': block argument #0 of a block in 'func.func' is still used by 'arith.addi' outside it
        expect(ValueError, lambda: src.erase())
        # With its own operands, addi is fine; now move the branch out: the
        # block of @src stays its successor.
        b = dst.regions[0].blocks[0].arguments[0]
        addi.operands[0] = b
        addi.operands[1] = b
        entry = src.regions[0].blocks[0]
        branch.move_before(dst_ret)
        ir.Operation.create("func.return", operands=[entry.arguments[0]],
                            ip=ir.InsertionPoint(entry),
                            loc=ir.Location.unknown())
        # CHECK: ValueError: cannot erase 'func.func': a block in 'func.func' (as a branch successor) is still used by 'cf.br' outside it
        expect(ValueError, lambda: src.erase())
        # Nothing was changed by the refused erases.
        # CHECK: live live live
        print(src.handle_state, addi.handle_state, branch.handle_state)
        # CHECK: []
        print(ctx._verify_tracking())


# CHECK-LABEL: TEST: test_cross_module_move_then_drop_source
@run
def test_cross_module_move_then_drop_source():
    with ir.Context() as ctx:
        m1 = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %c1 = arith.constant 1 : i32
            %0 = arith.addi %a, %c1 : i32
            return %a : i32
          }""")
        m2 = ir.Module.parse("func.func @g(%b: i32) { return }")
        g = m2.body.operations[0]
        c1, addi, ret = body(m1.body.operations[0])
        addi.move_before(body(g)[0])
        del m1, c1, ret
        gc.collect()
        # m1 is not freed while m2 uses its values, and m2 is not rewired:
        # its operands are still %a and %c1 of @f (no placeholder).
        # CHECK: BlockArgument func.func arith.constant
        print(type(ir.BlockArgument(addi.operands[0])).__name__,
              addi.operands[0].owner.owner.operation.name,
              addi.operands[1].owner.operation.name)
        # What is kept alive is ordinary IR, owned again once reached: erasing
        # it is refused while used, detaching and dropping a part is safe (it
        # is kept alive again while addi uses it).
        m1_op = addi.operands[0].owner.owner.parent
        # CHECK: builtin.module True
        print(m1_op.name, m1_op.parent is None)
        # CHECK: ValueError: cannot erase 'builtin.module': {{.*}} is still used by 'arith.addi' outside it
        expect(ValueError, lambda: m1_op.erase())
        constant = addi.operands[1].owner
        constant.detach_from_parent()
        del constant
        gc.collect()
        # CHECK: arith.constant 1 : i32
        print(addi.operands[1].owner)
        # The user fixes the IR: m2 then verifies.
        addi.operands[0] = g.regions[0].blocks[0].arguments[0]
        addi.operands[1] = g.regions[0].blocks[0].arguments[0]
        # CHECK: True []
        print(m2.operation.verify(), ctx._verify_tracking())
        # CHECK: %0 = arith.addi %arg0, %arg0 : i32
        print(m2)
        # Unused now: the old module can be erased; the constant dropped.
        m1_op.erase()
        # CHECK: erased []
        print(m1_op.handle_state, ctx._verify_tracking())


# CHECK-LABEL: TEST: test_run_refused_while_another_tree_uses_the_ir
@run
def test_run_refused_while_another_tree_uses_the_ir():
    # A clone of an op keeps the operands of the original: the clone, a tree
    # of its own, uses values of the module. A pass erasing their definitions
    # (symbol-dce erases the unused private function) would leave the clone
    # with a use of freed IR, so the run is refused before anything changes.
    with ir.Context():
        m = ir.Module.parse("""
          func.func private @dead(%a: i32) -> i32 {
            %c1 = arith.constant 1 : i32
            %0 = arith.addi %a, %c1 : i32
            return %0 : i32
          }""")
        addi = body(m.body.operations[0])[1]
        clone = addi.clone(ip=False)
        pm = PassManager.parse("builtin.module(inline,symbol-dce)")
        # CHECK: RuntimeError: cannot run 'builtin.module(inline{{.*}},symbol-dce)' on 'builtin.module' {{.*}}: ops outside its IR (a clone, or ops detached or moved out of it) use values or blocks of it
        expect(RuntimeError, lambda: pm.run(m.operation))
        # Nothing changed: the function and the clone's operands are intact.
        # CHECK: 1 BlockArgument func.func arith.constant
        print(len(m.body.operations), type(ir.BlockArgument(clone.operands[0])).__name__,
              clone.operands[0].owner.owner.operation.name,
              clone.operands[1].owner.operation.name)
        # Once the clone is gone the module runs.
        clone.erase()
        pm.run(m.operation)
        # CHECK: 0
        print(len(m.body.operations))


# CHECK-LABEL: TEST: test_run_on_a_function_refused_while_another_uses_it
@run
def test_run_on_a_function_refused_while_another_uses_it():
    # Within one tree: a branch moved from @f into @g still targets @f's
    # unreachable ^bb1, and an op of @g uses a value of @f. A run on @f
    # verifies only @f, which is valid, and its region simplification would
    # free ^bb1 (and the value) under @g's uses; refused, nothing changes.
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            cf.br ^bb2
          ^bb1(%x: i32):
            %y = arith.addi %x, %x : i32
            return %y : i32
          ^bb2:
            return %a : i32
          ^bb3:
            cf.br ^bb1(%a : i32)
          }
          func.func @g(%a: i32) -> i32 {
            %m = arith.muli %a, %a : i32
            return %a : i32
          }""")
        f, g = m.body.operations
        branch = f.regions[0].blocks[3].operations[0]
        g_return = g.regions[0].blocks[0].operations[1]
        branch.move_before(g_return)
        g_return.erase()
        branch.operands[0] = g.regions[0].blocks[0].arguments[0]
        with ir.InsertionPoint(f.regions[0].blocks[3]):
            ir.Operation.create("func.return", operands=[f.regions[0].blocks[0].arguments[0]])
        canonicalize = PassManager.parse("func.func(canonicalize)")
        # CHECK: RuntimeError: cannot run 'func.func(canonicalize{{.*}})' on 'func.func' {{.*}}: ops outside its IR {{.*}} use values or blocks of it
        expect(RuntimeError, lambda: canonicalize.run(f))
        # CHECK: RuntimeError: cannot run 'apply_patterns_and_fold_greedily' on 'func.func'
        expect(RuntimeError, lambda: rewrite.apply_patterns_and_fold_greedily(
            f, rewrite.RewritePatternSet().freeze()))
        # CHECK: 4 True
        print(len(f.regions[0].blocks),
              branch.successors[0] == f.regions[0].blocks[1])

        # A value instead of a block: the same.
        branch.erase()
        with ir.InsertionPoint(g.regions[0].blocks[0]):
            ir.Operation.create("func.return", operands=[g.regions[0].blocks[0].arguments[0]])
        mul = g.regions[0].blocks[0].operations[0]
        y = f.regions[0].blocks[1].operations[0].result
        mul.operands[0] = y
        # CHECK: RuntimeError: cannot run 'func.func(canonicalize{{.*}})' on 'func.func'
        expect(RuntimeError, lambda: canonicalize.run(f))
        # CHECK: arith.addi
        print(mul.operands[0].owner.name)
        # Given back its own operand, @f runs (and ^bb1 goes).
        mul.operands[0] = g.regions[0].blocks[0].arguments[0]
        canonicalize.run(f)
        # CHECK: 1
        print(len(f.regions[0].blocks))


# The run guard and the root owners look for uses linking one IR tree to
# another only while the context has another tree (or raw pointers crossed a
# capsule); the refusals still happen whenever another tree exists.
# CHECK-LABEL: TEST: test_tree_links_walked_only_with_other_trees
@run
def test_tree_links_walked_only_with_other_trees():
    text = """
      func.func private @dead(%a: i32) -> i32 {
        %c1 = arith.constant 1 : i32
        %0 = arith.addi %a, %c1 : i32
        return %0 : i32
      }"""
    with ir.Context() as ctx:
        pm = PassManager.parse("builtin.module(canonicalize)")
        dce = PassManager.parse("builtin.module(inline,symbol-dce)")
        m = ir.Module.parse(text)
        held = []
        m.operation.walk(held.append)
        ops = body(m.body.operations[0])
        # One tree, handles held: no walk, however many runs.
        pm.run(m.operation)
        pm.run(m.operation)
        # CHECK: single tree: 0 walks
        print("single tree:", ctx._get_tree_link_walk_count(), "walks")

        # A clone made then dropped: while it lives, the run walks and is
        # refused; once it is gone (erased with its owner), no walk again.
        clone = ops[1].clone(ip=False)
        # CHECK: RuntimeError: cannot run {{.*}}: ops outside its IR
        expect(RuntimeError, lambda: dce.run(m.operation))
        walks = ctx._get_tree_link_walk_count()
        # CHECK: with a clone: walked True
        print("with a clone: walked", walks > 0)
        del clone
        gc.collect()
        # Dropping the clone walked it (to see whether the module uses it).
        after_drop = ctx._get_tree_link_walk_count()
        pm.run(m.operation)
        # CHECK: clone dropped: no new walk True
        print("clone dropped: no new walk",
              ctx._get_tree_link_walk_count() == after_drop)

        # A detached op whose result the module still uses: two linked
        # trees, the run is refused; re-inserted, one tree and no walk.
        ops = body(m.body.operations[0])
        ops[1].detach_from_parent()
        # CHECK: RuntimeError: cannot run {{.*}}: ops outside its IR
        expect(RuntimeError, lambda: pm.run(m.operation))
        ops[1].move_before(ops[2])
        before = ctx._get_tree_link_walk_count()
        pm.run(m.operation)
        # CHECK: re-inserted: no new walk True
        print("re-inserted: no new walk",
              ctx._get_tree_link_walk_count() == before)

        # Detached, then its last Python reference dropped: the tree is kept
        # alive for the module's use of it, and still counts as a tree.
        ops = body(m.body.operations[0])
        ops[1].detach_from_parent()
        ops = None
        gc.collect()
        # CHECK: RuntimeError: cannot run {{.*}}: ops outside its IR
        expect(RuntimeError, lambda: pm.run(m.operation))
        # CHECK: kept alive: 2 ops left, arith.addi live True
        print("kept alive:", len(body(m.body.operations[0])), "ops left,",
              held[1].name, "live", held[1].is_valid)


# CHECK-LABEL: TEST: test_tree_links_walked_with_two_modules_and_capsules
@run
def test_tree_links_walked_with_two_modules_and_capsules():
    text = """
      func.func @f(%a: i32) -> i32 {
        %0 = arith.addi %a, %a : i32
        return %0 : i32
      }"""
    with ir.Context() as ctx:
        pm = PassManager.parse("builtin.module(canonicalize)")
        m1 = ir.Module.parse(text)
        m2 = ir.Module.parse(text)
        # Two unrelated modules: the run looks, finds nothing, runs.
        pm.run(m1.operation)
        # CHECK: two modules: walked True
        print("two modules: walked", ctx._get_tree_link_walk_count() > 0)
        # An op of m2 made to use a value of m1: m1's run is refused.
        add2 = body(m2.body.operations[0])[0]
        arg1 = m1.body.operations[0].regions[0].blocks[0].arguments[0]
        add2.operands[0] = arg1
        # CHECK: RuntimeError: cannot run {{.*}}: ops outside its IR
        expect(RuntimeError, lambda: pm.run(m1.operation))
        add2.operands[0] = m2.body.operations[0].regions[0].blocks[0].arguments[0]
        del m2, add2
        gc.collect()
        # Back to one tree: no walk.
        before = ctx._get_tree_link_walk_count()
        pm.run(m1.operation)
        # CHECK: one module again: no new walk True
        print("one module again: no new walk",
              ctx._get_tree_link_walk_count() == before)
        # Once a raw pointer to the IR crossed a capsule, C++ code may hold
        # trees of its own: every run looks again.
        m1.operation._CAPIPtr
        pm.run(m1.operation)
        # CHECK: after a capsule: walked True
        print("after a capsule: walked",
              ctx._get_tree_link_walk_count() > before)


# CHECK-LABEL: TEST: test_dropped_objects_release_their_handles_in_batches
@run
def test_dropped_objects_release_their_handles_in_batches():
    # A dropped Operation object's handle is released with others, in
    # batches: until then its record stays in the registry, tracked like any
    # held handle, and must never answer for another op (a reused address).
    with ir.Context() as ctx, ir.Location.unknown():
        module = parse_adds(300)
        objects = []
        module.operation.walk(objects.append)
        # CHECK: 303 303
        print(len(objects), ctx._get_live_operation_count())
        del objects
        gc.collect()
        # Only the module's own object is left; no dropped handle is counted
        # as tracked.
        # CHECK: 1 1
        print(ctx._get_live_operation_count(), ctx._get_tracked_operation_count())
        module.operation.walk(lambda op: None)
        # Canonicalize erases the dead adds, whose handles may be queued...
        PassManager.parse("builtin.module(canonicalize)").run(module)
        # ...and ops made now may take their addresses: each is its own op.
        func = module.body.operations[0]
        block = func.regions[0].blocks[0]
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint.at_block_begin(block):
            made = [
                ir.Operation.create("arith.muli", results=[i32],
                                    operands=[block.arguments[0]] * 2)
                for _ in range(300)
            ]
        # CHECK: True
        print(all(op.name == "arith.muli" and op.handle_state == "live"
                  for op in made))
        walked = []
        module.operation.walk(walked.append)
        # CHECK: 303 True
        print(len(walked), all(a is b for a, b in zip(made, walked)))
        # CHECK: []
        print(ctx._verify_tracking())
        del made, walked, func, block
        gc.collect()
        # CHECK: 1 1
        print(ctx._get_live_operation_count(), ctx._get_tracked_operation_count())


# CHECK-LABEL: TEST: test_object_scans_follow_live_objects
@run
def test_object_scans_follow_live_objects():
    # When Python moves IR between trees, every Operation object under the
    # moved ops gets the new tree's owner: a scan of the objects, which
    # visits about the live ones, not every index the registry gave an
    # object (2,005 here, all dropped before the moves).
    with ir.Context() as ctx:
        m1 = parse_adds(2000, "func.func @h() { return }")
        m2 = ir.Module.parse("func.func @g() { return }")
        objects = []
        m1.operation.walk(objects.append)
        # CHECK: 2005
        print(len(objects))
        del objects
        gc.collect()
        f = m1.body.operations[0]
        # Made at an index a dropped object had.
        inner = f.regions[0].blocks[0].operations[7]
        live = ctx._get_live_operation_objects()
        # Each object once.
        # CHECK: True True
        print(len(live) == ctx._get_live_operation_count(),
              len({id(o) for o in live}) == len(live))
        del live
        before = ctx._get_operation_scan_count()
        g = m2.body.operations[0]
        h = m1.body.operations[1]
        for _ in range(3):
            f.move_before(g)
            f.move_before(h)
        f.move_before(g)
        scanned = ctx._get_operation_scan_count() - before
        # CHECK: scanned a few entries per move: True
        print("scanned a few entries per move:",
              0 < scanned <= 7 * (ctx._get_live_operation_count() + 2))
        # `inner` was found: it keeps the tree it moved into alive.
        del m2, g, f, h
        gc.collect()
        # CHECK: live func.func builtin.module
        print(inner.handle_state, inner.parent.name, inner.parent.parent.name)
        # CHECK: %7 = arith.addi %arg0, %arg0 : i32
        print(inner)
        # CHECK: []
        print(ctx._verify_tracking())


# CHECK-LABEL: TEST: test_objects_dropped_in_any_order
@run
def test_objects_dropped_in_any_order():
    # The Operation objects of a walk fill several chunks of their pool;
    # dropped in any order, the objects kept stay the objects of their ops,
    # and the objects made next reuse the freed slots.
    import random
    with ir.Context() as ctx:
        module = parse_adds(5000)
        objects = []
        module.operation.walk(objects.append)
        random.Random(7).shuffle(objects)
        kept = objects[:1000]
        del objects
        gc.collect()
        walked = []
        module.operation.walk(walked.append)
        ids = {id(op) for op in walked}
        # CHECK: 5003 True 5003
        print(len(walked), all(id(op) in ids for op in kept),
              ctx._get_live_operation_count())
        del kept
        gc.collect()
        # CHECK: True True
        print(all(op.handle_state == "live" for op in walked),
              walked[0].name == "arith.addi" and walked[-1].name == "builtin.module")
        same = []
        for seed in range(3):
            random.Random(seed).shuffle(walked)
            half = walked[: len(walked) // 2]
            del walked
            gc.collect()
            walked = []
            module.operation.walk(walked.append)
            ids = {id(op) for op in walked}
            same.append(all(id(op) in ids for op in half))
            del half
        gc.collect()
        # CHECK: [True, True, True] 5003 5003 []
        print(same, len(walked), ctx._get_live_operation_count(),
              ctx._verify_tracking())
