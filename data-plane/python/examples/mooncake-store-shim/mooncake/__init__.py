"""A stand-in for Mooncake's ``mooncake`` package that routes ``mooncake.store`` to kvpool (see ../README.md)."""
