"""The functions and data an ELF object file defines for others, read from its symbol table.

The loader links each object as a library of its own and must name, when it links it,
the symbols it will ask for (``loader.py``); the object's own table says which they
are, so no caller has to know what a kernel's object happens to define.
"""

from __future__ import annotations

import struct

_ELF_MAGIC = b"\x7fELF"
_SHT_SYMTAB = 2
_SYMBOL = struct.Struct("<IBBHQQ")  # st_name, st_info, st_other, st_shndx, st_value, st_size
_SECTION = struct.Struct("<IIQQQQIIQQ")  # sh_name, sh_type, ..., sh_offset, sh_size, sh_link, ...
_BINDINGS = (1, 2)  # STB_GLOBAL, STB_WEAK
_TYPES = (1, 2)  # STT_OBJECT, STT_FUNC


def defined_symbols(code: bytes) -> list[str]:
    """Names of the global (or weak), default-visibility functions and data that ``code``,
    a little-endian 64-bit ELF relocatable object, defines; ValueError for anything else."""
    if code[:4] != _ELF_MAGIC or code[4] != 2 or code[5] != 1:
        raise ValueError("not a little-endian 64-bit ELF object")
    (shoff,) = struct.unpack_from("<Q", code, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", code, 0x3A)
    sections = [_SECTION.unpack_from(code, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != _SHT_SYMTAB:
            continue
        strings = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is the null symbol
            name, info, other, shndx, _, _ = _SYMBOL.unpack_from(code, at)
            if shndx and info >> 4 in _BINDINGS and info & 0xF in _TYPES and other & 3 == 0:
                end = code.index(b"\0", strings + name)
                names.append(code[strings + name : end].decode())
    return names
