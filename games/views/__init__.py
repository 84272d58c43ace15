"""Pages, one module per part of the site: the lobby and the rules pages (``lobby``), the table
screen and its POSTs (``table``), private tables (``private_tables``), their sessions
(``sessions``) and the hand history (``history``); ``replies`` is what a table's POST answers.

Writes go through games.services (one transaction each, pushed after commit); a refusal
(``ActionRejected``) is shown to the player: as the #table-error partial for an htmx request,
as a flash message otherwise.
"""
