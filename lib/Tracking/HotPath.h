//===- HotPath.h - Marks the code every notification runs -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The functions a rewrite's notification runs through (the listener's hooks,
// the registry's replace and erase, the address map, the scope list and the
// history append) are a few kilobytes of code that run between two steps of
// MLIR's rewrite driver. Spread over the library's text, their lines map onto
// the instruction cache's sets wherever the link put them, and evict MLIR's
// code unevenly; grouped, they take as few lines as their code needs. The
// parts every notification or a tracked op's notification runs are placed
// further, at fixed offsets in their pages, in the sets where MLIR's own
// code misses least (MLIR_TRACKING_LISTENER_ENTRY, MLIR_TRACKING_PINNED).
// This header is not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_HOTPATH_H
#define MLIR_TRACKING_LIB_HOTPATH_H

/// Marks a function that runs on every tracked notification or match attempt.
/// GCC (and Clang) place such functions in `.text.hot`, which the linker
/// gathers before the rest of the text. Only for functions that are hot in
/// the precise pipeline's benchmark (`docs/benchmarks.md`, "Instruction
/// cache"): a cold function marked hot only takes lines from the hot ones.
#if defined(__GNUC__)
#define MLIR_TRACKING_HOT_PATH __attribute__((hot))
#else
#define MLIR_TRACKING_HOT_PATH
#endif

/// Marks the listener's entry points that the greedy driver calls on every
/// match attempt and change (TrackingListener.cpp, "Entry points"). They go
/// to a section of their own in the hot text, in the order GCC emits them
/// (callees first): their short paths end on a few neighbouring lines that
/// every notification touches, instead of one line or more each among the
/// rest of the hot code. The section starts a page and the entry points
/// start at MLIR_TRACKING_LISTENER_PAGE_OFFSET bytes into it, so that the
/// instruction-cache sets they map to do not depend on how a program links
/// the library: see MLIR_TRACKING_LISTENER_SECTION_START.
#if defined(__GNUC__) && defined(__ELF__)
#define MLIR_TRACKING_LISTENER_ENTRY                                           \
  __attribute__((hot, section(".text.hot.mlir_tracking_listener")))
#else
#define MLIR_TRACKING_LISTENER_ENTRY MLIR_TRACKING_HOT_PATH
#endif

/// Where in a 4 KiB page the entry points start (a multiple of 64, below
/// 4096; override with -D). A 32 KiB 8-way L1 instruction cache with 64-byte
/// lines (most x86-64 cores of the last decade, Zen 5 included, and
/// valgrind's simulation) has 64 sets indexed by bits 6-11 of the address,
/// so this offset fixes the sets of the entry points. The default puts them
/// at sets 36-42: in the precise pipeline's benchmark, upstream's passes
/// (the greedy driver, the folders, op creation and erasure in Debian's
/// libMLIR 22) keep 15-28 hot lines in each of sets 0-28 and 50-63 but 4-14
/// in sets 29-49 (docs/benchmarks.md, "10% held: the instruction cache
/// (round 10)", which also says how to measure another build's).
#ifndef MLIR_TRACKING_LISTENER_PAGE_OFFSET
#define MLIR_TRACKING_LISTENER_PAGE_OFFSET 0x900
#endif
static_assert(MLIR_TRACKING_LISTENER_PAGE_OFFSET % 64 == 0 &&
                  MLIR_TRACKING_LISTENER_PAGE_OFFSET < 4096,
              "MLIR_TRACKING_LISTENER_PAGE_OFFSET: a multiple of 64 below "
              "4096");

/// Opens the entry points' section at a page boundary and skips to
/// MLIR_TRACKING_LISTENER_PAGE_OFFSET: file-scope assembly, which GCC and
/// Clang emit before the functions of the file, so that the entry points
/// follow it in the section. Used once, in TrackingListener.cpp. The section
/// costs up to 4 KiB of padding before it in the linked text.
#if defined(__GNUC__) && defined(__ELF__)
#define MLIR_TRACKING_STRINGIFY_VALUE(x) #x
#define MLIR_TRACKING_STRINGIFY(x) MLIR_TRACKING_STRINGIFY_VALUE(x)
#define MLIR_TRACKING_LISTENER_OFFSET_TEXT                                     \
  MLIR_TRACKING_STRINGIFY(MLIR_TRACKING_LISTENER_PAGE_OFFSET)
#define MLIR_TRACKING_LISTENER_SECTION_ASM                                     \
  ".pushsection .text.hot.mlir_tracking_listener,\"ax\",@progbits\n\t"         \
  ".p2align 12\n\t"                                                            \
  ".skip " MLIR_TRACKING_LISTENER_OFFSET_TEXT ", 0xcc\n\t"                     \
  ".popsection"
#define MLIR_TRACKING_LISTENER_SECTION_START                                   \
  asm(MLIR_TRACKING_LISTENER_SECTION_ASM);
#else
#define MLIR_TRACKING_LISTENER_SECTION_START
#endif

/// Where in a 4 KiB page the pinned groups of the tracked path start (a
/// multiple of 64, below 4096; override with -D). The default, set 29 of 64,
/// starts the 22 sets (29-50) in which upstream's passes miss least in the
/// precise pipeline's benchmark with Debian's libMLIR 22 (docs/benchmarks.md,
/// "Instruction cache sets (round 17)"); the listener's entry points sit in
/// the same range (MLIR_TRACKING_LISTENER_PAGE_OFFSET).
#ifndef MLIR_TRACKING_PINNED_PAGE_OFFSET
#define MLIR_TRACKING_PINNED_PAGE_OFFSET 0x740
#endif
static_assert(MLIR_TRACKING_PINNED_PAGE_OFFSET % 64 == 0 &&
                  MLIR_TRACKING_PINNED_PAGE_OFFSET < 4096,
              "MLIR_TRACKING_PINNED_PAGE_OFFSET: a multiple of 64 below "
              "4096");

/// Pins the functions of a group of the tracked path (what runs for a
/// notification about a tracked op) to the instruction-cache sets that
/// upstream's code uses least: the group is a section of its own that
/// starts a page plus MLIR_TRACKING_PINNED_PAGE_OFFSET, opened by
/// MLIR_TRACKING_PINNED_SECTION_START(group) once in the file, before the
/// group's functions. Lines of the tracked path run a few thousand times a
/// run, between which the driver's code evicts them: in the sets upstream
/// crowds, 63% of their executions missed, in 29-50 24%. Only for functions
/// defined out of line (an inline function goes to a COMDAT section of its
/// own, away from the padding), in groups of about 1.4 KiB at most (what
/// does not fit spills into the next sets). Each group costs up to 4 KiB of
/// padding in the linked text. Chosen in the cache model (valgrind's): CPU
/// runs on a shared host resolve no difference either way (round 18).
#if defined(__GNUC__) && defined(__ELF__)
#define MLIR_TRACKING_PINNED(group)                                            \
  __attribute__((hot, section(".text.hot.mlir_tracking_pinned_" #group)))
#define MLIR_TRACKING_PINNED_PAGE_OFFSET_TEXT                                  \
  MLIR_TRACKING_STRINGIFY(MLIR_TRACKING_PINNED_PAGE_OFFSET)
#define MLIR_TRACKING_PINNED_SECTION_START(group)                              \
  asm(".pushsection .text.hot.mlir_tracking_pinned_" #group                    \
      ",\"ax\",@progbits\n\t"                                                  \
      ".p2align 12\n\t"                                                        \
      ".skip " MLIR_TRACKING_PINNED_PAGE_OFFSET_TEXT ", 0xcc\n\t"              \
      ".popsection");
#else
#define MLIR_TRACKING_PINNED(group) MLIR_TRACKING_HOT_PATH
#define MLIR_TRACKING_PINNED_SECTION_START(group)
#endif

#endif // MLIR_TRACKING_LIB_HOTPATH_H
