# RUN: %PYTHON %s | FileCheck %s
# Python code that a binding runs while its C++ side holds raw ops, blocks or
# values: an OpView class's __new__, a gc callback, a generator or property
# of an argument, a PDL rewrite function, a type conversion, the function
# of modify_op_in_place. Each of these changed the IR under the binding
# (segfaults, reads of freed memory, a double free; found by an adversarial
# pass in round 27 of issue 12). Now the binding either finishes the Python
# work before it takes a raw pointer, or refuses the change with a clear
# error; the IR stays whole either way.

import contextlib
import gc
import sys

from mlir_tracking import _cext, ir, rewrite
from mlir_tracking.dialects import arith  # noqa: F401 (registers its views)
from mlir_tracking.dialects import cf


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


FUNC = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %m = arith.muli %a, %b : i32
  %d = arith.addi %a, %a : i32
  %e = arith.addi %d, %d : i32
  return %m : i32
}
"""


def body(module):
    return module.body.operations[0].regions[0].blocks[0]


def names(module):
    return [op.operation.name for op in body(module).operations]


def error(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0]}"


class _Dialect(ir.Dialect):
    DIALECT_NAMESPACE = "test_inside_bindings"


_cext.register_dialect(_Dialect)

# What the hostile OpView classes below do when they are instantiated.
on_new = []


@contextlib.contextmanager
def hostile_view(op_name):
    """While active, the OpView class of `op_name` is one whose __new__
    calls the functions in `on_new` (then empties it)."""
    original = _cext.globals._get_operation_class(op_name)

    @_cext.register_operation(_Dialect, replace=True)
    class Hostile(ir.OpView):
        OPERATION_NAME = op_name

        def __new__(cls, *args, **kwargs):
            while on_new:
                on_new.pop(0)()
            return super().__new__(cls)

    try:
        yield
    finally:
        if original is not None:
            _cext.register_operation(_Dialect, replace=True)(original)


def refused(fn, messages):
    """Calls `fn`, appending the error it raises to `messages`."""
    def call():
        try:
            fn()
            messages.append("done")
        except Exception as e:
            messages.append(error(e))
    return call


# CHECK-LABEL: TEST: test_opview_new_may_not_change_a_listed_block
@run
def test_opview_new_may_not_change_a_listed_block():
    with hostile_view("arith.addi"), ir.Context():
        module = ir.Module.parse(FUNC)
        second = body(module).operations[2].operation
        gc.collect()  # no view of the addi ops is alive any more
        messages = []
        on_new.append(refused(second.erase, messages))
        # Listing makes a view of each op while iterating the block.
        listed = [op.operation.name for op in body(module).operations]
        # CHECK: RuntimeError: cannot change this IR now: iterating an OperationList holds it while Python code runs
        print(*messages)
        # CHECK: ['arith.muli', 'arith.addi', 'arith.addi', 'func.return'] True
        print(listed, module.operation.verify())
        # After the listing, the same erase works.
        second.erase()
        # CHECK: ['arith.muli', 'arith.addi', 'func.return']
        print(names(module))


# CHECK-LABEL: TEST: test_gc_callback_may_not_change_a_listed_block
@run
def test_gc_callback_may_not_change_a_listed_block():
    with ir.Context():
        module = ir.Module.parse(FUNC)
        second = body(module).operations[2].operation
        operations = body(module).operations
        messages = []
        erase = refused(second.erase, messages)
        # Collections seen while armed; at collection number `at`, `erase`.
        seen = [0]
        armed = [False]
        at = [None]

        def callback(phase, info):
            if armed[0] and phase == "start":
                seen[0] += 1
                if seen[0] == at[0]:
                    erase()

        def listing():
            """iter(operations) with a collection at nearly every
            allocation of a Python object (arming allocates nothing)."""
            seen[0] = 0
            threshold = gc.get_threshold()
            gc.callbacks.append(callback)
            gc.set_threshold(1)
            try:
                armed[0] = True
                # (`iter`, not `list`: that would allocate its list first.)
                return iter(operations)
            finally:
                armed[0] = False
                gc.set_threshold(*threshold)
                gc.callbacks.remove(callback)

        # Count the collections of a listing, then erase half-way through
        # one: the listing holds the block's ops there.
        listing()
        at[0] = seen[0] // 2
        snapshot = listing()
        listed = [op.operation.name for op in snapshot]
        args = list(body(module).arguments)
        # CHECK: RuntimeError: cannot change this IR now: iterating an OperationList holds it
        print(*messages)
        # CHECK: 4 2 True
        print(len(listed), len(args), module.operation.verify())


def erase_then_yield(victim, items):
    """A generator that erases `victim` before yielding `items`."""
    victim.erase()
    yield from items


# CHECK-LABEL: TEST: test_argument_generators_run_before_the_ir_is_read
@run
def test_argument_generators_run_before_the_ir_is_read():
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        unknown = ir.Location.unknown()
        calls = {
            "BlockList.append":
                lambda f, locs: f.regions[0].blocks.append(i32, arg_locs=locs),
            "Block.create_before":
                lambda f, locs: f.regions[0].blocks[0].create_before(
                    i32, arg_locs=locs),
            "Block.create_after":
                lambda f, locs: f.regions[0].blocks[0].create_after(
                    i32, arg_locs=locs),
            "Block.create_at_start":
                lambda f, locs: ir.Block.create_at_start(
                    f.regions[0], [i32], arg_locs=locs),
        }
        for name, call in calls.items():
            module = ir.Module.parse(FUNC)
            func = module.body.operations[0].operation
            try:
                call(func, erase_then_yield(func, [unknown]))
                print(name, "worked")
            except ir.InvalidatedHandleError as e:
                # The function was erased by the generator, before the
                # binding read it: its handle says so.
                print(name, "is erased" in str(e), str(module).split())
        # CHECK: BlockList.append True ['module', '{', '}']
        # CHECK: Block.create_before True ['module', '{', '}']
        # CHECK: Block.create_after True ['module', '{', '}']
        # CHECK: Block.create_at_start True ['module', '{', '}']


# CHECK-LABEL: TEST: test_replace_op_values_generator
@run
def test_replace_op_values_generator():
    with ir.Context():
        module = ir.Module.parse(FUNC)
        messages = []

        def pattern(op, rewriter):
            if op.operation.name != "arith.muli" or messages:
                return True
            lhs = op.operation.operands[0]

            def values():
                # Replaces (and so erases) the op being replaced.
                rewriter.replace_op(op, [lhs])
                yield lhs

            try:
                rewriter.replace_op(op, values=values())
                messages.append("replaced twice")
            except Exception as e:
                messages.append(error(e))
            return False

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", pattern)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        # CHECK: InvalidatedHandleError: operation handle to 'arith.muli' {{.*}} is erased
        print(*messages)
        # CHECK: ['func.return'] True
        print(names(module), module.operation.verify())


# CHECK-LABEL: TEST: test_build_generic_successors_generator
@run
def test_build_generic_successors_generator():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
func.func @f(%a: i32) {
  %x = arith.addi %a, %a : i32
  cf.br ^bb1
^bb1:
  return
}""")
        func = module.body.operations[0]
        entry, exit_block = func.regions[0].blocks
        x = entry.operations[0]
        try:
            with ir.InsertionPoint(exit_block.operations[0]):
                cf.BranchOp.build_generic(
                    results=[], operands=[x.result],
                    successors=erase_then_yield(x, [exit_block]))
            print("built")
        except ir.InvalidatedHandleError as e:
            # CHECK: value handle to result #0 of 'arith.addi' {{.*}} is erased
            print(str(e).splitlines()[0])
        # CHECK: ['cf.br'] ['func.return'] True
        print([op.operation.name for op in entry.operations],
              [op.operation.name for op in exit_block.operations],
              module.operation.verify())


class ErasingList(list):
    """A list whose iteration erases `victim` first."""

    def __init__(self, items, victim):
        super().__init__(items)
        self.victim = victim

    def __iter__(self):
        if self.victim is not None:
            self.victim, victim = None, self.victim
            victim.erase()
        return super().__iter__()


# CHECK-LABEL: TEST: test_build_generic_segment_list_subclass
@run
def test_build_generic_segment_list_subclass():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
func.func @f(%a: i32, %c: i1) {
  %x = arith.addi %a, %a : i32
  %y = arith.cmpi eq, %a, %a : i32
  cf.br ^bb1
^bb1:
  return
}""")
        func = module.body.operations[0]
        entry, exit_block = func.regions[0].blocks
        x, y = entry.operations[0], entry.operations[1]
        # The condition is the first segment; iterating the second (a
        # variadic one) erases the condition's op. The copy of every
        # segment runs first, so the erased condition is seen as such.
        try:
            with ir.InsertionPoint(entry.operations[2]):
                cf.CondBranchOp.build_generic(
                    results=[],
                    operands=[y.result, ErasingList([], y), []],
                    successors=[exit_block, exit_block])
            print("built")
        except ir.InvalidatedHandleError as e:
            # CHECK: value handle to result #0 of 'arith.cmpi' {{.*}} is erased
            print(str(e).splitlines()[0])
        # A list subclass that changes nothing is read like a list.
        with ir.InsertionPoint(entry.operations[1]):
            branch = cf.CondBranchOp.build_generic(
                results=[],
                operands=[entry.arguments[1], ErasingList([x.result], None),
                          ErasingList([], None)],
                successors=[exit_block, exit_block])
        # CHECK: ['arith.addi', 'cf.cond_br', 'cf.br'] 1
        print([op.operation.name for op in entry.operations],
              len(branch.operation.operands) - 1)
        branch.operation.erase()
        # CHECK: True
        print(module.operation.verify())


class ClassPropertyView(ir.OpView):
    """A view whose `__class__` is Python code: PyObject_IsInstance reads it
    when a type check fails, which bindings used to do on their arguments
    after taking IR raw."""

    reads = 0
    on_read = None

    @property
    def __class__(self):
        ClassPropertyView.reads += 1
        if ClassPropertyView.on_read:
            action, ClassPropertyView.on_read = ClassPropertyView.on_read, None
            action()
        return ClassPropertyView


# CHECK-LABEL: TEST: test_bindings_never_read_a_class_property
@run
def test_bindings_never_read_a_class_property():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(FUNC)
        muli, first, second, ret = body(module).operations
        # Each would have erased an op the binding had taken raw.
        ClassPropertyView.on_read = lambda: first.operation.erase()
        # An operand given as an op (its single result).
        with ir.InsertionPoint(ret):
            made = arith.AddIOp.build_generic(
                results=[first.result.type],
                operands=[first.result, ClassPropertyView(second.operation)])
        ret.operation.operands[0] = made.result
        patterns = rewrite.RewritePatternSet()

        def replace(op, rewriter):
            rewriter.replace_op(op, ClassPropertyView(second.operation))
            return False

        patterns.add("arith.muli", replace)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        ClassPropertyView.on_read = None
        # CHECK: 0 ['arith.addi', 'arith.addi', 'arith.addi', 'func.return'] True
        print(ClassPropertyView.reads, names(module), module.operation.verify())


PDL_REWRITE = """
module {
  pdl.pattern : benefit(1) {
    %type = pdl.type : i32
    %lhs = pdl.operand
    %rhs = pdl.operand
    %op = pdl.operation "arith.muli"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.rewrite %op {
REWRITE
    }
  }
}"""


def run_pdl(rewrite_body, name, fn, driver, module_text=FUNC):
    """Applies one PDL pattern on arith.muli whose rewrite is
    `rewrite_body` (calling `fn` as `name`); prints the ops left."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(module_text)
        pdl = rewrite.PDLModule(ir.Module.parse(
            PDL_REWRITE.replace("REWRITE", rewrite_body)))
        pdl.register_rewrite_function(name, fn)
        try:
            driver(module, pdl.freeze())
        except Exception as e:
            print("run:", error(e))
        print(names(module), module.operation.verify())


# CHECK-LABEL: TEST: test_pdl_keeps_what_its_rewrite_uses_after_a_function
@run
def test_pdl_keeps_what_its_rewrite_uses_after_a_function():
    messages = []

    def make_then_erase(rewriter, results, values):
        op = values[0]
        with rewriter.ip:
            new = ir.Operation.create("arith.subi", results=[op.results[0].type],
                                      operands=list(op.operands))
        results.append(new.results[0])
        # PDL replaces the matched op by this result when we return.
        refused(lambda: rewriter.erase_op(new), messages)()

    run_pdl("""
      %v = pdl.apply_native_rewrite "make"(%op : !pdl.operation) : !pdl.value
      pdl.replace %op with (%v : !pdl.value)""", "make", make_then_erase,
            rewrite.apply_patterns_and_fold_greedily)
    # CHECK: ['arith.subi', 'func.return'] True
    # CHECK: RuntimeError: cannot erase 'arith.subi': the PDL rewrite calling 'make' still uses it (or IR in it) after this Python code returns
    print(*messages)

    messages.clear()

    def erase_arg(rewriter, results, values):
        refused(lambda: rewriter.erase_op(values[0]), messages)()

    # `pdl.erase` frees the op after the function (freed twice before). The
    # walk driver: the greedy one would erase the unused op first.
    run_pdl("""
      pdl.apply_native_rewrite "kill"(%op : !pdl.operation)
      pdl.erase %op""", "kill", erase_arg, rewrite.walk_and_apply_patterns,
            FUNC.replace("return %m", "return %a"))
    print(*messages)
    # CHECK: ['arith.addi', 'arith.addi', 'func.return'] True
    # CHECK: RuntimeError: cannot erase 'arith.muli': the PDL rewrite calling 'kill' still uses it

    # A detached op as a result lived only as long as its handle: PDL then
    # replaced the matched op by a freed one. It lives until the run ends,
    # and the run raises (the greedy driver cannot undo the rewrite: the
    # function stays wired in, and the IR does not verify).
    def detached(rewriter, results, values):
        op = values[0]
        new = ir.Operation.create("arith.subi", results=[op.results[0].type],
                                  operands=list(op.operands))
        results.append(new)
        del new
        gc.collect()

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(FUNC)
        pdl = rewrite.PDLModule(ir.Module.parse(PDL_REWRITE.replace(
            "REWRITE", """
      %new = pdl.apply_native_rewrite "detached"(%op : !pdl.operation) : !pdl.operation
      pdl.replace %op with %new""")))
        pdl.register_rewrite_function("detached", detached)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except RuntimeError as e:
            # CHECK: a PDL result is not in the IR that PDL rewrites (a detached op, or one of other IR): create ops at rewriter.ip
            print(e)
        gc.collect()
        # The pdl.replace by it was refused: the op stays.
        # CHECK: True arith.muli
        print(module.operation.verify(),
              module.body.operations[0].regions[0].blocks[0].operations[0].name)

    # Nothing after the call uses the op: the function may erase it.
    def erase_all(rewriter, results, values):
        rewriter.erase_op(values[0])

    run_pdl('      pdl.apply_native_rewrite "kill"(%op : !pdl.operation)',
            "kill", erase_all, rewrite.walk_and_apply_patterns,
            FUNC.replace("return %m", "return %a"))
    # CHECK: ['arith.addi', 'arith.addi', 'func.return'] True


# CHECK-LABEL: TEST: test_kept_ir_stays_in_its_tree
@run
def test_kept_ir_stays_in_its_tree():
    # Moved into a detached op whose last handle then died, the op PDL
    # erases after the function was freed with that detached op.
    messages = []

    def move_away(rewriter, results, values):
        holder = ir.Operation.create("scf.execute_region", results=[],
                                     regions=1)
        block = holder.regions[0].blocks.append()
        try:
            values[0].move_before(
                ir.Operation.create("scf.yield", ip=ir.InsertionPoint(block)))
            messages.append("moved")
        except RuntimeError as e:
            messages.append(error(e))
        del holder, block
        gc.collect()

    run_pdl("""
      pdl.apply_native_rewrite "move"(%op : !pdl.operation)
      pdl.erase %op""", "move", move_away, rewrite.walk_and_apply_patterns,
            FUNC.replace("return %m", "return %a"))
    # CHECK: ['arith.addi', 'arith.addi', 'func.return'] True
    # CHECK: RuntimeError: cannot move 'arith.muli' into other IR: the PDL rewrite calling 'move' still uses it (or IR in it) after this Python code returns, and the other IR may be freed before
    print(*messages)

    # Within its tree the op may move.
    messages.clear()

    def move_down(rewriter, results, values):
        values[0].move_after(values[0].parent.regions[0].blocks[0]
                             .operations[1])
        messages.append("moved")

    run_pdl("""
      pdl.apply_native_rewrite "move"(%op : !pdl.operation)
      pdl.erase %op""", "move", move_down, rewrite.walk_and_apply_patterns,
            FUNC.replace("return %m", "return %a"))
    # CHECK: ['arith.addi', 'arith.addi', 'func.return'] True
    # CHECK: moved
    print(*messages)


# CHECK-LABEL: TEST: test_symbol_table_runs_python_first
@run
def test_symbol_table_runs_python_first():
    with ir.Context(), ir.Location.unknown():
        for method in ("insert", "erase"):
            outer = ir.Module.parse(
                "module { module @inner { func.func private @g() } }")
            inner = outer.body.operations[0]
            table = ir.SymbolTable(inner.operation)
            symbol = inner.regions[0].blocks[0].operations[0]

            class ErasesTheTable:
                @property
                def operation(self):
                    inner.operation.erase()
                    return symbol.operation

            try:
                getattr(table, method)(ErasesTheTable())
                print("done")
            except ir.InvalidatedHandleError as e:
                print(method, str(e).splitlines()[0])
            print(str(outer).split())
        # CHECK: insert operation handle to 'builtin.module' {{.*}} is erased
        # CHECK: ['module', '{', '}']
        # CHECK: erase operation handle to 'builtin.module' {{.*}} is erased
        # CHECK: ['module', '{', '}']


# CHECK-LABEL: TEST: test_walk_symbol_tables_views_may_not_erase
@run
def test_walk_symbol_tables_views_may_not_erase():
    with hostile_view("builtin.module"), ir.Context():
        module = ir.Module.parse(
            "module { module @a { module @b {} } module @c {} }")
        last = module.body.operations[1].operation
        gc.collect()
        messages = []
        on_new.append(refused(last.erase, messages))
        visited = []
        ir.SymbolTable.walk_symbol_tables(
            module.operation, True,
            lambda op, visible: visited.append(op.operation.name))
        # CHECK: RuntimeError: cannot change this IR now: SymbolTable.walk_symbol_tables holds it
        print(*messages)
        # CHECK: 4 True
        print(len(visited), module.operation.verify())


def convert_muli_to_llvm(module, convert_type):
    """Converts the arith.muli ops of `module` to llvm.mul with a Python
    conversion pattern, `convert_type` as the TypeConverter's conversion."""
    def to_llvm(op, operands, converter, rewriter):
        with rewriter.ip:
            new = ir.Operation.create(
                "llvm.mul", results=[op.results[0].type], operands=operands,
                loc=op.location)
        rewriter.replace_op(op, new)

    converter = rewrite.TypeConverter()
    converter.add_conversion(convert_type)
    target = rewrite.ConversionTarget()
    target.add_legal_dialect("llvm", "func", "arith")
    target.add_illegal_op("arith.muli")
    patterns = rewrite.RewritePatternSet()
    patterns.add_conversion("arith.muli", to_llvm, converter)
    rewrite.apply_partial_conversion(module, target, patterns.freeze())


# CHECK-LABEL: TEST: test_type_conversion_may_not_change_ir
@run
def test_type_conversion_may_not_change_ir():
    with ir.Context():
        module = ir.Module.parse(FUNC)
        victim = body(module).operations[2].operation
        messages = []

        def convert(t):
            if not messages:
                refused(victim.erase, messages)()
            return t

        convert_muli_to_llvm(module, convert)
        # CHECK: RuntimeError: cannot erase from a TypeConverter conversion: it may not change IR (the dialect conversion holds the IR it is converting)
        print(*messages)
        # CHECK: ['llvm.mul', 'arith.addi', 'arith.addi', 'func.return'] True
        print(names(module), module.operation.verify())


# CHECK-LABEL: TEST: test_value_caster_may_not_free_conversion_operands
@run
def test_value_caster_may_not_free_conversion_operands():
    # A conversion pattern's operands become Value objects through the
    # value casters (Python code) one by one, while the rest are held raw.
    with ir.Context():
        module = ir.Module.parse("""
func.func @f(%a: i32, %b: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.addi %b, %b : i32
  %m = arith.muli %x, %y : i32
  return %m : i32
}""")
        y = body(module).operations[1].operation
        messages = []

        started = []

        def erase_y(value):
            if not started:
                # Once: the values below go through this caster too.
                started.append(value)
                y.result.replace_all_uses_with(body(module).arguments[1])
                refused(y.erase, messages)()
            return value

        ir.register_value_caster(ir.IntegerType.static_typeid, erase_y,
                                 replace=True)
        try:
            convert_muli_to_llvm(module, lambda t: t)
        except Exception as e:
            print("run:", error(e))
        finally:
            ir.register_value_caster(ir.IntegerType.static_typeid,
                                     lambda value: value, replace=True)
        # CHECK: RuntimeError: cannot erase 'arith.addi': the conversion pattern 'convert_muli_to_llvm.<locals>.to_llvm' (passing its operands) still uses it
        print(*messages)
        # CHECK: ['arith.addi', 'arith.addi', 'llvm.mul', 'func.return'] True
        print(names(module), module.operation.verify())


# CHECK-LABEL: TEST: test_modify_op_in_place_keeps_what_it_restores
@run
def test_modify_op_in_place_keeps_what_it_restores():
    i64 = None
    with ir.Context(), ir.Location.unknown():
        i64 = ir.IntegerType.get_signless(64)
        module = ir.Module.parse(FUNC.replace("return %m", "return %e"))
        args = list(body(module).arguments)
        d, e = body(module).operations[1], body(module).operations[2]
        messages = []

        def pattern(op, rewriter):
            if op.operation != e.operation or messages:
                return True

            def fn():
                # Stops using %d, erases it, and leaves `e` invalid: the
                # undo would put the freed %d back.
                e.operation.operands[0] = args[0]
                e.operation.operands[1] = args[0]
                d.operation.erase()

            def raises_half_way():
                e.operation.results[0].set_type(i64)
                raise KeyError("half-way")

            for f in (fn, raises_half_way):
                try:
                    rewriter.modify_op_in_place(e, f)
                    messages.append("done")
                except Exception as ex:
                    messages.append(error(ex))
            # (Applied: the first modification stays.)

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.addi", pattern)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        # CHECK: RuntimeError: cannot erase 'arith.addi': modify_op_in_place of 'arith.addi' (to undo an invalid change) still uses it
        # The type change breaks the function's return, a user of `e` that
        # the modification does not cover: refused at once.
        # CHECK-NEXT: MLIRError: setting a value's type inside a rewrite pattern would leave 'func.return' invalid
        print(*messages, sep="\n")
        # `e` is an i32 still.
        # CHECK: %0 = arith.addi %arg0, %arg0 : i32
        # CHECK: True
        print(e)
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_print_an_op_outside_the_state
@run
def test_print_an_op_outside_the_state():
    with ir.Context():
        valid = ir.Module.parse(FUNC)
        invalid = ir.Module.parse(FUNC)
        func = invalid.body.operations[0]
        # No terminator, and a function type of the wrong kind: func.func's
        # custom printer crashed on it.
        body(invalid).operations[3].erase()
        func.operation.attributes["function_type"] = ir.TypeAttr.get(
            ir.IntegerType.get_signless(8))

        class Out:
            text = ""

            def write(self, text):
                Out.text += text

        func.operation.print(ir.AsmState(valid), file=Out())
        # MLIR's generic form, as for any IR that does not verify.
        # CHECK: "func.func"() <{function_type = i8, sym_name = "f"}> ({
        print(Out.text.splitlines()[0])
        Out.text = ""
        # An op of the state's IR prints as before.
        body(valid).operations[0].operation.print(ir.AsmState(valid),
                                                  file=Out())
        # CHECK: %0 = arith.muli %arg0, %arg1 : i32
        print(Out.text)


# CHECK-LABEL: TEST: test_inherent_attribute_of_the_wrong_kind
@run
def test_inherent_attribute_of_the_wrong_kind():
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        five = ir.IntegerAttr.get(i32, 5)
        module = ir.Module.parse(FUNC)
        addi = body(module).operations[1].operation
        # MLIR's property setter dropped it and left a null property that
        # printing the op read (a segfault).
        try:
            addi.attributes["overflowFlags"] = five
        except TypeError as e:
            # CHECK: attribute 'overflowFlags' of 'arith.addi' has the wrong kind: IntegerAttr(5 : i32)
            print(e)
        a = body(module).arguments[0]
        try:
            ir.Operation.create("arith.addi", results=[i32], operands=[a, a],
                                attributes={"overflowFlags": five})
        except TypeError as e:
            # CHECK: attribute 'overflowFlags' of operation "arith.addi" has the wrong kind: IntegerAttr(5 : i32)
            print(e)
        # The old value is still there.
        # CHECK: %1 = arith.addi %arg0, %arg0 : i32
        print(addi)
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_counts_past_what_mlir_holds
@run
def test_counts_past_what_mlir_holds():
    with ir.Context(), ir.Location.unknown():
        ir.Context.current.allow_unregistered_dialects = True
        # Operation keeps its region count in 23 bits: more allocated
        # gigabytes and aborted.
        for regions in (2**31 - 1, 2**23, -1):
            try:
                ir.Operation.create("test.op", regions=regions)
            except ValueError as e:
                print(e)
        # CHECK: an operation has from 0 to 8388607 regions, not 2147483647
        # CHECK: an operation has from 0 to 8388607 regions, not 8388608
        # CHECK: an operation has from 0 to 8388607 regions, not -1
        # CHECK: 3
        print(len(ir.Operation.create("test.op", regions=3).regions))

        # A Linalg op's body builder trusted its operandSegmentSizes.
        from mlir_tracking.dialects import linalg
        f32 = ir.F32Type.get()
        tensor = ir.RankedTensorType.get([4], f32)
        module = ir.Module.parse(
            "func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) { return }")
        a, b = body(module).arguments
        for sizes in ([5, 7], [-3, 5]):
            op = ir.Operation.create(
                "linalg.add", results=[tensor], operands=[a, b], regions=1,
                attributes={"operandSegmentSizes":
                            ir.DenseI32ArrayAttr.get(sizes)})
            try:
                linalg._linalg_fill_structured_region(op)
            except ValueError as e:
                print(e)
        # CHECK: the operandSegmentSizes of 'linalg.add' must be two non-negative counts (inputs, inits) adding up to its 2 operands
        # CHECK: the operandSegmentSizes of 'linalg.add' must be two non-negative counts (inputs, inits) adding up to its 2 operands


sys.stdout.flush()
