//===- BenchmarkSupport.cpp - Baselines for benchmarks/python_bench.py ----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `_mlirTracking._benchmark`: the baseline that benchmarks/python_bench.py
// measures tracked handles against. `BareOperation` is the cheapest honest
// pybind11 wrapper of an op: a raw `Operation *` and nothing else, no
// identity, no tracking, no ownership. Not public API, and deliberately
// unsafe: it exists only to measure what tracking adds.
//
//===----------------------------------------------------------------------===//

#include "Core.h"

#include <pybind11/functional.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct BareOperation {
  Operation *op;
};
} // namespace

void mlir::tracking::python::populateBenchmarkSupport(py::module_ &m) {
  py::class_<BareOperation>(m, "BareOperation",
                            "A raw Operation* (benchmark baseline only).")
      .def_property_readonly(
          "name",
          [](const BareOperation &self) {
            return self.op->getName().getStringRef().str();
          },
          "The op's name.")
      .def("__repr__", [](const BareOperation &self) {
        return "BareOperation(" + self.op->getName().getStringRef().str() + ")";
      });
  m.def(
      "walk_bare",
      [](py::handle operation, const py::function &callback) {
        Operation *root = castToOperation(operation).get();
        root->walk(
            [&](Operation *op) { callOrPark(callback, BareOperation{op}); });
      },
      py::arg("operation"), py::arg("callback"),
      "Calls `callback` with a BareOperation for every op nested in "
      "`operation` (post-order), like Operation.walk without tracking.");
  // Callgrind's client requests, so that python_bench.py can bracket each
  // timed call (benchmarks/simulated_bench.py --python); outside valgrind
  // they do nothing.
  m.def(
      "callgrind_instrument",
      [](bool on) {
#ifdef CALLGRIND_START_INSTRUMENTATION
        if (on)
          CALLGRIND_START_INSTRUMENTATION;
        else
          CALLGRIND_STOP_INSTRUMENTATION;
#else
        throw std::runtime_error("built without <valgrind/callgrind.h>");
#endif
      },
      py::arg("on"),
      "Turns callgrind's instrumentation on or off (run it with "
      "--instr-atstart=no to skip the interpreter's start).");
  m.def(
      "callgrind_zero_stats",
      [] {
#ifdef CALLGRIND_ZERO_STATS
        CALLGRIND_ZERO_STATS;
#else
        throw std::runtime_error("built without <valgrind/callgrind.h>");
#endif
      },
      "Zeroes callgrind's counters (every thread).");
  m.def(
      "callgrind_dump_stats",
      [](const std::string &label) {
#ifdef CALLGRIND_DUMP_STATS_AT
        CALLGRIND_DUMP_STATS_AT(label.c_str());
#else
        throw std::runtime_error("built without <valgrind/callgrind.h>");
#endif
      },
      py::arg("label"),
      "Dumps callgrind's counters since the last zero or dump, with "
      "`label` as the dump's trigger.");
}
