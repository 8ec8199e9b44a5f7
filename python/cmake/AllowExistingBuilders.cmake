# Copies the enum module IN (from -gen-python-enum-bindings) to OUT with its
# attribute builders registered with allow_existing=True: a dialect whose .td
# includes another dialect's enums (affine includes arith's) then imports
# alongside that dialect's own module, keeping the builders already there.
file(READ "${IN}" text)
string(REGEX REPLACE "@register_attribute_builder\\((\"[^\"]*\")\\)"
       "@register_attribute_builder(\\1, allow_existing=True)" text "${text}")
file(WRITE "${OUT}" "${text}")
