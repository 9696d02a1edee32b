"""CLI subcommands, one module per stage; each registers itself with `scanner.cli.command`.

Importing this package imports them all, which is what fills `alea --help`.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
