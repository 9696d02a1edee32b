"""alea: a physical-table companion for the dice game Alea Iacta Est.

The package holds everything but the web UI: the pure rules engine (`scanner.rules`), the
vision pipeline (`scanner.vision`), the synthetic renderer (`scanner.synth`) and the CLI.
"""

__version__ = "0.1.0"
