"""PostgreSQL 16's network address types, ``inet`` and ``cidr`` (network.c, inet_net_pton.c,
inet_cidr_ntop.c): their input, their text, their btree order, and the functions and
operators of functions-net.

A value is a family (4 or 6), an address (an integer of 32 or 128 bits) and a mask length.
txlake holds it as its text (PostgreSQL's output: an inet drops ``/32`` or ``/128``, a cidr
always shows its mask; IPv6 compressed, with a dotted IPv4 tail for ``::a.b.c.d`` and
``::ffff:a.b.c.d`` as inet_net_ntop writes them), which is one text per value - so equal texts
are equal values of one type, and a stored column's DISTINCT, GROUP BY, joins and keys of the
texts are the values'. Order is not the text's (``'10.0.0.2' > '9.0.0.1'`` as text): ``order_key``
gives bytes that compare as network_cmp compares values (family, then the network part up to
the smaller mask, then the mask length, then the whole address).

Input as PostgreSQL's: IPv4 octets in decimal (``10.1/16`` for an inet; a cidr also takes
fewer octets and infers the mask from the address's class: ``10`` is ``10.0.0.0/8``), IPv6
as inet_net_pton_ipv6 reads it (with a dotted IPv4 tail), an optional ``/n``. Text it
refuses is 22P02 ``invalid input syntax for type inet: "..."``; a cidr with bits set right
of its mask 22P02 ``invalid cidr value: "..."`` (DETAIL ``Value has bits set to right of mask.``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

_MAX_BITS = {4: 32, 6: 128}
# a cast to inet / cidr (parser/semantics.py): DuckDB functions reading text as the type
CASTS = {"INET": "txl_inet", "CIDR": "txl_cidr"}
# functions-net's functions, by PostgreSQL's name: the DuckDB function of each (engine/network.py;
# not of the name itself, which DuckDB keeps for its inet extension and would try to install)
FUNCTIONS = {name: f"txl_net_{name}" for name in ("abbrev", "broadcast", "family", "host", "hostmask", "inet_merge",
                                                  "inet_same_family", "masklen", "netmask", "network", "set_masklen")}
# the casts and functions: a statement calling one is marked so (``NETWORK_VALUES`` in its
# root's meta) for engine/network.py
NETWORK_FUNCTIONS = frozenset((*CASTS.values(), *FUNCTIONS.values()))
NETWORK_VALUES = "txlake_network_values"


class InetInputError(ValueError):
    """Text that is no inet / cidr value (engine/errors_map.py: by its SQLSTATE)."""
    sqlstate = "22P02"
    detail = None


class CidrBitsError(InetInputError):
    """A cidr value with bits set right of its mask."""
    detail = "Value has bits set to right of mask."


class InetFunctionError(ValueError):
    """An argument a network function refuses (``set_masklen``'s length, ``&`` of two families)."""
    sqlstate = "22023"
    detail = None


class InetRangeError(InetFunctionError):
    """``inet + n`` past the family's addresses, ``inet - inet`` past a bigint."""
    sqlstate = "22003"


ERRORS = {cls.__name__: cls for cls in (InetInputError, CidrBitsError, InetFunctionError, InetRangeError)}


@dataclass(frozen=True)
class Inet:
    family: int  # 4 or 6
    address: int
    bits: int  # the mask length
    cidr: bool = False

    @property
    def max_bits(self) -> int:
        return _MAX_BITS[self.family]

    @property
    def netmask(self) -> int:
        return ((1 << self.bits) - 1) << (self.max_bits - self.bits)

    @property
    def hostmask(self) -> int:
        return (1 << (self.max_bits - self.bits)) - 1

    def text(self) -> str:
        """PostgreSQL's output (inet_out / cidr_out)."""
        shown = self.cidr or self.bits != self.max_bits
        return _address_text(self.family, self.address) + (f"/{self.bits}" if shown else "")

    def with_mask(self) -> str:
        """``text(inet)``, the explicit cast to text: the address and its mask length, always."""
        return f"{_address_text(self.family, self.address)}/{self.bits}"

    def key(self) -> bytes:
        """Bytes whose order is network_cmp's (``order_key``)."""
        size = self.max_bits // 8
        return bytes((self.family,)) + (self.address & self.netmask).to_bytes(size, "big") + \
            bytes((self.bits,)) + self.address.to_bytes(size, "big")


def inet_in(text: str, cidr: bool = False) -> Inet:
    """PostgreSQL's ``network_in``: an inet (or a cidr) of ``text``."""
    type_name = "cidr" if cidr else "inet"
    family = 6 if ":" in text else 4
    parsed = (_cidr_v4 if cidr else _inet_v4)(text) if family == 4 else _v6(text)
    if parsed is None:
        raise InetInputError(f'invalid input syntax for type {type_name}: "{text}"')
    address, bits = parsed
    value = Inet(family, address, bits, cidr)
    if cidr and address & value.hostmask:
        raise CidrBitsError(f'invalid cidr value: "{text}"')
    return value


def canonical(text: str, cidr: bool = False) -> str:
    """``text`` read as an inet (a cidr) and written as PostgreSQL writes it: what is stored."""
    return inet_in(text, cidr).text()


def value_of(text: str) -> Inet:
    """A stored (canonical) text's value; a text with a full mask (``10.0.0.1/32``) is a cidr's."""
    value = inet_in(text)
    return Inet(value.family, value.address, value.bits, "/" in text and value.bits == value.max_bits)


def order_key(text: str) -> bytes:
    """The order key of a stored text (inet or cidr: they compare alike)."""
    return inet_in(text).key()


def of_python(value) -> str:
    """An ``ipaddress`` object's text, as psycopg dumps them: an address or an interface an
    inet's, a network a cidr's."""
    return canonical(str(value), cidr=isinstance(value, (ipaddress.IPv4Network, ipaddress.IPv6Network)))


def to_python(text: str, cidr: bool):
    """A stored text as psycopg 3 loads it: a cidr as ``ip_network``, an inet as ``ip_address``
    without a mask and ``ip_interface`` with one."""
    if cidr:
        return ipaddress.ip_network(text)
    return ipaddress.ip_interface(text) if "/" in text else ipaddress.ip_address(text)


# --- input ---------------------------------------------------------------------------------

def _octets(text: str) -> tuple[list[int], int | None] | None:
    """The decimal octets before an optional ``/bits`` (inet_net_pton_ipv4's loop), or None."""
    body, slash, width = text.partition("/")
    if slash and not (width.isdigit() and width.isascii()):
        return None
    parts = body.split(".")
    if not body or len(parts) > 4 or not all(p.isdigit() and p.isascii() for p in parts):
        return None
    octets = [int(p) for p in parts]
    if any(o > 255 for o in octets) or (slash and int(width) > 32):
        return None
    return octets, int(width) if slash else None


def _inet_v4(text: str) -> tuple[int, int] | None:
    """inet_net_pton_ipv4: a mask may be left out only after four octets, and may not claim
    more octets than are written."""
    parsed = _octets(text)
    if parsed is None:
        return None
    octets, bits = parsed
    if bits is None:
        if len(octets) != 4:
            return None
        bits = 32
    if bits // 8 > len(octets):
        return None
    return int.from_bytes(bytes(octets + [0] * (4 - len(octets))), "big"), bits


def _cidr_v4(text: str) -> tuple[int, int] | None:
    """inet_cidr_pton_ipv4: without a mask, the address's class gives it (widened to the octets
    written; a class D 224 alone is /4)."""
    parsed = _octets(text)
    if parsed is None:
        return None
    octets, bits = parsed
    if bits is None:
        first = octets[0]
        bits = 32 if first >= 240 else 8 if first >= 224 else 24 if first >= 192 else 16 if first >= 128 else 8
        bits = max(bits, len(octets) * 8)
        if bits == 8 and first == 224:
            bits = 4
    return int.from_bytes(bytes(octets + [0] * (4 - len(octets))), "big"), bits


def _v6(text: str) -> tuple[int, int] | None:
    body, slash, width = text.partition("/")
    if slash and not (width.isdigit() and width.isascii() and int(width) <= 128):
        return None
    if "%" in body or not body.isascii():  # (no zone ids: PostgreSQL's input has none)
        return None
    try:
        address = int(ipaddress.IPv6Address(body))
    except ValueError:
        return None
    return address, int(width) if slash else 128


# --- output --------------------------------------------------------------------------------

def _address_text(family: int, address: int) -> str:
    if family == 4:
        return ".".join(str(b) for b in address.to_bytes(4, "big"))
    words = [(address >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
    best_base, best_len, i = -1, 0, 0
    while i < 8:  # (the first longest run of zero words, of two or more, becomes ::)
        if words[i] == 0:
            j = i
            while j < 8 and words[j] == 0:
                j += 1
            if j - i > best_len:
                best_base, best_len = i, j - i
            i = j
        else:
            i += 1
    if best_len < 2:
        best_base = -1
    out, i = [], 0
    while i < 8:
        if i == best_base:
            out.append(":" if i == 0 else "")
            i += best_len
            if i == 8:
                out.append("")
            continue
        if i == 6 and best_base == 0 and (best_len == 6 or (best_len == 5 and words[5] == 0xFFFF)):
            out.append(".".join(str(b) for b in (address & 0xFFFFFFFF).to_bytes(4, "big")))  # (encapsulated IPv4)
            break
        out.append(f"{words[i]:x}")
        i += 1
    return ":".join(out)


# --- functions and operators (functions-net), over stored texts ------------------------------

def host(text: str) -> str:
    value = inet_in(text)
    return _address_text(value.family, value.address)


def text_of(text: str) -> str:
    return inet_in(text).with_mask()


def abbrev(text: str, cidr: bool) -> str:
    """``abbrev(inet)`` is the inet's text; ``abbrev(cidr)`` leaves out the IPv4 octets past the mask
    (inet_cidr_ntop: ``10.1.0.0/16`` is ``10.1/16``)."""
    value = inet_in(text)
    if not cidr:
        return value.text()
    if value.family == 6:
        return value.with_mask()
    if value.bits == 0:
        return "0/0"
    octets = value.address.to_bytes(4, "big")
    parts = [str(o) for o in octets[:value.bits // 8]]
    if value.bits % 8:
        parts.append(str(octets[value.bits // 8] & (0xFF << (8 - value.bits % 8)) & 0xFF))
    return ".".join(parts) + f"/{value.bits}"


def _made(value: Inet, address: int, bits: int | None = None, cidr: bool = False) -> str:
    return Inet(value.family, address, value.bits if bits is None else bits, cidr).text()


def broadcast(text: str) -> str:
    value = inet_in(text)
    return _made(value, value.address | value.hostmask)


def network(text: str) -> str:
    value = inet_in(text)
    return _made(value, value.address & value.netmask, cidr=True)


def netmask(text: str) -> str:
    value = inet_in(text)
    return _made(value, value.netmask, value.max_bits)


def hostmask(text: str) -> str:
    value = inet_in(text)
    return _made(value, value.hostmask, value.max_bits)


def masklen(text: str) -> int:
    return inet_in(text).bits


def family(text: str) -> int:
    return inet_in(text).family


def set_masklen(text: str, bits: int, cidr: bool) -> str:
    """The address with mask length ``bits`` (-1: the family's whole length); a cidr's bits
    right of the new mask are cleared."""
    value = inet_in(text)
    bits = value.max_bits if bits == -1 else bits
    if not 0 <= bits <= value.max_bits:
        raise InetFunctionError(f"invalid mask length: {bits}")
    made = Inet(value.family, value.address, bits, cidr)
    return Inet(value.family, value.address & made.netmask if cidr else value.address, bits, cidr).text()


def to_cidr(text: str) -> str:
    """``inet::cidr``: the bits right of the mask cleared (inet_to_cidr)."""
    return network(text)


def same_family(a: str, b: str) -> bool:
    return inet_in(a).family == inet_in(b).family


def merge(a: str, b: str) -> str:
    """``inet_merge``: the smallest network holding both."""
    x, y = inet_in(a), inet_in(b)
    if x.family != y.family:
        raise InetFunctionError("cannot merge addresses from different families")
    bits = min(x.bits, y.bits, _common_bits(x, y))
    return _made(x, x.address & Inet(x.family, 0, bits).netmask, bits, cidr=True)


def _common_bits(x: Inet, y: Inet) -> int:
    differing = x.address ^ y.address
    return x.max_bits - differing.bit_length()


def contained(a: str, b: str, or_equal: bool) -> bool:
    """``a << b`` (``<<=``: or equal): a's network lies in b's."""
    x, y = inet_in(a), inet_in(b)
    if x.family != y.family or not (x.bits >= y.bits if or_equal else x.bits > y.bits):
        return False
    return _common_bits(x, y) >= y.bits


def overlaps(a: str, b: str) -> bool:
    """``a && b``: either contains or equals the other."""
    x, y = inet_in(a), inet_in(b)
    return x.family == y.family and _common_bits(x, y) >= min(x.bits, y.bits)


def bitwise_not(text: str) -> str:
    value = inet_in(text)
    return _made(value, ~value.address & ((1 << value.max_bits) - 1))


def bitwise(a: str, b: str, operation: str) -> str:
    """``a & b``, ``a | b``: of one family, the longer mask."""
    x, y = inet_in(a), inet_in(b)
    if x.family != y.family:
        raise InetFunctionError(f"cannot {operation} inet values of different sizes")
    address = x.address & y.address if operation == "AND" else x.address | y.address
    return _made(x, address, max(x.bits, y.bits))


def plus(text: str, n: int) -> str:
    value = inet_in(text)
    address = value.address + n
    if not 0 <= address < 1 << value.max_bits:
        raise InetRangeError("result is out of range")
    return _made(value, address)


def minus(a: str, b: str) -> int:
    """``inet - inet``: the difference of the addresses, a bigint."""
    x, y = inet_in(a), inet_in(b)
    if x.family != y.family:
        raise InetFunctionError("cannot subtract inet values of different sizes")
    difference = x.address - y.address
    if not -(1 << 63) <= difference < 1 << 63:
        raise InetRangeError("result is out of range")
    return difference
