#!/bin/sh
# A stand-in for upstream mlir-opt that crashes on every input, so that
# tracking-fuzz writes a reproducer for every case.
kill -SEGV $$
