"""Analyses built on the core: simulations and figures (matplotlib imported inside the plotting functions only)."""
