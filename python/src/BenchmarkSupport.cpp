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
        root->walk([&](Operation *op) { callback(BareOperation{op}); });
      },
      py::arg("operation"), py::arg("callback"),
      "Calls `callback` with a BareOperation for every op nested in "
      "`operation` (post-order), like Operation.walk without tracking.");
}
