//===- IRStructure.cpp - Regions, blocks, values, insertion points --------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "IRObjects.h"
#include "Mutation.h"
#include "OpView.h"
#include "RunGuard.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// Checked access
//===----------------------------------------------------------------------===//

namespace {
PyOperation &operationOf(const py::object &object) {
  return object.cast<PyOperation &>();
}

[[noreturn]] void raiseGone(PyOperation &operation, const std::string &what) {
  throw InvalidatedHandleException(
      what + " of " + operation.getHandle().describe() + " no longer exists");
}

/// Python-style index into a sequence of `size`.
size_t normalizeIndex(intptr_t index, size_t size) {
  if (index < 0)
    index += static_cast<intptr_t>(size);
  if (index < 0 || static_cast<size_t>(index) >= size)
    throw py::index_error("index out of range");
  return static_cast<size_t>(index);
}

/// Defines the sequence protocol of a list class: `__len__`, `__getitem__`
/// (Python-style negative indices), `__iter__` over a snapshot and
/// `__repr__` ("<mlir_tracking.ir.Name of <owner>>"). `size` and `item`
/// access the IR through the owner, so they raise on a stale handle.
/// `snapshot` lists every element at once, for lists whose `item` is not
/// constant-time.
template <typename ListT, typename SizeFn, typename ItemFn, typename SnapshotFn>
py::class_<ListT> &defineSequence(py::class_<ListT> &cls, const char *name,
                                  py::object ListT::*owner, const char *what,
                                  SizeFn size, ItemFn item,
                                  SnapshotFn snapshot) {
  std::string noun = what;
  cls.def(
         "__len__", [size](ListT &self) { return size(self); },
         ("Number of " + noun + "s.").c_str())
      .def(
          "__getitem__",
          [size, item](ListT &self, intptr_t index) {
            return item(self, normalizeIndex(index, size(self)));
          },
          py::arg("index"), ("The " + noun + " at `index`.").c_str())
      .def(
          "__getitem__",
          [snapshot](ListT &self, const py::slice &slice) {
            return py::list(snapshot(self).attr("__getitem__")(slice));
          },
          py::arg("index"),
          ("A list of the " + noun + "s in the slice.").c_str())
      .def(
          "__iter__",
          [snapshot](ListT &self) { return py::iter(snapshot(self)); },
          ("Iterates over the " + noun + "s (a snapshot).").c_str())
      .def(
          "__reversed__",
          [snapshot](ListT &self) {
            return py::iter(snapshot(self).attr("__reversed__")());
          },
          ("Iterates over the " + noun + "s backwards (a snapshot).").c_str())
      .def(
          "__contains__",
          [snapshot](ListT &self, const py::object &value) {
            return snapshot(self).contains(value);
          },
          py::arg("value"),
          ("Whether `value` is one of the " + noun + "s.").c_str())
      .def(
          "index",
          [snapshot](ListT &self, const py::object &value) {
            return snapshot(self).attr("index")(value);
          },
          py::arg("value"),
          ("The position of `value`; ValueError if it is not a " + noun +
           " here.")
              .c_str())
      .def(
          "count",
          [snapshot](ListT &self, const py::object &value) {
            return snapshot(self).attr("count")(value);
          },
          py::arg("value"), ("How many " + noun + "s equal `value`.").c_str())
      .def(
          "__repr__",
          [name, owner](ListT &self) {
            return std::string("<mlir_tracking.ir.") + name + " of " +
                   py::repr(self.*owner).template cast<std::string>() + ">";
          },
          "A short description.");
  return cls;
}

/// As above, iterating by index.
template <typename ListT, typename SizeFn, typename ItemFn>
py::class_<ListT> &defineSequence(py::class_<ListT> &cls, const char *name,
                                  py::object ListT::*owner, const char *what,
                                  SizeFn size, ItemFn item) {
  return defineSequence(cls, name, owner, what, size, item,
                        [size, item](ListT &self) {
                          py::list elements;
                          for (size_t i = 0, e = size(self); i < e; ++i)
                            elements.append(item(self, i));
                          return elements;
                        });
}

template <typename T> std::string printToString(T &&object) {
  std::string text;
  llvm::raw_string_ostream os(text);
  object.print(os);
  return text;
}
} // namespace

Region *PyRegion::get() const {
  PyOperation &op = operationOf(operation);
  Operation *owner = op.get();
  if (index >= owner->getNumRegions())
    raiseGone(op, "region #" + std::to_string(index));
  return &owner->getRegion(index);
}

Block *PyBlock::get() const {
  // The run guard: `operation` is the block's parent op when the object was
  // made, and moves from Python carry the block along with it.
  checkIRAccess(*operationOf(operation).getResolvedOwner());
  // The block registry knows whether this very block still exists: a block
  // erased by a rewrite (or under a pass that is not precise) never comes
  // back, even if a new block is allocated at its address.
  Block *block = handle.get();
  if (!block)
    throw InvalidatedHandleException(handle.describe());
  return block;
}

PyMlirContext &PyBlock::getContext() const {
  return operationOf(operation).getContext();
}

PyBlock PyBlock::make(py::object operation, Block *block) {
  BlockHandle handle =
      operationOf(operation).getContext().getUnits().getBlockHandle(block);
  return PyBlock{std::move(operation), std::move(handle)};
}

py::object PyBlock::create(PyMlirContext &context, Block *block) {
  Operation *parent = block->getParentOp();
  if (!parent)
    throw py::value_error("block is not in an operation");
  return py::cast(make(PyOperation::forOperation(context, parent), block));
}

PyMlirContext &PyValue::getContext() const {
  return operationOf(keepAlive).getContext();
}

Value PyValue::get() const {
  // The run guard: `keepAlive` defines the value (or holds its block), and
  // moves from Python carry the value along with it.
  checkIRAccess(*castToOperation(keepAlive).getResolvedOwner());
  Value value = handle.get();
  if (!value)
    throw InvalidatedHandleException(handle.describe());
  return value;
}

py::object PyValue::create(PyMlirContext &context, Value value) {
  ValueHandle handle = context.getUnits().getValueHandle(value);
  if (auto result = dyn_cast<OpResult>(value))
    return py::cast(PyOpResult{
        {PyOperation::forOperation(context, result.getOwner()), handle}});
  Operation *parent = cast<BlockArgument>(value).getOwner()->getParentOp();
  if (!parent)
    throw py::value_error("block argument of a block that is not in an "
                          "operation");
  return py::cast(PyBlockArgument{
      {PyOperation::forOperation(context, parent), std::move(handle)}});
}

void PyInsertionPoint::insert(PyOperation &operation) const {
  Operation *op = operation.get();
  if (op->getBlock())
    throw py::value_error(
        "attempt to insert an operation that is already attached; use "
        "move_before/move_after or detach_from_parent first");
  Block *target = block.cast<PyBlock &>().get();
  Block::iterator before = target->end();
  if (!refOperation.is_none()) {
    Operation *ref = operationOf(refOperation).get();
    if (ref->getBlock() != target)
      throw py::value_error("the insertion point's reference operation has "
                            "moved to another block");
    before = ref->getIterator();
  }
  placeOperation(operation, target, before, "InsertionPoint.insert");
}

bool mlir::tracking::python::maybeInsert(PyOperation &operation,
                                         const py::object &ip) {
  if (ip.is(py::bool_(false)))
    return false;
  py::object target = ip.is_none() ? getCurrentInsertionPoint() : ip;
  if (target.is_none())
    return false;
  target.cast<PyInsertionPoint &>().insert(operation);
  return true;
}

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

namespace {
void populateRegionsAndBlocks(py::module_ &m) {
  py::class_<PyRegion>(m, "Region", "A region of an operation.")
      .def_property_readonly(
          "blocks",
          [](py::object self) {
            self.cast<PyRegion &>().get();
            return PyBlockList{self};
          },
          "The blocks of the region.")
      .def_property_readonly(
          "owner",
          [](PyRegion &self) {
            self.get();
            return createOpView(self.operation);
          },
          "The operation that has the region.")
      .def(
          "__eq__",
          [](PyRegion &self, py::object other) {
            if (!py::isinstance<PyRegion>(other))
              return false;
            auto &region = other.cast<PyRegion &>();
            return region.index == self.index &&
                   operationOf(region.operation).getHandle().getIdentityKey() ==
                       operationOf(self.operation).getHandle().getIdentityKey();
          },
          py::arg("other"),
          "Same region index of the same operation handle (every path to an "
          "op gives its own handle). Never changes.")
      .def(
          "__hash__",
          [](PyRegion &self) {
            return std::hash<const void *>()(operationOf(self.operation)
                                                 .getHandle()
                                                 .getIdentityKey()) ^
                   self.index;
          },
          "Never changes over the object's life.")
      .def(
          "__repr__",
          [](PyRegion &self) {
            return "<mlir_tracking.ir.Region #" + std::to_string(self.index) +
                   " of " + py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyBlockList> blockList(m, "BlockList", "The blocks of a region.");
  defineSequence(
      blockList, "BlockList", &PyBlockList::region, "block",
      [](PyBlockList &self) {
        return self.region.cast<PyRegion &>().get()->getBlocks().size();
      },
      [](PyBlockList &self, size_t i) {
        auto &region = self.region.cast<PyRegion &>();
        return PyBlock::make(region.operation,
                             &*std::next(region.get()->begin(), i));
      },
      [](PyBlockList &self) {
        auto &region = self.region.cast<PyRegion &>();
        // Allocating may run a finalizer that lets another thread in.
        IRPin pin(operationOf(region.operation), "iterating a BlockList");
        py::list blocks;
        for (Block &block : *region.get())
          blocks.append(PyBlock::make(region.operation, &block));
        return blocks;
      });
  blockList.def(
      "append",
      [](PyBlockList &self, py::args argTypes, py::object argLocs) {
        auto &region = self.region.cast<PyRegion &>();
        Region *r = region.get();
        PyMlirContext &ctx = operationOf(region.operation).getContext();
        auto *block = new Block();
        size_t i = 0;
        for (py::handle type : argTypes) {
          Location loc =
              argLocs.is_none()
                  ? resolveLocation(py::none(), ctx)
                  : argLocs.cast<py::list>()[i].cast<PyLocation &>().location;
          Type argType = type.cast<PyType &>().type;
          try {
            checkSameContext(ctx, argType.getContext(), "an argument type");
            checkSameContext(ctx, loc->getContext(), "an argument location");
          } catch (...) {
            delete block;
            throw;
          }
          block->addArgument(argType, loc);
          ++i;
        }
        r->push_back(block);
        return PyBlock::make(region.operation, block);
      },
      py::arg("arg_locs") = py::none(),
      "Appends a new block with arguments of the given types.");

  py::class_<PyRegionSequence> regions(m, "RegionSequence",
                                       "The regions of an operation.");
  defineSequence(
      regions, "RegionSequence", &PyRegionSequence::operation, "region",
      [](PyRegionSequence &self) {
        return operationOf(self.operation).get()->getNumRegions();
      },
      [](PyRegionSequence &self, size_t i) {
        return PyRegion{self.operation, static_cast<unsigned>(i)};
      });

  py::class_<PyBlock>(m, "Block", "A block of a region.")
      .def_property_readonly(
          "operations",
          [](py::object self) {
            self.cast<PyBlock &>().get();
            return PyOperationList{self};
          },
          "The operations of the block.")
      .def_property_readonly(
          "arguments",
          [](py::object self) {
            self.cast<PyBlock &>().get();
            return PyBlockArgumentList{self};
          },
          "The block arguments.")
      .def_property_readonly(
          "owner",
          [](PyBlock &self) -> py::object {
            Operation *parent = self.get()->getParentOp();
            if (!parent)
              return py::none();
            return createOpView(
                PyOperation::forOperation(self.getContext(), parent));
          },
          "The operation whose region contains the block now.")
      .def_property_readonly(
          "region",
          [](PyBlock &self) {
            Block *block = self.get();
            Operation *parent = block->getParentOp();
            if (!parent)
              throw py::value_error("block is not in an operation");
            return PyRegion{
                PyOperation::forOperation(self.getContext(), parent),
                block->getParent()->getRegionNumber()};
          },
          "The region containing the block.")
      .def(
          "add_argument",
          [](PyBlock &self, PyType &type, PyLocation &loc) {
            Block *block = self.get();
            PyMlirContext &ctx = operationOf(self.operation).getContext();
            checkSameContext(ctx, type.type.getContext(), "an argument type");
            checkSameContext(ctx, loc.location->getContext(),
                             "an argument location");
            BlockArgument argument =
                block->addArgument(type.type, loc.location);
            return PyValue::create(self.getContext(), argument);
          },
          py::arg("type"), py::arg("loc"),
          "Appends an argument of `type` and returns it.")
      .def(
          "append",
          [](PyBlock &self, PyOperation &operation) {
            Block *block = self.get();
            placeOperation(operation, block, block->end(), "Block.append");
          },
          py::arg("operation"),
          "Appends `operation` (inserting it if detached, else moving it).")
      .def_static(
          "create_at_start",
          [](PyRegion &parent, py::list argTypes, py::object argLocs) {
            Region *region = parent.get();
            PyMlirContext &ctx = operationOf(parent.operation).getContext();
            std::vector<std::pair<Type, Location>> arguments;
            for (size_t i = 0; i < argTypes.size(); ++i) {
              Location loc = argLocs.is_none()
                                 ? resolveLocation(py::none(), ctx)
                                 : argLocs.cast<py::list>()[i]
                                       .cast<PyLocation &>()
                                       .location;
              Type type = argTypes[i].cast<PyType &>().type;
              checkSameContext(ctx, type.getContext(), "an argument type");
              checkSameContext(ctx, loc->getContext(), "an argument location");
              arguments.emplace_back(type, loc);
            }
            auto *block = new Block();
            for (auto [type, loc] : arguments)
              block->addArgument(type, loc);
            region->push_front(block);
            return PyBlock::make(parent.operation, block);
          },
          py::arg("parent"), py::arg("arg_types") = py::list(),
          py::arg("arg_locs") = py::none(),
          "Creates a block at the start of `parent`.")
      .def(
          "__eq__",
          [](PyBlock &self, py::object other) {
            return py::isinstance<PyBlock>(other) &&
                   other.cast<PyBlock &>().handle.getIdentityKey() ==
                       self.handle.getIdentityKey();
          },
          py::arg("other"),
          "Same block (one handle per block while it lives). Works, and "
          "never changes, after the block was erased.")
      .def(
          "__hash__",
          [](PyBlock &self) {
            return std::hash<const void *>()(self.handle.getIdentityKey());
          },
          "Consistent with ==; never changes.")
      .def_property_readonly(
          "is_valid", [](PyBlock &self) { return self.handle.isLive(); },
          "True while the block exists (not erased or invalidated).")
      .def(
          "__str__", [](PyBlock &self) { return printToString(*self.get()); },
          "The block as MLIR prints it.")
      .def(
          "__repr__",
          [](PyBlock &self) {
            return "<mlir_tracking.ir.Block of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyOperationList> operations(m, "OperationList",
                                         "The operations of a block.");
  defineSequence(
      operations, "OperationList", &PyOperationList::block, "operation",
      [](PyOperationList &self) {
        return self.block.cast<PyBlock &>().get()->getOperations().size();
      },
      [](PyOperationList &self, size_t i) {
        auto &block = self.block.cast<PyBlock &>();
        return createOpView(PyOperation::forOperation(
            block.getContext(), &*std::next(block.get()->begin(), i)));
      },
      [](PyOperationList &self) {
        auto &block = self.block.cast<PyBlock &>();
        PyMlirContext &ctx = block.getContext();
        // Allocating may run a finalizer that lets another thread in.
        IRPin pin(operationOf(block.operation), "iterating an OperationList");
        py::list ops;
        for (Operation &op : *block.get())
          ops.append(createOpView(PyOperation::forOperation(ctx, &op)));
        return ops;
      });

  py::class_<PyBlockArgumentList> arguments(m, "BlockArgumentList",
                                            "The arguments of a block.");
  defineSequence(
      arguments, "BlockArgumentList", &PyBlockArgumentList::block, "argument",
      [](PyBlockArgumentList &self) {
        return self.block.cast<PyBlock &>().get()->getNumArguments();
      },
      [](PyBlockArgumentList &self, size_t i) {
        auto &block = self.block.cast<PyBlock &>();
        return PyValue::create(block.getContext(), block.get()->getArgument(i));
      });
  arguments.def_property_readonly(
      "types",
      [](PyBlockArgumentList &self) {
        auto &block = self.block.cast<PyBlock &>();
        PyMlirContext &ctx = block.getContext();
        py::list types;
        for (BlockArgument argument : block.get()->getArguments())
          types.append(makeType(ctx, argument.getType()));
        return types;
      },
      "The argument types.");
}

void populateValues(py::module_ &m) {
  py::class_<PyValue>(m, "Value",
                      "An SSA value: a result of an Operation or an argument "
                      "of a Block. Checked on every access.")
      .def_property_readonly(
          "type",
          [](PyValue &self) {
            return makeType(self.getContext(), self.get().getType());
          },
          "The type of the value.")
      .def_property_readonly(
          "owner",
          [](PyValue &self) -> py::object {
            Value value = self.get();
            if (auto result = dyn_cast<OpResult>(value))
              return createOpView(PyOperation::forOperation(self.getContext(),
                                                            result.getOwner()));
            return PyBlock::create(self.getContext(),
                                   cast<BlockArgument>(value).getOwner());
          },
          "The defining Operation (for a result) or Block (for an "
          "argument) of the value this handle refers to now.")
      .def_property_readonly(
          "is_valid", [](PyValue &self) { return self.handle.isLive(); },
          "True while the value (or the value that replaced it) exists.")
      .def_property_readonly(
          "handle_state",
          [](PyValue &self) {
            return stringifyHandleState(self.handle.getState()).str();
          },
          "'live', 'erased' or 'invalidated', as for Operation.")
      .def_property_readonly(
          "context",
          [](PyValue &self) { return self.getContext().getObject(); },
          "The context of the value.")
      .def_property_readonly(
          "uses",
          [](PyValue &self) {
            Value value = self.get();
            PyMlirContext &ctx = self.getContext();
            // Allocating may run a finalizer that lets another thread in.
            IRPin pin(castToOperation(self.keepAlive), "Value.uses");
            py::list uses;
            for (OpOperand &use : value.getUses())
              uses.append(
                  PyOpOperand{PyOperation::forOperation(ctx, use.getOwner()),
                              use.getOperandNumber()});
            return py::iter(uses);
          },
          "Iterates over the uses (OpOperands) of the value.")
      .def(
          "get_name",
          [](PyValue &self, bool useLocalScope, bool useNameLocAsPrefix) {
            Value value = self.get();
            OpPrintingFlags flags;
            if (useLocalScope)
              flags.useLocalScope();
            if (useNameLocAsPrefix)
              flags.printNameLocAsPrefix();
            std::string text;
            llvm::raw_string_ostream os(text);
            value.printAsOperand(os, flags);
            return text;
          },
          py::arg("use_local_scope") = false,
          py::arg("use_name_loc_as_prefix") = false,
          "The value as an operand: '%0', '%arg0'.")
      .def(
          "replace_all_uses_with",
          [](PyValue &self, PyValue &with) {
            replaceAllUsesWith(self.getContext(), self.get(), with.get());
          },
          py::arg("with_"), "Replaces every use of this value with `with_`.")
      .def(
          "__eq__",
          [](PyValue &self, py::object other) {
            return py::isinstance<PyValue>(other) &&
                   other.cast<PyValue &>().handle.getIdentityKey() ==
                       self.handle.getIdentityKey();
          },
          py::arg("other"),
          "Same value handle: every path to a value gives its own handle, "
          "so values reached twice are equal. A handle that followed a "
          "replacement onto a value that had a handle keeps its own "
          "identity (see `same_value`). Never changes.")
      .def(
          "__hash__",
          [](PyValue &self) {
            return std::hash<const void *>()(self.handle.getIdentityKey());
          },
          "Consistent with ==; never changes.")
      .def(
          "same_value",
          [](PyValue &self, PyValue &other) {
            return self.get() == other.get();
          },
          py::arg("other"),
          "True if both refer to the same SSA value now (raises if either "
          "is not live).")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyValue &self) {
            return py::reinterpret_steal<py::object>(
                PyCapsule_New(const_cast<void *>(wrap(self.get()).ptr),
                              MLIR_PYTHON_CAPSULE_VALUE, nullptr));
          },
          "A capsule with the MlirValue.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            void *pointer =
                PyCapsule_GetPointer(capsule.ptr(), MLIR_PYTHON_CAPSULE_VALUE);
            if (!pointer)
              throw py::error_already_set();
            Value value = Value::getFromOpaquePointer(pointer);
            PyMlirContext *context = PyMlirContext::lookup(value.getContext());
            if (!context)
              throw py::value_error(
                  "the value's context was not created by mlir_tracking");
            // A raw pointer may point into IR a pipeline is running on.
            checkNoRunIn(*context, "Value._CAPICreate");
            return PyValue::create(*context, value);
          },
          py::arg("capsule"), "The Value of a capsule.")
      .def(
          "__str__",
          [](PyValue &self) {
            return "Value(" + printToString(self.get()) + ")";
          },
          "Value(<how MLIR prints it>).")
      .def(
          "__repr__",
          [](PyValue &self) {
            try {
              return "Value(" + printToString(self.get()) + ")";
            } catch (const InvalidatedHandleException &) {
              return std::string("<mlir_tracking.ir.Value of a handle that "
                                 "is not live>");
            } catch (const IRInUseException &) {
              return std::string("<mlir_tracking.ir.Value in IR a pass "
                                 "pipeline is running on>");
            }
          },
          "Like str(); never raises.");

  py::class_<PyOpResult, PyValue>(m, "OpResult", "A result of an operation.")
      .def_property_readonly(
          "result_number",
          [](PyOpResult &self) {
            auto result = dyn_cast<OpResult>(self.get());
            if (!result)
              throw py::value_error("the result was replaced by a block "
                                    "argument: " +
                                    self.handle.describe());
            return result.getResultNumber();
          },
          "The index of the result (of the value this handle refers to "
          "now).");

  py::class_<PyBlockArgument, PyValue>(m, "BlockArgument",
                                       "An argument of a block.")
      .def_property_readonly(
          "arg_number",
          [](PyBlockArgument &self) {
            auto argument = dyn_cast<BlockArgument>(self.get());
            if (!argument)
              throw py::value_error("the argument was replaced by an op "
                                    "result: " +
                                    self.handle.describe());
            return argument.getArgNumber();
          },
          "The index of the argument (of the value this handle refers to "
          "now).");

  py::class_<PyOpOperand>(m, "OpOperand", "A use of a value.")
      .def_property_readonly(
          "owner",
          [](PyOpOperand &self) {
            operationOf(self.operation).get();
            return createOpView(self.operation);
          },
          "The operation that uses the value.")
      .def_property_readonly(
          "operand_number",
          [](PyOpOperand &self) {
            operationOf(self.operation).get();
            return self.number;
          },
          "The index of the operand.")
      .def(
          "__repr__",
          [](PyOpOperand &self) {
            return "<mlir_tracking.ir.OpOperand #" +
                   std::to_string(self.number) + " of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyOpOperandList> operands(m, "OpOperandList",
                                       "The operands of an operation.");
  defineSequence(
      operands, "OpOperandList", &PyOpOperandList::operation, "operand",
      [](PyOpOperandList &self) {
        return operationOf(self.operation).get()->getNumOperands();
      },
      [](PyOpOperandList &self, size_t i) {
        PyOperation &op = operationOf(self.operation);
        return PyValue::create(op.getContext(), op.get()->getOperand(i));
      });
  operands.def(
      "__setitem__",
      [](PyOpOperandList &self, intptr_t index, PyValue &value) {
        PyOperation &op = operationOf(self.operation);
        Operation *owner = op.get();
        setOperand(op.getContext(), owner,
                   normalizeIndex(index, owner->getNumOperands()), value.get());
      },
      py::arg("index"), py::arg("value"), "Sets operand `index`.");

  py::class_<PyOpResultList> results(m, "OpResultList",
                                     "The results of an operation.");
  defineSequence(
      results, "OpResultList", &PyOpResultList::operation, "result",
      [](PyOpResultList &self) {
        return operationOf(self.operation).get()->getNumResults();
      },
      [](PyOpResultList &self, size_t i) {
        PyOperation &op = operationOf(self.operation);
        return PyValue::create(op.getContext(), op.get()->getResult(i));
      });
  results.def_property_readonly(
      "types",
      [](PyOpResultList &self) {
        PyOperation &op = operationOf(self.operation);
        py::list types;
        for (Type type : op.get()->getResultTypes())
          types.append(makeType(op.getContext(), type));
        return types;
      },
      "The result types.");
}

void populateAttributeMap(py::module_ &m) {
  py::class_<PyOpAttributeMap>(
      m, "OpAttributeMap",
      "The attributes of an operation, by name (inherent and discardable).")
      .def(
          "__len__",
          [](PyOpAttributeMap &self) {
            return operationOf(self.operation).get()->getAttrs().size();
          },
          "Number of attributes.")
      .def(
          "__contains__",
          [](PyOpAttributeMap &self, const std::string &name) {
            return static_cast<bool>(
                operationOf(self.operation).get()->getAttr(name));
          },
          py::arg("name"), "True if the op has attribute `name`.")
      .def(
          "__getitem__",
          [](PyOpAttributeMap &self, const std::string &name) {
            PyOperation &op = operationOf(self.operation);
            Attribute attribute = op.get()->getAttr(name);
            if (!attribute)
              throw py::key_error("attribute '" + name + "' not found");
            return makeAttribute(op.getContext(), attribute);
          },
          py::arg("name"), "The attribute `name`; KeyError if absent.")
      .def(
          "__getitem__",
          [](PyOpAttributeMap &self, intptr_t index) {
            PyOperation &op = operationOf(self.operation);
            ArrayRef<NamedAttribute> attrs = op.get()->getAttrs();
            const NamedAttribute &named =
                attrs[normalizeIndex(index, attrs.size())];
            return PyNamedAttribute{
                named.getName().str(),
                makeAttribute(op.getContext(), named.getValue())};
          },
          py::arg("index"), "The NamedAttribute at `index`.")
      .def(
          "__setitem__",
          [](PyOpAttributeMap &self, const std::string &name,
             PyAttribute &attribute) {
            PyOperation &op = operationOf(self.operation);
            Operation *owner = op.get();
            checkSameContext(op.getContext(), attribute.attribute.getContext(),
                             "an attribute");
            owner->setAttr(name, attribute.attribute);
          },
          py::arg("name"), py::arg("attr"), "Sets attribute `name`.")
      .def(
          "__delitem__",
          [](PyOpAttributeMap &self, const std::string &name) {
            Operation *op = operationOf(self.operation).get();
            if (!op->removeAttr(name))
              throw py::key_error("attribute '" + name + "' not found");
          },
          py::arg("name"), "Removes attribute `name`; KeyError if absent.")
      .def(
          "get",
          [](PyOpAttributeMap &self, const std::string &name,
             py::object defaultValue) -> py::object {
            PyOperation &op = operationOf(self.operation);
            Attribute attribute = op.get()->getAttr(name);
            if (!attribute)
              return defaultValue;
            return makeAttribute(op.getContext(), attribute);
          },
          py::arg("name"), py::arg("default") = py::none(),
          "The attribute `name`, or `default`.")
      .def(
          "keys",
          [](PyOpAttributeMap &self) {
            std::vector<std::string> names;
            for (NamedAttribute named :
                 operationOf(self.operation).get()->getAttrs())
              names.push_back(named.getName().str());
            return names;
          },
          "The attribute names.")
      .def(
          "values",
          [](PyOpAttributeMap &self) {
            PyOperation &op = operationOf(self.operation);
            py::list values;
            for (NamedAttribute named : op.get()->getAttrs())
              values.append(makeAttribute(op.getContext(), named.getValue()));
            return values;
          },
          "The attributes.")
      .def(
          "items",
          [](PyOpAttributeMap &self) {
            PyOperation &op = operationOf(self.operation);
            py::list items;
            for (NamedAttribute named : op.get()->getAttrs())
              items.append(py::make_tuple(
                  named.getName().str(),
                  makeAttribute(op.getContext(), named.getValue())));
            return items;
          },
          "(name, Attribute) pairs.")
      .def(
          "__iter__",
          [](PyOpAttributeMap &self) {
            PyOperation &op = operationOf(self.operation);
            py::list attrs;
            for (NamedAttribute named : op.get()->getAttrs())
              attrs.append(PyNamedAttribute{
                  named.getName().str(),
                  makeAttribute(op.getContext(), named.getValue())});
            return py::iter(attrs);
          },
          "Iterates over the NamedAttributes (as upstream).")
      .def(
          "__repr__",
          [](PyOpAttributeMap &self) {
            return "<mlir_tracking.ir.OpAttributeMap of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");
}

void populateInsertionPoint(py::module_ &m) {
  py::class_<PyInsertionPoint>(
      m, "InsertionPoint",
      "Where new operations go: before an operation or at the end of a "
      "block. A context manager, like upstream.")
      .def(py::init([](py::object blockOrOp) {
             if (py::isinstance<PyBlock>(blockOrOp)) {
               blockOrOp.cast<PyBlock &>().get();
               return PyInsertionPoint{blockOrOp, py::none()};
             }
             PyOperation &op = castToOperation(blockOrOp);
             Operation *ref = op.get();
             if (!ref->getBlock())
               throw py::value_error("reference operation is detached");
             return PyInsertionPoint{
                 PyBlock::create(op.getContext(), ref->getBlock()),
                 PyOperation::forOperation(op.getContext(), ref)};
           }),
           py::arg("block"),
           "InsertionPoint(block): at the end of `block`; "
           "InsertionPoint(op): before `op`.")
      .def_static(
          "at_block_begin",
          [](py::object block) {
            auto &b = block.cast<PyBlock &>();
            Block *target = b.get();
            if (target->empty())
              return PyInsertionPoint{block, py::none()};
            return PyInsertionPoint{
                block,
                PyOperation::forOperation(b.getContext(), &target->front())};
          },
          py::arg("block"), "Before the first operation of `block`.")
      .def_static(
          "at_block_terminator",
          [](py::object block) {
            auto &b = block.cast<PyBlock &>();
            Block *target = b.get();
            if (target->empty() ||
                !target->back().hasTrait<OpTrait::IsTerminator>())
              throw py::value_error("block has no terminator");
            return PyInsertionPoint{
                block,
                PyOperation::forOperation(b.getContext(), &target->back())};
          },
          py::arg("block"), "Before the terminator of `block`.")
      .def_static(
          "before",
          [](PyOperation &op) {
            Operation *ref = op.get();
            if (!ref->getBlock())
              throw py::value_error("reference operation is detached");
            return PyInsertionPoint{
                PyBlock::create(op.getContext(), ref->getBlock()),
                PyOperation::forOperation(op.getContext(), ref)};
          },
          py::arg("operation"), "Before `operation`.")
      .def_static(
          "after",
          [](PyOperation &op) {
            Operation *ref = op.get();
            Block *block = ref->getBlock();
            if (!block)
              throw py::value_error("reference operation is detached");
            py::object blockObject = PyBlock::create(op.getContext(), block);
            Operation *next = ref->getNextNode();
            return PyInsertionPoint{
                blockObject,
                next ? PyOperation::forOperation(op.getContext(), next)
                     : py::object(py::none())};
          },
          py::arg("operation"), "After `operation`.")
      .def_property_readonly_static(
          "current", [](py::object) { return getCurrentInsertionPoint(); },
          "The current insertion point, or None.")
      .def(
          "insert",
          [](PyInsertionPoint &self, PyOperation &operation) {
            self.insert(operation);
          },
          py::arg("operation"), "Inserts the detached `operation` here.")
      .def_property_readonly(
          "block", [](PyInsertionPoint &self) { return self.block; },
          "The block of the insertion point.")
      .def_property_readonly(
          "ref_operation",
          [](PyInsertionPoint &self) { return self.refOperation; },
          "The operation new ones go before, or None (end of block).")
      .def(
          "__enter__",
          [](py::object self) {
            auto &ip = self.cast<PyInsertionPoint &>();
            pushFrame(FrameKind::InsertionPoint, self,
                      operationOf(ip.block.cast<PyBlock &>().operation)
                          .getContextObject());
            return self;
          },
          "Makes this the current insertion point.")
      .def(
          "__exit__",
          [](py::object self, py::object, py::object, py::object) {
            popFrame(FrameKind::InsertionPoint, self);
          },
          py::arg("exc_type"), py::arg("exc_value"), py::arg("traceback"),
          "Restores the previous insertion point.")
      .def(
          "__repr__",
          [](PyInsertionPoint &self) {
            if (self.refOperation.is_none())
              return "<mlir_tracking.ir.InsertionPoint at end of " +
                     py::repr(self.block).cast<std::string>() + ">";
            return "<mlir_tracking.ir.InsertionPoint before " +
                   py::repr(self.refOperation).cast<std::string>() + ">";
          },
          "A short description.");
}
} // namespace

void mlir::tracking::python::populateIRStructure(py::module_ &m) {
  populateRegionsAndBlocks(m);
  populateValues(m);
  populateAttributeMap(m);
  populateInsertionPoint(m);
}
