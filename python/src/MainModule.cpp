//===- MainModule.cpp - The _mlirTracking extension module ----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "FatalErrors.h"
#include "IRCompat.h"
#include "OpView.h"
#include "Rewrite.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TransformInterpreter.h"

using namespace mlir::tracking::python;

PYBIND11_MODULE(_mlirTracking, m) {
  m.doc() = "The C++ side of mlir_tracking: MLIR IR objects whose "
            "operations are tracked handles. Use mlir_tracking.ir and "
            "mlir_tracking.passmanager.";
  // Ours first: the first registration of a pass argument wins, so
  // `canonicalize` and `cse` are the precise ones.
  static bool registered = [] {
    mlir::tracking::registerTrackedPasses();
    mlir::tracking::registerTrackedTransformInterpreterPass();
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;

  registerExceptionTranslators(py::module_::import("mlir_tracking._errors"));
  installFatalErrorHandler();

  py::module_ ir =
      m.def_submodule("ir", "IR objects (upstream mlir.ir names).");
  populateIRCore(ir);
  populateIRStructure(ir);
  populateIRTypes(ir);
  populateIRAttributes(ir);
  populateIRAffine(ir);
  populateOpView(m, ir);
  populateStructuredOpHelpers(m);
  py::module_ llvmTypes =
      m.def_submodule("llvm_types", "dialects.llvm's type classes.");
  populateLLVMTypes(llvmTypes);
  py::module_ gpuAttributes =
      m.def_submodule("gpu_attributes", "dialects.gpu's attribute classes.");
  populateGPUAttributes(gpuAttributes);
  py::module_ smt =
      m.def_submodule("smt", "dialects.smt's type classes and SMT-LIB export.");
  populateSMT(smt);
  py::module_ nvgpuTypes =
      m.def_submodule("nvgpu_types", "dialects.nvgpu's type classes.");
  populateNVGPUTypes(nvgpuTypes);
  py::module_ irdl = m.def_submodule("irdl", "dialects.irdl's load_dialects.");
  populateIRDL(irdl);
  py::module_ sparseTensorAttributes =
      m.def_submodule("sparse_tensor_attributes",
                      "dialects.sparse_tensor's attribute classes.");
  populateSparseTensorAttributes(sparseTensorAttributes);
  py::module_ quantTypes =
      m.def_submodule("quant_types", "dialects.quant's type classes.");
  populateQuantTypes(quantTypes);
  populateIRDiagnostics(ir);
  populateIRSymbols(ir);
  populateIRAsmState(ir);
  populateIRCompat(ir);
  py::module_ passmanager =
      m.def_submodule("passmanager", "The tracked pass manager.");
  populatePassManager(passmanager);
  py::module_ transformInterpreter = m.def_submodule(
      "transform_interpreter", "The transform interpreter with tracking.");
  populateTransformInterpreter(transformInterpreter);
  populatePythonPasses(passmanager);
  populatePassVerification(passmanager);
  py::module_ rewrite = m.def_submodule(
      "rewrite", "Pattern rewriting and dialect conversion, tracked.");
  populateRewrite(rewrite);
  py::module_ benchmark = m.def_submodule(
      "_benchmark", "Baselines for benchmarks/python_bench.py (not API).");
  populateBenchmarkSupport(benchmark);
  // Once every concrete type and attribute class has its methods.
  guardConcreteClassMethods();
  refuseBareNew(m);
}
