//===- IRStructure.cpp - Regions, blocks, values, insertion points --------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "IRObjects.h"
#include "Mutation.h"

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
  PyOperation &op = operationOf(operation);
  Operation *owner = op.get();
  // The op is live, but a rewrite may have erased or merged the block:
  // only hand it out if the op still has it.
  for (Region &region : owner->getRegions())
    for (Block &candidate : region)
      if (&candidate == block)
        return block;
  raiseGone(op, "a block");
}

py::object PyBlock::create(PyMlirContext &context, Block *block) {
  Operation *parent = block->getParentOp();
  if (!parent)
    throw py::value_error("block is not in an operation");
  return py::cast(PyBlock{PyOperation::forOperation(context, parent), block});
}

PyMlirContext &PyValue::getContext() const {
  if (isResult)
    return operationOf(parent).getContext();
  return operationOf(parent.cast<PyBlock &>().operation).getContext();
}

Value PyValue::get() const {
  if (isResult) {
    PyOperation &op = operationOf(parent);
    Operation *owner = op.get();
    if (index >= owner->getNumResults())
      raiseGone(op, "result #" + std::to_string(index));
    return owner->getResult(index);
  }
  auto &block = parent.cast<PyBlock &>();
  Block *owner = block.get();
  if (index >= owner->getNumArguments())
    raiseGone(operationOf(block.operation),
              "block argument #" + std::to_string(index));
  return owner->getArgument(index);
}

py::object PyValue::create(PyMlirContext &context, Value value) {
  if (auto result = dyn_cast<OpResult>(value))
    return py::cast(
        PyOpResult{{PyOperation::forOperation(context, result.getOwner()),
                    result.getResultNumber(), true}});
  auto argument = cast<BlockArgument>(value);
  return py::cast(
      PyBlockArgument{{PyBlock::create(context, argument.getOwner()),
                       argument.getArgNumber(), false}});
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
            return self.operation;
          },
          "The operation that has the region.")
      .def(
          "__eq__",
          [](PyRegion &self, py::object other) {
            return py::isinstance<PyRegion>(other) &&
                   other.cast<PyRegion &>().get() == self.get();
          },
          py::arg("other"), "Same region of the same op.")
      .def(
          "__hash__",
          [](PyRegion &self) { return std::hash<void *>()(self.get()); },
          "Consistent with ==.")
      .def(
          "__repr__",
          [](PyRegion &self) {
            return "<mlir_tracking.ir.Region #" + std::to_string(self.index) +
                   " of " + py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyBlockList>(m, "BlockList", "The blocks of a region.")
      .def(
          "__len__",
          [](PyBlockList &self) {
            return self.region.cast<PyRegion &>().get()->getBlocks().size();
          },
          "Number of blocks.")
      .def(
          "__getitem__",
          [](PyBlockList &self, intptr_t index) {
            auto &region = self.region.cast<PyRegion &>();
            Region *r = region.get();
            size_t i = normalizeIndex(index, r->getBlocks().size());
            return PyBlock{region.operation, &*std::next(r->begin(), i)};
          },
          py::arg("index"), "The block at `index`.")
      .def(
          "__iter__",
          [](PyBlockList &self) {
            auto &region = self.region.cast<PyRegion &>();
            py::list blocks;
            for (Block &block : *region.get())
              blocks.append(PyBlock{region.operation, &block});
            return py::iter(blocks);
          },
          "Iterates over the blocks (a snapshot).")
      .def(
          "append",
          [](PyBlockList &self, py::args argTypes, py::object argLocs) {
            auto &region = self.region.cast<PyRegion &>();
            Region *r = region.get();
            PyMlirContext &ctx = operationOf(region.operation).getContext();
            auto *block = new Block();
            size_t i = 0;
            for (py::handle type : argTypes) {
              Location loc = argLocs.is_none()
                                 ? resolveLocation(py::none(), ctx)
                                 : argLocs.cast<py::list>()[i]
                                       .cast<PyLocation &>()
                                       .location;
              block->addArgument(type.cast<PyType &>().type, loc);
              ++i;
            }
            r->push_back(block);
            return PyBlock{region.operation, block};
          },
          py::arg("arg_locs") = py::none(),
          "Appends a new block with arguments of the given types.")
      .def(
          "__repr__",
          [](PyBlockList &self) {
            return "<mlir_tracking.ir.BlockList of " +
                   py::repr(self.region).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyRegionSequence>(m, "RegionSequence",
                               "The regions of an operation.")
      .def(
          "__len__",
          [](PyRegionSequence &self) {
            return operationOf(self.operation).get()->getNumRegions();
          },
          "Number of regions.")
      .def(
          "__getitem__",
          [](PyRegionSequence &self, intptr_t index) {
            Operation *op = operationOf(self.operation).get();
            return PyRegion{self.operation,
                            static_cast<unsigned>(
                                normalizeIndex(index, op->getNumRegions()))};
          },
          py::arg("index"), "The region at `index`.")
      .def(
          "__iter__",
          [](PyRegionSequence &self) {
            Operation *op = operationOf(self.operation).get();
            py::list regions;
            for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
              regions.append(PyRegion{self.operation, i});
            return py::iter(regions);
          },
          "Iterates over the regions.")
      .def(
          "__repr__",
          [](PyRegionSequence &self) {
            return "<mlir_tracking.ir.RegionSequence of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

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
          [](PyBlock &self) {
            self.get();
            return self.operation;
          },
          "The operation whose region contains the block.")
      .def_property_readonly(
          "region",
          [](PyBlock &self) {
            Block *block = self.get();
            return PyRegion{self.operation,
                            block->getParent()->getRegionNumber()};
          },
          "The region containing the block.")
      .def(
          "add_argument",
          [](PyBlock &self, PyType &type, PyLocation &loc) {
            Block *block = self.get();
            BlockArgument argument =
                block->addArgument(type.type, loc.location);
            return PyValue::create(operationOf(self.operation).getContext(),
                                   argument);
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
            auto *block = new Block();
            for (size_t i = 0; i < argTypes.size(); ++i) {
              Location loc = argLocs.is_none()
                                 ? resolveLocation(py::none(), ctx)
                                 : argLocs.cast<py::list>()[i]
                                       .cast<PyLocation &>()
                                       .location;
              block->addArgument(argTypes[i].cast<PyType &>().type, loc);
            }
            region->push_front(block);
            return PyBlock{parent.operation, block};
          },
          py::arg("parent"), py::arg("arg_types") = py::list(),
          py::arg("arg_locs") = py::none(),
          "Creates a block at the start of `parent`.")
      .def(
          "__eq__",
          [](PyBlock &self, py::object other) {
            return py::isinstance<PyBlock>(other) &&
                   other.cast<PyBlock &>().get() == self.get();
          },
          py::arg("other"), "Same block.")
      .def(
          "__hash__",
          [](PyBlock &self) { return std::hash<void *>()(self.get()); },
          "Consistent with ==.")
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

  py::class_<PyOperationList>(m, "OperationList", "The operations of a block.")
      .def(
          "__len__",
          [](PyOperationList &self) {
            return self.block.cast<PyBlock &>().get()->getOperations().size();
          },
          "Number of operations.")
      .def(
          "__getitem__",
          [](PyOperationList &self, intptr_t index) {
            auto &block = self.block.cast<PyBlock &>();
            Block *b = block.get();
            size_t i = normalizeIndex(index, b->getOperations().size());
            return PyOperation::forOperation(
                operationOf(block.operation).getContext(),
                &*std::next(b->begin(), i));
          },
          py::arg("index"), "The operation at `index`.")
      .def(
          "__iter__",
          [](PyOperationList &self) {
            auto &block = self.block.cast<PyBlock &>();
            PyMlirContext &ctx = operationOf(block.operation).getContext();
            py::list ops;
            for (Operation &op : *block.get())
              ops.append(PyOperation::forOperation(ctx, &op));
            return py::iter(ops);
          },
          "Iterates over the operations (a snapshot of handles).")
      .def(
          "__repr__",
          [](PyOperationList &self) {
            return "<mlir_tracking.ir.OperationList of " +
                   py::repr(self.block).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyBlockArgumentList>(m, "BlockArgumentList",
                                  "The arguments of a block.")
      .def(
          "__len__",
          [](PyBlockArgumentList &self) {
            return self.block.cast<PyBlock &>().get()->getNumArguments();
          },
          "Number of arguments.")
      .def(
          "__getitem__",
          [](PyBlockArgumentList &self, intptr_t index) {
            Block *b = self.block.cast<PyBlock &>().get();
            return PyBlockArgument{{self.block,
                                    static_cast<unsigned>(normalizeIndex(
                                        index, b->getNumArguments())),
                                    false}};
          },
          py::arg("index"), "The argument at `index`.")
      .def(
          "__iter__",
          [](PyBlockArgumentList &self) {
            Block *b = self.block.cast<PyBlock &>().get();
            py::list arguments;
            for (unsigned i = 0, e = b->getNumArguments(); i < e; ++i)
              arguments.append(PyBlockArgument{{self.block, i, false}});
            return py::iter(arguments);
          },
          "Iterates over the arguments.")
      .def_property_readonly(
          "types",
          [](PyBlockArgumentList &self) {
            auto &block = self.block.cast<PyBlock &>();
            PyMlirContext &ctx = operationOf(block.operation).getContext();
            py::list types;
            for (BlockArgument argument : block.get()->getArguments())
              types.append(makeType(ctx, argument.getType()));
            return types;
          },
          "The argument types.")
      .def(
          "__repr__",
          [](PyBlockArgumentList &self) {
            return "<mlir_tracking.ir.BlockArgumentList of " +
                   py::repr(self.block).cast<std::string>() + ">";
          },
          "A short description.");
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
          [](PyValue &self) {
            self.get();
            return self.parent;
          },
          "The defining Operation (for a result) or Block (for an "
          "argument).")
      .def_property_readonly(
          "context",
          [](PyValue &self) { return self.getContext().getObject(); },
          "The context of the value.")
      .def_property_readonly(
          "uses",
          [](PyValue &self) {
            Value value = self.get();
            PyMlirContext &ctx = self.getContext();
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
                   other.cast<PyValue &>().get() == self.get();
          },
          py::arg("other"), "Same SSA value.")
      .def(
          "__hash__",
          [](PyValue &self) {
            return std::hash<void *>()(self.get().getAsOpaquePointer());
          },
          "Consistent with ==.")
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
            }
          },
          "Like str(); never raises.");

  py::class_<PyOpResult, PyValue>(m, "OpResult", "A result of an operation.")
      .def_property_readonly(
          "result_number",
          [](PyOpResult &self) {
            self.get();
            return self.index;
          },
          "The index of the result.");

  py::class_<PyBlockArgument, PyValue>(m, "BlockArgument",
                                       "An argument of a block.")
      .def_property_readonly(
          "arg_number",
          [](PyBlockArgument &self) {
            self.get();
            return self.index;
          },
          "The index of the argument.");

  py::class_<PyOpOperand>(m, "OpOperand", "A use of a value.")
      .def_property_readonly(
          "owner",
          [](PyOpOperand &self) {
            operationOf(self.operation).get();
            return self.operation;
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

  py::class_<PyOpOperandList>(m, "OpOperandList",
                              "The operands of an operation.")
      .def(
          "__len__",
          [](PyOpOperandList &self) {
            return operationOf(self.operation).get()->getNumOperands();
          },
          "Number of operands.")
      .def(
          "__getitem__",
          [](PyOpOperandList &self, intptr_t index) {
            PyOperation &op = operationOf(self.operation);
            Operation *owner = op.get();
            return PyValue::create(op.getContext(),
                                   owner->getOperand(normalizeIndex(
                                       index, owner->getNumOperands())));
          },
          py::arg("index"), "The value used as operand `index`.")
      .def(
          "__setitem__",
          [](PyOpOperandList &self, intptr_t index, PyValue &value) {
            PyOperation &op = operationOf(self.operation);
            Operation *owner = op.get();
            setOperand(op.getContext(), owner,
                       normalizeIndex(index, owner->getNumOperands()),
                       value.get());
          },
          py::arg("index"), py::arg("value"), "Sets operand `index`.")
      .def(
          "__iter__",
          [](PyOpOperandList &self) {
            PyOperation &op = operationOf(self.operation);
            py::list values;
            for (Value value : op.get()->getOperands())
              values.append(PyValue::create(op.getContext(), value));
            return py::iter(values);
          },
          "Iterates over the operand values.")
      .def(
          "__repr__",
          [](PyOpOperandList &self) {
            return "<mlir_tracking.ir.OpOperandList of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");

  py::class_<PyOpResultList>(m, "OpResultList", "The results of an operation.")
      .def(
          "__len__",
          [](PyOpResultList &self) {
            return operationOf(self.operation).get()->getNumResults();
          },
          "Number of results.")
      .def(
          "__getitem__",
          [](PyOpResultList &self, intptr_t index) {
            Operation *owner = operationOf(self.operation).get();
            return PyOpResult{{self.operation,
                               static_cast<unsigned>(normalizeIndex(
                                   index, owner->getNumResults())),
                               true}};
          },
          py::arg("index"), "The result at `index`.")
      .def(
          "__iter__",
          [](PyOpResultList &self) {
            Operation *owner = operationOf(self.operation).get();
            py::list results;
            for (unsigned i = 0, e = owner->getNumResults(); i < e; ++i)
              results.append(PyOpResult{{self.operation, i, true}});
            return py::iter(results);
          },
          "Iterates over the results.")
      .def_property_readonly(
          "types",
          [](PyOpResultList &self) {
            PyOperation &op = operationOf(self.operation);
            py::list types;
            for (Type type : op.get()->getResultTypes())
              types.append(makeType(op.getContext(), type));
            return types;
          },
          "The result types.")
      .def(
          "__repr__",
          [](PyOpResultList &self) {
            return "<mlir_tracking.ir.OpResultList of " +
                   py::repr(self.operation).cast<std::string>() + ">";
          },
          "A short description.");
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
            operationOf(self.operation)
                .get()
                ->setAttr(name, attribute.attribute);
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
                PyOperation::forOperation(operationOf(b.operation).getContext(),
                                          &target->front())};
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
                PyOperation::forOperation(operationOf(b.operation).getContext(),
                                          &target->back())};
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
