//===- InterpreterExit.h - Threads the exiting interpreter ends -*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Once the interpreter is exiting, CPython before 3.14 ends any other thread
// that asks for the GIL with pthread_exit. A daemon thread inside a binding
// that calls Python (a walk's callback, a pattern, a Python pass, a
// diagnostic handler) asks for it whenever its Python code gives it up (a
// sleep, a lock, or the interpreter's switch interval), and pthread_exit
// then unwinds the C++ frames below that code: ours and pybind11's release
// Python objects and run Python code without a thread state while the
// interpreter is being torn down (a segfault), and a noexcept destructor
// that takes the GIL back ends the process. As CPython 3.14 does itself,
// such a thread parks instead: it sleeps, holding no GIL, until the process
// exits. Every place where the extension calls Python code or takes the GIL
// back goes through these helpers, so the unwinding never starts.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_INTERPRETEREXIT_H
#define MLIR_TRACKING_PYTHON_INTERPRETEREXIT_H

#include <pybind11/pybind11.h>

#include <optional>

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {
  namespace py = pybind11;

  /// Sleeps until the process exits: what a thread that the exiting
  /// interpreter ends does instead of unwinding.
  [[noreturn]] void parkUntilExit();

  /// Returns `callable(*arguments, **keywords)` (no keywords if null), with
  /// the GIL held; parks the thread if the exiting interpreter ends it during
  /// the call. The arguments are made and released outside the call, so
  /// nothing between the Python code and the park needs the interpreter.
  py::object callPackedOrPark(py::handle callable, const py::tuple &arguments,
                              py::handle keywords = {});

  /// Returns `callable(argument)`, as callPackedOrPark, without packing the
  /// argument in a tuple.
  py::object callOneOrPark(py::handle callable, py::handle argument);

  /// Returns `callable(args...)` as pybind11's call does, but parks the thread
  /// if the exiting interpreter ends it during the call.
  template <typename... Args>
  py::object callOrPark(py::handle callable, Args && ...args) {
    return callPackedOrPark(callable,
                            py::make_tuple(std::forward<Args>(args)...));
  }

  /// py::gil_scoped_acquire, which parks the thread if the exiting
  /// interpreter ends it while it waits for the GIL.
  class AcquireGilOrPark {
  public:
    AcquireGilOrPark();
    AcquireGilOrPark(const AcquireGilOrPark &) = delete;
    AcquireGilOrPark &operator=(const AcquireGilOrPark &) = delete;

  private:
    std::optional<py::gil_scoped_acquire> gil;
  };

  /// py::gil_scoped_release, which parks the thread (in its destructor) if
  /// the exiting interpreter ends it when it takes the GIL back.
  class ReleaseGilOrPark {
  public:
    ReleaseGilOrPark() : state(PyEval_SaveThread()) {}
    ~ReleaseGilOrPark();
    ReleaseGilOrPark(const ReleaseGilOrPark &) = delete;
    ReleaseGilOrPark &operator=(const ReleaseGilOrPark &) = delete;

  private:
    PyThreadState *state;
  };

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_INTERPRETEREXIT_H
