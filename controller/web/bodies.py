"""The JSON bodies the web API accepts, with their limits (pydantic checks them before the table sees them)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Login(BaseModel):
    pin: str = Field(max_length=64)


class Correction(BaseModel):
    counts: dict[str, int]
    who: str = Field(default="host", min_length=1, max_length=40)


class NewSession(BaseModel):
    players: list[str] = Field(min_length=1, max_length=5)
    emperors_court: bool = False
    force: bool = False  # the page's New game panel is the host's explicit choice


class Round(BaseModel):
    event: str | None = Field(default=None, max_length=60)
    bonus_tiles: dict[str, str | None] = Field(default_factory=dict)
    # player -> "A", "B" or "both" (favor cards #10, #11, #18); a list names players immune to both
    immune: list[str] | dict[str, str] = Field(default_factory=dict, max_length=5)


class ParryCard(BaseModel):
    """Who keeps favor card #4 to parry the next revolt marker (None: nobody)."""

    player: str | None = Field(default=None, max_length=20)


class CourtConversion(BaseModel):
    player: str = Field(max_length=20)
    cubes: int = Field(ge=1, le=3)


class Confirmation(BaseModel):
    who: str = Field(default="host", min_length=1, max_length=40)


class TrayPlacement(BaseModel):
    player: str = Field(max_length=20)
    armies: int = Field(ge=1, le=62)
    source: str = Field(default="favor", pattern="^(favor|bonus)$")
    card: int | None = None
    who: str = Field(default="host", min_length=1, max_length=40)


class TrayWord(BaseModel):
    """The host's word on the tray: ``counts`` None confirms what the station expects."""

    counts: dict[str, int] | None = None
    who: str = Field(default="host", min_length=1, max_length=40)
    note: str = Field(default="", max_length=200)


class ReleaseAnswer(BaseModel):
    fell: bool
    who: str = Field(default="host", min_length=1, max_length=40)


class Acknowledgement(BaseModel):
    who: str = Field(min_length=1, max_length=40)
    note: str = Field(default="", max_length=200)
