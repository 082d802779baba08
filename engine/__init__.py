"""The Wallenstein combat rules, pure: no I/O, no randomness, and no imports of the rest of the project.

The physical tower is the game's only random source; the engine only plans what goes into it and
resolves what came out.

Front door: :mod:`engine.api` (``plan``/``resolve``, battle JSON in and out) and
:mod:`engine.errors` (``BattleInputError``, a ``ValueError`` with ``message`` and ``field``).
Building blocks a game session keeps state with:

* :mod:`engine.colours`: the palette and the cubes in the box (62 per player colour, 20 green);
* :mod:`engine.box`: the box's limits in a battle (42 revolt markers; what a supply can hold at most
  once the cubes known to be in the tower, the tray and the counties are counted);
* :mod:`engine.counts`: count-map arithmetic;
* :mod:`engine.supply`: ``Supplies`` (finite, immutable);
* :mod:`engine.ledger`: ``TowerLedger`` and ``check_reading`` (impossible readings);
* :mod:`engine.court`: Emperor's Court courtiers and conversions;
* :mod:`engine.tray`: favor cards #3/#8/#14 and the bonus card "place N armies into the tray";
* :mod:`engine.winter`: the supply chart; :mod:`engine.events`; :mod:`engine.bonus` (bonus tiles);
* :mod:`engine.model` (typed battles), :mod:`engine.schema` (the JSON Schema),
  :mod:`engine.parse`, :mod:`engine.legality`, :mod:`engine.planner`, :mod:`engine.resolver`;
* :mod:`engine.decisions`: the decisions below that shape a battle's cubes or result, each with the
  rulebook passage it rests on, and the notes that say so when they apply (``api.notes``).

Where the rulebooks and the contract are silent, the engine decides as follows (the ones that move
cubes or markers are argued from the rulebooks in :mod:`engine.decisions`):

* colours are the default palette only and event ids the listed ones, so a typo is an error;
* a county without armies is neutral: a player's county has at least 1 army, and a neutral
  county has no armies, revolt markers or buildings;
* a player holds at most one of the two combat bonus tiles; bonus tiles and the palace event act
  in attacks only, not in revolts;
* extras the supply cannot pay are left out, and so are peasants the common supply lacks (a cube
  that is not there cannot be dropped), with or without a ``supply`` map: the box less the cubes
  known elsewhere bounds every supply; the initial fill's cubes are required;
* cards that put armies into the tray place as many as the supply can pay;
* the player who wins a revolt loses as many armies as peasants came out; a county holds at most
  the 42 revolt markers of the box; favor card #4 parries the marker a won revolt would add;
* an attack that does not say its action cannot target a player immune to one of the two;
* revolt markers stay with a county that changes hands; a tied or peasant-held neutral county
  stays neutral with its card in the deck;
* the initial fill starts with an empty tower and tray, so its reading is checked against the drop;
* ``attacker_in_tray``/``defender_in_tray`` are 0 for the initial fill, which has no sides.
"""
