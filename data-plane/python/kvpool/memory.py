"""Values as lists of memory regions: Python buffers (bytes, bytearray, memoryview, numpy arrays) or raw addresses
(ctypes), never copied. A value may be gathered from (scattered into) several regions, e.g. one per model layer."""

from __future__ import annotations

import ctypes
from typing import Sequence

_PyBUF_READ = 0x100
_PyBUF_WRITE = 0x200
_from_memory = ctypes.pythonapi.PyMemoryView_FromMemory
_from_memory.restype = ctypes.py_object
_from_memory.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int)


def byte_view(obj, writable: bool = False) -> memoryview:
    """A flat unsigned-byte view of any C-contiguous buffer-protocol object."""
    view = obj if isinstance(obj, memoryview) else memoryview(obj)
    if not view.c_contiguous:
        raise ValueError("buffer must be C-contiguous")
    if writable and view.readonly:
        raise ValueError(f"buffer of type {type(obj).__name__} is read-only; pass a writable one (bytearray, numpy"
                         " array, memoryview of one)")
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view


def address_view(address: int, size: int, writable: bool = False) -> memoryview:
    """A view of ``size`` bytes at a raw address (from ``ctypes.addressof``, ``numpy.ndarray.ctypes.data``,
    ``torch.Tensor.data_ptr()`` of host memory...). The caller keeps that memory alive and mapped."""
    if not isinstance(address, int) or address <= 0:
        raise ValueError(f"buffer address must be a positive integer, got {address!r}")
    if not isinstance(size, int) or size < 0:
        raise ValueError(f"buffer size must be a non-negative integer, got {size!r}")
    return _from_memory(address, size, _PyBUF_WRITE if writable else _PyBUF_READ)


class Regions:
    """An ordered list of byte views holding one value back to back."""

    __slots__ = ("views", "size")

    def __init__(self, views: Sequence[memoryview]):
        self.views = [v for v in views if len(v)] or [memoryview(b"")]
        self.size = sum(len(v) for v in self.views)

    @classmethod
    def of_buffer(cls, obj, writable: bool = False) -> "Regions":
        return cls([byte_view(obj, writable)])

    @classmethod
    def of_addresses(cls, addresses: Sequence[int], sizes: Sequence[int], writable: bool = False) -> "Regions":
        if len(addresses) != len(sizes):
            raise ValueError(f"{len(addresses)} buffer addresses but {len(sizes)} sizes")
        return cls([address_view(a, s, writable) for a, s in zip(addresses, sizes)])

    def slice(self, offset: int, length: int) -> list:
        """Views of the value's bytes [offset, offset + length)."""
        views = self.views
        if len(views) == 1:
            return [views[0][offset:offset + length]]
        out = []
        position = 0
        end = offset + length
        for v in views:
            n = len(v)
            if position + n > offset and position < end:
                lo = max(offset, position) - position
                hi = min(end, position + n) - position
                out.append(v[lo:hi])
            position += n
            if position >= end:
                break
        return out
