# RUN: %PYTHON %s | FileCheck %s
# Value handles through every rewrite driver called from Python (greedy,
# walk, dialect conversion), and the run guard those drivers take: while a
# driver runs on some IR (its Python patterns let other threads run), that IR
# is locked against other threads as under PassManager.run.

import gc
import threading

from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager
from tracking_testing import check_tracking as check
from tracking_testing import no_folding, ops_of, swap_muli
from tracking_testing import to_addi_values as muli_to_addi_values


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


SOURCE = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %m = arith.muli %x, %b : i32
  %dead = arith.subi %a, %b : i32
  return %m : i32
}
"""


def erase_subi(op, rewriter):
    rewriter.erase_op(op)


def frozen(root, fn, context=None):
    patterns = rewrite.RewritePatternSet(context)
    patterns.add(root, fn)
    return patterns.freeze()


# CHECK-LABEL: TEST: test_greedy_fold_to_block_argument
@run
def test_greedy_fold_to_block_argument():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        addi = ops_of(func)[1]
        x = addi.results[0]
        a = func.regions[0].blocks[0].arguments[0]
        rewrite.apply_patterns_and_fold_greedily(
            module, rewrite.RewritePatternSet().freeze()
        )
        # addi %a, %c0 folds to %a: the op handle ends, the value follows.
        # CHECK: erased live True Block
        print(addi.handle_state, x.handle_state, x.same_value(a),
              type(x.owner).__name__)
        # The object stays an OpResult (what it was when made); it is an
        # argument now.
        # CHECK-NEXT: OpResult True i32 0
        print(type(x).__name__, ir.BlockArgument.isinstance(x), x.type,
              ir.BlockArgument(x).arg_number)
        # The value is the block argument now: its uses are the muli's.
        # CHECK-NEXT: ['arith.muli']
        print([use.owner.name for use in x.uses])
        check()


# CHECK-LABEL: TEST: test_greedy_replace_by_op_and_by_values
@run
def test_greedy_replace_by_op_and_by_values():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        mul = ops_of(func)[2]
        m = mul.results[0]
        rewrite.apply_patterns_and_fold_greedily(
            module, frozen("arith.muli", swap_muli), no_folding()
        )
        # CHECK: live True True
        print(m.handle_state, m.owner.same_op(mul), "swapped" in m.owner.attributes)

        module = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        mul = ops_of(func)[2]
        m = mul.results[0]
        rewrite.apply_patterns_and_fold_greedily(
            module, frozen("arith.muli", muli_to_addi_values), no_folding()
        )
        # replace_op(op, values): the op handle ends (another name), result 0
        # follows value 0.
        # CHECK-NEXT: erased live arith.addi
        print(mul.handle_state, m.handle_state, m.owner.name)
        # CHECK-NEXT: arith.addi
        print(ops_of(func)[-1].operands[0].owner.name)
        check()


# CHECK-LABEL: TEST: test_greedy_erased_value_raises
@run
def test_greedy_erased_value_raises():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        sub = ops_of(module.body.operations[0])[3]
        dead = sub.results[0]
        rewrite.apply_patterns_and_fold_greedily(
            module, frozen("arith.subi", erase_subi), no_folding()
        )
        # CHECK: erased erased False
        print(sub.handle_state, dead.handle_state, dead.is_valid)
        for use in (lambda: dead.type, lambda: dead.owner, lambda: str(dead)):
            try:
                use()
                print("no error")
            except ir.InvalidatedHandleError as e:
                # CHECK-NEXT: InvalidatedHandleError
                # CHECK-NEXT: InvalidatedHandleError
                # CHECK-NEXT: InvalidatedHandleError
                print(type(e).__name__)
        check()


# CHECK-LABEL: TEST: test_walk_driver_values
@run
def test_walk_driver_values():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        mul, sub = ops_of(func)[2:4]
        m, dead = mul.results[0], sub.results[0]
        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", muli_to_addi_values)
        patterns.add("arith.subi", erase_subi)
        rewrite.walk_and_apply_patterns(module, patterns.freeze())
        # CHECK: live arith.addi erased
        print(m.handle_state, m.owner.name, dead.handle_state)
        try:
            dead.type
        except ir.InvalidatedHandleError:
            # CHECK-NEXT: dead value raises
            print("dead value raises")
        check()


def convert_muli(op, operands, type_converter, rewriter):
    with rewriter.ip:
        new = ir.Operation.create(
            "llvm.mul",
            results=[type_converter.convert_type(op.results[0].type)],
            operands=operands,
            loc=op.location,
        )
    rewriter.replace_op(op, new)


def conversion(illegal_subi=False):
    converter = rewrite.TypeConverter()
    converter.add_conversion(lambda t: t)
    target = rewrite.ConversionTarget()
    target.add_legal_dialect("llvm")
    target.add_illegal_op("arith.muli")
    if illegal_subi:
        target.add_illegal_op("arith.subi")
    patterns = rewrite.RewritePatternSet()
    patterns.add_conversion("arith.muli", convert_muli, converter)
    return target, patterns.freeze()


# CHECK-LABEL: TEST: test_conversion_values
@run
def test_conversion_values():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        mul = ops_of(module.body.operations[0])[2]
        m = mul.results[0]
        target, patterns = conversion()
        rewrite.apply_partial_conversion(module, target, patterns)
        # Committed: the value follows to llvm.mul's result.
        # CHECK: live llvm.mul True
        print(m.handle_state, m.owner.name, m.owner.same_op(mul))

        # Rolled back (subi is illegal and has no pattern): nothing changes.
        module = ir.Module.parse(SOURCE)
        mul = ops_of(module.body.operations[0])[2]
        m = mul.results[0]
        target, patterns = conversion(illegal_subi=True)
        try:
            rewrite.apply_full_conversion(module, target, patterns)
        except ir.MLIRError:
            # CHECK-NEXT: rolled back
            print("rolled back")
        # CHECK-NEXT: live arith.muli True
        print(m.handle_state, m.owner.name, m.owner.same_op(mul))
        check()


def other_thread(fn):
    """Runs fn() on another thread and returns what it printed or raised."""
    out = []

    def body():
        try:
            out.append("ok: " + str(fn()))
        except Exception as e:
            out.append(f"{type(e).__name__}: {e}")

    t = threading.Thread(target=body)
    t.start()
    t.join()
    return out[0]


# CHECK-LABEL: TEST: test_driver_locks_ir_against_other_threads
@run
def test_driver_locks_ir_against_other_threads():
    with ir.Context() as ctx:
        module = ir.Module.parse(SOURCE)
        other = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        mul = ops_of(func)[2]
        value = mul.results[0]
        seen = []

        def probe(op, rewriter):
            if seen:
                return True
            # A pattern of the running driver: its thread may use the IR.
            seen.append(op.name)
            attempts = [
                lambda: str(module),
                lambda: mul.name,
                lambda: value.type,
                lambda: func.regions[0].blocks[0].operations[0].name,
                lambda: rewrite.apply_patterns_and_fold_greedily(
                    module, rewrite.RewritePatternSet(ctx).freeze()),
                lambda: PassManager.parse("builtin.module(cse)", ctx).run(module.operation),
                # Other IR of the same context is free.
                lambda: other.body.operations[0].operation.name,
            ]
            for attempt in attempts:
                seen.append(other_thread(attempt))
            return True

        for driver in ("greedy", "walk", "conversion"):
            seen.clear()
            patterns = rewrite.RewritePatternSet()
            if driver == "conversion":
                converter = rewrite.TypeConverter()
                converter.add_conversion(lambda t: t)
                patterns.add_conversion(
                    "arith.muli", lambda op, operands, tc, rw: probe(op, rw), converter)
                target = rewrite.ConversionTarget()
                rewrite.apply_partial_conversion(module, target, patterns.freeze())
            elif driver == "walk":
                patterns.add("arith.muli", probe)
                rewrite.walk_and_apply_patterns(module, patterns.freeze())
            else:
                patterns.add("arith.muli", probe)
                rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
            print(driver, seen[0])
            for line in seen[1:]:
                print(" ", line)
        # CHECK: greedy arith.muli
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'apply_patterns_and_fold_greedily' is running on it (apply_patterns_and_fold_greedily on 'builtin.module' at {{.*}} in another thread); use it again after that run returns
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'apply_patterns_and_fold_greedily'
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'apply_patterns_and_fold_greedily'
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'apply_patterns_and_fold_greedily'
        # CHECK-NEXT: RuntimeError: cannot run 'apply_patterns_and_fold_greedily' on 'builtin.module' at {{.*}}: the rewrite driver 'apply_patterns_and_fold_greedily' is already running on 'builtin.module'
        # CHECK-NEXT: RuntimeError: cannot run 'builtin.module(cse)' on 'builtin.module' at {{.*}}: the rewrite driver 'apply_patterns_and_fold_greedily' is already running on 'builtin.module'
        # CHECK-NEXT: ok: func.func
        # CHECK: walk arith.muli
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'walk_and_apply_patterns'
        # CHECK: ok: func.func
        # CHECK: conversion arith.muli
        # CHECK-NEXT: RuntimeError: cannot access this IR: the rewrite driver 'apply_partial_conversion'
        # CHECK: ok: func.func

        # After the drivers, everything works again from any thread.
        # CHECK: ok: arith.muli
        print(other_thread(lambda: mul.name))
        check()


# CHECK-LABEL: TEST: test_driver_refused_under_running_pipeline
@run
def test_driver_refused_under_running_pipeline():
    with ir.Context() as ctx:
        module = ir.Module.parse(SOURCE)
        in_pass = threading.Event()
        release = threading.Event()
        results = []

        def blocking_pass(op, pass_):
            try:
                # A driver on the pass's own op is part of the run: allowed.
                rewrite.apply_patterns_and_fold_greedily(
                    op, frozen("arith.muli", swap_muli, ctx), no_folding())
                results.append("driver in pass ok")
            finally:
                in_pass.set()
            release.wait()

        pm = PassManager("builtin.module", ctx)
        pm.add(blocking_pass, name="blocking", op_name="func.func")
        runner = threading.Thread(target=lambda: pm.run(module.operation))
        runner.start()
        in_pass.wait()
        try:
            rewrite.apply_patterns_and_fold_greedily(
                module, rewrite.RewritePatternSet(ctx).freeze())
        except RuntimeError as e:
            results.append(f"{type(e).__name__}: {e}")
        release.set()
        runner.join()
        # CHECK: driver in pass ok
        # CHECK-NEXT: RuntimeError: cannot run 'apply_patterns_and_fold_greedily' on 'builtin.module' at {{.*}}: the pass pipeline 'builtin.module(func.func(blocking))' is already running on 'builtin.module' at {{.*}} in the same IR
        for line in results:
            print(line)
        # CHECK-NEXT: True
        print("swapped" in ops_of(module.body.operations[0])[2].attributes)
        check()


# CHECK-LABEL: TEST: test_pipeline_refused_inside_driver
@run
def test_pipeline_refused_inside_driver():
    with ir.Context():
        module = ir.Module.parse(SOURCE)
        errors = []

        def run_pipeline(op, rewriter):
            if not errors:
                try:
                    PassManager.parse("builtin.module(cse)").run(module.operation)
                except RuntimeError as e:
                    errors.append(str(e))
            return True

        rewrite.apply_patterns_and_fold_greedily(
            module, frozen("arith.muli", run_pipeline))
        # CHECK: cannot run a pass pipeline from inside a rewrite pattern (or a PDL function of one); use the PatternRewriter
        print(errors[0])
        check()


# CHECK-LABEL: TEST: test_replacement_dominance_near_and_far
@run
def test_replacement_dominance_near_and_far():
    # Whether a replacement value comes before each use it takes over is
    # decided by looking a few ops around its definition, then by MLIR's
    # block order (which renumbers the block when stale): both answers,
    # both ways, near the use and past the few ops looked at.
    def module_with(gap):
        pad = "  func.call @use(%a) : (i32) -> ()\n" * gap
        return ir.Module.parse(
            "func.func private @use(i32)\n"
            "func.func @f(%a: i32) -> i32 {\n"
            "  %early = arith.subi %a, %a : i32\n" + pad +
            "  %t = arith.muli %a, %a : i32\n"
            "  %u = arith.addi %t, %a : i32\n" + pad +
            "  %late = arith.xori %a, %a : i32\n"
            "  func.call @use(%early) : (i32) -> ()\n"
            "  func.call @use(%late) : (i32) -> ()\n"
            "  return %u : i32\n}")

    for gap in (0, 100):
        for pick in ("arith.subi", "arith.xori"):
            with ir.Context():
                module = module_with(gap)

                def replace(op, rewriter):
                    block = op.parent.regions[0].blocks[0]
                    (value,) = [o for o in block.operations
                                if o.name == pick][0].results
                    rewriter.replace_op(op, [value])

                patterns = rewrite.RewritePatternSet()
                patterns.add("arith.muli", replace)
                try:
                    rewrite.apply_patterns_and_fold_greedily(
                        module, patterns.freeze(), no_folding())
                    outcome = "replaced" if "arith.muli" not in str(module) \
                        else "kept"
                except ValueError as e:
                    outcome = str(e)
                print(gap, pick, outcome)
    # CHECK: 0 arith.subi replaced
    # CHECK-NEXT: 0 arith.xori a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.addi'
    # CHECK-NEXT: 100 arith.subi replaced
    # CHECK-NEXT: 100 arith.xori a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.addi'


# CHECK-LABEL: TEST: test_successor_set_to_another_successor_of_the_op
@run
def test_successor_set_to_another_successor_of_the_op():
    # Pointing a successor at a block the op already branches to adds no
    # path, so no dominance check walks the region (linear for a pattern
    # run on every branch); a new target is still checked. The walks are
    # counted, since a skipped walk changes nothing else.
    text = """
      func.func @f(%c: i1, %x: i32) -> i32 {
        cf.br ^a
      ^a:
        %v = arith.addi %x, %x : i32
        cf.cond_br %c, ^b, ^c
      ^b:
        return %v : i32
      ^c:
        return %x : i32
      }"""
    for name, op_name, successor, target in (
            ("existing target", "cf.cond_br", 0, 3),
            ("new target bypassing %v", "cf.br", 0, 2)):
        with ir.Context():
            module = ir.Module.parse(text)

            def retarget(op, rewriter):
                if "done" in op.attributes:
                    return True
                blocks = op.parent.regions[0].blocks

                def change():
                    op.attributes["done"] = ir.UnitAttr.get()
                    op.successors[successor] = blocks[target]
                rewriter.modify_op_in_place(op, change)

            patterns = rewrite.RewritePatternSet()
            patterns.add(op_name, retarget)
            walks = rewrite._region_dominance_walks()
            try:
                rewrite.apply_patterns_and_fold_greedily(
                    module, patterns.freeze(), no_folding())
                outcome = "ran"
            except (ir.MLIRError, ValueError) as e:
                outcome = str(e).splitlines()[0][:100]
            print(name, outcome, module.operation.verify(),
                  "walks:", rewrite._region_dominance_walks() - walks)
    # CHECK: existing target ran True walks: 0
    # CHECK-NEXT: new target bypassing %v setting a successor inside a rewrite pattern would leave operand #0 of 'func.return' a value that do{{.*}} True walks: 1


# CHECK-LABEL: TEST: test_moves_within_a_block
@run
def test_moves_within_a_block():
    # A move within a block inside a pattern is checked by where the op's
    # operands are defined and where its users are, relative to the new
    # place, without moving it to look; the move itself keeps MLIR's
    # numbering of the block current (a stale one made MLIR renumber the
    # whole block at the next check: hoisting N ops took N renumberings).
    text = """
      func.func private @use(i32)
      func.func @f(%a: i32) {
        %first = arith.subi %a, %a : i32
        %d = arith.addi %a, %a : i32
        %x = arith.muli %d, %a : i32
        func.call @use(%a) : (i32) -> ()
        scf.execute_region {
          func.call @use(%x) : (i32) -> ()
          scf.yield
        }
        %r = scf.execute_region -> i32 {
          %n = arith.xori %d, %a : i32
          scf.yield %n : i32
        }
        func.call @use(%x) : (i32) -> ()
        %last = arith.ori %a, %a : i32
        return
      }"""
    # (the index of the op that moves, the index of the op it goes before;
    # "nested": before the scf.yield of the first scf.execute_region)
    cases = [(2, 1), (2, 0), (1, 0), (2, 4), (2, 5), (2, 7), (5, 1), (5, 2),
             (1, 8), (7, 0), (2, "nested")]
    for mover, place in cases:
        with ir.Context():
            module = ir.Module.parse(text)
            block = module.body.operations[1].regions[0].blocks[0]
            ops = list(block.operations)
            target = ops[4].regions[0].blocks[0].operations[1] \
                if place == "nested" else ops[place]
            ops[mover].attributes["mover"] = ir.UnitAttr.get()
            valid_after = []

            def move(op, rewriter):
                if "mover" not in op.attributes:
                    return True

                def mark():
                    del op.attributes["mover"]
                rewriter.modify_op_in_place(op, mark)
                # Numbered now, so that the move is what might make it stale.
                ops[0].is_before_in_block(ops[1])
                try:
                    op.move_before(target)
                finally:
                    valid_after.append(block._op_order_is_valid)

            patterns = rewrite.RewritePatternSet()
            patterns.add(ops[mover].name, move)
            try:
                rewrite.walk_and_apply_patterns(module, patterns.freeze())
                outcome = "moved"
            except ir.MLIRError as e:
                outcome = str(e).split(" would leave ")[1].split(" a value")[0]
            print(mover, place, outcome, module.operation.verify(),
                  valid_after, [o.name[o.name.index(".") + 1:]
                                for o in block.operations][:4])
    # CHECK-NEXT: 2 1 operand #0 of 'arith.muli' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 2 0 operand #0 of 'arith.muli' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 1 0 moved True [True] ['addi', 'subi', 'muli', 'call']
    # CHECK-NEXT: 2 4 moved True [True] ['subi', 'addi', 'call', 'muli']
    # CHECK-NEXT: 2 5 operand #0 of 'func.call' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 2 7 operand #0 of 'func.call' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 5 1 operand #0 of 'arith.xori' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 5 2 moved True [True] ['subi', 'addi', 'execute_region', 'muli']
    # CHECK-NEXT: 1 8 operand #0 of 'arith.xori' True [True] ['subi', 'addi', 'muli', 'call']
    # CHECK-NEXT: 7 0 moved True [True] ['ori', 'subi', 'addi', 'muli']
    # Into a region: the op is moved there to look (and back), which leaves
    # the numbering stale.
    # CHECK-NEXT: 2 nested operand #0 of 'func.call' True [False] ['subi', 'addi', 'muli', 'call']


# CHECK-LABEL: TEST: test_moves_to_one_place
@run
def test_moves_to_one_place():
    # Moves one after another to one place: the checks ask MLIR about the
    # new place's other neighbour than the op the previous move put there
    # (which MLIR has not numbered; numbering such ops one after another at
    # one place made it renumber the block every few moves).
    text = """
      func.func private @use(i32)
      func.func @f(%a: i32) {
        %x = arith.subi %a, %a : i32
        %y = arith.addi %x, %a : i32
        %z = arith.muli %y, %a : i32
        %g = arith.ori %a, %a : i32
        func.call @use(%z) : (i32) -> ()
        %w = arith.xori %z, %z : i32
        return
      }"""
    with ir.Context():
        module = ir.Module.parse(text)
        block = module.body.operations[1].regions[0].blocks[0]
        x, y, z, g, call, w, ret = block.operations
        steps = [
            ("z after g", lambda: z.move_after(g)),     # valid
            ("x before z", lambda: x.move_before(z)),   # y, its user, stays above
            ("w before z", lambda: w.move_before(z)),   # uses z
            ("y before z", lambda: y.move_before(z)),   # valid
            ("x before y", lambda: x.move_before(y)),   # valid
        ]

        def moves(op, rewriter):
            if "done" in op.attributes:
                return True

            def mark():
                op.attributes["done"] = ir.UnitAttr.get()
            rewriter.modify_op_in_place(op, mark)
            for name, step in steps:
                try:
                    step()
                    print(name + ": moved")
                except ir.MLIRError as e:
                    print(name + ":", str(e).split(" would leave ")[1]
                          .split(" a value")[0])

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.ori", moves)
        rewrite.walk_and_apply_patterns(module, patterns.freeze())
        # CHECK-NEXT: z after g: moved
        # CHECK-NEXT: x before z: operand #0 of 'arith.addi'
        # CHECK-NEXT: w before z: operand #0 of 'arith.xori'
        # CHECK-NEXT: y before z: moved
        # CHECK-NEXT: x before y: moved
        # CHECK-NEXT: True ori subi addi muli call xori return
        print(module.operation.verify(),
              *(o.name.split(".")[1] for o in block.operations))
