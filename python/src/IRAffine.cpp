//===- IRAffine.cpp - AffineExpr, AffineMap, IntegerSet and their attrs ---===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"
#include "IRObjects.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"

#include <pybind11/operators.h>
#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// `ir.AffineExpr` and its subclasses.
struct PyAffineExpr {
  py::object context;
  AffineExpr expr;
};
struct PyAffineConstantExpr : PyAffineExpr {};
struct PyAffineDimExpr : PyAffineExpr {};
struct PyAffineSymbolExpr : PyAffineExpr {};
struct PyAffineBinaryExpr : PyAffineExpr {};
struct PyAffineAddExpr : PyAffineBinaryExpr {};
struct PyAffineMulExpr : PyAffineBinaryExpr {};
struct PyAffineModExpr : PyAffineBinaryExpr {};
struct PyAffineFloorDivExpr : PyAffineBinaryExpr {};
struct PyAffineCeilDivExpr : PyAffineBinaryExpr {};

/// `ir.AffineMap`.
struct PyAffineMap {
  py::object context;
  AffineMap map;
};

/// `ir.IntegerSet` and one of its constraints.
struct PyIntegerSet {
  py::object context;
  IntegerSet set;
};
struct PyIntegerSetConstraint {
  py::object set;
  unsigned pos;
};

struct PyAffineMapAttr : PyAttribute {};
struct PyIntegerSetAttr : PyAttribute {};

/// The context of the first of the expressions in `exprs` (each walked)
/// that is not `expected`, or null.
MLIRContext *findOtherContext(MLIRContext *expected,
                              ArrayRef<AffineExpr> exprs) {
  MLIRContext *other = nullptr;
  for (AffineExpr expr : exprs)
    expr.walk([&](AffineExpr each) {
      if (each.getContext() != expected)
        other = each.getContext();
    });
  return other;
}

/// Throws ValueError unless an affine object about to become a Python
/// object of `context` (of context `own`, with the expressions `exprs`) is
/// entirely of `context`: `d0 + e` with `e` of another context makes an
/// expression of one context that points into the other (see
/// checkContextOf in Downcast.h).
void checkAffineContext(const py::object &context, MLIRContext *own,
                        ArrayRef<AffineExpr> exprs) {
  // Objects of two contexts can only meet while both exist.
  if (getNumLiveContexts() < 2)
    return;
  MLIRContext *expected = pyContextOf(context).get();
  MLIRContext *other =
      own != expected ? own : findOtherContext(expected, exprs);
  if (other)
    throw py::value_error("cannot make an affine object of " +
                          describeContext(expected) +
                          " from an expression of " + describeContext(other) +
                          ": objects of different contexts cannot be mixed");
}

/// The Python object of `set`, an IntegerSet of `context`.
py::object makeSet(py::object context, IntegerSet set) {
  if (set)
    checkAffineContext(context, set.getContext(), set.getConstraints());
  return py::cast(PyIntegerSet{std::move(context), set});
}

template <typename T> py::object makeExprAs(py::object context, AffineExpr e) {
  if (e)
    checkAffineContext(context, e.getContext(), e);
  T result;
  result.context = std::move(context);
  result.expr = e;
  return py::cast(std::move(result));
}

/// The most specific class for `expr`.
py::object makeExpr(py::object context, AffineExpr expr) {
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return makeExprAs<PyAffineAddExpr>(context, expr);
  case AffineExprKind::Mul:
    return makeExprAs<PyAffineMulExpr>(context, expr);
  case AffineExprKind::Mod:
    return makeExprAs<PyAffineModExpr>(context, expr);
  case AffineExprKind::FloorDiv:
    return makeExprAs<PyAffineFloorDivExpr>(context, expr);
  case AffineExprKind::CeilDiv:
    return makeExprAs<PyAffineCeilDivExpr>(context, expr);
  case AffineExprKind::Constant:
    return makeExprAs<PyAffineConstantExpr>(context, expr);
  case AffineExprKind::DimId:
    return makeExprAs<PyAffineDimExpr>(context, expr);
  case AffineExprKind::SymbolId:
    return makeExprAs<PyAffineSymbolExpr>(context, expr);
  }
  return makeExprAs<PyAffineExpr>(context, expr);
}

py::object makeMap(py::object context, AffineMap map) {
  if (map)
    checkAffineContext(context, map.getContext(), map.getResults());
  return py::cast(PyAffineMap{std::move(context), map});
}

template <typename T> std::string str(T object) {
  std::string text;
  llvm::raw_string_ostream os(text);
  object.print(os);
  return text;
}

/// An AffineExpr or int argument as an expression in `context`.
AffineExpr toExpr(const py::handle &object, MLIRContext *context) {
  if (isInstance<PyAffineExpr>(object))
    return object.cast<PyAffineExpr &>().expr;
  if (py::isinstance<py::int_>(object))
    return getAffineConstantExpr(object.cast<int64_t>(), context);
  throw py::type_error("expected an AffineExpr or an int, got " +
                       py::repr(py::type::of(object)).cast<std::string>());
}

/// The AffineExprs of `list`; anything else raises upstream's RuntimeError,
/// "Invalid expression [(None?)] when <action> (...)".
std::vector<AffineExpr> toExprs(const py::handle &list, const char *action) {
  std::vector<AffineExpr> exprs;
  size_t index = 0;
  for (py::handle item : list) {
    if (!isInstance<PyAffineExpr>(item)) {
      std::string what = item.is_none() ? "Invalid expression (None?) when "
                                        : "Invalid expression when ";
      throw std::runtime_error(
          what + action + " (element " + std::to_string(index) + " is " +
          py::type::of(item).attr("__name__").cast<std::string>() +
          ", not AffineExpr)");
    }
    exprs.push_back(item.cast<PyAffineExpr &>().expr);
    ++index;
  }
  return exprs;
}

/// The most dimensions or symbols a map, set or expression may be given
/// here: far beyond what IR uses, small enough that making or printing one
/// never exhausts memory or time (-1 reached MLIR as 4294967295).
constexpr intptr_t kMaxDimsOrSymbols = intptr_t(1) << 20;

/// Raises ValueError unless 0 <= `count` <= kMaxDimsOrSymbols.
unsigned checkCount(intptr_t count, const char *what) {
  if (count < 0 || count > kMaxDimsOrSymbols)
    throw py::value_error(std::string(what) + " must be between 0 and " +
                          std::to_string(kMaxDimsOrSymbols) + ", got " +
                          std::to_string(count));
  return unsigned(count);
}

/// Raises ValueError unless every dimension of `exprs` is below `numDims`
/// and every symbol below `numSymbols`. MLIR indexes its lists of
/// dimensions and symbols by these positions without checking them: a map
/// `(d0) -> (d5)` made its users read past their lists.
void checkPositionsFit(ArrayRef<AffineExpr> exprs, unsigned numDims,
                       unsigned numSymbols, const char *user) {
  // Collected first, checked after: no exception crosses MLIR's walk.
  int64_t maxDim = -1, maxSymbol = -1;
  for (AffineExpr expr : exprs)
    expr.walk([&](AffineExpr nested) {
      if (auto dim = dyn_cast<AffineDimExpr>(nested))
        maxDim = std::max<int64_t>(maxDim, dim.getPosition());
      else if (auto symbol = dyn_cast<AffineSymbolExpr>(nested))
        maxSymbol = std::max<int64_t>(maxSymbol, symbol.getPosition());
    });
  if (maxDim >= int64_t(numDims))
    throw py::value_error(std::string(user) + ": the expressions use d" +
                          std::to_string(maxDim) + " but there are only " +
                          std::to_string(numDims) + " dimensions");
  if (maxSymbol >= int64_t(numSymbols))
    throw py::value_error(std::string(user) + ": the expressions use s" +
                          std::to_string(maxSymbol) + " but there are only " +
                          std::to_string(numSymbols) + " symbols");
}

/// A binary operator: `self op other`, or `other op self` if `reflected`.
template <typename Op> py::cpp_function binary(Op op, bool reflected) {
  return py::cpp_function(
      [op, reflected](const PyAffineExpr &self,
                      const py::object &other) -> py::object {
        if (!isInstance<PyAffineExpr>(other) &&
            !py::isinstance<py::int_>(other))
          return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        AffineExpr rhs = toExpr(other, self.expr.getContext());
        return makeExpr(self.context,
                        reflected ? op(rhs, self.expr) : op(self.expr, rhs));
      },
      py::is_method(py::none()), py::arg("other"));
}

template <typename Derived, typename Base>
py::class_<Derived, Base> defineExprClass(py::module_ &m, const char *name,
                                          const char *doc,
                                          bool (*isa)(AffineExpr)) {
  std::string className = name;
  py::class_<Derived, Base> cls(m, name, doc);
  cls.def(py::init([isa, className](const PyAffineExpr &other) {
            if (!isa(other.expr))
              throw py::value_error(
                  "Cannot cast affine expression to " + className + " (from " +
                  py::repr(py::cast(other)).cast<std::string>() + ")");
            Derived result;
            static_cast<PyAffineExpr &>(result) = other;
            return result;
          }),
          py::arg("expr"), "Casts an AffineExpr; ValueError on a mismatch.");
  cls.def_static(
      "isinstance",
      [isa](const py::object &other) {
        return isInstance<PyAffineExpr>(other) &&
               isa(other.cast<PyAffineExpr &>().expr);
      },
      py::arg("other"), "Whether `other` is an expression of this class.");
  return cls;
}

template <AffineExprKind Kind> bool isKind(AffineExpr e) {
  return e.getKind() == Kind;
}
bool isBinary(AffineExpr e) { return isa<AffineBinaryOpExpr>(e); }

AffineExpr mod(AffineExpr a, AffineExpr b) { return a % b; }
AffineExpr floorDiv(AffineExpr a, AffineExpr b) { return a.floorDiv(b); }
AffineExpr ceilDiv(AffineExpr a, AffineExpr b) { return a.ceilDiv(b); }

/// A binary-expression class with `get(lhs, rhs)` (either may be an int).
template <typename Derived>
void defineBinaryExpr(py::module_ &m, const char *name, const char *doc,
                      bool (*isa)(AffineExpr),
                      AffineExpr (*build)(AffineExpr, AffineExpr)) {
  defineExprClass<Derived, PyAffineBinaryExpr>(m, name, doc, isa)
      .def_static(
          "get",
          [build](const py::object &lhs, const py::object &rhs) {
            const PyAffineExpr &some = isInstance<PyAffineExpr>(lhs)
                                           ? lhs.cast<PyAffineExpr &>()
                                           : rhs.cast<PyAffineExpr &>();
            MLIRContext *context = some.expr.getContext();
            return makeExpr(some.context,
                            build(toExpr(lhs, context), toExpr(rhs, context)));
          },
          py::arg("lhs"), py::arg("rhs"),
          "Builds the expression (MLIR simplifies it, so the result may be "
          "of another class).");
}

void populateAffineExpr(py::module_ &m) {
  py::class_<PyAffineExpr> expr(m, "AffineExpr",
                                "An affine expression (d0 + s0 * 2, ...).");
  auto add = [](AffineExpr a, AffineExpr b) { return a + b; };
  auto sub = [](AffineExpr a, AffineExpr b) { return a - b; };
  auto mul = [](AffineExpr a, AffineExpr b) { return a * b; };
  auto modOp = [](AffineExpr a, AffineExpr b) { return a % b; };
  expr.attr("__add__") = binary(add, false);
  expr.attr("__radd__") = binary(add, true);
  expr.attr("__sub__") = binary(sub, false);
  expr.attr("__rsub__") = binary(sub, true);
  expr.attr("__mul__") = binary(mul, false);
  expr.attr("__rmul__") = binary(mul, true);
  expr.attr("__mod__") = binary(modOp, false);
  expr.attr("__rmod__") = binary(modOp, true);
  expr.def(
          "__neg__",
          [](const PyAffineExpr &self) {
            return makeExpr(self.context, -self.expr);
          },
          "-self.")
      .def(
          "__eq__",
          [](const PyAffineExpr &self, const py::object &other) {
            return isInstance<PyAffineExpr>(other) &&
                   other.cast<PyAffineExpr &>().expr == self.expr;
          },
          py::arg("other"), "Expressions are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](const PyAffineExpr &self) {
            return std::hash<const void *>()(self.expr.getAsOpaquePointer());
          },
          "Consistent with ==.")
      .def_property_readonly(
          "context", [](const PyAffineExpr &self) { return self.context; },
          "The context of the expression.")
      .def(
          "compose",
          [](const PyAffineExpr &self, const PyAffineMap &map) {
            return makeExpr(self.context, self.expr.compose(map.map));
          },
          py::arg("affine_map"),
          "Substitutes the map's results for the dimensions.")
      .def(
          "shift_dims",
          [](const PyAffineExpr &self, intptr_t numDims, intptr_t shift,
             intptr_t offset) {
            return makeExpr(self.context,
                            self.expr.shiftDims(checkCount(numDims, "num_dims"),
                                                checkCount(shift, "shift"),
                                                checkCount(offset, "offset")));
          },
          py::arg("num_dims"), py::arg("shift"), py::arg("offset") = 0,
          "Shifts dimensions >= `offset` by `shift`.")
      .def(
          "shift_symbols",
          [](const PyAffineExpr &self, intptr_t numSymbols, intptr_t shift,
             intptr_t offset) {
            return makeExpr(
                self.context,
                self.expr.shiftSymbols(checkCount(numSymbols, "num_symbols"),
                                       checkCount(shift, "shift"),
                                       checkCount(offset, "offset")));
          },
          py::arg("num_symbols"), py::arg("shift"), py::arg("offset") = 0,
          "Shifts symbols >= `offset` by `shift`.")
      .def_static(
          "simplify_affine_expr",
          [](const PyAffineExpr &self, intptr_t numDims, intptr_t numSymbols) {
            unsigned dims = checkCount(numDims, "num_dims");
            unsigned symbols = checkCount(numSymbols, "num_symbols");
            checkPositionsFit(self.expr, dims, symbols,
                              "AffineExpr.simplify_affine_expr");
            return makeExpr(self.context,
                            simplifyAffineExpr(self.expr, dims, symbols));
          },
          py::arg("expr"), py::arg("num_dims"), py::arg("num_symbols"),
          "The simplified expression.")
      .def_static(
          "get_add",
          [](const py::object &lhs, const py::object &rhs) {
            return py::module_::import("mlir_tracking._mlirTracking.ir")
                .attr("AffineAddExpr")
                .attr("get")(lhs, rhs);
          },
          py::arg("lhs"), py::arg("rhs"), "lhs + rhs.")
      .def_static(
          "get_mul",
          [](const py::object &lhs, const py::object &rhs) {
            return py::module_::import("mlir_tracking._mlirTracking.ir")
                .attr("AffineMulExpr")
                .attr("get")(lhs, rhs);
          },
          py::arg("lhs"), py::arg("rhs"), "lhs * rhs.")
      .def_static(
          "get_mod",
          [](const py::object &lhs, const py::object &rhs) {
            return py::module_::import("mlir_tracking._mlirTracking.ir")
                .attr("AffineModExpr")
                .attr("get")(lhs, rhs);
          },
          py::arg("lhs"), py::arg("rhs"), "lhs mod rhs.")
      .def_static(
          "get_floor_div",
          [](const py::object &lhs, const py::object &rhs) {
            return py::module_::import("mlir_tracking._mlirTracking.ir")
                .attr("AffineFloorDivExpr")
                .attr("get")(lhs, rhs);
          },
          py::arg("lhs"), py::arg("rhs"), "lhs floordiv rhs.")
      .def_static(
          "get_ceil_div",
          [](const py::object &lhs, const py::object &rhs) {
            return py::module_::import("mlir_tracking._mlirTracking.ir")
                .attr("AffineCeilDivExpr")
                .attr("get")(lhs, rhs);
          },
          py::arg("lhs"), py::arg("rhs"), "lhs ceildiv rhs.")
      .def_static(
          "get_constant",
          [](int64_t value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineConstantExpr(value, ctx.get()));
          },
          py::arg("value"), py::arg("context") = py::none(),
          "The constant expression `value`.")
      .def_static(
          "get_dim",
          [](unsigned position, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineDimExpr(position, ctx.get()));
          },
          py::arg("position"), py::arg("context") = py::none(),
          "The dimension d<position>.")
      .def_static(
          "get_symbol",
          [](unsigned position, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineSymbolExpr(position, ctx.get()));
          },
          py::arg("position"), py::arg("context") = py::none(),
          "The symbol s<position>.")
      .def_property_readonly(
          "_CAPIPtr",
          [](const PyAffineExpr &self) {
            return makeUniquedCapsule(self.expr.getAsOpaquePointer(),
                                      MLIR_PYTHON_CAPSULE_AFFINE_EXPR,
                                      self.context);
          },
          "A capsule with the MlirAffineExpr.")
      .def_static(
          "_CAPICreate",
          [](const py::object &capsule) {
            void *pointer = PyCapsule_GetPointer(
                capsule.ptr(), MLIR_PYTHON_CAPSULE_AFFINE_EXPR);
            if (!pointer)
              throw py::error_already_set();
            AffineExpr expr = AffineExpr::getFromOpaquePointer(pointer);
            PyMlirContext *context = PyMlirContext::lookup(expr.getContext());
            if (!context)
              throw py::value_error("the expression's context was not created "
                                    "by mlir_tracking");
            return makeExpr(context->getObject(), expr);
          },
          py::arg("capsule"), "The AffineExpr of a capsule.")
      .def(
          "dump", [](PyAffineExpr &self) { self.expr.dump(); },
          "Prints the expression to stderr.")
      .def(
          "__str__", [](const PyAffineExpr &self) { return str(self.expr); },
          "The expression as MLIR prints it.")
      .def(
          "__repr__",
          [](const PyAffineExpr &self) {
            return "AffineExpr(" + str(self.expr) + ")";
          },
          "AffineExpr(<expr>), as upstream.");

  defineExprClass<PyAffineConstantExpr, PyAffineExpr>(
      m, "AffineConstantExpr", "A constant.", isKind<AffineExprKind::Constant>)
      .def_static(
          "get",
          [](int64_t value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineConstantExpr(value, ctx.get()));
          },
          py::arg("value"), py::arg("context") = py::none(), "The constant.")
      .def_property_readonly(
          "value",
          [](const PyAffineExpr &self) {
            return cast<AffineConstantExpr>(self.expr).getValue();
          },
          "The value.");
  defineExprClass<PyAffineDimExpr, PyAffineExpr>(m, "AffineDimExpr",
                                                 "A dimension d<position>.",
                                                 isKind<AffineExprKind::DimId>)
      .def_static(
          "get",
          [](unsigned position, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineDimExpr(position, ctx.get()));
          },
          py::arg("position"), py::arg("context") = py::none(), "d<position>.")
      .def_property_readonly(
          "position",
          [](const PyAffineExpr &self) {
            return cast<AffineDimExpr>(self.expr).getPosition();
          },
          "The position.");
  defineExprClass<PyAffineSymbolExpr, PyAffineExpr>(
      m, "AffineSymbolExpr", "A symbol s<position>.",
      isKind<AffineExprKind::SymbolId>)
      .def_static(
          "get",
          [](unsigned position, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeExpr(ctx.getObject(),
                            getAffineSymbolExpr(position, ctx.get()));
          },
          py::arg("position"), py::arg("context") = py::none(), "s<position>.")
      .def_property_readonly(
          "position",
          [](const PyAffineExpr &self) {
            return cast<AffineSymbolExpr>(self.expr).getPosition();
          },
          "The position.");
  defineExprClass<PyAffineBinaryExpr, PyAffineExpr>(
      m, "AffineBinaryExpr", "Base class of the binary expressions.", isBinary)
      .def_property_readonly(
          "lhs",
          [](const PyAffineExpr &self) {
            return makeExpr(self.context,
                            cast<AffineBinaryOpExpr>(self.expr).getLHS());
          },
          "The left operand.")
      .def_property_readonly(
          "rhs",
          [](const PyAffineExpr &self) {
            return makeExpr(self.context,
                            cast<AffineBinaryOpExpr>(self.expr).getRHS());
          },
          "The right operand.");
  defineBinaryExpr<PyAffineAddExpr>(
      m, "AffineAddExpr", "lhs + rhs.", isKind<AffineExprKind::Add>,
      [](AffineExpr a, AffineExpr b) { return a + b; });
  defineBinaryExpr<PyAffineMulExpr>(
      m, "AffineMulExpr", "lhs * rhs.", isKind<AffineExprKind::Mul>,
      [](AffineExpr a, AffineExpr b) { return a * b; });
  defineBinaryExpr<PyAffineModExpr>(m, "AffineModExpr", "lhs mod rhs.",
                                    isKind<AffineExprKind::Mod>, mod);
  defineBinaryExpr<PyAffineFloorDivExpr>(
      m, "AffineFloorDivExpr", "lhs floordiv rhs.",
      isKind<AffineExprKind::FloorDiv>, floorDiv);
  defineBinaryExpr<PyAffineCeilDivExpr>(
      m, "AffineCeilDivExpr", "lhs ceildiv rhs.",
      isKind<AffineExprKind::CeilDiv>, ceilDiv);
}

void checkPositions(const std::vector<int64_t> &positions, unsigned bound,
                    const char *what) {
  for (int64_t pos : positions)
    if (pos < 0 || pos >= bound)
      throw py::value_error(std::string(what) + " position out of bounds");
}

void populateAffineMap(py::module_ &m) {
  py::class_<PyAffineMap>(m, "AffineMap",
                          "An affine map (d0, d1)[s0] -> (exprs).")
      .def_static(
          "get",
          [](intptr_t dimCount, intptr_t symbolCount, const py::list &exprs,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            unsigned dims = checkCount(dimCount, "dim_count");
            unsigned symbols = checkCount(symbolCount, "symbol_count");
            std::vector<AffineExpr> results =
                toExprs(exprs, "attempting to create an AffineMap");
            checkPositionsFit(results, dims, symbols, "AffineMap.get");
            return makeMap(ctx.getObject(),
                           AffineMap::get(dims, symbols, results, ctx.get()));
          },
          py::arg("dim_count"), py::arg("symbol_count"), py::arg("exprs"),
          py::arg("context") = py::none(), "A map with the given results.")
      .def_static(
          "get_constant",
          [](int64_t value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeMap(ctx.getObject(),
                           AffineMap::getConstantMap(value, ctx.get()));
          },
          py::arg("value"), py::arg("context") = py::none(), "() -> (value).")
      .def_static(
          "get_empty",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeMap(ctx.getObject(), AffineMap::get(ctx.get()));
          },
          py::arg("context") = py::none(), "() -> ().")
      .def_static(
          "get_identity",
          [](intptr_t nDims, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeMap(ctx.getObject(),
                           AffineMap::getMultiDimIdentityMap(
                               checkCount(nDims, "n_dims"), ctx.get()));
          },
          py::arg("n_dims"), py::arg("context") = py::none(),
          "The identity map on n_dims dimensions.")
      .def_static(
          "get_minor_identity",
          [](intptr_t nDims, intptr_t nResults, py::object context) {
            checkCount(nDims, "n_dims");
            checkCount(nResults, "n_results");
            if (nResults > nDims)
              throw py::value_error("n_results must not exceed n_dims");
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeMap(ctx.getObject(), AffineMap::getMinorIdentityMap(
                                                nDims, nResults, ctx.get()));
          },
          py::arg("n_dims"), py::arg("n_results"),
          py::arg("context") = py::none(),
          "(d0, ..., dn-1) -> (the last n_results dims).")
      .def_static(
          "get_permutation",
          [](std::vector<unsigned> permutation, py::object context) {
            std::vector<bool> seen(permutation.size(), false);
            for (unsigned p : permutation) {
              if (p >= permutation.size() || seen[p])
                throw std::runtime_error("Invalid permutation when "
                                         "attempting to create an AffineMap");
              seen[p] = true;
            }
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeMap(ctx.getObject(), AffineMap::getPermutationMap(
                                                permutation, ctx.get()));
          },
          py::arg("permutation"), py::arg("context") = py::none(),
          "The permutation map; ValueError if not a permutation.")
      .def(
          "get_submap",
          [](const PyAffineMap &self, std::vector<int64_t> positions) {
            checkPositions(positions, self.map.getNumResults(), "result");
            SmallVector<unsigned> pos(positions.begin(), positions.end());
            return makeMap(self.context, self.map.getSubMap(pos));
          },
          py::arg("result_positions"), "The map of the chosen results.")
      .def(
          "get_major_submap",
          [](const PyAffineMap &self, intptr_t nResults) {
            if (nResults < 0 || nResults > self.map.getNumResults())
              throw py::value_error("number of results out of bounds");
            return makeMap(self.context, self.map.getMajorSubMap(nResults));
          },
          py::arg("n_results"), "The first n_results results.")
      .def(
          "get_minor_submap",
          [](const PyAffineMap &self, intptr_t nResults) {
            if (nResults < 0 || nResults > self.map.getNumResults())
              throw py::value_error("number of results out of bounds");
            return makeMap(self.context, self.map.getMinorSubMap(nResults));
          },
          py::arg("n_results"), "The last n_results results.")
      .def(
          "replace",
          [](const PyAffineMap &self, const PyAffineExpr &expr,
             const PyAffineExpr &replacement, intptr_t numResultDims,
             intptr_t numResultSyms) {
            unsigned dims = checkCount(numResultDims, "n_result_dims");
            unsigned symbols = checkCount(numResultSyms, "n_result_syms");
            AffineMap result =
                self.map.replace(expr.expr, replacement.expr, dims, symbols);
            checkPositionsFit(result.getResults(), dims, symbols,
                              "AffineMap.replace");
            return makeMap(self.context, result);
          },
          py::arg("expr"), py::arg("replacement"), py::arg("n_result_dims"),
          py::arg("n_result_syms"),
          "Replaces `expr` by `replacement` in every result.")
      .def(
          "compose",
          [](const PyAffineMap &self, const PyAffineMap &other) {
            if (self.map.getNumDims() != other.map.getNumResults())
              throw py::value_error("AffineMap.compose: the map has " +
                                    std::to_string(self.map.getNumDims()) +
                                    " dimensions but the other map " +
                                    std::to_string(other.map.getNumResults()) +
                                    " results");
            return makeMap(self.context, self.map.compose(other.map));
          },
          py::arg("other"), "self ∘ other (self applied to other's results).")
      .def_static(
          "compress_unused_symbols",
          [](const py::list &maps, py::object context) {
            SmallVector<AffineMap> input;
            for (py::handle item : maps)
              input.push_back(item.cast<PyAffineMap &>().map);
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            py::list result;
            for (AffineMap map : compressUnusedSymbols(input))
              result.append(makeMap(ctx.getObject(), map));
            return result;
          },
          py::arg("affine_maps"), py::arg("context") = py::none(),
          "The maps with the symbols none of them uses removed.")
      .def_property_readonly(
          "is_permutation",
          [](const PyAffineMap &self) { return self.map.isPermutation(); },
          "Whether the map is a permutation.")
      .def_property_readonly(
          "is_projected_permutation",
          [](const PyAffineMap &self) {
            return self.map.isProjectedPermutation();
          },
          "Whether the map is a projected permutation.")
      .def_property_readonly(
          "n_dims",
          [](const PyAffineMap &self) { return self.map.getNumDims(); },
          "The number of dimensions.")
      .def_property_readonly(
          "n_inputs",
          [](const PyAffineMap &self) { return self.map.getNumInputs(); },
          "Dimensions plus symbols.")
      .def_property_readonly(
          "n_symbols",
          [](const PyAffineMap &self) { return self.map.getNumSymbols(); },
          "The number of symbols.")
      .def_property_readonly(
          "results",
          [](const PyAffineMap &self) {
            py::list results;
            for (AffineExpr expr : self.map.getResults())
              results.append(makeExpr(self.context, expr));
            return results;
          },
          "The result expressions (a list).")
      .def_property_readonly(
          "context", [](const PyAffineMap &self) { return self.context; },
          "The context of the map.")
      .def(
          "__eq__",
          [](const PyAffineMap &self, const py::object &other) {
            return isInstance<PyAffineMap>(other) &&
                   other.cast<PyAffineMap &>().map == self.map;
          },
          py::arg("other"), "Maps are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](const PyAffineMap &self) {
            return std::hash<const void *>()(self.map.getAsOpaquePointer());
          },
          "Consistent with ==.")
      .def_property_readonly(
          "_CAPIPtr",
          [](const PyAffineMap &self) {
            return makeUniquedCapsule(self.map.getAsOpaquePointer(),
                                      MLIR_PYTHON_CAPSULE_AFFINE_MAP,
                                      self.context);
          },
          "A capsule with the MlirAffineMap.")
      .def_static(
          "_CAPICreate",
          [](const py::object &capsule) {
            void *pointer = PyCapsule_GetPointer(
                capsule.ptr(), MLIR_PYTHON_CAPSULE_AFFINE_MAP);
            if (!pointer)
              throw py::error_already_set();
            AffineMap map = AffineMap::getFromOpaquePointer(pointer);
            PyMlirContext *context = PyMlirContext::lookup(map.getContext());
            if (!context)
              throw py::value_error("the map's context was not created by "
                                    "mlir_tracking");
            return makeMap(context->getObject(), map);
          },
          py::arg("capsule"), "The AffineMap of a capsule.")
      .def(
          "dump", [](PyAffineMap &self) { self.map.dump(); },
          "Prints the map to stderr.")
      .def(
          "__str__", [](const PyAffineMap &self) { return str(self.map); },
          "The map as MLIR prints it.")
      .def(
          "__repr__",
          [](const PyAffineMap &self) {
            return "AffineMap(" + str(self.map) + ")";
          },
          "AffineMap(<map>), as upstream.");
}

void populateIntegerSet(py::module_ &m) {
  py::class_<PyIntegerSetConstraint>(m, "IntegerSetConstraint",
                                     "One constraint of an IntegerSet: `expr "
                                     "== 0` or `expr >= 0`.")
      .def_property_readonly(
          "expr",
          [](const PyIntegerSetConstraint &self) {
            auto &set = self.set.cast<PyIntegerSet &>();
            return makeExpr(set.context, set.set.getConstraint(self.pos));
          },
          "The constraint's expression.")
      .def_property_readonly(
          "is_eq",
          [](const PyIntegerSetConstraint &self) {
            return self.set.cast<PyIntegerSet &>().set.isEq(self.pos);
          },
          "True for `== 0`, False for `>= 0`.")
      .def(
          "__repr__",
          [](const PyIntegerSetConstraint &self) {
            auto &set = self.set.cast<PyIntegerSet &>();
            return "IntegerSetConstraint(" +
                   str(set.set.getConstraint(self.pos)) +
                   (set.set.isEq(self.pos) ? " == 0" : " >= 0") + ")";
          },
          "IntegerSetConstraint(<expr> == 0 | >= 0).");

  py::class_<PyIntegerSet>(m, "IntegerSet",
                           "A set of integer points: (dims)[syms] : "
                           "(constraints).")
      .def_static(
          "get",
          [](intptr_t numDims, intptr_t numSymbols, const py::list &exprs,
             std::vector<bool> eqFlags, py::object context) {
            if (py::len(exprs) != eqFlags.size())
              throw py::value_error("Expected the number of constraints to "
                                    "match that of equality flags");
            if (eqFlags.empty())
              throw py::value_error("Expected non-empty list of constraints");
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            unsigned dims = checkCount(numDims, "num_dims");
            unsigned symbols = checkCount(numSymbols, "num_symbols");
            std::vector<AffineExpr> constraints =
                toExprs(exprs, "attempting to create an IntegerSet");
            checkPositionsFit(constraints, dims, symbols, "IntegerSet.get");
            SmallVector<bool> flags(eqFlags.begin(), eqFlags.end());
            return makeSet(ctx.getObject(),
                           IntegerSet::get(dims, symbols, constraints, flags));
          },
          py::arg("num_dims"), py::arg("num_symbols"), py::arg("exprs"),
          py::arg("eq_flags"), py::arg("context") = py::none(),
          "The set of `exprs` (== 0 where the flag is True, else >= 0).")
      .def_static(
          "get_empty",
          [](intptr_t numDims, intptr_t numSymbols, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeSet(
                ctx.getObject(),
                IntegerSet::getEmptySet(checkCount(numDims, "num_dims"),
                                        checkCount(numSymbols, "num_symbols"),
                                        ctx.get()));
          },
          py::arg("num_dims"), py::arg("num_symbols"),
          py::arg("context") = py::none(), "The canonical empty set.")
      .def(
          "get_replaced",
          [](const PyIntegerSet &self, const py::list &dimExprs,
             const py::list &symbolExprs, intptr_t numResultDims,
             intptr_t numResultSymbols) {
            if (py::len(dimExprs) != self.set.getNumDims())
              throw py::value_error("Expected the number of dimension "
                                    "replacement expressions to match that "
                                    "of dimensions");
            if (py::len(symbolExprs) != self.set.getNumSymbols())
              throw py::value_error("Expected the number of symbol "
                                    "replacement expressions to match that "
                                    "of symbols");
            unsigned dims = checkCount(numResultDims, "num_result_dims");
            unsigned symbols =
                checkCount(numResultSymbols, "num_result_symbols");
            IntegerSet result = IntegerSet(self.set).replaceDimsAndSymbols(
                toExprs(dimExprs, "attempting to create an IntegerSet by "
                                  "replacing dimensions"),
                toExprs(symbolExprs, "attempting to create an IntegerSet by "
                                     "replacing symbols"),
                dims, symbols);
            checkPositionsFit(result.getConstraints(), dims, symbols,
                              "IntegerSet.get_replaced");
            return makeSet(self.context, result);
          },
          py::arg("dim_exprs"), py::arg("symbol_exprs"),
          py::arg("num_result_dims"), py::arg("num_result_symbols"),
          "The set with dimensions and symbols replaced.")
      .def_property_readonly(
          "is_canonical_empty",
          [](const PyIntegerSet &self) { return self.set.isEmptyIntegerSet(); },
          "Whether this is the canonical empty set.")
      .def_property_readonly(
          "n_dims",
          [](const PyIntegerSet &self) { return self.set.getNumDims(); },
          "The number of dimensions.")
      .def_property_readonly(
          "n_symbols",
          [](const PyIntegerSet &self) { return self.set.getNumSymbols(); },
          "The number of symbols.")
      .def_property_readonly(
          "n_inputs",
          [](const PyIntegerSet &self) { return self.set.getNumInputs(); },
          "Dimensions plus symbols.")
      .def_property_readonly(
          "n_equalities",
          [](const PyIntegerSet &self) { return self.set.getNumEqualities(); },
          "The number of equality constraints.")
      .def_property_readonly(
          "n_inequalities",
          [](const PyIntegerSet &self) {
            return self.set.getNumInequalities();
          },
          "The number of inequality constraints.")
      .def_property_readonly(
          "constraints",
          [](const py::object &self) {
            py::list constraints;
            unsigned n = self.cast<PyIntegerSet &>().set.getNumConstraints();
            for (unsigned i = 0; i < n; ++i)
              constraints.append(PyIntegerSetConstraint{self, i});
            return constraints;
          },
          "The constraints (a list of IntegerSetConstraint).")
      .def_property_readonly(
          "context", [](const PyIntegerSet &self) { return self.context; },
          "The context of the set.")
      .def(
          "__eq__",
          [](const PyIntegerSet &self, const py::object &other) {
            return isInstance<PyIntegerSet>(other) &&
                   other.cast<PyIntegerSet &>().set == self.set;
          },
          py::arg("other"), "Sets are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](const PyIntegerSet &self) {
            return std::hash<const void *>()(self.set.getAsOpaquePointer());
          },
          "Consistent with ==.")
      .def_property_readonly(
          "_CAPIPtr",
          [](const PyIntegerSet &self) {
            return makeUniquedCapsule(self.set.getAsOpaquePointer(),
                                      MLIR_PYTHON_CAPSULE_INTEGER_SET,
                                      self.context);
          },
          "A capsule with the MlirIntegerSet.")
      .def_static(
          "_CAPICreate",
          [](const py::object &capsule) {
            void *pointer = PyCapsule_GetPointer(
                capsule.ptr(), MLIR_PYTHON_CAPSULE_INTEGER_SET);
            if (!pointer)
              throw py::error_already_set();
            IntegerSet set = IntegerSet::getFromOpaquePointer(pointer);
            PyMlirContext *context = PyMlirContext::lookup(set.getContext());
            if (!context)
              throw py::value_error("the set's context was not created by "
                                    "mlir_tracking");
            return makeSet(context->getObject(), set);
          },
          py::arg("capsule"), "The IntegerSet of a capsule.")
      .def(
          "dump", [](PyIntegerSet &self) { self.set.dump(); },
          "Prints the set to stderr.")
      .def(
          "__str__", [](const PyIntegerSet &self) { return str(self.set); },
          "The set as MLIR prints it.")
      .def(
          "__repr__",
          [](const PyIntegerSet &self) {
            return "IntegerSet(" + str(self.set) + ")";
          },
          "IntegerSet(<set>), as upstream.");
}

void populateAffineAttributes(py::module_ &m) {
  defineConcreteAttribute<PyAffineMapAttr, PyAttribute>(
      m, "AffineMapAttr", "An affine map as an attribute.",
      [](Attribute attr) { return isa<AffineMapAttr>(attr); },
      TypeID::get<AffineMapAttr>())
      .def_static(
          "get",
          [](const PyAffineMap &map) {
            return makeTypedAttr<PyAffineMapAttr>(pyContextOf(map.context),
                                                  AffineMapAttr::get(map.map));
          },
          py::arg("affine_map"), "The attribute of `affine_map`.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return makeMap(self.context,
                           cast<AffineMapAttr>(self.attribute).getValue());
          },
          "The AffineMap.");
  defineConcreteAttribute<PyIntegerSetAttr, PyAttribute>(
      m, "IntegerSetAttr", "An integer set as an attribute.",
      [](Attribute attr) { return isa<IntegerSetAttr>(attr); },
      TypeID::get<IntegerSetAttr>())
      .def_static(
          "get",
          [](const PyIntegerSet &set) {
            return makeTypedAttr<PyIntegerSetAttr>(
                pyContextOf(set.context), IntegerSetAttr::get(set.set));
          },
          py::arg("integer_set"), "The attribute of `integer_set`.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return makeSet(self.context,
                           cast<IntegerSetAttr>(self.attribute).getValue());
          },
          "The IntegerSet.");
}
} // namespace

py::object mlir::tracking::python::makeAffineMap(PyMlirContext &context,
                                                 AffineMap map) {
  return makeMap(context.getObject(), map);
}

AffineMap mlir::tracking::python::affineMapArg(PyMlirContext &context,
                                               const py::handle &object,
                                               const char *what) {
  if (object.is_none())
    return AffineMap();
  if (!isInstance<PyAffineMap>(object))
    throw py::type_error(std::string(what) +
                         " must be an AffineMap or None, got " +
                         py::repr(object).cast<std::string>());
  AffineMap map = object.cast<const PyAffineMap &>().map;
  if (map.getContext() != context.get())
    throw py::value_error(std::string("cannot use ") + what + " of " +
                          describeContext(map.getContext()) + " in " +
                          describeContext(context.get()) +
                          ": objects of different contexts cannot be mixed");
  return map;
}

void mlir::tracking::python::populateIRAffine(py::module_ &m) {
  populateAffineExpr(m);
  populateAffineMap(m);
  populateIntegerSet(m);
  populateAffineAttributes(m);
}
