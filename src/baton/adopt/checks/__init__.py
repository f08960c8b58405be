"""The checks of `baton doctor`, pure: what was read in, findings out."""
