# RUN: %PYTHON %s | FileCheck %s
# dialects.pdl beyond the generated classes (upstream's hand-written
# additions, in our words): the pdl types, builders that know their result
# types, PatternOp/RewriteOp bodies. A pattern built entirely from Python
# runs through rewrite.PDLModule.

import gc

from mlir_tracking import ir, rewrite
from mlir_tracking.dialects import pdl


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def error(f):
    try:
        f()
        return "no error"
    except Exception as e:
        return f"{type(e).__name__}: {e}"


# CHECK-LABEL: TEST: test_types
@run
def test_types():
    with ir.Context():
        kinds = [pdl.AttributeType.get(), pdl.OperationType.get(),
                 pdl.TypeType.get(), pdl.ValueType.get()]
        # CHECK: !pdl.attribute !pdl.operation !pdl.type !pdl.value
        print(*kinds)
        # CHECK-NEXT: AttributeType(!pdl.attribute) OperationType(!pdl.operation)
        print(repr(kinds[0]), repr(pdl.op_t()))
        value_range = pdl.RangeType.get(pdl.ValueType.get())
        # CHECK-NEXT: !pdl.range<value> RangeType ValueType !pdl.value
        print(value_range, type(value_range).__name__,
              type(value_range.element_type).__name__, value_range.element_type)
        # The API returns pdl types as these classes (type casters).
        parsed = ir.Type.parse("!pdl.range<type>")
        # CHECK-NEXT: RangeType TypeType OperationType
        print(type(parsed).__name__, type(parsed.element_type).__name__,
              type(ir.Type.parse("!pdl.operation")).__name__)
        # isinstance, and casts.
        i32 = ir.IntegerType.get_signless(32)
        # CHECK-NEXT: True False False True True False
        print(pdl.ValueType.isinstance(kinds[3]), pdl.ValueType.isinstance(kinds[2]),
              pdl.ValueType.isinstance(i32), pdl.PDLType.isinstance(value_range),
              pdl.PDLType.isinstance(kinds[0]), pdl.PDLType.isinstance(i32))
        # CHECK-NEXT: OperationType(!pdl.operation)
        print(repr(pdl.OperationType(ir.Type.parse("!pdl.operation"))))
        # CHECK-NEXT: ValueError: Cannot cast type to OperationType (from i32)
        print(error(lambda: pdl.OperationType(i32)))
        # CHECK-NEXT: ValueError: the element type of a pdl range must be !pdl.attribute, !pdl.operation, !pdl.type or !pdl.value, got i32
        print(error(lambda: pdl.RangeType.get(i32)))
        # CHECK-NEXT: ValueError: the element type of a pdl range must be {{.*}}, got !pdl.range<value>
        print(error(lambda: pdl.RangeType.get(value_range)))
        other = ir.Context()
        # CHECK-NEXT: True
        print(pdl.TypeType.get(other).context is other)


def build_patterns():
    """Two patterns, built from Python only:
    - subi_to_addi: `arith.subi` of i32 becomes `arith.addi` (replaced by
      an op);
    - seven_to_eight: `arith.constant 7 : i32` becomes 8 (replaced by a
      value, a pdl.result)."""
    i32 = ir.IntegerType.get_signless(32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        p = pdl.PatternOp(1, "subi_to_addi")
        with ir.InsertionPoint(p.body):
            t = pdl.TypeOp(i32)
            a = pdl.OperandOp()
            b = pdl.OperandOp(t)
            root = pdl.OperationOp("arith.subi", [a, b], types=[t])
            rw = pdl.RewriteOp(root)
            with ir.InsertionPoint(rw.add_body()):
                new = pdl.OperationOp("arith.addi", [a, b], types=[t])
                pdl.ReplaceOp(root, with_op=new)
        p = pdl.PatternOp(2, "seven_to_eight")
        with ir.InsertionPoint(p.body):
            t = pdl.type_()
            seven = pdl.AttributeOp(value=ir.IntegerAttr.get(i32, 7))
            root = pdl.OperationOp("arith.constant", attributes={"value": seven},
                                   types=[t])
            rw = pdl.RewriteOp(root)
            with ir.InsertionPoint(rw.add_body()):
                eight = pdl.attribute(value=ir.IntegerAttr.get(i32, 8))
                new = pdl.OperationOp("arith.constant", attributes={"value": eight},
                                      types=[t])
                pdl.ReplaceOp(root, with_values=[pdl.ResultOp(new, 0)])
    return module


# CHECK-LABEL: TEST: test_pattern_built_from_python
@run
def test_pattern_built_from_python():
    with ir.Context(), ir.Location.unknown():
        patterns = build_patterns()
        # CHECK: True
        print(patterns.operation.verify())
        # CHECK:      pdl.pattern @subi_to_addi : benefit(1) {
        # CHECK-NEXT:   %0 = type : i32
        # CHECK-NEXT:   %1 = operand
        # CHECK-NEXT:   %2 = operand : %0
        # CHECK-NEXT:   %3 = operation "arith.subi"(%1, %2 : !pdl.value, !pdl.value)  -> (%0 : !pdl.type)
        # CHECK-NEXT:   rewrite %3 {
        # CHECK-NEXT:     %4 = operation "arith.addi"(%1, %2 : !pdl.value, !pdl.value)  -> (%0 : !pdl.type)
        # CHECK-NEXT:     replace %3 with %4
        # CHECK-NEXT:   }
        # CHECK-NEXT: }
        # CHECK-NEXT: pdl.pattern @seven_to_eight : benefit(2) {
        # CHECK-NEXT:   %0 = type
        # CHECK-NEXT:   %1 = attribute = 7 : i32
        # CHECK-NEXT:   %2 = operation "arith.constant" {"value" = %1} -> (%0 : !pdl.type)
        # CHECK-NEXT:   rewrite %2 {
        # CHECK-NEXT:     %3 = attribute = 8 : i32
        # CHECK-NEXT:     %4 = operation "arith.constant" {"value" = %3} -> (%0 : !pdl.type)
        # CHECK-NEXT:     %5 = result 0 of %4
        # CHECK-NEXT:     replace %2 with(%5 : !pdl.value)
        # CHECK-NEXT:   }
        # CHECK-NEXT: }
        print(patterns)
        # The result types the builders set.
        pattern = patterns.body.operations[0]
        body_ops = list(pattern.body.operations)
        # CHECK: TypeType ValueType OperationType
        print(*[type(body_ops[i].result.type).__name__ for i in (0, 1, 3)])

        payload = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32, %x: i64, %y: i64) -> (i32, i64) {
            %c7 = arith.constant 7 : i32
            %d = arith.subi %a, %b : i32
            %e = arith.subi %x, %y : i64
            %s = arith.muli %d, %c7 : i32
            return %s, %e : i32, i64
          }""")
        ops = list(payload.body.operations[0].regions[0].blocks[0].operations)
        frozen = rewrite.PDLModule(patterns).freeze()
        rewrite.apply_patterns_and_fold_greedily(payload, frozen)
        # CHECK:      %c8_i32 = arith.constant 8 : i32
        # CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
        # CHECK-NEXT: %1 = arith.subi %arg2, %arg3 : i64
        # CHECK-NEXT: %2 = arith.muli %0, %c8_i32 : i32
        print(payload)
        # The constant's handle follows its replacement (a ConstantLike op);
        # the i32 subi's ends (replaced by an op of another name); the i64
        # subi did not match.
        # CHECK: live erased live live
        print(*[op.operation.handle_state for op in ops[:4]])
        # CHECK: arith.constant 8 : i32
        print(ops[0].operation.name, ops[0].operation.attributes["value"])


# CHECK-LABEL: TEST: test_builders
@run
def test_builders():
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            p = pdl.PatternOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(16), 3))
            with ir.InsertionPoint(p.body):
                # TypeOp takes the constant type (it used to take it as the
                # result type and built an invalid pdl.type).
                t = pdl.TypeOp(i32)
                t2 = pdl.TypeOp(ir.TypeAttr.get(i32))
                ts = pdl.TypesOp([i32, ir.TypeAttr.get(ir.IndexType.get())])
                anyt = pdl.TypesOp()
                vals = pdl.OperandsOp(ts)
                root = pdl.OperationOp(args=[vals], types=[anyt])
                results = pdl.ResultsOp(root)
                group = pdl.ResultsOp(root, 0)
                # Upstream's generated form, the result type first.
                pdl.ResultsOp(pdl.RangeType.get(pdl.ValueType.get()), root)
                rw = pdl.RewriteOp(root, "external", args=[results, t2])
                # CHECK: ValueError: pdl.replace takes with_op or with_values, not both
                print(error(lambda: pdl.ReplaceOp(root, with_op=root, with_values=[results])))
                # CHECK-NEXT: TypeError: constantType must be a Type or a TypeAttr, got str
                print(error(lambda: pdl.TypeOp("i32")))
                # CHECK-NEXT: TypeError: constantTypes must hold Types or TypeAttrs, got int
                print(error(lambda: pdl.TypesOp([1])))
                # CHECK-NEXT: ValueError: Operand 0 of operation "pdl.operation" must be a Sequence of Values (item 0 got str)
                print(error(lambda: pdl.OperationOp("x.y", args=["a"])))
            p2 = pdl.PatternOp(1)
            with ir.InsertionPoint(p2.body):
                rw2 = pdl.RewriteOp(pdl.OperationOp("x.y"))
                rw2.add_body()
                # CHECK-NEXT: ValueError: the rewrite has a body already
                print(error(rw2.add_body))
            p2.operation.erase()
        # CHECK: True
        print(module.operation.verify())
        # CHECK:      pdl.pattern : benefit(3) {
        # CHECK-NEXT:   %0 = type : i32
        # CHECK-NEXT:   %1 = type : i32
        # CHECK-NEXT:   %2 = types : [i32, index]
        # CHECK-NEXT:   %3 = types
        # CHECK-NEXT:   %4 = operands : %2
        # CHECK-NEXT:   %5 = operation(%4 : !pdl.range<value>)  -> (%3 : !pdl.range<type>)
        # CHECK-NEXT:   %6 = results of %5
        # CHECK-NEXT:   %7 = results 0 of %5 -> !pdl.range<value>
        # CHECK-NEXT:   %8 = results of %5
        # CHECK-NEXT:   rewrite %5 with "external"(%6, %1 : !pdl.range<value>, !pdl.type)
        # CHECK-NEXT: }
        print(module)
        # CHECK: ValueType AttributeType
        with ir.InsertionPoint(p.body.operations[0]):
            print(type(pdl.operand().type).__name__,
                  type(pdl.attribute().type).__name__)


# CHECK-LABEL: TEST: test_pattern_and_rewrite_decorators
@run
def test_pattern_and_rewrite_decorators():
    # Upstream's decorators: the decorated function builds the region.
    with ir.Context(), ir.Location.unknown():
        index = ir.IndexType.get()
        patterns = ir.Module.create()
        with ir.InsertionPoint(patterns.body):

            @pdl.pattern(benefit=1, sym_name="addi_to_muli")
            def addi_to_muli():
                t = pdl.TypeOp(index)
                lhs, rhs = pdl.OperandOp(t), pdl.OperandOp(t)
                addi = pdl.OperationOp(name="arith.addi", args=[lhs, rhs], types=[t])

                @pdl.rewrite()
                def build_muli():
                    muli = pdl.OperationOp(name="arith.muli", args=[lhs, rhs], types=[t])
                    pdl.ReplaceOp(addi, with_op=muli)

            # The decorated name is bound to the op (it has no results).
            # CHECK: Operation pdl.pattern PatternOp
            print(type(addi_to_muli).__name__, addi_to_muli.name,
                  type(addi_to_muli.opview).__name__)

            # A body that raises leaves no half-built pattern.
            try:

                @pdl.pattern(benefit=2, sym_name="broken")
                def broken():
                    pdl.TypeOp(index)
                    raise KeyError("stop")

            except KeyError as e:
                # CHECK-NEXT: body raised: 'stop' ops left: 1
                print("body raised:", e, "ops left:", len(patterns.body.operations))
        # CHECK-NEXT: verifies: True
        print("verifies:", patterns.operation.verify())
        # CHECK: pdl.pattern @addi_to_muli : benefit(1) {
        # CHECK:   rewrite {
        # CHECK:     replace %{{.*}} with %{{.*}}
        print(patterns)

        payload = ir.Module.parse("""
          func.func @f(%a: index, %b: index, %x: i32) -> (index, i32) {
            %s = arith.addi %a, %b : index
            %t = arith.addi %x, %x : i32
            return %s, %t : index, i32
          }""")
        index_add, i32_add = list(payload.body.operations[0].regions[0].blocks[0].operations)[:2]
        rewrite.apply_patterns_and_fold_greedily(payload, rewrite.PDLModule(patterns).freeze())
        # CHECK: %0 = arith.muli %arg0, %arg1 : index
        # CHECK-NEXT: %1 = arith.addi %arg2, %arg2 : i32
        print(payload)
        # The index addi was replaced by an op of another name; the i32 one stayed.
        # CHECK: erased live
        print(index_add.operation.handle_state, i32_add.operation.handle_state)
