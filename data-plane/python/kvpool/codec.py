"""Big-endian body encoding (PROTOCOL.md, "Field encodings"): a growing writer and a strict, bounded reader."""

from __future__ import annotations

import struct

from .errors import ProtocolError

_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")

MAX_KEY_BYTES = 4096
MAX_BATCH = 4096
MAX_SLICES = 64
MAX_VALUE_BYTES = 1 << 30
MAX_TEXT_BYTES = 8192
MAX_TOKEN_BYTES = 64
MAX_ID_BYTES = 256
MAX_ENDPOINT_BYTES = 512


class BodyWriter:
    """Appends fields to a bytearray."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, v: int) -> "BodyWriter":
        self.buf.append(v & 0xFF)
        return self

    def bool(self, v: bool) -> "BodyWriter":
        self.buf.append(1 if v else 0)
        return self

    def u16(self, v: int) -> "BodyWriter":
        self.buf += _U16.pack(v)
        return self

    def i32(self, v: int) -> "BodyWriter":
        self.buf += _I32.pack(to_i32(v))
        return self

    def i64(self, v: int) -> "BodyWriter":
        self.buf += _I64.pack(v)
        return self

    def bytes(self, b: bytes) -> "BodyWriter":
        if len(b) > 0xFFFF:
            raise ValueError(f"field of {len(b)} bytes does not fit a u16 length")
        self.buf += _U16.pack(len(b))
        self.buf += b
        return self

    def string(self, s: str) -> "BodyWriter":
        return self.bytes(s.encode("utf-8"))

    def count(self, n: int) -> "BodyWriter":
        """The i32 element count of a list; the caller writes the elements."""
        return self.i32(n)


def to_i32(v: int) -> int:
    """An unsigned 32-bit value (e.g. a CRC32C) as the signed i32 the wire carries."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


class BodyReader:
    """Reads fields from a body; every read is bounds-checked and :meth:`finish` refuses trailing bytes."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = data
        self.pos = 0
        self.end = len(data)

    def _need(self, n: int, what: str) -> None:
        if self.end - self.pos < n:
            raise ProtocolError(f"truncated body: {what} needs {n} bytes, {self.end - self.pos} left")

    def u8(self) -> int:
        self._need(1, "u8")
        v = self.data[self.pos]
        self.pos += 1
        return v

    def bool(self) -> bool:
        v = self.u8()
        if v > 1:
            raise ProtocolError(f"boolean field is {v}, expected 0 or 1")
        return v == 1

    def u16(self) -> int:
        self._need(2, "u16")
        v = _U16.unpack_from(self.data, self.pos)[0]
        self.pos += 2
        return v

    def i32(self) -> int:
        self._need(4, "i32")
        v = _I32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return v

    def u32(self) -> int:
        """An i32 field read as its unsigned value (CRC32C)."""
        return self.i32() & 0xFFFFFFFF

    def i64(self) -> int:
        self._need(8, "i64")
        v = _I64.unpack_from(self.data, self.pos)[0]
        self.pos += 8
        return v

    def index(self, maximum: int, what: str) -> int:
        """A non-negative i32 no larger than ``maximum``."""
        v = self.i32()
        if v < 0 or v > maximum:
            raise ProtocolError(f"{what} {v} outside 0..{maximum}")
        return v

    def length(self, maximum: int, what: str) -> int:
        """A non-negative i64 no larger than ``maximum``."""
        v = self.i64()
        if v < 0 or v > maximum:
            raise ProtocolError(f"{what} {v} outside 0..{maximum}")
        return v

    def bytes(self, max_bytes: int, what: str) -> bytes:
        n = self.u16()
        if n > max_bytes:
            raise ProtocolError(f"{what} of {n} bytes exceeds the limit of {max_bytes}")
        self._need(n, what)
        b = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return b

    def string(self, max_bytes: int, what: str) -> str:
        raw = self.bytes(max_bytes, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError(f"{what} is not valid UTF-8") from None

    def text(self) -> str:
        return self.string(MAX_TEXT_BYTES, "text")

    def count(self, maximum: int, min_element_bytes: int, what: str) -> int:
        """A list's i32 count, refused when above ``maximum`` or when its elements cannot fit the bytes left."""
        n = self.i32()
        if n < 0 or n > maximum:
            raise ProtocolError(f"list of {n} {what} outside 0..{maximum}")
        if n * min_element_bytes > self.end - self.pos:
            raise ProtocolError(f"list of {n} {what} cannot fit in the {self.end - self.pos} bytes left")
        return n

    def finish(self) -> None:
        if self.pos != self.end:
            raise ProtocolError(f"body has {self.end - self.pos} unexpected trailing bytes")


def key_problem(key: str) -> str | None:
    """None when ``key`` is a valid key (1..4096 UTF-8 bytes), else why not."""
    if not isinstance(key, str):
        return f"key must be a str, got {type(key).__name__}"
    if not key:
        return "key is empty"
    if len(key) * 3 <= MAX_KEY_BYTES:
        return None
    n = len(key.encode("utf-8"))
    return None if n <= MAX_KEY_BYTES else f"key of {n} UTF-8 bytes exceeds the limit of {MAX_KEY_BYTES}"
