"""selfexplain: Self-Explaining text classifiers and the tools to inspect them."""

__version__ = "0.1.0"
