#!/usr/bin/env python3
"""End-to-end tests of `lockstep query` (docs/query.md).

Each answer on the skirmish fixture is checked against the same question answered here,
independently, from `lockstep dump --json` of the same state: filters, exact decimal
comparisons (fractions.Fraction on the dump's exact decimal strings), the total order
(value, then slot id), skip/limit, count. Malformed queries must exit 2 and name the column
with a caret under it.

usage: query_test.py CASE LOCKSTEP SOURCE_DIR WORKDIR
"""
import json
import os
import subprocess
import sys
from fractions import Fraction

case, binary, src, work = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(work, exist_ok=True)
replay = os.path.join(src, "fixtures", "skirmish", "skirmish.replay")
TICK = "300"


def run(*args, want=0):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != want:
        sys.exit(f"FAIL: expected exit {want}, got {p.returncode}: {args}\n--- stdout\n{p.stdout[:3000]}\n"
                 f"--- stderr\n{p.stderr[:3000]}")
    return p


# Most questions go to a snapshot of tick 300 (fast to load, and a second kind of source);
# the example also runs on the replay at --tick 300 and must answer identically.
snap = os.path.join(work, "s300.lssnap")


def make_snapshot():
    run("snapshot", replay, "--tick", TICK, "-o", snap)


def source_args(on_replay=False):
    return [replay, "--tick", TICK] if on_replay else [snap]


def dump():
    d = json.loads(run("dump", replay, "--tick", TICK, "--json").stdout)
    assert d["tick"] == int(TICK), d["tick"]
    return d


def ent(s):
    slot, gen = s.split(":")
    return (int(slot), int(gen))


def query(text, on_replay=False):
    out = json.loads(run("query", *source_args(on_replay), "--json", text).stdout)
    assert out["tick"] == int(TICK) and out["query"] == text, out
    return out


def check(text, entities, key=None, desc=False, skip=0, limit=None, fields=()):
    """entities: the dump's entities that match; key(e) the order value (None: visit order)."""
    rows = list(entities)
    assert rows, ("the reference matches nothing: a test that cannot fail", text)
    if key is not None:
        # Total order: the value (asc or desc), ties by slot id ascending.
        rows.sort(key=lambda e: e["slot"])
        rows.sort(key=key, reverse=desc)
    page = rows[skip:] if limit is None else rows[skip:skip + limit]
    out = query(text)
    assert out["matched"] == len(rows), (text, out["matched"], len(rows))
    got = [r["entity"] for r in out["rows"]]
    want = [e["entity"] for e in page]
    assert got == want, (text, got[:10], want[:10])
    for r, e in zip(out["rows"], page):
        for f in fields:
            comp, name = f.split(".", 1)
            assert r["fields"][f] == e["components"][comp][name], (text, e["entity"], f, r["fields"][f])
    return out


def has(e, *comps):
    return all(c in e["components"] for c in comps)


def comp(e, c, f):
    return e["components"][c][f]


if case == "answers_match_dump":
    make_snapshot()
    d = dump()
    es = d["entities"]
    # Visit order = archetype id, then slot: the dump lists entities by slot; sort like the kernel.
    es = sorted(es, key=lambda e: (e["archetype"], e["slot"]))
    units = [e for e in es if has(e, "Team", "Health")]
    assert len(units) > 100, len(units)
    hp_values = sorted({comp(e, "Health", "hp") for e in units})
    cut = hp_values[len(hp_values) // 2] if len(hp_values) > 1 else hp_values[0] + 1

    # 1. The example shape: two conditions, order by desc, limit.
    q = f"Team, Health where Team.owner == 1 and Health.hp < {cut} order by Health.hp desc limit 5"
    m = [e for e in units if comp(e, "Team", "owner") == 1 and comp(e, "Health", "hp") < cut]
    assert m, "the example query must match something"
    out = check(q, m, key=lambda e: comp(e, "Health", "hp"), desc=True, limit=5,
                fields=("Team.owner", "Team.kind", "Health.hp"))
    assert query(q, on_replay=True) == out, "the replay at --tick and its snapshot answer alike"

    # 2. count form with or / not / parentheses.
    m = [e for e in units if comp(e, "Team", "kind") == 1 or not (comp(e, "Health", "hp") >= cut)]
    out = query(f"count Team, Health where Team.kind == 1 or not (Health.hp >= {cut})")
    assert out["matched"] == len(m) and "rows" not in out, (out, len(m))
    text = run("query", snap, f"count Team, Health where Team.kind == 1 or not (Health.hp >= {cut})")
    assert text.stdout == f"{len(m)}\n", text.stdout

    # 3. fixed-point elements, exact decimals (not multiples of 2^-16), ascending, skip + limit.
    pos = [e for e in es if has(e, "Position")]
    x = lambda e: Fraction(comp(e, "Position", "p")[0])
    y = lambda e: Fraction(comp(e, "Position", "p")[1])
    m = [e for e in pos if x(e) < Fraction("60.1") and y(e) >= Fraction("20.3")]
    assert len(m) > 13, len(m)
    check("Position where Position.p.x < 60.1 and Position.p[1] >= 20.3 order by Position.p.x skip 3 limit 10",
          m, key=x, skip=3, limit=10, fields=("Position.p",))

    # 4. within / inside: exact squared distance, inclusive box (Fractions: exact).
    m = [e for e in pos if (x(e) - 40) ** 2 + (y(e) - 40) ** 2 <= Fraction(21, 2) ** 2]
    check("Position where within(Position.p, [40, 40], 10.5)", m, fields=("Position.p",))
    m = [e for e in pos if Fraction(10) <= x(e) <= Fraction("50.7") and Fraction(-5) <= y(e) <= Fraction(60)]
    check("Position, Team where inside(Position.p, [10, -5], [50.7, 60]) and Team.owner != 1",
          [e for e in m if has(e, "Team") and comp(e, "Team", "owner") != 1], fields=("Position.p", "Team.owner"))

    # 5. Entity fields and array elements: order by an Entity descending (slot, then generation).
    wpn = [e for e in es if has(e, "Weapon")]
    m = [e for e in wpn if ent(comp(e, "Weapon", "target")) != (0, 0)]
    check("Weapon where Weapon.target != 0:0 order by Weapon.target desc limit 7", m,
          key=lambda e: ent(comp(e, "Weapon", "target")), desc=True, limit=7, fields=("Weapon.target",))
    orders = [e for e in es if has(e, "Order")]
    t0 = lambda e: Fraction(comp(e, "Order", "target")[0])
    m = [e for e in orders if t0(e) >= 50]
    assert len(m) > 4, len(m)
    check("Order where Order.target[0] >= 50 order by Order.target[0] desc skip 0 limit 4",
          m, key=t0, desc=True, limit=4, fields=("Order.target",))

    # 6. No component list: every live entity; text form has a header and a summary line.
    out = run("query", snap, "where Health.hp < 1000000 limit 3").stdout.splitlines()
    assert out[0].split() == ["entity"], out[0]
    assert out[-1].startswith(f"(3 of {len(units)} matching entities, tick {TICK})"), out[-1]
    print("ok")

elif case == "malformed":
    make_snapshot()
    cases = [
        # (query, 1-based column, text in the message)
        ("Team, Healt where Health.hp < 10", 7, "no component named 'Healt'"),
        ("Team where Team.ownr == 1", 17, "Team has no field 'ownr'"),
        ("Team where Team.owner == ", 26, "expected a value after '=='"),
        ("Team where (Team.owner == 1", 28, "expected ')' to close the '(' at column 12"),
        ("Team where Team.owner == 1.5", 26, "expected an integer"),
        ("Position where Position.p < 3", 16, "'Position.p' has 2 elements"),
        ("Team where Team.owner 1", 23, "expected a comparison operator"),
        ("Team Health", 6, "unexpected 'Health'"),
        ("Order where Order.target[7] == 1", 26, "index 7 out of range: Order.target has 2 element(s)"),
        ("Position where within(Position.p, [0, 0], 0.1)", 43, "not a multiple of 1/65536"),
        ("Team where Team.owner == 1 limit -3", 34, "expected a non-negative integer"),
        ("Team where Team.owner ! 1", 23, "unknown operator '!'"),
    ]
    for text, column, message in cases:
        p = run("query", snap, text, want=2)
        lines = p.stderr.splitlines()
        head = f"lockstep: error: query: column {column}: "
        assert lines[0].startswith(head) and message in lines[0], (text, lines[0])
        assert lines[1] == "  " + text, (text, lines[1])
        assert lines[2] == "  " + " " * (column - 1) + "^", (text, lines[2])
        j = json.loads(run("query", snap, "--json", text, want=2).stdout)
        assert j["ok"] is False and j["exit"] == 2 and j["column"] == column and message in j["error"], j
    # The replay source reports the same way.
    p = run("query", replay, "--tick", TICK, cases[1][0], want=2)
    assert p.stderr.splitlines()[0].startswith("lockstep: error: query: column 17: "), p.stderr
    # Bad sources are reported like dump's (exit 2, names the file).
    p = run("query", os.path.join(work, "missing.replay"), "count Team", want=2)
    assert "missing.replay" in p.stderr, p.stderr
    print("ok")

elif case == "dump_where":
    # dump --where shares the language: the dumped entities are exactly the reference's.
    make_snapshot()
    d = dump()
    want = [e["entity"] for e in d["entities"]
            if has(e, "Team", "Health") and comp(e, "Team", "owner") == 1 and comp(e, "Health", "hp") < 115]
    assert want, "reference matches nothing"
    cond = "Team.owner == 1 and Health.hp < 115"
    got = json.loads(run("dump", snap, "--json", "--where", cond).stdout)
    assert [e["entity"] for e in got["entities"]] == want, (len(got["entities"]), len(want))
    assert got["resources"] == {}, "resources are shown only when --component names them"
    got = json.loads(run("dump", snap, "--json", "--where", cond, "--component", "Health").stdout)
    assert [e["entity"] for e in got["entities"]] == want
    assert all(list(e["components"]) == ["Health"] for e in got["entities"])
    none = json.loads(run("dump", snap, "--json", "--where", "Health.hp < -1").stdout)
    assert none["entities"] == [], "an empty match shows no entity (not all of them)"
    p = run("dump", snap, "--where", "Health.hp <", want=2)
    lines = p.stderr.splitlines()
    assert lines[0].startswith("lockstep: error: query: column 12: expected a value after '<'"), lines[0]
    assert lines[2] == "  " + " " * 11 + "^", lines[2]
    print("ok")

else:
    sys.exit(f"unknown case {case}")
