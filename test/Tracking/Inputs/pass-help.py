"""Prints one pass's section of an mlir-opt style `--help`, one line per option
or enum value with whitespace collapsed (the column width depends on the
tool's longest option). Usage: tool --help | pass-help.py PASS-ARGUMENT.
Exits 1 if the pass is not listed."""

import re
import sys

# Pass arguments are listed at this indentation, their options deeper.
PASS_LINE = re.compile(r"^ {6}--(\S+)\s")

argument = sys.argv[1]
section = []
inside = False
for line in sys.stdin:
    match = PASS_LINE.match(line)
    if match:
        inside = match.group(1) == argument
    elif not line.startswith(" "):
        inside = False  # Next option category.
    if inside:
        section.append(" ".join(line.split()))
if not section:
    sys.exit(f"pass-help.py: no --{argument} in the help text")
print("\n".join(section))
