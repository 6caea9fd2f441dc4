"""CRC32C (Castagnoli) of values: the ``crc32c`` wheel when installed (hardware instructions, releases the GIL),
else a pure-Python implementation.

The pure fallback is vectorised with the standard library: the value is cut into K lanes of L bytes that are
checksummed in lockstep. Each lane's 32-bit register is kept as four byte planes (bytes objects of K bytes, one
byte per lane); one step feeds every lane its next byte with ``bytes.translate`` as a K-wide table lookup and
big-integer XOR as a K-wide XOR. CRC registers are linear over GF(2), so the lanes are then folded pairwise
(register of the earlier lane advanced over L zero bytes, XOR the later one), again K-wide with translate tables.
Short inputs use the byte-at-a-time table.
"""

from __future__ import annotations

from typing import Iterable

_POLY = 0x82F63B78  # reflected Castagnoli polynomial

try:  # pragma: no cover - depends on the environment
    from crc32c import crc32c as _wheel_crc32c  # type: ignore
except ImportError:  # pragma: no cover
    _wheel_crc32c = None

IMPLEMENTATION = "crc32c wheel" if _wheel_crc32c is not None else "pure python"


def _make_table() -> list:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def _update_bytewise(reg: int, data) -> int:
    """The raw register (no pre/post inversion) after ``data``, one byte at a time."""
    table = _TABLE
    for b in data:
        reg = (reg >> 8) ^ table[(reg ^ b) & 0xFF]
    return reg


# ---- the vectorised fallback ----

_LANE_BYTES = 256     # L: bytes per lane
_MIN_LANES = 16       # below this many lanes the bytewise loop is as fast

# translate tables of the byte step: lane byte j of TABLE[i], for i = 0..255
_STEP = [bytes((_TABLE[i] >> (8 * j)) & 0xFF for i in range(256)) for j in range(4)]


def _gf2_matrix_times(mat: list, vec: int) -> int:
    out = 0
    i = 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_matrix_square(mat: list) -> list:
    return [_gf2_matrix_times(mat, mat[n]) for n in range(32)]


def _zeros_operator(nbytes: int) -> list:
    """The 32x32 GF(2) matrix (as 32 column ints) that advances a raw register over ``nbytes`` zero bytes."""
    # one zero bit: reg -> (reg >> 1) ^ (POLY if reg & 1)
    odd = [_POLY] + [1 << (n - 1) for n in range(1, 32)]
    result = [1 << n for n in range(32)]  # identity
    power = odd
    bits = nbytes * 8
    while bits:
        if bits & 1:
            result = [_gf2_matrix_times(power, result[n]) for n in range(32)]
        bits >>= 1
        if bits:
            power = _gf2_matrix_square(power)
    return result


def _shift_tables(nbytes: int) -> list:
    """tables[p][o]: translate table mapping input byte plane p to its contribution to output byte plane o."""
    mat = _zeros_operator(nbytes)
    tables = []
    for p in range(4):
        contributions = [_gf2_matrix_times(mat, v << (8 * p)) for v in range(256)]
        tables.append([bytes((c >> (8 * o)) & 0xFF for c in contributions) for o in range(4)])
    return tables


_fold_tables: dict = {}


def _fold_tables_for(level: int) -> list:
    tables = _fold_tables.get(level)
    if tables is None:
        tables = _shift_tables(_LANE_BYTES << level)
        _fold_tables[level] = tables
    return tables


_BLOCK_BYTES = 1 << 20  # lanes per pass: 4096 x 256 bytes, so the lane registers stay cache-sized


def _update_lanes(reg: int, block: bytes) -> int:
    """Advances ``reg`` over ``block``, whose length is a multiple of the lane length."""
    lanes = len(block) // _LANE_BYTES
    width = 1
    while width < lanes:
        width <<= 1
    pad = width - lanes  # leading zero lanes: a zero register stays zero over them
    fb = int.from_bytes
    # all lane registers in one integer: byte plane j (byte j of every lane) at bytes [j*width, (j+1)*width)
    initial = bytearray(4 * width)
    for j in range(4):
        initial[j * width + pad] = (reg >> (8 * j)) & 0xFF
    state = fb(initial, "little")
    low_plane = (1 << (8 * width)) - 1
    plane_bits = 8 * width
    t0, t1, t2, t3 = _STEP
    zero_pad = bytes(pad)
    join = b"".join
    for i in range(_LANE_BYTES):
        column = block[i::_LANE_BYTES]
        if pad:
            column = zero_pad + column
        idx = ((state ^ fb(column, "little")) & low_plane).to_bytes(width, "little")
        # reg' = (reg >> 8) ^ TABLE[(reg ^ byte) & 0xff], for every lane at once
        state = (state >> plane_bits) ^ fb(join((idx.translate(t0), idx.translate(t1), idx.translate(t2),
                                                  idx.translate(t3))), "little")
    raw = state.to_bytes(4 * width, "little")
    planes = [raw[j * width:(j + 1) * width] for j in range(4)]
    level = 0
    while width > 1:  # fold neighbouring lanes: earlier advanced over the later lane's bytes, XOR the later
        tables = _fold_tables_for(level)
        earlier = [p[0::2] for p in planes]
        later = [p[1::2] for p in planes]
        half = width // 2
        folded = []
        for o in range(4):
            acc = fb(later[o], "little")
            for p in range(4):
                acc ^= fb(earlier[p].translate(tables[p][o]), "little")
            folded.append(acc.to_bytes(half, "little"))
        planes = folded
        width = half
        level += 1
    return planes[0][0] | planes[1][0] << 8 | planes[2][0] << 16 | planes[3][0] << 24


def _pure_crc32c(data, value: int = 0) -> int:
    view = memoryview(data).cast("B") if not isinstance(data, memoryview) or data.format != "B" else data
    reg = value ^ 0xFFFFFFFF
    offset = 0
    while len(view) - offset >= _LANE_BYTES * _MIN_LANES:
        n = min(_BLOCK_BYTES, (len(view) - offset) // _LANE_BYTES * _LANE_BYTES)
        reg = _update_lanes(reg, view[offset:offset + n].tobytes())
        offset += n
    reg = _update_bytewise(reg, view[offset:])
    return reg ^ 0xFFFFFFFF


def crc32c(data, value: int = 0) -> int:
    """CRC32C of ``data`` (any contiguous buffer), continuing from the checksum ``value`` of preceding bytes."""
    if _wheel_crc32c is not None:
        return _wheel_crc32c(data, value)
    return _pure_crc32c(data, value)


def crc32c_of_regions(regions: Iterable) -> int:
    """CRC32C of the concatenation of several buffers."""
    value = 0
    for r in regions:
        value = crc32c(r, value)
    return value

