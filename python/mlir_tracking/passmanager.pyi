# Hand-kept type stub for mlir_tracking.passmanager (keep in step with
# python/src/PassManager.cpp, PythonPass.cpp, PassVerification.cpp).
import enum
from typing import Any, Callable, Optional, Union, overload

from .ir import Context, Module, Operation

class Pass:
    @property
    def name(self) -> Optional[str]: ...
    def signal_pass_failure(self) -> None: ...

ExternalPass = Pass

class PassDisplayMode(enum.Enum):
    LIST: PassDisplayMode
    PIPELINE: PassDisplayMode

class PassManager:
    def __init__(self, anchor_op: str = "any", context: Optional[Context] = None) -> None: ...
    @staticmethod
    def parse(pipeline: str, context: Optional[Context] = None) -> PassManager: ...
    @overload
    def add(self, pipeline: str) -> None: ...
    @overload
    def add(
        self,
        run: Callable[[Operation, Pass], Any],
        name: Optional[str] = None,
        argument: Optional[str] = None,
        description: Optional[str] = None,
        op_name: Optional[str] = None,
    ) -> None: ...
    def enable_tracking_verification(self) -> None: ...
    def run(
        self, operation: Union[Operation, Module], invalidate_ops: bool = True
    ) -> None: ...
    def enable_ir_printing(
        self,
        print_before_all: bool = False,
        print_after_all: bool = True,
        print_module_scope: bool = False,
        print_after_change: bool = False,
        print_after_failure: bool = False,
        large_elements_limit: Optional[int] = None,
        large_resource_limit: Optional[int] = None,
        enable_debug_info: bool = False,
        print_generic_op_form: bool = False,
        tree_printing_dir_path: Optional[str] = None,
    ) -> None: ...
    def enable_verifier(self, enable: bool) -> None: ...
    def enable_timing(self) -> None: ...
    def enable_statistics(
        self, displayMode: PassDisplayMode = PassDisplayMode.PIPELINE
    ) -> None: ...
    @property
    def context(self) -> Context: ...
    @property
    def _CAPIPtr(self) -> object: ...
    @staticmethod
    def _CAPICreate(capsule: object) -> PassManager: ...
    def _testing_release(self) -> None: ...
