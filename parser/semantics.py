"""Where DuckDB's answer differs from PostgreSQL's, the parsed statement is rewritten once, at
parse time, to PostgreSQL's (``postgres_semantics``); what needs DuckDB's help - a macro, a
function, a setting - is set up on each DuckDB connection by engine/dialect.py."""

from __future__ import annotations

from sqlglot import exp


# the divisor wrapper the executor defines in DuckDB: raises "division by zero" on 0
DIVISOR_MACRO = "txl_divisor"


def postgres_semantics(tree: exp.Expression) -> exp.Expression:
    """Where DuckDB's answer differs from PostgreSQL's, rewrite once, at parse time:

    - ``x / 0`` and ``x % 0`` raise 22012 (DuckDB gives inf or NULL): a divisor that is not a
      non-zero literal goes through ``txl_divisor``;
    - an unnamed aggregate or function column is named after its function (``count``, not
      DuckDB's ``count_star()``);
    - backslash escapes ``_`` and ``%`` in a LIKE / ILIKE pattern that gives no ESCAPE
      (PostgreSQL's default; DuckDB has none): ``'a_c' LIKE 'a\\_c'`` is true;
    - ``format('%s-%s', a, b)`` fills ``%s`` with the values as text, NULL as '' (DuckDB's
      ``format`` takes ``{}``; its ``printf`` takes ``%s`` of text only);
    - ``now()``, ``current_timestamp``, ``current_date`` and their kin are the transaction's
      start (``transaction_clock``).
    """
    select = tree if isinstance(tree, exp.Select) else None
    if select is not None:  # a rewritten column keeps the name it had as written
        for i, projection in enumerate(select.expressions):
            clock = _clock_name(projection)
            if isinstance(projection, exp.Format) or clock:
                select.expressions[i] = exp.alias_(projection, clock or "format", quoted=True)
            elif not isinstance(projection, exp.Alias) and any(
                    _rewritten(n) for n in projection.find_all(exp.Div, exp.Mod, exp.IntDiv, exp.Like, exp.ILike,
                                                               exp.Format, *_CLOCKS, exp.Anonymous)):
                select.expressions[i] = exp.alias_(projection, projection.sql(dialect="duckdb"), quoted=True)
    tree = transaction_clock(tree)
    for node in list(tree.find_all(exp.Like, exp.ILike)):
        if _rewritten(node):
            node.replace(exp.Escape(this=node.copy(), expression=exp.Literal.string("\\")))
    for node in list(tree.find_all(exp.Format)):
        values = [exp.func("coalesce", exp.cast(v, exp.DataType.build("VARCHAR")), exp.Literal.string(""))
                  for v in node.expressions]
        node.replace(exp.Anonymous(this="printf", expressions=[node.this, *values]))
    for node in list(tree.find_all(exp.Div, exp.Mod, exp.IntDiv)):
        divisor = node.expression
        if isinstance(divisor, exp.Literal) and divisor.is_number and float(divisor.this) != 0:
            continue
        node.set("expression", exp.Anonymous(this=DIVISOR_MACRO, expressions=[divisor]))
    if select is not None:
        for i, projection in enumerate(select.expressions):
            if isinstance(projection, (exp.AggFunc, exp.Anonymous)) and not isinstance(projection, exp.Alias):
                name = projection.name if isinstance(projection, exp.Anonymous) else projection.sql_name()
                if name and name.lower() != DIVISOR_MACRO:
                    select.expressions[i] = exp.alias_(projection, name.lower(), quoted=True)
    return tree


def _rewritten(node: exp.Expression) -> bool:
    """Does ``postgres_semantics`` rewrite this node? (Division always: its divisor is checked.
    LIKE only for a pattern that may hold a backslash: one without matches alike, and keeps
    DuckDB's LIKE optimizations. A function call if it reads the clock.)"""
    if isinstance(node, (exp.Like, exp.ILike)):
        pattern = node.expression
        return not isinstance(node.parent, exp.Escape) and not (
            isinstance(pattern, exp.Literal) and "\\" not in pattern.this)
    if isinstance(node, exp.Anonymous):
        return _clock_name(node) is not None
    return True


# The transaction's start time, as PostgreSQL's now(): the executor defines this DuckDB function
# (DuckDB's own now() is the start of each statement it runs)
CLOCK_FUNCTION = "txl_now"
# PostgreSQL's clock functions that mean the transaction's start: their column names, and the
# types the start is cast to, in turn
_CLOCK_TYPES = {exp.CurrentTimestamp: ("current_timestamp", ()), exp.CurrentDate: ("current_date", ("DATE",)),
                exp.CurrentTime: ("current_time", ("TIMETZ",)),
                exp.Localtimestamp: ("localtimestamp", ("TIMESTAMP",)),
                exp.Localtime: ("localtime", ("TIMESTAMP", "TIME"))}
_CLOCKS = tuple(_CLOCK_TYPES)
_CLOCK_CALLS = {"now": None, "transaction_timestamp": None,
                # the statement's start: DuckDB's own (clock_timestamp() too: DuckDB has no
                # clock that moves within a statement)
                "statement_timestamp": "statement", "clock_timestamp": "statement"}


def _clock_name(node: exp.Expression) -> str | None:
    """The column name PostgreSQL gives a clock function's value (``now``, ``current_date``),
    or None if ``node`` is not one."""
    if isinstance(node, exp.Anonymous):
        name = node.name.lower()
        return name if name in _CLOCK_CALLS and not node.expressions else None
    named = _CLOCK_TYPES.get(type(node))
    return named[0] if named else None


def transaction_clock(tree: exp.Expression) -> exp.Expression:
    """Point the clock functions in ``tree`` at the transaction's start (``CLOCK_FUNCTION``), or
    at the statement's for ``statement_timestamp()`` / ``clock_timestamp()``. A column default
    in CREATE / ALTER TABLE is kept as written: it is rewritten where an INSERT uses it."""
    def clock(node):
        name = _clock_name(node)
        if name is None or node.find_ancestor(exp.ColumnDef) is not None:
            return node
        if _CLOCK_CALLS.get(name) == "statement":  # (a call: DuckDB may take CURRENT_TIMESTAMP for a column alias)
            return exp.Anonymous(this="get_current_timestamp")
        start = exp.Anonymous(this=CLOCK_FUNCTION)
        for to in _CLOCK_TYPES.get(type(node), (name, ()))[1]:
            start = exp.cast(start, to)
        return start
    return tree.transform(clock, copy=False)
