//===- IRSymbols.cpp - ir.SymbolTable -------------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `ir.SymbolTable`. It holds the symbol-table op's handle and
// builds an mlir::SymbolTable for each call (a cached one would go stale when
// passes or Python change the IR), and it inserts and erases through the
// tracked mutation paths so handles follow.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"
#include "Mutation.h"
#include "RunGuard.h"
#include "Walk.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// `ir.SymbolTable`: the handle of a symbol-table op.
struct PySymbolTable {
  py::object operation;

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
};

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
  Operation *table = self.get();
  Operation *found = SymbolTable::lookupSymbolIn(
      table, StringAttr::get(table->getContext(), name));
  if (!found)
    throw py::key_error("Symbol '" + name + "' not in the symbol table.");
  // As upstream: the op's OpView (its registered class, if any).
  return PyOperation::forOperation(castToOperation(self.operation).getContext(),
                                   found)
      .attr("opview");
}
} // namespace

void mlir::tracking::python::populateIRSymbols(py::module_ &m) {
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
            Operation *table = self.get();
            return SymbolTable::lookupSymbolIn(
                       table, StringAttr::get(table->getContext(), name)) !=
                   nullptr;
          },
          py::arg("name"), "Whether symbol `name` is defined here.")
      .def(
          "insert",
          [](const PySymbolTable &self, py::object symbol) {
            // First: `symbol.operation` is Python code that may change IR.
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            Operation *table = self.get();
            Operation *op = operation.get();
            symbolNameOf(op);
            if (op == table || op->isAncestor(table))
              throw py::value_error("cannot insert a symbol table into "
                                    "itself");
            Block &body = table->getRegion(0).front();
            // Index the table before the op arrives, place the op through
            // the tracked path (SymbolTable::insert would move it
            // untracked), then let MLIR unique its name.
            SymbolTable symbolTable(table);
            if (op->getBlock() != &body) {
              Block::iterator end = body.end();
              if (!body.empty() &&
                  body.back().hasTrait<OpTrait::IsTerminator>())
                end = std::prev(body.end());
              placeOperation(operation, &body, end, "SymbolTable.insert");
            }
            operation.getContext().noteChanged(table);
            StringAttr name = symbolTable.insert(op, Block::iterator(op));
            return makeAttribute(operation.getContext(), name);
          },
          py::arg("operation"),
          "Inserts `operation` (a symbol) at the end of the table's body, "
          "renaming it if its name is taken; returns the name (StringAttr).")
      .def(
          "erase",
          [](const PySymbolTable &self, py::object symbol) {
            py::object symbolObject = symbolOp(symbol);
            PyOperation &operation = castToOperation(symbolObject);
            Operation *table = self.get();
            Operation *op = operation.get();
            if (op->getParentOp() != table)
              throw py::value_error("the operation is not in this symbol "
                                    "table");
            eraseOperation(operation);
          },
          py::arg("operation"),
          "Erases the symbol op from the table and the IR; its handle becomes "
          "erased.")
      .def(
          "__delitem__",
          [](const PySymbolTable &self, const std::string &name) {
            py::object found = lookup(self, name);
            eraseOperation(castToOperation(found));
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
