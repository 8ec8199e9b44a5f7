//===- TrackingTransformOps.td - Ops of the tracked interpreter -*- tablegen -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Transform ops that the tracked interpreter inserts into its private copy
// of a transform script. They never appear in a user's script: applied by the
// plain interpreter, they fail with a clear error.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKINGTRANSFORMOPS
#define MLIR_TRACKING_TRACKINGTRANSFORMOPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"

def TrackingNoteConsumedOp : TransformDialectOp<"tracking.note_consumed",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Notes the payload that the next transform op consumes";
  let description = [{
    Placed right before every transform op that consumes handles, with those
    handles as operands. The consumer may erase any op nested in their payload
    without telling the tracking listener, so the tracked interpreter stops
    following the caller's handles to such ops: they end up `invalidated`.
    Only reads its operands and the payload; always succeeds.

    With `release_hidden` (before `transform.apply_conversion_patterns` with
    `preserve_handles`, whose listener needs a replacement for every handle
    it sees alive, dead or not), the ops nested in the payload that only
    hidden handles map are dropped from them first: upstream's script has no
    such handles, and the op failed, or crashed, on them.

    With `check`, the `transform.tracking.check_consumed` of that index
    after the consumer learns which of the ops it marked the consumer itself
    dropped.
  }];

  let arguments = (ins Variadic<TransformHandleTypeInterface>:$handles,
                       StrAttr:$consumer, UnitAttr:$release_hidden,
                       OptionalAttr<I64Attr>:$check);
  let results = (outs);
  let assemblyFormat = "$handles `by` $consumer attr-dict `:` type($handles)";
}

def TrackingCheckConsumedOp : TransformDialectOp<"tracking.check_consumed",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Notes which of the marked ops the consumer just dropped";
  let description = [{
    Placed right after a transform op that consumes handles, paired by
    `$check` with the `transform.tracking.note_consumed` before it: the ops
    that note marked and that no hidden handle maps any more were erased or
    replaced (with notification) by the consumer itself, not by a later
    transform op. Reads no operand and no payload (only addresses in the
    transform state); always succeeds.
  }];

  let arguments = (ins I64Attr:$check);
  let results = (outs);
  let assemblyFormat = "$check attr-dict";
}

def TrackingCheckHeldOp : TransformDialectOp<"tracking.check_held",
    [MatchOpInterface, DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Keeps a transform op's changes in the IR the run holds";
  let description = [{
    Placed right before every transform op that may read or change the
    payload, with its operation handles, when the run holds less than a
    whole IR tree (a pass anchored below the top, such as `func.func(...)`):
    fails definitely when a payload op of them lies outside the held IR
    (with `inserts_around`, for an op that inserts into the symbol table
    around its target: when that symbol table does). Other threads may be
    rewriting what is out there, and the run cannot follow the handles there
    (upstream's pass reads and changes it all the same, breaking the pass
    manager's contract, and crashes on such races). Only reads its operands
    and the ops' ancestors. A match op: the matchers of
    `transform.foreach_match` and `transform.collect_matching` may only hold
    those, and it guards their match ops too.
  }];

  let arguments = (ins Variadic<TransformHandleTypeInterface>:$targets,
                       StrAttr:$guarded, UnitAttr:$inserts_around);
  let results = (outs);
  let assemblyFormat = "$targets `for` $guarded attr-dict `:` type($targets)";
}

def TrackingCheckSeparateOp : TransformDialectOp<"tracking.check_separate",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Makes upstream's check that a transform op does not target "
                "its own script";
  let description = [{
    Placed right before every transform op that upstream refuses to apply to
    an op containing it (`transform.apply_cse`, `transform.apply_dce`,
    `transform.apply_patterns`, `transform.apply_conversion_patterns`,
    `transform.apply_registered_pass`; `transform.alternatives` whose scope
    contains it), with that op's target or scope handle (none for an
    `alternatives` without scope: the payload root). The script runs from a
    copy outside the payload, so upstream's own check, which walks the
    executing op's ancestors, never meets the payload: this op checks the
    ancestors of the op the copy was cloned from (entry `$guard` of the run's
    table) and fails as upstream does, with upstream's diagnostic at the
    same location. Only reads its operand and the payload.
  }];

  let arguments = (ins Optional<TransformHandleTypeInterface>:$target,
                       I64Attr:$guard);
  let results = (outs);
  let assemblyFormat =
      "($target^ `:` type($target))? `guard` $guard attr-dict";
}

def TrackingRecordResultsOp : TransformDialectOp<"tracking.record_results",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Records the payload of the handles the entry yields";
  let description = [{
    Placed right before the terminator of the sequence that runs as the
    entry. Its region, which never runs, holds a `transform.yield` of what
    the entry yields: a use after every op of the entry, so those handles
    stay alive to the end as the entry's terminator kept them, and not an
    operand, which upstream would check (it does not check the terminator).
    Records their payload ops (as addresses, not read:
    `transform.tracking.record_payload` checks them) and parameters. Only
    reads the transform state; always succeeds.
  }];

  let arguments = (ins);
  let results = (outs);
  let regions = (region SizedRegion<1>:$yields);
  let assemblyFormat = "$yields attr-dict";
}

def TrackingRecordPayloadOp : TransformDialectOp<"tracking.record_payload",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Records where the tracked ops ended up";
  let description = [{
    Placed where the hidden per-op handles are in scope once the entry is
    done: after the `transform.include` of the entry in the sequence that
    holds them, or right before the entry's terminator when the entry holds
    them. Reads their payload from the transform state (without using them as
    operands, so that their liveness, and thus the transform dialect's
    tracking decisions, stay those of the user's script), and checks the
    results that `transform.tracking.record_results` recorded. Only reads the
    payload; fails only when a result is outside the IR the run vouches for.
  }];

  let arguments = (ins);
  let results = (outs);
  let assemblyFormat = "attr-dict";
}

def TrackingBeginWalkOp : TransformDialectOp<"tracking.begin_walk",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Records what a `transform.foreach_match` walk reads besides "
                "the op it is at";
  let description = [{
    Placed right before each `transform.foreach_match` of the tracked
    interpreter's copy of a script, with its root and forwarded input
    handles, and the index `$walk` that the guards of this walk share.
    Records where the roots and the forwarded inputs are (addresses,
    compared, never dereferenced), which every
    `transform.tracking.check_walk` of the walk looks for again: upstream
    iterates the roots from the root handle's mapping and gives every
    matcher a copy of the forwarded inputs made before the walk. Only reads
    its operands and the payload; always succeeds.
  }];

  let arguments = (ins TransformHandleTypeInterface:$root,
                       Variadic<AnyType>:$forwarded,
                       I64Attr:$walk);
  let results = (outs);
  let assemblyFormat = "$root (`forwarded` `(` $forwarded^ `)`)? `walk` $walk "
                       "attr-dict `:` type(operands)";
}

def TrackingNoteWalkedOp : TransformDialectOp<"tracking.note_walked",
    [MatchOpInterface, DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Records what a `transform.foreach_match` walk still reads";
  let description = [{
    Placed first in the tracked interpreter's copy of each matcher of a
    `transform.foreach_match` (walk `$walk`), with the op being matched (the
    matcher's first argument). Upstream's `foreach_match` runs an action
    while its walk of the payload is in progress; the walk then reads, at
    each level from the matched op up to the root, the block it iterates,
    the op it visits next in it (the one after the op it entered there,
    kept from then) and the op whose regions it iterates, and above the
    root, the ops that hold it. The result, which the copy of the matcher
    yields to the copy of its action, is a parameter with their addresses
    (compared, never dereferenced) for `transform.tracking.check_walk`.
    Only reads the payload; always succeeds (a match op: matchers may only
    hold those).
  }];

  let arguments = (ins TransformHandleTypeInterface:$walked, I64Attr:$walk);
  let results = (outs TransformParamTypeInterface:$record);
  let assemblyFormat =
      "$walked `walk` $walk attr-dict `:` functional-type(operands, results)";
}

def TrackingCheckWalkOp : TransformDialectOp<"tracking.check_walk",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Stops a `transform.foreach_match` whose action changed what "
                "its walk still reads";
  let description = [{
    Placed last in the tracked interpreter's copy of each action of a
    `transform.foreach_match` (walk `$walk`), with the extra argument that
    the copy of the action receives from `transform.tracking.note_walked`.
    Looks for each recorded block and op, and for the walk's roots and
    forwarded inputs, from the top of the payload down, comparing addresses,
    and fails definitely, which stops the walk before it reads freed memory,
    when one was erased or moved elsewhere: the action changed payload
    outside the op it was applied to, which upstream's `foreach_match`
    forbids. Only reads its operand and the payload.
  }];

  let arguments = (ins TransformParamTypeInterface:$record, I64Attr:$walk);
  let results = (outs);
  let assemblyFormat = "$record `walk` $walk attr-dict `:` type($record)";
}

def TrackingWalkStepOp : TransformDialectOp<"tracking.walk_step",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Applies one step of a `transform.foreach_match` action";
  let description = [{
    Wraps each op of the tracked interpreter's copy of an action of a
    `transform.foreach_match`, with the walk record the copy receives
    (`transform.tracking.note_walked`), and yields the op's results. It
    applies the op; when the op fails silenceably, upstream's
    `foreach_match` reads the location of the op it applied the action to,
    which the action may have erased: then this op fails definitely
    instead, which stops the walk before that read. Otherwise it returns
    what the op returned. Its effects are those of the op, and its results
    are named as the op names them.
  }];

  let arguments = (ins TransformParamTypeInterface:$record);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$record attr-dict `:` type($record) (`->` type($results)^)? $body";
}

def TrackingCheckWalkResultsOp
    : TransformDialectOp<"tracking.check_walk_results",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Stops a run whose `transform.foreach_match` results hold "
                "freed ops";
  let description = [{
    Placed right after each `transform.foreach_match` of the copy, with its
    forwarded result handles. Upstream collects the actions' results in a
    list its tracking does not update: a later action that erased an op an
    earlier one yielded left the result pointing to freed memory, which the
    next transform op read. Fails definitely when an op of these handles is
    no longer in the payload (looked for by address in a walk of it, and of
    the detached trees, such as `transform.alternatives`' clones, that held
    the walk's roots and forwarded inputs when it began). Only
    reads its operands and the payload.
  }];

  let arguments = (ins Variadic<AnyType>:$results, I64Attr:$walk);
  let results = (outs);
  let assemblyFormat = "$results `walk` $walk attr-dict `:` type($results)";
}

def TrackingBeginForeachOp : TransformDialectOp<"tracking.begin_foreach",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Records the payload a `transform.foreach` iterates over";
  let description = [{
    Placed right before each `transform.foreach` of the tracked
    interpreter's copy of a script (index `$foreach`), with its targets.
    Upstream's `foreach` copies its targets' payload when it begins and maps
    each iteration's block arguments from that copy, whatever earlier
    iterations erased: this op records the same copy (addresses, never
    dereferenced) for the `transform.tracking.check_foreach` at the end of
    the body. Only reads its operands; always succeeds.
  }];

  let arguments = (ins Variadic<AnyType>:$targets, I64Attr:$foreach,
                       UnitAttr:$zip_shortest);
  let results = (outs);
  let assemblyFormat = "($targets^)? `foreach` $foreach attr-dict `:` "
                       "type($targets)";
}

def TrackingCheckForeachOp : TransformDialectOp<"tracking.check_foreach",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Stops a `transform.foreach` whose body erased the payload of "
                "a later iteration";
  let description = [{
    Placed last in the body of each `transform.foreach` of the copy (index
    `$foreach`), after the body's `transform.tracking.check_yield`; with
    `record_yields` when the foreach's results are used, it records what the
    body's terminator yields (not its operands: upstream's expensive checks
    would refuse handles that are only invalidated, which upstream's
    foreach yields without error; consumed ones, whose mapping is gone,
    check_yield refused). Finds out whether an op or op result of the next
    iteration is no longer mapped by its target handle (the transform
    dialect's tracking drops erased and replaced ops), or, when it is a
    block argument or lay in
    payload a transform op consumed since the foreach began, is no longer in
    the payload (looked for by address): it fails definitely then, which
    stops the foreach before it maps a freed op, with `maps_eagerly` (a
    block argument type that checks its payload when mapped), and leaves
    it to `transform.tracking.check_foreach_arg` otherwise. After the last
    iteration, fails definitely when it does not find the ops and values the
    iterations yielded, which upstream collects in a list its tracking does
    not update. Only reads its operands and the payload.
  }];

  let arguments = (ins I64Attr:$foreach, UnitAttr:$maps_eagerly,
                       UnitAttr:$record_yields);
  let results = (outs);
  let assemblyFormat = "`foreach` $foreach attr-dict";
}

def TrackingCheckForeachArgOp : TransformDialectOp<"tracking.check_foreach_arg",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Stops a `transform.foreach` body about to use freed payload";
  let description = [{
    Placed before each op of the body of a `transform.foreach` of the copy
    (index `$foreach`) that uses a block argument of the body. Upstream maps
    an iteration's block arguments from the payload it copied when the
    foreach began, freed or not, and reads it first where the body uses
    them (at the mapping itself for block argument types that check their
    payload: `transform.tracking.check_foreach` fails before then). Fails
    definitely when `transform.tracking.check_foreach` found this
    iteration's payload freed; a body that fails before it uses them fails
    as upstream's does. Otherwise succeeds.
  }];

  let arguments = (ins I64Attr:$foreach);
  let results = (outs);
  let assemblyFormat = "`foreach` $foreach attr-dict";
}

def TrackingCheckYieldOp : TransformDialectOp<"tracking.check_yield",
    [MatchOpInterface, DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Refuses to yield a handle that a transform op consumed";
  let description = [{
    Placed right before every `transform.yield` of the copy's transform ops
    (but the entry's, whose consumed results are refused before the run),
    with the handles it yields, at its location. The op that owns the
    region reads them after its body ran (`transform.foreach`,
    `foreach_match`'s actions, an included sequence, `alternatives`): a
    consumed handle has no mapping any more, and upstream's read of it
    crashed or read garbage. Applying this op makes the interpreter's
    expensive checks (always on in the tracked route) report a consumed
    handle as upstream reports any use of one ("op uses a handle
    invalidated by a previously executed transform op"), a definite
    failure. Only reads its operands; otherwise succeeds. A match op, as
    matchers may hold only those.
  }];

  let arguments = (ins Variadic<AnyType>:$yielded);
  let results = (outs);
  let assemblyFormat = "($yielded^)? attr-dict `:` type($yielded)";
}

def TrackingCheckAlternativeOp : TransformDialectOp<"tracking.check_alternative",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Refuses a successful alternative whose scope is in no block";
  let description = [{
    Placed last (before the terminator) in each region of a
    `transform.alternatives` of the copy, at its location, with the index of
    the `transform.tracking.check_separate` before it, which records whether
    a scope op lies in no block (top-level, or a clone that an enclosing
    alternative runs on). Reached, the alternative succeeded, and upstream's
    op would next put its clone beside that scope op, which crashes: fails
    definitely then. An alternative that fails, as upstream's, lets the next
    one run. Otherwise succeeds.
  }];

  let arguments = (ins I64Attr:$guard);
  let results = (outs);
  let assemblyFormat = "`guard` $guard attr-dict";
}

def TrackingCheckSplitOp : TransformDialectOp<"tracking.check_split",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Stops a `transform.split_handle` that would abort";
  let description = [{
    Placed right before each `transform.split_handle` with an
    `overflow_result` in the copy, at its location, with its handle and
    options. Upstream's op reserves (payload count - result count) entries
    for the overflow result before it distributes the payload, which aborts
    the process ("SmallVector unable to grow") when it has fewer payloads
    than results and goes on (`fail_on_payload_too_small = false`, or an
    empty handle with `pass_through_empty_handle`): fails definitely then.
    Only reads its operand; otherwise succeeds.
  }];

  let arguments = (ins AnyType:$handle, I64Attr:$num_results,
                       BoolAttr:$fail_on_payload_too_small,
                       BoolAttr:$pass_through_empty_handle);
  let results = (outs);
  let assemblyFormat = "$handle `into` $num_results attr-dict `:` "
                       "type($handle)";
}

#endif // MLIR_TRACKING_TRACKINGTRANSFORMOPS
