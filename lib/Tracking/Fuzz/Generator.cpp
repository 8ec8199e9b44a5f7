//===- Generator.cpp - Random valid modules and pipelines -----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Modules are generated as text, so that a failing case is its own
// reproducer. Every value is used only where it dominates: each region and
// block gets a scope on a stack, and a statement only uses values of the
// scopes on the stack. Calls only go to functions with a higher index, so the
// call graph is acyclic.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using llvm::StringRef;
using namespace mlir::tracking::fuzz;

uint64_t Random::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t mlir::tracking::fuzz::getCaseSeed(uint64_t seed, uint64_t caseIndex) {
  Random mix(seed * 0x2545f4914f6cdd1dULL + caseIndex);
  return mix.next();
}

namespace {
enum class Ty { I32, Index, F32, I1, MemScalar, MemArray };

const char *typeName(Ty type) {
  switch (type) {
  case Ty::I32:
    return "i32";
  case Ty::Index:
    return "index";
  case Ty::F32:
    return "f32";
  case Ty::I1:
    return "i1";
  case Ty::MemScalar:
    return "memref<i32>";
  case Ty::MemArray:
    return "memref<4xi32>";
  }
  return "";
}

struct Value {
  std::string name;
  Ty type;
};

/// A pure expression already emitted: its right-hand side can be emitted
/// again (a common subexpression) wherever the scope that holds it is
/// visible.
struct Expr {
  std::string rhs;
  Ty type;
};

struct Scope {
  std::vector<Value> values;
  std::vector<Expr> exprs;
};

struct FuncSig {
  std::string name;
  std::vector<Ty> args;
  std::vector<Ty> results;
  bool isPrivate;
};

std::string typeList(const std::vector<Ty> &types) {
  std::string text;
  for (size_t i = 0; i < types.size(); ++i)
    text += (i ? ", " : "") + std::string(typeName(types[i]));
  return text;
}

class Generator {
public:
  explicit Generator(Random &rng) : rng(rng) {}

  std::string run() {
    unsigned numFuncs = rng.range(1, 5);
    for (unsigned i = 0; i < numFuncs; ++i) {
      FuncSig sig;
      sig.name = "f" + std::to_string(i);
      unsigned numArgs = rng.range(0, 3);
      for (unsigned a = 0; a < numArgs; ++a)
        sig.args.push_back(randomScalarType(/*withI1=*/false));
      unsigned numResults = rng.range(0, 2);
      for (unsigned r = 0; r < numResults; ++r)
        sig.results.push_back(randomScalarType(/*withI1=*/false));
      // The first function is the public entry point.
      sig.isPrivate = i > 0 && rng.chance(60);
      funcs.push_back(sig);
    }
    for (unsigned i = 0; i < numFuncs; ++i)
      emitFunction(i);
    return out;
  }

private:
  Ty randomScalarType(bool withI1) {
    switch (rng.below(withI1 ? 7 : 6)) {
    case 0:
    case 1:
    case 2:
      return Ty::I32;
    case 3:
    case 4:
      return Ty::Index;
    case 5:
      return Ty::F32;
    default:
      return Ty::I1;
    }
  }

  std::string fresh() { return "%v" + std::to_string(nextValue++); }

  void line(const std::string &text) {
    out += std::string(2 * indent, ' ') + text + "\n";
  }

  void define(const std::string &name, Ty type) {
    scopes.back().values.push_back({name, type});
  }

  std::vector<const Value *> visible(Ty type) const {
    std::vector<const Value *> result;
    for (const Scope &scope : scopes)
      for (const Value &value : scope.values)
        if (value.type == type)
          result.push_back(&value);
    return result;
  }

  std::string constant(Ty type) {
    std::string rhs;
    switch (type) {
    case Ty::I32:
      rhs = "arith.constant " + std::to_string(rng.range(-3, 12)) + " : i32";
      break;
    case Ty::Index:
      rhs = "arith.constant " + std::to_string(rng.range(0, 6)) + " : index";
      break;
    case Ty::F32: {
      static const std::vector<std::string> floats = {"0.0", "1.0", "2.5",
                                                      "-3.0"};
      rhs = "arith.constant " + rng.pick(floats) + " : f32";
      break;
    }
    case Ty::I1:
      rhs =
          std::string("arith.constant ") + (rng.chance(50) ? "true" : "false");
      break;
    case Ty::MemScalar:
    case Ty::MemArray:
      return alloca(type);
    }
    return emitPure(rhs, type);
  }

  std::string alloca(Ty type) {
    std::string name = fresh();
    line(name + " = memref.alloca() : " + typeName(type));
    define(name, type);
    return name;
  }

  /// A visible value of `type` (usually), or a new constant.
  std::string use(Ty type) {
    std::vector<const Value *> candidates = visible(type);
    if (!candidates.empty() && rng.chance(80))
      return candidates[rng.below(candidates.size())]->name;
    return constant(type);
  }

  std::string emitPure(const std::string &rhs, Ty type) {
    std::string name = fresh();
    line(name + " = " + rhs);
    define(name, type);
    scopes.back().exprs.push_back({rhs, type});
    return name;
  }

  /// "%v3" or "%v3:2" for `count` results; `names` gets "%v3#0", ...
  std::string resultNames(size_t count, std::vector<std::string> &names) {
    std::string base = fresh();
    if (count == 1) {
      names.push_back(base);
      return base;
    }
    for (size_t i = 0; i < count; ++i)
      names.push_back(base + "#" + std::to_string(i));
    return base + ":" + std::to_string(count);
  }

  void statements(unsigned count, unsigned depth) {
    for (unsigned i = 0; i < count && budget > 0; ++i, --budget)
      statement(depth);
  }

  void statement(unsigned depth) {
    switch (rng.below(20)) {
    case 0:
      constant(randomScalarType(/*withI1=*/true));
      return;
    case 1:
    case 2: {
      static const std::vector<std::string> ops = {
          "addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minui"};
      Ty type = rng.chance(70) ? Ty::I32 : Ty::Index;
      std::string lhs = use(type), rhs = use(type);
      emitPure("arith." + rng.pick(ops) + " " + lhs + ", " + rhs + " : " +
                   typeName(type),
               type);
      return;
    }
    case 3: {
      // Division by a non-zero constant folds; by zero it must not.
      std::string lhs = use(Ty::I32);
      std::string rhs = emitPure("arith.constant " +
                                     std::to_string(rng.range(1, 4)) + " : i32",
                                 Ty::I32);
      emitPure(std::string(rng.chance(50) ? "arith.divsi " : "arith.remui ") +
                   lhs + ", " + rhs + " : i32",
               Ty::I32);
      return;
    }
    case 4: {
      static const std::vector<std::string> ops = {"addf", "mulf", "subf",
                                                   "maximumf"};
      std::string lhs = use(Ty::F32), rhs = use(Ty::F32);
      emitPure("arith." + rng.pick(ops) + " " + lhs + ", " + rhs + " : f32",
               Ty::F32);
      return;
    }
    case 5: {
      static const std::vector<std::string> floatOps = {"absf", "sqrt", "exp",
                                                        "floor"};
      static const std::vector<std::string> intOps = {"absi", "ctlz", "ctpop"};
      if (rng.chance(50)) {
        std::string operand = use(Ty::F32);
        emitPure("math." + rng.pick(floatOps) + " " + operand + " : f32",
                 Ty::F32);
      } else {
        std::string operand = use(Ty::I32);
        emitPure("math." + rng.pick(intOps) + " " + operand + " : i32",
                 Ty::I32);
      }
      return;
    }
    case 6: {
      static const std::vector<std::string> preds = {"eq",  "ne",  "slt",
                                                     "sge", "ult", "ugt"};
      Ty type = rng.chance(60) ? Ty::I32 : Ty::Index;
      std::string lhs = use(type), rhs = use(type);
      emitPure("arith.cmpi " + rng.pick(preds) + ", " + lhs + ", " + rhs +
                   " : " + typeName(type),
               Ty::I1);
      return;
    }
    case 7: {
      Ty type = randomScalarType(/*withI1=*/false);
      std::string cond = use(Ty::I1);
      std::string lhs = use(type), rhs = use(type);
      emitPure("arith.select " + cond + ", " + lhs + ", " + rhs + " : " +
                   typeName(type),
               type);
      return;
    }
    case 8: {
      // Casts: the listener looks through CastOpInterface ops.
      switch (rng.below(4)) {
      case 0: {
        std::string operand = use(Ty::I32);
        emitPure("arith.index_cast " + operand + " : i32 to index", Ty::Index);
        return;
      }
      case 1: {
        std::string operand = use(Ty::Index);
        emitPure("arith.index_cast " + operand + " : index to i32", Ty::I32);
        return;
      }
      case 2: {
        std::string operand = use(Ty::I32);
        emitPure("arith.sitofp " + operand + " : i32 to f32", Ty::F32);
        return;
      }
      default: {
        std::string lhs = use(Ty::I1), rhs = use(Ty::I1);
        emitPure("arith.xori " + lhs + ", " + rhs + " : i1", Ty::I1);
        return;
      }
      }
    }
    case 9:
    case 10: {
      // A duplicate of an expression emitted earlier (for CSE).
      std::vector<const Expr *> exprs;
      for (const Scope &scope : scopes)
        for (const Expr &expr : scope.exprs)
          exprs.push_back(&expr);
      if (exprs.empty())
        return constant(Ty::I32), void();
      Expr expr = *exprs[rng.below(exprs.size())];
      emitPure(expr.rhs, expr.type);
      return;
    }
    case 11:
    case 12:
      if (depth < 3)
        return emitIf(depth);
      return constant(Ty::Index), void();
    case 13:
      if (depth < 3)
        return emitFor(depth);
      return constant(Ty::I32), void();
    case 14:
    case 15:
      return emitMemory();
    case 16:
      return emitCall();
    default: {
      // Dead but foldable arithmetic.
      std::string lhs = constant(Ty::I32), rhs = constant(Ty::I32);
      emitPure("arith.addi " + lhs + ", " + rhs + " : i32", Ty::I32);
      return;
    }
    }
  }

  void emitIf(unsigned depth) {
    std::string cond = rng.chance(50) ? constant(Ty::I1) : use(Ty::I1);
    std::vector<Ty> results;
    unsigned numResults = rng.range(0, 2);
    for (unsigned i = 0; i < numResults; ++i)
      results.push_back(randomScalarType(/*withI1=*/false));
    std::vector<std::string> names;
    std::string head;
    if (!results.empty())
      head = resultNames(results.size(), names) + " = ";
    head += "scf.if " + cond;
    if (!results.empty())
      head += " -> (" + typeList(results) + ")";
    line(head + " {");
    bool withElse = !results.empty() || rng.chance(50);
    emitRegionBody(depth, results);
    if (withElse) {
      line("} else {");
      emitRegionBody(depth, results);
    }
    line("}");
    for (size_t i = 0; i < names.size(); ++i)
      define(names[i], results[i]);
  }

  void emitRegionBody(unsigned depth, const std::vector<Ty> &results,
                      std::vector<Value> args = {}) {
    ++indent;
    scopes.emplace_back();
    for (const Value &arg : args)
      define(arg.name, arg.type);
    statements(rng.range(0, 5), depth + 1);
    if (!results.empty()) {
      std::vector<std::string> values;
      for (Ty type : results)
        values.push_back(use(type));
      line("scf.yield " + llvm::join(values, ", ") + " : " + typeList(results));
    }
    scopes.pop_back();
    --indent;
  }

  void emitFor(unsigned depth) {
    std::string lb = rng.chance(70) ? constant(Ty::Index) : use(Ty::Index);
    std::string ub = constant(Ty::Index);
    std::string step = emitPure(
        "arith.constant " + std::to_string(rng.range(1, 2)) + " : index",
        Ty::Index);
    std::string iv = fresh();
    std::vector<Ty> iterTypes;
    unsigned numIter = rng.range(0, 2);
    for (unsigned i = 0; i < numIter; ++i)
      iterTypes.push_back(randomScalarType(/*withI1=*/false));
    std::vector<Value> args = {{iv, Ty::Index}};
    std::vector<std::string> inits, iterArgs, names;
    for (Ty type : iterTypes) {
      std::string init = use(type);
      std::string arg = fresh();
      iterArgs.push_back(arg + " = " + init);
      args.push_back({arg, type});
    }
    std::string head;
    if (!iterTypes.empty())
      head = resultNames(iterTypes.size(), names) + " = ";
    head += "scf.for " + iv + " = " + lb + " to " + ub + " step " + step;
    if (!iterTypes.empty())
      head += " iter_args(" + llvm::join(iterArgs, ", ") + ") -> (" +
              typeList(iterTypes) + ")";
    line(head + " {");
    emitRegionBody(depth, iterTypes, args);
    line("}");
    for (size_t i = 0; i < names.size(); ++i)
      define(names[i], iterTypes[i]);
  }

  void emitMemory() {
    bool array = rng.chance(40);
    Ty memType = array ? Ty::MemArray : Ty::MemScalar;
    std::vector<const Value *> memrefs = visible(memType);
    std::string memref = !memrefs.empty() && rng.chance(70)
                             ? memrefs[rng.below(memrefs.size())]->name
                             : alloca(memType);
    std::string index;
    if (array) {
      // Constant indices in bounds let sroa split the alloca.
      index = rng.chance(80)
                  ? emitPure("arith.constant " +
                                 std::to_string(rng.range(0, 3)) + " : index",
                             Ty::Index)
                  : use(Ty::Index);
    }
    std::string access = memref + "[" + index + "] : " + typeName(memType);
    if (rng.chance(55)) {
      std::string value = use(Ty::I32);
      line("memref.store " + value + ", " + access);
    } else {
      std::string name = fresh();
      line(name + " = memref.load " + access);
      define(name, Ty::I32);
    }
  }

  void emitCall() {
    if (currentFunc + 1 >= funcs.size())
      return constant(Ty::F32), void();
    const FuncSig &callee = funcs[rng.range(currentFunc + 1, funcs.size() - 1)];
    std::vector<std::string> args;
    for (Ty type : callee.args)
      args.push_back(use(type));
    std::vector<std::string> names;
    std::string text;
    if (!callee.results.empty())
      text = resultNames(callee.results.size(), names) + " = ";
    text += "func.call @" + callee.name + "(" + llvm::join(args, ", ") +
            ") : (" + typeList(callee.args) + ") -> (" +
            typeList(callee.results) + ")";
    line(text);
    for (size_t i = 0; i < names.size(); ++i)
      define(names[i], callee.results[i]);
  }

  void emitReturn(const FuncSig &sig) {
    std::vector<std::string> values;
    for (Ty type : sig.results)
      values.push_back(use(type));
    if (values.empty())
      line("return");
    else
      line("return " + llvm::join(values, ", ") + " : " +
           typeList(sig.results));
  }

  void emitFunction(unsigned index) {
    currentFunc = index;
    nextValue = 0;
    budget = rng.range(4, 30);
    const FuncSig &sig = funcs[index];
    scopes.clear();
    scopes.emplace_back();
    std::vector<std::string> args;
    for (Ty type : sig.args) {
      std::string name = fresh();
      args.push_back(name + ": " + typeName(type));
      define(name, type);
    }
    std::string head = "func.func ";
    if (sig.isPrivate)
      head += "private ";
    head += "@" + sig.name + "(" + llvm::join(args, ", ") + ")";
    if (!sig.results.empty())
      head += " -> (" + typeList(sig.results) + ")";
    line(head + " {");
    ++indent;
    if (rng.chance(30)) {
      emitBranchingBody(sig);
    } else {
      statements(budget, 0);
      emitReturn(sig);
    }
    --indent;
    line("}");
  }

  /// entry -> cond_br -> ^bb1 | ^bb2 -> ^bb3(merged value) -> return.
  void emitBranchingBody(const FuncSig &sig) {
    statements(rng.range(1, 6), 1);
    std::string cond = rng.chance(50) ? constant(Ty::I1) : use(Ty::I1);
    std::string left = use(Ty::I32), right = use(Ty::I32);
    line("cf.cond_br " + cond + ", ^bb1(" + left + " : i32), ^bb2");
    for (int block = 1; block <= 2; ++block) {
      std::string merged = fresh();
      if (block == 1) {
        line("^bb1(" + merged + ": i32):");
      } else {
        line("^bb2:");
      }
      scopes.emplace_back();
      if (block == 1)
        define(merged, Ty::I32);
      statements(rng.range(0, 4), 1);
      std::string value = use(Ty::I32);
      line("cf.br ^bb3(" + value + " : i32)");
      scopes.pop_back();
    }
    std::string merged = fresh();
    line("^bb3(" + merged + ": i32):");
    scopes.emplace_back();
    define(merged, Ty::I32);
    statements(rng.range(0, 4), 1);
    emitReturn(sig);
    scopes.pop_back();
  }

  Random &rng;
  std::string out;
  std::vector<FuncSig> funcs;
  std::vector<Scope> scopes;
  unsigned currentFunc = 0;
  unsigned nextValue = 0;
  int budget = 0;
  int indent = 0;
};

/// Splits "a,b{x=1,y=2},c(d,e)" at the top-level commas.
std::vector<std::string> splitTopLevel(StringRef text) {
  std::vector<std::string> parts;
  int nesting = 0;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '{')
      ++nesting;
    else if (c == ')' || c == '}')
      --nesting;
    else if (c == ',' && nesting == 0) {
      parts.push_back(text.slice(begin, i).trim().str());
      begin = i + 1;
    }
  }
  parts.push_back(text.drop_front(begin).trim().str());
  return parts;
}
} // namespace

std::string mlir::tracking::fuzz::generateModule(Random &rng) {
  return Generator(rng).run();
}

std::vector<std::string> mlir::tracking::fuzz::generatePipeline(Random &rng) {
  // Not drawn: int-range-optimizations, whose output depends on heap
  // addresses in a long-running process (see docs/reliability.md).
  // Anchored on the module.
  static const std::vector<std::string> modulePasses = {
      "canonicalize",
      "canonicalize",
      "cse",
      "cse",
      "symbol-dce",
      "sccp",
      "inline",
      "loop-invariant-code-motion",
      "control-flow-sink",
      "remove-dead-values",
      "mem2reg",
      "sroa",
      "topological-sort",
      "canonicalize{region-simplify=aggressive}",
      "canonicalize{top-down=false max-iterations=2}",
      "symbol-privatize{exclude=f0}",
      "convert-scf-to-cf",
      "lift-cf-to-scf",
      "scf-for-loop-canonicalization",
      "strip-debuginfo",
      // Dialect conversion (tracked: handles follow arith ops to llvm).
      "convert-arith-to-llvm",
      "reconcile-unrealized-casts",
  };
  // Nested in func.func(...).
  static const std::vector<std::string> funcPasses = {
      "canonicalize",
      "canonicalize",
      "cse",
      "cse",
      "sccp",
      "loop-invariant-code-motion",
      "control-flow-sink",
      "mem2reg",
      "sroa",
      "topological-sort",
      "canonicalize{region-simplify=aggressive}",
      "scf-for-loop-canonicalization",
      "convert-arith-to-llvm",
  };
  std::vector<std::string> elements;
  unsigned length = rng.range(1, 6);
  for (unsigned i = 0; i < length; ++i) {
    if (rng.chance(35)) {
      std::vector<std::string> nested;
      unsigned count = rng.range(1, 3);
      for (unsigned j = 0; j < count; ++j)
        nested.push_back(rng.pick(funcPasses));
      elements.push_back("func.func(" + llvm::join(nested, ",") + ")");
    } else {
      elements.push_back(rng.pick(modulePasses));
    }
  }
  return elements;
}

std::string
mlir::tracking::fuzz::joinPipeline(llvm::ArrayRef<std::string> elements) {
  return "builtin.module(" + llvm::join(elements, ",") + ")";
}

bool mlir::tracking::fuzz::isPreciseElement(StringRef element) {
  element = element.trim();
  if (element.consume_front("func.func(")) {
    element.consume_back(")");
    return llvm::all_of(splitTopLevel(element), [](const std::string &pass) {
      return isPreciseElement(pass);
    });
  }
  StringRef name = element.take_until([](char c) { return c == '{'; });
  return name == "canonicalize" || name == "cse" ||
         name == "convert-arith-to-llvm";
}
