"""The table's web page: what the station serves on the local network.

Players watch on their phones; the host (who knows the PIN printed by ``tower serve``) plans battles,
releases the funnel and corrects readings. The app only serialises what ``controller.table.Table``
returns; it adds access control (:mod:`controller.web.access`), safe serving of the data
directory's images (:mod:`controller.web.files`) and live updates (:mod:`controller.web.events`).
"""
