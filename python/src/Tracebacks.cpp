//===- Tracebacks.cpp - Op locations from the Python call stack -----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's traceback locations (MLIR 21/22, `ir.loc_tracebacks` and the
// `loc_tracebacks_*` / `register_traceback_file_*` functions of
// `_cext.globals`): with them enabled, an op built from Python without
// `loc=` is located at the Python frames that built it, innermost first,
// as a chain of callsite locations of `"<qualname>"(<file>:<range>)`
// frames. Frames of excluded files (the generated dialect modules register
// themselves at import) are skipped, and at most the frame limit of the
// others is kept. The settings are process-wide, as upstream; every access
// is made with the GIL held.
//
//===----------------------------------------------------------------------===//

#include "IRObjects.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <Python.h>
#include <frameobject.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
/// The process-wide settings (upstream's PyGlobals::TracebackLoc). Leaked
/// on purpose, like the other registries, so that nothing runs at exit.
struct TracebackSettings {
  /// Upstream's kMaxFrames: the most frames a location keeps.
  static constexpr size_t kMaxFrames = 512;

  bool enabled = false;
  size_t frameLimit = 10;
  /// Registered file prefixes. A file is skipped if an exclusion is a
  /// prefix of it and no inclusion is (upstream matches `^<escaped file>`
  /// regexes: prefixes too). Registering one removes the same string
  /// from the other list.
  std::vector<std::string> inclusions;
  std::vector<std::string> exclusions;
  /// File name -> whether its frames are kept, for the current lists.
  llvm::StringMap<bool> keepCache;

  bool keepsFile(llvm::StringRef file) {
    auto it = keepCache.find(file);
    if (it != keepCache.end())
      return it->second;
    auto isPrefix = [&](const std::string &prefix) {
      return file.starts_with(prefix);
    };
    bool keep = llvm::any_of(inclusions, isPrefix) ||
                llvm::none_of(exclusions, isPrefix);
    // Bounded: code compiled from strings may bring any number of names.
    if (keepCache.size() >= 4096)
      keepCache.clear();
    keepCache[file] = keep;
    return keep;
  }

  void registerFile(const std::string &file, bool include) {
    std::vector<std::string> &into = include ? inclusions : exclusions;
    std::vector<std::string> &from = include ? exclusions : inclusions;
    llvm::erase(from, file);
    if (!llvm::is_contained(into, file))
      into.push_back(file);
    keepCache.clear();
  }
};

TracebackSettings &settings() {
  static auto *instance = new TracebackSettings();
  return *instance;
}

/// The UTF-8 text of a str attribute of a code object (file names may hold
/// surrogates: escaped rather than raised).
std::string codeString(PyCodeObject *code, const char *attribute) {
  py::object value = py::reinterpret_steal<py::object>(
      PyObject_GetAttrString(reinterpret_cast<PyObject *>(code), attribute));
  if (!value || !PyUnicode_Check(value.ptr())) {
    PyErr_Clear();
    return "<unknown>";
  }
  py::object bytes = py::reinterpret_steal<py::object>(
      PyUnicode_AsEncodedString(value.ptr(), "utf-8", "backslashreplace"));
  if (!bytes) {
    PyErr_Clear();
    return "<unknown>";
  }
  return std::string(PyBytes_AS_STRING(bytes.ptr()),
                     PyBytes_GET_SIZE(bytes.ptr()));
}

/// The location of one frame: `"<qualname>"(<file>:<line>:<col> to ...)`.
Location frameLocation(MLIRContext *context, PyFrameObject *frame,
                       PyCodeObject *code, const std::string &file) {
  StringAttr fileAttr = StringAttr::get(context, file);
#if PY_VERSION_HEX >= 0x030B0000
  std::string name = codeString(code, "co_qualname");
  int startLine = 0, startColumn = 0, endLine = 0, endColumn = 0;
  Location location = UnknownLoc::get(context);
  if (PyCode_Addr2Location(code, PyFrame_GetLasti(frame), &startLine,
                           &startColumn, &endLine, &endColumn) &&
      startLine >= 0) {
    // Without column information (python -X no_debug_ranges, or an
    // instruction with no position) the columns are -1: line only.
    if (startColumn >= 0 && endLine >= startLine && endColumn >= 0)
      location = FileLineColRange::get(fileAttr, startLine, startColumn,
                                       endLine, endColumn);
    else
      location = FileLineColLoc::get(fileAttr, startLine, 0);
  } else {
    PyErr_Clear();
    location = FileLineColLoc::get(
        fileAttr, std::max(PyFrame_GetLineNumber(frame), 0), 0);
  }
#else
  // Before 3.11, as upstream: the function name and the line.
  std::string name = codeString(code, "co_name");
  Location location = FileLineColLoc::get(
      fileAttr, std::max(PyFrame_GetLineNumber(frame), 0), 0);
#endif
  return NameLoc::get(StringAttr::get(context, name), location);
}
} // namespace

Location mlir::tracking::python::tracebackLocation(MLIRContext *context) {
  TracebackSettings &state = settings();
  size_t limit = state.frameLimit;
  llvm::SmallVector<Location, 16> frames;
  PyFrameObject *frame = PyThreadState_GetFrame(PyThreadState_Get());
  while (frame && frames.size() < limit) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    std::string file = codeString(code, "co_filename");
    if (state.keepsFile(file))
      frames.push_back(frameLocation(context, frame, code, file));
    Py_DECREF(code);
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);

  if (frames.empty())
    return UnknownLoc::get(context);
  // Innermost first: callsite(f0 at callsite(f1 at ... fN)).
  Location location = frames.back();
  for (size_t i = frames.size() - 1; i-- > 0;)
    location = CallSiteLoc::get(frames[i], location);
  return location;
}

Location mlir::tracking::python::resolveOpLocation(const py::object &loc,
                                                   PyMlirContext &context) {
  // Upstream's maybeGetTracebackLocation: an explicit location first, then
  // the traceback if enabled (before the current Location), else the
  // current Location.
  if (loc.is_none() && settings().enabled)
    return tracebackLocation(context.get());
  return resolveLocation(loc, context);
}

void mlir::tracking::python::populateTracebackGlobals(py::module_ &globals) {
  globals.def(
      "loc_tracebacks_enabled", []() { return settings().enabled; },
      "Whether ops built without `loc=` get locations from the Python call "
      "stack.");
  globals.def(
      "set_loc_tracebacks_enabled",
      [](bool enabled) { settings().enabled = enabled; }, py::arg("enabled"),
      "Enables or disables locations from the Python call stack for ops "
      "built without `loc=` (they then take precedence over the current "
      "Location).");
  globals.def(
      "loc_tracebacks_frame_limit", []() { return settings().frameLimit; },
      "The most Python frames a traceback location keeps (default 10).");
  globals.def(
      "set_loc_tracebacks_frame_limit",
      [](std::optional<int64_t> limit) {
        // As upstream: None (and, through its size_t conversion, a negative
        // number) means the maximum, 512; more is clamped to it.
        size_t value = TracebackSettings::kMaxFrames;
        if (limit && *limit >= 0)
          value = std::min<uint64_t>(*limit, TracebackSettings::kMaxFrames);
        settings().frameLimit = value;
      },
      py::arg("limit").none(true),
      "Sets the most Python frames a traceback location keeps (None: 512, "
      "the maximum).");
  globals.def(
      "register_traceback_file_inclusion",
      [](const std::string &file) { settings().registerFile(file, true); },
      py::arg("filename"),
      "Keeps the frames of files starting with `filename` in traceback "
      "locations, even if an exclusion covers them.");
  globals.def(
      "register_traceback_file_exclusion",
      [](const std::string &file) { settings().registerFile(file, false); },
      py::arg("filename"),
      "Skips the frames of files starting with `filename` in traceback "
      "locations (generated dialect modules register themselves).");
}
