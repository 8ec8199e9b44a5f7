"""Attribute builders by ODS attribute kind (upstream registers the same set
in ``mlir/ir.py``).

Generated op builders accept plain Python values for attributes whose kind
has a builder here (``arith.ConstantOp``'s ``value``, ``func.FuncOp``'s
``sym_name``, ...): ``ir.AttrBuilder.get(kind)(value, context=context)``.
The enum kinds register themselves from the generated ``_*_enum_gen``
modules. Typed attribute classes are looked up when a builder runs.
"""

from . import ir as _ir


def register_attribute_builder(kind, replace=False, allow_existing=False):
    """Decorator: registers `func(value, context)` as the builder of
    attributes of ODS kind `kind` (RuntimeError if taken, unless `replace`,
    or `allow_existing`, which keeps the registered builder, as later
    upstream versions do for enum modules that share a dialect's enums)."""

    def decorator(func):
        if allow_existing and not replace and _ir.AttrBuilder.contains(kind):
            return func
        _ir.AttrBuilder.insert(kind, func, replace=replace)
        return func

    return decorator


def _integer(width, signedness):
    def build(x, context):
        if signedness == "signless":
            t = _ir.IntegerType.get_signless(width, context=context)
        elif signedness == "signed":
            t = _ir.IntegerType.get_signed(width, context=context)
        else:
            t = _ir.IntegerType.get_unsigned(width, context=context)
        return _ir.IntegerAttr.get(t, x)

    return build


for _width in (1, 8, 16, 32, 64):
    register_attribute_builder(f"I{_width}Attr")(_integer(_width, "signless"))
    register_attribute_builder(f"SI{_width}Attr")(_integer(_width, "signed"))
    register_attribute_builder(f"UI{_width}Attr")(_integer(_width, "unsigned"))


@register_attribute_builder("IndexAttr")
def _index_attr(x, context):
    return _ir.IntegerAttr.get(_ir.IndexType.get(context=context), x)


@register_attribute_builder("BoolAttr")
def _bool_attr(x, context):
    return _ir.BoolAttr.get(x, context=context)


@register_attribute_builder("F32Attr")
def _f32_attr(x, context):
    return _ir.FloatAttr.get_f32(x, context=context)


@register_attribute_builder("F64Attr")
def _f64_attr(x, context):
    return _ir.FloatAttr.get_f64(x, context=context)


@register_attribute_builder("StrAttr")
def _str_attr(x, context):
    return _ir.StringAttr.get(x, context=context)


@register_attribute_builder("SymbolNameAttr")
def _symbol_name_attr(x, context):
    return _ir.StringAttr.get(x, context=context)


@register_attribute_builder("SymbolRefAttr")
def _symbol_ref_attr(x, context):
    if isinstance(x, (list, tuple)):
        return _ir.SymbolRefAttr.get(list(x), context=context)
    return _ir.FlatSymbolRefAttr.get(x, context=context)


@register_attribute_builder("FlatSymbolRefAttr")
def _flat_symbol_ref_attr(x, context):
    return _ir.FlatSymbolRefAttr.get(x, context=context)


@register_attribute_builder("UnitAttr")
def _unit_attr(x, context):
    return _ir.UnitAttr.get(context=context) if x else None


@register_attribute_builder("DictionaryAttr")
def _dict_attr(x, context):
    return _ir.DictAttr.get(x, context=context)


@register_attribute_builder("ArrayAttr")
def _array_attr(x, context):
    return _ir.ArrayAttr.get(x, context=context)


@register_attribute_builder("TypeAttr")
def _type_attr(x, context):
    return _ir.TypeAttr.get(x, context=context)


@register_attribute_builder("MemRefTypeAttr")
def _memref_type_attr(x, context):
    return _ir.TypeAttr.get(x, context=context)


@register_attribute_builder("TypeArrayAttr")
def _type_array_attr(x, context):
    return _ir.ArrayAttr.get([_type_attr(t, context) for t in x], context=context)


@register_attribute_builder("AffineMapAttr")
def _affine_map_attr(x, context):
    return _ir.AffineMapAttr.get(x)


@register_attribute_builder("IntegerSetAttr")
def _integer_set_attr(x, context):
    return _ir.IntegerSetAttr.get(x)


@register_attribute_builder("AffineMapArrayAttr")
def _affine_map_array_attr(x, context):
    return _ir.ArrayAttr.get([_affine_map_attr(v, context) for v in x], context=context)


@register_attribute_builder("BoolArrayAttr")
def _bool_array_attr(x, context):
    return _ir.ArrayAttr.get([_bool_attr(v, context) for v in x], context=context)


@register_attribute_builder("DictArrayAttr")
def _dict_array_attr(x, context):
    return _ir.ArrayAttr.get([_dict_attr(v, context) for v in x], context=context)


@register_attribute_builder("StrArrayAttr")
def _str_array_attr(x, context):
    return _ir.ArrayAttr.get([_str_attr(v, context) for v in x], context=context)


@register_attribute_builder("SymbolRefArrayAttr")
def _symbol_ref_array_attr(x, context):
    return _ir.ArrayAttr.get([_symbol_ref_attr(v, context) for v in x], context=context)


@register_attribute_builder("FlatSymbolRefArrayAttr")
def _flat_symbol_ref_array_attr(x, context):
    return _ir.ArrayAttr.get(
        [_flat_symbol_ref_attr(v, context) for v in x], context=context
    )


def _int_array(width):
    element = _integer(width, "signless")

    def build(x, context):
        return _ir.ArrayAttr.get([element(v, context) for v in x], context=context)

    return build


for _width in (32, 64):
    register_attribute_builder(f"I{_width}ArrayAttr")(_int_array(_width))


@register_attribute_builder("IndexListArrayAttr")
def _index_list_array_attr(x, context):
    build = _int_array(64)
    return _ir.ArrayAttr.get([build(v, context) for v in x], context=context)


@register_attribute_builder("F32ArrayAttr")
def _f32_array_attr(x, context):
    return _ir.ArrayAttr.get([_f32_attr(v, context) for v in x], context=context)


@register_attribute_builder("F64ArrayAttr")
def _f64_array_attr(x, context):
    return _ir.ArrayAttr.get([_f64_attr(v, context) for v in x], context=context)


def _dense_array(class_name):
    def build(x, context):
        return getattr(_ir, class_name).get(x, context=context)

    return build


for _name in ("Bool", "I8", "I16", "I32", "I64", "F32", "F64"):
    register_attribute_builder(f"Dense{_name}ArrayAttr")(_dense_array(f"Dense{_name}ArrayAttr"))
