"""A seccomp filter that stops a bot from creating user namespaces.

A root arena runs bubblewrap without a user namespace of its own (so that the bot can
be a real unprivileged uid on the host, see ``bwrap.py``), which means bwrap's
``--disable-userns`` is not available. A new user namespace gives its creator every
capability inside it: no host privilege, but a far larger kernel surface to attack. This
classic-BPF program, handed to bwrap with ``--seccomp``, makes ``unshare`` and ``clone``
fail with ``EPERM`` when asked for ``CLONE_NEWUSER``, makes ``clone3`` (whose flags live in
memory a filter cannot read) fail with ``ENOSYS`` so libc falls back to ``clone``, and
refuses every system call of another ABI (i386 or x32 calls on x86-64), which would
otherwise bypass the numbers checked here.
"""

from __future__ import annotations

import platform
import struct

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000

# offsets into struct seccomp_data: nr (u32), arch (u32), ip (u64), args[6] (u64 each)
_NR, _ARCH, _ARG0_LOW = 0, 4, 16

_ARCHES: dict[str, tuple[int, int, int, int]] = {
    # machine: (AUDIT_ARCH_*, clone, unshare, clone3)
    "x86_64": (0xC000003E, 56, 272, 435),
    "aarch64": (0xC00000B7, 220, 97, 435),
}


def supported() -> bool:
    """Whether this machine's architecture has a filter here (x86-64 and arm64)."""
    return platform.machine() in _ARCHES


def no_user_namespaces() -> bytes:
    """The compiled filter for this machine (``struct sock_filter`` array); see the module docstring.

    Raises ``RuntimeError`` on an architecture without syscall numbers here.
    """
    machine = platform.machine()
    if machine not in _ARCHES:
        raise RuntimeError(f"no seccomp filter for architecture {machine}")
    arch, clone, unshare, clone3 = _ARCHES[machine]
    program = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, _ERRNO | _EPERM),  # another ABI: refuse everything
        (_LD_W_ABS, 0, 0, _NR),
        (_JGE, 0, 1, _X32_BIT),
        (_RET, 0, 0, _ERRNO | _EPERM),  # x32 numbers on x86-64
        (_JEQ, 0, 1, clone3),
        (_RET, 0, 0, _ERRNO | _ENOSYS),
        (_JEQ, 1, 0, clone),
        (_JEQ, 0, 3, unshare),
        (_LD_W_ABS, 0, 0, _ARG0_LOW),  # flags: the first argument of both (low word on little-endian)
        (_JSET, 0, 1, _CLONE_NEWUSER),
        (_RET, 0, 0, _ERRNO | _EPERM),
        (_RET, 0, 0, _ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *op) for op in program)
