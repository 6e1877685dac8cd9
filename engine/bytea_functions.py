"""PostgreSQL's binary string functions that DuckDB has not, or has for text only (func.sgml
"Binary String Functions and Operators" and "Text/Binary String Conversion Functions"):
``sha224`` ... ``sha512`` (bytea results: DuckDB's ``sha256`` gave the digest's hex text),
``convert_to`` / ``convert_from`` / ``convert`` and ``length(bytes, encoding)`` between
PostgreSQL's encodings, ``get_byte`` / ``set_byte`` / ``get_bit`` / ``set_bit``, ``bit_count``,
and the bytea forms of ``substring``, ``position``, ``trim``, ``overlay`` and ``bit_length``.

Python functions DuckDB calls (``FUNCTIONS``), reached through macros (``MACROS``) whose typed
overloads pick the bytea form for a BLOB and DuckDB's own function for anything else; the
parser (parser/semantics.py ``_bytea_form``) sends the calls there and reads a string constant
given for a bytea as PostgreSQL's bytea input (``'\\x0102'`` is two bytes, as there).
"""

from __future__ import annotations

import hashlib
import re

from txlake.parser.semantics import BYTEA_FORM, BYTEA_MACRO, SUBSTRING_FROM_MACRO, SUBSTRING_MACRO


class ByteaFunctionError(ValueError):
    sqlstate = "22023"


class InvalidByteSequence(ByteaFunctionError):
    """Bytes that are no text in the encoding they are said to be in."""
    sqlstate = "22021"


class UntranslatableCharacter(ByteaFunctionError):
    """A character the target encoding has not."""
    sqlstate = "22P05"


class ByteIndexError(ByteaFunctionError):
    """``get_byte`` / ``set_byte`` / ``get_bit`` / ``set_bit`` past the end."""
    sqlstate = "2202E"


class EncodingNotSupported(ByteaFunctionError):
    """An encoding PostgreSQL has and Python's codecs have not (EUC_TW, MULE_INTERNAL)."""
    sqlstate = "0A000"


# the exception classes by name, for engine/errors_map.py
ERRORS = {cls.__name__: cls for cls in (ByteaFunctionError, InvalidByteSequence, UntranslatableCharacter,
                                        ByteIndexError, EncodingNotSupported)}

# PostgreSQL's server encodings (encnames.c's pg_enc2name_tbl) -> Python's codec; None: none
_CODECS = {
    "SQL_ASCII": None, "UTF8": "utf-8", "EUC_JP": "euc_jp", "EUC_CN": "gb2312", "EUC_KR": "euc_kr",
    "EUC_TW": None, "EUC_JIS_2004": "euc_jis_2004", "MULE_INTERNAL": None, "LATIN1": "latin-1",
    "LATIN2": "iso8859-2", "LATIN3": "iso8859-3", "LATIN4": "iso8859-4", "LATIN5": "iso8859-9",
    "LATIN6": "iso8859-10", "LATIN7": "iso8859-13", "LATIN8": "iso8859-14", "LATIN9": "iso8859-15",
    "LATIN10": "iso8859-16", "ISO_8859_5": "iso8859-5", "ISO_8859_6": "iso8859-6", "ISO_8859_7": "iso8859-7",
    "ISO_8859_8": "iso8859-8", "WIN866": "cp866", "WIN874": "cp874", "KOI8R": "koi8-r", "KOI8U": "koi8-u",
    **{f"WIN{n}": f"cp{n}" for n in range(1250, 1259)},
    "SJIS": "cp932", "BIG5": "cp950", "GBK": "gbk", "UHC": "cp949", "GB18030": "gb18030", "JOHAB": "johab",
    "SHIFT_JIS_2004": "shift_jis_2004",
}
# the names PostgreSQL takes for them (encnames.c's pg_encname_tbl), as clean_encoding_name
# leaves a name: lower case, letters and digits only
_ALIASES = {
    **{re.sub(r"[^a-z0-9]", "", name.lower()): name for name in _CODECS},
    "abc": "WIN1258", "alt": "WIN866", "euccn": "EUC_CN", "eucjp": "EUC_JP", "euckr": "EUC_KR", "euctw": "EUC_TW",
    **{f"iso8859{n}": name for n, name in ((1, "LATIN1"), (2, "LATIN2"), (3, "LATIN3"), (4, "LATIN4"),
                                            (5, "ISO_8859_5"), (6, "ISO_8859_6"), (7, "ISO_8859_7"),
                                            (8, "ISO_8859_8"), (9, "LATIN5"), (10, "LATIN6"), (13, "LATIN7"),
                                            (14, "LATIN8"), (15, "LATIN9"), (16, "LATIN10"))},
    "koi8": "KOI8R", "mskanji": "SJIS", "shiftjis": "SJIS", "tcvn": "WIN1258", "tcvn5712": "WIN1258",
    "unicode": "UTF8", "vscii": "WIN1258", "win": "WIN1251", "win932": "SJIS", "win936": "GBK", "win949": "UHC",
    "win950": "BIG5", **{f"windows{n}": f"WIN{n}" for n in (*range(1250, 1259), 866, 874)},
    "windows932": "SJIS", "windows936": "GBK", "windows949": "UHC", "windows950": "BIG5",
}


def _encoding(name: str, role: str) -> str:
    """PostgreSQL's name of the encoding ``name`` names (any case, any punctuation: ``utf-8``),
    or 22023 ``invalid source encoding name "x"`` (``role`` source / destination)."""
    found = _ALIASES.get(re.sub(r"[^a-z0-9]", "", name.lower()))
    if found is None:
        raise ByteaFunctionError(f'invalid {role} encoding name "{name}"')
    if found != "SQL_ASCII" and _CODECS[found] is None:
        raise EncodingNotSupported(f'conversion from or to encoding "{found}" is not supported')
    return found


def _byte_words(data: bytes) -> str:
    return " ".join(f"0x{b:02x}" for b in data)


def _utf8_length(lead: int) -> int:
    """How many bytes a UTF-8 character starting with ``lead`` has (pg_utf_mblen)."""
    return 1 if lead < 0x80 else 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else \
        4 if lead & 0xF8 == 0xF0 else 1


def _decoded(data: bytes, encoding: str) -> str:
    """``data`` as text of ``encoding`` (SQL_ASCII's bytes as the database's UTF-8, as
    PostgreSQL checks them), or 22021 as report_invalid_encoding words it."""
    codec = _CODECS[encoding] or "utf-8"
    shown = "UTF8" if encoding == "SQL_ASCII" else encoding
    nul = data.find(b"\0")
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as e:
        start = e.start if nul < 0 else min(e.start, nul)
        end = start + (_utf8_length(data[start]) if codec == "utf-8" else max(e.end - e.start, 1))
        raise InvalidByteSequence(f'invalid byte sequence for encoding "{shown}": {_byte_words(data[start:end])}') \
            from None
    if nul >= 0:  # (text holds no NUL)
        raise InvalidByteSequence(f'invalid byte sequence for encoding "{shown}": 0x00')
    return text


def _encoded(text: str, encoding: str, source: str = "UTF8") -> bytes:
    """``text`` in ``encoding``, or 22P05 naming the first character it has not."""
    codec = _CODECS[encoding] or "utf-8"
    try:
        return text.encode(codec)
    except UnicodeEncodeError as e:
        char = e.object[e.start]
        raise UntranslatableCharacter(
            f'character with byte sequence {_byte_words(char.encode(_CODECS[source] or "utf-8"))} in encoding '
            f'"{source}" has no equivalent in encoding "{encoding}"') from None


def convert_to(text: str, name: str) -> bytes:
    return _encoded(text, _encoding(name, "destination"))


def convert_from(data: bytes, name: str) -> str:
    return _decoded(data, _encoding(name, "source"))


def convert(data: bytes, source: str, destination: str) -> bytes:
    source, destination = _encoding(source, "source"), _encoding(destination, "destination")
    return _encoded(_decoded(data, source), destination, source)


def length_in(data: bytes, name: str) -> int:
    """``length(bytes, encoding)``: its characters in that encoding."""
    return len(_decoded(data, _encoding(name, "source")))


def _index(data: bytes, n: int, unit: int) -> None:
    if not 0 <= n < len(data) * unit:
        raise ByteIndexError(f"index {n} out of valid range, 0..{len(data) * unit - 1}")


def get_byte(data: bytes, n: int) -> int:
    _index(data, n, 1)
    return data[n]


def set_byte(data: bytes, n: int, value: int) -> bytes:
    _index(data, n, 1)
    return data[:n] + bytes([value & 0xFF]) + data[n + 1:]


def get_bit(data: bytes, n: int) -> int:
    """Bit ``n``: bit ``n % 8`` of byte ``n / 8``, the lowest bit first (as byteaGetBit)."""
    _index(data, n, 8)
    return data[n // 8] >> (n % 8) & 1


def set_bit(data: bytes, n: int, value: int) -> bytes:
    _index(data, n, 8)
    if value not in (0, 1):
        raise ByteaFunctionError("new bit must be 0 or 1")
    byte = data[n // 8] & ~(1 << n % 8) | value << n % 8
    return data[:n // 8] + bytes([byte]) + data[n // 8 + 1:]


def position(data: bytes, part: bytes) -> int:
    return data.find(part) + 1


def trim(data: bytes, removed: bytes, leading: bool, trailing: bool) -> bytes:
    if leading:
        data = data.lstrip(removed)
    if trailing:
        data = data.rstrip(removed)
    return data


def _digest(name: str):
    return lambda data: hashlib.new(name, data).digest()


#: (name, function, parameter types, return type): engine/dialect.py registers them; a row
#: with a NULL is NULL without a call (the functions are strict)
FUNCTIONS = (
    *((name, _digest(name), ["BLOB"], "BLOB") for name in ("sha224", "sha384", "sha512")),
    (BYTEA_FORM + "sha256", _digest("sha256"), ["BLOB"], "BLOB"),  # (DuckDB's sha256: MACROS's calls this)
    ("convert_to", convert_to, ["VARCHAR", "VARCHAR"], "BLOB"),
    ("convert_from", convert_from, ["BLOB", "VARCHAR"], "VARCHAR"),
    ("convert", convert, ["BLOB", "VARCHAR", "VARCHAR"], "BLOB"),
    (BYTEA_FORM + "length_in", length_in, ["BLOB", "VARCHAR"], "BIGINT"),
    ("get_byte", get_byte, ["BLOB", "BIGINT"], "BIGINT"),
    ("set_byte", set_byte, ["BLOB", "BIGINT", "BIGINT"], "BLOB"),
    (BYTEA_FORM + "get_bit_of", get_bit, ["BLOB", "BIGINT"], "BIGINT"),
    (BYTEA_FORM + "set_bit_of", set_bit, ["BLOB", "BIGINT", "BIGINT"], "BLOB"),
    (BYTEA_FORM + "bit_count_of", lambda data: sum(b.bit_count() for b in data), ["BLOB"], "BIGINT"),
    (BYTEA_FORM + "position_of", position, ["BLOB", "BLOB"], "BIGINT"),
    (BYTEA_FORM + "trim_of", trim, ["BLOB", "BLOB", "BOOLEAN", "BOOLEAN"], "BLOB"),
)

# the functions' names as an error shows them (a call of a text: 42883, as PostgreSQL's)
SHOWN_NAMES = {BYTEA_FORM + "sha256": "sha256", BYTEA_FORM + "length_in": "length"}

# a bytea's part by its hex text, two digits a byte (DuckDB's substring takes text only)
_PART = "unhex(substring(hex(s), 2 * {start} - 1{count}))"
_NEGATIVE = "error('negative substring length not allowed')"



def _overlay(count: str) -> str:
    return (f"CASE WHEN f < 1 THEN {_NEGATIVE} ELSE unhex(left(hex(s), 2 * (f - 1)) || hex({BYTEA_MACRO}(p)) "
            f"|| substring(hex(s), 2 * (f + {count}) - 1)) END")


#: the bytea forms parser/semantics.py calls (BYTEA_FORM + the function's name): each takes a
#: BLOB by the Python function, and anything else by DuckDB's function (or SUBSTRING_MACRO)
MACROS = (
    f"CREATE MACRO sha256(x) AS {BYTEA_FORM}sha256(x)",
    f"CREATE MACRO {BYTEA_FORM}get_bit(b BLOB, n) AS CAST({BYTEA_FORM}get_bit_of(b, n) AS INTEGER), "
    "(b, n) AS get_bit(b, n)",
    f"CREATE MACRO {BYTEA_FORM}set_bit(b BLOB, n, v) AS {BYTEA_FORM}set_bit_of(b, n, v), (b, n, v) AS set_bit(b, n, v)",
    f"CREATE MACRO {BYTEA_FORM}bit_count(b BLOB) AS {BYTEA_FORM}bit_count_of(b), (b) AS bit_count(b)",
    f"CREATE MACRO {BYTEA_FORM}bit_length(s BLOB) AS CAST(8 * octet_length(s) AS INTEGER), (s) AS bit_length(s)",
    f"CREATE MACRO {BYTEA_FORM}substring(s BLOB, f, n) AS CASE WHEN n < 0 THEN {_NEGATIVE} ELSE "
    + _PART.format(start="greatest(f, 1)", count=", 2 * greatest(f + n - greatest(f, 1), 0)")
    + f" END, (s, f, n) AS {SUBSTRING_MACRO}(s, f, n)",
    f"CREATE MACRO {BYTEA_FORM}substring_from(s BLOB, f) AS {_PART.format(start='greatest(f, 1)', count='')}, "
    f"(s, f) AS {SUBSTRING_FROM_MACRO}(s, f)",
    f"CREATE MACRO {BYTEA_FORM}position(s BLOB, p) AS CAST({BYTEA_FORM}position_of(s, {BYTEA_MACRO}(p)) AS INTEGER), "
    "(s, p) AS strpos(s, p)",
    *(f"CREATE MACRO {BYTEA_FORM}trim_{side}(s BLOB, c) AS {BYTEA_FORM}trim_of(s, {BYTEA_MACRO}(c), {leading}, "
      f"{trailing}), (s, c) AS {function}(s, c)"
      for side, leading, trailing, function in (("both", "true", "true", "trim"), ("leading", "true", "false", "ltrim"),
                                                ("trailing", "false", "true", "rtrim"))),
    # overlay(s PLACING p FROM f [FOR n]): n is p's length unless given; a start before 1 is
    # 22011, as PostgreSQL's (its first part's length is negative)
    f"CREATE MACRO {BYTEA_FORM}overlay(s BLOB, p, f, n) AS {_overlay('n')}, "
    "(s, p, f, n) AS overlay(s PLACING p FROM f FOR n), "
    f"(s BLOB, p, f) AS {_overlay(f'octet_length({BYTEA_MACRO}(p))')}, (s, p, f) AS overlay(s PLACING p FROM f)",
)
