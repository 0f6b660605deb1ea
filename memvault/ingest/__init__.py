"""The write path: normalise, gate exact duplicates, extract, embed, commit one batch."""
