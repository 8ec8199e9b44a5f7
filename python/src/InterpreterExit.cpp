//===- InterpreterExit.cpp - Threads the exiting interpreter ends ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "InterpreterExit.h"

#include <cxxabi.h>
#include <unistd.h>

using namespace mlir::tracking::python;

// pthread_exit unwinds as a "forced unwind", which C++ code sees only as
// abi::__forced_unwind (libstdc++): it may be caught, but a handler that
// returns instead of rethrowing aborts the process. The handlers below
// never return.

void mlir::tracking::python::parkUntilExit() {
  for (;;)
    pause();
}

py::object mlir::tracking::python::callPackedOrPark(py::handle callable,
                                                    const py::tuple &arguments,
                                                    py::handle keywords) {
  PyObject *result;
  try {
    result = PyObject_Call(callable.ptr(), arguments.ptr(), keywords.ptr());
  } catch (abi::__forced_unwind &) {
    parkUntilExit();
  }
  if (!result)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

py::object mlir::tracking::python::callOneOrPark(py::handle callable,
                                                 py::handle argument) {
  PyObject *result;
  try {
    result = PyObject_CallOneArg(callable.ptr(), argument.ptr());
  } catch (abi::__forced_unwind &) {
    parkUntilExit();
  }
  if (!result)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

AcquireGilOrPark::AcquireGilOrPark() {
  try {
    gil.emplace();
  } catch (abi::__forced_unwind &) {
    parkUntilExit();
  }
}

ReleaseGilOrPark::~ReleaseGilOrPark() {
  try {
    PyEval_RestoreThread(state);
  } catch (abi::__forced_unwind &) {
    parkUntilExit();
  }
}
