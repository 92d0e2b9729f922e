"""One line instead of Qt's abort when the window cannot open: no display, or system libraries
that Qt's xcb platform plugin links and the machine lacks, named with the packages to install."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gui import display_check
from gui.display_check import display_problem, missing_libraries, needed_libraries, package_lines

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "resources" / "debian-packages.txt"
INSTALL = "sudo apt-get install $(sed 's/[:#].*//' resources/debian-packages.txt)"
REMOTE = {"DISPLAY": "otherhost:0"}  # a display with no local socket to look for
GLIBC = re.compile(r"(libc|libm|libdl|libpthread|librt|ld-linux[-\w]*)\.so\.\d+")

LDD_TWO_MISSING = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007fa4)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-util.so.1 => /lib/x86_64-linux-gnu/libxcb-util.so.1 (0x00007fa4)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
"""


def fake_ldd(monkeypatch, listing):
    asked = []
    monkeypatch.setattr(display_check, "xcb_plugin", lambda: Path("/x/libqxcb.so"))
    monkeypatch.setattr(display_check, "run_ldd", lambda path: asked.append(path) or listing)
    return asked


def test_no_display_is_one_line_and_exit_2():
    linux = "linux"
    assert (
        display_problem({}, linux)
        == "there is no display to open the window on (DISPLAY is not set)"
    )
    assert display_problem({"DISPLAY": ":987"}, linux) == "there is no X server on display :987"
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, linux) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, linux) is None
    assert display_problem({}, "win32") is None
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no display" in done.stderr


def test_the_package_list_gives_each_package_what_qt_loads_from_it():
    lines = package_lines()
    names = [package for package, _ in lines]
    assert len(names) == len(set(names)) and all(
        re.fullmatch(r"[a-z0-9][a-z0-9.+-]+", n) for n in names
    )
    for package, provides in lines:
        assert provides, package
        if package.startswith("fonts-"):
            assert all(name.endswith(".ttf") for name in provides), package
        else:
            assert all(re.fullmatch(r"lib\S+\.so\.\d+", name) for name in provides), package
    sonames = [name for _, provides in lines for name in provides]
    assert len(sonames) == len(set(sonames))
    assert "fonts-dejavu-core" in names
    assert ("libxcb-icccm4", ("libxcb-icccm.so.4",)) in lines
    assert ("libglib2.0-0", ("libglib-2.0.so.0", "libgthread-2.0.so.0")) in lines


def test_every_system_library_of_the_xcb_plugin_and_the_qt_it_loads_is_listed():
    plugin = display_check.xcb_plugin()
    if plugin is None:
        pytest.skip("PySide6 has no xcb platform plugin here")
    qt = plugin.parents[2]
    todo = [
        plugin,
        *sorted((qt / "plugins" / "xcbglintegrations").glob("*.so")),
        *(qt / "lib" / f"libQt6{name}.so.6" for name in ("Widgets", "Svg")),
    ]
    system, seen = set(), set()
    while todo:
        for name in needed_libraries(todo.pop()):
            if name not in seen:
                seen.add(name)
                if (qt / "lib" / name).is_file():
                    todo.append(qt / "lib" / name)
                elif not GLIBC.fullmatch(name):
                    system.add(name)
    assert {"libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libxcb-icccm.so.4"} <= seen
    listed = {name for _, provides in package_lines() for name in provides}
    assert system - listed == set()


def test_the_install_line_in_the_header_gives_exactly_the_package_names():
    text = PACKAGES.read_text(encoding="utf-8")
    assert f"#   {INSTALL}\n" in text
    words = INSTALL.removeprefix(
        "sudo apt-get install "
    )  # split by the shell, as apt-get gets them
    done = subprocess.run(
        ["bash", "-c", f"printf '%s\\n' {words}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.split("\n")[:-1] == [package for package, _ in package_lines()]


def test_every_missing_library_is_named_with_its_package(monkeypatch):
    asked = fake_ldd(monkeypatch, LDD_TWO_MISSING)
    assert display_problem(REMOTE, "linux") == (
        "Qt needs system libraries that are missing: libxcb-icccm.so.4, libxcb-keysyms.so.1 "
        "(on Debian or Ubuntu: sudo apt-get install libxcb-icccm4 libxcb-keysyms1)"
    )
    assert asked == [Path("/x/libqxcb.so")]


def test_a_library_the_list_does_not_know_is_named_too(monkeypatch):
    fake_ldd(monkeypatch, "\tlibxcb-icccm.so.4 => not found\n\tlibnew.so.9 => not found\n")
    assert display_problem(REMOTE, "linux") == (
        "Qt needs system libraries that are missing: libxcb-icccm.so.4, libnew.so.9 "
        "(on Debian or Ubuntu: sudo apt-get install libxcb-icccm4)"
    )
    fake_ldd(monkeypatch, "\tlibnew.so.9 => not found\n")
    assert (
        display_problem(REMOTE, "linux") == "Qt needs a system library that is missing: libnew.so.9"
    )


def test_nothing_missing_is_no_problem(monkeypatch):
    asked = fake_ldd(monkeypatch, "\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x7f)\n")
    assert display_problem(REMOTE, "linux") is None
    assert display_problem({"DISPLAY": ":987"}, "linux") == "there is no X server on display :987"
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert len(asked) == 1  # only asked once there is a display to open the window on


def test_without_ldd_the_plugins_needed_libraries_are_loaded_one_by_one(monkeypatch, tmp_path):
    plugin = display_check.xcb_plugin()
    if plugin is None:
        pytest.skip("PySide6 has no xcb platform plugin here")
    monkeypatch.setenv("PATH", str(tmp_path))  # no ldd to run
    assert display_check.run_ldd(plugin) is None
    absent = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}
    tried = []
    monkeypatch.setattr(
        display_check,
        "load_error",
        lambda name: tried.append(name) or (name if name in absent else None),
    )
    assert missing_libraries(plugin) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert display_problem(REMOTE, "linux") == (
        "Qt needs system libraries that are missing: libxcb-icccm.so.4, libxcb-keysyms.so.1 "
        "(on Debian or Ubuntu: sudo apt-get install libxcb-icccm4 libxcb-keysyms1)"
    )
    assert "libxcb.so.1" in tried and "libdbus-1.so.3" in tried  # through Qt's own libraries
    assert not any(name.startswith("libQt6") for name in tried)  # those come with PySide6


def test_loading_finds_what_ldd_finds_missing_here():
    plugin = display_check.xcb_plugin()
    listing = display_check.run_ldd(plugin) if plugin else None
    if listing is None:
        pytest.skip("no xcb plugin or no ldd here")
    assert sorted(display_check.unloadable_libraries(plugin)) == sorted(missing_libraries(plugin))
    assert display_check.load_error("libc.so.6") is None
    assert display_check.load_error("libsurely-not-here.so.7") == "libsurely-not-here.so.7"


def test_needed_libraries_reads_elf_files_and_nothing_else(tmp_path):
    (tmp_path / "notes.txt").write_text("not an ELF file")
    assert needed_libraries(tmp_path / "notes.txt") == []
    assert needed_libraries(tmp_path / "absent.so") == []
    plugin = display_check.xcb_plugin()
    if plugin is not None:
        assert needed_libraries(plugin)[0] == "libQt6XcbQpa.so.6"


def test_the_check_loads_no_qt():
    code = (
        "import sys; from gui.display_check import display_problem as p; "
        "p({'DISPLAY': 'otherhost:0'}, 'linux'); "
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == "[]\n"
