"""The ``memvault`` command line."""
