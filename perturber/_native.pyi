# Types of perturber._native (perturber/_native.c): the optional C twins of a few hot loops.
from collections.abc import Callable, Sequence, Set

from _typeshed import ReadableBuffer

def typo_starts(view: bytes, spans: Sequence[tuple[int, int]], min_letters: int, /) -> list[int]: ...
def free_starts(view: bytes, spans: Sequence[tuple[int, int]], /) -> bytes: ...
def stretch_sites(
    view: bytes, spans: Sequence[tuple[int, int]], runs: Sequence[tuple[int, int]], units: Set[bytes], /
) -> list[int]: ...
def typos_apply(
    text: str,
    view: bytes,
    starts: Sequence[int],
    words: ReadableBuffer,
    pos: int,
    refill: Callable[[], ReadableBuffer],
    /,
) -> tuple[str, int]: ...
def stretch_apply(
    text: str,
    sites: Sequence[int],
    k: int,
    words: ReadableBuffer,
    pos: int,
    refill: Callable[[], ReadableBuffer],
    /,
) -> tuple[str, int]: ...
def sample_indices(
    n: int, k: int, words: ReadableBuffer, pos: int, refill: Callable[[], ReadableBuffer], /
) -> tuple[list[int], int]: ...
def split_starts(view: bytes, spans: Sequence[tuple[int, int]], /) -> list[int]: ...
def merge_lefts(view: bytes, spans: Sequence[tuple[int, int]], /) -> list[int]: ...
def free_words(view: bytes, words: Set[bytes], folded: bool, longest: int, /) -> list[tuple[int, int]]: ...
def wrap_breaks(
    view: bytes, s: int, start: int, last: int, width: int, pw: int, /
) -> list[tuple[int, int]]: ...
def title_case(view: bytes, spans: Sequence[tuple[int, int]], units: Set[bytes], /) -> tuple[bytes, int]: ...
