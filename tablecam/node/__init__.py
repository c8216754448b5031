"""What runs beside a table: the table node and what feeds it.

- :mod:`.tablenode`: :class:`~.tablenode.TableNode`, one table's events
  stored, judged by the game's engine and published on the bus;
- :mod:`.sources`: where its events come from - the shoe (a real one on a
  serial port, or a virtual one on a pty), the camera, a simulated table;
- :mod:`.democamera`: the demo's camera, a rendered board read by the real
  camera pipeline;
- :mod:`.runner`: ``tablecam run``, one table from its config;
- :mod:`.demo`: ``tablecam demo``, simulated tables end to end with the
  dashboard on localhost;
- :mod:`.cli`: those two commands.

The bus itself (in-process or MQTT) and the director station's end of it
are :mod:`tablecam.bus`.
"""

from .tablenode import TableNode

__all__ = ["TableNode"]
