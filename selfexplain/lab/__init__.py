"""The lab: measurements of the explanations, each room with its ``cli.py`` (its ``selfexplain``
subcommands): :mod:`~selfexplain.lab.faithfulness` (the lab, the flip certificate),
:mod:`~selfexplain.lab.anatomy`, :mod:`~selfexplain.lab.plausibility`, :mod:`~selfexplain.lab.sharpness`
and :mod:`~selfexplain.lab.distill`. Rooms may use each other, never both ways.

Imports nothing itself: ``import selfexplain`` stays light.
"""
