"""Rules engines, one module per game (see :data:`tablecam.engine.ENGINES`)."""
