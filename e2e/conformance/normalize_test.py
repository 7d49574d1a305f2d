"""The runner's copies of kube-scheduler's NormalizeScore, checked on raw
scores whose final values kube-scheduler's own score tables state (the raw
values are what each plugin's Score returns for those tables), and on the
edge cases of each formula. No binary needed."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance_test import (compare_explain, default_normalize,  # noqa: E402
                              interpod_normalize, normalize, spread_normalize)


class InterPodAffinity(unittest.TestCase):
    def test_min_max_scaling(self):
        # TestPreferredAffinity "different Label operators ...": raw 2 / 10 / 0 -> 20 / 100 / 0.
        self.assertEqual(interpod_normalize({"n1": 2, "n2": 10, "n3": 0}),
                         {"n1": 20, "n2": 100, "n3": 0})

    def test_all_positive_scales_from_the_lowest(self):
        # "nodes in one region has more matching pods": China 3x6, India 2x6 -> 100 / 0,
        # the minimum is the lowest score, not 0.
        self.assertEqual(interpod_normalize({"c1": 18, "i1": 12, "c2": 18}),
                         {"c1": 100, "i1": 0, "c2": 100})

    def test_negative_scores(self):
        # anti-affinity: -10 / 0 / -5 -> 0 / 100 / 50
        self.assertEqual(interpod_normalize({"a": -10, "b": 0, "c": -5}),
                         {"a": 0, "b": 100, "c": 50})

    def test_truncates(self):
        self.assertEqual(interpod_normalize({"a": 0, "b": 1, "c": 3}),
                         {"a": 0, "b": 33, "c": 100})

    def test_equal_scores_are_all_zero(self):
        self.assertEqual(interpod_normalize({"a": 7, "b": 7}), {"a": 0, "b": 0})
        self.assertEqual(interpod_normalize({}), {})


class PodTopologySpread(unittest.TestCase):
    def test_formula(self):
        # 100 * (max + min - s) / max with integer division
        self.assertEqual(spread_normalize({"a": 1, "b": 2, "c": 4}),
                         {"a": 100, "b": 75, "c": 25})

    def test_ignored_nodes_get_zero_and_do_not_count(self):
        self.assertEqual(spread_normalize({"a": 2, "b": 4, "x": 0}, ignored={"x"}),
                         {"a": 100, "b": 50, "x": 0})

    def test_max_zero(self):
        self.assertEqual(spread_normalize({"a": 0, "b": 0}), {"a": 100, "b": 100})
        self.assertEqual(spread_normalize({"a": 0, "b": 0}, ignored={"a"}),
                         {"a": 0, "b": 100})

    def test_all_ignored(self):
        self.assertEqual(spread_normalize({"a": 0}, ignored={"a"}), {"a": 0})


class DefaultNormalizer(unittest.TestCase):
    def test_node_affinity(self):
        # NodeAffinity: DefaultNormalizeScore(100, false): [0, max] -> [0, 100]
        self.assertEqual(normalize("NodeAffinity", {"a": 0, "b": 2, "c": 5}),
                         {"a": 0, "b": 40, "c": 100})
        self.assertEqual(normalize("NodeAffinity", {"a": 1, "b": 3}), {"a": 33, "b": 100})
        self.assertEqual(normalize("NodeAffinity", {"a": 0, "b": 0}), {"a": 0, "b": 0})

    def test_taint_toleration_is_reversed(self):
        # TaintToleration counts untolerated PreferNoSchedule taints; fewer is better.
        self.assertEqual(normalize("TaintToleration", {"a": 0, "b": 1, "c": 2}),
                         {"a": 100, "b": 50, "c": 0})
        self.assertEqual(normalize("TaintToleration", {"a": 0, "b": 0}), {"a": 100, "b": 100})
        self.assertEqual(default_normalize({"a": 1, "b": 3}, reverse=True), {"a": 67, "b": 0})

    def test_unknown_plugin(self):
        with self.assertRaises(ValueError):
            normalize("NodeResourcesFit", {"a": 1})


class CompareExplain(unittest.TestCase):
    REPORT = {"pod": "ns/p", "available": "0/3 nodes are available: ...",
              "nodes": [
                  {"node": "n1", "feasible": False,
                   "reasons": ["node(s) didn't match pod anti-affinity rules"]},
                  {"node": "n2", "feasible": True, "reasons": [],
                   "scores": {"InterPodAffinity": -5, "TaintToleration": 1}},
                  {"node": "n3", "feasible": True, "reasons": [],
                   "scores": {"InterPodAffinity": 5, "TaintToleration": 0}}]}

    def test_match(self):
        expect = {"feasible": ["n2", "n3"],
                  "reasons": {"n1": "node(s) didn't match pod anti-affinity rules"},
                  "scores": {"InterPodAffinity": {"n2": 0, "n3": 100},
                             "TaintToleration": {"n2": 0, "n3": 100}}}
        self.assertEqual(compare_explain(expect, self.REPORT), [])

    def test_mismatches_are_named(self):
        expect = {"feasible": ["n3"], "reasons": {"n1": "node(s) didn't match pod affinity rules",
                                                  "n2": "x"},
                  "scores": {"InterPodAffinity": {"n3": 50}}, "unavailable": "y"}
        diffs = compare_explain(expect, self.REPORT)
        self.assertEqual(len(diffs), 5, diffs)

    def test_plugin_absent_everywhere_adds_nothing(self):
        # PreScore Skip: no Score, no NormalizeScore, 0 on every node -- even for the
        # reversed TaintToleration, whose normalizer would give 100.
        expect = {"scores": {"NodeAffinity": {"n2": 0, "n3": 0}}}
        self.assertEqual(compare_explain(expect, self.REPORT), [])

    def test_spread_ignored_nodes(self):
        report = {"nodes": [
            {"node": "a", "feasible": True, "scores": {"PodTopologySpread": 2}},
            {"node": "b", "feasible": True, "scores": {"PodTopologySpread": 4}},
            {"node": "c", "feasible": True, "scores": {}, "ignored": ["PodTopologySpread"]},
            {"node": "d", "feasible": True, "scores": {}}]}
        expect = {"scores": {"PodTopologySpread": {"a": 100, "b": 50, "c": 0, "d": 0}}}
        self.assertEqual(compare_explain(expect, report), [])

    def test_non_integer_raw_score(self):
        report = {"nodes": [{"node": "a", "feasible": True, "scores": {"NodeAffinity": 1.5}}]}
        self.assertEqual(len(compare_explain({"scores": {"NodeAffinity": {"a": 0}}}, report)), 1)


if __name__ == "__main__":
    unittest.main()
