"""The text of a data file (CSV, TSV, ARFF): its encoding, line endings and stray bytes.

UTF-8 with or without a byte-order mark; UTF-16 and UTF-32 (with a mark, or recognised by
their zero bytes) are read too, with a note naming them; other bytes are read as Latin-1,
with a note. Old Mac line endings (CR alone) and Windows ones (CR LF) become plain line
breaks, so every reader counts lines alike. A NUL byte anywhere, or mostly control bytes,
means the file is not a text table: it is refused, naming the line.
"""

from __future__ import annotations

from engine.errors import ArborError

_BOMS = (  # longest first: a UTF-32 LE mark starts like a UTF-16 LE one. The codecs named
    # "utf-32" and "utf-16" read the mark for the byte order and drop it.
    (b"\xff\xfe\x00\x00", "utf-32", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32", "UTF-32"),
    (b"\xef\xbb\xbf", "utf-8-sig", None),
    (b"\xff\xfe", "utf-16", "UTF-16"),
    (b"\xfe\xff", "utf-16", "UTF-16"),
)
_SAMPLE = 8192
_CONTROLS = bytes(b for b in range(32) if b not in (9, 10, 12, 13))


def _wide_encoding(sample: bytes) -> tuple[str, str] | None:
    """UTF-16 or UTF-32 without a byte-order mark, told by where the zero bytes fall: text
    in mostly ASCII letters has a zero in every other (or three of four) bytes."""
    n = len(sample) - len(sample) % 4
    if n < 8:
        return None
    sample = sample[:n]

    def zeros(part: bytes) -> float:
        return part.count(0) / len(part)

    lanes = [zeros(sample[k::4]) for k in range(4)]
    if lanes[0] < 0.1 and min(lanes[1:]) > 0.9:
        return "utf-32-le", "UTF-32"
    if lanes[3] < 0.1 and min(lanes[:3]) > 0.9:
        return "utf-32-be", "UTF-32"
    even, odd = zeros(sample[0::2]), zeros(sample[1::2])
    if even < 0.1 and odd > 0.9:
        return "utf-16-le", "UTF-16"
    if odd < 0.1 and even > 0.9:
        return "utf-16-be", "UTF-16"
    return None


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def decode_text(raw: bytes, name: str) -> tuple[str, list[str]]:
    """Text of a data file and notes on how it was read.

    >>> decode_text("caf\\xe9".encode("latin-1"), "x.csv")
    ('café', ['x.csv is not UTF-8; it was read as Latin-1'])
    >>> decode_text("a,b\\r1,2\\r".encode("utf-16"), "x.csv")
    ('a,b\\n1,2\\n', ['x.csv is UTF-16 text; it was read as such'])
    """
    notes: list[str] = []
    found = next(((codec, label) for mark, codec, label in _BOMS if raw.startswith(mark)), None)
    if found is None:
        found = _wide_encoding(raw[:_SAMPLE])
    if found is not None and found[1] is not None:
        codec, label = found
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as err:
            raise ArborError(
                f"{name} looks like {label} text but cannot be read as such (byte {err.start})"
            ) from None
        notes.append(f"{name} is {label} text; it was read as such")
    else:
        sample = raw[:_SAMPLE]
        controls = len(sample) - len(sample.translate(None, _CONTROLS))
        if controls > len(sample) // 20:  # a stray NUL is named by its line below
            raise ArborError(f"{name} is not a text table (it contains binary data)")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
            notes.append(f"{name} is not UTF-8; it was read as Latin-1")
    if "\x00" in text:
        line = _line_of(text, text.index("\x00"))
        raise ArborError(f"{name} has a NUL byte on line {line}: it is damaged or not a text table")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, notes
