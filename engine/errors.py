"""The one exception type that carries a message meant for the person at the keyboard."""


class ArborError(Exception):
    """A problem with the user's input or settings, worded for the user.

    The CLI prints ``str(error)`` as one line on stderr and exits with status 2;
    the window shows it in a dialog. Anything that is not an ``ArborError`` is a
    bug in Arbor and is reported with details.
    """


class Cancelled(Exception):
    """Raised by :meth:`engine.monitor.Monitor.check` when the user cancelled the job."""


def printable(text: str) -> str:
    """``text`` with control characters (a newline in a file name...) escaped, so that a
    message built from it stays one line.

    >>> printable("a\\nb\\tc é")
    'a\\\\nb\\\\tc é'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
