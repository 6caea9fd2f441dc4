"""Mooncake's ``get_into_ranges`` on kvpool, which has no ranged read: each value is read whole, once per group of
fragments that do not overlap, with the wanted ranges scattered straight into the caller's buffers and the bytes in
between into scratch memory, so nothing is copied after the read."""

from __future__ import annotations

from typing import Sequence

from .gets import Destinations
from .memory import Regions


def group_fragments(fragments: list) -> list:
    """Fragments ``(source offset, destination view, slot)`` of one key, in groups that can each be read at once:
    sorted by source offset and not overlapping."""
    groups: list = []
    for fragment in sorted(fragments, key=lambda f: f[0]):
        group = next((g for g in groups if g[-1][0] + len(g[-1][1]) <= fragment[0]), None)
        if group is None:
            groups.append([fragment])
        else:
            group.append(fragment)
    return groups


class RangeReads(Destinations):
    """``get_into_ranges``: kvpool has no ranged read, so value i is read whole, its wanted ranges straight into
    their destinations (``wanted[i]``: (source offset, destination view), sorted, not overlapping) and the bytes in
    between into scratch memory: nothing is copied afterwards."""

    def __init__(self, keys: Sequence[str], wanted: list):
        self.keys = keys
        self.wanted = wanted

    def of(self, index: int, size: int) -> Regions:
        pieces = self.wanted[index]
        end = pieces[-1][0] + len(pieces[-1][1])
        if end > size:
            raise ValueError(f"range up to byte {end} of key '{self.keys[index]}' lies beyond its {size} bytes")
        scratch = memoryview(bytearray(size - sum(len(v) for _, v in pieces)))
        views, position, used = [], 0, 0
        for src, view in pieces + [(size, memoryview(b""))]:
            views.append(scratch[used:used + src - position])
            used += src - position
            views.append(view)
            position = src + len(view)
        return Regions(views)
