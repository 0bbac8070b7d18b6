"""Part of the pure core (see xlbridge.core)."""
