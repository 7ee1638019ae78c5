"""The one exception type a user's mistake turns into.

Anything raised as :class:`UserError` is printed by the CLI as a single line
(no traceback) and the process exits with status 2. Its message must say what
is wrong and how to fix it.
"""


class UserError(Exception):
    """A problem with the user's input: a file, an option, a size."""

    exit_status = 2
