"""The memory model and the store under .memory/."""
