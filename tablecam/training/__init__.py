"""The training lab: synthetic scenes, deck designs, training recipes,
evaluation and tuning behind the shipped models.

Only the lab imports the runtime (:mod:`tablecam.vision`), never the other
way round (``tests/test_vision_import_direction.py``): a table runs the
shipped models without any of this.  Training itself needs the ``train``
extra (torch, Ultralytics)."""
