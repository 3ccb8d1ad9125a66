"""gitmem: a memory for AI coding assistants that lives in the repository."""

__version__ = "0.1.0"
