"""The training lab: synthetic data, recipes and evaluation behind the shipped models.

Never imported by the runtime (``tablecam/vision``); training needs the
``train`` extra (torch).
"""
