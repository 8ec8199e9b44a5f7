//===- IRStructure.cpp - Regions, blocks, values, insertion points --------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
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

/// Undoes the removal of the inherent attribute `name` (was `old`) of
/// `op` and raises if the op requires it: it verified before and does not
/// now, or its verifier says it requires `name`.
static void refuseRemovingRequiredAttribute(Operation *op,
                                            const std::string &name,
                                            Attribute old, bool validBefore) {
  if (op->getAttr(name))
    return;
  DiagnosticCapture capture(op->getContext());
  if (succeeded(verifyOpInvariants(op)))
    return;
  std::vector<DiagnosticRecord> errors = capture.take();
  std::string required = "requires attribute '" + name + "'";
  bool says = llvm::any_of(errors, [&](const DiagnosticRecord &error) {
    return error.message.find(required) != std::string::npos;
  });
  if (!validBefore && !says)
    return;
  op->setAttr(name, old);
  throw py::value_error(
      "cannot remove the inherent attribute '" + name + "' of '" +
      op->getName().getStringRef().str() + "'" +
      (errors.empty() ? std::string() : ": " + errors.front().message));
}

//===----------------------------------------------------------------------===//
// Checked access
//===----------------------------------------------------------------------===//

namespace {
PyOperation &operationOf(const py::object &object) {
  return object.cast<PyOperation &>();
}

/// `owner`: the op the handle refers to now (live), which lacks `what`.
[[noreturn]] void raiseGone(Operation *owner, const std::string &what) {
  throw InvalidatedHandleException(
      what + " of '" + owner->getName().getStringRef().str() +
      "' no longer exists: the op the handle refers to now has " +
      std::to_string(owner->getNumRegions()) + " region(s)");
}

/// Python-style index into a sequence of `size`; IndexError(`message`) when
/// out of range.
size_t normalizeIndex(intptr_t index, size_t size,
                      const char *message = "index out of range") {
  if (index < 0)
    index += static_cast<intptr_t>(size);
  if (index < 0 || static_cast<size_t>(index) >= size)
    throw py::index_error(message);
  return static_cast<size_t>(index);
}

/// `ir.RegionIterator`, `ir.BlockIterator`, `ir.OperationIterator`,
/// `ir.OpOperandIterator`: what `iter()` of the regions of an op, of the
/// blocks of a region and of the operations of a block, and `Value.uses`,
/// return (upstream's class names). Each walks a
/// snapshot taken when it was made, so changing the IR while iterating
/// (erasing the current op, appending) never skips, repeats or reads a freed
/// element: an element erased since reads as an invalidated handle.
struct PySnapshotIterator {
  py::list elements;
  size_t next = 0;
};
struct PyRegionIterator : PySnapshotIterator {};
struct PyBlockIterator : PySnapshotIterator {};
struct PyOperationIterator : PySnapshotIterator {};
struct PyOpOperandIterator : PySnapshotIterator {};

template <typename IteratorT>
void defineSnapshotIterator(py::module_ &m, const char *name, const char *doc) {
  py::class_<IteratorT>(m, name, doc)
      .def(
          "__iter__", [](py::object self) { return self; },
          "The iterator itself.")
      .def(
          "__next__",
          [](IteratorT &self) -> py::object {
            if (self.next >= self.elements.size())
              throw py::stop_iteration();
            return self.elements[self.next++];
          },
          "The next element of the snapshot; StopIteration at its end.");
}

/// Lists with a `slice` member (SliceSpec) are sliceable views.
template <typename ListT, typename = void>
struct IsSliceable : std::false_type {};
template <typename ListT>
struct IsSliceable<ListT, std::void_t<decltype(std::declval<ListT>().slice)>>
    : std::true_type {};

/// Defines the sequence protocol of a list class: `__len__`, `__getitem__`
/// (Python-style negative indices), `__iter__` over a snapshot and
/// `__repr__` ("<mlir_tracking.ir.Name of <owner>>"). `size` and `item`
/// access the IR through the owner, so they raise on a stale handle.
/// `snapshot` lists every element at once, for lists whose `item` is not
/// constant-time. A slice of a sliceable list (IsSliceable) is a view of the
/// same class, as upstream (`results[1:].types`); `+` concatenates into a
/// list. Slices of the other lists are lists.
/// `IteratorT` (a PySnapshotIterator) is the class `__iter__` returns; void
/// for a plain list iterator.
template <typename IteratorT = void, typename ListT, typename SizeFn,
          typename ItemFn, typename SnapshotFn>
py::class_<ListT> &defineSequence(py::class_<ListT> &cls, const char *name,
                                  py::object ListT::*owner, const char *what,
                                  SizeFn wholeSize, ItemFn wholeItem,
                                  SnapshotFn wholeSnapshot) {
  constexpr bool sliceable = IsSliceable<ListT>::value;
  // Size and element of the view (the whole list unless sliced).
  auto size = [wholeSize](ListT &self) -> size_t {
    if constexpr (sliceable)
      if (self.slice.length >= 0)
        return static_cast<size_t>(self.slice.length);
    return wholeSize(self);
  };
  auto item = [wholeSize, wholeItem](ListT &self, size_t i) {
    if constexpr (sliceable) {
      intptr_t whole =
          self.slice.start + static_cast<intptr_t>(i) * self.slice.step;
      // The op changed since the slice was taken.
      if (whole < 0 || static_cast<size_t>(whole) >= wholeSize(self))
        throw py::index_error("index out of range (the list is shorter "
                              "than when it was sliced)");
      return wholeItem(self, static_cast<size_t>(whole));
    }
    return wholeItem(self, i);
  };
  auto snapshot = [size, item, wholeSnapshot](ListT &self) -> py::list {
    if constexpr (sliceable) {
      py::list elements;
      for (size_t i = 0, e = size(self); i < e; ++i)
        elements.append(item(self, i));
      return elements;
    }
    return wholeSnapshot(self);
  };
  std::string noun = what;
  // Upstream's messages: its sliceable lists say "index out of range", the
  // others "attempt to access out of bounds block".
  std::string outOfBounds = sliceable
                                ? "index out of range"
                                : "attempt to access out of bounds " + noun;
  cls.def(
         "__len__", [size](ListT &self) { return size(self); },
         ("Number of " + noun + "s.").c_str())
      .def(
          "__getitem__",
          [size, item, outOfBounds](ListT &self, intptr_t index) {
            return item(self,
                        normalizeIndex(index, size(self), outOfBounds.c_str()));
          },
          py::arg("index"), ("The " + noun + " at `index`.").c_str())
      .def(
          "__getitem__",
          [size, snapshot](ListT &self, const py::slice &slice) -> py::object {
            if constexpr (sliceable) {
              size_t start, stop, step, length;
              if (!slice.compute(size(self), &start, &stop, &step, &length))
                throw py::error_already_set();
              ListT view = self;
              auto sStart = static_cast<intptr_t>(start);
              auto sStep = static_cast<intptr_t>(step);
              view.slice.start = self.slice.start + sStart * self.slice.step;
              view.slice.step = self.slice.step * sStep;
              view.slice.length = static_cast<intptr_t>(length);
              return py::cast(std::move(view));
            }
            return py::list(snapshot(self).attr("__getitem__")(slice));
          },
          py::arg("index"),
          (sliceable ? "A view of the " + noun + "s in the slice."
                     : "A list of the " + noun + "s in the slice.")
              .c_str())
      .def(
          "__iter__",
          [snapshot](ListT &self) -> py::object {
            if constexpr (std::is_void_v<IteratorT>) {
              return py::iter(snapshot(self));
            } else {
              IteratorT iterator;
              iterator.elements = snapshot(self);
              return py::cast(std::move(iterator));
            }
          },
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
  if constexpr (sliceable)
    cls.def(
        "__add__",
        [snapshot](ListT &self, const py::object &other) {
          py::list elements = snapshot(self);
          for (py::handle element : other)
            elements.append(element);
          return elements;
        },
        py::arg("other"),
        ("A list of these " + noun + "s followed by those of `other`.")
            .c_str());
  return cls;
}

/// As above, iterating by index.
template <typename IteratorT = void, typename ListT, typename SizeFn,
          typename ItemFn>
py::class_<ListT> &defineSequence(py::class_<ListT> &cls, const char *name,
                                  py::object ListT::*owner, const char *what,
                                  SizeFn size, ItemFn item) {
  return defineSequence<IteratorT>(cls, name, owner, what, size, item,
                                   [size, item](ListT &self) {
                                     py::list elements;
                                     // The size again each time: making an
                                     // element may run Python code (a gc
                                     // callback) that shortens the list.
                                     for (size_t i = 0; i < size(self); ++i)
                                       elements.append(item(self, i));
                                     return elements;
                                   });
}

/// Notes a change Python makes to the block of `block` (after `get()`, its
/// op is in the block's tree): the next run on that tree verifies first.
void noteChanged(const PyBlock &block) {
  checkChangeAllowed(nullptr, "change a block");
  block.getContext().noteChanged(operationOf(block.operation));
}

/// The block as Block::print prints it, numbered from its top-level op (or
/// from its parent op with `localScope`: in a nested Python pass), with the
/// printer's verification guarded (guardAsmStateFlags).
std::string printBlock(Block &block, bool localScope) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Operation *parent = block.getParentOp();
  if (!parent) {
    block.print(os);
    return text;
  }
  Operation *root = localScope ? parent : getRootOf(parent);
  OpPrintingFlags flags;
  if (localScope)
    flags.useLocalScope();
  AsmState state(root, guardAsmStateFlags(root, flags));
  block.print(os, state);
  return text;
}

/// The value as Value::print prints it (its defining op, for a result,
/// in a local scope with `localScope`), with the printer's verification
/// guarded.
std::string printValue(Value value, bool localScope) {
  OpPrintingFlags flags;
  if (localScope)
    flags.useLocalScope();
  if (Operation *definer = value.getDefiningOp())
    flags = guardPrintingFlags(definer, flags);
  std::string text;
  llvm::raw_string_ostream os(text);
  value.print(os, flags);
  return text;
}

/// `Value.get_name(use_local_scope, use_name_loc_as_prefix)`: what
/// Value::printAsOperand(os, flags) prints, numbered from the op it numbers
/// from (findPrintingScope of the value's op), with the printer's
/// verification guarded; without the GIL while the thread pool may wait on
/// it.
std::string getName(PyValue &self, bool useLocalScope,
                    bool useNameLocAsPrefix) {
  Value value = self.get();
  Operation *op = value.getDefiningOp();
  if (!op)
    op = cast<BlockArgument>(value).getOwner()->getParentOp();
  // As upstream for an argument of a block in no op.
  if (!op)
    return "<<UNKNOWN SSA VALUE>>";
  OpPrintingFlags flags;
  // In a nested Python pass only the pass's op may be read.
  PyOperation &anchor = castToOperation(self.keepAlive);
  if (useLocalScope || isLimitedToPassScope(*anchor.getResolvedOwner()))
    flags.useLocalScope();
  if (useNameLocAsPrefix)
    flags.printNameLocAsPrefix();
  Operation *scope = findPrintingScope(op, flags.shouldUseLocalScope());
  std::string text;
  readWithoutGILIfPoolWaits(anchor, "printing", [&] {
    text = printValueAsOperand(value, scope, flags);
  });
  return text;
}

/// `printValue` for Python's str(value) and value.dump(): in a nested
/// pass's scope, without the GIL while the thread pool may wait on it.
std::string printForPython(PyValue &self) {
  Value value = self.get();
  PyOperation &anchor = castToOperation(self.keepAlive);
  bool local = isLimitedToPassScope(*anchor.getResolvedOwner());
  std::string text;
  readWithoutGILIfPoolWaits(anchor, "printing",
                            [&] { text = printValue(value, local); });
  return text;
}
} // namespace

namespace {
/// Raises if `capsule` was made by this package (`TrackedCapsuleToken`) for
/// a value that is gone, or no longer at `pointer`.
void checkValueCapsule(const py::object &capsule, void *pointer) {
  const auto *token =
      TrackedCapsuleToken<ValueHandle>::lookup(capsule, "Value._CAPICreate");
  if (!token)
    return;
  if (!token->handle.isLive())
    throw InvalidatedHandleException(
        "Value._CAPICreate: the capsule's value is gone: " +
        token->handle.describe());
  if (token->handle.get().getAsOpaquePointer() != pointer)
    throw InvalidatedHandleException(
        "Value._CAPICreate: the capsule's value was replaced since the "
        "capsule was made; take a new one from the replacement's _CAPIPtr");
}
} // namespace

namespace {
/// `Value.replace_all_uses_except`: MLIR's replaceAllUsesExcept on the
/// checked paths of Mutation.h. With no use excepted it is
/// replaceAllUsesWith; otherwise each other use is set as an operand
/// (setOperand, the checks of an operand assignment: contexts, IR in use,
/// patterns, conversions), and if one is refused the uses already set are
/// set back before the error propagates.
void replaceAllUsesExcept(PyValue &self, PyValue &with,
                          const py::object &exceptions) {
  // Python code first (iterating a sequence may run any): the raw IR is
  // read only once every object is at hand.
  py::list items;
  if (isInstance<PyOperation>(exceptions) || isInstance<PyModule>(exceptions) ||
      unwrapOpView(exceptions))
    items.append(exceptions);
  else if (py::isinstance<py::sequence>(exceptions) &&
           !py::isinstance<py::str>(exceptions))
    items = copyToList(exceptions);
  else
    throw py::type_error(
        "exceptions must be an Operation or a list of "
        "Operations, got " +
        py::repr(py::type::of(exceptions)).cast<std::string>());
  PyMlirContext &context = self.getContext();
  llvm::SmallVector<PyOperation *, 4> excepted;
  for (py::handle item : items) {
    PyOperation &op = castToOperation(item);
    checkSameContext(context, op.getContext().get(), "an excepted operation");
    excepted.push_back(&op);
  }
  Value from = self.get();
  Value to = with.get();
  llvm::SmallPtrSet<Operation *, 4> skipped;
  for (PyOperation *op : excepted)
    skipped.insert(op->get());
  SmallVector<std::pair<Operation *, unsigned>> uses;
  bool exceptsAny = false;
  for (OpOperand &use : from.getUses()) {
    if (skipped.contains(use.getOwner()))
      exceptsAny = true;
    else
      uses.push_back({use.getOwner(), use.getOperandNumber()});
  }
  if (!exceptsAny) {
    replaceAllUsesWith(context, from, to);
    return;
  }
  checkSameContext(context, to.getContext(), "a replacement value");
  size_t done = 0;
  try {
    for (auto [user, index] : uses) {
      setOperand(context, user, index, to);
      ++done;
    }
  } catch (...) {
    while (done > 0) {
      --done;
      try {
        setOperand(context, uses[done].first, uses[done].second, from);
      } catch (...) {
        // Setting back what was there passes the checks it passed.
      }
    }
    throw;
  }
}
} // namespace

Region *PyRegion::get() const {
  PyOperation &op = operationOf(operation);
  Operation *owner = op.get();
  if (index >= owner->getNumRegions())
    raiseGone(owner, "region #" + std::to_string(index));
  return &owner->getRegion(index);
}

namespace {
/// Points `anchor` (the op a Block or Value object keeps, see IRObjects.h)
/// at `parent`, the op its block or value is in now (none: keep it), after
/// the epoch of the anchor's tree changed (RootOwner::epoch). Reading where
/// the block or value is needs every tree of the context to be readable:
/// while a run in another thread holds some tree, it may be in that one, so
/// the object is refused until the run returns.
void reanchor(py::object &anchor, uint64_t &epoch,
              llvm::function_ref<Operation *()> findParent, const char *what) {
  PyOperation &anchorOp = castToOperation(anchor);
  PyMlirContext &context = anchorOp.getContext();
  if (!mayReadAnyTree(context))
    throw IRInUseException(
        "cannot use this block or value now: its IR moved between trees "
        "since it was last used, and it may be in the IR a pass pipeline "
        "runs on in context #" +
        std::to_string(context.getId()) +
        " (PassManager.run in another thread); use it again after the run "
        "returns");
  // In a nested Python pass: a block or value reached through an op under
  // the pass's op is there too, or in a tree this thread moved it to (the
  // ops under an op isolated from above use only its own values and blocks).
  checkPassScope(*anchorOp.getResolvedOwner(), anchorOp.getHandle(), what);
  if (Operation *parent = findParent())
    if (parent != castToOperation(anchor).getIfLive()) {
      py::object current = PyOperation::forOperation(context, parent);
      // Dropping the old anchor may destroy its tree, which the block or
      // value is no longer in.
      std::swap(anchor, current);
    }
  std::shared_ptr<RootOwner> owner = castToOperation(anchor).getResolvedOwner();
  checkIRAccess(*owner);
  checkPassScope(*owner, castToOperation(anchor).getHandle(), what);
  epoch = owner->epoch;
}
} // namespace

Block *PyBlock::get() const {
  // The run guard, on the tree of `operation` (an op of the block's tree).
  std::shared_ptr<RootOwner> owner = operationOf(operation).getResolvedOwner();
  checkIRAccess(*owner);
  if (anchorEpoch != owner->epoch)
    reanchor(
        operation, anchorEpoch,
        [&]() -> Operation * {
          Block *block = handle.get();
          return block ? block->getParentOp() : nullptr;
        },
        "block");
  else
    checkPassScope(*owner, operationOf(operation).getHandle(), "block");
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
  PyOperation &parent = operationOf(operation);
  BlockHandle handle = parent.getContext().getUnits().getBlockHandle(block);
  uint64_t epoch = parent.getResolvedOwner()->epoch;
  return PyBlock{std::move(operation), std::move(handle), epoch};
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
  // The run guard, on the tree of `keepAlive` (an op of the value's tree).
  std::shared_ptr<RootOwner> owner =
      castToOperation(keepAlive).getResolvedOwner();
  checkIRAccess(*owner);
  if (anchorEpoch != owner->epoch)
    reanchor(
        keepAlive, anchorEpoch,
        [&]() -> Operation * {
          Value value = handle.get();
          if (!value)
            return nullptr;
          if (auto result = dyn_cast<OpResult>(value))
            return result.getOwner();
          return cast<BlockArgument>(value).getOwner()->getParentOp();
        },
        "value");
  else
    checkPassScope(*owner, castToOperation(keepAlive).getHandle(), "value");
  Value value = handle.get();
  if (!value)
    throw InvalidatedHandleException(handle.describe());
  return value;
}

namespace {
/// The Python object of `block`, just added to the IR (reached through
/// `operation`). Inside a pattern, a new entry block must suit its op now
/// (else it is erased and MLIRError raised), and every new block is checked
/// for its terminator when the pattern returns.
py::object newBlock(const py::object &operation, Block *block) {
  PyMlirContext &context = operationOf(operation).getContext();
  checkNewEntryBlockInPattern(context, block);
  py::object object = py::cast(PyBlock::make(operation, block));
  checkNewBlockWhenPatternReturns(context, object);
  return object;
}

/// Type TypeID -> the caster `register_value_caster` registered for values
/// of that type. Leaked: it holds Python objects past interpreter teardown.
llvm::DenseMap<TypeID, py::object> &getValueCasters() {
  static auto *casters = new llvm::DenseMap<TypeID, py::object>();
  return *casters;
}

/// `value` (an ir.Value object) through the caster of its type, if any.
py::object castValue(py::object value, Type type) {
  auto &casters = getValueCasters();
  auto it = casters.find(type.getTypeID());
  if (it == casters.end())
    return value;
  return it->second(value);
}

/// The uncast Value object of `value`.
py::object createUncastValue(PyMlirContext &context, Value value) {
  ValueHandle handle = context.getUnits().getValueHandle(value);
  auto epochOf = [](const py::object &op) {
    return castToOperation(op).getResolvedOwner()->epoch;
  };
  if (auto result = dyn_cast<OpResult>(value)) {
    py::object owner = PyOperation::forOperation(context, result.getOwner());
    uint64_t epoch = epochOf(owner);
    return py::cast(PyOpResult{{std::move(owner), handle, epoch}});
  }
  Operation *parent = cast<BlockArgument>(value).getOwner()->getParentOp();
  if (!parent)
    throw py::value_error("block argument of a block that is not in an "
                          "operation");
  py::object owner = PyOperation::forOperation(context, parent);
  uint64_t epoch = epochOf(owner);
  return py::cast(
      PyBlockArgument{{std::move(owner), std::move(handle), epoch}});
}
} // namespace

py::object PyValue::create(PyMlirContext &context, Value value) {
  return castValue(createUncastValue(context, value), value.getType());
}

namespace {
/// The class name str() and repr() of `value` start with, as upstream's
/// (MLIR 22): "Value" for a plain `ir.Value` object, else the kind of the
/// value it tracks now (an OpResult object whose handle followed a
/// replacement onto a block argument prints as one), also for a caster's
/// subclass. `current` is what the object tracks.
const char *valueKindName(const py::handle &value, Value current) {
  if (!py::isinstance<PyOpResult>(value) &&
      !py::isinstance<PyBlockArgument>(value))
    return "Value";
  return isa<OpResult>(current) ? "OpResult" : "BlockArgument";
}
} // namespace

namespace {
/// A new detached block with arguments of `argTypes` at `argLocs` (None: the
/// current location, else unknown), as upstream's block constructors.
std::unique_ptr<Block> makeBlock(PyMlirContext &context, py::handle argTypes,
                                 const py::object &argLocs) {
  std::vector<Type> types;
  for (py::handle type : argTypes) {
    types.push_back(type.cast<PyType &>().type);
    checkSameContext(context, types.back().getContext(), "an argument type");
  }
  std::vector<Location> locations;
  if (!argLocs.is_none()) {
    for (py::handle loc : argLocs) {
      locations.push_back(loc.cast<PyLocation &>().location);
      checkSameContext(context, locations.back()->getContext(),
                       "an argument location");
    }
    if (locations.size() != types.size())
      throw py::value_error(
          "Expected " + std::to_string(types.size()) +
          " locations, got: " + std::to_string(locations.size()));
  }
  auto block = std::make_unique<Block>();
  for (size_t i = 0; i < types.size(); ++i)
    block->addArgument(types[i], locations.empty()
                                     ? resolveLocation(py::none(), context)
                                     : locations[i]);
  return block;
}

/// `Block.append_to`: moves `block` to the end of `region` through the
/// tracked rewriter (handles of the ops in it follow; block and value
/// handles refer to the block, not to a position). Only within one IR
/// tree: the Block and Value objects of the block hold the op they were
/// reached through, which keeps their IR alive and says which tree the run
/// guard checks, so a move to IR with another owner could free the block
/// under them or let another thread in.
void moveBlockToRegion(PyBlock &block, PyRegion &region) {
  Block *raw = block.get();
  Region *target = region.get();
  PyOperation &destinationOp = operationOf(region.operation);
  PyMlirContext &context = block.getContext();
  checkSameContext(context, destinationOp.getContext().get(), "a region");
  Operation *destination = target->getParentOp();
  Operation *source = raw->getParentOp();
  if (!source)
    throw py::value_error("the block is not in an operation");
  if (raw->getParent() == target && &target->back() == raw)
    return;
  for (Operation *op = destination; op; op = op->getParentOp())
    if (op->getBlock() == raw)
      throw py::value_error("cannot move a block into an operation nested "
                            "in it");
  if (getRootOf(source) != getRootOf(destination) ||
      destinationOp.getResolvedOwner() !=
          operationOf(block.operation).getResolvedOwner())
    throw py::value_error(
        "cannot move a block to an operation of another IR tree (its "
        "'" +
        getRootOf(destination)->getName().getStringRef().str() +
        "' root is not the block's '" +
        getRootOf(source)->getName().getStringRef().str() +
        "'): insert that op into this IR first, or move the block's "
        "operations instead");
  moveBlock(context, raw, target, target->end());
  // Objects of the block reached through `source` stay in its tree; they
  // find the block again if `source` leaves it (RootOwner::epoch).
}
} // namespace

void PyInsertionPoint::insert(PyOperation &operation) const {
  Operation *op = operation.get();
  if (op->getBlock())
    throw py::value_error(
        "attempt to insert an operation that is already attached; use "
        "move_before/move_after or detach_from_parent first");
  Block *target = block.cast<PyBlock &>().get();
  checkSameContext(block.cast<PyBlock &>().getContext(), op->getContext(),
                   "an operation");
  Block::iterator before = target->end();
  if (!refOperation.is_none()) {
    Operation *ref = operationOf(refOperation).get();
    if (ref->getBlock() != target)
      throw py::value_error("the insertion point's reference operation has "
                            "moved to another block");
    before = ref->getIterator();
  } else if (!target->empty() &&
             target->back().hasTrait<OpTrait::IsTerminator>()) {
    // Upstream's error: an op after a terminator breaks the block.
    throw py::index_error(
        "Cannot insert operation at the end of a block that already has a "
        "terminator. Did you mean to use "
        "'InsertionPoint.at_block_terminator(block)' versus "
        "'InsertionPoint(block)'?");
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
  defineSnapshotIterator<PyRegionIterator>(
      m, "RegionIterator",
      "Iterates over the regions of an operation (a snapshot).");
  defineSnapshotIterator<PyBlockIterator>(
      m, "BlockIterator", "Iterates over the blocks of a region (a snapshot).");
  defineSnapshotIterator<PyOperationIterator>(
      m, "OperationIterator",
      "Iterates over the operations of a block (a snapshot).");
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
            if (!isInstance<PyRegion>(other))
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
  defineSequence<PyBlockIterator>(
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
        // First: `arg_locs` may be a generator that changes the IR.
        std::unique_ptr<Block> block = makeBlock(
            operationOf(region.operation).getContext(), argTypes, argLocs);
        Region *r = region.get();
        checkNewBlockInPattern(operationOf(region.operation).getContext(), r);
        checkChangeAllowed(nullptr, "add a block");
        Block *raw = block.release();
        operationOf(region.operation)
            .getContext()
            .noteChanged(operationOf(region.operation));
        r->push_back(raw);
        return newBlock(region.operation, raw);
      },
      py::arg("arg_locs") = py::none(),
      "Appends a new block with arguments of the given types.");

  py::class_<PyRegionSequence> regions(m, "RegionSequence",
                                       "The regions of an operation.");
  defineSequence<PyRegionIterator>(
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
          "_op_order_is_valid",
          [](PyBlock &self) { return self.get()->isOpOrderValid(); },
          "Whether MLIR's numbering of the block's ops is current (a stale "
          "one is recomputed, for the whole block, at the next order query; "
          "for tests).")
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
            noteChanged(self);
            BlockArgument argument =
                block->addArgument(type.type, loc.location);
            checkBlockArgumentsInPattern(
                ctx, block, "adding a block argument",
                [&] { block->eraseArgument(argument.getArgNumber()); });
            return PyValue::create(self.getContext(), argument);
          },
          py::arg("type"), py::arg("loc"),
          "Appends an argument of `type` and returns it. In a greedy or "
          "walk pattern, MLIRError (and no change) if a branch to the "
          "block or the op of an entry block would no longer verify.")
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
            // First: `arg_locs` may be a generator that changes the IR.
            std::unique_ptr<Block> block = makeBlock(
                operationOf(parent.operation).getContext(), argTypes, argLocs);
            Region *region = parent.get();
            checkNewBlockInPattern(operationOf(parent.operation).getContext(),
                                   region);
            checkChangeAllowed(nullptr, "add a block");
            Block *raw = block.release();
            operationOf(parent.operation)
                .getContext()
                .noteChanged(operationOf(parent.operation));
            region->push_front(raw);
            return newBlock(parent.operation, raw);
          },
          py::arg("parent"), py::arg("arg_types") = py::list(),
          py::arg("arg_locs") = py::none(),
          "Creates a block at the start of `parent`.")
      .def(
          "create_before",
          [](PyBlock &self, py::args argTypes, py::object argLocs) {
            // First: `arg_locs` may be a generator that changes the IR.
            std::unique_ptr<Block> fresh =
                makeBlock(self.getContext(), argTypes, argLocs);
            Block *block = self.get();
            checkNewBlockInPattern(self.getContext(), block->getParent());
            Block *raw = fresh.release();
            noteChanged(self);
            block->getParent()->getBlocks().insert(block->getIterator(), raw);
            return newBlock(self.operation, raw);
          },
          py::arg("arg_locs") = py::none(),
          "Creates a block with arguments of the given types before this "
          "one, in its region.")
      .def(
          "create_after",
          [](PyBlock &self, py::args argTypes, py::object argLocs) {
            // First: `arg_locs` may be a generator that changes the IR.
            std::unique_ptr<Block> fresh =
                makeBlock(self.getContext(), argTypes, argLocs);
            Block *block = self.get();
            checkNewBlockInPattern(self.getContext(), block->getParent());
            Block *raw = fresh.release();
            noteChanged(self);
            block->getParent()->getBlocks().insertAfter(block->getIterator(),
                                                        raw);
            return newBlock(self.operation, raw);
          },
          py::arg("arg_locs") = py::none(),
          "Creates a block with arguments of the given types after this "
          "one, in its region.")
      .def_property_readonly(
          "successors",
          [](py::object self) {
            self.cast<PyBlock &>().get();
            return PyBlockSuccessors{self};
          },
          "The successors of the block (of its terminator), a sliceable "
          "view.")
      .def_property_readonly(
          "predecessors",
          [](py::object self) {
            self.cast<PyBlock &>().get();
            return PyBlockPredecessors{self};
          },
          "The blocks whose terminators branch to this block, a sliceable "
          "view.")
      .def(
          "append_to",
          [](py::object self, PyRegion &region) {
            moveBlockToRegion(self.cast<PyBlock &>(), region);
          },
          py::arg("region"),
          "Moves the block to the end of `region` (an op of the same IR "
          "tree). ValueError across trees, into the block itself, or "
          "across contexts.")
      .def(
          "erase_argument",
          [](PyBlock &self, unsigned index) {
            Block *block = self.get();
            if (index >= block->getNumArguments())
              throw py::index_error(
                  "the block has " + std::to_string(block->getNumArguments()) +
                  " arguments, no argument " + std::to_string(index));
            // MLIR asserts instead: the uses would point at freed memory.
            if (!block->getArgument(index).use_empty())
              throw py::value_error("cannot erase argument " +
                                    std::to_string(index) +
                                    " of the block: it still has uses");
            checkArgumentNotKept(block->getArgument(index), "erase");
            checkArgumentErasureInConversion(self.getContext());
            noteChanged(self);
            BlockArgument argument = block->getArgument(index);
            Type type = argument.getType();
            Location loc = argument.getLoc();
            block->eraseArgument(index);
            checkBlockArgumentsInPattern(
                operationOf(self.operation).getContext(), block,
                "erasing a block argument",
                [&] { block->insertArgument(index, type, loc); });
          },
          py::arg("index"),
          "Erases argument `index` (ValueError if it still has uses). In a "
          "greedy or walk pattern, MLIRError (and no change) if a branch to "
          "the block or the op of an entry block would no longer verify.")
      .def(
          "__eq__",
          [](PyBlock &self, py::object other) {
            return isInstance<PyBlock>(other) &&
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
          "__str__",
          [](PyBlock &self) {
            Block *block = self.get();
            PyOperation &anchor = operationOf(self.operation);
            bool local = isLimitedToPassScope(*anchor.getResolvedOwner());
            std::string text;
            readWithoutGILIfPoolWaits(
                anchor, "printing", [&] { text = printBlock(*block, local); });
            return text;
          },
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
  defineSequence<PyOperationIterator>(
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
        block.get(); // Brings `block.operation` to the block's tree.
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
  py::class_<PyBlockSuccessors> successors(
      m, "BlockSuccessors", "The successor blocks of a block's terminator.");
  defineSequence(
      successors, "BlockSuccessors", &PyBlockSuccessors::block, "successor",
      [](PyBlockSuccessors &self) {
        return self.block.cast<PyBlock &>().get()->getNumSuccessors();
      },
      [](PyBlockSuccessors &self, size_t i) {
        auto &block = self.block.cast<PyBlock &>();
        // A successor of invalid IR may be in another region or tree.
        return PyBlock::create(block.getContext(),
                               block.get()->getSuccessor(i));
      });
  py::class_<PyBlockPredecessors> predecessors(
      m, "BlockPredecessors",
      "The blocks whose terminators branch to a block.");
  defineSequence(
      predecessors, "BlockPredecessors", &PyBlockPredecessors::block,
      "predecessor",
      [](PyBlockPredecessors &self) {
        Block *block = self.block.cast<PyBlock &>().get();
        return static_cast<size_t>(
            std::distance(block->pred_begin(), block->pred_end()));
      },
      [](PyBlockPredecessors &self, size_t i) {
        auto &block = self.block.cast<PyBlock &>();
        Block *raw = block.get();
        return PyBlock::create(block.getContext(),
                               *std::next(raw->pred_begin(), i));
      });

  py::class_<PyOpSuccessors> opSuccessors(
      m, "OpSuccessors", "The successor blocks of an operation.");
  defineSequence(
      opSuccessors, "OpSuccessors", &PyOpSuccessors::operation, "successor",
      [](PyOpSuccessors &self) {
        return operationOf(self.operation).get()->getNumSuccessors();
      },
      [](PyOpSuccessors &self, size_t i) {
        PyOperation &op = operationOf(self.operation);
        return PyBlock::create(op.getContext(), op.get()->getSuccessor(i));
      });
  opSuccessors.def(
      "__setitem__",
      [](PyOpSuccessors &self, intptr_t index, PyBlock &block) {
        PyOperation &op = operationOf(self.operation);
        Operation *owner = op.get();
        size_t size = self.slice.length >= 0
                          ? static_cast<size_t>(self.slice.length)
                          : owner->getNumSuccessors();
        intptr_t whole = self.slice.start +
                         static_cast<intptr_t>(normalizeIndex(index, size)) *
                             self.slice.step;
        Block *successor = block.get();
        checkSameContext(op.getContext(), block.getContext().get(),
                         "a successor block");
        // A branch to a block of another region is invalid IR, and one to
        // another tree would tie the trees' lifetimes together.
        if (!owner->getBlock() ||
            owner->getBlock()->getParent() != successor->getParent())
          throw py::value_error("a successor must be a block of the region "
                                "that holds the operation");
        setSuccessor(op.getContext(), owner,
                     normalizeIndex(whole, owner->getNumSuccessors()),
                     successor);
      },
      py::arg("index"), py::arg("block"),
      "Sets successor `index` (of this view) to `block`, a block of the "
      "op's region.");

  arguments.def_property_readonly(
      "types",
      [](py::object self) {
        py::list types;
        for (py::handle argument : self)
          types.append(argument.attr("type"));
        return types;
      },
      "The argument types (of this view).");
}

/// Binds `Kind(value)` (a checked cast: ValueError if `value` is not of
/// `ValueT`'s kind now) and `Kind.isinstance(value)` on `cls`.
template <typename ValueT, typename PyT>
void bindValueKind(py::class_<PyT, PyValue> cls, const std::string &name,
                   const std::string &kind) {
  cls.def(py::init([name](PyValue &other) {
            if (!isa<ValueT>(other.get()))
              throw py::value_error(
                  "Cannot cast value to " + name + " (from " +
                  py::str(py::cast(other)).cast<std::string>() + ")");
            return PyT{other};
          }),
          py::arg("value"),
          ("Casts `value` to " + name + "; ValueError if it is not " + kind +
           ".")
              .c_str())
      .def_static(
          "isinstance", [](PyValue &other) { return isa<ValueT>(other.get()); },
          py::arg("other"), ("True if `other` is " + kind + " now.").c_str());
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
          "location",
          [](PyValue &self) {
            return makeLocation(self.getContext(), self.get().getLoc());
          },
          "The location of the value: its defining op's for a result, its "
          "own for a block argument.")
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
            // Users in other trees (detached or cloned ops) too: erasing
            // one would change the use list being iterated.
            for (Operation *user : value.getUsers())
              pin.cover(ctx.getOwner(getRootOf(user)));
            py::list uses;
            for (OpOperand &use : value.getUses())
              uses.append(
                  PyOpOperand{PyOperation::forOperation(ctx, use.getOwner()),
                              use.getOperandNumber()});
            return PyOpOperandIterator{{std::move(uses)}};
          },
          "Iterates over the uses (OpOperands) of the value (an "
          "OpOperandIterator over a snapshot).")
      .def(
          "get_name",
          [](PyValue &self, bool useLocalScope, bool useNameLocAsPrefix) {
            return getName(self, useLocalScope, useNameLocAsPrefix);
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
          "replace_all_uses_except",
          [](PyValue &self, PyValue &with, py::object exceptions) {
            replaceAllUsesExcept(self, with, exceptions);
          },
          py::arg("with_"), py::arg("exceptions"),
          "Replaces every use of this value with `with_` except the uses by "
          "`exceptions` (an Operation or OpView, or a list of them). With "
          "the checks of replace_all_uses_with; a use refused leaves every "
          "use as it was.")
      .def(
          "dump",
          [](PyValue &self) {
            llvm::errs() << printForPython(self) << "\n";
            llvm::errs().flush();
          },
          "Prints the value (as str() does, without 'Value(...)') to stderr.")
      .def(
          "__eq__",
          [](PyValue &self, py::object other) {
            return isInstance<PyValue>(other) &&
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
            Value value = self.get();
            // C++ code may now use this value from IR of its own.
            self.getContext().noteCapsuleAccess();
            return TrackedCapsuleToken<ValueHandle>::makeCapsule(
                const_cast<void *>(wrap(value).ptr), MLIR_PYTHON_CAPSULE_VALUE,
                self.handle, self.getContext().get());
          },
          "A capsule with the MlirValue.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            void *pointer =
                PyCapsule_GetPointer(capsule.ptr(), MLIR_PYTHON_CAPSULE_VALUE);
            if (!pointer)
              throw py::error_already_set();
            checkValueCapsule(capsule, pointer);
            Value value = Value::getFromOpaquePointer(pointer);
            PyMlirContext *context = PyMlirContext::lookup(value.getContext());
            if (!context)
              throw py::value_error(
                  "the value's context was not created by mlir_tracking");
            // A raw pointer may point into IR a pipeline is running on.
            checkNoRunIn(*context, "Value._CAPICreate");
            context->noteCapsuleAccess();
            return PyValue::create(*context, value);
          },
          py::arg("capsule"), "The Value of a capsule.")
      .def(
          "__str__",
          [](py::object object) {
            PyValue &self = object.cast<PyValue &>();
            std::string text = printForPython(self);
            return std::string(valueKindName(object, self.get())) + "(" + text +
                   ")";
          },
          "OpResult(<how MLIR prints it>), or BlockArgument(...) or "
          "Value(...).")
      .def(
          "__repr__",
          [](py::object object) {
            PyValue &self = object.cast<PyValue &>();
            try {
              Value value = self.get();
              PyOperation &anchor = castToOperation(self.keepAlive);
              return std::string(valueKindName(object, value)) + "(" +
                     printValue(value, isLimitedToPassScope(
                                           *anchor.getResolvedOwner())) +
                     ")";
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

  // Upstream's casting constructors, `isinstance` and `maybe_downcast`.
  auto value = py::reinterpret_borrow<py::class_<PyValue>>(m.attr("Value"));
  value
      .def(py::init([](PyValue &other) {
             other.get();
             return PyValue(other);
           }),
           py::arg("value"),
           "The same value (for subclasses that wrap a value, as upstream).")
      .def_static(
          "isinstance",
          [](py::object other) { return isInstance<PyValue>(other); },
          py::arg("other"), "True if `other` is a Value.")
      .def(
          "maybe_downcast",
          [](py::object self) {
            Value current = self.cast<PyValue &>().get();
            return castValue(self, current.getType());
          },
          "This value through the caster registered for its type "
          "(register_value_caster), or itself.")
      .def(
          "set_type",
          [](PyValue &self, PyType &type) {
            Value current = self.get();
            checkSameContext(self.getContext(), type.type.getContext(),
                             "a type");
            checkChangeAllowed(nullptr, "change a value's type");
            // Its users may no longer verify, wherever they are.
            noteValueChanged(self.getContext(), current);
            for (Operation *user : current.getUsers())
              self.getContext().noteChanged(user);
            Type old = current.getType();
            current.setType(type.type);
            checkValueTypeInPattern(self.getContext(), current,
                                    "setting a value's type",
                                    [&] { current.setType(old); });
          },
          py::arg("type"), "Changes the type of the value.");
  bindValueKind<OpResult>(
      py::reinterpret_borrow<py::class_<PyOpResult, PyValue>>(
          m.attr("OpResult")),
      "OpResult", "an op result");
  auto blockArgument =
      py::reinterpret_borrow<py::class_<PyBlockArgument, PyValue>>(
          m.attr("BlockArgument"));
  bindValueKind<BlockArgument>(blockArgument, "BlockArgument",
                               "a block argument");
  blockArgument.def(
      "set_location",
      [](PyBlockArgument &self, PyLocation &location) {
        auto argument = dyn_cast<BlockArgument>(self.get());
        if (!argument)
          throw py::value_error("the argument was replaced by an op "
                                "result: " +
                                self.handle.describe());
        checkSameContext(self.getContext(), location.location.getContext(),
                         "a location");
        noteValueChanged(self.getContext(), argument);
        argument.setLoc(location.location);
      },
      py::arg("loc"), "Changes the location of the argument.");

  m.def(
      "register_value_caster",
      [](PyTypeID &typeID, py::object caster, bool replace) -> py::object {
        auto doRegister = [typeID, replace](py::object fn) {
          auto &casters = getValueCasters();
          auto it = casters.find(typeID.typeID);
          if (it != casters.end() && !replace)
            throw std::runtime_error("Value caster is already registered: " +
                                     py::repr(it->second).cast<std::string>());
          casters[typeID.typeID] = fn;
          return fn;
        };
        if (!caster.is_none())
          return doRegister(caster);
        return py::cpp_function(doRegister, py::arg("caster"));
      },
      py::arg("typeid"), py::arg("caster") = py::none(), py::kw_only(),
      py::arg("replace") = false,
      "Registers `caster(value)` for the values of types of `typeid`: every "
      "Value the API returns goes through it (a decorator when `caster` is "
      "omitted). RuntimeError if one is registered, unless `replace`.");

  defineSnapshotIterator<PyOpOperandIterator>(
      m, "OpOperandIterator",
      "Iterates over the uses of a value (a snapshot).");
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
        size_t size = self.slice.length >= 0
                          ? static_cast<size_t>(self.slice.length)
                          : owner->getNumOperands();
        intptr_t whole = self.slice.start +
                         static_cast<intptr_t>(normalizeIndex(index, size)) *
                             self.slice.step;
        setOperand(op.getContext(), owner,
                   normalizeIndex(whole, owner->getNumOperands()), value.get());
      },
      py::arg("index"), py::arg("value"),
      "Sets operand `index` (of this view).");

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
      [](py::object self) {
        py::list types;
        for (py::handle result : self)
          types.append(result.attr("type"));
        return types;
      },
      "The result types (of this view).");
  results.def_property_readonly(
      "owner",
      [](PyOpResultList &self) {
        operationOf(self.operation).get();
        return createOpView(self.operation);
      },
      "The operation whose results these are (its OpView).");
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
            op.getContext().noteChanged(op);
            Attribute old = owner->getAttr(name);
            owner->setAttr(name, attribute.attribute);
            if (!storedInherentAttribute(owner, name, attribute.attribute)) {
              if (old)
                owner->setAttr(name, old);
              else
                owner->removeAttr(name);
              throw py::type_error(
                  "attribute '" + name + "' of '" +
                  owner->getName().getStringRef().str() +
                  "' has the wrong kind: " +
                  py::repr(makeAttribute(op.getContext(), attribute.attribute))
                      .cast<std::string>());
            }
            checkInvariantsInPattern(op.getContext(), owner,
                                     "setting an attribute", [&] {
                                       if (old)
                                         owner->setAttr(name, old);
                                       else
                                         owner->removeAttr(name);
                                     });
          },
          py::arg("name"), py::arg("attr"), "Sets attribute `name`.")
      .def(
          "__delitem__",
          [](PyOpAttributeMap &self, const std::string &name) {
            PyOperation &operation = operationOf(self.operation);
            Operation *op = operation.get();
            operation.getContext().noteChanged(operation);
            Attribute old = op->getAttr(name);
            // Removing an inherent attribute leaves a null property, which
            // custom printers and the bytecode writer read: one with a
            // default gets it back (as an op built without it has), one
            // the op requires may not be removed.
            bool inherent = old && op->isRegistered() &&
                            op->getPropertiesStorageSize() &&
                            getInherentAttrOf(op, name);
            std::optional<bool> validBefore;
            if (inherent) {
              DiagnosticCapture quiet(op->getContext());
              validBefore = succeeded(verifyOpInvariants(op));
            }
            if (!op->removeAttr(name))
              throw py::key_error("attribute '" + name + "' not found");
            if (inherent) {
              op->getName().populateDefaultProperties(
                  op->getPropertiesStorage());
              refuseRemovingRequiredAttribute(op, name, old, *validBefore);
            }
            checkInvariantsInPattern(operation.getContext(), op,
                                     "removing an attribute",
                                     [&] { op->setAttr(name, old); });
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
            py::list names;
            for (NamedAttribute named :
                 operationOf(self.operation).get()->getAttrs())
              names.append(py::str(named.getName().str()));
            return py::iter(names);
          },
          "Iterates over the attribute names (a Mapping, as upstream).")
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
             if (isInstance<PyBlock>(blockOrOp)) {
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
              throw py::value_error("Block has no terminator");
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
          "current",
          [](py::object) {
            py::object ip = getCurrentInsertionPoint();
            if (ip.is_none())
              throw py::value_error("No current InsertionPoint");
            return ip;
          },
          "The current insertion point; ValueError if there is none (as "
          "upstream).")
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
