"""Methods a class inherits, by Python's own method resolution order.

Usage: python3 inherited.py STDLIB_ROOT MODULE...
Prints one JSON object per line: {"asked": "MODULE.Class.method" asked on the
subclass, "path": file of the definition it resolves to, relative to
STDLIB_ROOT, "line": its first line (first decorator included)}. Only methods
that the subclass does not define itself and that resolve to a plain Python
function in a file under STDLIB_ROOT are listed; a module that does not import
is left out.
"""
import importlib, inspect, json, os, sys

root = os.path.realpath(sys.argv[1])
for modname in sys.argv[2:]:
    try:
        mod = importlib.import_module(modname)
    except Exception:
        continue
    for cname, cls in sorted(vars(mod).items()):
        if not inspect.isclass(cls) or cls.__module__ != modname or cls.__qualname__ != cname:
            continue
        for name in sorted(dir(cls)):
            if name in cls.__dict__:
                continue
            owner = next((b for b in cls.__mro__[1:] if name in b.__dict__), None)
            if owner is None or owner is object:
                continue
            fn = owner.__dict__[name]
            if not inspect.isfunction(fn):
                continue
            try:
                path = os.path.realpath(inspect.getsourcefile(fn))
                _, line = inspect.getsourcelines(fn)
            except (TypeError, OSError):
                continue
            if not path.startswith(root + os.sep):
                continue
            print(json.dumps({"asked": f"{modname}.{cname}.{name}", "path": os.path.relpath(path, root), "line": line}))
