"""A rule's behaviour is named data (issue 34: "a rule's six booleans and three callables become
data a reader can follow"): each kind is a ``Literal`` of ``gitmem.scan.rules`` with one
interpreter table in the engine, and each check a name in ``filters.CHECKS``. A kind added without
its table entry, or a rule naming a check no table holds, fails here (and a misspelt one, mypy)."""

from __future__ import annotations

from typing import get_args

from gitmem.scan import engine, filters
from gitmem.scan.rules import RULES, Judged, Names, Reach, Reads


def test_every_kind_has_its_interpreter() -> None:
    assert set(get_args(Judged)) == set(engine._JUDGES)
    assert set(get_args(Names)) == set(engine._NAME_JUDGES)
    assert set(get_args(Reads)) == set(engine._READS)
    assert set(get_args(Reach)) == set(engine._REACH)
    assert set(get_args(filters.Check)) == set(filters.CHECKS)


def test_every_rule_names_kinds_and_checks_the_tables_hold() -> None:
    for rule in RULES:
        assert rule.judged in get_args(Judged), rule.id
        assert rule.reach in get_args(Reach), rule.id
        assert rule.reads in get_args(Reads), rule.id
        assert rule.names in get_args(Names), rule.id
        for check in (rule.check, rule.prose_check):
            assert check is None or check in filters.CHECKS, rule.id


def test_each_check_is_the_filter_of_its_name() -> None:
    for name, check in filters.CHECKS.items():
        assert check is getattr(filters, name)


def test_a_private_key_is_judged_by_its_structure_alone() -> None:
    keys = [rule for rule in RULES if rule.judged == "key"]
    assert keys and all(rule.check in (None, "key_material") for rule in keys)
