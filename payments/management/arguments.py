"""Argument types shared by the management commands."""

import argparse


def positive_int(value: str) -> int:
    """A whole number of at least 1 (batch sizes, counts); anything else is a usage error."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {value!r}")
    return number
