#!/usr/bin/env python3
"""Unpacks the regular files of a .deb that match patterns, reading its data
archive only up to the last of them.

  deb-members.py DEB ROOT PATTERN...

A PATTERN is a tar wildcard ('./usr/include/*': '*' matches '/' too, as in
tar --wildcards). The package's md5sums (in its control archive) lists
every regular file it ships; once each listed file that matches is
unpacked, the rest of the data archive is never decompressed. For
nvidia-cuda-dev that is most of it: its headers come first, its static
libraries (2.7 GB) after. Symbolic links are not in md5sums, so a pattern
names regular files only: a link that matches is an error.
"""
import fnmatch
import io
import os
import sys
import tarfile

OPENERS = {".xz": "xz", ".gz": "gz", ".bz2": "bz2"}
# tar's own treatment of the members where Python filters extraction
EXTRACT_ARGS = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}


def die(msg):
    sys.exit(f"deb-members.py: {msg}")


def ar_members(f):
    """(name, size) of each member of an ar archive, f left at its data."""
    if f.read(8) != b"!<arch>\n":
        die("not an ar archive")
    while True:
        header = f.read(60)
        if not header:
            return
        if len(header) != 60 or header[58:60] != b"`\n":
            die("truncated ar member header")
        name = header[0:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode())
        start = f.tell()
        yield name, size
        f.seek(start + size + (size & 1))


def tar_mode(name):
    if name.endswith(".tar"):
        return "r|"
    stem, ext = os.path.splitext(name)
    if stem.endswith(".tar") and ext in OPENERS:
        return "r|" + OPENERS[ext]
    die(f"cannot read {name}")


def member_path(name):
    """A member's name as tar -t prints it: './usr/...'."""
    return "./" + name.removeprefix("./")


def matches(path, patterns):
    return any(fnmatch.fnmatchcase(path, p) for p in patterns)


def main():
    if len(sys.argv) < 4:
        die("usage: deb-members.py DEB ROOT PATTERN...")
    deb, root, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
    wanted = None
    with open(deb, "rb") as f:
        for name, size in ar_members(f):
            if name.startswith("control.tar"):
                control = io.BytesIO(f.read(size))
                with tarfile.open(fileobj=control, mode=tar_mode(name)) as tf:
                    for m in tf:
                        if member_path(m.name) == "./md5sums":
                            lines = tf.extractfile(m).read().decode().splitlines()
                            listed = (member_path(l.split(None, 1)[1]) for l in lines if l.strip())
                            wanted = {p for p in listed if matches(p, patterns)}
                if not wanted:
                    die(f"no regular file of {deb} matches {' '.join(patterns)}")
            elif name.startswith("data.tar"):
                if wanted is None:
                    die("data archive before the control archive's md5sums")
                with tarfile.open(fileobj=f, mode=tar_mode(name)) as tf:
                    for m in tf:
                        path = member_path(m.name)
                        if not matches(path, patterns):
                            continue
                        if m.issym() or m.islnk():
                            die(f"{path} is a link: name regular files only")
                        if m.isfile():
                            tf.extract(m, root, **EXTRACT_ARGS)
                            wanted.discard(path)
                            if not wanted:
                                return
                die(f"{', '.join(sorted(wanted))} not in the data archive")
    die("no data archive")


if __name__ == "__main__":
    main()
