"""No import cycle among the Python modules of e2e/properties/ (nor, when
this runs from a checkout that has them, among those under e2e/ and
tools/). The layers of e2e/properties/, bottom first:

  kube.py                what the objects mean (both sides share it)
  generate_nodes.py ...  the generator's streams, then generate.py
  model.py               the oracle's model of a snapshot, its verdicts
  *_rules.py, ...        the rules, importing the model and rules below
  check.py               the oracle, composing the rules
  run.py, damaged.py     the runners; *_test.py the tests

Every import counts, at the top of a file or inside a function (an import
deferred into a function is still a cycle, only a hidden one).

    python3 e2e/properties/imports_test.py            # the test
    python3 e2e/properties/imports_test.py --graph    # print the module graph

Standard library only (and tools/lint/circles.py, the circle finder
check_includes.py uses too).
"""

import ast
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "lint"))
from circles import circles  # noqa: E402  (tools/lint, shared with check_includes.py)


def _modules(top):
    """path -> module file for every .py file under `top` (not under a
    directory starting with '.' or 'bazel-')."""
    out = []
    for d, dirs, files in os.walk(top, followlinks=True):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "bazel-", "__pycache__")))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def _resolve(d, name):
    """The file `import name` names from a file in directory `d` when it is
    a sibling (module or package; the scripts here put their own
    directory on sys.path), else None."""
    path = os.path.join(d, *name.split("."))
    if os.path.isfile(path + ".py"):
        return path + ".py"
    if os.path.isfile(os.path.join(path, "__init__.py")):
        return os.path.join(path, "__init__.py")
    return None


def imports(path):
    """The sibling files the file at `path` imports, anywhere in it."""
    d = os.path.dirname(path)
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for n in ast.walk(tree):
        names = []
        if isinstance(n, ast.Import):
            names = [(d, a.name) for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = d
            for _ in range(max(n.level - 1, 0)):
                base = os.path.dirname(base)
            if n.module:
                names = [(base, n.module)] + [(base, n.module + "." + a.name) for a in n.names]
            elif n.level:
                names = [(base, a.name) for a in n.names]
        for where, name in names:
            target = _resolve(where, name)
            if target and os.path.abspath(target) != os.path.abspath(path):
                out.add(os.path.normpath(target))
    return out


def graph(top):
    """module file -> the module files it imports, for every file under `top`."""
    return {os.path.normpath(p): imports(p) for p in _modules(top)}


def cycles(g):
    """The strongly connected components of more than one module (or a module
    importing itself): each an import cycle, as a sorted list."""
    return circles(g)


def _name(path, top):
    return os.path.relpath(path, top)[:-len(".py")]


def _tops():
    """e2e/properties/ always; e2e/ and tools/ as far as they are here (all
    of them in a checkout, only this directory in Bazel's runfiles)."""
    out = [HERE]
    for d in ("e2e", "tools"):
        if os.path.isdir(os.path.join(ROOT, d)):
            out.append(os.path.join(ROOT, d))
    return out


class ImportCycleTest(unittest.TestCase):
    def test_properties_has_no_cycle(self):
        g = graph(HERE)
        self.assertIn(os.path.join(HERE, "check.py"), g)
        found = cycles(g)
        self.assertEqual(found, [], "import cycles in e2e/properties/: " + "; ".join(
            " <-> ".join(_name(p, HERE) for p in c) for c in found))

    def test_e2e_and_tools_have_no_cycle(self):
        for top in _tops()[1:]:
            found = cycles(graph(top))
            self.assertEqual(found, [], "import cycles under %s/: %s" % (
                os.path.relpath(top, ROOT), "; ".join(
                    " <-> ".join(_name(p, top) for p in c) for c in found)))

    def test_layers(self):
        """The bottom imports nothing of this directory but what is below it:
        kube.py nothing, model.py only kube.py, no rule module check.py,
        and nothing of the oracle the generator."""
        g = {_name(k, HERE): {_name(v, HERE) for v in vs} for k, vs in graph(HERE).items()}
        self.assertEqual(g["kube"], set())
        self.assertEqual(g["model"], {"kube"})
        oracle = {m for m in g if m.endswith("_rules") or m in ("model", "check",
                                                                 "proportion_share",
                                                                 "reclaim_liveness")}
        for m in g:
            if m.endswith("_rules") or m in ("proportion_share", "reclaim_liveness"):
                self.assertNotIn("check", g[m], m)
            if m.startswith("generate"):
                self.assertEqual(g[m] & oracle, set(), m)
            if m in oracle:
                self.assertEqual({x for x in g[m] if x.startswith("generate")}, set(), m)

    def test_finds_a_cycle(self):
        """The checker itself: a hidden cycle (an import inside a function)
        is found."""
        g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
        self.assertEqual(cycles(g), [["a", "b", "c"], ["e"]])


def print_graph(top=HERE):
    g = graph(top)
    for k in sorted(g, key=lambda p: _name(p, top)):
        print("%-24s -> %s" % (_name(k, top), ", ".join(sorted(_name(v, top) for v in g[k]))))
    for c in cycles(g):
        print("CYCLE: " + " <-> ".join(_name(p, top) for p in c))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--graph"]:
        for top in (sys.argv[2:] or [HERE]):
            print_graph(os.path.abspath(top))
    else:
        unittest.main(verbosity=2)
