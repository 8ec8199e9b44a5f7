# CMake helpers for mlir-tracking, in the style of CIRCT's AddCIRCT.cmake:
# MLIR's add_mlir_library and add_llvm_executable, installed into our own
# export set (MLIRTrackingTargets, namespace MLIRTracking::) rather than
# MLIR's.

# add_mlir_tracking_library(name sources... [DISABLE_INSTALL]
#                           [DEPENDS ...] [LINK_LIBS PUBLIC|PRIVATE ...])
# A static library built by add_mlir_library. Not part of libMLIR.so: it
# links to it (LINK_LIBS PUBLIC MLIR). Unless DISABLE_INSTALL, it is installed
# and exported as MLIRTracking::<name>.
function(add_mlir_tracking_library name)
  cmake_parse_arguments(ARG "DISABLE_INSTALL" "" "" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${MLIR_TRACKING_SOURCE_DIR}/include>)
  target_compile_features(${name} PUBLIC cxx_std_17)
  set_target_properties(${name} PROPERTIES FOLDER "MLIRTracking/Libraries")
  if(NOT ARG_DISABLE_INSTALL)
    add_mlir_tracking_install(${name})
  endif()
endfunction()

# add_mlir_tracking_tool(name sources... [DEPENDS ...])
# An executable built by add_llvm_executable, installed to bin/ and exported
# as MLIRTracking::<name>.
function(add_mlir_tracking_tool name)
  add_llvm_executable(${name} ${ARGN})
  llvm_update_compile_flags(${name})
  set_target_properties(${name} PROPERTIES FOLDER "MLIRTracking/Tools")
  add_mlir_tracking_install(${name})
endfunction()

# Installs a target into the MLIRTrackingTargets export set.
function(add_mlir_tracking_install name)
  install(TARGETS ${name}
    EXPORT MLIRTrackingTargets
    COMPONENT ${name}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  set_property(GLOBAL APPEND PROPERTY MLIR_TRACKING_EXPORTS ${name})
endfunction()
