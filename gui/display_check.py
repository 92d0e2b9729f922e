"""Whether the window can open here, asked before Qt is loaded: Qt aborts the process (exit 134,
with messages about plugins) when it finds no display, or when a system library its xcb platform
plugin links is not installed, which tells a user nothing useful.

No Qt import here (and no PySide6 import at all): the check has to work exactly where loading Qt
would abort, and has to be quick, so it only asks the dynamic loader (through ldd) about the xcb
plugin's file."""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import struct
import subprocess
import sys
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

PACKAGES_FILE = "debian-packages.txt"  # in the resources package: package -> sonames
LDD_TIMEOUT = 3.0  # seconds; ldd answers in some 50 ms
_NOT_FOUND = re.compile(r"^\s*(\S+) => not found", re.MULTILINE)
_CANNOT_OPEN = re.compile(r"(\S+?): cannot open shared object file")


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """One sentence saying why the window cannot open, or None when it should."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None  # Windows and macOS always have their own platform plugin
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith(("xcb", "wayland")):
        return None  # offscreen, vnc, eglfs...: the user chose it knowingly
    if chosen.startswith("wayland") or (not chosen and env.get("WAYLAND_DISPLAY")):
        return None
    display = env.get("DISPLAY", "")
    if not display:
        return "there is no display to open the window on (DISPLAY is not set)"
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if local and not Path(f"/tmp/.X11-unix/X{local.group(1)}").exists():
        return f"there is no X server on display {display}"
    missing = missing_libraries()
    return missing_sentence(missing, debian_packages()) if missing else None


def missing_sentence(missing: list[str], packages: dict[str, str]) -> str:
    """Names every missing library, then the Debian packages of those the package list knows."""
    what = "a system library that is" if len(missing) == 1 else "system libraries that are"
    sentence = f"Qt needs {what} missing: {', '.join(missing)}"
    install = list(dict.fromkeys(packages[name] for name in missing if name in packages))
    if install:
        sentence += f" (on Debian or Ubuntu: sudo apt-get install {' '.join(install)})"
    return sentence


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, found without importing PySide6 (None without one)."""
    spec = find_spec("PySide6")
    for folder in (spec.submodule_search_locations or ()) if spec else ():
        plugin = Path(folder, "Qt", "plugins", "platforms", "libqxcb.so")
        if plugin.is_file():
            return plugin
    return None


def missing_libraries(plugin: Path | None = None) -> list[str]:
    """The sonames the xcb plugin links, itself or through Qt's libraries, that the dynamic loader
    cannot find, each once, in the order the loader looks for them."""
    plugin = xcb_plugin() if plugin is None else plugin
    if plugin is None:
        return []  # no PySide6: importing the window says so itself
    listing = run_ldd(plugin)
    if listing is not None:
        return list(dict.fromkeys(_NOT_FOUND.findall(listing)))
    return unloadable_libraries(plugin)


def run_ldd(path: Path) -> str | None:
    """ldd's listing of a shared object, or None when there is no ldd or it does not answer."""
    try:
        done = subprocess.run(
            ["ldd", str(path)], capture_output=True, text=True, timeout=LDD_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 or "=>" in done.stdout else None


def unloadable_libraries(plugin: Path) -> list[str]:
    """Without ldd: follow the plugin's needed entries through the Qt libraries PySide6 bundles
    next to it, and try to load every other library the way Qt's loading would."""
    bundled = plugin.parents[2] / "lib"  # PySide6/Qt/lib, the plugin's RUNPATH
    missing: list[str] = []
    seen: set[str] = set()
    todo = [plugin]
    while todo:
        for name in needed_libraries(todo.pop()):
            if name in seen:
                continue
            seen.add(name)
            if (bundled / name).is_file():
                todo.append(bundled / name)
            elif (absent := load_error(name)) and absent not in missing:
                missing.append(absent)
    return missing


def load_error(soname: str) -> str | None:
    """The library that keeps soname from loading (itself, or one it needs), or None if it loads."""
    try:
        ctypes.CDLL(soname, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError as err:
        named = _CANNOT_OPEN.match(str(err))
        return named.group(1) if named else soname
    return None


def needed_libraries(path: Path) -> list[str]:
    """The NEEDED entries of an ELF shared object's dynamic section, as `readelf -d` lists them
    ([] for a file that is not one)."""
    try:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as elf:
            return _needed(elf)
    except (OSError, ValueError, struct.error):
        return []


def _needed(elf) -> list[str]:
    if elf[:4] != b"\x7fELF":
        return []
    wide, order = elf[4] == 2, "<" if elf[5] == 1 else ">"
    # program headers: (type, file offset, address, size in the file)
    if wide:
        table, entry_size, count = struct.unpack_from(order + "Q14xHH", elf, 0x20)
        headers = [
            struct.unpack_from(order + "I4xQQ8xQ", elf, table + i * entry_size)
            for i in range(count)
        ]
    else:
        table, entry_size, count = struct.unpack_from(order + "I10xHH", elf, 0x1C)
        headers = [
            struct.unpack_from(order + "III4xI", elf, table + i * entry_size) for i in range(count)
        ]
    dynamic = next((h for h in headers if h[0] == 2), None)  # PT_DYNAMIC
    if dynamic is None:
        return []
    pair = order + ("qQ" if wide else "iI")
    offsets, strings = [], None
    for at in range(dynamic[1], dynamic[1] + dynamic[3], struct.calcsize(pair)):
        tag, value = struct.unpack_from(pair, elf, at)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED: an offset into the string table
            offsets.append(value)
        elif tag == 5:  # DT_STRTAB: the string table's address, found in a loaded segment
            strings = next(
                (
                    offset + value - address
                    for kind, offset, address, size in headers
                    if kind == 1 and address <= value < address + size
                ),
                None,
            )
    if strings is None:
        return []
    return [elf[strings + n : elf.find(b"\0", strings + n)].decode() for n in offsets]


def package_lines(text: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """The package list's lines as (package, what Qt loads from it); comments left out."""
    if text is None:
        text = resources.files("resources").joinpath(PACKAGES_FILE).read_text(encoding="utf-8")
    lines = []
    for line in text.splitlines():
        package, colon, provides = line.split("#", 1)[0].partition(":")
        if package.strip() or colon:
            lines.append((package.strip(), tuple(provides.split())))
    return lines


def debian_packages() -> dict[str, str]:
    """Soname -> the Debian package that installs it ({} when the list cannot be read)."""
    try:
        lines = package_lines()
    except (OSError, ImportError):
        return {}
    return {name: package for package, provides in lines for name in provides}
