"""The grammar's corpus tests and a check of its queries, without the
tree-sitter CLI.

The CLI (`tree-sitter test`) is what a grammar's authors run, but it cannot
be installed from npm on machines that reach only package registries (its
install script downloads the binary from GitHub). This runner does what
`tree-sitter test` does with the parser compiled by a C compiler and the
`tree-sitter` package from PyPI: it parses each corpus example, prints the
tree as the CLI does (named nodes, with their field names) and compares it
with the expected one; it parses the examples and the VS Code grammar's
test of the whole language and fails on any error node; it checks that
the Neovim and Helix highlight queries colour a small manifest as they
should (and not a misspelt value); then it compiles every query file
against the grammar, which fails on a node type or field the grammar does
not have.

    python3 test/corpus.py PATH/TO/contrib.so
"""

import ctypes
import pathlib
import re
import sys

from tree_sitter import Language, Parser, Query, QueryCursor

ROOT = pathlib.Path(__file__).resolve().parent.parent


def language(library):
    lib = ctypes.cdll.LoadLibrary(library)
    lib.tree_sitter_contrib.restype = ctypes.c_void_p
    # The bindings take the language as a capsule, as a grammar's own
    # Python package would hand it over.
    capsule = ctypes.pythonapi.PyCapsule_New
    capsule.restype = ctypes.py_object
    capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return Language(capsule(lib.tree_sitter_contrib(), b"tree_sitter.Language", None))


def sexp(node, field=None):
    """The tree as `tree-sitter test` prints it: named nodes only."""
    children = []
    cursor = node.walk()
    if cursor.goto_first_child():
        while True:
            child = cursor.node
            if child.is_named or child.is_missing:
                children.append(sexp(child, cursor.field_name))
            if not cursor.goto_next_sibling():
                break
    name = "MISSING " + node.type if node.is_missing else node.type
    text = "(" + " ".join([name] + children) + ")"
    return f"{field}: {text}" if field else text


def normalize(tree):
    return " ".join(tree.replace("(", " ( ").replace(")", " ) ").split())


HEADER = re.compile(r"^=+\n(?P<name>.*?)\n=+\n", re.M)


def examples(path):
    text = path.read_text()
    heads = list(HEADER.finditer(text))
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        body = text[head.end():end]
        source, expected = re.split(r"\n-{3,}\n", body, maxsplit=1)
        yield head.group("name"), source.strip("\n") + "\n", expected.strip()


REPOSITORY = ROOT.parent.parent


def well_formed():
    """Manifests the compiler reads without a syntax error: the examples,
    and the VS Code grammar's test of every construct of the language
    reference (rejected values included, which parse as plain words)."""
    yield from sorted((REPOSITORY / "examples").glob("*.contrib"))
    yield REPOSITORY / "editors" / "vscode" / "test" / "language.contrib"


def broken_nodes(node):
    """Every ERROR or MISSING node under `node`."""
    if node.is_error or node.is_missing:
        yield node
        return
    if node.has_error:
        for child in node.children:
            yield from broken_nodes(child)


# What each highlight query must say of a small manifest: a word and the
# capture it gets, in Neovim's (nvim-treesitter) and Helix's names.
HIGHLIGHTED = b"""plugin acme/notes 1.0.0 {
    text stance {
        placement agent
        placement agnet
        when idle > 1h30m
        budget 40 tokens
        body "Hi {person.name}"
    }
    eager-run started {
        budget 50 tokens
        call get_current_time { zone: "UTC" }
    }
}
"""
EXPECTED = {
    "queries/highlights.scm": [
        ("plugin", "keyword"), ("acme/notes", "module"), ("text", "keyword.type"),
        ("stance", "label"), ("placement", "property"), ("agent", "constant"),
        ("1h30m", "number"), ("tokens", "keyword"), ("person.name", "variable.builtin"),
        ("get_current_time", "function.call"), ("zone", "variable.parameter"),
    ],
    "queries/helix/highlights.scm": [
        ("plugin", "keyword"), ("text", "keyword.storage.type"), ("stance", "label"),
        ("placement", "variable.other.member"), ("agent", "constant"),
        ("person.name", "variable.builtin"), ("get_current_time", "function"),
    ],
}
# A misspelt value is no vocabulary word: no query may call it a constant.
NOT_CONSTANT = b"agnet"


def highlight_problems(lang, parser):
    tree = parser.parse(HIGHLIGHTED)
    for name, expected in EXPECTED.items():
        captures = QueryCursor(Query(lang, (ROOT / name).read_text())).captures(tree.root_node)
        texts = {capture: {node.text for node in nodes} for capture, nodes in captures.items()}
        for word, capture in expected:
            if word.encode() not in texts.get(capture, set()):
                yield f"{name}: `{word}` is not captured as @{capture}"
        if NOT_CONSTANT in texts.get("constant", set()):
            yield f"{name}: the misspelt `agnet` is captured as @constant"


def main(library):
    lang = language(library)
    parser = Parser(lang)
    passed = failed = 0
    for path in sorted((ROOT / "test" / "corpus").glob("*.txt")):
        for name, source, expected in examples(path):
            tree = parser.parse(source.encode())
            got = sexp(tree.root_node)
            if normalize(got) == normalize(expected):
                passed += 1
            else:
                failed += 1
                print(f"FAIL {path.name}: {name}\n  expected: {normalize(expected)}\n  got:      {normalize(got)}")
    for path in well_formed():
        errors = list(broken_nodes(parser.parse(path.read_bytes()).root_node))
        if errors:
            failed += 1
            for node in errors[:5]:
                row, column = node.start_point
                print(f"FAIL {path.relative_to(REPOSITORY)}:{row + 1}:{column + 1}: {node.type} {node.text[:40]!r}")
        else:
            passed += 1
    problems = list(highlight_problems(lang, parser))
    for problem in problems:
        print(f"FAIL {problem}")
    failed += bool(problems)
    passed += not problems
    for path in sorted((ROOT / "queries").rglob("*.scm")):
        try:
            Query(lang, path.read_text())
            passed += 1
        except Exception as problem:  # noqa: BLE001 - any error is a failure
            failed += 1
            print(f"FAIL {path.relative_to(ROOT)}: {problem}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
