"""Secret and hidden-Unicode scanning: nothing secret or invisible enters memory.

The public interface: ``scan_text`` returns ``Finding`` values (finding a secret is a result, not an exception);
``find_hidden`` returns the hidden Unicode characters of a text.
"""

from __future__ import annotations

from gitmem.scan.engine import Finding, scan_text
from gitmem.scan.unicode import HiddenChar, find_hidden

__all__ = ["Finding", "HiddenChar", "find_hidden", "scan_text"]
