# RUN: %PYTHON %s | FileCheck %s
# Locations from the Python call stack (upstream's ir.loc_tracebacks and the
# loc_tracebacks_* / register_traceback_file_* functions of _cext.globals):
# the printed shapes, which frames are kept, the frame limit, precedence over
# loc= and the current Location, and building from threads, rewrite patterns
# and Python passes.

import gc
import os
import sys
import threading

from mlir_tracking import _cext, ir, rewrite
from mlir_tracking.dialects import _arith_ops_gen, arith, func
from mlir_tracking.passmanager import PassManager

G = _cext.globals


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    # Every test leaves the process-wide settings as it found them.
    assert not G.loc_tracebacks_enabled()
    assert G.loc_tracebacks_frame_limit() == 10
    return f


def frames(loc):
    """The frames of a traceback location, innermost first, as
    'qualname@file:line:col-endcol'."""
    out = []
    while True:
        if loc.is_a_callsite():
            frame, loc = loc.callee, loc.caller
        else:
            frame, loc = loc, None
        if not frame.is_a_name():
            out.append(str(frame))
        else:
            child = frame.child_loc
            out.append(
                f"{frame.name_str}@{os.path.basename(child.filename)}:"
                f"{child.start_line}:{child.start_col}-{child.end_col}"
            )
        if loc is None:
            return out


def names(loc):
    return [f.split("@")[0] for f in frames(loc)]


# CHECK-LABEL: TEST: test_printed_shape
@run
def test_printed_shape():
    with ir.Context() as ctx, ir.loc_tracebacks():
        ctx.allow_unregistered_dialects = True
        op = ir.Operation.create("test.op")
        # Innermost first: this function, then run(), then the module.
        # CHECK: loc(callsite("test_printed_shape"("{{.*}}loc_tracebacks.py":[[@LINE-2]]:13 to :43) at callsite("run"("{{.*}}loc_tracebacks.py":{{[0-9]+}}:4 to :7) at "<module>"("{{.*}}loc_tracebacks.py":[[@LINE-6]]:1 to :4))))
        print(op.location)
        # The same location in the debug form of the op.
        # CHECK: "test.op"() : () -> () loc(#[[LOC:loc[0-9]*]])
        # CHECK: #[[LOC]] = loc(callsite(
        print(op.get_asm(enable_debug_info=True))
        # A single frame is a bare name location.
        G.set_loc_tracebacks_frame_limit(1)
        one = ir.Operation.create("test.op")
        # CHECK: loc("test_printed_shape"("{{.*}}loc_tracebacks.py":[[@LINE-1]]:14 to :44))
        print(one.location)
        # A call spanning lines: the range of the whole call.
        two = ir.Operation.create(
            "test.op",
        )
        # CHECK: loc("test_printed_shape"("{{.*}}loc_tracebacks.py":[[@LINE-3]]:14 to [[@LINE-1]]:9))
        print(two.location)
        # Through Module.create too, as upstream.
        # CHECK: ['test_printed_shape']
        print(names(ir.Module.create().operation.location))


# CHECK-LABEL: TEST: test_which_frames
@run
def test_which_frames():
    with ir.Context(), ir.loc_tracebacks(max_depth=3):
        index = ir.IndexType.get()

        # The hand-written dialect module is kept, the generated one (which
        # registers itself for exclusion at import) is not, as upstream.
        # CHECK: ['ConstantOp.__init__', 'constant', 'test_which_frames']
        print(names(arith.constant(index, 1).owner.location))
        # A generated class built directly: the caller only.
        c = arith.ConstantOp(index, 2)
        # CHECK: ['test_which_frames', 'run', '<module>']
        print(names(arith.AddIOp(c, c).location))
        # The classmethod builder too.
        generic = arith.AddIOp.build_generic(results=[index], operands=[c, c])
        # CHECK: ['test_which_frames', 'run', '<module>']
        print(names(generic.location))

        # Exclusions and inclusions are prefixes of file names; registering
        # one undoes the other for the same string.
        G.register_traceback_file_exclusion(arith.__file__)
        # CHECK: ['test_which_frames', 'run', '<module>']
        print(names(arith.constant(index, 3).owner.location))
        G.register_traceback_file_inclusion(arith.__file__)
        G.register_traceback_file_inclusion(_arith_ops_gen.__file__)
        # CHECK: ['ConstantOp.__init__', 'ConstantOp.__init__', 'constant']
        print(names(arith.constant(index, 4).owner.location))
        # The generated __init__ is called by the wrapper's.
        # CHECK: ConstantOp.__init__@_arith_ops_gen.py:{{[0-9]+}}:4-{{[0-9]+}}
        # CHECK-NEXT: ConstantOp.__init__@arith.py:{{[0-9]+}}:{{[0-9]+}}-{{[0-9]+}}
        print("\n".join(frames(arith.constant(index, 5).owner.location)[:2]))
        G.register_traceback_file_exclusion(_arith_ops_gen.__file__)
        # Back to the defaults.
        # CHECK: ['ConstantOp.__init__', 'constant', 'test_which_frames']
        print(names(arith.constant(index, 6).owner.location))
        # An inclusion covering an excluded file (a prefix of it) wins.
        G.register_traceback_file_inclusion(os.path.dirname(_arith_ops_gen.__file__) + os.sep + "_arith_")
        # CHECK: ['AddIOp.__init__', 'test_which_frames', 'run']
        print(names(arith.AddIOp(c, c).location))
        G.register_traceback_file_exclusion(os.path.dirname(_arith_ops_gen.__file__) + os.sep + "_arith_")
        # CHECK: ['test_which_frames', 'run', '<module>']
        print(names(arith.AddIOp(c, c).location))

        # Excluding this file too: only the wrapper's frames are left.
        G.register_traceback_file_exclusion(__file__)
        try:
            # CHECK: ['ConstantOp.__init__', 'constant']
            print(names(arith.constant(index, 7).owner.location))
            G.register_traceback_file_exclusion(arith.__file__)
            # No frame left: unknown.
            # CHECK: loc(unknown)
            print(arith.constant(index, 8).owner.location)
        finally:
            G.register_traceback_file_inclusion(__file__)
            G.register_traceback_file_inclusion(arith.__file__)
        # CHECK: ['test_which_frames', 'run', '<module>']
        print(names(arith.AddIOp(c, c).location))

        # Code compiled from a string: its made-up file name is kept.
        scope = {"ir": ir}
        exec(compile("op = ir.Operation.create('arith.constant', results=[ir.IndexType.get()], attributes={'value': ir.IntegerAttr.get(ir.IndexType.get(), 9)})", "<generated>", "exec"), scope)
        # CHECK: <module>@<generated>:1:5-
        print(frames(scope["op"].location)[0])


# CHECK-LABEL: TEST: test_precedence
@run
def test_precedence():
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        explicit = ir.Location.file("explicit.py", 1, 2)
        with ir.Location.name("current"):
            with ir.loc_tracebacks():
                # loc= first.
                # CHECK: loc("explicit.py":1:2)
                print(ir.Operation.create("test.op", loc=explicit).location)
                # loc=None is no location given.
                # CHECK: test_precedence
                print(names(ir.Operation.create("test.op", loc=None).location)[0])
                # Then the traceback, before the current Location (upstream).
                # CHECK: test_precedence
                print(names(ir.Operation.create("test.op").location)[0])
                # Block arguments keep the current Location.
                holder = ir.Operation.create("test.op", regions=1)
                ir.Block.create_at_start(holder.regions[0], [ir.IndexType.get()])
                # CHECK: ^bb0(%arg0: index loc("current")):
                asm = holder.get_asm(enable_debug_info=True)
                print([line.strip() for line in asm.splitlines() if "^bb0" in line][0])
            # Disabled again: the current Location.
            # CHECK: loc("current")
            print(ir.Operation.create("test.op").location)
        # Neither: the usual error.
        try:
            ir.Operation.create("test.op")
        except RuntimeError as e:
            # CHECK: An MLIR function requires a Location
            print(str(e).split(" but")[0])
        # Enabled, no Location needed.
        with ir.loc_tracebacks():
            # CHECK: test_precedence
            print(names(ir.Operation.create("test.op").location)[0])


# CHECK-LABEL: TEST: test_limits
@run
def test_limits():
    # CHECK: 10 False
    print(G.loc_tracebacks_frame_limit(), G.loc_tracebacks_enabled())
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True

        def depth(n, limit):
            if n:
                return depth(n - 1, limit)
            with ir.loc_tracebacks(max_depth=limit):
                return names(ir.Operation.create("test.op").location)

        # CHECK: 2 ['test_limits.<locals>.depth', 'test_limits.<locals>.depth']
        found = depth(5, 2)
        print(len(found), found)
        # CHECK: loc(unknown)
        with ir.loc_tracebacks(max_depth=0):
            print(ir.Operation.create("test.op").location)
        # Deeper than the maximum: 512 frames, all of the recursion.
        # CHECK: 512 {'test_limits.<locals>.depth'}
        found = depth(700, 10**6)
        print(len(found), set(found))
        # None: the maximum; negative: the maximum too (as upstream's size_t).
        for limit in (None, -1, 513, 7):
            G.set_loc_tracebacks_frame_limit(limit)
            print(G.loc_tracebacks_frame_limit())
        # CHECK-NEXT: 512
        # CHECK-NEXT: 512
        # CHECK-NEXT: 512
        # CHECK-NEXT: 7
        G.set_loc_tracebacks_frame_limit(10)

        # Near the recursion limit: no trouble walking the stack.
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(3000)
        try:
            found = depth(2800, 512)
        finally:
            sys.setrecursionlimit(old)
        # CHECK: deep 512
        print("deep", len(found))
        # Nested managers: the inner limit while inside, the outer after;
        # tracebacks stay on until the outermost exits.
        with ir.loc_tracebacks(max_depth=4):
            with ir.loc_tracebacks(max_depth=1):
                # CHECK: inner 1 True
                print("inner", G.loc_tracebacks_frame_limit(), G.loc_tracebacks_enabled())
            # CHECK: outer 4 True
            print("outer", G.loc_tracebacks_frame_limit(), G.loc_tracebacks_enabled())
        # An exception leaves the settings restored.
        try:
            with ir.loc_tracebacks(max_depth=3):
                raise KeyError("x")
        except KeyError:
            pass
        # CHECK: after 10 False
        print("after", G.loc_tracebacks_frame_limit(), G.loc_tracebacks_enabled())


# CHECK-LABEL: TEST: test_long_location_prints
@run
def test_long_location_prints():
    with ir.Context() as ctx, ir.loc_tracebacks(max_depth=512):
        ctx.allow_unregistered_dialects = True
        module = ir.Module.create()

        def down(n):
            if n:
                return down(n - 1)
            with ir.InsertionPoint(module.body):
                return ir.Operation.create("test.op")

        op = down(600)
        text = module.operation.get_asm(enable_debug_info=True)
        # 512 frames: 511 callsites.
        # CHECK: callsites 511 ok True
        print("callsites", str(op.location).count("callsite("), "ok", module.operation.verify())
        # Round trip through the parser (the same text; not the same
        # attribute: the parser makes a one-line range without an end line).
        again = ir.Module.parse(text)
        # CHECK: same True
        print("same", str(again.body.operations[0].location) == str(op.location))


# CHECK-LABEL: TEST: test_contexts
@run
def test_contexts():
    # A location made in a context that is then dropped, and the same
    # frames in a new context.
    def build():
        with ir.Context() as ctx, ir.loc_tracebacks():
            ctx.allow_unregistered_dialects = True
            return ir.Operation.create("test.op").location

    loc = build()
    gc.collect()
    # CHECK: test_contexts.<locals>.build
    print(names(loc)[0])
    del loc
    gc.collect()
    # CHECK: test_contexts.<locals>.build
    print(names(build())[0])
    # The context of the location is the context the op is built in, not
    # the current one.
    with ir.Context() as outer, ir.Context() as inner:
        inner.allow_unregistered_dialects = True
        module = ir.Module.create(loc=ir.Location.unknown(inner))
        with ir.loc_tracebacks(), ir.InsertionPoint(module.body):
            op = ir.Operation.create("test.op")
        # CHECK: same context True
        print("same context", op.location.context == inner)
    del module, op
    gc.collect()


# CHECK-LABEL: TEST: test_threads
@run
def test_threads():
    results = {}
    errors = []

    def worker(i):
        try:
            with ir.Context() as ctx:
                ctx.allow_unregistered_dialects = True
                for _ in range(50):
                    loc = ir.Operation.create("test.op").location
                results[i] = names(loc)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    def toggler(stop):
        while not stop.is_set():
            G.set_loc_tracebacks_frame_limit(3)
            G.set_loc_tracebacks_frame_limit(2)

    with ir.loc_tracebacks(max_depth=2):
        stop = threading.Event()
        t = threading.Thread(target=toggler, args=(stop,))
        t.start()
        workers = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        stop.set()
        t.join()
    # Each thread's own stack: the worker, then threading's Thread.run.
    # CHECK: errors []
    print("errors", errors)
    # CHECK: {('test_threads.<locals>.worker',)}
    print({tuple(r[:1]) for r in results.values()})
    # CHECK: True
    print(all(len(r) in (2, 3) and r[1] == "Thread.run" for r in results.values()))


# CHECK-LABEL: TEST: test_patterns_and_passes
@run
def test_patterns_and_passes():
    asm = """
    func.func @f(%a: i32, %b: i32) -> i32 {
      %m = arith.muli %a, %b : i32
      return %m : i32
    }
    """
    with ir.Context():
        module = ir.Module.parse(asm)

        def to_addi(op, rewriter):
            with rewriter.ip:
                new = ir.Operation.create(
                    "arith.addi",
                    results=[op.results[0].type],
                    operands=[op.operands[0], op.operands[1]],
                )
            rewriter.replace_op(op, [new.results[0]])

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", to_addi)
        with ir.loc_tracebacks(max_depth=3):
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        add = module.body.operations[0].regions[0].blocks[0].operations[0]
        # The pattern, then its caller's frames (the driver is C++).
        # CHECK: arith.addi ['test_patterns_and_passes.<locals>.to_addi', 'test_patterns_and_passes', 'run']
        print(add.name, names(add.location))

        def add_constant(op, pass_):
            block = op.regions[0].blocks[0].operations[0].regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(block):
                arith.ConstantOp(ir.IntegerType.get_signless(32), 42)

        pm = PassManager("builtin.module")
        pm.add(add_constant, name="add_constant")
        with ir.loc_tracebacks(max_depth=2):
            pm.run(module.operation)
        const = module.body.operations[0].regions[0].blocks[0].operations[0]
        # CHECK: arith.constant ['ConstantOp.__init__', 'test_patterns_and_passes.<locals>.add_constant']
        print(const.name, names(const.location))
        # The IR still verifies and prints with its locations.
        # CHECK: verifies True
        print("verifies", module.operation.verify())
        # CHECK: loc(callsite("ConstantOp.__init__"("{{.*}}arith.py":{{.*}}) at "test_patterns_and_passes.<locals>.add_constant"("{{.*}}loc_tracebacks.py":{{[0-9]+}}:16 to :69)))
        print(const.location)


# CHECK-LABEL: TEST: test_errors
@run
def test_errors():
    # CHECK: TypeError
    try:
        G.set_loc_tracebacks_frame_limit("3")
    except TypeError:
        print("TypeError")
    # A file name that is not valid UTF-8 (a surrogate escape): escaped.
    with ir.Context() as ctx, ir.loc_tracebacks():
        ctx.allow_unregistered_dialects = True
        scope = {"ir": ir}
        exec(compile("op = ir.Operation.create('test.op')", "bad\udcff.py", "exec"), scope)
        # CHECK: bad\udcff.py
        print(frames(scope["op"].location)[0].split("@")[1].split(":")[0])
