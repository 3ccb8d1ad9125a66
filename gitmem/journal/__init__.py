"""The session journal: logs in (scanned before they are written), proposed memories out
(harvest)."""
