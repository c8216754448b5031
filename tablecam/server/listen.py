"""Open the dashboard's port first, then say where it is, then serve.

Why in this order: ``uvicorn.run`` binds the port only once it runs, so a
port already in use surfaced as uvicorn's own error after the command had
printed the dashboard's address (and the demo had made its temp folder).
Binding here first turns it into one clear line and nothing started.
"""

from __future__ import annotations

import errno
import socket
from typing import Any


class PortInUse(OSError):
    """The address cannot be listened on; ``str()`` says why in a director's words."""


def open_port(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or :class:`PortInUse` with the reason.

    >>> s = open_port("127.0.0.1", 0)
    >>> try:
    ...     open_port("127.0.0.1", s.getsockname()[1])
    ... except PortInUse as e:
    ...     print(str(e).split(":")[0])
    port ... on 127.0.0.1 is already in use
    >>> s.close()
    """
    try:
        return socket.create_server((host, port), backlog=2048)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {host} is already in use: another tablecam (or another "
                            f"server) is listening there; stop it or choose another with --port") from None
        if e.errno == errno.EACCES:
            raise PortInUse(f"port {port} on {host} needs more rights than this user has; "
                            f"choose a port above 1023 with --port") from None
        if isinstance(e, socket.gaierror) or e.errno in (errno.EADDRNOTAVAIL,):
            raise PortInUse(f"cannot listen on {host}: not an address of this machine ({e.strerror or e})") from None
        raise PortInUse(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


def serve(app: Any, sock: socket.socket, *, access_log: bool = False, ws: str = "auto") -> None:
    """Run ``app`` on the already open ``sock`` until interrupted.

    ``access_log``: one line per request on stdout (uvicorn's access log,
    which a service manager or ``>> access.log`` keeps apart from the
    server's messages on stderr), for an operator who wants to see who asks
    for what; off by default.
    """
    import uvicorn

    config = uvicorn.Config(app, log_level="info" if access_log else "warning", access_log=access_log, ws=ws)
    uvicorn.Server(config).run(sockets=[sock])
