"""Row level security's catalog: ``CREATE POLICY``, ``ALTER POLICY``, ``DROP POLICY`` and ALTER
TABLE's ``{ENABLE | DISABLE} ROW LEVEL SECURITY`` / ``[NO] FORCE ROW LEVEL SECURITY``, as
PostgreSQL 16 has them (doc/src/sgml/ref/create_policy.sgml, ddl.sgml "Row Security
Policies"; commands/policy.c's checks and messages).

- **Whom they restrict.** No one: txlake's one role (pg_roles' ``root``) is a superuser, and
  PostgreSQL exempts superusers from row security - even on a table with FORCE ROW LEVEL
  SECURITY, whatever ``row_security`` says. So a policy filters no row and refuses no write
  here, as it filters none for a superuser in PostgreSQL; a schema that relies on policies for
  other roles (``TO authenticated``) loads, shows and dumps them, and its rows are all seen.
  Roles named in TO are kept as written (txlake has no roles to check them against, as
  ``GRANT`` is taken).
- **Catalog.** A policy is part of its table's catalog entry (``TableSchema.policies``, and
  ``row_security`` / ``force_row_security``), transactional as the rest of DDL: undone by a
  ROLLBACK, seen by others at COMMIT and after a restart, dropped with the table; a commit
  merges it into the table's newest schema as a trigger's (storage/commit.py).
- **Checked at CREATE / ALTER** as PostgreSQL checks a policy's expressions: bound over the
  table (a column it has not: 42703, a function there is not: 42883, a table there is not:
  42P01), boolean (42804 ``argument of POLICY must be type boolean``), no aggregate, window or
  set-returning function; stored as a CHECK's expression is (its columns without the table's
  name), so a renamed table keeps them and a renamed column is renamed in them; a dropped
  column a policy uses is 2BP01 unless CASCADE drops the policy too.
- **Shown** by ``pg_policy``, ``pg_policies``, ``pg_class.relrowsecurity`` /
  ``relforcerowsecurity``, ``pg_tables.rowsecurity`` (engine/pg_catalog.py) and psql's ``\\d``
  "Policies:" section (``describe_lines``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, checks, pg_catalog
from txlake.engine.dialect import user_name
from txlake.parser import statements as st
from txlake.parser.parse import parse_one
from txlake.parser.semantics import boolean_condition
from txlake.storage.schema import Policy, TableSchema
from txlake.storage.version import TableVersion

if TYPE_CHECKING:
    from txlake.engine.executor import Context, Executor, Result

# pg_policy.polcmd of each command
COMMAND_CODES = {"ALL": "*", "SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d"}


# --- CREATE / ALTER / DROP POLICY, ALTER TABLE ... ROW LEVEL SECURITY --------------------------

def create_policy(ex: Executor, ctx: Context, stmt: st.CreatePolicy, params) -> Result:
    from txlake.engine.executor import Result
    version = _table(ex, ctx, stmt.table, "CREATE POLICY")
    if any(p.name == stmt.name for p in version.schema.policies):
        raise errors.DuplicateObject(f'policy "{stmt.name}" for table "{version.name}" already exists')
    policy = Policy(stmt.name, stmt.command, stmt.permissive, stmt.roles, _bound(ex, ctx, version, stmt.using),
                    _bound(ex, ctx, version, stmt.check))
    _write(ex, ctx, version, policies=(*version.schema.policies, policy))
    return Result(status="CREATE POLICY")


def alter_policy(ex: Executor, ctx: Context, stmt: st.AlterPolicy, params) -> Result:
    """ALTER POLICY ... RENAME TO, or its roles, USING and WITH CHECK anew (what is not written kept)."""
    from txlake.engine.executor import Result
    version = _table(ex, ctx, stmt.table, "ALTER POLICY")
    policy = _policy(version, stmt.name)
    if stmt.new is not None:
        if any(p.name == stmt.new for p in version.schema.policies):
            raise errors.DuplicateObject(f'policy "{stmt.new}" for table "{version.name}" already exists')
        changed = dataclasses.replace(policy, name=stmt.new)
    else:
        if policy.command in ("SELECT", "DELETE") and stmt.check is not None:
            raise errors.SyntaxError("only USING expression allowed for SELECT, DELETE")
        if policy.command == "INSERT" and stmt.using is not None:
            raise errors.SyntaxError("only WITH CHECK expression allowed for INSERT")
        changed = dataclasses.replace(
            policy, roles=policy.roles if stmt.roles is None else stmt.roles,
            using=policy.using if stmt.using is None else _bound(ex, ctx, version, stmt.using),
            check=policy.check if stmt.check is None else _bound(ex, ctx, version, stmt.check))
    _write(ex, ctx, version, policies=tuple(changed if p is policy else p for p in version.schema.policies))
    return Result(status="ALTER POLICY")


def drop_policy(ex: Executor, ctx: Context, stmt: st.DropPolicy, params) -> Result:
    from txlake.engine.executor import Result
    if ctx.lookup(stmt.table) is None and stmt.if_exists:
        return Result(status="DROP POLICY", notice=f'relation "{stmt.table.name}" does not exist, skipping')
    version = _table(ex, ctx, stmt.table, "DROP POLICY")
    kept = tuple(p for p in version.schema.policies if p.name != stmt.name)
    if len(kept) == len(version.schema.policies):
        if stmt.if_exists:
            return Result(status="DROP POLICY", notice=f'policy "{stmt.name}" for relation "{version.name}" '
                                                        "does not exist, skipping")
        _policy(version, stmt.name)  # (42704)
    _write(ex, ctx, version, policies=kept)
    return Result(status="DROP POLICY")


def alter_row_security(ex: Executor, ctx: Context, stmt: st.AlterRowSecurity, params) -> Result:
    """ALTER TABLE t {ENABLE | DISABLE | FORCE | NO FORCE} ROW LEVEL SECURITY."""
    from txlake.engine.executor import Result
    version = _table(ex, ctx, stmt.table, "ALTER TABLE")
    schema = version.schema
    enable = schema.row_security if stmt.enable is None else stmt.enable
    force = schema.force_row_security if stmt.force is None else stmt.force
    if (enable, force) != (schema.row_security, schema.force_row_security):
        _write(ex, ctx, version, row_security=enable, force_row_security=force)
    return Result(status="ALTER TABLE", notice=None if not stmt.enable and not stmt.force else
                  f'txlake\'s one role is a superuser, which row level security does not restrict: the policies '
                  f'of "{version.name}" filter no row')


def _table(ex: Executor, ctx: Context, name: st.TableName, command: str) -> TableVersion:
    """The table a policy statement names (ACCESS EXCLUSIVE locked: engine/table_locks.py): a
    view, a sequence ... is PostgreSQL's 42809."""
    from txlake.engine.sequence_ddl import read_write
    read_write(ctx, command)
    version = ctx.resolve(name)
    if not version.is_table or version.is_matview:
        raise errors.WrongObjectType(f'"{version.name}" is not a table')
    return version


def _policy(version: TableVersion, name: str) -> Policy:
    for policy in version.schema.policies:
        if policy.name == name:
            return policy
    raise errors.UndefinedObject(f'policy "{name}" for table "{version.name}" does not exist')


def _write(ex: Executor, ctx: Context, version: TableVersion, **changes) -> None:
    """``version`` with its policies or row security changed, in the transaction: its catalog
    entry alone (same schema id, same files), as COMMENT and CREATE TRIGGER change it."""
    if "policies" in changes:
        changes["policies"] = tuple(sorted(changes["policies"], key=lambda p: p.name))
    ex._write(ctx, version, version.with_files(schema=dataclasses.replace(version.schema, **changes)),
              check_ssi=False)


def _bound(ex: Executor, ctx: Context, version: TableVersion, expression: exp.Expression | None) -> str | None:
    """The text a policy keeps of its USING or WITH CHECK ``expression``, which must bind over
    the table as a WHERE clause over it would, and be boolean (PostgreSQL's transformWhereClause
    of a POLICY)."""
    if expression is None:
        return None
    while isinstance(expression, exp.Paren):
        expression = expression.this
    for node in expression.walk():
        checks.refuse_row_set(node, "policy expressions")
    text = checks.stored(_unqualified(expression, version.name))
    schema = catalog_views.schema_name(version.db)
    query = parse_one(f"SELECT ({text}) FROM {exp.to_identifier(schema).sql()}."
                      f"{exp.to_identifier(version.name, quoted=True).sql()} LIMIT 0")
    select = query.expression.copy()
    value = select.expressions[0]
    value.replace(exp.alias_(boolean_condition(value.unalias(), "policy"), "__txl_policy"))

    def run(sql: str):
        try:
            ex.con.sql(sql).fetchall()
        except duckdb.Error as e:
            raise ex._error(e) from None

    from txlake.engine.executor import with_settings  # (current_setting(): the session's now, as a query's)
    ex._over_tables(ctx, with_settings(ctx, dataclasses.replace(query, expression=select)), run)
    return text


# --- ALTER TABLE's column changes ------------------------------------------------------------

def without_column(schema: TableSchema, table: str, action: st.DropColumn) -> TableSchema:
    """ALTER TABLE ... DROP COLUMN of a column a policy uses: 2BP01, or with CASCADE the policies
    dropped too, as PostgreSQL's dependencies do."""
    users = [p for p in schema.policies if any(c.name == action.name for text in (p.using, p.check) if text
                                               for c in _own_columns(checks.parsed(text), table))]
    if not users:
        return schema
    if not action.cascade:
        raise errors.DependentObjectsStillExist.column(table, action.name, f"policy {users[0].name} on table {table}")
    return dataclasses.replace(schema, policies=tuple(p for p in schema.policies if p not in users))


def renamed_column(schema: TableSchema, table: str, old: str, new: str) -> TableSchema:
    """ALTER TABLE ... RENAME COLUMN: the policies using it use it by its new name, as
    PostgreSQL's, which keep their columns by number."""
    def renamed(text: str | None) -> str | None:
        if text is None:
            return None
        tree = checks.parsed(text).copy()
        for column in list(_own_columns(tree, table)):
            if column.name == old:
                column.set("this", exp.to_identifier(new))
        return checks.stored(tree)
    return dataclasses.replace(schema, policies=tuple(
        dataclasses.replace(p, using=renamed(p.using), check=renamed(p.check)) for p in schema.policies))


def _unqualified(expression: exp.Expression, table: str) -> exp.Expression:
    """``expression`` with ``t.a`` written ``a`` (the table's own name) outside its subqueries
    (in one, ``t.a`` tells the policy's row from the subquery's)."""
    expression = expression.copy()
    for column in list(_own_columns(expression, table)):
        if column.table and column.find_ancestor(exp.Select) is None:
            column.replace(exp.column(column.this.copy()))
    return expression


def _own_columns(tree: exp.Expression, table: str):
    """The columns of a policy's expression ``tree`` that are its table's: unqualified outside
    its subqueries, qualified by the table's name anywhere."""
    for column in tree.find_all(exp.Column):
        if isinstance(column.this, exp.Star) or column.args.get("db"):
            continue
        if column.table == table or not column.table and column.find_ancestor(exp.Select) is None:
            yield column


# --- display ---------------------------------------------------------------------------------

def expression_text(text: str | None) -> str | None:
    """pg_get_expr's text of a stored policy expression: ``(a > 0)``."""
    return None if text is None else checks.unpretty(text)


def policy_oid(version: TableVersion, policy: Policy) -> int:
    return pg_catalog.oid(version.table_id, f"policy {policy.name}")


def role_oid(name: str) -> int:
    """pg_policy.polroles' OID of a role a policy names: the one role's (pg_roles), or one made
    from the name of a role txlake does not have."""
    return pg_catalog.OWNER if name == user_name() else pg_catalog.oid("role", name)


def describe_lines(schema: TableSchema) -> list[str]:
    """psql's ``\\d`` "Policies" section of a table (describe.c): its header as row security is
    enabled / forced, then each policy."""
    enabled, forced, policies = schema.row_security, schema.force_row_security, schema.policies
    if not enabled and not policies:
        return []
    if not enabled:
        header = "Policies (row security disabled):"
    elif policies:
        header = "Policies (forced row security enabled):" if forced else "Policies:"
    else:
        header = f"Policies ({'forced ' if forced else ''}row security enabled): (none)"
    lines = [header]
    for p in policies:
        line = f'    POLICY "{p.name}"' + ("" if p.permissive else " AS RESTRICTIVE") + \
               ("" if p.command == "ALL" else f" FOR {p.command}")
        if p.roles:
            line += f"\n      TO {','.join(sorted(p.roles))}"
        if p.using:
            line += f"\n      USING ({expression_text(p.using)})"
        if p.check:
            line += f"\n      WITH CHECK ({expression_text(p.check)})"
        lines.extend(line.split("\n"))
    return lines
