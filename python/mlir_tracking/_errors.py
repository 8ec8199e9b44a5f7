"""Exception and diagnostic classes of mlir_tracking.ir.

Defined in Python (and raised by the C++ extension) so that they behave like
upstream's ``mlir.ir.MLIRError`` and ``mlir.ir.DiagnosticInfo``.
"""

import enum


class DiagnosticSeverity(enum.Enum):
    """Severity of a diagnostic (upstream ``ir.DiagnosticSeverity``)."""

    ERROR = 0
    WARNING = 1
    NOTE = 2
    REMARK = 3


class Diagnostic:
    """A diagnostic given to a handler attached with
    ``Context.attach_diagnostic_handler``: severity, location, message and
    notes (Diagnostics). Unlike upstream's, it stays valid after the
    callback returns (it is a copy)."""

    def __init__(self, severity, location, message, notes):
        self.severity = severity
        self.location = location
        self.message = message
        self.notes = tuple(notes)

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"<Diagnostic {self.severity.name} at {self.location}: {self.message!r}>"


class DiagnosticInfo:
    """A diagnostic captured while MLIR ran: severity, location, message, notes.

    ``DiagnosticInfo(diagnostic)`` copies a ``Diagnostic``, as upstream.
    """

    def __init__(self, severity, location=None, message=None, notes=()):
        if isinstance(severity, Diagnostic):
            diagnostic = severity
            severity, location, message = (
                diagnostic.severity,
                diagnostic.location,
                diagnostic.message,
            )
            notes = [DiagnosticInfo(note) for note in diagnostic.notes]
        self.severity = severity
        self.location = location
        self.message = message
        self.notes = tuple(notes)

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"DiagnosticInfo({self.severity.name}, {self.location}, {self.message!r})"


def _location_text(location):
    # str(Location) is 'loc(...)'; upstream prints what is inside.
    text = str(location)
    if text.startswith("loc(") and text.endswith(")"):
        return text[4:-1]
    return text


class MLIRError(Exception):
    """An MLIR operation failed; ``error_diagnostics`` holds what MLIR said.

    ``str(e)`` is the message followed by one line per diagnostic, as upstream.
    """

    def __init__(self, message, error_diagnostics):
        self.message = message
        self.error_diagnostics = list(error_diagnostics)
        super().__init__(message, error_diagnostics)

    def __str__(self):
        text = self.message
        if self.error_diagnostics:
            text += ":"
        for diag in self.error_diagnostics:
            text += (
                "\nerror: "
                + _location_text(diag.location)
                + ": "
                + diag.message.replace("\n", "\n  ")
            )
            for note in diag.notes:
                text += (
                    "\n note: "
                    + _location_text(note.location)
                    + ": "
                    + note.message.replace("\n", "\n  ")
                )
        return text


class MLIRValueError(MLIRError, ValueError):
    """An ``MLIRError`` that is also a ``ValueError``: raised where upstream
    raises ``ValueError`` for what MLIR reported (the transform interpreter's
    failures), so ``except ValueError`` and ``except MLIRError`` both work.
    """


class InvalidatedHandleError(RuntimeError):
    """An operation handle that is not live was used.

    The message names the op as last seen (name and location), what happened
    to it (erased, replaced, invalidated), the pass and, when known, the
    pattern.
    """
