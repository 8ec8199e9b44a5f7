"""Pattern rewriting and dialect conversion (upstream ``mlir.rewrite`` names).

Every driver here runs with a tracking listener: handles (``ir.Operation``)
follow each replacement a pattern, a fold, dead-code removal, region
simplification or a committed conversion makes, and become erased when their
op is erased. A ``TrackingConfig`` chooses the replacement rules per run.

    patterns = rewrite.RewritePatternSet()
    patterns.add("arith.addi", my_pattern)          # my_pattern(op, rewriter)
    rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
"""

from ._mlirTracking.rewrite import (
    ConversionConfig,
    ConversionTarget,
    DialectConversionFoldingMode,
    FrozenRewritePatternSet,
    GreedyRewriteConfig,
    GreedyRewriteStrictness,
    GreedySimplifyRegionLevel,
    PatternRewriter,
    PDLModule,
    PDLResultList,
    RewritePatternSet,
    TrackingConfig,
    TypeConverter,
    apply_full_conversion,
    apply_partial_conversion,
    apply_patterns_and_fold_greedily,
    walk_and_apply_patterns,
)
from ._mlirTracking.rewrite import _region_dominance_walks  # noqa: F401 (tests)

__all__ = [
    "ConversionConfig",
    "ConversionTarget",
    "DialectConversionFoldingMode",
    "FrozenRewritePatternSet",
    "GreedyRewriteConfig",
    "GreedyRewriteStrictness",
    "GreedySimplifyRegionLevel",
    "PatternRewriter",
    "PDLModule",
    "PDLResultList",
    "RewritePatternSet",
    "TrackingConfig",
    "TypeConverter",
    "apply_full_conversion",
    "apply_partial_conversion",
    "apply_patterns_and_fold_greedily",
    "walk_and_apply_patterns",
]
