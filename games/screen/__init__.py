"""The table screen: labels, template contexts and the rendered regions of one audience, and
the memo of renderings. Pure: given a snapshot, it reads no database."""
