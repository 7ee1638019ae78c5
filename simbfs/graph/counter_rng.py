"""Counter-based random streams: the draws for item i depend only on (seed, stream, i).

Philox is a counter-based generator: block c of its output (four 64-bit
words) is a pure function of (key, c). Starting a fresh Philox at the right
counter therefore reproduces any slice of the stream without generating what
comes before it, which is what makes the Kronecker generator give the same
edges however its work is chunked (and lets chunks run in any order).

Each consumer uses its own stream tag in the high half of the 128-bit key, so
the edge draws, the label permutation and the uniform graph never share
random numbers for the same seed.
"""

from __future__ import annotations

import numpy as np

WORDS_PER_PHILOX_BLOCK = 4

STREAM_KRONECKER_EDGES = 1
STREAM_VERTEX_PERMUTATION = 2
STREAM_UNIFORM_ARITY = 3
STREAM_UNIFORM_NEIGHBOURS = 4
STREAM_SEARCH_KEYS = 5


def philox_key(seed: int, stream: int) -> int:
    return (stream << 64) | (seed & ((1 << 64) - 1))


def stream_words(seed: int, stream: int, first_word: int, num_words: int) -> np.ndarray:
    """Words [first_word, first_word + num_words) of the stream, as uint64."""
    first_block, skip = divmod(first_word, WORDS_PER_PHILOX_BLOCK)
    bit_generator = np.random.Philox(
        key=philox_key(seed, stream), counter=[first_block, 0, 0, 0]
    )
    words = bit_generator.random_raw(skip + num_words)
    return words[skip:] if skip else words


def stream_generator(seed: int, stream: int) -> np.random.Generator:
    """A numpy Generator on its own stream, for draws that need no chunking."""
    return np.random.Generator(np.random.Philox(key=philox_key(seed, stream)))
