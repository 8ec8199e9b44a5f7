//===- IRCompat.cpp - The rest of upstream's core ir API ------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream `mlir.ir` names on Context (dialects, live counts, dialect
// registries and plugins), Location (callsite, fused, ranges, attr), Module
// (parseFile) and Operation (parse, location setter, write_bytecode,
// is_before_in_block, attached) that the core bindings do not define.
//
//===----------------------------------------------------------------------===//

#include "IRCompat.h"
#include "Downcast.h"
#include "OpView.h"
#include "RunGuard.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MemoryBuffer.h"

#include <pybind11/stl.h>

#include <mutex>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// Dialect plugins: applied to every context created after loading.
//===----------------------------------------------------------------------===//

namespace {
/// Plugins loaded by load_dialect_plugin, by path. Never unloaded (their
/// dialects live in contexts until the process ends).
std::vector<std::pair<std::string, DialectPlugin *>> &loadedPlugins() {
  static auto *plugins =
      new std::vector<std::pair<std::string, DialectPlugin *>>();
  return *plugins;
}
} // namespace

void mlir::tracking::python::appendPluginDialects(DialectRegistry &registry) {
  for (auto &[path, plugin] : loadedPlugins())
    plugin->registerDialectRegistryCallbacks(registry);
}

namespace {
/// The registry of `_mlir_libs.get_dialect_registry()`: changed from Python
/// with the GIL, read when a context is created (also with the GIL).
DialectRegistry &siteDialects() {
  static auto *registry = new DialectRegistry();
  return *registry;
}
} // namespace

void mlir::tracking::python::appendSiteDialects(DialectRegistry &registry) {
  siteDialects().appendTo(registry);
}

namespace {
/// `ir.DialectRegistry`: an owned DialectRegistry (or a borrowed one from a
/// capsule) that `Context.append_dialect_registry` copies into a context.
struct PyDialectRegistry {
  std::shared_ptr<DialectRegistry> owned;
  DialectRegistry *registry;
};

/// `ir.DialectDescriptor` and `ir.Dialect`.
struct PyDialectDescriptor {
  py::object context;
  Dialect *dialect;
};
/// `ir.Dialects` (`Context.dialects`, `Context.d`).
struct PyDialects {
  py::object context;
};

Dialect *getDialect(PyMlirContext &context, const std::string &name) {
  if (Dialect *loaded = context.get()->getLoadedDialect(name))
    return loaded;
  // Loading changes the context that a pipeline's threads read; a Python
  // pass of a single-threaded run on this thread may still load.
  if (!mayReadAnyTree(context) || context.get()->isMultithreadingEnabled())
    checkNoRunIn(context, "loading dialect '" + name + "'");
  return context.get()->getOrLoadDialect(name);
}

py::object dialectFor(const PyDialects &self, const std::string &name,
                      bool attrError) {
  PyMlirContext &context = pyContextOf(self.context);
  Dialect *dialect = getDialect(context, name);
  if (!dialect) {
    std::string message = "Dialect '" + name + "' not found";
    if (attrError)
      throw py::attribute_error(message);
    throw py::index_error(message);
  }
  py::object descriptor = py::cast(PyDialectDescriptor{self.context, dialect});
  // The class the generated module registers (imported on first use, as
  // upstream does), else the plain ir.Dialect (OpView.cpp).
  py::module_ ext = py::module_::import("mlir_tracking._mlirTracking");
  py::object cls = ext.attr("globals").attr("_get_dialect_class")(name);
  // Each search prefix in turn (globals.dialect_search_modules).
  py::list prefixes(ext.attr("globals").attr("dialect_search_modules"));
  for (py::handle prefix : prefixes) {
    if (!cls.is_none())
      break;
    try {
      py::module_::import(
          (py::str(prefix).cast<std::string>() + "." + name).c_str());
      cls = ext.attr("globals").attr("_get_dialect_class")(name);
    } catch (py::error_already_set &e) {
      if (!e.matches(PyExc_ImportError))
        throw;
    }
  }
  if (cls.is_none())
    cls = ext.attr("ir").attr("Dialect");
  return cls(descriptor);
}

Location locationOf(const py::object &loc) {
  return loc.cast<PyLocation &>().location;
}

PyMlirContext &contextForLocations(const std::vector<py::object> &locations,
                                   const py::object &context) {
  if (context.is_none() && !locations.empty())
    return pyContextOf(locations.front().cast<PyLocation &>().context);
  return PyMlirContext::resolve(context);
}

template <typename LocT>
LocT requireLoc(const PyLocation &self, const char *what) {
  auto loc = dyn_cast<LocT>(self.location);
  if (!loc)
    throw py::value_error(std::string("the location is not a ") + what);
  return loc;
}

/// Writes `bytes` to the Python file object `file`.
/// Writes `bytes` to `file`: a binary file object, or a path (str or
/// os.PathLike) opened for writing, as upstream.
void writeToFile(const py::object &file, const std::string &bytes) {
  if (py::isinstance<py::str>(file) || py::hasattr(file, "__fspath__")) {
    py::object handle =
        py::module_::import("builtins").attr("open")(file, "wb");
    py::object result = handle.attr("__enter__")();
    try {
      result.attr("write")(py::bytes(bytes));
    } catch (...) {
      handle.attr("__exit__")(py::none(), py::none(), py::none());
      throw;
    }
    handle.attr("__exit__")(py::none(), py::none(), py::none());
    return;
  }
  file.attr("write")(py::bytes(bytes));
}
} // namespace

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

namespace {
void populateDialects(py::module_ &m) {
  py::class_<PyDialectRegistry>(m, "DialectRegistry",
                                "A set of dialects and extensions to add to a "
                                "context (Context.append_dialect_registry).")
      .def(py::init([] {
             auto owned = std::make_shared<DialectRegistry>();
             return PyDialectRegistry{owned, owned.get()};
           }),
           "An empty registry.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyDialectRegistry &self) {
            return py::reinterpret_steal<py::object>(PyCapsule_New(
                self.registry, MLIR_PYTHON_CAPSULE_DIALECT_REGISTRY, nullptr));
          },
          "A capsule with the MlirDialectRegistry.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            void *pointer = PyCapsule_GetPointer(
                capsule.ptr(), MLIR_PYTHON_CAPSULE_DIALECT_REGISTRY);
            if (!pointer)
              throw py::error_already_set();
            // Borrowed: the capsule's creator keeps it alive.
            return PyDialectRegistry{nullptr,
                                     static_cast<DialectRegistry *>(pointer)};
          },
          py::arg("capsule"),
          "A DialectRegistry borrowing the MlirDialectRegistry of a capsule "
          "(which must outlive it).")
      .def(
          "load_plugin",
          [](PyDialectRegistry &self, const std::string &path) {
            auto plugin = DialectPlugin::load(path);
            if (!plugin)
              throw py::value_error("failed to load dialect plugin '" + path +
                                    "': " + llvm::toString(plugin.takeError()));
            plugin->registerDialectRegistryCallbacks(*self.registry);
          },
          py::arg("path"),
          "Adds the dialects of an MLIR dialect plugin library (one that "
          "exports mlirGetDialectPluginInfo) to this registry.")
      .def(
          "__repr__",
          [](PyDialectRegistry &self) {
            return "<mlir_tracking.ir.DialectRegistry with " +
                   std::to_string(
                       llvm::range_size(self.registry->getDialectNames())) +
                   " dialects>";
          },
          "A short description.");
  m.def(
      "_site_dialect_registry",
      [] {
        return PyDialectRegistry{nullptr, &siteDialects()};
      },
      "The process-wide registry that every new context appends "
      "(upstream's `_mlir_libs.get_dialect_registry()`).");

  m.def(
      "load_dialect_plugin",
      [](const std::string &path, py::object context) {
        DialectPlugin *loaded = nullptr;
        for (auto &[knownPath, plugin] : loadedPlugins())
          if (knownPath == path)
            loaded = plugin;
        if (!loaded) {
          auto plugin = DialectPlugin::load(path);
          if (!plugin)
            throw py::value_error("failed to load dialect plugin '" + path +
                                  "': " + llvm::toString(plugin.takeError()));
          loaded = new DialectPlugin(std::move(*plugin));
          loadedPlugins().emplace_back(path, loaded);
        }
        py::object target = context.is_none() ? getCurrentContext() : context;
        if (!target.is_none()) {
          PyMlirContext &ctx = pyContextOf(target);
          checkNoRunIn(ctx, "load_dialect_plugin");
          DialectRegistry registry;
          loaded->registerDialectRegistryCallbacks(registry);
          ctx.get()->appendDialectRegistry(registry);
          ctx.get()->loadAllAvailableDialects();
        }
        return loaded->getPluginName().str();
      },
      py::arg("path"), py::arg("context") = py::none(),
      "Loads an MLIR dialect plugin library (exporting "
      "mlirGetDialectPluginInfo, as for mlir-opt --load-dialect-plugin): "
      "its dialects are added to `context` (default: the current one, if "
      "any) and to every Context created afterwards. Returns the plugin's "
      "name.");

  py::class_<PyDialectDescriptor>(m, "DialectDescriptor",
                                  "A loaded dialect of a context.")
      .def_property_readonly(
          "namespace",
          [](PyDialectDescriptor &self) {
            return self.dialect->getNamespace().str();
          },
          "The dialect namespace.")
      .def(
          "__repr__",
          [](PyDialectDescriptor &self) {
            return "<DialectDescriptor " + self.dialect->getNamespace().str() +
                   ">";
          },
          "<DialectDescriptor ns>.");

  py::class_<PyDialects>(m, "Dialects",
                         "The dialects of a context, by name: "
                         "ctx.dialects['func'] or ctx.d.func.")
      .def(
          "__getitem__",
          [](PyDialects &self, const std::string &name) {
            return dialectFor(self, name, /*attrError=*/false);
          },
          py::arg("name"), "The dialect `name` (IndexError if unknown).")
      .def(
          "__getattr__",
          [](PyDialects &self, const std::string &name) {
            return dialectFor(self, name, /*attrError=*/true);
          },
          py::arg("name"), "The dialect `name` (AttributeError if unknown).")
      .def(
          "__repr__",
          [](PyDialects &) { return "<mlir_tracking.ir.Dialects>"; },
          "A short description.");
}
} // namespace

namespace {
void populateContextExtras(py::module_ &m) {
  auto context =
      py::reinterpret_borrow<py::class_<PyMlirContext>>(m.attr("Context"));
  context
      .def_property_readonly(
          "dialects",
          [](PyMlirContext &self) { return PyDialects{self.getObject()}; },
          "The dialects, by name (ctx.dialects['arith']).")
      .def_property_readonly(
          "d", [](PyMlirContext &self) { return PyDialects{self.getObject()}; },
          "Alias of `dialects` (ctx.d.arith).")
      .def(
          "get_dialect_descriptor",
          [](PyMlirContext &self, const std::string &name) {
            Dialect *dialect = getDialect(self, name);
            if (!dialect)
              throw py::value_error("Dialect '" + name + "' not found");
            return PyDialectDescriptor{self.getObject(), dialect};
          },
          py::arg("dialect_name"),
          "Loads (if needed) and returns the dialect `dialect_name`; "
          "ValueError if unknown.")
      .def(
          "append_dialect_registry",
          [](PyMlirContext &self, PyDialectRegistry &registry) {
            checkNoRunIn(self, "Context.append_dialect_registry");
            self.get()->appendDialectRegistry(*registry.registry);
          },
          py::arg("registry"),
          "Adds the registry's dialects and extensions to the context (load "
          "them with load_all_available_dialects or by use).")
      .def_static(
          "_get_live_count", []() { return getNumLiveContexts(); },
          "Number of live Context objects.")
      .def(
          "_get_context_again",
          [](PyMlirContext &self) { return self.getObject(); },
          "The same Context object.");
}

void populateLocationExtras(py::module_ &m) {
  auto location =
      py::reinterpret_borrow<py::class_<PyLocation>>(m.attr("Location"));
  location
      .def_static(
          "callsite",
          [](py::object callee, std::vector<py::object> frames,
             py::object context) {
            if (frames.empty())
              throw py::value_error("No caller frames provided.");
            PyMlirContext &ctx = PyMlirContext::resolve(
                context.is_none() ? callee.cast<PyLocation &>().context
                                  : context);
            Location caller = locationOf(frames.back());
            for (size_t i = frames.size() - 1; i-- > 0;)
              caller = CallSiteLoc::get(locationOf(frames[i]), caller);
            return makeLocation(ctx,
                                CallSiteLoc::get(locationOf(callee), caller));
          },
          py::arg("callee"), py::arg("frames"), py::arg("context") = py::none(),
          "callsite(callee at frames[0] at frames[1] ...).")
      .def(
          "is_a_callsite",
          [](PyLocation &self) { return isa<CallSiteLoc>(self.location); },
          "Whether this is a call-site location.")
      .def_property_readonly(
          "callee",
          [](PyLocation &self) {
            return makeLocation(
                pyContextOf(self.context),
                requireLoc<CallSiteLoc>(self, "CallSiteLoc").getCallee());
          },
          "The callee of a call-site location.")
      .def_property_readonly(
          "caller",
          [](PyLocation &self) {
            return makeLocation(
                pyContextOf(self.context),
                requireLoc<CallSiteLoc>(self, "CallSiteLoc").getCaller());
          },
          "The caller of a call-site location.")
      .def_static(
          "file",
          [](const std::string &filename, unsigned startLine, unsigned startCol,
             unsigned endLine, unsigned endCol, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeLocation(ctx, FileLineColRange::get(
                                         StringAttr::get(ctx.get(), filename),
                                         startLine, startCol, endLine, endCol));
          },
          py::arg("filename"), py::arg("start_line"), py::arg("start_col"),
          py::arg("end_line"), py::arg("end_col"),
          py::arg("context") = py::none(), "A file line/column range.")
      .def(
          "is_a_file",
          [](PyLocation &self) { return isa<FileLineColRange>(self.location); },
          "Whether this is a file location.")
      .def_property_readonly(
          "filename",
          [](PyLocation &self) {
            return requireLoc<FileLineColRange>(self, "file location")
                .getFilename()
                .str();
          },
          "The file name of a file location.")
      .def_property_readonly(
          "start_line",
          [](PyLocation &self) {
            return requireLoc<FileLineColRange>(self, "file location")
                .getStartLine();
          },
          "The start line of a file location.")
      .def_property_readonly(
          "start_col",
          [](PyLocation &self) {
            return requireLoc<FileLineColRange>(self, "file location")
                .getStartColumn();
          },
          "The start column of a file location.")
      .def_property_readonly(
          "end_line",
          [](PyLocation &self) {
            return requireLoc<FileLineColRange>(self, "file location")
                .getEndLine();
          },
          "The end line of a file location.")
      .def_property_readonly(
          "end_col",
          [](PyLocation &self) {
            return requireLoc<FileLineColRange>(self, "file location")
                .getEndColumn();
          },
          "The end column of a file location.")
      .def_static(
          "fused",
          [](std::vector<py::object> locations, py::object metadata,
             py::object context) {
            PyMlirContext &ctx = contextForLocations(locations, context);
            SmallVector<Location> locs;
            for (const py::object &loc : locations)
              locs.push_back(locationOf(loc));
            Attribute meta = metadata.is_none()
                                 ? Attribute()
                                 : metadata.cast<PyAttribute &>().attribute;
            // The simplifying builder, as upstream's C API: one location is
            // itself, none is unknown.
            return makeLocation(ctx, FusedLoc::get(locs, meta, ctx.get()));
          },
          py::arg("locations"), py::arg("metadata") = py::none(),
          py::arg("context") = py::none(),
          "fused[locations] (one location is itself, none is unknown, as "
          "MLIR's FusedLoc::get simplifies).")
      .def(
          "is_a_fused",
          [](PyLocation &self) { return isa<FusedLoc>(self.location); },
          "Whether this is a fused location.")
      .def_property_readonly(
          "locations",
          [](PyLocation &self) {
            py::list result;
            for (Location loc :
                 requireLoc<FusedLoc>(self, "FusedLoc").getLocations())
              result.append(makeLocation(pyContextOf(self.context), loc));
            return result;
          },
          "The locations of a fused location.")
      .def(
          "is_a_name",
          [](PyLocation &self) { return isa<NameLoc>(self.location); },
          "Whether this is a named location.")
      .def_property_readonly(
          "name_str",
          [](PyLocation &self) {
            return requireLoc<NameLoc>(self, "NameLoc").getName().str();
          },
          "The name of a named location.")
      .def_property_readonly(
          "child_loc",
          [](PyLocation &self) {
            return makeLocation(
                pyContextOf(self.context),
                requireLoc<NameLoc>(self, "NameLoc").getChildLoc());
          },
          "The child location of a named location.")
      .def_static(
          "from_attr",
          [](const PyAttribute &attribute, py::object context) {
            auto loc = dyn_cast<LocationAttr>(attribute.attribute);
            if (!loc)
              throw py::value_error("the attribute is not a location");
            return makeLocation(pyContextOf(attribute.context), Location(loc));
          },
          py::arg("attribute"), py::arg("context") = py::none(),
          "The Location of a location attribute.")
      .def_property_readonly(
          "attr",
          [](PyLocation &self) {
            return makeAttribute(pyContextOf(self.context),
                                 LocationAttr(self.location));
          },
          "The location as an attribute.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            void *pointer = PyCapsule_GetPointer(capsule.ptr(),
                                                 MLIR_PYTHON_CAPSULE_LOCATION);
            if (!pointer)
              throw py::error_already_set();
            auto attr = dyn_cast<LocationAttr>(
                Attribute::getFromOpaquePointer(pointer));
            if (!attr)
              throw py::value_error("the capsule does not hold a location");
            Location loc(attr);
            PyMlirContext *context = PyMlirContext::lookup(loc.getContext());
            if (!context)
              throw py::value_error("the location's context was not created "
                                    "by mlir_tracking");
            return makeLocation(*context, loc);
          },
          py::arg("capsule"), "The Location of a capsule.");
}

namespace {
/// Erases what Operation.parse parsed into `block` and does not return, last
/// op first: later ops may use earlier ones.
void eraseParsedOps(Block &block) {
  while (!block.empty()) {
    block.back().dropAllReferences();
    block.back().erase();
  }
}
} // namespace

void populateOperationExtras(py::module_ &m) {
  auto module = py::reinterpret_borrow<py::class_<PyModule>>(m.attr("Module"));
  module.def_static(
      "parseFile",
      [](const std::string &path, py::object context) {
        PyMlirContext &ctx = PyMlirContext::resolve(context);
        DiagnosticCapture capture(ctx.get(), DiagnosticCapture::End::CallDone);
        // Read here, to be checked as Module.parse checks its text (a
        // missing file is reported by MLIR's parser, as before).
        auto file = llvm::MemoryBuffer::getFile(
            path, /*IsText=*/false, /*RequiresNullTerminator=*/true,
            /*IsVolatile=*/false, llvm::Align(4096));
        if (file)
          checkTextNesting((*file)->getBuffer(), "Module.parseFile");
        // Verified by verifyIR, as Module.parse does.
        ParserConfig config(ctx.get(), /*verifyAfterParse=*/false);
        OwningOpRef<ModuleOp> parsed = withoutGILIfThreaded(ctx, [&] {
          OwningOpRef<ModuleOp> module =
              file ? parseSourceString<ModuleOp>((*file)->getBuffer(), config,
                                                 path)
                   : parseSourceFile<ModuleOp>(path, config);
          if (module && failed(verifyIR(*module)))
            module = nullptr;
          return module;
        });
        if (!parsed)
          capture.raise("Unable to parse module assembly");
        return PyModule::get(
            PyOperation::adopt(ctx, parsed.release().getOperation()));
      },
      py::arg("path"), py::arg("context") = py::none(),
      "Parses the module in file `path` (text or bytecode); MLIRError on "
      "failure.");

  auto operation =
      py::reinterpret_borrow<py::class_<PyOperation>>(m.attr("Operation"));
  operation
      .def_static(
          "parse",
          [](py::object source, const std::string &sourceName,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            std::string text =
                py::isinstance<py::bytes>(source)
                    ? source.cast<py::bytes>().cast<std::string>()
                    : source.cast<std::string>();
            DiagnosticCapture capture(ctx.get(),
                                      DiagnosticCapture::End::CallDone);
            ParserSource input(text, "Operation.parse");
            // Verified by verifyIR, as Module.parse does.
            ParserConfig config(ctx.get(), /*verifyAfterParse=*/false);
            Block block;
            LogicalResult parsed = withoutGILIfThreaded(ctx, [&] {
              if (failed(parseSourceString(input.get(), &block, config,
                                           sourceName)))
                return failure();
              for (Operation &op : block)
                if (failed(verifyIR(&op)))
                  return failure();
              return success();
            });
            if (failed(parsed)) {
              eraseParsedOps(block);
              capture.raise("Unable to parse operation assembly");
            }
            if (!llvm::hasSingleElement(block)) {
              eraseParsedOps(block);
              throw py::value_error("Expected a single top-level operation "
                                    "in the source");
            }
            Operation *op = &block.front();
            op->remove();
            // An OpView of the op's registered class, as upstream.
            return createOpView(PyOperation::adopt(ctx, op));
          },
          py::arg("source"), py::kw_only(), py::arg("source_name") = "",
          py::arg("context") = py::none(),
          "Parses one operation (text or bytecode); it is detached and owned "
          "by its handle. MLIRError on failure.")
      .def_property(
          "location",
          [](PyOperation &self) {
            return makeLocation(self.getContext(), self.get()->getLoc());
          },
          [](PyOperation &self, const PyLocation &loc) {
            Operation *op = self.get();
            if (loc.location->getContext() != op->getContext())
              throw py::value_error("the location belongs to another context");
            self.getContext().noteChanged(self);
            op->setLoc(loc.location);
          },
          "The location of the operation (settable).")
      .def_property_readonly(
          "attached",
          [](PyOperation &self) { return self.get()->getBlock() != nullptr; },
          "Whether the operation is in a block.")
      .def(
          "is_before_in_block",
          [](PyOperation &self, PyOperation &other) {
            Operation *op = self.get();
            Operation *otherOp = other.get();
            if (!op->getBlock() || op->getBlock() != otherOp->getBlock())
              throw py::value_error("the operations are not in the same "
                                    "block");
            return op->isBeforeInBlock(otherOp);
          },
          py::arg("other"),
          "Whether this op comes before `other` in their block; ValueError "
          "if they are not in one block.")
      .def(
          "write_bytecode",
          [](PyOperation &self, py::object file,
             std::optional<int64_t> desiredVersion) {
            Operation *op = self.get();
            // The writer trusts the IR: a missing inherent attribute, or a
            // use of a value it never numbered, crashed it.
            verifyBeforeWriting(self, "write_bytecode",
                                "cannot write bytecode of IR that does not "
                                "verify");
            // The writer numbers the values and blocks of `op` only, and
            // crashed on a use linking them to IR outside it (from a nested
            // op, a detached one using another tree's values, or an op
            // outside using its values: the writer keeps use-list orders).
            auto isInside = [&](Operation *holder) {
              return holder && op->isAncestor(holder);
            };
            auto usedOutside = [&](auto uses) {
              return llvm::any_of(
                  uses, [&](auto &use) { return !isInside(use.getOwner()); });
            };
            WalkResult outside = op->walk([&](Operation *nested) {
              bool linked = llvm::any_of(nested->getOperands(),
                                         [&](Value v) {
                                           return !isInside(getHolderOf(v));
                                         }) ||
                            llvm::any_of(nested->getSuccessors(),
                                         [&](Block *b) {
                                           return !isInside(b->getParentOp());
                                         }) ||
                            llvm::any_of(nested->getResults(), [&](Value v) {
                              return usedOutside(v.getUses());
                            });
              for (Region &region : nested->getRegions())
                for (Block &block : region)
                  linked |= usedOutside(block.getUses()) ||
                            llvm::any_of(block.getArguments(), [&](Value v) {
                              return usedOutside(v.getUses());
                            });
              return linked ? WalkResult::interrupt() : WalkResult::advance();
            });
            if (outside.wasInterrupted())
              throw py::value_error(
                  "cannot write bytecode of '" +
                  op->getName().getStringRef().str() +
                  "': a use links it (or an op in it) to IR outside it, "
                  "which bytecode cannot refer to");
            BytecodeWriterConfig config;
            if (desiredVersion)
              config.setDesiredBytecodeVersion(*desiredVersion);
            std::string bytes;
            llvm::raw_string_ostream os(bytes);
            DiagnosticCapture capture(op->getContext());
            if (failed(writeBytecodeToFile(op, os, config))) {
              std::string message =
                  "Unable to honor desired bytecode version " +
                  std::to_string(desiredVersion.value_or(-1));
              std::vector<DiagnosticRecord> diagnostics = capture.take();
              if (!diagnostics.empty())
                message += ": " + diagnostics.front().message;
              throw py::value_error(message);
            }
            writeToFile(file, bytes);
          },
          py::arg("file"), py::arg("desired_version") = py::none(),
          "Writes the op as bytecode to `file`, a binary file object or a "
          "path.");
}
} // namespace

namespace {
/// `attr_name` on the attribute classes, as upstream: the attribute's
/// registered name (IntegerAttr, FloatAttr and StringAttr define theirs).
void populateAttributeNames(py::module_ &m) {
  std::pair<const char *, StringRef> names[] = {
      {"AffineMapAttr", AffineMapAttr::name},
      {"IntegerSetAttr", IntegerSetAttr::name},
      {"ArrayAttr", ArrayAttr::name},
      {"SymbolRefAttr", SymbolRefAttr::name},
      {"OpaqueAttr", OpaqueAttr::name},
      {"DictAttr", DictionaryAttr::name},
      {"TypeAttr", TypeAttr::name},
      {"UnitAttr", UnitAttr::name},
      {"StridedLayoutAttr", StridedLayoutAttr::name},
      {"DenseResourceElementsAttr", DenseResourceElementsAttr::name},
  };
  for (auto [cls, name] : names)
    py::setattr(m.attr(cls), "attr_name", py::str(name.str()));
}
} // namespace

namespace {
/// `ir._GlobalDebug`: LLVM's process-wide debug output (`-debug`,
/// `-debug-only=`), as upstream's (which goes through MLIR's C API to the
/// same calls). In a build without assertions, such as Debian's LLVM and
/// this extension, the debug types are accepted and do nothing.
struct PyGlobalDebug {};
} // namespace

void mlir::tracking::python::populateIRCompat(py::module_ &m) {
  py::class_<PyGlobalDebug>(m, "_GlobalDebug",
                            "LLVM's process-wide debug flag and types.")
      .def_property_static(
          "flag", [](py::object) { return llvm::DebugFlag; },
          [](py::object, bool enable) { llvm::DebugFlag = enable; },
          "LLVM-wide debug flag.")
      .def_static(
          "set_types",
          [](const std::string &type) {
            // A no-op macro in builds without assertions.
            using namespace llvm;
            setCurrentDebugType(type.c_str());
          },
          py::arg("types"), "Sets the debug type LLVM prints output for.")
      .def_static(
          "set_types",
          [](const std::vector<std::string> &types) {
            std::vector<const char *> names;
            for (const std::string &type : types)
              names.push_back(type.c_str());
            using namespace llvm;
            setCurrentDebugTypes(names.data(), names.size());
          },
          py::arg("types"), "Sets the debug types LLVM prints output for.");

  populateDialects(m);
  populateContextExtras(m);
  populateLocationExtras(m);
  populateOperationExtras(m);
  populateAttributeNames(m);
}
