"""Git's own path check, `verify_path`, so Baton refuses every path git itself would refuse.

A changeset path reaches GitHub's tree, then every checkout of the branch: the next agent's on
Linux, a contributor's on macOS (HFS+/APFS) or Windows (NTFS). Git refuses, when it reads a tree
into its index, names that some file system folds onto `.git` (and, for symbolic links, onto
`.gitmodules`). This mirrors git's `verify_path_internal` and `verify_dotfile` (read-cache.c)
with `core.protectHFS` and `core.protectNTFS` on: `is_hfs_dotgit` / `is_hfs_dotgitmodules`
(utf8.c: code points HFS ignores are skipped), `is_ntfs_dotgit` and `is_ntfs_dotgitmodules`
(path.c: trailing dots and spaces, an alternate data stream after `:`, the short names
`git~1`, `gitmod~N`, `gi7eba~N`), and `is_valid_win32_path` (compat/mingw.c: no `<>:"|?*` or
control character, no name ending in a dot or a space, no DOS device name such as `CON`),
which git applies on Windows. Each check is one pass over the path.
"""

from __future__ import annotations

import re

# utf8.c `next_hfs_char`: HFS+ drops these when it compares names, so `.g\u200cit` is `.git`.
HFS_IGNORED = frozenset(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)
_DROP_HFS_IGNORED = dict.fromkeys(HFS_IGNORED)
# compat/mingw.c `is_valid_win32_path`: characters no Windows name may hold.
_WIN32_INVALID = re.compile(r'[<>:"|?*\x00-\x1f]')
# The DOS device names, reserved with any extension, stream or trailing blanks (`CON.txt`).
_DOS_DEVICE = re.compile(r"(?:aux|nul|prn|con|conin\$|conout\$|com[1-9]|lpt[1-9]) *(?:[.:]|\Z)")
_SHORT_NAME = re.compile(r"[^~.]{1,6}~[1-9][0-9]{0,5}(?:\.[^.]{1,3})?\Z")
_ONE_TO_NINE = frozenset("123456789")
_ONE_TO_FOUR = frozenset("1234")
_DIGITS = frozenset("0123456789")


def _ieq(text: str, needle: str) -> bool:
    """`strncasecmp` as git uses it here: ASCII letters only fold (git clamps to ASCII)."""
    return text.isascii() and text.lower() == needle


def _hfs_is(name: str, needle: str) -> bool:
    """utf8.c `is_hfs_dot_generic`: `name` is `.` + `needle` once HFS-ignored code points are
    dropped, compared case-insensitively in ASCII."""
    return _ieq(name.translate(_DROP_HFS_IGNORED), "." + needle)


def is_hfs_dotgit(name: str) -> bool:
    return _hfs_is(name, "git")


def is_hfs_dotgitmodules(name: str) -> bool:
    return _hfs_is(name, "gitmodules")


def _only_blanks_until_stream(rest: str) -> bool:
    """path.c: what follows the name is only dots and spaces, up to its end or a `:` (an
    alternate data stream of the same file)."""
    return rest.split(":", 1)[0].strip(". ") == ""


def is_ntfs_dotgit(name: str) -> bool:
    """path.c `is_ntfs_dotgit`: `.git` or its short name `git~1`, then only dots and spaces up
    to the end or a stream (`.git::$INDEX_ALLOCATION`)."""
    if _ieq(name[:4], ".git"):
        return _only_blanks_until_stream(name[4:])
    if _ieq(name[:3], "git") and name[3:5] == "~1":
        return _only_blanks_until_stream(name[5:])
    return False


def _ntfs_fallback_short_name(name: str, prefix: str) -> bool:
    """path.c's fall-back short name: eight characters, a `~` among the first seven, before
    it the start of `prefix`, after it a digit 1-9 and more digits."""
    if len(name) < 8:
        return False
    tilde = name.find("~", 0, 7)
    if tilde == -1:
        return False
    digits = name[tilde + 1 : 8]
    return (
        _ieq(name[:tilde], prefix[:tilde])
        and digits[0] in _ONE_TO_NINE
        and all(d in _DIGITS for d in digits)
        and _only_blanks_until_stream(name[8:])
    )


def is_ntfs_dotgitmodules(name: str) -> bool:
    """path.c `is_ntfs_dot_generic(name, "gitmodules", 10, "gi7eba")`: `.gitmodules`, its
    short name `gitmod~1`..`~4`, or the fall-back short name `gi7eba~N`."""
    if _ieq(name[:11], ".gitmodules"):
        return _only_blanks_until_stream(name[11:])
    if _ieq(name[:6], "gitmod") and name[6:7] == "~" and name[7:8] in _ONE_TO_FOUR:
        return _only_blanks_until_stream(name[8:])
    return _ntfs_fallback_short_name(name, "gi7eba")


def looks_like_short_name(name: str) -> bool:
    """An NTFS 8.3 short name (`CLAUDE~1`, `GITHUB~1.YML`): on a Windows checkout it may stand
    for another name in the same directory. Git refuses the ones that reach `.git`; Baton
    refuses every one, since any could reach a forbidden directory such as `.claude`."""
    return _SHORT_NAME.match(name) is not None


def win32_problem(name: str) -> str | None:
    """compat/mingw.c `is_valid_win32_path`, for one name: why Windows could not hold it."""
    if _WIN32_INVALID.search(name):
        return "has a character Windows cannot hold in a name"
    if name.rstrip(". ") != name:
        return "has a name ending in a dot or a space"
    if _DOS_DEVICE.match(name.lower()):
        return "has a name Windows reserves for a device"
    return None


def verify_path(path: str, *, symlink: bool = False) -> str | None:
    """Why git would refuse `path` (core.protectHFS and core.protectNTFS on), or None. `path`
    is relative with `/` between names; the caller has refused empty names, `.` and `..`."""
    for name in path.split("/"):
        if is_hfs_dotgit(name) or is_ntfs_dotgit(name):
            return "is inside .git"
        if symlink and (is_hfs_dotgitmodules(name) or is_ntfs_dotgitmodules(name)):
            return "is a symbolic link named like .gitmodules"
        problem = win32_problem(name)
        if problem:
            return problem
        if looks_like_short_name(name):
            return "has a name shaped like a Windows short name (NAME~1)"
    return None
