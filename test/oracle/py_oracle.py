"""Independent oracle for evidex's Python extraction (docs/tools.md, Python rules).

Computed from Python's own `ast` and the words of docs/tools.md, never from the
TypeScript implementation, so the differential test can catch either side.

stdin:  {"root": "/abs/dir", "files": ["rel/a.py", ...]}
stdout: a JSON array, one entry per file, in input order:
  {"path", "ok": ast.parse succeeded,
   "defs": [{name, qualname, kind, start, end}],
   "imports": [{start, end, targets: [...]}],
   "modules": [module names of the file]}

Rules (docs/tools.md, Python rules, plus the decided edge rules):
- class/def/async def at any depth; kind "method" when the enclosing scope is
  a class body, else "class"/"function"; span from the first decorator (or
  the keyword) to end_lineno; qualname joins the enclosing class/def names.
- variables: Name targets of Assign (all chained targets), AnnAssign,
  AugAssign, through Tuple/List/Starred unpacking, in module or class scope;
  statements inside if/try/with/for/while/match blocks count for the scope
  they sit in, those inside a def/class body belong to that def/class. One
  entry per (name, statement), spanning the statement.
- packages: a folder holding __init__.py or __init__.pyi (the root never
  counts). A file's package chain runs from its folder up to the topmost
  ancestor that is a package; folders in between without an __init__ are
  namespace portions (PEP 420) and stay in the chain.
- module names: dotted path from the folder above the chain, then the dotted
  path from the root; a .pyi stub has the names of its .py.
- imports: every Import/ImportFrom anywhere; targets per docs/tools.md, with
  relative imports resolved against the file's package (its chain's dotted
  name; a file outside any package resolves against its folder's dotted
  path). Climbing above the root gives no targets; an empty resolved package
  gives just the imported names.
- lines are counted at "\\n" only (docs/tools.md, Evidence); Python also ends lines at
  a lone "\\r", so ast line numbers are mapped when a file has one.
"""
import ast
import json
import os
import re
import sys
import warnings


PY_SUFFIXES = (".py", ".pyi")
INIT_NAMES = ("__init__.py", "__init__.pyi")


def package_dirs(files):
    """Folders (POSIX, relative; "" is the root) that hold __init__.py or __init__.pyi."""
    dirs = set()
    for f in files:
        head, _, name = f.rpartition("/")
        if name in INIT_NAMES:
            dirs.add(head)
    return dirs


def ancestors(folder):
    """folder and every folder above it, innermost first, the root ("") left out."""
    out = []
    while folder != "":
        out.append(folder)
        folder = folder.rpartition("/")[0]
    return out


def chain_parent(folder, pkgs):
    """The folder above the package chain of a file in `folder`: the parent of
    the topmost ancestor that is a package, or None when no ancestor is one."""
    tops = [a for a in ancestors(folder) if a in pkgs]
    if not tops:
        return None
    return tops[-1].rpartition("/")[0]


def dotted_below(folder, parent):
    """folder's path below parent, dotted ("" when they are the same)."""
    rel = folder if parent == "" else folder[len(parent) + 1:]
    return rel.replace("/", ".")


def base_package(path, pkgs):
    folder = path.rpartition("/")[0]
    parent = chain_parent(folder, pkgs)
    return dotted_below(folder, "" if parent is None else parent)


def module_names(path, pkgs):
    name = path.rpartition("/")[2]
    if not name.endswith(PY_SUFFIXES):
        return []
    folder = path.rpartition("/")[0]
    stem = name.rsplit(".", 1)[0]

    def dotted(pkg):
        parts = [p for p in pkg.split(".") if p]
        if stem != "__init__":
            parts.append(stem)
        return ".".join(parts)

    parent = chain_parent(folder, pkgs)
    pkg_based = dotted("" if parent is None else dotted_below(folder, parent))
    names = []
    for n in (pkg_based, dotted(folder.replace("/", "."))):
        if n and n not in names:
            names.append(n)
    return names


def import_targets(node, path, pkgs):
    out = []

    def add(t):
        if t and t not in out:
            out.append(t)

    if isinstance(node, ast.Import):
        for a in node.names:
            add(a.name)
        return out
    if node.level:
        base = base_package(path, pkgs)
        comps = base.split(".") if base else []
        up = node.level - 1
        if up > len(comps):
            return out
        comps = comps[: len(comps) - up]
        if node.module:
            comps.append(node.module)
        p = ".".join(comps)
    else:
        p = node.module or ""
    add(p)
    for a in node.names:
        if a.name != "*":
            add(f"{p}.{a.name}" if p else a.name)
    return out


def names_in_target(t, acc):
    if isinstance(t, ast.Name):
        acc.append(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            names_in_target(e, acc)
    elif isinstance(t, ast.Starred):
        names_in_target(t.value, acc)


def child_statements(stmt):
    """Statements directly nested in a compound statement's blocks (same scope)."""
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.stmt):
            yield child
        elif isinstance(child, (ast.excepthandler, ast.match_case)):
            for s in child.body:
                yield s


class Oracle:
    def __init__(self, path, pkgs, line_of):
        self.path, self.pkgs, self.line_of = path, pkgs, line_of
        self.defs, self.imports = [], []

    def walk(self, stmts, scope_kind, qual):
        for s in stmts:
            self.statement(s, scope_kind, qual)

    def statement(self, s, scope_kind, qual):
        L = self.line_of
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            is_class = isinstance(s, ast.ClassDef)
            kind = "class" if is_class else ("method" if scope_kind == "class" else "function")
            q = f"{qual}.{s.name}" if qual else s.name
            start = s.decorator_list[0].lineno if s.decorator_list else s.lineno
            self.defs.append({"name": s.name, "qualname": q, "kind": kind,
                              "start": L(start), "end": L(s.end_lineno)})
            # Decorators, defaults and bases are expressions: nothing to find there.
            self.walk(s.body, "class" if is_class else "function", q)
            return
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            self.imports.append({"start": L(s.lineno), "end": L(s.end_lineno),
                                 "targets": import_targets(s, self.path, self.pkgs)})
            return
        if scope_kind != "function":
            names = []
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    names_in_target(t, names)
            elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
                names_in_target(s.target, names)
            seen = set()
            for n in names:
                if n not in seen:
                    seen.add(n)
                    self.defs.append({"name": n, "qualname": f"{qual}.{n}" if qual else n,
                                      "kind": "variable", "start": L(s.lineno), "end": L(s.end_lineno)})
        self.walk(child_statements(s), scope_kind, qual)


LONE_CR = re.compile(rb"\r(?!\n)")
PY_LINE_END = re.compile(rb"\r\n|\r|\n")


def line_mapper(data):
    """ast line -> evidex line. Identity unless a lone "\\r" (a line end to
    Python, not to docs/tools.md) shifts the count."""
    if not LONE_CR.search(data):
        return lambda n: n
    starts = [0] + [m.end() for m in PY_LINE_END.finditer(data)]
    table = [data.count(b"\n", 0, off) + 1 for off in starts]
    return lambda n: table[n - 1] if n - 1 < len(table) else table[-1]


def one_file(root, path, pkgs):
    with open(os.path.join(root, path), "rb") as fh:
        data = fh.read()
    entry = {"path": path, "ok": False, "defs": [], "imports": [], "modules": module_names(path, pkgs)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return entry
    o = Oracle(path, pkgs, line_mapper(data))
    o.walk(tree.body, "module", "")
    entry.update(ok=True, defs=o.defs, imports=o.imports)
    return entry


def main():
    req = json.load(sys.stdin)
    pkgs = package_dirs(req["files"])
    out = [one_file(req["root"], f, pkgs) for f in req["files"]]
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
