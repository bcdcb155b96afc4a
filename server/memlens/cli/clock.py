"""Times as a person reads them: a wire timestamp (ISO 8601, in UTC) shown in the zone `display.timeZone` names, else
in the machine's — the zone in which a question about "yesterday" is read, so the times under it agree with it."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def zone_named(name: str) -> tzinfo | None:
    """The zone `name` names (an IANA name such as `Europe/Berlin`); None, the machine's zone, for an empty or unknown
    name (the settings already warned about an unknown one)."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def local_time(timestamp: str | None, zone: tzinfo | None, *, seconds: bool = False) -> str:
    """`2026-02-10 09:57` (with `seconds`, `…:57:03`) in `zone`; "" for none; a text that is no time as it came."""
    if not timestamp:
        return ""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp.replace("T", " ")[: 19 if seconds else 16]
    if moment.tzinfo is None:  # the catalog's times are UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
