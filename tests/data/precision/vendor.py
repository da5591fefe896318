#!/usr/bin/env python3
"""Packs one public repository, at one commit, as a source of the precision
set: its Markdown and JSON files (what contrib reads) with their text, and
the paths of every other file (scripts, images, and with `--only` the
top-level text files outside the part taken), which the benchmark makes as empty files so
that links and references to them resolve as in the repository. `--skip`
leaves a part out entirely (a licence that does not allow copying, or
sources that would be read if they were there). Deterministic: the same
commit gives the same bytes.

    python3 vendor.py GIT_DIR COMMIT OUT.tar.gz [--only PREFIX]... [--skip PREFIX]...
"""
import gzip
import io
import subprocess
import sys
import tarfile

TEXT = (".md", ".mdc", ".json")


def main(argv):
    git_dir, commit, out = argv[:3]
    only, skip, rest = [], [], argv[3:]
    while rest:
        flag, prefix, rest = rest[0], rest[1], rest[2:]
        (only if flag == "--only" else skip).append(prefix)
    listing = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit],
        check=True, capture_output=True,
    ).stdout.decode().split("\0")
    entries = []
    for line in listing:
        if not line:
            continue
        meta, path = line.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob" or mode == "120000":
            continue
        if any(path.startswith(prefix) for prefix in skip):
            continue
        taken = not only or any(path.startswith(prefix) for prefix in only)
        entries.append((path, blob, taken))
    entries.sort()
    others = []
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, blob, taken in entries:
            text = path.lower().endswith(TEXT)
            # A text file outside the part taken would be read, empty, as a
            # source; only the top level's (README.md, CONTRIBUTING.md),
            # which links lead to and no agent loads, stand in for theirs.
            if not taken and text and ("/" in path or path.startswith(".")):
                continue
            if not taken or not text:
                others.append(path)
                continue
            data = subprocess.run(
                ["git", "--git-dir", git_dir, "cat-file", "blob", blob],
                capture_output=True,
            )
            if data.returncode != 0:
                others.append(path)
                continue
            add(tar, path, data.stdout)
        add(tar, "PATHS", ("\n".join(others) + "\n").encode())
    with open(out, "wb") as file:
        with gzip.GzipFile(fileobj=file, mode="wb", mtime=0, filename="") as gz:
            gz.write(buffer.getvalue())


def add(tar, path, data):
    info = tarfile.TarInfo(path)
    info.size = len(data)
    info.mtime = 0
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main(sys.argv[1:])
