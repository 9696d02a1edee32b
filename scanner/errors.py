"""The one error type every stage raises for bad input.

The CLI and the web API turn it into the contract's error object
`{"error": {"code", "message", "path"}}`; nothing else about bad input ever leaves the process,
so a player never sees a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: `code` says what kind, `path` is the JSON path of the offending field.

    >>> e = InputError("value.die", "die value 7 is not between 1 and 6", "$.roll[2]")
    >>> e.to_json()["error"]["path"]
    '$.roll[2]'
    """

    def __init__(self, code: str, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "path": self.path}}
