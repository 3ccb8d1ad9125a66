"""gitmem: a memory for AI coding assistants that lives in the repository."""

__version__ = "0.1.0"

# How gitmem is installed today. The package index has no release of it yet (its name there would be
# gitmem-cli, the distribution name in pyproject.toml; the index's `gitmem` is an unrelated
# project): it is installed from its source, a checkout, a wheel built from one, or its git
# repository. Every message says one of these lines and the documents say the same forms
# (tests/test_install.py holds both to it), so when the name is published the lines change here and
# in the documents that test names.
INSTALL = (
    "pip install . in a checkout of gitmem, or pipx install git+URL (URL: gitmem's repository)"
)
INSTALL_MCP = "pip install '.[mcp]' in a checkout of gitmem, or pipx inject gitmem-cli 'mcp>=2'"
# A CI job of another repository: its environment's GITMEM_URL says where gitmem's repository is.
INSTALL_CI = 'pip install "git+$GITMEM_URL"'

# The command the hooks, the merge driver and the MCP registrations run: a name only this package
# installs (the `gitmem` command on PATH may be another tool's: dev-boz/gitmem installs one).
# pyproject.toml installs both names.
COMMAND = "gitmem-cli"
