"""What a card is from its first digits: the BIN table (models.py: BinRange), filled from a published list of issuer
ranges by `manage.py refresh_bin_table` (sources.py reads it, services.py replaces the table), and the one lookup
(selectors.py) every part of the server asks (docs/card-details.md)."""
