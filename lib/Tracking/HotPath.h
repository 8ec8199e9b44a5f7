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
// code unevenly; grouped, they take as few lines as their code needs and
// spread evenly over the sets whatever the link order. This header is not
// installed.
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

#endif // MLIR_TRACKING_LIB_HOTPATH_H
