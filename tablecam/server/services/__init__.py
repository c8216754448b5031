"""Small services behind the routers and the hub, one job each.

- :mod:`.uploads`: read an events upload or a camera frame from a request body.
- :mod:`.delivery`: events entered at the station go to the table's node when one runs it, else the hub.
- :mod:`.exports`: a table's or the session's events as a PBN, LIN or JSON Lines download.
- :mod:`.decode`: what a table sends, read into an event, a remote finding or a reason.
- :mod:`.alertbook`: the alert queue, one alert per incident, bounded; acknowledgements and rulings.
- :mod:`.frames`: camera frames kept as evidence.
- :mod:`.evidence`: the events an alert shows.
- :mod:`.health`: shoe and camera health.
"""
