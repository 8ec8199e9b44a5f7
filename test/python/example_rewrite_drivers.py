# RUN: %PYTHON %tracking_src/examples/rewrite_drivers.py | FileCheck %s
# The rewrite-driver example keeps working: what each driver did to the
# handles it held.

# CHECK: == greedy
# CHECK-NEXT:   x: erased
# CHECK-NEXT:     last: apply_patterns_and_fold_greedily on builtin.module: arith.addi at loc("-":4:8): erased (folded)
# CHECK-NEXT:   m: live arith.muli
# CHECK-NEXT:     last: {{.*}} replaced by arith.muli at loc("-":5:8) (pattern swap_muli)
# CHECK-NEXT:   r: live arith.subi
# CHECK: == walk (names may differ)
# CHECK-NEXT:   r: live arith.addi
# CHECK-NEXT:     last: walk_and_apply_patterns on builtin.module: arith.subi at loc("-":6:8): replaced by arith.addi at loc("-":6:8) (walk pattern driver)
# CHECK: == PDL
# CHECK-NEXT:   m: live arith.muli
# CHECK: == arith to LLVM
# CHECK-NEXT:   m: live llvm.mul
# CHECK-NEXT:     last: convert-arith-to-llvm on builtin.module: arith.muli at loc("-":5:8): replaced by llvm.mul
# CHECK: == python pass: builtin.module(func.func(canonicalize{{.*}},swap-muli,cse))
# CHECK-NEXT:   all muls followed: True
