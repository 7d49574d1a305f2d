"""check_includes.py on small trees written here: it names a circle of
files and a circle of folders (with the includes that close it), keeps
tests out of the folder graph, and passes a tree whose layers point one
way. Standard library only."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_includes  # noqa: E402


def tree(files):
    root = tempfile.mkdtemp()
    for path, includes in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write("".join('#include "%s"\n' % i for i in includes))
            f.write("#include <vector>\n")
    return root


def run(root):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = check_includes.main([root])
    return rc, out.getvalue(), err.getvalue()


class CheckIncludesTest(unittest.TestCase):

    def test_layers_pointing_one_way_pass(self):
        rc, out, _ = run(tree({
            "api/types.h": [],
            "cache/cache.h": ["api/types.h"],
            "cache/cache.cc": ["cache/cache.h", "api/types.h"],
            "kube/decode.cc": ["cache/cache.h"],
        }))
        self.assertEqual(rc, 0)
        self.assertIn("no circle among 3 folders", out)

    def test_folder_circle_is_named_with_the_includes_that_close_it(self):
        rc, _, err = run(tree({
            "client/informer.cc": ["write/binder.h"],
            "write/binder.h": ["client/http.h"],
            "client/http.h": [],
        }))
        self.assertEqual(rc, 1)
        self.assertIn("include circle between folders: client -> write -> client", err)
        self.assertIn("client/informer.cc includes write/binder.h", err)
        self.assertIn("write/binder.h includes client/http.h", err)

    def test_file_circle_inside_one_folder_is_named(self):
        rc, _, err = run(tree({
            "cel/a.h": ["cel/b.h"],
            "cel/b.h": ["cel/c.h"],
            "cel/c.h": ["cel/a.h"],
        }))
        self.assertEqual(rc, 1)
        self.assertIn("include circle between files: cel/a.h -> cel/b.h -> cel/c.h -> cel/a.h", err)

    def test_a_test_reading_the_folder_above_is_no_circle(self):
        rc, _, err = run(tree({
            "plugins/builtin.cc": ["plugins/elastic/elastic.h"],
            "plugins/builtin.h": [],
            "plugins/elastic/elastic.h": [],
            "plugins/elastic/elastic_test.cc": ["plugins/builtin.h"],
        }))
        self.assertEqual(rc, 0, err)

    def test_includes_of_files_outside_the_tree_are_ignored(self):
        rc, _, err = run(tree({
            "a/x.cc": ["absl/strings/str_cat.h", "b/y.h"],
            "b/y.h": ["nlohmann/json.hpp"],
        }))
        self.assertEqual(rc, 0, err)


if __name__ == "__main__":
    unittest.main()
