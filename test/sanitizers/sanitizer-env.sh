# Sourced by scripts/sanitize.sh: the runtime options of the sanitizer build.
# SANITIZER_DIR must point at this directory.
#
# ASan: the defaults (leak detection on, halt on the first error) plus
#   detect_stack_use_after_return=1  stack frames outlive their function
#   check_initialization_order=1     static initialisation order fiasco
#   strict_string_checks=1           string functions read whole strings
#   max_free_fill_size=65536         fill freed memory (with 0x55)
# Memory that libMLIR.so allocates comes from the intercepted malloc, so a
# use of a freed Operation in our (instrumented) code is reported even though
# libMLIR itself is not instrumented. A read of freed memory inside libMLIR
# is not checked, and freed memory kept its old contents, so such a read
# went on unnoticed with the old IR: filled, it reads garbage pointers and
# crashes.
export ASAN_OPTIONS="detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1:detect_leaks=1:max_free_fill_size=65536${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$SANITIZER_DIR/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# The lit config adds two things for %PYTHON only (test/lit.cfg.py): it
# preloads the runtimes (LD_PRELOAD; Debian's python3 is not instrumented,
# the extension is) and appends detect_leaks=0 to these ASAN_OPTIONS (CPython
# leaks by design, see lsan.supp). Everything else runs with the options here.
#
# UBSan: the build passes -fno-sanitize-recover=undefined, so any report
# stops the process; the stack trace says where.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SANITIZER_DIR/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
