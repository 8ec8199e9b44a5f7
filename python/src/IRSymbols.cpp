//===- IRSymbols.cpp - ir.SymbolTable -------------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `ir.SymbolTable`. It holds the symbol-table op's handle and an
// index of its symbols (name -> the symbol op's Python Operation object, a
// tracked handle), built by one scan of the table's body on the first lookup.
// Upstream's index is a map of raw ops, which goes stale (and dangles) when
// passes or Python change the IR; this one is checked instead:
// - a name the index has is answered from it only after checking, on every
//   lookup, that its handle is live, that the op is still a child of the
//   table and that its `sym_name` is still that name: true whatever ran
//   since (a pass, Python, C++ code through a capsule);
// - a name the index lacks is answered from it only if the IR provably did
//   not change since the scan: the context's IR change count
//   (PyMlirContext::getIRChanges, moved by every change Python makes and by
//   the end of every pipeline, driver or transform application) and the
//   handle registry's change count are those of the scan, no capsule ever
//   exposed the context's IR (C++ code may then change it unseen), and no
//   pipeline, driver or transform runs in the context (their C++ code
//   changes IR without moving those counts until they end). Otherwise the
//   table is scanned again.
// The table's own insert and erase update the index and, when it was
// current before, keep it current. No raw op is kept across calls.
// Inserts and erases go through the tracked mutation paths so handles
// follow.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"
#include "Mutation.h"
#include "RunGuard.h"
#include "Walk.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// How many times a SymbolTable object scanned its table's body to index
/// it (`ir._symbol_table_scans()`, for tests).
size_t numSymbolTableScans = 0;

/// The symbols of a table, by name (see the file comment).
struct SymbolIndex {
  struct Entry {
    /// The symbol op's Python Operation object (keeps `operation` alive).
    py::object object;
    PyOperation *operation;
  };
  /// The first op of each name in the table's body, as of the scan and the
  /// table's own inserts and erases since. (Initialized by a call: the `{}`
  /// of an aggregate initialization would name DenseMap's explicit
  /// constructor.)
  llvm::DenseMap<StringAttr, Entry> byName =
      llvm::DenseMap<StringAttr, Entry>();
  bool built = false;
  /// The scan met a name twice (invalid IR): an erase of one of them does
  /// not keep the index current.
  bool hasDuplicates = false;
  /// When the index was current (isCurrent).
  IRStamp stamp;
};

/// `ir.SymbolTable`: the handle of a symbol-table op.
struct PySymbolTable {
  py::object operation;
  /// Built and kept up to date by lookups, which take the table as const.
  mutable SymbolIndex index;

  Operation *get() const {
    Operation *op = castToOperation(operation).get();
    if (!op->hasTrait<OpTrait::SymbolTable>())
      throw py::type_error("Operation is not a Symbol Table.");
    // MLIR's symbol tables read the one block of the op's one region (its
    // verifier's rule, which an op built from Python may break: a segfault).
    if (op->getNumRegions() != 1 || !llvm::hasSingleElement(op->getRegion(0)))
      throw py::value_error(
          "'" + op->getName().getStringRef().str() +
          "' has no single region with a single block, which a symbol "
          "table needs");
    return op;
  }
  PyMlirContext &getContext() const {
    return castToOperation(operation).getContext();
  }
};

/// True if the IR cannot have changed since `index` was stamped: a name it
/// lacks is in no symbol of the table. Reads no IR.
bool isCurrent(const SymbolIndex &index, PyMlirContext &context) {
  return index.built && index.stamp.holds(context);
}

/// Marks `index` current as of now.
void stamp(SymbolIndex &index, PyMlirContext &context) {
  index.stamp = IRStamp::of(context);
}

/// The op of `entry` if it is still the symbol `name` of `table`, else
/// nullptr. Never throws: a handle that is not live, or whose IR a run on
/// another thread (or the scope of a Python pass) keeps from us, is no
/// symbol of `table` now.
Operation *symbolOfEntry(const SymbolIndex::Entry &entry, Operation *table,
                         StringAttr name) {
  if (!entry.operation->getIfLive())
    return nullptr;
  Operation *op;
  try {
    op = entry.operation->get();
  } catch (std::exception &) {
    return nullptr;
  }
  if (op->getParentOp() != table ||
      op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()) != name)
    return nullptr;
  return op;
}

/// Scans the table's body and indexes its symbols anew (the first op of
/// each name, the one MLIR's lookups find).
void rebuildIndex(const PySymbolTable &self) {
  SymbolIndex &index = self.index;
  index.built = false;
  {
    // Dropping the old objects before reading any IR.
    llvm::DenseMap<StringAttr, SymbolIndex::Entry> old =
        std::move(index.byName);
    index.byName.clear();
  }
  Operation *table = self.get();
  PyOperation &tableOperation = castToOperation(self.operation);
  PyMlirContext &context = tableOperation.getContext();
  ++numSymbolTableScans;
  llvm::DenseSet<StringAttr> seen;
  std::vector<std::pair<StringAttr, Operation *>> symbols;
  bool hasDuplicates = false;
  for (Operation &op : table->getRegion(0).front()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      continue;
    if (seen.insert(name).second)
      symbols.emplace_back(name, &op);
    else
      hasDuplicates = true;
  }
  {
    // Making the objects may run Python code (a gc callback) while
    // `symbols` holds raw ops: it may not change this IR meanwhile.
    IRPin pin(tableOperation, "SymbolTable lookup");
    index.byName.reserve(symbols.size());
    for (auto [name, op] : symbols) {
      py::object object = PyOperation::forOperation(context, op);
      PyOperation *operation = &castToOperation(object);
      index.byName.try_emplace(
          name, SymbolIndex::Entry{std::move(object), operation});
    }
  }
  index.hasDuplicates = hasDuplicates;
  index.built = true;
  // After making the objects: the pin kept IR from changing, and making
  // them may have moved the registry's count.
  stamp(index, context);
}

/// The Operation object of symbol `name` of the table, or a null object.
py::object findSymbol(const PySymbolTable &self, const std::string &name) {
  SymbolIndex &index = self.index;
  PyMlirContext &context = self.getContext();
  StringAttr key = StringAttr::get(context.get(), name);
  if (index.built) {
    Operation *table = self.get();
    auto it = index.byName.find(key);
    if (it != index.byName.end()) {
      if (symbolOfEntry(it->second, table, key))
        return it->second.object;
    } else if (isCurrent(index, context)) {
      return py::object();
    }
  }
  rebuildIndex(self);
  auto it = index.byName.find(key);
  return it == index.byName.end() ? py::object() : it->second.object;
}

/// The Operation object of `symbol` (an Operation or OpView, or any object
/// with an `operation` attribute). Its Python code runs here: call this
/// before taking any raw pointer, and keep the result alive while using it.
py::object symbolOp(const py::object &symbol) {
  py::object operation = symbol.attr("operation");
  castToOperation(operation);
  return operation;
}

StringAttr symbolNameOf(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  if (!name)
    throw py::value_error("Expected operation to have a symbol name.");
  return name;
}

py::object lookup(const PySymbolTable &self, const std::string &name) {
  py::object found = findSymbol(self, name);
  if (!found)
    throw py::key_error("Symbol '" + name + "' not in the symbol table.");
  // As upstream: the op's OpView (its registered class, if any).
  return found.attr("opview");
}

/// Erases `operation` (a child of the table) and drops it from the index,
/// which stays current if it was.
void eraseSymbol(const PySymbolTable &self, PyOperation &operation) {
  SymbolIndex &index = self.index;
  PyMlirContext &context = self.getContext();
  bool wasCurrent = isCurrent(index, context);
  Operation *table = self.get();
  Operation *op = operation.get();
  if (op->getParentOp() != table)
    throw py::value_error("the operation is not in this symbol table");
  auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  auto it = name ? index.byName.find(name) : index.byName.end();
  bool indexed =
      it != index.byName.end() && it->second.operation->getIfLive() == op;
  eraseOperation(operation);
  if (!wasCurrent)
    return;
  // The table lost `op` and nothing else: if `op` was its only symbol of
  // that name, the index (current before) is current without it.
  if (name && (!indexed || index.hasDuplicates))
    return;
  if (indexed)
    index.byName.erase(name);
  stamp(index, context);
}
} // namespace

void mlir::tracking::python::populateIRSymbols(py::module_ &m) {
  m.def(
      "_symbol_table_scans", [] { return numSymbolTableScans; },
      "How many times SymbolTable objects scanned their table's body to "
      "index it (for tests).");
  py::class_<PySymbolTable>(m, "SymbolTable",
                            "The symbols of a symbol-table op (a module, "
                            "...), looked up, inserted and erased by name.")
      .def(py::init([](py::object operation) {
             PySymbolTable table{operation.attr("operation")};
             table.get();
             return table;
           }),
           py::arg("operation"),
           "The symbol table of `operation`; TypeError if it is not one.")
      .def("__getitem__", &lookup, py::arg("name"),
           "The op defining symbol `name`; KeyError if none.")
      .def(
          "__contains__",
          [](const PySymbolTable &self, const std::string &name) {
            return bool(findSymbol(self, name));
          },
          py::arg("name"), "Whether symbol `name` is defined here.")
      .def(
          "insert",
          [](const PySymbolTable &self, py::object symbol) {
            // First: `symbol.operation` is Python code that may change IR.
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            PyMlirContext &context = self.getContext();
            SymbolIndex &index = self.index;
            // The name is uniqued against the index: it must be current.
            if (!isCurrent(index, context))
              rebuildIndex(self);
            Operation *table = self.get();
            Operation *op = operation.get();
            StringAttr name = symbolNameOf(op);
            if (op == table || op->isAncestor(table))
              throw py::value_error("cannot insert a symbol table into "
                                    "itself");
            Block &body = table->getRegion(0).front();
            // Place the op through the tracked path (SymbolTable::insert
            // would move it untracked), then unique its name as
            // SymbolTable::insert does.
            if (op->getBlock() != &body) {
              Block::iterator end = body.end();
              if (!body.empty() &&
                  body.back().hasTrait<OpTrait::IsTerminator>())
                end = std::prev(body.end());
              placeOperation(operation, &body, end, "SymbolTable.insert");
            }
            operation.getContext().noteChanged(table);
            auto it = index.byName.find(name);
            if (it != index.byName.end() &&
                it->second.operation->getIfLive() != op) {
              MLIRContext *mlirContext = op->getContext();
              unsigned counter = 0;
              name = StringAttr::get(
                  mlirContext,
                  SymbolTable::generateSymbolName<64>(
                      name.getValue(),
                      [&](StringRef candidate) {
                        return index.byName.contains(
                            StringAttr::get(mlirContext, candidate));
                      },
                      counter));
              SymbolTable::setSymbolName(op, name);
            }
            index.byName.try_emplace(
                name, SymbolIndex::Entry{symbolObject, &operation});
            // The table gained `op` (under `name`) and nothing else.
            stamp(index, context);
            return makeAttribute(context, name);
          },
          py::arg("operation"),
          "Inserts `operation` (a symbol) at the end of the table's body, "
          "renaming it if its name is taken; returns the name (StringAttr).")
      .def(
          "erase",
          [](const PySymbolTable &self, py::object symbol) {
            py::object symbolObject = symbolOp(symbol);
            eraseSymbol(self, castToOperation(symbolObject));
          },
          py::arg("operation"),
          "Erases the symbol op from the table and the IR; its handle becomes "
          "erased.")
      .def(
          "__delitem__",
          [](const PySymbolTable &self, const std::string &name) {
            py::object found = findSymbol(self, name);
            if (!found)
              throw py::key_error("Symbol '" + name +
                                  "' not in the symbol table.");
            eraseSymbol(self, castToOperation(found));
          },
          py::arg("name"), "Erases the op defining symbol `name`.")
      .def_static(
          "get_symbol_name",
          [](py::object symbol) {
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            return makeAttribute(operation.getContext(),
                                 symbolNameOf(operation.get()));
          },
          py::arg("symbol"), "The symbol's name (StringAttr).")
      .def_static(
          "set_symbol_name",
          [](py::object symbol, const std::string &name) {
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            Operation *op = operation.get();
            symbolNameOf(op);
            operation.getContext().noteChanged(operation);
            SymbolTable::setSymbolName(op, name);
          },
          py::arg("symbol"), py::arg("name"), "Renames the symbol op.")
      .def_static(
          "get_visibility",
          [](py::object symbol) {
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            Operation *op = operation.get();
            auto visibility = op->getAttrOfType<StringAttr>(
                SymbolTable::getVisibilityAttrName());
            if (!visibility)
              visibility = StringAttr::get(op->getContext(), "public");
            return makeAttribute(operation.getContext(), visibility);
          },
          py::arg("symbol"),
          "The visibility (StringAttr: public, private or nested).")
      .def_static(
          "set_visibility",
          [](py::object symbol, const std::string &visibility) {
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            Operation *op = operation.get();
            if (visibility != "public" && visibility != "private" &&
                visibility != "nested")
              throw py::value_error("Expected visibility to be 'public', "
                                    "'private' or 'nested'");
            operation.getContext().noteChanged(operation);
            // As upstream: the attribute is always written, "public"
            // included (SymbolTable::setSymbolVisibility would drop it).
            op->setAttr(SymbolTable::getVisibilityAttrName(),
                        StringAttr::get(op->getContext(), visibility));
          },
          py::arg("symbol"), py::arg("visibility"),
          "Sets the visibility ('public', 'private' or 'nested').")
      .def_static(
          "replace_all_symbol_uses",
          [](const std::string &oldSymbol, const std::string &newSymbol,
             py::object from) {
            py::object fromObject = from.attr("operation");
            PyOperation &operation = castToOperation(fromObject);
            Operation *op = operation.get();
            MLIRContext *context = op->getContext();
            operation.getContext().noteChanged(operation);
            if (failed(SymbolTable::replaceAllSymbolUses(
                    StringAttr::get(context, oldSymbol),
                    StringAttr::get(context, newSymbol), op)))
              throw py::value_error("Symbol rename failed");
          },
          py::arg("old_symbol"), py::arg("new_symbol"), py::arg("from_op"),
          "Replaces every use of `old_symbol` with `new_symbol` in the "
          "regions of `from_op`.")
      .def_static(
          "walk_symbol_tables",
          [](py::object from, bool allSymUsesVisible, py::object callback) {
            py::object fromObject = from.attr("operation");
            PyOperation &operation = castToOperation(fromObject);
            Operation *op = operation.get();
            PyMlirContext &context = operation.getContext();
            // Collect first: the callback may change the IR.
            std::vector<std::pair<Operation *, bool>> tables;
            SymbolTable::walkSymbolTables(op, allSymUsesVisible,
                                          [&](Operation *table, bool visible) {
                                            tables.emplace_back(table, visible);
                                          });
            // Creating the objects may run Python code (an OpView class's
            // `__new__`, a gc callback) while `tables` holds raw ops.
            std::vector<py::object> handles;
            {
              IRPin pin(operation, "SymbolTable.walk_symbol_tables");
              for (auto &[table, visible] : tables)
                handles.push_back(
                    PyOperation::forOperation(context, table).attr("opview"));
            }
            for (size_t i = 0; i < handles.size(); ++i) {
              try {
                callOrPark(callback, handles[i], tables[i].second);
              } catch (py::error_already_set &error) {
                raiseCallbackError(error);
              }
            }
          },
          py::arg("from_op"), py::arg("all_sym_uses_visible"),
          py::arg("callback"),
          "Calls `callback(op, all_uses_visible)` on every symbol table "
          "under and including `from_op` (collected before the first call, "
          "so the callback may change the IR). An exception of the callback "
          "stops "
          "the walk and is raised as RuntimeError('Exception raised in "
          "callback: ...') from it, as upstream.")
      .def(
          "__repr__",
          [](const PySymbolTable &self) {
            PyOperation &operation = castToOperation(self.operation);
            return "<mlir_tracking.ir.SymbolTable of '" +
                   operation.getHandle().getLastName() + "'>";
          },
          "A short description.");
}
