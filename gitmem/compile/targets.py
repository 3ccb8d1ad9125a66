"""Every AI tool gitmem compiles for: the targets of ``gitmem/tools.py``'s records (see that module for how a
target places a memory), and the user-level variant `compile --user` writes."""

from __future__ import annotations

from gitmem.tools import TARGETS as TARGETS
from gitmem.tools import USER_FOLDER_FILE as USER_FOLDER_FILE
from gitmem.tools import WHOLE_PREFIX as WHOLE_PREFIX
from gitmem.tools import Limit as Limit
from gitmem.tools import Target as Target
from gitmem.tools import UserFile as UserFile

BY_NAME: dict[str, Target] = {target.name: target for target in TARGETS}


def get(name: str) -> Target:
    return BY_NAME[name]


def user_variant(target: Target, user_file: UserFile, root_file: str) -> Target:
    """``target`` as `compile --user` writes it: one always-loaded file, ``root_file`` (relative to the home
    directory: ``user_file``'s path, or ``gitmem.md`` in its folder), and no path scoping (a memory with ``paths``
    goes into that file under a heading that names its globs)."""
    return target._replace(
        tool=user_file.tool,
        root_file=root_file,
        root_whole=user_file.folder,
        root_frontmatter=target.root_frontmatter if user_file.folder else (),
        dir_file=None,
        scoped_dir=None,
        scoped_frontmatter=(),
        limits=tuple(limit for limit in target.limits if limit.measure != "chain_bytes"),
        user_files=(user_file,),
        reads_config=None,
        personal=True,
    )
