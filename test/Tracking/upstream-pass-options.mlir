// The precise canonicalize and cse are generated from MLIR's own Passes.td:
// their --help sections (description, every option, its type, values and
// description) are mlir-opt's, line by line, and so are their defaults.

// RUN: tracking-opt --help | %PYTHON %S/Inputs/pass-help.py canonicalize > %t.ours
// RUN: %mlir_opt --help | %PYTHON %S/Inputs/pass-help.py canonicalize > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=CANON < %t.ours

// RUN: tracking-opt --help | %PYTHON %S/Inputs/pass-help.py cse > %t.ours.cse
// RUN: %mlir_opt --help | %PYTHON %S/Inputs/pass-help.py cse > %t.upstream.cse
// RUN: diff %t.ours.cse %t.upstream.cse
// RUN: FileCheck %s --check-prefix=CSE < %t.ours.cse

// Defaults, as the pass manager prints them.
// RUN: tracking-opt %s --pass-pipeline='builtin.module(canonicalize,cse)' --dump-pass-pipeline -o /dev/null 2> %t.ours.pipeline
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(canonicalize,cse)' --dump-pass-pipeline -o /dev/null 2> %t.upstream.pipeline
// RUN: diff %t.ours.pipeline %t.upstream.pipeline
// RUN: FileCheck %s --check-prefix=PIPELINE < %t.ours.pipeline

// The helper itself fails on a pass that is not there.
// RUN: tracking-opt --help | not %PYTHON %S/Inputs/pass-help.py no-such-pass

// CANON: --canonicalize - Canonicalize operations
// CANON-NEXT: --disable-patterns=<string> - Labels of patterns that should be filtered out during application
// CANON-NEXT: --enable-patterns=<string>
// CANON-NEXT: --max-iterations=<long>
// CANON-NEXT: --max-num-rewrites=<long>
// CANON-NEXT: --region-simplify=<value>
// CANON-NEXT: =disabled
// CANON-NEXT: =normal
// CANON-NEXT: =aggressive
// CANON-NEXT: --test-convergence
// CANON-NEXT: --top-down
// CANON-NOT: --

// CSE: --cse - Eliminate common sub-expressions
// CSE-NOT: --

// PIPELINE: canonicalize{ max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// PIPELINE-NEXT: {{^}}  cse{{$}}

func.func @f() {
  return
}
